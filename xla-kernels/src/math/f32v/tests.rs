//! Sweeps of the f32 polynomials against the scalar ops of `xla_core::scalar` (f64-evaluated,
//! rounded once: a correctly rounded reference in practice). Run with `--nocapture` to see the
//! measured max ulp of each function.

use wide::{f32x16, f32x8};
use xla_core::scalar::Scalar;

use super::*;
use crate::math::sweep::{sweep, sweep2, ulp_diff};

/// Inputs: every 1024th bit pattern (all exponents, both signs, subnormals), a dense grid on
/// [-20, 20], and the special values.
fn inputs() -> Vec<f32> {
    let mut v: Vec<f32> = (0..(1u64 << 22))
        .map(|i| f32::from_bits((i * 1024 + (i % 1021)) as u32))
        .collect();
    v.extend((0..400_001).map(|i| -20.0 + i as f32 * 1e-4));
    v.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
        88.72283,
        88.72284,
        -103.97208,
        -87.33655,
        ERF_ONE,
        -ERF_ONE,
        3.8325,
        9.0,
        -17.3,
        f32::EPSILON,
        // Near multiples of pi/2 (the reduction's hard cases) and around the fast-path limit.
        1.570_796_4,
        -1.570_796_4,
        std::f32::consts::PI,
        4.712_389,
        6.283_185_5,
        10_000.0,
        TRIG_FAST_MAX,
        -TRIG_FAST_MAX,
        TRIG_FAST_MAX * 1.000_001,
        1e10,
    ]);
    // A dense grid on [-4096, 4096] and the f32 values nearest to k pi/2 for k < 2^14.
    v.extend((0..2_000_000).map(|i| -4096.0 + i as f32 * 0.004_096));
    v.extend((1..1u32 << 14).map(|k| (k as f64 * std::f64::consts::FRAC_PI_2) as f32));
    v
}

fn check_all<V: F32Lanes>() {
    let xs = inputs();
    assert!(sweep::<V>("exp", &xs, exp, <f32 as Scalar>::exp) <= 1);
    assert!(sweep::<V>("expm1", &xs, expm1, <f32 as Scalar>::expm1) <= 2);
    assert!(sweep::<V>("log", &xs, log, <f32 as Scalar>::log) <= 1);
    assert!(sweep::<V>("log1p", &xs, log1p, <f32 as Scalar>::log1p) <= 2);
    assert!(sweep::<V>("logistic", &xs, logistic, <f32 as Scalar>::logistic) <= 3);
    assert!(sweep::<V>("tanh", &xs, tanh, <f32 as Scalar>::tanh) <= 6);
    assert!(sweep::<V>("erf", &xs, erf, <f32 as Scalar>::erf) <= 6);
    assert!(sweep::<V>("rsqrt", &xs, rsqrt, <f32 as Scalar>::rsqrt) <= 1);
    assert!(
        sweep::<V>(
            "sin",
            &xs,
            |x| trig(x, Trig::Sin, <f32 as Scalar>::sin),
            <f32 as Scalar>::sin
        ) <= 1
    );
    assert!(
        sweep::<V>(
            "cos",
            &xs,
            |x| trig(x, Trig::Cos, <f32 as Scalar>::cos),
            <f32 as Scalar>::cos
        ) <= 1
    );
    assert!(
        sweep::<V>(
            "tan",
            &xs,
            |x| trig(x, Trig::Tan, <f32 as Scalar>::tan),
            <f32 as Scalar>::tan
        ) <= 1
    );
}

#[test]
fn f32x8_polynomials_within_budget() {
    check_all::<f32x8>();
}

#[test]
fn f32x16_polynomials_within_budget() {
    check_all::<f32x16>();
}

