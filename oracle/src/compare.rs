//! Comparing our literals with XLA's: bit-exact, or within a number of units in the last place.

use xla_core::{ArrayData, Literal};

/// How close two results must be.
///
/// Both tolerances accept one difference that is a property of XLA:CPU rather than of the
/// semantics: XLA runs with flush-to-zero, so where our (IEEE) result is a nonzero subnormal,
/// XLA's is a zero of the same sign. Inputs of the oracle tests contain no subnormals, since
/// XLA:CPU also reads a subnormal input as zero (denormals-are-zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tolerance {
    /// Bit for bit (ints, pred, bit ops, + - * /, conversions); any NaN matches any NaN.
    Exact,
    /// Floats within `n` ulps of each other; NaN matches NaN, an infinity only the same
    /// infinity, -0 and +0 are 0 ulps apart. Complex: both components within `n` ulps of the
    /// larger component of XLA's value (normwise; per component when one is not finite).
    /// Non-floats: exact.
    Ulp(u64),
    /// Sums and dot products: within the forward-error bound of the case's computation
    /// evaluated in f64 (see [`crate::forward`]), whatever the summation order. Needs the
    /// computation and its arguments: harnesses check it with [`crate::check_forward`];
    /// [`check_close`] refuses it.
    Forward,
}

/// Position of `x` on the line of floats ordered by value, from the sign-magnitude `bits` of a
/// float of `width` bits: consecutive floats are consecutive integers, and -0 and +0 both 0.
fn ordinal(bits: u64, width: u32) -> i128 {
    let sign = 1u64 << (width - 1);
    let mag = (bits & (sign - 1)) as i128;
    if bits & sign != 0 {
        -mag
    } else {
        mag
    }
}

/// Distance in ulps between two floats given as bits; `None` when exactly one is NaN.
/// `Some(0)` for two NaNs.
fn ulps(a: u64, b: u64, a_nan: bool, b_nan: bool, width: u32) -> Option<u64> {
    match (a_nan, b_nan) {
        (true, true) => Some(0),
        (true, false) | (false, true) => None,
        (false, false) => Some((ordinal(a, width) - ordinal(b, width)).unsigned_abs() as u64),
    }
}

/// One element compared: `Ok(ulps)` (0 for equal non-floats), or `Err(())` when the elements
/// differ in a way no tolerance accepts (different ints, NaN vs number, not bit-equal under
/// `Exact`).
struct Elem {
    ours: String,
    xla: String,
    /// Max component distance in ulps (`u64::MAX` for NaN vs number or unequal non-floats).
    ulps: u64,
    /// True when bit-equal (or both NaN).
    exact: bool,
}

/// `(ulps, exact)` of our float `a` against XLA's `b`: bits of a float of `w` bits with `m`
/// mantissa bits.
fn float_elem(a: u64, b: u64, an: bool, bn: bool, (w, m): (u32, u32)) -> (u64, bool) {
    if flushed(a, b, w, m) {
        return (0, true);
    }
    let u = ulps(a, b, an, bn, w).unwrap_or(u64::MAX);
    (u, a == b || (an && bn))
}

/// True when `a` is a nonzero subnormal and `b` the zero of its sign (XLA:CPU's flush-to-zero):
/// a subnormal has a zero exponent field, i.e. a magnitude below `1 << m`.
fn flushed(a: u64, b: u64, w: u32, m: u32) -> bool {
    let sign = 1u64 << (w - 1);
    let mag = a & (sign - 1);
    mag != 0 && mag < (1u64 << m) && b == (a & sign)
}

