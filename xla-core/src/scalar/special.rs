//! Functions the standard library lacks: the error function (from `libm`) and XLA's bit-level
//! reduce-precision.

/// The error function `erf(x) = 2/sqrt(pi) * integral_0^x e^{-t^2} dt`: the `libm` crate's
/// `erf` (a port of FreeBSD's msun, within 1 ulp; measured against mpmath in
/// `tests/oracle_exact.rs`). Our own series and continued fraction were 8 ulp off near |x| = 2.
/// NaN -> NaN, ±0 -> ±0, ±inf -> ±1.
#[inline]
pub fn erf_f64(x: f64) -> f64 {
    libm::erf(x)
}

/// XLA's `ReducePrecision` on the raw bits of a float with `src_exponent_bits` /
/// `src_mantissa_bits` (total width `1 + e + m` <= 64), keeping `exponent_bits` /
/// `mantissa_bits`:
///
/// 1. mantissa: round to nearest even at the new last bit (add `0b0111..` + the last kept bit,
///    then truncate); a carry may bump the exponent, up to infinity;
/// 2. exponent: values whose exponent exceeds the reduced range become ±inf, values at or
///    below the reduced minimum normal exponent become ±0 (no subnormals in the narrow type);
/// 3. NaN inputs are returned unchanged, whatever the bits kept (as XLA:CPU does).
///
/// An `exponent_bits` of 0 is treated as 1 (shape inference rejects it).
pub fn reduce_precision_bits(
    bits: u64,
    src_exponent_bits: u32,
    src_mantissa_bits: u32,
    exponent_bits: u32,
    mantissa_bits: u32,
) -> u64 {
    let nbits = 1 + src_exponent_bits + src_mantissa_bits;
    let width_mask = if nbits >= 64 {
        u64::MAX
    } else {
        (1u64 << nbits) - 1
    };
    let exp_mask = ((1u64 << src_exponent_bits) - 1) << src_mantissa_bits;
    let mant_mask = (1u64 << src_mantissa_bits) - 1;
    let is_nan = bits & exp_mask == exp_mask && bits & mant_mask != 0;
    let mut x = bits & width_mask;

    if mantissa_bits < src_mantissa_bits {
        let shift = src_mantissa_bits - mantissa_bits;
        let last_kept_bit = 1u64 << shift;
        let base_bias = (last_kept_bit >> 1) - 1;
        let bias = ((x & last_kept_bit) >> shift) + base_bias;
        let truncation_mask = !(last_kept_bit - 1);
        x = (x.wrapping_add(bias) & truncation_mask) & width_mask;
    }

    let exponent_bits = exponent_bits.max(1);
    if exponent_bits < src_exponent_bits {
        let sign_mask = 1u64 << (nbits - 1);
        let bias = (1u64 << (src_exponent_bits - 1)) - 1;
        let reduced_bias = (1u64 << (exponent_bits - 1)) - 1;
        let max_exponent = bias + reduced_bias;
        let min_exponent = bias - reduced_bias;
        let exponent = x & exp_mask;
        let signed_zero = x & sign_mask;
        if exponent > max_exponent << src_mantissa_bits {
            x = signed_zero | exp_mask;
        } else if exponent <= min_exponent << src_mantissa_bits {
            x = signed_zero;
        }
    }

    if is_nan {
        // Rounding can carry a NaN's mantissa into the sign bit (a false -0) or clear it (an
        // inf): XLA:CPU returns a NaN input unchanged, payload and sign included, whatever the
        // exponent and mantissa bits (measured with jax 0.10.2, e.g. e1m0, e8m0, e2m3 on f32
        // and f16), as the seed's "NaN stays NaN" says.
        bits
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values of erf (glibc's `erf`, within 1 ulp) checked to a relative 4e-16.
    #[test]
    fn erf_reference_values() {
        let cases: [(f64, f64); 10] = [
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (1.5, 0.9661051464753108),
            (1.999, 0.9953015566513705),
            (2.0, 0.9953222650189527),
            (2.5, 0.999593047982555),
            (3.0, 0.9999779095030014),
            (4.5, 0.9999999998033839),
            (5.9, 0.9999999999999999),
        ];
        for (x, want) in cases {
            let got = erf_f64(x);
            assert!(
                ((got - want) / want).abs() < 4e-16,
                "erf({x}) = {got}, want {want}"
            );
            assert_eq!(erf_f64(-x), -got, "erf is odd");
        }
        assert_eq!(erf_f64(6.5), 1.0);
        assert_eq!(erf_f64(f64::NEG_INFINITY), -1.0);
        assert!(erf_f64(f64::NAN).is_nan());
        assert!(erf_f64(-0.0).is_sign_negative());
        // Tiny arguments: erf(x) ~ 2x/sqrt(pi).
        assert_eq!(erf_f64(1e-300), std::f64::consts::FRAC_2_SQRT_PI * 1e-300);
    }

    #[test]
    fn reduce_precision_f32_to_bf16_layout() {
        // f32 -> (8, 7) is bf16 rounding: 1 + 2^-8 is a tie -> even (1.0); 1 + 3*2^-8 -> up.
        let r =
            |x: f32| f32::from_bits(reduce_precision_bits(x.to_bits() as u64, 8, 23, 8, 7) as u32);
        assert_eq!(r(1.0 + 2f32.powi(-8)), 1.0);
        assert_eq!(r(1.0 + 3.0 * 2f32.powi(-8)), 1.0 + 2f32.powi(-6));
        assert_eq!(r(f32::MAX), f32::INFINITY);
        assert!(r(f32::NAN).is_nan());
        // f32 -> (5, 10) (f16 range): 70000 overflows, 1e-5 underflows (subnormal in f16) to 0.
        let h =
            |x: f32| f32::from_bits(reduce_precision_bits(x.to_bits() as u64, 8, 23, 5, 10) as u32);
        assert_eq!(h(70000.0), f32::INFINITY);
        assert_eq!(h(-1e-5).to_bits(), (-0.0f32).to_bits());
        assert_eq!(h(65504.0), 65504.0);
        // Zero mantissa bits or one exponent bit: a NaN comes back unchanged (payload and sign
        // too), as XLA:CPU returns it.
        let z =
            |x: f32| f32::from_bits(reduce_precision_bits(x.to_bits() as u64, 8, 23, 8, 0) as u32);
        for nan in [0x7f80_0001u32, 0xff80_0001, 0x7fc0_0001, 0x7fff_ffff] {
            assert_eq!(z(f32::from_bits(nan)).to_bits(), nan);
            let e1m0 = reduce_precision_bits(nan as u64, 8, 23, 1, 0);
            assert_eq!(e1m0, nan as u64);
        }
        let h = reduce_precision_bits(0xfe00, 5, 10, 2, 3);
        assert_eq!(h, 0xfe00);
        assert_eq!(z(1.4), 1.0);
        assert_eq!(z(1.6), 2.0);
    }
}
