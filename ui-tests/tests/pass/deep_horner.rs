//! A degree-24 Horner polynomial written as nested calls: 48 levels of nesting compile.
use xla_aot::{xla, Tensor, D1};

xla! {
    pub fn horner(x: f32[8], c: f32[8]) -> f32[8] {
        Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(Add(Mul(c, x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c), x), c)
    }
}

fn main() {
    let x: Tensor<f32, D1<8>> = Tensor::from_vec(vec![0.5; 8]).unwrap();
    let c: Tensor<f32, D1<8>> = Tensor::from_vec(vec![1.0; 8]).unwrap();
    // sum of 0.5^k for k = 0..=24
    let want = (0..=24).map(|k| 0.5f32.powi(k)).sum::<f32>();
    assert!((horner(&x, &c).as_slice()[0] - want).abs() < 1e-6);
}
