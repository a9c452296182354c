//! Map compiles warning-free through the whole macro (closures, a named fn, operands of
//! different types, a pred result) and runs.
#![deny(warnings)]

use xla_aot::{xla, Tensor, D1, D2};

xla! {
    /// `a * b + 1` at every index.
    pub fn fma1(x: f32[2, 2], y: f32[2, 2]) -> f32[2, 2] {
        Map(x, y, |a, b| a * b + 1.0, dimensions = [0, 1])
    }

    /// Each value scaled by an integer count.
    pub fn scaled(x: f32[3], n: s32[3]) -> f32[3] {
        Map(x, n, |a, k| Mul(a, ConvertElementType(k, new_element_type = f32)))
    }

    /// Which values are positive, by a named fn.
    pub fn positive(x: f64[4]) -> pred[4] {
        Map(x, is_positive)
    }

    fn is_positive(a: f64[]) -> pred[] {
        Gt(a, 0.0)
    }
}

fn main() {
    let x = Tensor::<f32, D2<2, 2>>::from_vec(vec![1.0, 2.0, 3.0, 4.0]).expect("x");
    assert_eq!(fma1(&x, &x).as_slice(), &[2.0, 5.0, 10.0, 17.0]);
    let v = Tensor::<f32, D1<3>>::from_vec(vec![1.5, 2.0, -1.0]).expect("v");
    let n = Tensor::<i32, D1<3>>::from_vec(vec![2, 0, 3]).expect("n");
    assert_eq!(scaled(&v, &n).as_slice(), &[3.0, 0.0, -3.0]);
    let d = Tensor::<f64, D1<4>>::from_vec(vec![1.0, -2.0, 0.0, 0.5]).expect("d");
    assert_eq!(positive(&d).as_slice(), &[true, false, false, true]);
}
