//! `VFloat` against the scalar ops of `xla_core::scalar`, lane by lane, bit for bit where the
//! scalar op is exact.

use wide::{f32x16, f32x8, f64x4, f64x8};
use xla_core::scalar::Scalar;

use super::*;

fn f32_specials() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
        3.7,
        -3.7,
        1e20,
        8388609.0,
        0.49999997,
    ];
    v.extend((0..200).map(|i| ((i * 7919) % 401) as f32 * 0.173 - 34.0));
    v
}

fn f64_specials() -> Vec<f64> {
    let mut v: Vec<f64> = f32_specials().into_iter().map(f64::from).collect();
    v.extend([
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        4503599627370497.0,
        0.49999999999999994,
    ]);
    v
}

fn same<T: Scalar>(a: T, b: T) -> bool {
    // NaN payloads may differ between instructions; everything else bit for bit.
    let nan = |x: T| !Scalar::compare(x, x, xla_core::ComparisonDirection::Eq);
    a.to_bits() == b.to_bits() || (nan(a) && nan(b))
}

/// Checks one unary op of `V` against `sf` on all lanes, bit for bit.
fn unary<V: VFloat>(name: &str, xs: &[V::Elem], vf: fn(V) -> V, sf: fn(V::Elem) -> V::Elem)
where
    V::Elem: Scalar + std::fmt::Debug + Default,
{
    for chunk in xs.chunks(V::LANES) {
        let r = vf(V::load_partial(chunk, Default::default()));
        for (i, &x) in chunk.iter().enumerate() {
            assert!(
                same(r.lane(i), sf(x)),
                "{name}({x:?}) = {:?}, want {:?}",
                r.lane(i),
                sf(x)
            );
        }
    }
}

fn binary<V: VFloat>(
    name: &str,
    xs: &[V::Elem],
    vf: fn(V, V) -> V,
    sf: fn(V::Elem, V::Elem) -> V::Elem,
) where
    V::Elem: Scalar + std::fmt::Debug + Default,
{
    for &y in xs {
        for chunk in xs.chunks(V::LANES) {
            let r = vf(V::load_partial(chunk, Default::default()), V::splat(y));
            for (i, &x) in chunk.iter().enumerate() {
                assert!(
                    same(r.lane(i), sf(x, y)),
                    "{name}({x:?}, {y:?}) = {:?}, want {:?}",
                    r.lane(i),
                    sf(x, y)
                );
            }
        }
    }
}

macro_rules! exact_ops {
    ($name:ident, $v:ident, $t:ident, $xs:expr) => {
        #[test]
        fn $name() {
            let xs: Vec<$t> = $xs;
            unary::<$v>("abs", &xs, VFloat::abs, <$t as Scalar>::abs);
            unary::<$v>("sqrt", &xs, VFloat::sqrt, <$t as Scalar>::sqrt);
            unary::<$v>("floor", &xs, VFloat::floor, <$t as Scalar>::floor);
            unary::<$v>("ceil", &xs, VFloat::ceil, <$t as Scalar>::ceil);
            unary::<$v>(
                "round_even",
                &xs,
                VFloat::round_even,
                <$t as Scalar>::round_even,
            );
            unary::<$v>(
                "round_afz",
                &xs,
                VFloat::round_afz,
                <$t as Scalar>::round_afz,
            );
            unary::<$v>("sign", &xs, VFloat::sign, <$t as Scalar>::sign);
            unary::<$v>("neg", &xs, |x| -x, <$t as Scalar>::neg);
            binary::<$v>("max", &xs, VFloat::max_xla, <$t as Scalar>::max);
            binary::<$v>("min", &xs, VFloat::min_xla, <$t as Scalar>::min);
            binary::<$v>("add", &xs, |a, b| a + b, <$t as Scalar>::add);
            binary::<$v>("div", &xs, |a, b| a / b, <$t as Scalar>::div);
            binary::<$v>("rem", &xs, VFloat::rem, <$t as Scalar>::rem);
            use xla_core::ComparisonDirection as D;
            let cmp = |x: $t, y: $t, d: D| Scalar::compare(x, y, d);
            for &y in &xs {
                for chunk in xs.chunks(<$v as VFloat>::LANES) {
                    let (a, b) = (
                        <$v as VFloat>::load_partial(chunk, 0.0),
                        <$v as VFloat>::splat(y),
                    );
                    let masks = [
                        (a.cmp_eq(b), D::Eq),
                        (a.cmp_ne(b), D::Ne),
                        (a.cmp_lt(b), D::Lt),
                        (a.cmp_le(b), D::Le),
                        (a.cmp_gt(b), D::Gt),
                        (a.cmp_ge(b), D::Ge),
                    ];
                    for (m, d) in masks {
                        let mut out = [false; 16];
                        m.mask_to_bools(&mut out);
                        for (i, &x) in chunk.iter().enumerate() {
                            assert_eq!(out[i], cmp(x, y, d), "{x:?} {d:?} {y:?}");
                        }
                        // Round trip through bools, and select by the mask.
                        let back = <$v as VFloat>::from_bools(&out[..<$v as VFloat>::LANES]);
                        let s = <$v as VFloat>::select(back, a, b);
                        for (i, &x) in chunk.iter().enumerate() {
                            let want = if out[i] { x } else { y };
                            assert!(same(s.lane(i), want));
                        }
                    }
                }
            }
        }
    };
}

