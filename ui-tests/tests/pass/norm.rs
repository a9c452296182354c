//! BatchNormTraining, BatchNormInference and BatchNormGrad compile warning-free through the
//! whole macro and run.
#![deny(warnings)]

use xla_aot::{xla, Tensor, D1, D2};

xla! {
    /// Each column normalised to mean 0 and variance 1 (epsilon 0), then scaled and shifted.
    pub fn train(x: f32[2, 2], scale: f32[2], offset: f32[2]) -> (f32[2, 2], f32[2], f32[2]) {
        BatchNormTraining(x, scale, offset, epsilon = 0.0, feature_index = 1)
    }

    /// The rows normalised by given moments.
    pub fn infer(x: f32[2, 2], scale: f32[2], offset: f32[2], mean: f32[2], var: f32[2])
        -> f32[2, 2]
    {
        BatchNormInference(x, scale, offset, mean, var, epsilon = 0, feature_index = 0)
    }

    /// The gradients of `train`'s output.
    pub fn grad(x: f32[2, 2], scale: f32[2], mean: f32[2], var: f32[2], dy: f32[2, 2])
        -> (f32[2, 2], f32[2], f32[2])
    {
        BatchNormGrad(x, scale, mean, var, dy, epsilon = 0.0, feature_index = 1)
    }
}

fn main() {
    let x = Tensor::<f32, D2<2, 2>>::from_vec(vec![1.0, 2.0, 3.0, 4.0]).expect("x");
    let ones = Tensor::<f32, D1<2>>::from_vec(vec![1.0, 1.0]).expect("ones");
    let zeros = Tensor::<f32, D1<2>>::from_vec(vec![0.0, 0.0]).expect("zeros");
    let (y, mean, var) = train(&x, &ones, &zeros);
    assert_eq!(y.as_slice(), &[-1.0, -1.0, 1.0, 1.0]);
    assert_eq!(mean.as_slice(), &[2.0, 3.0]);
    assert_eq!(var.as_slice(), &[1.0, 1.0]);
    let m = Tensor::<f32, D1<2>>::from_vec(vec![1.5, 3.5]).expect("mean");
    let v = Tensor::<f32, D1<2>>::from_vec(vec![0.25, 0.25]).expect("var");
    assert_eq!(infer(&x, &ones, &zeros, &m, &v).as_slice(), &[-1.0, 1.0, -1.0, 1.0]);
    let (dx, dscale, doffset) = grad(&x, &ones, &mean, &var, &x);
    assert_eq!(doffset.as_slice(), &[4.0, 6.0]);
    assert_eq!(dscale.as_slice(), &[2.0, 2.0]);
    assert_eq!(dx.as_slice(), &[0.0, 0.0, 0.0, 0.0]);
}
