//! Oracle test of the generated code for Gather and Scatter (calls of `xla_kernels::gather` and
//! `xla_kernels::scatter`, the update computation inlined): on every element type, rows (the
//! embedding-lookup path), 2-D windows, a column gather (strided rows), batching dimensions,
//! `index_vector_dim = 0` and the implicit trailing 1, index arrays of several integer types
//! holding negative and too-large starts (clamped by Gather, dropped by Scatter), duplicate
//! scatter indices with `|a, b| b` (the last in index order wins) and with `Add`. Then two
//! programs: an embedding bag (Gather + Reduce, large enough for the parallel path) and
//! histograms by scatter-add with out-of-range values dropped, whose f32 form is bit-exact only
//! when duplicates add in XLA's order, on 1 and 4 threads. Each case runs the generated code,
//! the evaluator and XLA:CPU.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_indexing`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::{ElementType, Literal};
use xla_oracle::{index_literal, Dist};

/// Per type: four gathers and six scatters (see the module docs).
macro_rules! per_type {
    ($($t:ident),+) => {
        mod typed {
            $(
                pub mod $t {
                    xla_aot::xla! {
                        pub fn gather_rows(x: $t[6, 4], i: s32[7]) -> $t[7, 4] {
                            Gather(x, i, offset_dims = [1], collapsed_slice_dims = [0],
                                start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 4])
                        }
                        pub fn gather_window(x: $t[5, 6], i: s64[4, 2]) -> $t[4, 2, 3] {
                            Gather(x, i, offset_dims = [1, 2], start_index_map = [0, 1],
                                index_vector_dim = 1, slice_sizes = [2, 3])
                        }
                        pub fn gather_columns(x: $t[4, 6], i: u8[3]) -> $t[4, 3] {
                            Gather(x, i, offset_dims = [0], collapsed_slice_dims = [1],
                                start_index_map = [1], index_vector_dim = 1, slice_sizes = [4, 1])
                        }
                        pub fn gather_batched(x: $t[3, 5, 2], i: s16[3, 4]) -> $t[3, 4, 2] {
                            Gather(x, i, offset_dims = [2], collapsed_slice_dims = [1],
                                operand_batching_dims = [0], start_indices_batching_dims = [0],
                                start_index_map = [1], index_vector_dim = 2, slice_sizes = [1, 1, 2])
                        }
                        pub fn scatter_set(x: $t[6, 4], i: s32[8], u: $t[8, 4]) -> $t[6, 4] {
                            Scatter(x, i, u, |a, b| b, update_window_dims = [1],
                                inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
                                index_vector_dim = 1)
                        }
                        pub fn scatter_add(x: $t[6, 4], i: u16[8], u: $t[8, 4]) -> $t[6, 4] {
                            Scatter(x, i, u, |a, b| Add(a, b), update_window_dims = [1],
                                inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
                                index_vector_dim = 1)
                        }
                        pub fn scatter_window(x: $t[5, 6], i: s32[5, 2], u: $t[5, 2, 3]) -> $t[5, 6] {
                            Scatter(x, i, u, |a, b| b, update_window_dims = [1, 2],
                                scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1)
                        }
                        pub fn scatter_elements(x: $t[4, 5], i: s8[2, 6], u: $t[6]) -> $t[4, 5] {
                            Scatter(x, i, u, |a, b| Add(a, b), update_window_dims = [],
                                inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1],
                                index_vector_dim = 0)
                        }
                        pub fn scatter_batched(x: $t[3, 5], i: u32[3, 4], u: $t[3, 4]) -> $t[3, 5] {
                            Scatter(x, i, u, |a, b| b, update_window_dims = [],
                                inserted_window_dims = [1], input_batching_dims = [0],
                                scatter_indices_batching_dims = [0],
                                scatter_dims_to_operand_dims = [1], index_vector_dim = 2)
                        }
                        pub fn scatter_columns(x: $t[3, 5], i: u64[4, 1], u: $t[3, 4]) -> $t[3, 5] {
                            Scatter(x, i, u, |a, b| Add(a, b), update_window_dims = [0],
                                inserted_window_dims = [1], scatter_dims_to_operand_dims = [1],
                                index_vector_dim = 1)
                        }
                    }
                }
            )+
        }

        fn typed_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                let ty = stringify!($t);
                for (k, d) in [Dist::Any, Dist::Special].into_iter().enumerate() {
                    let seed = 100 * k as u64;
                    let mut push = |g: common::Gen, index: Literal| {
                        let mut args = common::args_with(g, |i, a| {
                            common::random_arg(&xla_aot::core::Shape::Array(a.clone()), seed + i as u64, d)
                        });
                        args[1] = index;
                        v.push(Case::new(g, &format!("{d:?}"), args, Tol::Exact));
                    };
                    use ElementType::*;
                    push(gen!(concat!("gather_rows/", stringify!($t)), typed::$t::gather_rows),
                        index_literal(S32, &[7], &[2, -3, 0, 5, 9, 2, -1]));
                    push(gen!(concat!("gather_window/", stringify!($t)), typed::$t::gather_window),
                        index_literal(S64, &[4, 2], &[0, 0, 4, 5, -1, 2, 2, -7]));
                    push(gen!(concat!("gather_columns/", stringify!($t)), typed::$t::gather_columns),
                        index_literal(U8, &[3], &[5, 0, 200]));
                    push(gen!(concat!("gather_batched/", stringify!($t)), typed::$t::gather_batched),
                        index_literal(S16, &[3, 4], &[0, 4, 2, 7, 1, 1, -3, 3, 4, 0, 2, 2]));
                    push(gen!(concat!("scatter_set/", stringify!($t)), typed::$t::scatter_set),
                        index_literal(S32, &[8], &[2, -1, 2, 7, 0, 5, 2, 6]));
                    push(gen!(concat!("scatter_add/", stringify!($t)), typed::$t::scatter_add),
                        index_literal(U16, &[8], &[2, 65535, 2, 7, 0, 5, 2, 6]));
                    push(gen!(concat!("scatter_window/", stringify!($t)), typed::$t::scatter_window),
                        index_literal(S32, &[5, 2], &[0, 0, 4, 4, -1, 0, 3, 3, 1, 1]));
                    push(gen!(concat!("scatter_elements/", stringify!($t)), typed::$t::scatter_elements),
                        index_literal(S8, &[2, 6], &[1, 3, 1, 0, 4, 1, 2, 4, 2, 0, 2, 2]));
                    push(gen!(concat!("scatter_batched/", stringify!($t)), typed::$t::scatter_batched),
                        index_literal(U32, &[3, 4], &[0, 4, 4, 9, 1, 1, 3, 3, 4, 0, 2, 2]));
                    push(gen!(concat!("scatter_columns/", stringify!($t)), typed::$t::scatter_columns),
                        index_literal(U64, &[4, 1], &[4, 0, 4, -1]));
                }
                let _ = ty;
            )+
            v
        }
    };
}

