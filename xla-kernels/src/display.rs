//! numpy-style printing of arrays (`str(np.array(...))` with numpy's default print options:
//! precision 8, `floatmode='maxprec'`, threshold 1000, edgeitems 3, linewidth 75).
//!
//! Floats are printed with the shortest digits that identify the value in its own type (so
//! `f32` 0.1 prints as `0.1`), at most 8 fractional digits, padded so the decimal points line
//! up; scientific notation when a non-zero magnitude is `< 1e-4`, `>= 1e8`, or the largest is
//! more than 1000 times the smallest, as numpy decides.

use half::{bf16, f16};
use num_complex::Complex;
use xla_core::ArrayData;

const PRECISION: usize = 8;
const THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;
const LINE_WIDTH: usize = 75;

/// Renders row-major `data` of dimensions `dims` as numpy's `str()` does: `[[1. 2.]\n [3. 4.]]`.
/// An array with no elements prints as `[]`; a rank-0 array as its bare element. If `data`
/// holds fewer elements than `dims` requires, the missing ones print as `?`.
pub fn format_array(dims: &[usize], data: &ArrayData) -> String {
    let size: usize = dims.iter().product();
    if size == 0 {
        return "[]".to_string();
    }
    let summarise = size > THRESHOLD;
    let mut shown = Vec::new();
    collect_shown(dims, summarise, 0, 0, &mut shown);
    let words = match data {
        ArrayData::Pred(v) => {
            let w: Vec<String> = pick(v, &shown)
                .map(|b| bool_word(b, dims.is_empty()))
                .collect();
            w
        }
        ArrayData::S8(v) => int_words(pick(v, &shown).map(i128::from)),
        ArrayData::S16(v) => int_words(pick(v, &shown).map(i128::from)),
        ArrayData::S32(v) => int_words(pick(v, &shown).map(i128::from)),
        ArrayData::S64(v) => int_words(pick(v, &shown).map(i128::from)),
        ArrayData::U8(v) => int_words(pick(v, &shown).map(i128::from)),
        ArrayData::U16(v) => int_words(pick(v, &shown).map(i128::from)),
        ArrayData::U32(v) => int_words(pick(v, &shown).map(i128::from)),
        ArrayData::U64(v) => int_words(pick(v, &shown).map(i128::from)),
        ArrayData::F16(v) => {
            float_words(&pick(v, &shown).map(Dec::of_f16).collect::<Vec<_>>(), false)
        }
        ArrayData::Bf16(v) => float_words(
            &pick(v, &shown).map(Dec::of_bf16).collect::<Vec<_>>(),
            false,
        ),
        ArrayData::F32(v) => {
            float_words(&pick(v, &shown).map(Dec::of_f32).collect::<Vec<_>>(), false)
        }
        ArrayData::F64(v) => {
            float_words(&pick(v, &shown).map(Dec::of_f64).collect::<Vec<_>>(), false)
        }
        ArrayData::C64(v) => complex_words(
            pick(v, &shown)
                .map(|c: Complex<f32>| (Dec::of_f32(c.re), Dec::of_f32(c.im)))
                .collect(),
        ),
        ArrayData::C128(v) => complex_words(
            pick(v, &shown)
                .map(|c: Complex<f64>| (Dec::of_f64(c.re), Dec::of_f64(c.im)))
                .collect(),
        ),
    };
    // Elements beyond the data (inconsistent input) print as `?` rather than panicking.
    let mut words = words.into_iter().chain(std::iter::repeat("?".to_string()));
    if dims.is_empty() {
        return words.next().unwrap_or_default().trim_start().to_string();
    }
    render(dims, summarise, 0, " ", LINE_WIDTH, &mut words)
}

/// The values at the flat indices in `shown`, in that order (missing ones skipped).
fn pick<'a, T: Copy>(v: &'a [T], shown: &'a [usize]) -> impl Iterator<Item = T> + 'a {
    shown.iter().filter_map(move |&i| v.get(i).copied())
}

/// Flat row-major indices of the printed elements, in printing order: every element, or only
/// the first/last `EDGE_ITEMS` along each dimension longer than `2 * EDGE_ITEMS` when
/// summarising.
fn collect_shown(dims: &[usize], summarise: bool, depth: usize, base: usize, out: &mut Vec<usize>) {
    if depth == dims.len() {
        out.push(base);
        return;
    }
    let stride: usize = dims[depth + 1..].iter().product();
    for i in shown_range(dims[depth], summarise) {
        collect_shown(dims, summarise, depth + 1, base + i * stride, out);
    }
}

