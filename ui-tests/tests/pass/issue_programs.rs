//! The three programs compile warning-free through the whole macro, and run.
#![deny(warnings)]

use xla_aot::{xla, Tensor, D1, D2};

xla! {
    /// The seed's first example: a vector added to each row of a matrix.
    pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [1])
    }

    pub fn dense_relu(x: f32[8, 784], w: f32[784, 128], b: f32[128]) -> f32[8, 128] {
        let h = Dot(x, w);
        let h = Add(h, b, broadcast_dimensions = [1]);
        Max(h, 0.0)
    }

    pub fn row_softmax(x: f32[32, 1000]) -> f32[32, 1000] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }
}

fn main() {
    let x = Tensor::<f32, D2<2, 3>>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let v = Tensor::<f32, D1<3>>::from_vec(vec![7.0, 8.0, 9.0]).unwrap();
    let r = add_rows(&x, &v);
    assert_eq!(r.as_slice(), &[8.0, 10.0, 12.0, 11.0, 13.0, 15.0]);
}
