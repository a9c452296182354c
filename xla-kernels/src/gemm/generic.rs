//! The plain GEMM loop for the element types without a SIMD kernel: complex, integers
//! (wrapping, as XLA), pred (or of ands).

use num_complex::Complex;

use super::{offset, GemmDesc};

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

/// `c_ij (+)= sum_p a_ip b_pj`, `p` ascending, for validated strides.
pub(crate) fn gemm_generic<T: DotElem>(d: &GemmDesc, a: &[T], b: &[T], c: &mut [T]) {
    let sa = [d.a_batch_stride, d.a_row_stride, d.a_col_stride];
    let sb = [d.b_batch_stride, d.b_row_stride, d.b_col_stride];
    let sc = [d.c_batch_stride, d.c_row_stride, d.c_col_stride];
    for bi in 0..d.batch {
        for i in 0..d.m {
            for j in 0..d.n {
                let mut acc = T::zero();
                for p in 0..d.k {
                    acc = T::mul_acc(acc, a[offset(bi, i, p, sa)], b[offset(bi, p, j, sb)]);
                }
                let o = offset(bi, i, j, sc);
                let v = T::finish(acc);
                c[o] = if d.accumulate { T::add(c[o], v) } else { v };
            }
        }
    }
}
