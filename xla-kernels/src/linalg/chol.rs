//! The blocked Cholesky factorisation of one matrix (see the module docs of `linalg`).

use super::trsm::{mm, neg_inverse};
use super::{LinalgElem, CHOL_BLOCK};
use crate::gemm::{GemmError, GemmScratch};

/// Scratch elements one factorisation of an `n x n` matrix needs: the real pivots, the
/// diagonal block's upper working copy, then for `n > CHOL_BLOCK` two panels of
/// `CHOL_BLOCK x n` and one block's inverse.
pub(super) fn scratch_len(n: usize) -> usize {
    let block = n.min(CHOL_BLOCK);
    let work = block * stride(block);
    if n <= CHOL_BLOCK {
        n + work
    } else {
        n + work + 2 * CHOL_BLOCK * n + CHOL_BLOCK * CHOL_BLOCK
    }
}

/// `o` = the Cholesky factor of `a` (both `n x n` row-major): see `linalg::cholesky`.
pub(super) fn factor<T: LinalgElem>(
    a: &[T],
    o: &mut [T],
    n: usize,
    lower: bool,
    scratch: &mut [T],
    g: &mut GemmScratch,
) -> Result<(), GemmError> {
    if n <= CHOL_BLOCK {
        factor_small(a, o, n, lower, scratch);
        return Ok(());
    }
    // The lower triangle of the matrix factored: `a`, or `a^T` for the upper form (XLA
    // transposes without conjugating).
    for i in 0..n {
        for j in 0..=i {
            o[i * n + j] = if lower { a[i * n + j] } else { a[j * n + i] };
        }
    }
    let (piv, rest) = scratch.split_at_mut(n);
    let block = n.min(CHOL_BLOCK);
    let (work, rest) = rest.split_at_mut(block * stride(block));
    let mut failed = false;
    for j0 in (0..n).step_by(CHOL_BLOCK) {
        let j1 = (j0 + CHOL_BLOCK).min(n);
        failed |= diagonal_block(o, n, (j0, j1), piv, work);
        if j1 < n {
            panel_and_update(o, n, j0, j1, piv, rest, g)?;
        }
    }
    if failed {
        o.fill(T::nan());
        return Ok(());
    }
    for i in 0..n {
        for j in i + 1..n {
            o[i * n + j] = T::default();
        }
    }
    if !lower {
        for i in 0..n {
            for j in i + 1..n {
                o.swap(i * n + j, j * n + i);
            }
        }
    }
    Ok(())
}

/// [`factor`] of a matrix of one block (`n <= CHOL_BLOCK`): straight into the upper form
/// [`factor_upper`] works on (`u = conj(l)^T`, read from `a`'s lower triangle transposed, or
/// from its upper triangle as it is for the upper form) and straight out, with no other pass.
fn factor_small<T: LinalgElem>(a: &[T], o: &mut [T], n: usize, lower: bool, scratch: &mut [T]) {
    let (piv, rest) = scratch.split_at_mut(n);
    let w = stride(n);
    let u = &mut rest[..n * w];
    // Finite values left of the diagonal and past `n`: the row updates run over them.
    u.fill(T::default());
    for (i, arow) in a.chunks_exact(n).enumerate() {
        if lower {
            // a's row i, left of the diagonal, is u's column i above it.
            for (r, &x) in arow[..=i].iter().enumerate() {
                u[r * w + i] = x.conj();
            }
        } else {
            for (d, &x) in u[i * w + i..i * w + n].iter_mut().zip(&arow[i..]) {
                *d = x.conj();
            }
        }
    }
    if factor_upper(u, n, piv) {
        o.fill(T::nan());
        return;
    }
    // lower: o = l = conj(u)^T; upper: o = l^T = conj(u), as `factor` computes them.
    for (r, (orow, urow)) in o.chunks_exact_mut(n).zip(u.chunks_exact(w)).enumerate() {
        if lower {
            let (head, zeros) = orow.split_at_mut(r + 1);
            for (c, d) in head.iter_mut().enumerate() {
                *d = u[c * w + r].conj();
            }
            zeros.fill(T::default());
        } else {
            let (zeros, tail) = orow.split_at_mut(r);
            zeros.fill(T::default());
            for (d, &x) in tail.iter_mut().zip(&urow[r..]) {
                *d = x.conj();
            }
        }
    }
}

/// Factors the diagonal block `[j0, j1)` in place (its columns left of the block already
/// subtracted by the trailing updates), through its upper form in `work` ([`factor_upper`]).
/// Returns true when a pivot is NaN.
fn diagonal_block<T: LinalgElem>(
    o: &mut [T],
    n: usize,
    (j0, j1): (usize, usize),
    piv: &mut [T],
    work: &mut [T],
) -> bool {
    let b = j1 - j0;
    let w = stride(b);
    let u = &mut work[..b * w];
    u.fill(T::default());
    for r in 0..b {
        for c in 0..=r {
            u[c * w + r] = o[(j0 + r) * n + j0 + c].conj();
        }
    }
    let failed = factor_upper(u, b, &mut piv[j0..j1]);
    for r in 0..b {
        for c in 0..=r {
            o[(j0 + r) * n + j0 + c] = u[c * w + r].conj();
        }
    }
    failed
}

