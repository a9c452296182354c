//! A user's program: standardise a batch of feature rows and score them with a logistic
//! regression, both compiled ahead of time by `xla!`, the scoring run allocation-free in a loop
//! through the generated `into`.

#![deny(warnings)]

use xla_aot::{xla, Tensor, D0, D1, D2, D4};

xla! {
    /// Each column to zero mean and unit variance over the batch:
    /// `(x[i, j] - mean_j) / sqrt(var_j + 1e-6)`.
    pub fn standardize(x: f32[8, 3]) -> f32[8, 3] {
        let mean = Reduce(x, 0.0, dimensions = [0], |a, b| a + b) / 8.0;
        let centered = Sub(x, mean, broadcast_dimensions = [1]);
        let var = Reduce(centered * centered, 0.0, dimensions = [0], |a, b| a + b) / 8.0;
        Div(centered, Sqrt(var + 1e-6), broadcast_dimensions = [1])
    }

    /// Logistic-regression scores: `sigmoid(x . w + b)` per row.
    pub fn predict(x: f32[8, 3], w: f32[3], b: f32[]) -> f32[8] {
        Logistic(Dot(x, w) + b)
    }

    /// The three best scores and their rows, after a moving sum of the sorted scores (Sort,
    /// TopK, Pad, Slice, Rev, ConcatInDim in one program: clippy sees their generated code).
    pub fn rank(s: f32[8]) -> (f32[3], s32[3], f32[8]) {
        let sorted = Sort(s, |a, b| LtTotalOrder(a, b));
        let padded = Pad(sorted, 0.0, padding_config = [[1, 1, 0]]);
        let window = Add(Add(Slice(padded, start_indices = [0], limit_indices = [8]),
                             Slice(padded, start_indices = [1], limit_indices = [9])),
                         Slice(padded, start_indices = [2], limit_indices = [10]));
        let both = ConcatInDim(Rev(window, dimensions = [0]), window, dimension = 0);
        let best = TopK(s, k = 3);
        Tuple(best.0, best.1, Slice(both, start_indices = [4], limit_indices = [12]))
    }

    /// A 3x3 convolution, then a loop that halves until below 1, then a branch.
    pub fn features2d(x: f32[1, 6, 6, 2], w: f32[3, 3, 2, 4], p: pred[]) -> f32[1, 6, 6, 4] {
        let y = ConvWithGeneralDimensions(x, w, window_strides = [1, 1], padding = SAME,
            dimension_numbers = [NHWC, HWIO, NHWC]);
        let m = While(|s| Gt(Reduce(Abs(s), 0.0, dimensions = [0, 1, 2, 3], |a, b| Max(a, b)), 1.0),
                      |s| Mul(s, 0.5), y);
        Conditional(p, m, |a| Neg(a), m, |b| b)
    }

    /// Bags of two table rows summed (Gather + Reduce), how often each row was picked (a
    /// scatter-add of ones) and, per row, the largest bag sum that picked it with the count of
    /// such bags (a two-operand Scatter); ids outside the table clamp (Gather) or are dropped
    /// (Scatter).
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

    /// A 2 x 3 window of x at (i, j) scaled (a box fused into the loop), x with that window
    /// zeroed (an update in place) and a running sum of x's rows written one row per step
    /// (a While whose state is updated in place); starts outside x clamp.
    pub fn windows(x: f32[4, 6], i: s32[], j: s32[]) -> (f32[2, 3], f32[4, 6], f32[4, 6]) {
        let w = Mul(DynamicSlice(x, i, j, slice_sizes = [2, 3]), 2.0);
        let z = DynamicUpdateSlice(Neg(x), Broadcast(0.0f32, broadcast_sizes = [2, 3]), i, j);
        let s = While(|s| Lt(s.0, 4i32), |s| {
            let prev = DynamicSlice(s.1, Max(Sub(s.0, 1i32), 0i32), 0i32, slice_sizes = [1, 6]);
            let row = Add(DynamicSlice(s.2, s.0, 0i32, slice_sizes = [1, 6]), prev);
            Tuple(Add(s.0, 1i32), DynamicUpdateSlice(s.1, row, s.0, 0i32), s.2)
        }, Tuple(0i32, Broadcast(0.0f32, broadcast_sizes = [4, 6]), x));
        Tuple(w, z, s.1)
    }
}

