//! The reference evaluator of `Fft`: the defining sums, one axis at a time, in f64.
//!
//! Along one axis of length `n`, `y[k] = s * sum_j x[j] w^(jk)` with `w = e^(-2 pi i / n)`
//! (forward) or `e^(2 pi i / n)` and `s = 1/n` (inverse). The twiddle of `jk` is read from a
//! table of `w^m`, `m = jk mod n`, each entry computed from its own angle (no accumulated
//! rotation), and each sum is added pairwise, so the error stays `O(eps log n)` for any `n`,
//! primes included, at `O(n^2)` cost per line: a reference, not a fast path.
//!
//! RFFT is the complex transform of the real input with the innermost axis cut to `n/2 + 1`;
//! IRFFT inverts the outer axes first, then rebuilds the innermost spectrum from its `n/2 + 1`
//! bins (`X[n - k] = conj(X[k])`, the imaginary parts of bin 0 and, for even `n`, bin `n/2`
//! dropped, as XLA:CPU's complex-to-real transform) and keeps the real part.

use num_complex::Complex;

use super::{array, dims_usize, Ctx};
use crate::element::ElementType;
use crate::error::Result;
use crate::ir::FftType;
use crate::literal::{ArrayData, Literal};

type C = Complex<f64>;

/// `Fft(operand)` of `fft_type` over the `fft_length.len()` innermost axes.
pub(super) fn fft(
    ctx: &Ctx<'_>,
    operand: &Literal,
    fft_type: FftType,
    fft_length: &[i64],
) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let out = ctx.out_array()?.clone();
    let dims = dims_usize(ctx, &shape.dims)?;
    let lens = dims_usize(ctx, fft_length)?;
    let l = lens.len();
    if l == 0 || l > dims.len() {
        return Err(ctx.err(format!(
            "fft_length {fft_length:?} does not fit the operand {shape}"
        )));
    }
    let mut x: Vec<C> = match data {
        ArrayData::F32(v) => v.iter().map(|&r| C::new(f64::from(r), 0.0)).collect(),
        ArrayData::F64(v) => v.iter().map(|&r| C::new(r, 0.0)).collect(),
        ArrayData::C64(v) => v
            .iter()
            .map(|z| C::new(f64::from(z.re), f64::from(z.im)))
            .collect(),
        ArrayData::C128(v) => v.clone(),
        other => {
            return Err(ctx.err(format!(
                "{} operands have no Fourier transform",
                other.element_type()
            )))
        }
    };
    let rank = dims.len();
    let mut cur = dims.clone();
    let inverse = fft_type.is_inverse();
    // Axes outermost first; RFFT/FFT/IFFT take them in any order, IRFFT needs the innermost
    // (complex to real) last.
    for (a, &n) in lens.iter().enumerate() {
        let axis = rank - l + a;
        if fft_type == FftType::Irfft && a == l - 1 {
            x = irfft_innermost(&x, &cur, n);
            cur[axis] = n;
        } else {
            x = dft_axis(&x, &cur, axis, inverse);
        }
    }
    if fft_type == FftType::Rfft {
        let n = lens[l - 1];
        let keep = if n == 0 { 0 } else { n / 2 + 1 };
        x = x
            .chunks(n.max(1))
            .flat_map(|row| &row[..keep])
            .copied()
            .collect();
    }
    let data = match out.ty {
        ElementType::C64 => ArrayData::C64(
            x.iter()
                .map(|z| Complex::new(z.re as f32, z.im as f32))
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(x),
        ElementType::F32 => ArrayData::F32(x.iter().map(|z| z.re as f32).collect()),
        ElementType::F64 => ArrayData::F64(x.iter().map(|z| z.re).collect()),
        t => return Err(ctx.err(format!("an {t} result of an Fft"))),
    };
    if data.len() as i64 != out.element_count() {
        return Err(ctx.err(format!("{} results for the result shape {out}", data.len())));
    }
    Ok(Literal::Array { shape: out, data })
}

/// `w^m` for `m < n`: `e^(-2 pi i m / n)` forward, `e^(2 pi i m / n)` inverse.
fn twiddles(n: usize, inverse: bool) -> Vec<C> {
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|m| {
            let t = sign * 2.0 * std::f64::consts::PI * m as f64 / n as f64;
            C::new(t.cos(), t.sin())
        })
        .collect()
}

/// Pairwise sum: error `O(eps log n)` instead of a running sum's `O(eps n)`.
fn pairwise(v: &[C]) -> C {
    if v.len() <= 4 {
        return v.iter().sum();
    }
    let (a, b) = v.split_at(v.len() / 2);
    pairwise(a) + pairwise(b)
}

/// The DFT of one line `x` into `y` (scaled by `1/n` when inverse).
fn dft_line(x: &[C], w: &[C], inverse: bool, terms: &mut Vec<C>, y: &mut [C]) {
    let n = x.len();
    let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
    for (k, yk) in y.iter_mut().enumerate() {
        terms.clear();
        terms.extend(x.iter().enumerate().map(|(j, &xj)| xj * w[(j * k) % n]));
        *yk = pairwise(terms) * scale;
    }
}

/// The DFT of every line of `x` (dims `dims`, row-major) along `axis`.
fn dft_axis(x: &[C], dims: &[usize], axis: usize, inverse: bool) -> Vec<C> {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let w = twiddles(n, inverse);
    let mut y = vec![C::new(0.0, 0.0); x.len()];
    let (mut line, mut out, mut terms) = (vec![C::default(); n], vec![C::default(); n], Vec::new());
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * n + j) * inner + i;
            for (j, v) in line.iter_mut().enumerate() {
                *v = x[at(j)];
            }
            dft_line(&line, &w, inverse, &mut terms, &mut out);
            for (j, v) in out.iter().enumerate() {
                y[at(j)] = *v;
            }
        }
    }
    y
}

/// The complex-to-real inverse along the innermost axis: rows of `dims[last]` bins of which
/// the first `n/2 + 1` are read, to rows of `n` samples (as complex with zero imaginary part).
fn irfft_innermost(x: &[C], dims: &[usize], n: usize) -> Vec<C> {
    let m = dims[dims.len() - 1];
    let rows: usize = dims[..dims.len() - 1].iter().product();
    let w = twiddles(n, true);
    let mut y = Vec::with_capacity(rows * n);
    let (mut full, mut out, mut terms) = (vec![C::default(); n], vec![C::default(); n], Vec::new());
    for r in 0..rows {
        let bins = &x[r * m..(r + 1) * m];
        for (k, v) in full.iter_mut().enumerate() {
            *v = if k <= n / 2 {
                bins[k]
            } else {
                bins[n - k].conj()
            };
        }
        if n > 0 {
            full[0].im = 0.0;
        }
        if n > 0 && n.is_multiple_of(2) {
            full[n / 2].im = 0.0;
        }
        dft_line(&full, &w, true, &mut terms, &mut out);
        y.extend(out.iter().map(|z| C::new(z.re, 0.0)));
    }
    y
}

#[cfg(test)]
mod tests;
