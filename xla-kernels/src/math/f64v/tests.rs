//! Sweeps of the f64 vector functions against the scalar ops of `xla_core::scalar` (the
//! platform libm, within 1 ulp of the exact result for these functions; `erf` is the `libm`
//! crate's, also within 1 ulp). Run with `--nocapture` to see the measured max ulp of each function.

use wide::{f64x4, f64x8};
use xla_core::scalar::Scalar;

use super::*;
use crate::math::sweep::{sweep, sweep2, ulp_diff};

/// Special values for both sweeps.
fn specials() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-310,
        -1e-310,
        f64::MAX,
        f64::MIN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        1.5,
        -1.5,
        0.1,
        709.782_712_893_384,
        709.782_712_893_385,
        -708.396_418_532_264,
        -745.133_219_101_941,
        -745.133_219_101_942,
        -746.0,
        ERF_SPLIT,
        ERF_ONE,
        5.9,
        TANH_ONE,
        f64::EPSILON,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
        TRIG_FAST_MAX,
        -TRIG_FAST_MAX,
        TRIG_FAST_MAX * 1.000_001,
        9_007_199_254_740_992.0,
        -9_007_199_254_740_993.0,
        1e300,
        -1e300,
    ]
}

/// Inputs: every 2^42-th bit pattern (all exponents, both signs, subnormals, NaNs), dense
/// grids on [-20, 20] and [-800, 800], the f64 nearest k pi/2 (and neighbours) for k < 2^14,
/// and the special values.
fn inputs() -> Vec<f64> {
    let mut v: Vec<f64> = (0..(1u64 << 22))
        .map(|i| f64::from_bits((i << 42) | ((i * 0x9e37_79b9) & ((1 << 42) - 1))))
        .collect();
    v.extend((0..400_001).map(|i| -20.0 + i as f64 * 1e-4));
    v.extend((0..1_600_001).map(|i| -800.0 + i as f64 * 1e-3));
    v.extend((1..1u32 << 14).flat_map(|k| {
        let x = k as f64 * std::f64::consts::FRAC_PI_2;
        [x, x.next_up(), x.next_down(), -x]
    }));
    v.extend(specials());
    v
}

/// Pairs for the two-argument functions: every pair of special values, deterministic pseudo
/// random bit patterns, and pairs in the usual ranges (`x` in (0, 16) or (-16, 16), `y` in
/// (-60, 60) and small integers).
pub(crate) fn pairs() -> Vec<(f64, f64)> {
    let sp = specials();
    let mut v: Vec<(f64, f64)> = sp
        .iter()
        .flat_map(|&a| sp.iter().map(move |&b| (a, b)))
        .collect();
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let unit = |r: u64| (r >> 11) as f64 / (1u64 << 53) as f64;
    for i in 0..1_500_000 {
        let (a, b) = (next(), next());
        v.push(match i % 5 {
            0 => (f64::from_bits(a), f64::from_bits(b)),
            1 => (unit(a) * 16.0, unit(b) * 120.0 - 60.0),
            2 => (unit(a) * 32.0 - 16.0, ((b % 41) as f64) - 20.0),
            3 => (1.0 + (unit(a) - 0.5) * 1e-3, (unit(b) - 0.5) * 2e6),
            _ => (unit(a) * 2.0 - 1.0, (unit(b) - 0.5) * 1e3),
        });
    }
    v
}