fn elem(ours: &ArrayData, xla: &ArrayData, i: usize) -> Option<Elem> {
    macro_rules! int {
        ($a:expr, $b:expr) => {{
            let (x, y) = ($a[i], $b[i]);
            Elem {
                ours: format!("{x}"),
                xla: format!("{y}"),
                ulps: if x == y { 0 } else { u64::MAX },
                exact: x == y,
            }
        }};
    }
    macro_rules! fl {
        ($a:expr, $b:expr, $w:expr, $bits:expr, $nan:expr) => {{
            let (x, y) = ($a[i], $b[i]);
            let (ulps, exact) = float_elem($bits(x), $bits(y), $nan(x), $nan(y), $w);
            Elem {
                ours: format!("{x:?}"),
                xla: format!("{y:?}"),
                ulps,
                exact,
            }
        }};
    }
    macro_rules! cx {
        ($a:expr, $b:expr, $w:expr, $bits:expr, $f:ty) => {{
            let (x, y) = ($a[i], $b[i]);
            let (ur, er) = float_elem($bits(x.re), $bits(y.re), x.re.is_nan(), y.re.is_nan(), $w);
            let (ui, ei) = float_elem($bits(x.im), $bits(y.im), x.im.is_nan(), y.im.is_nan(), $w);
            let ulps = normwise(
                [x.re as f64, x.im as f64],
                [y.re as f64, y.im as f64],
                <$f>::EPSILON as f64,
                <$f>::MIN_POSITIVE as f64,
            )
            .unwrap_or(ur.max(ui));
            Elem {
                ours: format!("{x:?}"),
                xla: format!("{y:?}"),
                ulps,
                exact: er && ei,
            }
        }};
    }
    Some(match (ours, xla) {
        (ArrayData::Pred(a), ArrayData::Pred(b)) => int!(a, b),
        (ArrayData::S8(a), ArrayData::S8(b)) => int!(a, b),
        (ArrayData::S16(a), ArrayData::S16(b)) => int!(a, b),
        (ArrayData::S32(a), ArrayData::S32(b)) => int!(a, b),
        (ArrayData::S64(a), ArrayData::S64(b)) => int!(a, b),
        (ArrayData::U8(a), ArrayData::U8(b)) => int!(a, b),
        (ArrayData::U16(a), ArrayData::U16(b)) => int!(a, b),
        (ArrayData::U32(a), ArrayData::U32(b)) => int!(a, b),
        (ArrayData::U64(a), ArrayData::U64(b)) => int!(a, b),
        (ArrayData::F16(a), ArrayData::F16(b)) => fl!(
            a,
            b,
            (16, 10),
            |x: half::f16| x.to_bits() as u64,
            |x: half::f16| x.is_nan()
        ),
        (ArrayData::Bf16(a), ArrayData::Bf16(b)) => {
            fl!(
                a,
                b,
                (16, 7),
                |x: half::bf16| x.to_bits() as u64,
                |x: half::bf16| x.is_nan()
            )
        }
        (ArrayData::F32(a), ArrayData::F32(b)) => {
            fl!(a, b, (32, 23), |x: f32| x.to_bits() as u64, |x: f32| x
                .is_nan())
        }
        (ArrayData::F64(a), ArrayData::F64(b)) => {
            fl!(a, b, (64, 52), |x: f64| x.to_bits(), |x: f64| x.is_nan())
        }
        (ArrayData::C64(a), ArrayData::C64(b)) => {
            cx!(a, b, (32, 23), |x: f32| x.to_bits() as u64, f32)
        }
        (ArrayData::C128(a), ArrayData::C128(b)) => cx!(a, b, (64, 52), |x: f64| x.to_bits(), f64),
        _ => return None,
    })
}

/// The largest element distance in ulps between two array literals of the same shape (0 when
/// bit-equal; `u64::MAX` when a NaN meets a number or integers differ); `Err` on a shape
/// mismatch. Used to measure the bounds that tests then assert.
pub fn max_ulps(ours: &Literal, xla: &Literal) -> Result<u64, String> {
    let (a, b) = arrays(ours, xla)?;
    Ok((0..a.len())
        .filter_map(|i| elem(a, b, i))
        .map(|e| e.ulps)
        .max()
        .unwrap_or(0))
}

fn arrays<'a>(
    ours: &'a Literal,
    xla: &'a Literal,
) -> Result<(&'a ArrayData, &'a ArrayData), String> {
    match (ours.as_array(), xla.as_array()) {
        (Some((sa, a)), Some((sb, b)))
            if sa.ty == sb.ty && sa.dims == sb.dims && a.len() == b.len() =>
        {
            Ok((a, b))
        }
        _ => Err(format!(
            "shapes differ: ours {} vs XLA {}",
            ours.shape(),
            xla.shape()
        )),
    }
}