fn shown_range(n: usize, summarise: bool) -> Vec<usize> {
    if summarise && n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect()
    } else {
        (0..n).collect()
    }
}

/// numpy's `_formatArray` recursion: `hanging` is the indent of continuation lines, `width`
/// the line width left at this depth.
fn render(
    dims: &[usize],
    summarise: bool,
    depth: usize,
    hanging: &str,
    width: usize,
    words: &mut impl Iterator<Item = String>,
) -> String {
    let n = dims[depth];
    let show_summary = summarise && n > 2 * EDGE_ITEMS;
    let (leading, trailing) = if show_summary {
        (EDGE_ITEMS, EDGE_ITEMS)
    } else {
        (n, 0)
    };
    let next_hanging = format!("{hanging} ");
    let next_width = width.saturating_sub(1);
    let axes_left = dims.len() - depth;
    let mut s = String::new();
    if axes_left == 1 {
        // The last element may reach the closing bracket's column, the others stop before it.
        let elem_width = width.saturating_sub(1);
        let mut line = hanging.to_string();
        let count = leading + trailing;
        for i in 0..count {
            if show_summary && i == leading {
                extend_line(&mut s, &mut line, "...", elem_width, hanging);
                line.push(' ');
            }
            let word = words.next().unwrap_or_default();
            extend_line(&mut s, &mut line, &word, elem_width, hanging);
            if i + 1 < count {
                line.push(' ');
            }
        }
        s.push_str(&line);
    } else {
        let line_sep = "\n".repeat(axes_left - 1);
        let count = leading + trailing;
        for i in 0..count {
            if show_summary && i == leading {
                s.push_str(hanging);
                s.push_str("...");
                s.push_str(&line_sep);
            }
            let nested = render(dims, summarise, depth + 1, &next_hanging, next_width, words);
            s.push_str(hanging);
            s.push_str(&nested);
            if i + 1 < count {
                s.push_str(&line_sep);
            }
        }
    }
    format!("[{}]", &s[hanging.len().min(s.len())..])
}

/// numpy's `_extendLine`: wraps before `word` when the line would exceed `width`, unless the
/// line holds only the indent (wrapping would not help).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, indent: &str) {
    if line.len() + word.len() > width && line.len() > indent.len() {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = indent.to_string();
    }
    line.push_str(word);
}

fn bool_word(b: bool, scalar: bool) -> String {
    match (b, scalar) {
        (true, true) => "True".into(),
        (true, false) => " True".into(),
        (false, _) => "False".into(),
    }
}

fn int_words(values: impl Iterator<Item = i128>) -> Vec<String> {
    let strs: Vec<String> = values.map(|v| v.to_string()).collect();
    let w = strs.iter().map(String::len).max().unwrap_or(0);
    strs.into_iter().map(|s| format!("{s:>w$}")).collect()
}

/// A float as sign, shortest significant digits and decimal exponent: value =
/// `d0.d1d2... * 10^exp`; `None` for NaN/inf (kept in `special`).
#[derive(Clone, Debug)]
struct Dec {
    neg: bool,
    /// Shortest digits identifying the value in its type (`"0"` for zero).
    digits: String,
    exp: i32,
    /// The value widened to f64, for correctly rounded output when digits must be cut.
    value: f64,
    /// `Some("nan")`, `Some("inf")` for non-finite values.
    special: Option<&'static str>,
}

impl Dec {
    /// From Rust's shortest `{:e}` rendering (`-1.5e-5`) of a finite value.
    fn from_sci(s: &str, value: f64) -> Dec {
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
        let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
        let digits = if digits.trim_start_matches('0').is_empty() {
            "0".to_string()
        } else {
            digits
        };
        Dec {
            neg,
            digits,
            exp: exp.parse().unwrap_or(0),
            value,
            special: None,
        }
    }

    fn nonfinite(value: f64) -> Option<Dec> {
        if value.is_nan() {
            Some(Dec {
                neg: false,
                digits: String::new(),
                exp: 0,
                value,
                special: Some("nan"),
            })
        } else if value.is_infinite() {
            let neg = value < 0.0;
            Some(Dec {
                neg,
                digits: String::new(),
                exp: 0,
                value,
                special: Some("inf"),
            })
        } else {
            None
        }
    }

    fn of_f64(v: f64) -> Dec {
        Self::nonfinite(v).unwrap_or_else(|| Self::from_sci(&format!("{v:e}"), v))
    }