fn check_all<V: F64Lanes>() {
    let mut r: Vec<(&str, u64, u64)> = Vec::new();
    let xs = inputs();
    r.push(("exp", sweep::<V>("exp", &xs, exp, <f64 as Scalar>::exp), 1));
    r.push((
        "expm1",
        sweep::<V>("expm1", &xs, expm1, <f64 as Scalar>::expm1),
        2,
    ));
    r.push(("log", sweep::<V>("log", &xs, log, <f64 as Scalar>::log), 1));
    r.push((
        "log1p",
        sweep::<V>("log1p", &xs, log1p, <f64 as Scalar>::log1p),
        2,
    ));
    r.push((
        "logistic",
        sweep::<V>("logistic", &xs, logistic, <f64 as Scalar>::logistic),
        4,
    ));
    r.push((
        "tanh",
        sweep::<V>("tanh", &xs, tanh, <f64 as Scalar>::tanh),
        2,
    ));
    r.push(("erf", sweep::<V>("erf", &xs, erf, <f64 as Scalar>::erf), 3));
    r.push((
        "sin",
        sweep::<V>(
            "sin",
            &xs,
            |x| trig(x, Trig::Sin, <f64 as Scalar>::sin),
            <f64 as Scalar>::sin,
        ),
        2,
    ));
    r.push((
        "cos",
        sweep::<V>(
            "cos",
            &xs,
            |x| trig(x, Trig::Cos, <f64 as Scalar>::cos),
            <f64 as Scalar>::cos,
        ),
        2,
    ));
    r.push((
        "tan",
        sweep::<V>(
            "tan",
            &xs,
            |x| trig(x, Trig::Tan, <f64 as Scalar>::tan),
            <f64 as Scalar>::tan,
        ),
        3,
    ));
    r.push((
        "cbrt",
        sweep::<V>("cbrt", &xs, cbrt, <f64 as Scalar>::cbrt),
        1,
    ));
    let ps = pairs();
    r.push(("pow", sweep2::<V>("pow", &ps, pow, <f64 as Scalar>::pow), 2));
    r.push((
        "atan2",
        sweep2::<V>("atan2", &ps, atan2, <f64 as Scalar>::atan2),
        1,
    ));
    // Every measurement is printed before any bound is checked.
    for (name, got, bound) in r {
        assert!(got <= bound, "f64 {name}: {got} ulp, bound {bound}");
    }
}

#[test]
fn f64x4_functions_within_budget() {
    check_all::<f64x4>();
}

#[test]
fn f64x8_functions_within_budget() {
    check_all::<f64x8>();
}

/// `(x, erf x)` from mpmath (50 digits, rounded to f64) for the erf accuracy test.
const ERF_REF: [(f64, f64); 57] = [
    (1.4277877625513482, 0.9565332330699543),
    (3.2653753517757114, 0.999996124281976),
    (2.2197309992884753, 0.9983057500449616),
    (3.623520231577167, 0.9999997015631086),
    (3.754321824648324, 0.9999998900210391),
    (0.39317315543887865, 0.42181020641491374),
    (0.07900794932924482, 0.08896576996050606),
    (5.02481449257876, 0.9999999999988068),
    (1.5561240859680459, 0.9722421493707419),
    (1.4059857662801782, 0.9532285681116441),
    (5.973869013062776, 1.0),
    (2.8215810451346877, 0.9999340152842677),
    (5.018768707646332, 0.9999999999987307),
    (2.8581192521960097, 0.999947000734805),
    (3.8344088432649714, 0.9999999412856533),
    (0.9036985441411436, 0.79875859073141),
    (3.809163949711131, 0.9999999283451368),
    (5.20827184285978, 0.9999999999998237),
    (3.139087262299808, 0.9999909764739008),
    (4.4475111372089415, 0.9999999996819826),
    (4.028468852217555, 0.9999999878148464),
    (0.38418862936198384, 0.41309378748842923),
    (4.549381477720904, 0.9999999998755449),
    (3.5465974975879053, 0.9999994714450807),
    (1.807605957094274, 0.9894220556216843),
    (0.18607050881849996, 0.20755997466450954),
    (5.193163421873674, 0.999999999999793),
    (2.836494531992801, 0.9999396425675953),
    (4.312943544394819, 0.9999999989354814),
    (5.27287680153289, 0.9999999999999115),
    (4.2847769016672155, 0.9999999986353071),
    (5.526592005503247, 0.9999999999999946),
    (2.3697804240044635, 0.9991958884672506),
    (4.80545262591137, 0.9999999999892388),
    (2.667726336304564, 0.9998385320866773),
    (5.613520330227127, 0.999999999999998),
    (5.27319996202825, 0.9999999999999117),
    (0.5847258583852633, 0.5917216967480186),
    (0.8158131612040134, 0.7513907750705896),
    (1.301921647398824, 0.9344070489364865),
    (5.792880833389217, 0.9999999999999998),
    (2.616971199764576, 0.9997852114160989),
    (3.759889745200824, 0.9999998946741728),
    (1.8061571905530323, 0.9893596016398317),
    (3.043457902974357, 0.9999832333654698),
    (2.3151975530694155, 0.9989403233131166),
    (2.10546293262108, 0.9970946072373251),
    (3.510444644432181, 0.9999993112825233),
    (1.4999, 0.9660932516622953),
    (1.5, 0.9661051464753108),
    (1.5001, 0.9661170377204175),
    (1.9999000000000002, 0.9953201979070294),
    (2.0, 0.9953222650189527),
    (2.5, 0.999593047982555),
    (3.0, 0.9999779095030014),
    (4.0, 0.9999999845827421),
    (5.9, 0.9999999999999999),
];

