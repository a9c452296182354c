//! Vector math behind [`crate::simd::VFloat`]: transcendental functions on `wide` vectors with
//! the special-value behaviour of `xla_core::scalar::Scalar` (±0, ±inf, NaN, subnormals,
//! overflow and underflow exactly as the scalar op).
//!
//! f32 (`f32v`): `exp`, `expm1`, `log`, `log1p`, `logistic` are our own f32 vector
//! polynomials and `tanh`, `erf` our own rational functions; `sin`, `cos`, `tan` widen to f64
//! lanes, reduce by pi/2 in two parts and evaluate f64 polynomials, rounding once (arguments beyond
//! 2^19 or infinite go lane by lane); `cbrt`, `pow`, `atan2` widen to f64 lanes and call the
//! f64 vector functions, rounding once (the scalar op does the same with libm: equal results).
//!
//! f64 (`f64v`): every function is a vector version of our own (Chebyshev fits with mpmath,
//! Cody-Waite reductions; `pow` carries `ln|x|` and `y ln|x|` in two parts; `cbrt` ends with a
//! Newton step on the exact residual; `atan2` carries its quotients and sums in two parts);
//! sin/cos/tan beyond 2^20 (and infinite arguments) go lane by lane through the scalar op.
//! `rsqrt` is `1 / sqrt x` in both types, as the scalar op.
//!
//! Why: the generated elementwise loops call these on every element; the scalar op applied
//! lane by lane costs 8-200 Melem/s (erf under 1), the vector versions 5-1000x more (table
//! below), and each stays within a few ulp of the scalar op that the evaluator and the oracle
//! tests use.
//!
//! Measured max error against the scalar op over the sweeps of the tests, with and without
//! `-C target-cpu=native` (`cargo test -p xla-kernels --release --lib math:: -- --nocapture`):
//! f32 over 6.6M inputs (every 1024th bit pattern: all exponents, both signs, subnormals; grids
//! on [-20, 20] and [-4096, 4096]; the floats nearest k pi/2; specials), f64 over 6.3M (every
//! 2^42-th bit pattern, grids on [-20, 20] and [-800, 800], the doubles nearest k pi/2 and
//! their neighbours, specials); two-argument functions over 1.5M (f32: 1M) pairs (every pair of
//! specials, random bit patterns, the usual ranges). Specials (±0, ±inf, NaN, overflow to inf,
//! underflow to 0, C's pow/atan2 cases) match the scalar op exactly. The f32 scalar ops are
//! f64 libm rounded once (correctly rounded in practice); the f64 ones are libm (glibc: within
//! 1 ulp, mostly correctly rounded; erf from the `libm` crate, within 1 ulp).
//!
//! | function | f32 ulp | f64 ulp | | function | f32 ulp | f64 ulp |
//! |----------|---------|---------|-|----------|---------|---------|
//! | exp      | 1       | 1       | | sin      | 0       | 1       |
//! | expm1    | 1       | 2       | | cos      | 0       | 1       |
//! | log      | 1       | 1       | | tan      | 0       | 2       |
//! | log1p    | 1       | 1       | | cbrt     | 0       | 0       |
//! | logistic | 2       | 4 (a)   | | pow      | 0       | 1       |
//! | tanh     | 6 (b)   | 2       | | atan2    | 0       | 1       |
//! | erf      | 7 (b)   | 3 (c)   | | rsqrt    | 1       | 0       |
//!
//! (a) the scalar op's own formula `1 / (1 + e^-x)` (which the vector one follows, for the same
//! saturation) is ~2 ulp at x < -36, where the two differ by 4. (b) tanh trades 4 ulp for speed
//! (a rational instead of an exponential, as XLA does): within 5 ulp of XLA:CPU's own tanh on
//! the oracle tests (bound 8); f32 erf likewise (`x P(x^2) / Q(x^2)`, 2.5x the speed of the
//! exponential form it replaced, which was 2 ulp): 6 ulp on the sweep, 7 on every 3rd f32 of
//! [0.5, 3.92] without FMA, within the oracle bound 8 of XLA:CPU's erf. (c) against libm's erf (the
//! scalar op since our own series, 8-10 ulp off near |x| = 2, was replaced); the vector erf is
//! within 1 ulp of mpmath on 57 points of [0, 6] (a test). Against the exact value every
//! function here is checked on all paths by `tests/oracle_exact.rs`.
//!
//! Throughput, Melem/s, one core, 64K elements in L2 (f32x8 / f64x4, AVX2+FMA), beside the
//! scalar op applied lane by lane in the same run (which is what f64 and f32 cbrt/pow/atan2 ran
//! before this module had vector versions of them), on the loaded 2-core machine (load ~7:
//! compare within a run): `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native
//! cargo run --release -p xla-kernels --example math_speed`.
//!
//! | function | f32 vector | f32 lanewise | f64 vector | f64 lanewise |
//! |----------|-----------:|-------------:|-----------:|-------------:|
//! | exp      | 1934       | 178          | 562        | 177          |
//! | expm1    | 873        | 109          | 404        | 68           |
//! | log      | 981        | 217          | 363        | 181          |
//! | log1p    | 739        | 70           | 287        | 74           |
//! | logistic | 1082       | 104          | 426        | 75           |
//! | tanh     | 2008       | 42           | 275        | 21           |
//! | erf      | 1776       | 1            | 230        | 1            |
//! | sin      | 500        | 58           | 250        | 65           |
//! | cos      | 513        | 50           | 260        | 67           |
//! | tan      | 428        | 39           | 244        | 39           |
//! | cbrt     | 92         | 30           | 195        | 20           |
//! | rsqrt    | 2824       | 901          | 893        | 894          |
//! | pow      | 46         | 36           | 57         | 36           |
//! | atan2    | 90         | 35           | 102        | 37           |
//!
//! pow (and f32 cbrt, two f64 halves per vector) run below what their operation counts
//! suggest: perf shows no call or slow instruction in the loop, and one pow is a single
//! dependency chain of ~150 instructions (two-part logarithm with two divisions, then a
//! degree-10 Horner exponential: ~180 cycles of latency), longer than out-of-order execution
//! can overlap from one vector to the next. Estrin evaluation of the polynomials or two
//! interleaved vectors per call are the next steps; still 1.3-1.6x the lane-by-lane libm.