per_type!(pred, s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128);

xla_aot::xla! {
    /// Two operands updated by one computation returning a tuple: the value overwritten, a
    /// count incremented.
    pub fn scatter_pair(x: f32[5, 2], n: s32[5, 2], i: s32[6], u: f32[6, 2], c: s32[6, 2])
        -> (f32[5, 2], s32[5, 2]) {
        Scatter(x, n, i, u, c, |a, k, b, m| Tuple(b, Add(k, m)), update_window_dims = [1],
            inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1,
            indices_are_sorted = false, unique_indices = false)
    }
    /// A scalar index: one window, inserted at its start.
    pub fn scatter_one_row(x: f64[4, 3], i: s32[], u: f64[3]) -> f64[4, 3] {
        Scatter(x, i, u, |a, b| Sub(a, b), update_window_dims = [0], inserted_window_dims = [0],
            scatter_dims_to_operand_dims = [0], index_vector_dim = 0)
    }
    /// An embedding bag: 8 rows of a 1000 x 64 table per bag, summed.
    pub fn embedding_bag(table: f32[1000, 64], ids: s32[256, 8]) -> f32[256, 64] {
        let rows = Gather(table, ids, offset_dims = [2], collapsed_slice_dims = [0],
            start_index_map = [0], index_vector_dim = 2, slice_sizes = [1, 64]);
        Reduce(rows, 0.0f32, dimensions = [1], |a, b| a + b)
    }
    /// Computed inputs (in scratch buffers that larger values share): bag sums, counts of ids,
    /// and per row the largest bag total with the number of such bags (two operands).
    pub fn bags(table: f32[5, 3], ids: s32[4, 2]) -> (f32[4, 3], s32[5], f32[5], s32[5]) {
        let rows = Gather(table, ids, offset_dims = [2], collapsed_slice_dims = [0],
            start_index_map = [0], index_vector_dim = 2, slice_sizes = [1, 3]);
        let sums = Reduce(rows, 0.0, dimensions = [1], |a, b| a + b);
        let counts = Scatter(Broadcast(0i32, broadcast_sizes = [5]), ids,
            Broadcast(1i32, broadcast_sizes = [4, 2]), |a, b| a + b, update_window_dims = [],
            inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2);
        let totals = Reduce(sums, 0.0, dimensions = [1], |a, b| a + b);
        let best = Scatter(Broadcast(f32::NEG_INFINITY, broadcast_sizes = [5]),
            Broadcast(0i32, broadcast_sizes = [5]), Slice(ids, start_indices = [0, 0],
            limit_indices = [4, 1]), totals, Broadcast(1i32, broadcast_sizes = [4]),
            |m, n, t, c| Tuple(Max(m, t), Add(n, c)), update_window_dims = [],
            inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1);
        Tuple(sums, counts, best.0, best.1)
    }
    /// Counts per bin of 100; values outside 0..100 are dropped.
    pub fn histogram(bins: s32[5000]) -> s32[100] {
        Scatter(Broadcast(0i32, broadcast_sizes = [100]), bins,
            Broadcast(1i32, broadcast_sizes = [5000]), |a, b| Add(a, b),
            update_window_dims = [], inserted_window_dims = [0],
            scatter_dims_to_operand_dims = [0], index_vector_dim = 1)
    }
    /// Weights summed per bin: many f32 additions to one element, bit-exact only in XLA's
    /// order.
    pub fn weighted_histogram(bins: s32[5000], w: f32[5000]) -> f32[100] {
        Scatter(Broadcast(0.0f32, broadcast_sizes = [100]), bins, w, |a, b| Add(a, b),
            update_window_dims = [], inserted_window_dims = [0],
            scatter_dims_to_operand_dims = [0], index_vector_dim = 1)
    }
}

