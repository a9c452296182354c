//! A user's program: standardise a batch of feature rows and score them with a logistic
//! regression, both compiled ahead of time by `xla!`, the scoring run allocation-free in a loop
//! through the generated `into`.

#![deny(warnings)]

use xla_aot::{xla, Tensor, D0, D1, D2};

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
}

/// Eight rows of three features (deterministic, no dependency).
fn features() -> Tensor<f32, D2<8, 3>> {
    Tensor::from_fn(|i| (i[0] * 3 + i[1]) as f32 * 0.5 + (i[1] as f32 - 1.0) * 10.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = standardize(&features());
    let w: Tensor<f32, D1<3>> = Tensor::from_vec(vec![0.5, -1.0, 2.0])?;
    let mut scores = Tensor::<f32, D1<8>>::zeros();
    let mut scratch = predict::Scratch::new();
    for step in 0..3 {
        let b: Tensor<f32, D0> = Tensor::scalar(step as f32 - 1.0);
        predict::into(&x, &w, &b, &mut scores, &mut scratch);
        println!("bias {:+}: {scores}", b.value());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use xla_aot::Literal;

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
