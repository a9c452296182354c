//! DynamicSlice and DynamicUpdateSlice compile warning-free through the whole macro (a box
//! fused into a loop, an update in place, starts of several integer types) and run.
#![deny(warnings)]

use xla_aot::{xla, Tensor, D0, D2};

xla! {
    /// A 2 x 2 box at (i, j) of x, doubled; starts outside the array clamp.
    pub fn doubled_box(x: f32[4, 3], i: s32[], j: s32[]) -> f32[2, 2] {
        let b = DynamicSlice(x, i, j, slice_sizes = [2, 2]);
        Add(b, b)
    }

    /// x negated, with u written at (i, j) of the result in place.
    pub fn patched(x: f32[4, 3], u: f32[1, 3], i: u8[], j: u8[]) -> f32[4, 3] {
        DynamicUpdateSlice(Neg(x), u, i, j)
    }
}

fn main() {
    let x = Tensor::<f32, D2<4, 3>>::from_fn(|i| (i[0] * 3 + i[1]) as f32);
    let b = doubled_box(&x, &Tensor::<i32, D0>::scalar(-1), &Tensor::<i32, D0>::scalar(7));
    assert_eq!(b.as_slice(), &[2.0, 4.0, 8.0, 10.0]);
    let u = Tensor::<f32, D2<1, 3>>::from_fn(|_| 9.0);
    let p = patched(&x, &u, &Tensor::<u8, D0>::scalar(200), &Tensor::<u8, D0>::scalar(0));
    assert_eq!(&p.as_slice()[9..], &[9.0, 9.0, 9.0]);
    assert_eq!(p.as_slice()[0], -0.0);
}
