//! The plain GEMM loop for the element types without a SIMD kernel: complex, integers
//! (wrapping, as XLA), pred (or of ands).

use num_complex::Complex;

use rayon::prelude::*;

use super::kernel::{strides, PAR_MIN_FLOPS};
use super::{offset, GemmDesc, OutPtr};

/// How one element type multiplies and sums in a dot product.
pub(crate) trait DotElem: Copy {
    /// Accumulator (the type itself for every current impl).
    type Acc: Copy;
    /// The empty sum.
    fn zero() -> Self::Acc;
    /// `acc + a * b`.
    fn mul_acc(acc: Self::Acc, a: Self, b: Self) -> Self::Acc;
    /// The dot product's value in the element type.
    fn finish(acc: Self::Acc) -> Self;
    /// `c + x` in the element type (accumulating into C).
    fn add(c: Self, x: Self) -> Self;
}

macro_rules! int_dot {
    ($($t:ty),*) => {$(
        impl DotElem for $t {
            type Acc = $t;
            #[inline(always)]
            fn zero() -> $t { 0 }
            #[inline(always)]
            fn mul_acc(acc: $t, a: $t, b: $t) -> $t { acc.wrapping_add(a.wrapping_mul(b)) }
            #[inline(always)]
            fn finish(acc: $t) -> $t { acc }
            #[inline(always)]
            fn add(c: $t, x: $t) -> $t { c.wrapping_add(x) }
        }
    )*};
}

int_dot!(i8, i16, i32, i64, u8, u16, u32, u64);

impl DotElem for bool {
    type Acc = bool;
    #[inline(always)]
    fn zero() -> bool {
        false
    }
    #[inline(always)]
    fn mul_acc(acc: bool, a: bool, b: bool) -> bool {
        acc | (a & b)
    }
    #[inline(always)]
    fn finish(acc: bool) -> bool {
        acc
    }
    #[inline(always)]
    fn add(c: bool, x: bool) -> bool {
        c | x
    }
}

macro_rules! complex_dot {
    ($($t:ty),*) => {$(
        impl DotElem for Complex<$t> {
            type Acc = Complex<$t>;
            #[inline(always)]
            fn zero() -> Self { Complex::new(0.0, 0.0) }
            #[inline(always)]
            fn mul_acc(acc: Self, a: Self, b: Self) -> Self { acc + a * b }
            #[inline(always)]
            fn finish(acc: Self) -> Self { acc }
            #[inline(always)]
            fn add(c: Self, x: Self) -> Self { c + x }
        }
    )*};
}

complex_dot!(f32, f64);

/// `c_ij (+)= sum_p a_ip b_pj`, `p` ascending, for validated strides. Rows of C are computed
/// axpy-style (`acc[j] += a_ip * B[p, j]`, B read along its rows), in parallel over rows above
/// [`PAR_MIN_FLOPS`]; each element's order is the same either way.
pub(crate) fn gemm_generic<T: DotElem + Send + Sync>(d: &GemmDesc, a: &[T], b: &[T], c: &mut [T])
where
    T::Acc: Send,
{
    let (sa, sb, sc) = strides(d);
    let out = OutPtr::new(c);
    let row = |acc: &mut Vec<T::Acc>, t: usize| {
        let (bi, i) = (t / d.m, t % d.m);
        acc.clear();
        acc.resize(d.n, T::zero());
        for p in 0..d.k {
            let aip = a[offset(bi, i, p, sa)];
            for (j, x) in acc.iter_mut().enumerate() {
                *x = T::mul_acc(*x, aip, b[offset(bi, p, j, sb)]);
            }
        }
        for (j, &x) in acc.iter().enumerate() {
            let o = offset(bi, i, j, sc);
            let v = T::finish(x);
            // SAFETY: row (bi, i) of C belongs to this task only (C's strides validated
            // injective).
            unsafe {
                out.set(
                    o,
                    if d.accumulate {
                        T::add(out.get(o), v)
                    } else {
                        v
                    },
                )
            };
        }
    };
    let rows = d.batch * d.m;
    if d.flops() >= PAR_MIN_FLOPS && rows > 1 {
        (0..rows).into_par_iter().for_each_init(Vec::new, row);
    } else {
        let mut acc = Vec::new();
        (0..rows).for_each(|t| row(&mut acc, t));
    }
}