/// Eight rows of three features (deterministic, no dependency).
fn features() -> Tensor<f32, D2<8, 3>> {
    Tensor::from_fn(|i| (i[0] * 3 + i[1]) as f32 * 0.5 + (i[1] as f32 - 1.0) * 10.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let grid: Tensor<f32, D2<4, 6>> = Tensor::from_fn(|i| (i[0] * 6 + i[1]) as f32);
    let (w, z, sums) = windows(&grid, &Tensor::scalar(-1), &Tensor::scalar(5));
    println!("window {w}; zeroed {z}; row sums {sums}");
    let x = standardize(&features());
    let w: Tensor<f32, D1<3>> = Tensor::from_vec(vec![0.5, -1.0, 2.0])?;
    let mut scores = Tensor::<f32, D1<8>>::zeros();
    let mut scratch = predict::Scratch::new();
    for step in 0..3 {
        let b: Tensor<f32, D0> = Tensor::scalar(step as f32 - 1.0);
        predict::into(&x, &w, &b, &mut scores, &mut scratch);
        println!("bias {:+}: {scores}", b.value());
    }
    let (top, rows, windows) = rank(&scores);
    println!("best {top} at rows {rows}; windows {windows}");
    let img: Tensor<f32, D4<1, 6, 6, 2>> =
        Tensor::from_fn(|i| (i[1] * 6 + i[2]) as f32 - i[3] as f32);
    let w: Tensor<f32, D4<3, 3, 2, 4>> =
        Tensor::from_fn(|i| (i[0] + i[1]) as f32 * 0.1 - i[3] as f32 * 0.05);
    let f = features2d(&img, &w, &Tensor::scalar(true));
    println!(
        "features: max |f| = {}",
        f.as_slice().iter().fold(0.0f32, |m, v| m.max(v.abs()))
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use xla_aot::Literal;

    #[test]
    fn rank_and_features_run() {
        let s: Tensor<f32, D1<8>> =
            Tensor::from_vec(vec![0.5, 0.1, 0.9, 0.3, 0.7, 0.2, 0.8, 0.4]).unwrap();
        let (top, rows, _) = rank(&s);
        assert_eq!(top.as_slice(), &[0.9, 0.8, 0.7]);
        assert_eq!(rows.as_slice(), &[2, 6, 4]);
        let img: Tensor<f32, D4<1, 6, 6, 2>> = Tensor::from_fn(|i| i[1] as f32);
        let w: Tensor<f32, D4<3, 3, 2, 4>> = Tensor::from_fn(|_| 1.0);
        let f = features2d(&img, &w, &Tensor::scalar(false));
        assert!(
            f.as_slice().iter().all(|v| v.abs() <= 1.0),
            "the loop halves below 1"
        );
    }

    #[test]
    fn bags_gather_and_scatter() -> Result<(), Box<dyn std::error::Error>> {
        let table: Tensor<f32, D2<5, 3>> = Tensor::from_fn(|i| (i[0] * 10 + i[1]) as f32);
        let ids: Tensor<i32, D2<4, 2>> = Tensor::from_vec(vec![0, 1, 4, 4, -2, 9, 2, 7])?;
        let (sums, counts, best, n) = bags(&table, &ids);
        // -2 clamps to row 0 and 9 to row 4 in the gather.
        let want = [10.0, 12.0, 14.0, 80.0, 82.0, 84.0, 40.0, 42.0, 44.0, 60.0, 62.0, 64.0];
        assert_eq!(sums.as_slice(), &want);
        // -2, 9 and 7 are dropped by the scatter.
        assert_eq!(counts.as_slice(), &[1, 1, 1, 0, 2]);
        // First ids 0, 4, -2 (dropped), 2.
        assert_eq!(best.as_slice(), &[36.0, f32::NEG_INFINITY, 186.0, f32::NEG_INFINITY, 246.0]);
        assert_eq!(n.as_slice(), &[1, 0, 1, 0, 1]);
        Ok(())
    }

    #[test]
    fn standardized_columns_have_zero_mean_and_unit_variance() {
        let x = standardize(&features());
        for j in 0..3 {
            let col: Vec<f32> = (0..8).map(|i| x.get(&[i, j]).unwrap_or(f32::NAN)).collect();
            let mean = col.iter().sum::<f32>() / 8.0;
            let var = col.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / 8.0;
            assert!(mean.abs() < 1e-5, "column {j}: mean {mean}");
            assert!((var - 1.0).abs() < 1e-4, "column {j}: variance {var}");
        }
    }

    #[test]
    fn predict_and_into_agree_with_the_formula() -> Result<(), Box<dyn std::error::Error>> {
        let x: Tensor<f32, D2<8, 3>> = Tensor::from_fn(|i| i[0] as f32 - i[1] as f32);
        let w: Tensor<f32, D1<3>> = Tensor::from_vec(vec![0.25, -0.5, 1.0])?;
        let b = Tensor::scalar(0.125f32);
        let got = predict(&x, &w, &b);
        let mut via_into = Tensor::zeros();
        predict::into(&x, &w, &b, &mut via_into, &mut predict::Scratch::new());
        assert_eq!(got, via_into);
        for i in 0..8 {
            let z: f32 = (0..3)
                .map(|j| (i as f32 - j as f32) * w.as_slice()[j])
                .sum();
            let want = 1.0 / (1.0 + (-(z + 0.125)).exp());
            let g = got.as_slice()[i];
            assert!(
                (g - want).abs() <= 2.0 * f32::EPSILON,
                "row {i}: {g} vs {want}"
            );
        }
        Ok(())
    }

    #[test]
    fn wrong_inputs_are_errors() {
        let err = Tensor::<f32, D1<3>>::from_vec(vec![1.0, 2.0]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tensor f32[3] holds 3 elements, but 2 were given"
        );
        let x = Literal::scalar(1.0f32);
        let err = standardize::run_literals(&[x]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "standardize: argument 0 (`x`): expected f32[8,3], given f32[]: rank 0 instead of 2"
        );
    }
}