/// f32 sin, cbrt, pow and atan2 are evaluated in f64 lanes and rounded once, which lands on
/// the scalar op's value on these inputs; the f64 vector versions are within the ulp bounds that
/// `math::`'s sweeps measure, so they are not expected bit-exact here.
macro_rules! f32_exact_transcendentals {
    ($name:ident, $v:ident) => {
        #[test]
        fn $name() {
            let xs = f32_specials();
            unary::<$v>("sin", &xs, VFloat::sin, <f32 as Scalar>::sin);
            unary::<$v>("cbrt", &xs, VFloat::cbrt, <f32 as Scalar>::cbrt);
            binary::<$v>("pow", &xs, VFloat::pow, <f32 as Scalar>::pow);
            binary::<$v>("atan2", &xs, VFloat::atan2, <f32 as Scalar>::atan2);
        }
    };
}

f32_exact_transcendentals!(f32x8_sin_cbrt_pow_atan2_match_scalar, f32x8);
f32_exact_transcendentals!(f32x16_sin_cbrt_pow_atan2_match_scalar, f32x16);

exact_ops!(f32x8_exact_ops_match_scalar, f32x8, f32, f32_specials());
exact_ops!(f32x16_exact_ops_match_scalar, f32x16, f32, f32_specials());
exact_ops!(f64x4_exact_ops_match_scalar, f64x4, f64, f64_specials());
exact_ops!(f64x8_exact_ops_match_scalar, f64x8, f64, f64_specials());

#[test]
fn max_min_zero_signs_and_nan_order() {
    let a = f32x8::from([0.0, -0.0, f32::NAN, 1.0, -0.0, 0.0, 2.0, -f32::NAN]);
    let b = f32x8::from([-0.0, 0.0, 1.0, f32::NAN, -0.0, 0.0, f32::NAN, f32::NAN]);
    let mx = a.max_xla(b);
    let mn = a.min_xla(b);
    for i in 0..8 {
        let (x, y) = (a.lane(i), b.lane(i));
        assert_eq!(
            mx.lane(i).to_bits(),
            <f32 as Scalar>::max(x, y).to_bits(),
            "max lane {i}"
        );
        assert_eq!(
            mn.lane(i).to_bits(),
            <f32 as Scalar>::min(x, y).to_bits(),
            "min lane {i}"
        );
    }
}

#[test]
fn reductions_use_the_documented_tree() {
    let xs: [f32; 16] =
        core::array::from_fn(|i| 1.0 / (i as f32 + 1.0) * if i % 3 == 0 { 1e7 } else { 1.0 });
    let v = f32x16::from(xs);
    // Pairwise: a[i] + a[i+8], then +4, +2, +1.
    let mut a = xs;
    for h in [8, 4, 2, 1] {
        for i in 0..h {
            a[i] += a[i + h];
        }
    }
    assert_eq!(VFloat::reduce_add(v).to_bits(), a[0].to_bits());
    let mut w = xs;
    w[5] = -0.0;
    w[11] = f32::NAN;
    let v = f32x16::from(w);
    assert!(VFloat::reduce_max_xla(v).is_nan());
    assert!(VFloat::reduce_min_xla(v).is_nan());
    let v = f32x16::from(xs);
    assert_eq!(VFloat::reduce_max_xla(v), 1e7);
    assert_eq!(VFloat::reduce_min_xla(v), 1.0 / 15.0);
    let zeros = f64x4::from([-0.0, 0.0, -0.0, -0.0]);
    assert_eq!(VFloat::reduce_max_xla(zeros).to_bits(), 0.0f64.to_bits());
    assert_eq!(
        VFloat::reduce_min_xla(f64x4::from([0.0, 0.0, -0.0, 0.0])).to_bits(),
        (-0.0f64).to_bits()
    );
}

