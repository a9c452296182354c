//! One program per op family added with the movement, sort, convolution and control-flow ops
//! compiles warning-free through the whole macro, and runs.
#![deny(warnings)]

use xla_aot::{xla, Tensor, D1, D2, D4};

xla! {
    /// Rev, Slice, Pad and ConcatInDim.
    pub fn movement(x: f32[2, 3]) -> f32[4, 3] {
        let r = Rev(x, dimensions = [1]);
        let s = Slice(r, start_indices = [0, 0], limit_indices = [1, 3]);
        let p = Pad(s, 0.0, padding_config = [[0, 1, 0], [0, 0, 0]]);
        ConcatInDim(x, p, dimension = 0)
    }

    /// Sort (key + payload) and TopK.
    pub fn sort_top_k(k: s32[4], v: f32[4]) -> (f32[4], f32[2]) {
        let sorted = Sort(k, v, |a, b, c, d| Lt(a, b), is_stable = true);
        let top = TopK(v, k = 2);
        Tuple(sorted.1, top.0)
    }

    /// A 3x3 SAME convolution in NHWC.
    pub fn conv(x: f32[1, 3, 3, 1], w: f32[3, 3, 1, 1]) -> f32[1, 3, 3, 1] {
        ConvWithGeneralDimensions(x, w, window_strides = [1, 1], padding = SAME,
            dimension_numbers = [NHWC, HWIO, NHWC])
    }

    /// While (double until at least 100) and both Conditional forms.
    pub fn control(x: f32[], p: pred[], i: s32[]) -> (f32[], f32[], f32[]) {
        let w = While(|s| Lt(s, 100.0), |s| s + s, x);
        let c = Conditional(p, x, |a| -a, x, |b| b);
        let j = Conditional(i, [|a| a + 1.0, |b| b * 10.0], [x, x]);
        Tuple(w, c, j)
    }
}

fn main() {
    let x = Tensor::<f32, D2<2, 3>>::from_vec(vec![1., 2., 3., 4., 5., 6.]).unwrap();
    let m = movement(&x);
    assert_eq!(m.as_slice(), &[1., 2., 3., 4., 5., 6., 3., 2., 1., 0., 0., 0.]);

    let k = Tensor::<i32, D1<4>>::from_vec(vec![3, 1, 2, 0]).unwrap();
    let v = Tensor::<f32, D1<4>>::from_vec(vec![30., 10., 20., 0.]).unwrap();
    let (by_key, top) = sort_top_k(&k, &v);
    assert_eq!(by_key.as_slice(), &[0., 10., 20., 30.]);
    assert_eq!(top.as_slice(), &[30., 20.]);

    let img = Tensor::<f32, D4<1, 3, 3, 1>>::from_vec(vec![1.; 9]).unwrap();
    let ones = Tensor::<f32, D4<3, 3, 1, 1>>::from_vec(vec![1.; 9]).unwrap();
    let c = conv(&img, &ones);
    assert_eq!(c.as_slice(), &[4., 6., 4., 6., 9., 6., 4., 6., 4.]);

    let s = |v: f32| Tensor::<f32, xla_aot::D0>::from_vec(vec![v]).unwrap();
    let (w, c, j) = control(
        &s(3.),
        &Tensor::<bool, xla_aot::D0>::from_vec(vec![true]).unwrap(),
        &Tensor::<i32, xla_aot::D0>::from_vec(vec![1]).unwrap(),
    );
    assert_eq!((w.as_slice(), c.as_slice(), j.as_slice()), (&[192.][..], &[-3.][..], &[30.][..]));
}