#[test]
fn signed_zeros_without_special_lanes() {
    // A vector of only ±0 (a NaN or inf lane would send trig lane by lane).
    let z = f32x8::from([-0.0, 0.0, -0.0, 0.0, -0.0, -0.0, 0.0, 0.0]);
    type Pair = (fn(f32x8) -> f32x8, fn(f32) -> f32);
    let fs: [Pair; 10] = [
        (
            |x| trig(x, Trig::Sin, <f32 as Scalar>::sin),
            <f32 as Scalar>::sin,
        ),
        (
            |x| trig(x, Trig::Cos, <f32 as Scalar>::cos),
            <f32 as Scalar>::cos,
        ),
        (
            |x| trig(x, Trig::Tan, <f32 as Scalar>::tan),
            <f32 as Scalar>::tan,
        ),
        (exp, <f32 as Scalar>::exp),
        (expm1, <f32 as Scalar>::expm1),
        (log1p, <f32 as Scalar>::log1p),
        (tanh, <f32 as Scalar>::tanh),
        (erf, <f32 as Scalar>::erf),
        (logistic, <f32 as Scalar>::logistic),
        (log, <f32 as Scalar>::log),
    ];
    for (i, (vf, sf)) in fs.iter().enumerate() {
        let got = vf(z);
        for l in 0..8 {
            assert_eq!(
                got.lane(l).to_bits(),
                sf(z.lane(l)).to_bits(),
                "function #{i} lane {l}"
            );
        }
    }
}

#[test]
fn ldexp_rounds_subnormals_once() {
    // 1.5 * 2^-149 is a tie between 2^-149 and 2^-148: ties-to-even gives 2^-148.
    let got = ldexp(f32x8::splat(1.5), f32x8::splat(-149.0));
    assert_eq!(got.lane(0), f32::from_bits(2));
    let got = ldexp(f32x8::splat(1.25), f32x8::splat(-149.0));
    assert_eq!(got.lane(0), f32::from_bits(1));
    assert_eq!(
        ldexp(f32x8::splat(1.5), f32x8::splat(128.0)).lane(0),
        f32::INFINITY
    );
    assert_eq!(
        ldexp(f32x8::splat(1.5), f32x8::splat(127.0)).lane(0),
        1.5 * 2f32.powi(127)
    );
}

#[test]
fn exp_fast_path_matches_the_general_path_bit_for_bit() {
    // Every 64th f32 in (-EXP_FAST_MAX, EXP_FAST_MAX) plus the limits' neighbours: the
    // exponent-field scaling must give exactly what the two-factor ldexp gives.
    let lim = EXP_FAST_MAX.next_down();
    let mut xs: Vec<f32> = (0..(lim.to_bits() >> 6))
        .flat_map(|i| {
            let x = f32::from_bits(i << 6);
            [x, -x]
        })
        .collect();
    xs.extend([lim, -lim, 0.0, -0.0, 1e-45, -1e-45]);
    for chunk in xs.chunks(8) {
        let v = f32x8::load_partial(chunk, 0.0);
        let (fast, any) = (exp_normal(v), exp_any(v));
        for (i, x) in chunk.iter().enumerate() {
            assert_eq!(fast.lane(i).to_bits(), any.lane(i).to_bits(), "exp({x:e})");
        }
    }
    // A vector with one lane past the limit takes the general path (overflow to inf).
    let mut a = [1.0f32; 8];
    a[3] = 100.0;
    let got = exp(f32x8::from(a));
    assert_eq!(got.lane(3), f32::INFINITY);
    assert_eq!(got.lane(0), 1f32.exp());
}

