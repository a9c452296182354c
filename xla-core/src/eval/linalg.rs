//! `Cholesky` and `TriangularSolve`: textbook substitution in `Complex<f64>` (exact for f64 and
//! c128, more accurate than XLA for f32 and c64), one matrix of the two minor dims at a time.
//!
//! What XLA does beyond the maths (its CholeskyExpander, read for facts): only the `lower` (else
//! upper) triangle of `a` is read; the pivot is the square root of the real part of
//! `a_jj - sum_k |l_jk|^2`, and the whole column, diagonal included, is divided by it (so a
//! complex diagonal entry keeps its imaginary part, divided: XLA's unblocked step, which is
//! what XLA runs for n <= 128; past that XLA's blocked panel solve divides by that complex
//! diagonal, so for a non-Hermitian diagonal, where the spec leaves the result to the
//! implementation, ours and XLA's differ); `upper` factors the plain transpose `a^T` and
//! returns the transpose of that factor (`a = u^H u`); the other triangle of the result is
//! zero; a matrix whose pivot has a NaN square root (negative or NaN) is NaN everywhere (NaN
//! with imaginary part 0), its neighbours in the batch untouched.

use num_complex::Complex;

use super::{array, Ctx};
use crate::error::Result;
use crate::ir::TransposeA;
use crate::literal::{ArrayData, Literal};
use crate::shape::ArrayShape;

type C = Complex<f64>;

/// The elements of a float or complex array as `Complex<f64>`.
fn widen(ctx: &Ctx<'_>, data: &ArrayData) -> Result<Vec<C>> {
    Ok(match data {
        ArrayData::F32(v) => v.iter().map(|&x| C::new(f64::from(x), 0.0)).collect(),
        ArrayData::F64(v) => v.iter().map(|&x| C::new(x, 0.0)).collect(),
        ArrayData::C64(v) => v
            .iter()
            .map(|x| C::new(f64::from(x.re), f64::from(x.im)))
            .collect(),
        ArrayData::C128(v) => v.clone(),
        other => {
            return Err(ctx.err(format!(
                "{} elements: f32, f64, c64 or c128 only",
                other.element_type()
            )))
        }
    })
}

/// `values` rounded back to the element type of `like`.
fn narrow(like: &ArrayData, values: &[C]) -> ArrayData {
    match like {
        ArrayData::F32(_) => ArrayData::F32(values.iter().map(|x| x.re as f32).collect()),
        ArrayData::C64(_) => ArrayData::C64(
            values
                .iter()
                .map(|x| Complex::new(x.re as f32, x.im as f32))
                .collect(),
        ),
        ArrayData::C128(_) => ArrayData::C128(values.to_vec()),
        _ => ArrayData::F64(values.iter().map(|x| x.re).collect()),
    }
}

/// The batch count and matrix sizes `(rows, cols)` of a rank >= 2 array.
fn matrices(ctx: &Ctx<'_>, s: &ArrayShape) -> Result<(usize, usize, usize)> {
    let dims = super::dims_usize(ctx, &s.dims)?;
    match dims.len().checked_sub(2) {
        Some(r) => Ok((dims[..r].iter().product(), dims[r], dims[r + 1])),
        None => Err(ctx.err(format!("{s} is not a batch of matrices (rank < 2)"))),
    }
}

/// `Cholesky(a, lower)`: see the module docs.
pub(super) fn cholesky(ctx: &Ctx<'_>, a: &Literal, lower: bool) -> Result<Literal> {
    let (shape, data) = array(ctx, a)?;
    let (_, n, n2) = matrices(ctx, shape)?;
    if n != n2 {
        return Err(ctx.err(format!("{shape}: the matrices are not square")));
    }
    let x = widen(ctx, data)?;
    let mut out = vec![C::new(0.0, 0.0); x.len()];
    if n == 0 {
        return Ok(a.clone());
    }
    for (src, dst) in x.chunks_exact(n * n).zip(out.chunks_exact_mut(n * n)) {
        // Element (i, j), i >= j, of the matrix factored: `a[i][j]`, or `a[j][i]` for upper.
        let at = |i: usize, j: usize| {
            if lower {
                src[i * n + j]
            } else {
                src[j * n + i]
            }
        };
        let mut l = vec![C::new(0.0, 0.0); n * n];
        let mut failed = false;
        for j in 0..n {
            // Column j of `a - l l^H` (its first j columns known) divided by the square root of
            // the real part of its diagonal entry, the diagonal itself included (so a complex
            // diagonal entry keeps its imaginary part divided, as XLA's unblocked step).
            let col: Vec<C> = (j..n)
                .map(|i| {
                    at(i, j)
                        - (0..j)
                            .map(|k| l[i * n + k] * l[j * n + k].conj())
                            .sum::<C>()
                })
                .collect();
            let ljj = col[0].re.sqrt();
            failed |= ljj.is_nan();
            for (i, v) in (j..n).zip(col) {
                l[i * n + j] = v / ljj;
            }
        }
        if failed {
            dst.fill(C::new(f64::NAN, 0.0));
            continue;
        }
        for i in 0..n {
            for j in 0..=i {
                let (r, c) = if lower { (i, j) } else { (j, i) };
                dst[r * n + c] = l[i * n + j];
            }
        }
    }
    Ok(Literal::Array {
        shape: shape.clone(),
        data: narrow(data, &out),
    })
}