    fn of_f32(v: f32) -> Dec {
        let w = f64::from(v);
        Self::nonfinite(w).unwrap_or_else(|| Self::from_sci(&format!("{v:e}"), w))
    }

    /// Shortest digits for a narrow type: the fewest significant digits that convert back to
    /// the same value (`back` converts an f64 to the narrow type and compares).
    fn of_narrow(w: f64, back: impl Fn(f64) -> bool) -> Dec {
        if let Some(d) = Self::nonfinite(w) {
            return d;
        }
        for p in 0..17 {
            let s = format!("{w:.p$e}");
            if s.parse::<f64>().is_ok_and(&back) {
                return Self::from_sci(&s, w);
            }
        }
        Self::of_f64(w)
    }

    fn of_f16(v: f16) -> Dec {
        Self::of_narrow(v.to_f64(), |x| f16::from_f64(x).to_bits() == v.to_bits())
    }

    fn of_bf16(v: bf16) -> Dec {
        Self::of_narrow(v.to_f64(), |x| bf16::from_f64(x).to_bits() == v.to_bits())
    }

    fn is_zero(&self) -> bool {
        self.special.is_none() && self.digits == "0"
    }

    fn sign(&self, plus: bool) -> &'static str {
        match (self.neg, plus) {
            (true, _) => "-",
            (false, true) => "+",
            (false, false) => "",
        }
    }

    /// Positional `(int, frac)` with at most `PRECISION` fractional digits, trailing zeros
    /// trimmed (numpy `trim='.'`); the sign is part of `int`.
    fn positional(&self, plus: bool) -> (String, String) {
        let nd = self.digits.len() as i32;
        let frac_needed = (nd - 1 - self.exp).max(0) as usize;
        let (int, frac) = if frac_needed > PRECISION {
            // Too many digits: round the exact value to PRECISION places, then trim zeros.
            let s = format!("{:.*}", PRECISION, self.value.abs());
            let (i, f) = s.split_once('.').unwrap_or((&s, ""));
            (i.to_string(), f.trim_end_matches('0').to_string())
        } else if self.exp >= 0 {
            let e = self.exp as usize;
            let mut int: String = self.digits.chars().take(e + 1).collect();
            while int.len() < e + 1 {
                int.push('0');
            }
            (int, self.digits.chars().skip(e + 1).collect())
        } else {
            let zeros = "0".repeat((-self.exp - 1) as usize);
            ("0".to_string(), format!("{zeros}{}", self.digits))
        };
        (format!("{}{int}", self.sign(plus)), frac)
    }

    /// Scientific `(int, frac, exp)` with at most `PRECISION` fractional digits, trailing
    /// zeros trimmed; the sign is part of `int`.
    fn scientific(&self, plus: bool) -> (String, String, i32) {
        if self.digits.len() - 1 > PRECISION {
            let s = format!("{:.*e}", PRECISION, self.value.abs());
            let d = Dec::from_sci(&s, self.value);
            let frac = d.digits[1..].trim_end_matches('0').to_string();
            return (
                format!("{}{}", self.sign(plus), &d.digits[..1]),
                frac,
                d.exp,
            );
        }
        let int = format!("{}{}", self.sign(plus), &self.digits[..1]);
        (
            int,
            self.digits[1..].to_string(),
            if self.is_zero() { 0 } else { self.exp },
        )
    }
}