#[test]
fn load_store_partial_and_from_fn() {
    let s = [1.0f64, 2.0, 3.0];
    let v = f64x4::load_partial(&s, -7.0);
    assert_eq!(v.to_array(), [1.0, 2.0, 3.0, -7.0]);
    let mut out = [0.0; 2];
    v.store_partial(&mut out);
    assert_eq!(out, [1.0, 2.0]);
    let g = <F32V as VFloat>::from_fn(|i| (i * i) as f32);
    assert_eq!(g.lane(3), 9.0);
    let mut full = [0.0f32; 16];
    g.store(&mut full);
    assert_eq!(full[2], 4.0);
    assert_eq!(<F32V as VFloat>::load(&full).lane(2), 4.0);
    let fm = <F64V as VFloat>::splat(3.0)
        .mul_add(<F64V as VFloat>::splat(2.0), <F64V as VFloat>::splat(1.0));
    assert_eq!(fm.lane(0), 7.0);
}

#[test]
#[should_panic]
fn load_panics_on_short_slice() {
    let _ = <f32x8 as VFloat>::load(&[1.0; 7]);
}

#[test]
fn windows_cover_every_element_once_as_new_lanes() {
    for lanes in [4usize, 8, 16] {
        for n in lanes..3 * lanes + 3 {
            let mut seen = vec![0; n];
            for jv in 0..n.div_ceil(lanes) {
                let (j, skip) = super::window(jv, lanes, n);
                assert!(j + lanes <= n, "window inside the row");
                for q in skip..lanes {
                    seen[j + q] += 1;
                }
            }
            assert!(
                seen.iter().all(|&c| c == 1),
                "lanes {lanes} n {n}: {seen:?}"
            );
        }
        // Runs of a row, including runs shorter than a vector at either end.
        let row = 2 * lanes + 3;
        for start in 0..row {
            for len in 1..=row - start {
                let mut seen = vec![0; row];
                for jv in 0..len.div_ceil(lanes) {
                    let (j, skip) = super::run_window(jv, lanes, start, len, row);
                    assert!(j + lanes <= row);
                    let new = (lanes - skip).min(len - jv * lanes);
                    for q in skip..skip + new {
                        seen[j + q] += 1;
                    }
                }
                let want: Vec<i32> = (0..row)
                    .map(|i| i32::from(i >= start && i < start + len))
                    .collect();
                assert_eq!(seen, want, "lanes {lanes} start {start} len {len}");
            }
        }
    }
}

