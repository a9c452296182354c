//! Conversions to f16 and bf16 that round once.
//!
//! `ConvertElementType` rounds to nearest, ties to even, once (IEEE 754 and the StableHLO spec).
//! Going through f32 with round-to-nearest rounds twice and can land on the wrong side of a tie
//! (`1 + 2^-11 + 2^-40` becomes `1` in f16 instead of `1 + 2^-10`). Rounding to odd first does
//! not: if the intermediate format has at least two more significand bits than the target,
//! rounding `x` to odd there and then to nearest-even in the target equals rounding `x` once
//! (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
//! rounding to odd", IEEE Trans. Computers 57(4), 2008). f32 has 24 bits against f16's 11 and
//! bf16's 8, and its exponent range covers both targets' subnormals with room to spare, so one
//! odd rounding to f32 followed by `half`'s nearest-even `from_f32` is a single rounding.

/// `x` rounded to f32 by round-to-odd: truncated towards zero, with the last significand bit
/// set when the truncation was inexact. NaN and infinities convert as they are; finite values
/// beyond f32's range truncate to `±f32::MAX` (odd), which then overflows any narrower type.
pub fn f32_round_to_odd(x: f64) -> f32 {
    let r = x as f32;
    if x.is_nan() || f64::from(r) == x {
        return r;
    }
    // Truncate: step back towards zero when nearest rounded away from zero. The bits of a float
    // are sign-magnitude, so one less is one step towards zero for either sign (and inf - 1 is
    // the largest finite value).
    let t = if f64::from(r).abs() > x.abs() {
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    };
    f32::from_bits(t.to_bits() | 1)
}

/// The integer `i` rounded to f64 by round-to-odd (exact when `|i| < 2^53`); for the integers
/// of XLA's types (|i| < 2^64), so that a further odd rounding to f32 and a nearest-even
/// rounding to f16/bf16 round `i` once.
pub fn f64_round_to_odd_int(i: i128) -> f64 {
    let r = i as f64;
    // Exact for |r| <= 2^64 (every value XLA's integer types hold).
    let back = r as i128;
    if back == i {
        return r;
    }
    let t = if back.unsigned_abs() > i.unsigned_abs() {
        f64::from_bits(r.to_bits() - 1)
    } else {
        r
    };
    f64::from_bits(t.to_bits() | 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    /// The nearest of all 2^16 values of a 16-bit format by brute force, ties to the even bit
    /// pattern, infinity standing for the next power of two after the largest finite value (as
    /// IEEE rounding treats it): a reference that shares nothing with the code under test.
    fn nearest16(x: f64, to_f64: impl Fn(u16) -> f64, inf_as: f64) -> u16 {
        if x.is_nan() {
            return 0x7fff;
        }
        let mut best = (f64::INFINITY, 0u16);
        for bits in 0..=u16::MAX {
            let mut v = to_f64(bits);
            if v.is_infinite() {
                v = inf_as.copysign(v);
            }
            if v.is_nan() || v.is_sign_negative() != x.is_sign_negative() {
                continue;
            }
            let d = (v - x).abs();
            if d < best.0 || (d == best.0 && bits & 1 == 0) {
                best = (d, bits);
            }
        }
        best.1
    }

    fn f16_ref(x: f64) -> u16 {
        nearest16(x, |b| f16::from_bits(b).to_f64(), 65536.0)
    }

    fn bf16_ref(x: f64) -> u16 {
        nearest16(x, |b| bf16::from_bits(b).to_f64(), 2f64.powi(128))
    }

    fn check(x: f64) {
        let ours = f16::from_f32(f32_round_to_odd(x));
        assert_eq!(ours.to_bits(), f16_ref(x), "f16 of {x:e}");
        let ours = bf16::from_f32(f32_round_to_odd(x));
        assert_eq!(ours.to_bits(), bf16_ref(x), "bf16 of {x:e}");
    }

    #[test]
    fn f64_to_half_rounds_once() {
        // Halfway points of f16 and bf16 nudged by less than f32 can hold, both signs.
        for x in [
            1.0 + 2f64.powi(-11) + 2f64.powi(-40),
            1.0 + 2f64.powi(-11) - 2f64.powi(-40),
            1.0 + 2f64.powi(-8) + 2f64.powi(-30),
            1.0 + 3.0 * 2f64.powi(-9) - 2f64.powi(-35),
            65519.999,
            65504.0 + 15.9,
            2f64.powi(-25) + 2f64.powi(-60),
            2f64.powi(-25) - 2f64.powi(-60),
            3.0 * 2f64.powi(-26),
            2f64.powi(-134) + 2f64.powi(-170),
            1e-300,
            3.0e38,
            3.3961e38,
            f64::MAX,
        ] {
            check(x);
            check(-x);
        }
        // A sweep of f64 values around many binades.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..300 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let e = (s >> 58) as i32 - 30;
            let m = 1.0 + (s >> 11) as f64 / (1u64 << 53) as f64;
            check(m * 2f64.powi(e));
        }
    }

    #[test]
    fn integers_round_once() {
        // 2^24 + 2^16 + 1 is just above a bf16 tie; through f32 (nearest) it lands on the tie
        // and goes to even, 2^24.
        let i: i128 = (1 << 24) + (1 << 16) + 1;
        let got = bf16::from_f32(f32_round_to_odd(f64_round_to_odd_int(i)));
        assert_eq!(got.to_bits(), bf16_ref(i as f64 + 0.5));
        assert_eq!(got.to_f64(), ((1 << 24) + (1 << 17)) as f64);
        // Above 2^53 the f64 step is odd-rounded too (the reference values by hand: bf16 keeps
        // 8 significant bits).
        for (i, want) in [
            ((1i128 << 60) + (1 << 52) + 1, 2f64.powi(60) + 2f64.powi(53)),
            (
                -((1i128 << 60) + (1 << 52) + 1),
                -(2f64.powi(60) + 2f64.powi(53)),
            ),
            ((1i128 << 60) + (1 << 52), 2f64.powi(60)),
            (u64::MAX as i128, 2f64.powi(64)),
            (i64::MIN as i128, -(2f64.powi(63))),
        ] {
            let r = f64_round_to_odd_int(i);
            assert_eq!(bf16::from_f32(f32_round_to_odd(r)).to_f64(), want, "{i}");
            assert!((r as i128 - i).unsigned_abs() < 1 << 12, "{i}");
        }
        // f16 overflows from 65520 up.
        let h = |i: i128| f16::from_f32(f32_round_to_odd(f64_round_to_odd_int(i)));
        assert_eq!(h(65519).to_f64(), 65504.0);
        assert!(h(65520).is_infinite());
        assert_eq!(h(2049).to_f64(), 2048.0);
        assert_eq!(h(2051).to_f64(), 2052.0);
    }
}
