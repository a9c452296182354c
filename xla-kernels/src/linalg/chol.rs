//! The blocked Cholesky factorisation of one matrix (see the module docs of `linalg`).

use super::trsm::{mm, neg_inverse};
use super::{LinalgElem, CHOL_BLOCK};
use crate::gemm::{GemmError, GemmScratch};

/// Scratch elements one factorisation of an `n x n` matrix needs: the real pivots, then for
/// `n > CHOL_BLOCK` two panels of `CHOL_BLOCK x n` and one block's inverse.
pub(super) fn scratch_len(n: usize) -> usize {
    if n <= CHOL_BLOCK {
        n
    } else {
        n + 2 * CHOL_BLOCK * n + CHOL_BLOCK * CHOL_BLOCK
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
    // The lower triangle of the matrix factored: `a`, or `a^T` for the upper form (XLA
    // transposes without conjugating).
    for i in 0..n {
        for j in 0..=i {
            o[i * n + j] = if lower { a[i * n + j] } else { a[j * n + i] };
        }
    }
    let (piv, rest) = scratch.split_at_mut(n);
    let mut failed = false;
    for j0 in (0..n).step_by(CHOL_BLOCK) {
        let j1 = (j0 + CHOL_BLOCK).min(n);
        failed |= diagonal_block(o, n, j0, j1, piv);
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

/// Factors the diagonal block `[j0, j1)` in place, column by column (its columns left of the
/// block already subtracted by the trailing updates): `v_i = o_ij - sum_c o_ic conj(o_jc)`
/// over the block's earlier columns, pivot `p = sqrt(re v_j)`, `o_ij = v_i / p` (`i >= j`).
/// Returns true when a pivot is NaN.
fn diagonal_block<T: LinalgElem>(
    o: &mut [T],
    n: usize,
    j0: usize,
    j1: usize,
    piv: &mut [T],
) -> bool {
    let mut failed = false;
    for j in j0..j1 {
        let dot = |o: &[T], i: usize| {
            let (ri, rj) = (&o[i * n + j0..i * n + j], &o[j * n + j0..j * n + j]);
            ri.iter()
                .zip(rj)
                .fold(T::default(), |s, (&x, &y)| s + x * y.conj())
        };
        let vjj = o[j * n + j] - dot(o, j);
        let p = vjj.sqrt_re();
        failed |= p.re_is_nan();
        piv[j] = p;
        o[j * n + j] = vjj / p;
        for i in j + 1..j1 {
            o[i * n + j] = (o[i * n + j] - dot(o, i)) / p;
        }
    }
    failed
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
