//! Unit tests of the element rules listed in the module docs of `scalar` (the ones that are easy
//! to get wrong), for every family of types: integers, pred, f16/bf16/f32/f64 and c64/c128.

use std::cmp::Ordering;

use half::{bf16, f16};
use num_complex::Complex;

use super::*;
use crate::ir::ComparisonDirection as Dir;

type C32 = Complex<f32>;
type C64 = Complex<f64>;

/// Asserts two floats have the same bits (distinguishes -0 from +0, NaN from NaN payloads).
fn same_bits_f32(a: f32, b: f32) {
    assert_eq!(a.to_bits(), b.to_bits(), "{a:?} vs {b:?}");
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

fn close_c(a: C64, b: C64, tol: f64) {
    assert!(
        close(a.re, b.re, tol) && close(a.im, b.im, tol),
        "{a} vs {b}"
    );
}

// ---- integers --------------------------------------------------------------------------------

#[test]
fn integer_division_by_zero_and_overflow() {
    assert_eq!(<i32 as Scalar>::div(7, 0), -1);
    assert_eq!(<i32 as Scalar>::div(-7, 0), -1);
    assert_eq!(<u8 as Scalar>::div(7, 0), u8::MAX);
    assert_eq!(<u64 as Scalar>::div(0, 0), u64::MAX);
    assert_eq!(<i32 as Scalar>::div(i32::MIN, -1), i32::MIN);
    assert_eq!(<i8 as Scalar>::div(i8::MIN, -1), i8::MIN);
    // Truncating division.
    assert_eq!(<i32 as Scalar>::div(-7, 2), -3);
    assert_eq!(<i32 as Scalar>::rem(7, 0), 7);
    assert_eq!(<u16 as Scalar>::rem(9, 0), 9);
    assert_eq!(<i64 as Scalar>::rem(i64::MIN, -1), 0);
    // Sign of the dividend.
    assert_eq!(<i32 as Scalar>::rem(-7, 2), -1);
    assert_eq!(<i32 as Scalar>::rem(7, -2), 1);
}

#[test]
fn integer_wrapping() {
    assert_eq!(<i8 as Scalar>::add(127, 1), -128);
    assert_eq!(<u8 as Scalar>::sub(0, 1), 255);
    assert_eq!(<i16 as Scalar>::mul(256, 256), 0);
    assert_eq!(<i32 as Scalar>::abs(i32::MIN), i32::MIN);
    assert_eq!(<i32 as Scalar>::neg(i32::MIN), i32::MIN);
    assert_eq!(<u8 as Scalar>::abs(200), 200);
    assert_eq!(<i32 as Scalar>::sign(-5), -1);
    assert_eq!(<i32 as Scalar>::sign(0), 0);
    assert_eq!(<u32 as Scalar>::sign(9), 1);
    assert_eq!(<u8 as Scalar>::clz(1), 7);
    assert_eq!(<i32 as Scalar>::clz(-1), 0);
    assert_eq!(<i64 as Scalar>::popcnt(-1), 64);
}

#[test]
fn shifts_by_at_least_the_width() {
    assert_eq!(<i32 as Scalar>::shl(1, 31), i32::MIN);
    assert_eq!(<i32 as Scalar>::shl(1, 32), 0);
    // A negative amount reads as a huge unsigned amount.
    assert_eq!(<i32 as Scalar>::shl(1, -1), 0);
    assert_eq!(<i32 as Scalar>::shr_logical(-1, 28), 15);
    assert_eq!(<i32 as Scalar>::shr_logical(-1, 32), 0);
    assert_eq!(<i32 as Scalar>::shr_arithmetic(-8, 1), -4);
    assert_eq!(<i32 as Scalar>::shr_arithmetic(-8, 40), -1);
    assert_eq!(<i32 as Scalar>::shr_arithmetic(8, 40), 0);
    assert_eq!(<i8 as Scalar>::shr_arithmetic(-128, -1), -1);
    // Unsigned arithmetic shift replicates the top bit.
    assert_eq!(<u8 as Scalar>::shr_arithmetic(0x80, 7), 0xff);
    assert_eq!(<u8 as Scalar>::shr_arithmetic(0x80, 8), 0xff);
    assert_eq!(<u8 as Scalar>::shr_arithmetic(0x40, 8), 0);
    assert_eq!(<u64 as Scalar>::shl(3, 64), 0);
}

#[test]
fn integer_pow() {
    assert_eq!(<i32 as Scalar>::pow(3, 4), 81);
    assert_eq!(<i32 as Scalar>::pow(0, 0), 1);
    assert_eq!(<i32 as Scalar>::pow(2, -1), 0);
    assert_eq!(<i32 as Scalar>::pow(0, -1), 0);
    assert_eq!(<i32 as Scalar>::pow(1, -5), 1);
    assert_eq!(<i32 as Scalar>::pow(-1, -3), -1);
    assert_eq!(<i32 as Scalar>::pow(-1, -4), 1);
    assert_eq!(<i32 as Scalar>::pow(-2, 3), -8);
    // Wrapping.
    assert_eq!(<i32 as Scalar>::pow(2, 31), i32::MIN);
    assert_eq!(<i32 as Scalar>::pow(2, 32), 0);
    assert_eq!(<u8 as Scalar>::pow(3, 5), 243);
    assert_eq!(<u8 as Scalar>::pow(3, 6), (729u32 % 256) as u8);
    // Only six squaring steps (low six exponent bits), and the exponent read as signed even
    // for unsigned types; each value below was printed by XLA:CPU.
    assert_eq!(<i32 as Scalar>::pow(3, 200), 6561);
    assert_eq!(<i32 as Scalar>::pow(-2, 65), -2);
    assert_eq!(<i32 as Scalar>::pow(-1, 67), -1);
    assert_eq!(<u8 as Scalar>::pow(255, 255), 255);
    assert_eq!(<u8 as Scalar>::pow(255, 254), 1);
    assert_eq!(<u8 as Scalar>::pow(1, 200), 1);
    assert_eq!(<u8 as Scalar>::pow(3, 200), 0);
    assert_eq!(<u8 as Scalar>::pow(2, 7), 128);
}

#[test]
fn pred_arithmetic_is_logic() {
    assert!(<bool as Scalar>::add(true, false));
    assert!(!<bool as Scalar>::sub(true, true));
    assert!(!<bool as Scalar>::mul(true, false));
    assert!(<bool as Scalar>::max(false, true));
    assert!(!<bool as Scalar>::min(false, true));
    assert!(!<bool as Scalar>::not(true));
    assert!(<bool as Scalar>::compare(true, false, Dir::Gt));
}

// ---- floats ----------------------------------------------------------------------------------

#[test]
fn float_max_min_propagate_nan_and_order_zeros() {
    assert!(<f32 as Scalar>::max(f32::NAN, 1.0).is_nan());
    assert!(<f32 as Scalar>::max(1.0, f32::NAN).is_nan());
    assert!(<f64 as Scalar>::min(f64::NAN, 1.0).is_nan());
    assert!(<f64 as Scalar>::min(1.0, f64::NAN).is_nan());
    same_bits_f32(<f32 as Scalar>::max(-0.0, 0.0), 0.0);
    same_bits_f32(<f32 as Scalar>::max(0.0, -0.0), 0.0);
    same_bits_f32(<f32 as Scalar>::min(0.0, -0.0), -0.0);
    same_bits_f32(<f32 as Scalar>::min(-0.0, 0.0), -0.0);
    assert_eq!(<f32 as Scalar>::max(-3.0, 2.0), 2.0);
    let (nz, pz) = (f16::NEG_ZERO, f16::ZERO);
    assert_eq!(<f16 as Scalar>::max(nz, pz).to_bits(), pz.to_bits());
    assert_eq!(
        <bf16 as Scalar>::min(bf16::ZERO, bf16::NEG_ZERO).to_bits(),
        bf16::NEG_ZERO.to_bits()
    );
    assert!(<bf16 as Scalar>::max(bf16::ONE, bf16::NAN).is_nan());
    // Clamp uses the same max/min: NaN propagates.
    assert!(<f32 as Scalar>::clamp(0.0, f32::NAN, 1.0).is_nan());
    assert_eq!(<f32 as Scalar>::clamp(0.0, 7.0, 1.0), 1.0);
}

#[test]
fn float_misc_rules() {
    same_bits_f32(<f32 as Scalar>::sign(-0.0), -0.0);
    same_bits_f32(<f32 as Scalar>::sign(0.0), 0.0);
    assert!(<f32 as Scalar>::sign(f32::NAN).is_nan());
    assert_eq!(<f32 as Scalar>::sign(-3.5), -1.0);
    assert_eq!(<f64 as Scalar>::sign(f64::INFINITY), 1.0);
    // fmod: sign of the dividend.
    assert_eq!(<f32 as Scalar>::rem(-7.5, 2.0), -1.5);
    assert_eq!(<f32 as Scalar>::rem(7.5, -2.0), 1.5);
    assert!(<f64 as Scalar>::rem(1.0, 0.0).is_nan());
    assert_eq!(<f32 as Scalar>::round_afz(2.5), 3.0);
    assert_eq!(<f32 as Scalar>::round_afz(-2.5), -3.0);
    assert_eq!(<f32 as Scalar>::round_even(2.5), 2.0);
    assert_eq!(<f32 as Scalar>::round_even(3.5), 4.0);
    assert_eq!(<f32 as Scalar>::logistic(f32::NEG_INFINITY), 0.0);
    assert_eq!(<f32 as Scalar>::logistic(0.0), 0.5);
    assert_eq!(<f64 as Scalar>::rsqrt(4.0), 0.5);
    assert!(!<f32 as Scalar>::is_finite(f32::INFINITY));
    assert!(!<f16 as Scalar>::is_finite(f16::NAN));
    // f16 arithmetic rounds each result: 1 + 2^-11 is a tie between 1 and 1 + 2^-10 -> 1.
    let tiny = f16::from_f32(2f32.powi(-11));
    assert_eq!(<f16 as Scalar>::add(f16::ONE, tiny), f16::ONE);
    let big = f16::from_f32(60000.0);
    assert!(<f16 as Scalar>::add(big, big).is_infinite());
}

#[test]
fn ieee_compare_versus_total_order() {
    assert!(!<f32 as Scalar>::compare(f32::NAN, f32::NAN, Dir::Eq));
    assert!(<f32 as Scalar>::compare(f32::NAN, f32::NAN, Dir::Ne));
    assert!(!<f32 as Scalar>::compare(f32::NAN, 1.0, Dir::Lt));
    assert!(!<f32 as Scalar>::compare(f32::NAN, 1.0, Dir::Ge));
    assert!(<f32 as Scalar>::compare(-0.0, 0.0, Dir::Eq));
    assert!(!<f32 as Scalar>::compare_total(-0.0, 0.0, Dir::Eq));
    assert!(<f32 as Scalar>::compare_total(-0.0, 0.0, Dir::Lt));
    assert!(<f32 as Scalar>::compare_total(f32::NAN, f32::NAN, Dir::Eq));
    assert!(<f32 as Scalar>::compare_total(
        f32::INFINITY,
        f32::NAN,
        Dir::Lt
    ));
    assert!(<f16 as Scalar>::compare(
        f16::ONE,
        f16::from_f32(2.0),
        Dir::Lt
    ));
}

/// `-NaN < -Inf < -Finite < -0 < +0 < +Finite < +Inf < +NaN`, for every float type.
#[test]
fn float_total_order() {
    fn check<T: Scalar>(ascending: &[T]) {
        for (i, &a) in ascending.iter().enumerate() {
            for (j, &b) in ascending.iter().enumerate() {
                assert_eq!(a.total_cmp(b), i.cmp(&j), "{a:?} vs {b:?}");
            }
        }
    }
    let f = [
        -f32::NAN,
        f32::NEG_INFINITY,
        -1.0,
        -f32::MIN_POSITIVE / 2.0,
        -0.0,
        0.0,
        1e-45,
        1.0,
        f32::INFINITY,
        f32::NAN,
    ];
    check(&f);
    check(&f.map(|x| x as f64));
    // f16 without the f32 subnormal (it flushes to -0 in f16).
    check(&[
        -f16::NAN,
        f16::NEG_INFINITY,
        f16::from_f32(-1.0),
        f16::from_f32(-1e-7),
        f16::NEG_ZERO,
        f16::ZERO,
        f16::ONE,
        f16::INFINITY,
        f16::NAN,
    ]);
    check(&[
        -bf16::NAN,
        bf16::NEG_INFINITY,
        bf16::from_f32(-1.0),
        bf16::NEG_ZERO,
        bf16::ZERO,
        bf16::ONE,
        bf16::INFINITY,
        bf16::NAN,
    ]);
    // A NaN payload orders after the canonical NaN.
    let payload = f32::from_bits(f32::NAN.to_bits() + 1);
    assert_eq!(
        <f32 as Scalar>::total_cmp(f32::NAN, payload),
        Ordering::Less
    );
}

// ---- conversions -----------------------------------------------------------------------------

#[test]
fn float_to_int_truncates_and_saturates() {
    assert_eq!(<f32 as Scalar>::convert::<i32>(3.9), 3);
    assert_eq!(<f32 as Scalar>::convert::<i32>(-3.9), -3);
    assert_eq!(<f32 as Scalar>::convert::<i32>(1e10), i32::MAX);
    assert_eq!(<f32 as Scalar>::convert::<i32>(-1e10), i32::MIN);
    assert_eq!(<f64 as Scalar>::convert::<i64>(f64::INFINITY), i64::MAX);
    assert_eq!(<f32 as Scalar>::convert::<i32>(f32::NAN), 0);
    assert_eq!(<f32 as Scalar>::convert::<u8>(-1.0), 0);
    assert_eq!(<f32 as Scalar>::convert::<u8>(300.0), 255);
    assert_eq!(
        <f16 as Scalar>::convert::<i8>(f16::from_f32(-200.0)),
        i8::MIN
    );
    // float -> pred is x != 0.
    assert!(<f32 as Scalar>::convert::<bool>(f32::NAN));
    assert!(!<f32 as Scalar>::convert::<bool>(-0.0));
    assert!(<f32 as Scalar>::convert::<bool>(0.5));
    // int -> int wraps; int -> pred is x != 0.
    assert_eq!(<i32 as Scalar>::convert::<u8>(300), 44);
    assert_eq!(<i32 as Scalar>::convert::<u32>(-1), u32::MAX);
    assert_eq!(<u64 as Scalar>::convert::<i8>(0xff), -1);
    assert!(<i32 as Scalar>::convert::<bool>(-2));
    assert_eq!(<bool as Scalar>::convert::<f32>(true), 1.0);
    // Large integers to float round to nearest even once.
    assert_eq!(<i64 as Scalar>::convert::<f32>((1 << 24) + 1), 16777216.0);
    assert_eq!(
        <u64 as Scalar>::convert::<f64>(u64::MAX),
        18446744073709551615.0
    );
}

#[test]
fn f64_and_integers_to_bf16_and_f16_round_once() {
    // 1 + 2^-8 + 2^-30 is above a bf16 tie, so it rounds up to 1 + 2^-7; through f32 the 2^-30
    // would be lost, leaving an exact tie that rounds to even, 1 (what XLA:CPU gives).
    let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
    assert_eq!(
        <f64 as Scalar>::convert::<bf16>(x).to_f64(),
        1.0 + 2f64.powi(-7)
    );
    assert_eq!(<f64 as Scalar>::convert::<f32>(x), 1.0 + 2f32.powi(-8));
    // Same for f16 (10 mantissa bits): 1 + 2^-11 + 2^-30 -> 1 + 2^-10, and just below the tie
    // -> 1.
    let y = 1.0 + 2f64.powi(-11) + 2f64.powi(-30);
    assert_eq!(
        <f64 as Scalar>::convert::<f16>(y).to_f64(),
        1.0 + 2f64.powi(-10)
    );
    let y = 1.0 + 2f64.powi(-11) - 2f64.powi(-30);
    assert_eq!(<f64 as Scalar>::convert::<f16>(y), f16::ONE);
    // Below f16's overflow threshold (65520) stays finite even where f32 rounds up to it; the
    // smallest f16 subnormal is kept for a value just above half of it.
    assert_eq!(<f64 as Scalar>::convert::<f16>(65519.999).to_f64(), 65504.0);
    assert!(<f64 as Scalar>::convert::<f16>(65520.0).is_infinite());
    let tiny = 2f64.powi(-25) + 2f64.powi(-60);
    assert_eq!(<f64 as Scalar>::convert::<f16>(tiny).to_bits(), 1);
    assert_eq!(<f64 as Scalar>::convert::<f16>(-tiny).to_bits(), 0x8001);
    // Integers: 2^24 + 2^16 + 1 to bf16 rounds up, once.
    let i = (1i64 << 24) + (1 << 16) + 1;
    assert_eq!(
        <i64 as Scalar>::convert::<bf16>(i).to_f64(),
        ((1 << 24) + (1 << 17)) as f64
    );
    // Complex to real keeps the real part, rounded once too.
    let z = num_complex::Complex::new(y, 5.0);
    assert_eq!(
        <num_complex::Complex<f64> as Scalar>::convert::<f16>(z),
        f16::ONE
    );
    // Widening is exact.
    let h = f16::from_f32(0.1);
    assert_eq!(<f16 as Scalar>::convert::<f64>(h), h.to_f64());
    assert_eq!(<f32 as Scalar>::convert::<bf16>(3.0), bf16::from_f32(3.0));
}

#[test]
fn complex_conversions() {
    let z = C32::new(2.75, -1.0);
    assert_eq!(<C32 as Scalar>::convert::<f32>(z), 2.75);
    assert_eq!(<C32 as Scalar>::convert::<i32>(z), 2);
    assert!(<C32 as Scalar>::convert::<bool>(C32::new(0.0, 1.0)));
    assert!(!<C32 as Scalar>::convert::<bool>(C32::new(0.0, -0.0)));
    assert_eq!(<f32 as Scalar>::convert::<C64>(1.5), C64::new(1.5, 0.0));
    assert_eq!(<i32 as Scalar>::convert::<C32>(-3), C32::new(-3.0, 0.0));
    assert_eq!(
        <C64 as Scalar>::convert::<C32>(C64::new(0.1, 0.2)),
        C32::new(0.1, 0.2)
    );
    assert_eq!(<bool as Scalar>::convert::<C64>(true), C64::new(1.0, 0.0));
}

#[test]
fn bitcast_round_trips() {
    assert_eq!(<f32 as Scalar>::bitcast::<u32>(1.0), 0x3f80_0000);
    assert_eq!(<u32 as Scalar>::bitcast::<f32>(0x3f80_0000), 1.0);
    assert_eq!(<i32 as Scalar>::bitcast::<u32>(-1), u32::MAX);
    assert_eq!(<f16 as Scalar>::bitcast::<i16>(f16::NEG_ZERO), i16::MIN);
    assert_eq!(<bf16 as Scalar>::bitcast::<u16>(bf16::ONE), 0x3f80);
    assert_eq!(<f64 as Scalar>::bitcast::<i64>(-0.0), i64::MIN);
    // NaN payloads survive a round trip.
    let nan = f32::from_bits(0x7fc0_1234);
    assert_eq!(<f32 as Scalar>::bitcast::<u32>(nan), 0x7fc0_1234);
    assert_eq!(
        <u32 as Scalar>::bitcast::<f32>(0x7fc0_1234).to_bits(),
        0x7fc0_1234
    );
    // Complex: the real part in the low half.
    let z = C32::new(1.0, -2.0);
    assert_eq!(
        <C32 as Scalar>::bitcast::<u64>(z),
        0x3f80_0000 | (0xc000_0000u64 << 32)
    );
    assert_eq!(
        <u64 as Scalar>::bitcast::<C32>(<C32 as Scalar>::bitcast::<u64>(z)),
        z
    );
    let w = C64::new(-0.5, 3.0);
    assert_eq!(<C64 as Scalar>::from_bits(<C64 as Scalar>::to_bits(w)), w);
    assert_eq!(<C64 as Scalar>::to_bits(w) as u64, (-0.5f64).to_bits());
    assert!(<bool as Scalar>::from_bits(2));
    for x in [i8::MIN, -1, 0, 1, i8::MAX] {
        assert_eq!(
            <u8 as Scalar>::bitcast::<i8>(<i8 as Scalar>::bitcast::<u8>(x)),
            x
        );
    }
}

#[test]
fn reduce_precision_cases() {
    // f32 to the f16 format: 65504 is f16's max; 65520 rounds up to 65536 and overflows.
    assert_eq!(<f32 as Scalar>::reduce_precision(65504.0, 5, 10), 65504.0);
    assert_eq!(
        <f32 as Scalar>::reduce_precision(65520.0, 5, 10),
        f32::INFINITY
    );
    assert_eq!(
        <f32 as Scalar>::reduce_precision(-65520.0, 5, 10),
        f32::NEG_INFINITY
    );
    // f64 to the f32 format is f32 rounding for normal values.
    assert_eq!(<f64 as Scalar>::reduce_precision(0.1, 8, 23), 0.1f32 as f64);
    // Underflow (below the narrow type's normal range) flushes to a signed zero.
    assert_eq!(
        <f32 as Scalar>::reduce_precision(-1e-6, 5, 10).to_bits(),
        (-0.0f32).to_bits()
    );
    // NaN kept, identity at the type's own width, identity for integers.
    assert!(<f32 as Scalar>::reduce_precision(f32::NAN, 5, 10).is_nan());
    let h = f16::from_f32(0.3);
    assert_eq!(<f16 as Scalar>::reduce_precision(h, 5, 10), h);
    assert_eq!(
        <bf16 as Scalar>::reduce_precision(bf16::from_f32(1.0 + 2f32.powi(-7)), 8, 6),
        bf16::ONE
    );
    assert_eq!(<i32 as Scalar>::reduce_precision(123, 1, 1), 123);
    // Complex: componentwise.
    let z = <C32 as Scalar>::reduce_precision(C32::new(65520.0, 1.0 + 2f32.powi(-12)), 5, 10);
    assert_eq!(z, C32::new(f32::INFINITY, 1.0));
}

// ---- complex ---------------------------------------------------------------------------------

#[test]
fn complex_arithmetic() {
    let a = C32::new(1.0, 2.0);
    let b = C32::new(3.0, 4.0);
    assert_eq!(<C32 as Scalar>::add(a, b), C32::new(4.0, 6.0));
    assert_eq!(<C32 as Scalar>::mul(a, b), C32::new(-5.0, 10.0));
    let q = <C64 as Scalar>::div(C64::new(1.0, 2.0), C64::new(3.0, 4.0));
    close_c(q, C64::new(0.44, 0.08), 1e-15);
    // Smith's algorithm does not overflow where |b|^2 would.
    let big = C64::new(1e300, 1e300);
    close_c(<C64 as Scalar>::div(big, big), C64::new(1.0, 0.0), 1e-15);
    // Zero divisor: inf with the sign of the divisor's real part, times the dividend.
    let z = <C32 as Scalar>::div(C32::new(1.0, -1.0), C32::new(0.0, 0.0));
    assert_eq!(z, C32::new(f32::INFINITY, f32::NEG_INFINITY));
    // Infinite dividend, finite divisor; finite dividend, infinite divisor.
    let z = <C64 as Scalar>::div(C64::new(f64::INFINITY, 0.0), C64::new(1.0, 1.0));
    assert_eq!(z, C64::new(f64::INFINITY, f64::NEG_INFINITY));
    let z = <C64 as Scalar>::div(C64::new(1.0, 1.0), C64::new(f64::INFINITY, f64::INFINITY));
    assert_eq!(z, C64::new(0.0, 0.0));
    assert_eq!(<C32 as Scalar>::neg(a), C32::new(-1.0, -2.0));
    assert_eq!(<C32 as Scalar>::abs(b), 5.0);
    assert_eq!(<C64 as Scalar>::abs(C64::new(3e300, 4e300)), 5e300);
    assert_eq!(<C32 as Scalar>::real(b), 3.0);
    assert_eq!(<C32 as Scalar>::imag(b), 4.0);
    assert_eq!(make_complex(1.0f32, -2.0f32), C32::new(1.0, -2.0));
}

#[test]
fn complex_functions() {
    let pi = std::f64::consts::PI;
    close_c(
        <C64 as Scalar>::exp(C64::new(0.0, pi)),
        C64::new(-1.0, 0.0),
        1e-15,
    );
    close_c(
        <C64 as Scalar>::log(C64::new(-1.0, 0.0)),
        C64::new(0.0, pi),
        1e-15,
    );
    close_c(
        <C64 as Scalar>::sqrt(C64::new(-4.0, 0.0)),
        C64::new(0.0, 2.0),
        1e-15,
    );
    // As XLA, not C99: a zero imaginary part of either sign gives +2i (see complex/tests.rs).
    close_c(
        <C64 as Scalar>::sqrt(C64::new(-4.0, -0.0)),
        C64::new(0.0, 2.0),
        1e-15,
    );
    close_c(
        <C64 as Scalar>::rsqrt(C64::new(0.0, 2.0)),
        C64::new(0.5, -0.5),
        1e-15,
    );
    let r = <C32 as Scalar>::rsqrt(C32::new(0.0, 0.0));
    assert!(r.re == f32::INFINITY && r.im.is_nan());
    // expm1 and log1p keep full relative accuracy near 0.
    let e = <C64 as Scalar>::expm1(C64::new(1e-10, 1e-10));
    close_c(e, C64::new(1e-10, 1e-10 + 1e-20), 1e-12);
    assert!(((e.re - 1e-10) / 1e-10).abs() < 1e-9);
    let l = <C64 as Scalar>::log1p(C64::new(1e-10, 0.0));
    assert!(((l.re - (1e-10 - 5e-21)) / 1e-10).abs() < 1e-12, "{l}");
    close_c(
        <C64 as Scalar>::log1p(C64::new(-2.0, 0.0)),
        C64::new(0.0, pi),
        1e-15,
    );
    close_c(
        <C64 as Scalar>::logistic(C64::new(0.0, 0.0)),
        C64::new(0.5, 0.0),
        1e-15,
    );
    close_c(
        <C64 as Scalar>::tanh(C64::new(1.0, 0.0)),
        C64::new(1f64.tanh(), 0.0),
        1e-15,
    );
    close_c(
        <C64 as Scalar>::cos(C64::new(0.0, 1.0)),
        C64::new(1f64.cosh(), 0.0),
        1e-15,
    );
    // sign = z / |z|, 0 at 0.
    let s = <C32 as Scalar>::sign(C32::new(3.0, -4.0));
    assert_eq!(s, C32::new(0.6, -0.8));
    assert_eq!(
        <C32 as Scalar>::sign(C32::new(0.0, 0.0)),
        C32::new(0.0, 0.0)
    );
    // atan2 of real-valued complex operands is the real atan2.
    let t = <C64 as Scalar>::atan2(C64::new(1.0, 0.0), C64::new(1.0, 0.0));
    close_c(t, C64::new(pi / 4.0, 0.0), 1e-15);
    assert!(<C32 as Scalar>::is_finite(C32::new(1.0, 2.0)));
    assert!(!<C32 as Scalar>::is_finite(C32::new(1.0, f32::NAN)));
}

#[test]
fn complex_pow_special_cases() {
    let c = |re, im| C64::new(re, im);
    assert_eq!(<C64 as Scalar>::pow(c(0.0, 0.0), c(0.0, 0.0)), c(1.0, 0.0));
    assert_eq!(<C64 as Scalar>::pow(c(0.0, 0.0), c(2.0, 0.0)), c(0.0, 0.0));
    assert_eq!(<C64 as Scalar>::pow(c(5.0, 7.0), c(0.0, 0.0)), c(1.0, 0.0));
    assert_eq!(
        <C64 as Scalar>::pow(c(1.0, 0.0), c(f64::NAN, 3.0)),
        c(1.0, 0.0)
    );
    assert_eq!(
        <C64 as Scalar>::pow(c(f64::INFINITY, 0.0), c(2.0, 0.0)),
        c(f64::INFINITY, 0.0)
    );
    assert_eq!(
        <C64 as Scalar>::pow(c(f64::INFINITY, 0.0), c(-2.0, 0.0)),
        c(0.0, 0.0)
    );
    close_c(
        <C64 as Scalar>::pow(c(0.0, 1.0), c(2.0, 0.0)),
        c(-1.0, 0.0),
        1e-15,
    );
    close_c(
        <C64 as Scalar>::pow(c(2.0, 0.0), c(3.0, 0.0)),
        c(8.0, 0.0),
        1e-15,
    );
    // i^i = e^{-pi/2}.
    close_c(
        <C64 as Scalar>::pow(c(0.0, 1.0), c(0.0, 1.0)),
        c((-std::f64::consts::FRAC_PI_2).exp(), 0.0),
        1e-15,
    );
    let p = <C32 as Scalar>::pow(C32::new(0.0, 1.0), C32::new(2.0, 0.0));
    assert!((p.re + 1.0).abs() < 1e-7 && p.im.abs() < 1e-7);
}

#[test]
fn complex_comparisons() {
    let c = |re, im| C32::new(re, im);
    assert!(<C32 as Scalar>::compare(c(1.0, 2.0), c(1.0, 2.0), Dir::Eq));
    assert!(<C32 as Scalar>::compare(c(1.0, 2.0), c(1.0, 3.0), Dir::Ne));
    assert!(!<C32 as Scalar>::compare(
        c(1.0, f32::NAN),
        c(1.0, f32::NAN),
        Dir::Eq
    ));
    assert!(<C32 as Scalar>::compare(
        c(1.0, f32::NAN),
        c(1.0, f32::NAN),
        Dir::Ne
    ));
    // Ordered directions: lexicographic on (re, im).
    assert!(<C32 as Scalar>::compare(c(1.0, 5.0), c(2.0, 0.0), Dir::Lt));
    assert!(<C32 as Scalar>::compare(c(1.0, 1.0), c(1.0, 2.0), Dir::Lt));
    assert!(<C32 as Scalar>::compare(c(1.0, 2.0), c(1.0, 2.0), Dir::Ge));
    assert!(!<C32 as Scalar>::compare(
        c(f32::NAN, 0.0),
        c(1.0, 0.0),
        Dir::Lt
    ));
    assert_eq!(<C32 as Scalar>::max(c(1.0, 5.0), c(2.0, 0.0)), c(2.0, 0.0));
    assert_eq!(<C32 as Scalar>::min(c(1.0, 5.0), c(1.0, 0.0)), c(1.0, 0.0));
    assert!(<C32 as Scalar>::max(c(1.0, 5.0), c(0.0, f32::NAN))
        .im
        .is_nan());
    // Total order: lexicographic on the components' total order.
    assert_eq!(
        <C32 as Scalar>::total_cmp(c(-0.0, 1.0), c(0.0, 0.0)),
        Ordering::Less
    );
    assert_eq!(
        <C32 as Scalar>::total_cmp(c(1.0, f32::NAN), c(1.0, f32::INFINITY)),
        Ordering::Greater
    );
    assert!(<C32 as Scalar>::compare_total(
        c(1.0, f32::NAN),
        c(1.0, f32::NAN),
        Dir::Eq
    ));
}

// ---- dispatch --------------------------------------------------------------------------------

#[test]
fn unary_dispatch_and_result_types() {
    assert_eq!(
        <C32 as Scalar>::unary_any(UnaryOp::Abs, C32::new(3.0, 4.0)),
        UnaryResult::Real(5.0)
    );
    assert_eq!(
        <f32 as Scalar>::unary_any(UnaryOp::IsFinite, f32::NAN),
        UnaryResult::Pred(false)
    );
    assert_eq!(
        <i32 as Scalar>::unary_any(UnaryOp::Neg, 4),
        UnaryResult::Same(-4)
    );
    assert_eq!(
        unary_result_type(UnaryOp::Abs, ElementType::C64),
        ElementType::F32
    );
    assert_eq!(
        unary_result_type(UnaryOp::Imag, ElementType::C128),
        ElementType::F64
    );
    assert_eq!(
        unary_result_type(UnaryOp::Abs, ElementType::S32),
        ElementType::S32
    );
    assert_eq!(
        unary_result_type(UnaryOp::IsFinite, ElementType::F16),
        ElementType::Pred
    );
    assert_eq!(<i32 as Scalar>::binary(BinaryOp::ShiftLeft, 1, 4), 16);
    assert!(direction_holds_partial(Dir::Ne, None));
    assert!(!direction_holds_partial(Dir::Eq, None));
}