#[test]
fn tanh_never_exceeds_one_and_saturates() {
    // Every f32 in [0.5, TANH_ONE] (where the result is in [0.46, 1] and the roundings of
    // the rational cost the most ulps): within 6 ulp, never above 1 (it can round a hair over
    // before the final min).
    let mut worst = (0, 0f32);
    let mut x = 0.5f32;
    while x <= TANH_ONE {
        let g = tanh(f32x8::splat(x)).lane(0);
        assert!(g <= 1.0, "tanh({x:e}) = {g:e}");
        let d = ulp_diff(g, <f32 as Scalar>::tanh(x));
        if d > worst.0 {
            worst = (d, x);
        }
        x = x.next_up();
    }
    println!(
        "tanh on [0.5, {TANH_ONE}]: max {} ulp at x = {:e}",
        worst.0, worst.1
    );
    assert!(worst.0 <= 6);
    // 1 - tanh(9) = 3.05e-8 is past half an ulp below 1: 0.99999994, not 1.
    assert!(tanh(f32x8::splat(9.0)).lane(0) < 1.0);
    for x in [TANH_ONE, 9.1, 10.0, 1e30, f32::MAX, f32::INFINITY] {
        assert_eq!(tanh(f32x8::splat(x)).lane(0), 1.0, "tanh({x})");
        assert_eq!(tanh(f32x8::splat(-x)).lane(0), -1.0, "tanh(-{x})");
    }
    // Tiny and subnormal inputs come back unchanged (P(0) = Q(0) = 1 in f32).
    for x in [1e-45f32, -3e-39, 1e-20, -2.5e-10] {
        assert_eq!(tanh(f32x8::splat(x)).lane(0), x);
    }
}

#[test]
fn erf_never_exceeds_one_and_saturates() {
    // Every 3rd f32 in [0.5, ERF_ONE] (results in [0.52, 1], where the roundings of the
    // rational cost the most ulps): within 7 ulp, never above 1.
    let mut worst = (0, 0f32);
    let mut x = 0.5f32;
    while x < ERF_ONE {
        let g = erf(f32x8::splat(x)).lane(0);
        assert!(g <= 1.0, "erf({x:e}) = {g:e}");
        let d = ulp_diff(g, <f32 as Scalar>::erf(x));
        if d > worst.0 {
            worst = (d, x);
        }
        x = f32::from_bits(x.to_bits() + 3);
    }
    println!(
        "erf on [0.5, {ERF_ONE}]: max {} ulp at x = {:e}",
        worst.0, worst.1
    );
    assert!(worst.0 <= 7);
    // From ERF_ONE on, exactly ±1.
    for x in [ERF_ONE, 3.92, 4.0, 10.0, 1e30, f32::MAX, f32::INFINITY] {
        assert_eq!(erf(f32x8::splat(x)).lane(0), 1.0, "erf({x})");
        assert_eq!(erf(f32x8::splat(-x)).lane(0), -1.0, "erf(-{x})");
    }
    // Tiny and subnormal inputs: x times P(0) (2/sqrt(pi) rounded to f32) rounded once,
    // within 1 ulp of the scalar op; ±0 exactly.
    for x in [1e-45f32, -3e-39, 1e-20, -2.5e-10] {
        let d = ulp_diff(erf(f32x8::splat(x)).lane(0), <f32 as Scalar>::erf(x));
        assert!(d <= 1, "erf({x:e}): {d} ulp");
    }
    assert!(erf(f32x8::splat(f32::NAN)).lane(0).is_nan());
}