/// numpy's `FloatingFormat` for one array: decides notation and padding from the shown values,
/// then renders each. `plus` forces a `+` on non-negative values (imaginary parts).
fn float_words(values: &[Dec], plus: bool) -> Vec<String> {
    let finite: Vec<&Dec> = values.iter().filter(|d| d.special.is_none()).collect();
    let nonzero: Vec<f64> = finite
        .iter()
        .filter(|d| !d.is_zero())
        .map(|d| d.value.abs())
        .collect();
    let exp_format = !nonzero.is_empty() && {
        let max = nonzero.iter().cloned().fold(f64::MIN, f64::max);
        let min = nonzero.iter().cloned().fold(f64::MAX, f64::min);
        max >= 1e8 || min < 1e-4 || max / min > 1000.0
    };
    let mut out = Vec::with_capacity(values.len());
    if exp_format {
        let parts: Vec<(String, String, i32)> = finite.iter().map(|d| d.scientific(plus)).collect();
        let precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        let exp_size = parts
            .iter()
            .map(|p| p.2.unsigned_abs().to_string().len().max(2))
            .max()
            .unwrap_or(2);
        let pad_right = exp_size + 2 + precision;
        let pad_left = widen_for_nonfinite(
            values,
            plus,
            parts.iter().map(|p| p.0.len()).max(),
            pad_right,
        );
        let mut it = parts.into_iter();
        for d in values {
            if let Some(sp) = d.special {
                out.push(nonfinite_word(d, sp, plus, pad_left, pad_right));
                continue;
            }
            let (mut int, mut frac, mut e) = it.next().unwrap_or_default();
            if frac.len() < precision && !d.is_zero() {
                // numpy's `min_digits`: extra digits come from the exact binary value, not zeros.
                let exact = Dec::from_sci(&format!("{:.*e}", precision, d.value), d.value);
                (int, frac, e) = (
                    format!("{}{}", d.sign(plus), &exact.digits[..1]),
                    exact.digits[1..].to_string(),
                    exact.exp,
                );
            }
            let es = if e < 0 { '-' } else { '+' };
            let ed = e.unsigned_abs();
            out.push(format!(
                "{int:>pad_left$}.{frac:0<precision$}e{es}{ed:0>exp_size$}"
            ));
        }
    } else {
        let parts: Vec<(String, String)> = finite.iter().map(|d| d.positional(plus)).collect();
        let pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        let pad_left = widen_for_nonfinite(
            values,
            plus,
            parts.iter().map(|p| p.0.len()).max(),
            pad_right,
        );
        let mut it = parts.into_iter();
        for d in values {
            if let Some(sp) = d.special {
                out.push(nonfinite_word(d, sp, plus, pad_left, pad_right));
                continue;
            }
            let (int, frac) = it.next().unwrap_or_default();
            out.push(format!("{int:>pad_left$}.{frac:<pad_right$}"));
        }
    }
    out
}

/// numpy widens `pad_left` so `nan`/`inf`/`-inf` fit in `pad_left + 1 + pad_right` columns.
fn widen_for_nonfinite(
    values: &[Dec],
    plus: bool,
    pad_left: Option<usize>,
    pad_right: usize,
) -> usize {
    let pad_left = pad_left.unwrap_or(0);
    if values.iter().all(|d| d.special.is_none()) {
        return pad_left;
    }
    let neg_inf = plus || values.iter().any(|d| d.special == Some("inf") && d.neg);
    let offset = pad_right + 1;
    pad_left
        .max(3usize.saturating_sub(offset))
        .max((3 + usize::from(neg_inf)).saturating_sub(offset))
}

/// `nan`/`inf`/`-inf`, right-aligned to the width of the finite values (numpy widens
/// `pad_left` so these fit).
fn nonfinite_word(d: &Dec, sp: &str, plus: bool, pad_left: usize, pad_right: usize) -> String {
    let sign = if sp == "nan" {
        if plus {
            "+"
        } else {
            ""
        }
    } else {
        d.sign(plus)
    };
    let word = format!("{sign}{sp}");
    let w = pad_left + pad_right + 1;
    format!("{word:>w$}")
}

