//! The element types of the linalg kernels: f32, f64, c64, c128.

use std::ops::{Add, Div, Mul, Neg, Sub};

use num_complex::Complex;

use crate::gemm::GemmElem;

/// An element the linalg kernels take: a real or complex float that [`crate::gemm`] multiplies.
pub trait LinalgElem:
    GemmElem
    + Default
    + PartialEq
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// `conj(x)` (`x` for reals).
    fn conj(self) -> Self;
    /// `sqrt(re(x))` as an element (imaginary part 0): Cholesky's pivot.
    fn sqrt_re(self) -> Self;
    /// True when the real part is NaN.
    fn re_is_nan(self) -> bool;
    /// NaN (imaginary part 0), what XLA fills a failed factorisation with.
    fn nan() -> Self;
    /// One.
    fn one() -> Self;
    /// True for c64 and c128.
    const COMPLEX: bool;
}

macro_rules! real {
    ($t:ty) => {
        impl LinalgElem for $t {
            #[inline]
            fn conj(self) -> Self {
                self
            }
            #[inline]
            fn sqrt_re(self) -> Self {
                self.sqrt()
            }
            #[inline]
            fn re_is_nan(self) -> bool {
                self.is_nan()
            }
            fn nan() -> Self {
                <$t>::NAN
            }
            fn one() -> Self {
                1.0
            }
            const COMPLEX: bool = false;
        }

        impl LinalgElem for Complex<$t> {
            #[inline]
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            #[inline]
            fn sqrt_re(self) -> Self {
                Complex::new(self.re.sqrt(), 0.0)
            }
            #[inline]
            fn re_is_nan(self) -> bool {
                self.re.is_nan()
            }
            fn nan() -> Self {
                Complex::new(<$t>::NAN, 0.0)
            }
            fn one() -> Self {
                Complex::new(1.0, 0.0)
            }
            const COMPLEX: bool = true;
        }
    };
}

real!(f32);
real!(f64);