/// Columns of a row of the upper working form: `b` rounded up to [`LANES`], so every row update
/// runs over whole vectors (no scalar tail; the columns it also touches left of the diagonal
/// and right of `b` are never read back).
fn stride(b: usize) -> usize {
    b.next_multiple_of(LANES)
}

/// Elements the row updates of [`factor_upper`] go through at a time (a multiple of every
/// vector width the compiler may pick for the four element types).
const LANES: usize = 16;

/// `u = chol(a)` in upper form (`a = u^H u`, `u` `b x b` row-major with row stride
/// [`stride`]`(b)`, only its upper triangle meaningful), right-looking: pivot
/// `p_j = sqrt(re u_jj)` (into `piv`), row `u_j /= p_j`, then every later row
/// `u_i -= conj(u_ji) u_j`: updates along contiguous rows in whole blocks of [`LANES`], which
/// vectorise (the lower form's dot products run along one dependency chain instead).
/// Returns true when a pivot is NaN.
fn factor_upper<T: LinalgElem>(u: &mut [T], b: usize, piv: &mut [T]) -> bool {
    let w = stride(b);
    let mut failed = false;
    for j in 0..b {
        let (head, tail) = u.split_at_mut((j + 1) * w);
        let row = &mut head[j * w..];
        let p = row[j].sqrt_re();
        failed |= p.re_is_nan();
        piv[j] = p;
        for x in row[j..b].iter_mut() {
            *x = *x / p;
        }
        for (i, later) in tail.chunks_exact_mut(w).take(b - j - 1).enumerate() {
            let c = j + 1 + i; // this row's diagonal column
            let s = row[c].conj();
            let from = c / LANES * LANES;
            sub_scaled(&mut later[from..], &row[from..], s);
        }
    }
    failed
}

/// `d -= s x` over whole blocks of [`LANES`]. A function of its own so that the compiler
/// knows `d` and `x` do not overlap and vectorises the loop.
#[inline(never)]
fn sub_scaled<T: LinalgElem>(d: &mut [T], x: &[T], s: T) {
    for (d, x) in d.chunks_exact_mut(LANES).zip(x.chunks_exact(LANES)) {
        for (d, &x) in d.iter_mut().zip(x) {
            *d = *d - s * x;
        }
    }
}

/// The panel below the diagonal block `[j0, j1)` and the trailing update:
/// `l21 = a21 inv(l11')^H` (`l11'` with the real pivots on its diagonal), computed as
/// `-l21^H = -inv(l11') a21^H` (one GEMM), then `a22 -= l21 l21^H` on the lower triangle, one
/// block column of `CHOL_BLOCK` at a time.
fn panel_and_update<T: LinalgElem>(
    o: &mut [T],
    n: usize,
    j0: usize,
    j1: usize,
    piv: &[T],
    scratch: &mut [T],
    g: &mut GemmScratch,
) -> Result<(), GemmError> {
    let (b, rows) = (j1 - j0, n - j1);
    let (w, rest) = scratch.split_at_mut(CHOL_BLOCK * n);
    let (v, inv) = rest.split_at_mut(CHOL_BLOCK * n);
    let (w, v) = (&mut w[..b * rows], &mut v[..b * rows]);
    // w = a21^H (b x rows).
    for r in 0..rows {
        for c in 0..b {
            w[c * rows + r] = o[(j1 + r) * n + j0 + c].conj();
        }
    }
    let at = |i: usize, j: usize| o[(j0 + i) * n + j0 + j];
    neg_inverse(b, true, at, |i| piv[j0 + i], inv);
    let (bi, ri) = (b as isize, rows as isize);
    // v = -inv(l11') a21^H = -l21^H.
    mm((b, rows, b), (inv, bi, 1), (w, ri, 1), (v, ri, 1), false, g)?;
    // l21 = -v^H, into the factor and (row-major, rows x b) into w for the products.
    for r in 0..rows {
        for c in 0..b {
            let x = -v[c * rows + r].conj();
            o[(j1 + r) * n + j0 + c] = x;
            w[r * b + c] = x;
        }
    }
    // a22[i][j] += l21[i] . v[:, j] for i >= j's block column.
    for jb in (0..rows).step_by(CHOL_BLOCK) {
        let je = (jb + CHOL_BLOCK).min(rows);
        let c = &mut o[(j1 + jb) * n + j1 + jb..];
        let a = (&w[jb * b..], bi, 1);
        mm(
            (rows - jb, je - jb, b),
            a,
            (&v[jb..], ri, 1),
            (c, n as isize, 1),
            true,
            g,
        )?;
    }
    Ok(())
}