/// The exact ops as a dispatched generated loop runs them (`fused::isa`: the [`Lanes`] vectors
/// inside AVX2 / AVX-512 functions, or the build's; the test command reruns this test capped
/// at each lower level), on every pair of specials, bit for bit against the scalar ops.
macro_rules! exact_ops_at_level {
    ($name:ident, $t:ident, $xs:expr, [$b:ty, $t2:ty, $t5:ty]) => {
        #[test]
        fn $name() {
            use crate::fused::isa::{at_level, pick};
            use xla_core::ComparisonDirection as D;
            let s: Vec<$t> = $xs;
            let xs: Vec<$t> = s.iter().flat_map(|&x| s.iter().map(move |_| x)).collect();
            let ys: Vec<$t> = s.iter().flat_map(|_| s.iter().copied()).collect();
            let lv = pick();
            let check = |name: &str, got: Vec<$t>, want: &dyn Fn($t, $t) -> $t| {
                for ((&x, &y), &g) in xs.iter().zip(&ys).zip(&got) {
                    let w = want(x, y);
                    assert!(
                        same(g, w),
                        "{name}({x:?}, {y:?}) at {lv:?} = {g:?}, want {w:?}"
                    );
                }
            };
            macro_rules! op {
                ($n:literal, |$a:ident, $c:ident| $e:expr, $want:expr) => {
                    check($n, at_level!([$b, $t2, $t5], &xs, &ys, |$a, $c| $e), &$want)
                };
            }
            op!("abs", |a, _c| VFloat::abs(a), |x, _| <$t as Scalar>::abs(x));
            op!(
                "sqrt",
                |a, _c| VFloat::sqrt(a),
                |x, _| <$t as Scalar>::sqrt(x)
            );
            op!("floor", |a, _c| VFloat::floor(a), |x, _| {
                <$t as Scalar>::floor(x)
            });
            op!(
                "ceil",
                |a, _c| VFloat::ceil(a),
                |x, _| <$t as Scalar>::ceil(x)
            );
            op!("round_even", |a, _c| VFloat::round_even(a), |x, _| {
                <$t as Scalar>::round_even(x)
            });
            op!("round_afz", |a, _c| VFloat::round_afz(a), |x, _| {
                <$t as Scalar>::round_afz(x)
            });
            op!(
                "sign",
                |a, _c| VFloat::sign(a),
                |x, _| <$t as Scalar>::sign(x)
            );
            op!("neg", |a, _c| -a, |x, _| <$t as Scalar>::neg(x));
            op!("max", |a, c| VFloat::max_xla(a, c), |x, y| {
                <$t as Scalar>::max(x, y)
            });
            op!("min", |a, c| VFloat::min_xla(a, c), |x, y| {
                <$t as Scalar>::min(x, y)
            });
            op!("add", |a, c| a + c, |x, y| <$t as Scalar>::add(x, y));
            op!("sub", |a, c| a - c, |x, y| <$t as Scalar>::sub(x, y));
            op!("mul", |a, c| a * c, |x, y| <$t as Scalar>::mul(x, y));
            op!("div", |a, c| a / c, |x, y| <$t as Scalar>::div(x, y));
            op!("rem", |a, c| VFloat::rem(a, c), |x, y| <$t as Scalar>::rem(
                x, y
            ));
            // Masks, through select: `x` where the comparison holds, `y` elsewhere.
            let pick_by = |d: D| move |x: $t, y: $t| if Scalar::compare(x, y, d) { x } else { y };
            op!(
                "eq",
                |a, c| VFloat::select(a.cmp_eq(c), a, c),
                pick_by(D::Eq)
            );
            op!(
                "ne",
                |a, c| VFloat::select(a.cmp_ne(c), a, c),
                pick_by(D::Ne)
            );
            op!(
                "lt",
                |a, c| VFloat::select(a.cmp_lt(c), a, c),
                pick_by(D::Lt)
            );
            op!(
                "le",
                |a, c| VFloat::select(a.cmp_le(c), a, c),
                pick_by(D::Le)
            );
            op!(
                "gt",
                |a, c| VFloat::select(a.cmp_gt(c), a, c),
                pick_by(D::Gt)
            );
            op!(
                "ge",
                |a, c| VFloat::select(a.cmp_ge(c), a, c),
                pick_by(D::Ge)
            );
            op!(
                "is_nan",
                |a, c| VFloat::select(a.is_nan(), c, a),
                |x: $t, y| {
                    if x.is_nan() {
                        y
                    } else {
                        x
                    }
                }
            );
        }
    };
}

exact_ops_at_level!(
    f32_exact_ops_at_the_running_level,
    f32,
    f32_specials(),
    [F32V, L8F32, L16F32]
);
exact_ops_at_level!(
    f64_exact_ops_at_the_running_level,
    f64,
    f64_specials(),
    [F64V, L4F64, L8F64]
);

exact_ops!(l8f32_exact_ops_match_scalar, L8F32, f32, f32_specials());
exact_ops!(l16f32_exact_ops_match_scalar, L16F32, f32, f32_specials());
exact_ops!(l4f64_exact_ops_match_scalar, L4F64, f64, f64_specials());
exact_ops!(l8f64_exact_ops_match_scalar, L8F64, f64, f64_specials());
f32_exact_transcendentals!(l16f32_sin_cbrt_pow_atan2_match_scalar, L16F32);

/// `Lanes`' lane reductions give the bits of `wide`'s (the same tree), NaN and signed zeros
/// included.
#[test]
fn lanes_reductions_match_wide() {
    let mut xs: [f32; 16] = core::array::from_fn(|i| (i as f32 - 7.5) * 1.25e3);
    for w in [
        xs,
        {
            xs[3] = -0.0;
            xs[9] = 0.0;
            xs
        },
        {
            xs[12] = f32::NAN;
            xs
        },
    ] {
        let (a, b) = (L16F32::from_fn(|i| w[i]), f32x16::from(w));
        assert!(same(VFloat::reduce_add(a), VFloat::reduce_add(b)));
        assert!(same(VFloat::reduce_max_xla(a), VFloat::reduce_max_xla(b)));
        assert!(same(VFloat::reduce_min_xla(a), VFloat::reduce_min_xla(b)));
    }
    for w in [
        [-0.0, 0.0, -0.0, -0.0],
        [0.0, 0.0, -0.0, 0.0],
        [1.0, f64::NAN, -2.0, 3.0],
    ] {
        let (a, b) = (L4F64::from_fn(|i| w[i]), f64x4::from(w));
        assert!(same(VFloat::reduce_max_xla(a), VFloat::reduce_max_xla(b)));
        assert!(same(VFloat::reduce_min_xla(a), VFloat::reduce_min_xla(b)));
    }
}