#[test]
fn erf_within_one_ulp_of_mpmath() {
    // The sweep compares with the scalar op (libm's erf, 1 ulp); check the vector erf against
    // exact values too.
    for &(x, want) in ERF_REF.iter() {
        for x in [x, -x] {
            let got = erf(f64x4::splat(x)).lane(0);
            let d = ulp_diff(got, want.copysign(x));
            assert!(d <= 1, "erf({x:e}) = {got:e}, want {want:e} ({d} ulp)");
        }
    }
}

/// The functions as a dispatched generated loop runs them (`fused::isa`, at the level
/// `cpu::level` picks; the test command reruns this test capped at each lower level), within
/// the budgets of [`check_all`], special results exact.
#[test]
fn dispatched_functions_within_budget_at_the_running_level() {
    use crate::fused::isa::{at_level, pick};
    use crate::math::sweep::{max_error, max_error2};
    use crate::simd::{F64V, L4F64, L8F64};
    let xs = inputs();
    let lv = format!("{:?}", pick());
    let mut r: Vec<(&str, u64, u64)> = Vec::new();
    macro_rules! one {
        ($name:literal, $f:ident, $bound:expr) => {{
            let got = at_level!([F64V, L4F64, L8F64], &xs, &xs, |a, _b| VFloat::$f(a));
            let e = max_error(
                &format!("{} at {lv}", $name),
                &xs,
                &got,
                <f64 as Scalar>::$f,
            );
            r.push(($name, e, $bound));
        }};
    }
    one!("exp", exp, 1);
    one!("expm1", expm1, 2);
    one!("log", log, 1);
    one!("log1p", log1p, 2);
    one!("logistic", logistic, 4);
    one!("tanh", tanh, 2);
    one!("erf", erf, 3);
    one!("sin", sin, 2);
    one!("cos", cos, 2);
    one!("tan", tan, 3);
    one!("cbrt", cbrt, 1);
    one!("rsqrt", rsqrt, 0);
    let ps = pairs();
    let (a, b): (Vec<f64>, Vec<f64>) = ps.iter().copied().unzip();
    let pow = at_level!([F64V, L4F64, L8F64], &a, &b, |x, y| VFloat::pow(x, y));
    r.push((
        "pow",
        max_error2(&format!("pow at {lv}"), &ps, &pow, <f64 as Scalar>::pow),
        2,
    ));
    let atan2 = at_level!([F64V, L4F64, L8F64], &a, &b, |x, y| VFloat::atan2(x, y));
    let e = max_error2(
        &format!("atan2 at {lv}"),
        &ps,
        &atan2,
        <f64 as Scalar>::atan2,
    );
    r.push(("atan2", e, 1));
    for (name, got, bound) in r {
        assert!(got <= bound, "f64 {name} at {lv}: {got} ulp, bound {bound}");
    }
}