#[test]
fn generated_gather_and_scatter_on_every_type_match_xla() {
    check_all("generated gather and scatter per type", typed_cases());
}

#[test]
fn generated_variadic_and_scalar_index_scatter_match_xla() {
    let g = gen!("scatter_pair", scatter_pair);
    let mut args = common::args_with(g, |i, a| {
        common::int_valued(a.ty, &a.dims, 10 + i as u64, 50.0)
    });
    args[2] = index_literal(ElementType::S32, &[6], &[4, 0, 4, -2, 5, 1]);
    let mut v = vec![Case::new(g, "ints", args, Tol::Exact)];
    for row in [-1i32, 0, 3, 4] {
        let g = gen!("scatter_one_row", scatter_one_row);
        let mut args = common::args_with(g, |i, a| {
            common::random_arg(
                &xla_aot::core::Shape::Array(a.clone()),
                20 + i as u64,
                Dist::Any,
            )
        });
        args[1] = Literal::scalar(row);
        v.push(Case::new(g, &format!("row {row}"), args, Tol::Exact));
    }
    check_all("generated variadic scatter", v);
}

/// Bins in -20..120: a sixth of them out of range.
fn bins(seed: u64) -> Literal {
    let mut s = seed;
    let v: Vec<i32> = (0..5000)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % 140) as i32 - 20
        })
        .collect();
    Literal::from_vec(&[5000], v).expect("bins")
}

#[test]
fn generated_embedding_bag_and_histograms_match_xla() {
    let mut v = Vec::new();
    let g = gen!("embedding_bag", embedding_bag);
    let mut args = common::args_with(g, |i, a| {
        common::int_valued(a.ty, &a.dims, 30 + i as u64, 20.0)
    });
    // Ids all over the table, some beyond either end (clamped to the first or last row).
    let ids: Vec<i64> = (0..256 * 8).map(|k| (k * 7919) % 1100 - 50).collect();
    args[1] = index_literal(ElementType::S32, &[256, 8], &ids);
    v.push(Case::new(g, "ints", args, Tol::Exact));
    let g = gen!("bags", bags);
    let mut args = common::args_with(g, |i, a| {
        common::int_valued(a.ty, &a.dims, 40 + i as u64, 20.0)
    });
    args[1] = index_literal(ElementType::S32, &[4, 2], &[0, 1, 4, 4, -2, 9, 2, 7]);
    v.push(Case::new(g, "ints", args, Tol::Exact));
    let g = gen!("histogram", histogram);
    v.push(Case::new(g, "bins", vec![bins(1)], Tol::Exact));
    let g = gen!("weighted_histogram", weighted_histogram);
    let w = common::random_arg(
        &xla_aot::core::Shape::array(ElementType::F32, &[5000]),
        3,
        Dist::Range(-1.0, 1.0),
    );
    v.push(Case::new(g, "weights", vec![bins(2), w], Tol::Exact));
    check_all("generated embedding bag and histograms", v);
}

/// Duplicate indices add in one fixed order whatever the number of threads.
#[test]
fn scatter_add_does_not_depend_on_the_thread_count() {
    let w = common::random_arg(
        &xla_aot::core::Shape::array(ElementType::F32, &[5000]),
        4,
        Dist::Range(-1.0, 1.0),
    );
    let args = vec![bins(5), w];
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| weighted_histogram::run_literals(&args))
            .expect("run")
    };
    let one = run(1);
    assert_eq!(one, run(4));
    assert_eq!(
        one,
        xla_aot::core::eval::evaluate(&weighted_histogram::computation(), &args).expect("evaluate")
    );
}