pub(crate) mod f32v;
pub(crate) mod f64v;
#[cfg(test)]
mod sweep;

use wide::{f32x16, f32x8, f64x4, f64x8};
use xla_core::scalar::Scalar;

/// The transcendental functions of [`crate::simd::VFloat`], one impl per vector type.
pub(crate) trait Transcendental: Sized {
    fn rsqrt(self) -> Self;
    fn exp(self) -> Self;
    fn expm1(self) -> Self;
    fn log(self) -> Self;
    fn log1p(self) -> Self;
    fn logistic(self) -> Self;
    fn tanh(self) -> Self;
    fn erf(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn cbrt(self) -> Self;
    fn pow(self, o: Self) -> Self;
    fn atan2(self, o: Self) -> Self;
}

/// f64 vectors: the functions of [`f64v`]; sin/cos/tan beyond 2^20 lane by lane.
macro_rules! impl_f64 {
    ($v:ident) => {
        impl Transcendental for $v {
            #[inline(always)]
            fn rsqrt(self) -> Self {
                // The scalar op is `1 / sqrt(x)` with both roundings: the same here.
                $v::ONE / self.sqrt()
            }
            #[inline(always)]
            fn exp(self) -> Self {
                f64v::exp(self)
            }
            #[inline(always)]
            fn expm1(self) -> Self {
                f64v::expm1(self)
            }
            #[inline(always)]
            fn log(self) -> Self {
                f64v::log(self)
            }
            #[inline(always)]
            fn log1p(self) -> Self {
                f64v::log1p(self)
            }
            #[inline(always)]
            fn logistic(self) -> Self {
                f64v::logistic(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                f64v::tanh(self)
            }
            #[inline(always)]
            fn erf(self) -> Self {
                f64v::erf(self)
            }
            #[inline(always)]
            fn sin(self) -> Self {
                f64v::trig(self, f64v::Trig::Sin, <f64 as Scalar>::sin)
            }
            #[inline(always)]
            fn cos(self) -> Self {
                f64v::trig(self, f64v::Trig::Cos, <f64 as Scalar>::cos)
            }
            #[inline(always)]
            fn tan(self) -> Self {
                f64v::trig(self, f64v::Trig::Tan, <f64 as Scalar>::tan)
            }
            #[inline(always)]
            fn cbrt(self) -> Self {
                f64v::cbrt(self)
            }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                f64v::pow(self, o)
            }
            #[inline(always)]
            fn atan2(self, o: Self) -> Self {
                f64v::atan2(self, o)
            }
        }
    };
}

impl_f64!(f64x4);
impl_f64!(f64x8);

/// f32 vectors: polynomials from [`f32v`] for the hot functions, the scalar op for the rest.
macro_rules! impl_f32 {
    ($v:ident) => {
        impl Transcendental for $v {
            #[inline(always)]
            fn rsqrt(self) -> Self {
                f32v::rsqrt(self)
            }
            #[inline(always)]
            fn exp(self) -> Self {
                f32v::exp(self)
            }
            #[inline(always)]
            fn expm1(self) -> Self {
                f32v::expm1(self)
            }
            #[inline(always)]
            fn log(self) -> Self {
                f32v::log(self)
            }
            #[inline(always)]
            fn log1p(self) -> Self {
                f32v::log1p(self)
            }
            #[inline(always)]
            fn logistic(self) -> Self {
                f32v::logistic(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                f32v::tanh(self)
            }
            #[inline(always)]
            fn erf(self) -> Self {
                f32v::erf(self)
            }
            #[inline(always)]
            fn sin(self) -> Self {
                f32v::trig(self, f32v::Trig::Sin, <f32 as Scalar>::sin)
            }
            #[inline(always)]
            fn cos(self) -> Self {
                f32v::trig(self, f32v::Trig::Cos, <f32 as Scalar>::cos)
            }
            #[inline(always)]
            fn tan(self) -> Self {
                f32v::trig(self, f32v::Trig::Tan, <f32 as Scalar>::tan)
            }
            #[inline(always)]
            fn cbrt(self) -> Self {
                f32v::via_f64(
                    self,
                    #[inline(always)]
                    |h| f64v::cbrt(h),
                )
            }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                f32v::via_f64_2(
                    self,
                    o,
                    #[inline(always)]
                    |a, b| f64v::pow(a, b),
                )
            }
            #[inline(always)]
            fn atan2(self, o: Self) -> Self {
                f32v::via_f64_2(
                    self,
                    o,
                    #[inline(always)]
                    |a, b| f64v::atan2(a, b),
                )
            }
        }
    };
}

impl_f32!(f32x8);
impl_f32!(f32x16);