/// Max ulp error of the f64-evaluated `cbrt`, `pow` and `atan2` of `V` against the scalar ops,
/// over the one-argument inputs and pairs of specials, bit patterns and usual ranges; special
/// results must match exactly.
fn check_via_f64<V: F32Lanes>() -> [u64; 3] {
    use crate::math::f64v;
    let xs = inputs();
    let cbrt = sweep::<V>(
        "cbrt",
        &xs,
        |x| via_f64(x, f64v::cbrt),
        <f32 as Scalar>::cbrt,
    );
    let sp: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        1.5,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        16_777_216.0,
        -16_777_217.0,
        128.0,
        -150.0,
    ];
    let mut ps: Vec<(f32, f32)> = sp
        .iter()
        .flat_map(|&a| sp.iter().map(move |&b| (a, b)))
        .collect();
    let mut s = 0x9e37_79b9u32;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    };
    let unit = |r: u32| (r >> 8) as f32 / (1u32 << 24) as f32;
    for i in 0..1_000_000 {
        let (a, b) = (next(), next());
        ps.push(match i % 4 {
            0 => (f32::from_bits(a), f32::from_bits(b)),
            1 => (unit(a) * 16.0, unit(b) * 60.0 - 30.0),
            2 => (unit(a) * 32.0 - 16.0, ((b % 41) as f32) - 20.0),
            _ => (unit(a) * 2.0 - 1.0, (unit(b) - 0.5) * 200.0),
        });
    }
    let pow = sweep2::<V>(
        "pow",
        &ps,
        |x, y| via_f64_2(x, y, f64v::pow),
        <f32 as Scalar>::pow,
    );
    let atan2 = sweep2::<V>(
        "atan2",
        &ps,
        |x, y| via_f64_2(x, y, f64v::atan2),
        <f32 as Scalar>::atan2,
    );
    [cbrt, pow, atan2]
}

#[test]
fn cbrt_pow_atan2_in_f64_lanes_are_correctly_rounded() {
    // An f64 result within a few f64 ulp rounds like the scalar op's libm result except next
    // to a halfway case: equal on every input here.
    assert_eq!(check_via_f64::<f32x8>(), [0, 0, 0]);
    assert_eq!(check_via_f64::<f32x16>(), [0, 0, 0]);
}

/// The functions as a dispatched generated loop runs them (`fused::isa`: AVX-512, AVX2 + FMA or
/// the build's vectors, whichever `cpu::level` picks; the test command reruns this test capped
/// at each lower level), within the budgets of the sweeps above, special results exact.
#[test]
fn dispatched_functions_within_budget_at_the_running_level() {
    use crate::fused::isa::{at_level, pick};
    use crate::math::sweep::{max_error, max_error2};
    use crate::simd::{F32V, L16F32, L8F32};
    let xs = inputs();
    let n = xs.len();
    let ys: Vec<f32> = (0..n).map(|i| xs[(i * 7919 + 13) % n]).collect();
    let lv = format!("{:?}", pick());
    macro_rules! one {
        ($name:literal, $f:ident, $bound:expr) => {{
            let got = at_level!([F32V, L8F32, L16F32], &xs, &xs, |a, _b| VFloat::$f(a));
            let e = max_error(
                &format!("{} at {lv}", $name),
                &xs,
                &got,
                <f32 as Scalar>::$f,
            );
            assert!(e <= $bound, "{} at {lv}: {e} ulp, bound {}", $name, $bound);
        }};
    }
    one!("exp", exp, 1);
    one!("expm1", expm1, 2);
    one!("log", log, 1);
    one!("log1p", log1p, 2);
    one!("logistic", logistic, 3);
    one!("tanh", tanh, 6);
    one!("erf", erf, 6);
    one!("rsqrt", rsqrt, 1);
    one!("sin", sin, 1);
    one!("cos", cos, 1);
    one!("tan", tan, 1);
    one!("cbrt", cbrt, 0);
    let ps: Vec<(f32, f32)> = xs.iter().copied().zip(ys.iter().copied()).collect();
    let pow = at_level!([F32V, L8F32, L16F32], &xs, &ys, |a, b| VFloat::pow(a, b));
    let e = max_error2(&format!("pow at {lv}"), &ps, &pow, <f32 as Scalar>::pow);
    assert_eq!(e, 0, "pow at {lv}");
    let atan2 = at_level!([F32V, L8F32, L16F32], &xs, &ys, |a, b| VFloat::atan2(a, b));
    let e = max_error2(
        &format!("atan2 at {lv}"),
        &ps,
        &atan2,
        <f32 as Scalar>::atan2,
    );
    assert_eq!(e, 0, "atan2 at {lv}");
}