/// `Ok` when `ours` matches `xla` within `tol` (tuples element by element); otherwise a message
/// naming the case, the first mismatching index, both values and their ulp distance.
pub fn check_close(
    name: &str,
    ours: &Literal,
    xla: &Literal,
    tol: Tolerance,
) -> Result<(), String> {
    if let (Literal::Tuple(a), Literal::Tuple(b)) = (ours, xla) {
        if a.len() != b.len() {
            return Err(format!(
                "{name}: tuple of {} vs XLA tuple of {}",
                a.len(),
                b.len()
            ));
        }
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            check_close(&format!("{name}.{k}"), x, y, tol)?;
        }
        return Ok(());
    }
    if tol == Tolerance::Forward {
        return Err(format!(
            "{name}: a forward-error tolerance needs the computation: use check_forward"
        ));
    }
    let (a, b) = arrays(ours, xla).map_err(|e| format!("{name}: {e}"))?;
    let (dims, _) = ours
        .as_array()
        .map(|(s, d)| (s.dims.clone(), d))
        .ok_or_else(|| format!("{name}: not an array"))?;
    let mut bad = 0usize;
    let mut first = None;
    let mut worst: Option<(usize, Elem)> = None;
    for i in 0..a.len() {
        let Some(e) = elem(a, b, i) else { continue };
        let ok = match tol {
            Tolerance::Exact => e.exact,
            Tolerance::Ulp(n) => e.ulps <= n,
            Tolerance::Forward => false,
        };
        if !ok {
            bad += 1;
            if first.is_none() {
                first = Some((
                    i,
                    Elem {
                        ours: e.ours.clone(),
                        xla: e.xla.clone(),
                        ulps: e.ulps,
                        exact: e.exact,
                    },
                ));
            }
            if worst.as_ref().is_none_or(|(_, w)| e.ulps > w.ulps) {
                worst = Some((i, e));
            }
        }
    }
    let describe = |i: usize, e: &Elem| {
        let dist = if e.ulps == u64::MAX {
            "not comparable".to_string()
        } else {
            format!("{} ulp", e.ulps)
        };
        format!(
            "index {:?} (linear {i}): ours {} vs XLA {} ({dist})",
            unravel(i, &dims),
            e.ours,
            e.xla
        )
    };
    match (first, worst) {
        (Some((i, e)), Some((wi, we))) => {
            let mut msg = format!(
                "{name} ({}): {bad} of {} elements differ beyond {tol:?}; first at {}",
                ours.shape(),
                a.len(),
                describe(i, &e)
            );
            if wi != i {
                msg.push_str(&format!("; worst at {}", describe(wi, &we)));
            }
            Err(msg)
        }
        _ => Ok(()),
    }
}

/// Panics with [`check_close`]'s message when `ours` and `xla` differ beyond `tol`.
pub fn assert_close(name: &str, ours: &Literal, xla: &Literal, tol: Tolerance) {
    if let Err(e) = check_close(name, ours, xla, tol) {
        panic!("{e}");
    }
}

/// Normwise distance of two finite complex numbers, in ulps of XLA's larger component:
/// `max(|re - re'|, |im - im'|) / ulp(max(|re'|, |im'|))`, where `ulp(v)` is `eps * 2^floor(log2 v)`
/// (the spacing of floats at `v`, at least that of the smallest normal). Complex functions are
/// accurate relative to the modulus, not per component: a component much smaller than the other
/// carries an absolute error of the modulus' size. `None` when a component is not finite.
fn normwise(ours: [f64; 2], xla: [f64; 2], eps: f64, min_normal: f64) -> Option<u64> {
    if ours.iter().chain(&xla).any(|v| !v.is_finite()) {
        return None;
    }
    let scale = xla[0].abs().max(xla[1].abs()).max(min_normal);
    let ulp = eps * 2f64.powi(scale.log2().floor() as i32);
    let err = (ours[0] - xla[0]).abs().max((ours[1] - xla[1]).abs());
    Some((err / ulp).ceil() as u64)
}

