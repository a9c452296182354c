//! Complex unary functions on infinite, NaN, signed-zero and large components. Every expected
//! value below was printed by XLA:CPU (jax 0.10.2, through StableHLO with the input as a
//! parameter, so nothing is constant-folded); `tests/oracle_complex_special.rs` checks the whole
//! grid of such inputs against XLA itself.

use num_complex::Complex;

use crate::scalar::Scalar;

type C32 = Complex<f32>;
type C64 = Complex<f64>;

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

/// `x` is `want`: NaN for NaN, the same bits for zeros and infinities, else within 4 ulps.
fn same(x: f64, want: f64, eps: f64) -> bool {
    if want.is_nan() {
        x.is_nan()
    } else if want == 0.0 || want.is_infinite() {
        x.to_bits() == want.to_bits()
    } else {
        (x - want).abs() <= 4.0 * eps * want.abs()
    }
}

/// Asserts `f(re + im i)` in c64 is `want`.
fn c64(f: fn(C32) -> C32, (re, im): (f64, f64), want: (f64, f64)) {
    let z = f(C32::new(re as f32, im as f32));
    let eps = f32::EPSILON as f64;
    assert!(
        same(z.re as f64, want.0, eps) && same(z.im as f64, want.1, eps),
        "c64 at ({re:?}, {im:?}): {z:?}, XLA gives {want:?}"
    );
}

/// Asserts `f(re + im i)` in c128 is `want`.
fn c128(f: fn(C64) -> C64, (re, im): (f64, f64), want: (f64, f64)) {
    let z = f(C64::new(re, im));
    assert!(
        same(z.re, want.0, f64::EPSILON) && same(z.im, want.1, f64::EPSILON),
        "c128 at ({re:?}, {im:?}): {z:?}, XLA gives {want:?}"
    );
}

#[test]
fn abs_is_nan_when_a_part_is_nan_even_next_to_inf() {
    let abs32 = |re: f32, im: f32| <C32 as Scalar>::abs(C32::new(re, im));
    assert!(abs32(f32::INFINITY, f32::NAN).is_nan());
    assert!(abs32(f32::NAN, f32::NEG_INFINITY).is_nan());
    assert_eq!(abs32(f32::INFINITY, f32::INFINITY), f32::INFINITY);
    assert_eq!(abs32(-0.0, 0.0).to_bits(), 0);
    assert!(<C64 as Scalar>::abs(C64::new(INF, NAN)).is_nan());
    assert_eq!(<C64 as Scalar>::abs(C64::new(-INF, INF)), INF);
}

#[test]
fn sqrt_ignores_the_sign_of_a_zero_imaginary_part() {
    let s32 = <C32 as Scalar>::sqrt;
    let s64 = <C64 as Scalar>::sqrt;
    c64(s32, (-4.0, -0.0), (0.0, 2.0));
    c128(s64, (-4.0, -0.0), (0.0, 2.0));
    c128(s64, (-4.0, 0.0), (0.0, 2.0));
    c128(s64, (-4.0, -1e-30), (2.5e-31, -2.0));
    c128(s64, (3.0, 4.0), (2.0, 1.0));
    c64(s32, (NAN, INF), (NAN, NAN));
    c64(s32, (-INF, 1.0), (0.0, INF));
    c64(s32, (0.0, -INF), (INF, -INF));
    c128(s64, (-INF, NAN), (NAN, NAN));
    c128(
        s64,
        (1e308, 1e308),
        (1.0986841134678098e154, 4.5508986056222734e153),
    );
}

#[test]
fn tanh_and_tan_saturate_for_large_arguments() {
    let t32 = <C32 as Scalar>::tanh;
    let t64 = <C64 as Scalar>::tanh;
    c64(t32, (100.0, 1.0), (1.0, 0.0));
    c64(t32, (-200.0, 3.0), (-1.0, -0.0));
    c64(t32, (1e10, 0.5), (1.0, 0.0));
    c64(t32, (INF, NAN), (1.0, 0.0));
    c128(t64, (100.0, 1.0), (1.0, 2.516747101509427e-87));
    c128(t64, (-200.0, 3.0), (-1.0, -1.0702561340025596e-174));
    c128(t64, (400.0, 0.5), (1.0, 0.0));
    c64(<C32 as Scalar>::tan, (1.0, 100.0), (0.0, 1.0));
    c64(<C32 as Scalar>::tan, (3.0, -200.0), (-0.0, -1.0));
}

#[test]
fn exp_log_and_friends_on_special_components() {
    let e32 = <C32 as Scalar>::exp;
    let e64 = <C64 as Scalar>::exp;
    c64(e32, (-INF, INF), (NAN, NAN));
    c64(e32, (INF, 0.0), (INF, 0.0));
    c64(e32, (1.0, -0.0), (std::f64::consts::E, 0.0));
    // e^89 overflows f32 but e^89 sin 3 does not.
    c64(e32, (89.0, 3.0), (-INF, 6.335741531771975e37));
    c128(e64, (-INF, INF), (NAN, NAN));
    c128(e64, (INF, -0.0), (INF, 0.0));
    let l64 = <C64 as Scalar>::log;
    c128(l64, (INF, NAN), (NAN, NAN));
    c128(l64, (-0.0, -0.0), (-INF, -std::f64::consts::PI));
    c128(l64, (1.0, 1e-20), (5e-41, 1e-20));
    let lp64 = <C64 as Scalar>::log1p;
    c128(lp64, (-1.0, 0.0), (-INF, 0.0));
    c128(
        lp64,
        (-1.0, 1e-20),
        (-46.051701859880914, std::f64::consts::FRAC_PI_2),
    );
    // In f32, 1e-20^2 flushes to zero.
    c64(
        <C32 as Scalar>::log1p,
        (-1.0, 1e-20),
        (-INF, std::f64::consts::FRAC_PI_2),
    );
    let r64 = <C64 as Scalar>::rsqrt;
    c128(r64, (INF, NAN), (0.0, -0.0));
    c128(r64, (-4.0, 0.0), (3.061616997868383e-17, -0.5));
    c128(r64, (0.0, 0.0), (INF, NAN));
    c64(<C32 as Scalar>::logistic, (-INF, 1.0), (0.0, 0.0));
    c64(<C32 as Scalar>::logistic, (100.0, -0.5), (1.0, 0.0));
    c64(<C32 as Scalar>::expm1, (-0.0, 0.0), (0.0, 0.0));
    c64(<C32 as Scalar>::expm1, (0.0, 1e-20), (0.0, 1e-20));
}

#[test]
fn trigonometric_and_sign_on_special_components() {
    c64(<C32 as Scalar>::cos, (0.5, 89.0), (INF, -INF));
    c64(<C32 as Scalar>::cos, (0.0, INF), (INF, NAN));
    c128(<C64 as Scalar>::sin, (INF, 0.0), (NAN, NAN));
    c128(<C64 as Scalar>::sin, (0.0, NAN), (NAN, NAN));
    c128(<C64 as Scalar>::cosh, (NAN, 0.0), (NAN, 0.0));
    c128(<C64 as Scalar>::cosh, (INF, 1.0), (INF, INF));
    c64(<C32 as Scalar>::sign, (-0.0, 0.0), (-0.0, 0.0));
    c64(<C32 as Scalar>::sign, (1.0, INF), (0.0, NAN));
}
