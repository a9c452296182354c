//! Gather and Scatter compile warning-free through the whole macro, with closures and named fns
//! as update computations, one and two operands, and run.
#![deny(warnings)]

use xla_aot::{xla, Tensor, D1, D2};

xla! {
    /// Rows of a table by id (an embedding lookup); ids beyond the table clamp.
    pub fn lookup(table: f32[4, 2], ids: s32[3]) -> f32[3, 2] {
        Gather(table, ids, offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0],
            index_vector_dim = 1, slice_sizes = [1, 2], indices_are_sorted = false)
    }

    /// Rows added in at ids; ids outside the table are dropped.
    pub fn add_rows(table: f32[4, 2], ids: s32[3], rows: f32[3, 2]) -> f32[4, 2] {
        Scatter(table, ids, rows, add, update_window_dims = [1], inserted_window_dims = [0],
            scatter_dims_to_operand_dims = [0], index_vector_dim = 1, unique_indices = false)
    }

    fn add(a: f32[], b: f32[]) -> f32[] {
        Add(a, b)
    }

    /// The smallest value per bin and how many values fell in it.
    pub fn bin_min_count(bins: u8[5], v: s32[5]) -> (s32[3], s32[3]) {
        Scatter(Broadcast(i32::MAX, broadcast_sizes = [3]), Broadcast(0i32, broadcast_sizes = [3]),
            bins, v, Broadcast(1i32, broadcast_sizes = [5]),
            |m, n, x, one| Tuple(Min(m, x), Add(n, one)), update_window_dims = [],
            inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1)
    }
}

fn main() {
    let table = Tensor::<f32, D2<4, 2>>::from_fn(|i| (i[0] * 2 + i[1]) as f32);
    let ids = Tensor::<i32, D1<3>>::from_vec(vec![3, -1, 9]).expect("ids");
    assert_eq!(lookup(&table, &ids).as_slice(), &[6.0, 7.0, 0.0, 1.0, 6.0, 7.0]);
    let rows = Tensor::<f32, D2<3, 2>>::from_fn(|_| 1.0);
    let out = add_rows(&table, &ids, &rows);
    assert_eq!(out.as_slice(), &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 8.0]);
    let bins = Tensor::<u8, D1<5>>::from_vec(vec![2, 0, 2, 7, 2]).expect("bins");
    let v = Tensor::<i32, D1<5>>::from_vec(vec![5, -1, 3, 0, 4]).expect("values");
    let (m, n) = bin_min_count(&bins, &v);
    assert_eq!(m.as_slice(), &[-1, i32::MAX, 3]);
    assert_eq!(n.as_slice(), &[1, 0, 3]);
}