/// The `m x m` matrix `op(a)` of one matrix `a`: its `lower` (else upper) triangle, ones on
/// the diagonal when `unit`, then transposed or conjugate-transposed.
fn op_a(a: &[C], m: usize, lower: bool, unit: bool, t: TransposeA) -> Vec<C> {
    let mut out = vec![C::new(0.0, 0.0); m * m];
    for i in 0..m {
        for j in 0..m {
            let inside = if lower { i >= j } else { i <= j };
            let v = if i == j && unit {
                C::new(1.0, 0.0)
            } else if inside {
                a[i * m + j]
            } else {
                continue;
            };
            match t {
                TransposeA::NoTranspose => out[i * m + j] = v,
                TransposeA::Transpose => out[j * m + i] = v,
                TransposeA::Adjoint => out[j * m + i] = v.conj(),
            }
        }
    }
    out
}

/// `x` with `t x = b` for a triangular `t` (`m x m`, lower when `lower`) and `b` `m x k`, by
/// forward (lower) or backward substitution, column by column.
fn substitute(t: &[C], b: &[C], m: usize, k: usize, lower: bool) -> Vec<C> {
    let mut x = b.to_vec();
    let rows: Vec<usize> = if lower {
        (0..m).collect()
    } else {
        (0..m).rev().collect()
    };
    for c in 0..k {
        for (p, &i) in rows.iter().enumerate() {
            let s: C = rows[..p].iter().map(|&j| t[i * m + j] * x[j * k + c]).sum();
            x[i * k + c] = (b[i * k + c] - s) / t[i * m + i];
        }
    }
    x
}

/// `TriangularSolve(a, b, ...)`: per matrix, `x` with `op(a) x = b` (`left_side`) or
/// `x op(a) = b`, i.e. `op(a)^T x^T = b^T`.
pub(super) fn triangular_solve(
    ctx: &Ctx<'_>,
    a: &Literal,
    b: &Literal,
    (left_side, lower, unit): (bool, bool, bool),
    t: TransposeA,
) -> Result<Literal> {
    let (sa, da) = array(ctx, a)?;
    let (sb, db) = array(ctx, b)?;
    let (batch, m, _) = matrices(ctx, sa)?;
    let (batch_b, rows, cols) = matrices(ctx, sb)?;
    let k = if left_side { cols } else { rows };
    if batch != batch_b || (if left_side { rows } else { cols }) != m {
        return Err(ctx.err(format!("a {sa} and b {sb} do not match")));
    }
    let (xa, xb) = (widen(ctx, da)?, widen(ctx, db)?);
    let mut out = Vec::with_capacity(xb.len());
    // op(a) is lower triangular when exactly one of `lower` and "transposed" holds.
    let op_lower = lower == (t == TransposeA::NoTranspose);
    for i in 0..batch {
        let ta = op_a(&xa[i * m * m..(i + 1) * m * m], m, lower, unit, t);
        let bi = &xb[i * m * k..(i + 1) * m * k];
        if left_side {
            out.extend(substitute(&ta, bi, m, k, op_lower));
        } else {
            let tt = transpose(&ta, m, m);
            let x = substitute(&tt, &transpose(bi, k, m), m, k, !op_lower);
            out.extend(transpose(&x, m, k));
        }
    }
    Ok(Literal::Array {
        shape: sb.clone(),
        data: narrow(db, &out),
    })
}

/// The `c x r` transpose of an `r x c` matrix.
fn transpose(x: &[C], r: usize, c: usize) -> Vec<C> {
    let mut out = vec![C::new(0.0, 0.0); r * c];
    for i in 0..r {
        for j in 0..c {
            out[j * r + i] = x[i * c + j];
        }
    }
    out
}