/// numpy's `ComplexFloatingFormat`: real and imaginary parts formatted as two float arrays
/// (the imaginary one with a forced sign), joined as `re+imj` with the `j` before any padding.
fn complex_words(values: Vec<(Dec, Dec)>) -> Vec<String> {
    let (re, im): (Vec<Dec>, Vec<Dec>) = values.into_iter().unzip();
    let re = float_words(&re, false);
    let im = float_words(&im, true);
    re.into_iter()
        .zip(im)
        .map(|(r, i)| {
            let t = i.trim_end();
            format!("{r}{t}j{}", &i[t.len()..])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(dims: &[usize], v: &[f32]) -> String {
        format_array(dims, &ArrayData::F32(v.to_vec()))
    }

    // Expected strings are numpy 2.x `str(np.array(...))` outputs.
    #[test]
    fn floats_like_numpy() {
        assert_eq!(
            f32s(&[2, 3], &[1., 2., 3., 4., 5., 6.]),
            "[[1. 2. 3.]\n [4. 5. 6.]]"
        );
        assert_eq!(f32s(&[3], &[1.5, 2.0, 3.25]), "[1.5  2.   3.25]");
        assert_eq!(f32s(&[3], &[0.1, -2.0, 10.0]), "[ 0.1 -2.  10. ]");
        assert_eq!(f32s(&[2], &[1e-5, 1.0]), "[1.e-05 1.e+00]");
        assert_eq!(f32s(&[2], &[1.5e-5, 1.0]), "[1.5e-05 1.0e+00]");
        assert_eq!(
            f32s(&[3], &[f32::NAN, 1.0, f32::NEG_INFINITY]),
            "[ nan   1. -inf]"
        );
        assert_eq!(f32s(&[1], &[0.123_456_79]), "[0.12345679]");
        assert_eq!(f32s(&[], &[2.5]), "2.5");
        let d = format_array(&[4], &ArrayData::F64(vec![1e10, -1.0, 0.0, f64::NAN]));
        assert_eq!(d, "[ 1.e+10 -1.e+00  0.e+00     nan]");
        let d = format_array(&[2], &ArrayData::F64(vec![-0.0, 1.25e-7]));
        assert_eq!(d, "[-0.00e+00  1.25e-07]");
        let c = vec![
            Complex::new(1.0, 2.0),
            Complex::new(f64::NAN, 1.0),
            Complex::new(0.0, 1e-7),
        ];
        assert_eq!(
            format_array(&[3], &ArrayData::C128(c)),
            "[ 1.+2.e+00j nan+1.e+00j  0.+1.e-07j]"
        );
        assert_eq!(f32s(&[0, 3], &[]), "[]");
        let d = format_array(&[2], &ArrayData::F64(vec![1.0 / 3.0, 2.0]));
        assert_eq!(d, "[0.33333333 2.        ]");
        let h = format_array(&[1], &ArrayData::F16(vec![f16::from_f32(0.1)]));
        assert_eq!(h, "[0.1]");
    }

    #[test]
    fn rank3_blank_lines() {
        let v: Vec<f32> = (0..8).map(|i| i as f32).collect();
        assert_eq!(
            f32s(&[2, 2, 2], &v),
            "[[[0. 1.]\n  [2. 3.]]\n\n [[4. 5.]\n  [6. 7.]]]"
        );
    }

    #[test]
    fn ints_bools_complex() {
        let i = format_array(&[2, 2], &ArrayData::S32(vec![1, -20, 300, 4]));
        assert_eq!(i, "[[  1 -20]\n [300   4]]");
        let b = format_array(&[2], &ArrayData::Pred(vec![true, false]));
        assert_eq!(b, "[ True False]");
        let c = format_array(
            &[2],
            &ArrayData::C64(vec![Complex::new(1.0, 2.0), Complex::new(3.5, -4.0)]),
        );
        assert_eq!(c, "[1. +2.j 3.5-4.j]");
    }

    #[test]
    fn summarised_and_wrapped() {
        let v: Vec<i32> = (0..2000).collect();
        assert_eq!(
            format_array(&[2000], &ArrayData::S32(v)),
            "[   0    1    2 ... 1997 1998 1999]"
        );
        let v: Vec<i32> = (0..40).collect();
        let s = format_array(&[40], &ArrayData::S32(v));
        assert_eq!(
            s,
            "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39]"
        );
        let v: Vec<f32> = (0..3000).map(|i| i as f32 / 7.0).collect();
        let s = f32s(&[10, 300], &v);
        assert_eq!(
            s,
            "[[0.0000000e+00 1.4285715e-01 2.8571430e-01 ... 4.2428570e+01\n  4.2571430e+01 4.2714287e+01]\n [4.2857143e+01 4.3000000e+01 4.3142857e+01 ... 8.5285713e+01\n  8.5428574e+01 8.5571426e+01]\n [8.5714287e+01 8.5857140e+01 8.6000000e+01 ... 1.2814285e+02\n  1.2828572e+02 1.2842857e+02]\n ...\n [3.0000000e+02 3.0014285e+02 3.0028571e+02 ... 3.4242856e+02\n  3.4257144e+02 3.4271429e+02]\n [3.4285715e+02 3.4300000e+02 3.4314285e+02 ... 3.8528571e+02\n  3.8542856e+02 3.8557144e+02]\n [3.8571429e+02 3.8585715e+02 3.8600000e+02 ... 4.2814285e+02\n  4.2828571e+02 4.2842856e+02]]"
        );
        let v: Vec<i32> = (0..1200).collect();
        let s = format_array(&[400, 3], &ArrayData::S32(v));
        assert_eq!(
            s,
            "[[   0    1    2]\n [   3    4    5]\n [   6    7    8]\n ...\n [1191 1192 1193]\n [1194 1195 1196]\n [1197 1198 1199]]"
        );
    }
}