/// Row-major multi-index of linear index `i`.
fn unravel(mut i: usize, dims: &[i64]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for (k, &d) in dims.iter().enumerate().rev() {
        let d = d.max(1) as usize;
        idx[k] = i % d;
        i /= d;
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps_cross_zero_and_match_nans() {
        let a = Literal::from_vec(&[4], vec![1.0f32, -0.0, f32::NAN, f32::INFINITY]).unwrap();
        let b = Literal::from_vec(
            &[4],
            vec![
                f32::from_bits(1.0f32.to_bits() + 2),
                0.0,
                -f32::NAN,
                f32::INFINITY,
            ],
        )
        .unwrap();
        assert_eq!(max_ulps(&a, &b), Ok(2));
        assert!(check_close("t", &a, &b, Tolerance::Ulp(2)).is_ok());
        let e = check_close("t", &a, &b, Tolerance::Ulp(1)).unwrap_err();
        assert!(e.contains("index [0]") && e.contains("2 ulp"), "{e}");
        // Exact: -0 vs +0 differ, NaN vs NaN match.
        let e = check_close("t", &a, &b, Tolerance::Exact).unwrap_err();
        assert!(e.contains("2 of 4"), "{e}");
        // A subnormal of ours against XLA's flushed zero of the same sign matches.
        let sub = Literal::from_vec(&[2], vec![f32::from_bits(5), -f32::from_bits(5)]).unwrap();
        let flushed = Literal::from_vec(&[2], vec![0.0f32, -0.0]).unwrap();
        assert!(check_close("ftz", &sub, &flushed, Tolerance::Exact).is_ok());
        let wrong_sign = Literal::from_vec(&[2], vec![-0.0f32, 0.0]).unwrap();
        assert!(check_close("ftz", &sub, &wrong_sign, Tolerance::Exact).is_err());
        let tiny = Literal::from_vec(&[1], vec![f32::from_bits(1)]).unwrap();
        let ntiny = Literal::from_vec(&[1], vec![-f32::from_bits(1)]).unwrap();
        assert_eq!(max_ulps(&tiny, &ntiny), Ok(2));
    }

    #[test]
    fn complex_ulps_are_normwise() {
        use num_complex::Complex;
        // An error of 3 ulps of 1000 on a component of 1e-6 next to a component of 1000 counts
        // as 3 ulps (per component it would be billions).
        let big = 1000.0f64;
        let ulp = f64::EPSILON * 512.0; // spacing at 1000 (2^9 <= 1000 < 2^10)
        let a = Literal::from_vec(&[1], vec![Complex::new(big, 1e-6)]).unwrap();
        let b = Literal::from_vec(&[1], vec![Complex::new(big, 1e-6 + 3.0 * ulp)]).unwrap();
        assert_eq!(max_ulps(&a, &b), Ok(3));
        let c = Literal::from_vec(&[1], vec![Complex::new(f64::INFINITY, 0.0)]).unwrap();
        assert_eq!(max_ulps(&c, &c), Ok(0));
    }

    #[test]
    fn nan_against_number_and_int_mismatch_fail_with_the_index() {
        let a = Literal::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, f64::NAN]).unwrap();
        let b = Literal::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
        let e = check_close("nan", &a, &b, Tolerance::Ulp(1000)).unwrap_err();
        assert!(
            e.contains("[1, 1]") && e.contains("NaN") && e.contains("not comparable"),
            "{e}"
        );
        let i = Literal::from_vec(&[3], vec![1u8, 2, 3]).unwrap();
        let j = Literal::from_vec(&[3], vec![1u8, 2, 4]).unwrap();
        assert!(check_close("u8", &i, &j, Tolerance::Ulp(5)).is_err());
        let k = Literal::from_vec(&[3], vec![1i8, 2, 3]).unwrap();
        assert!(check_close("ty", &i, &k, Tolerance::Exact)
            .unwrap_err()
            .contains("shapes differ"));
    }
}
