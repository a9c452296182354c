//! The blocked triangular solve, and the pieces Cholesky shares: the negated inverse of a
//! diagonal block, and strided products through [`crate::gemm`].
//!
//! Every form reduces to `t x = x` in place for a triangular `t` (a strided view of `a`, or of
//! `conj(a)`) and a dense row-major `x`: a right-side solve `x op(a) = b` is
//! `op(a)^T x^T = b^T` on `x` transposed into the scratch. Block by block (diagonal blocks of
//! [`TRSM_BLOCK`] rows, in the order substitution needs them), `x_i = inv(t_ii) x_i` and the
//! rows still to solve get `x_j -= t_ji x_i`, both GEMMs: the block's negated inverse `-inv(t_ii)`
//! (`b^3 / 6` flops, by substitution) gives `-x_i` in one product, which is what the update
//! adds. XLA's TriangularSolveExpander also multiplies by inverted diagonal blocks.

use super::{LinalgElem, Transpose, TRSM_BLOCK};
use crate::gemm::{gemm, GemmDesc, GemmError, GemmScratch};

/// A strided operand: the slice, its row stride and column stride (element `(i, j)` at
/// `i * rs + j * cs`).
pub(super) type View<'a, T> = (&'a [T], isize, isize);

/// `c (m x n) = a (m x k) * b (k x n)` (`+= ` when `acc`), every operand strided.
pub(super) fn mm<T: LinalgElem>(
    (m, n, k): (usize, usize, usize),
    a: View<'_, T>,
    b: View<'_, T>,
    (c, crs, ccs): (&mut [T], isize, isize),
    acc: bool,
    g: &mut GemmScratch,
) -> Result<(), GemmError> {
    let mut d = GemmDesc::from_strides(1, m, n, k, [0, a.1, a.2], [0, b.1, b.2], [0, crs, ccs]);
    d.accumulate = acc;
    gemm(&d, a.0, b.0, c, g)
}

/// `out (nb x nb, row-major) = -inv(t)` for the triangular `t` read as `at(i, j)` in its
/// `lower` (else upper) triangle, its diagonal as `diag(i)`: row by row, by substitution
/// (`inv_ij = -(Σ_c t_ic inv_cj) / t_ii` for `j != i`, `c` ascending over the nonzero
/// `inv_cj`): each `t_ic` scales a finished row into the current one, a contiguous loop the
/// compiler vectorizes (the column-by-column form read `inv` with a stride of `nb`, scalar).
pub(super) fn neg_inverse<T: LinalgElem>(
    nb: usize,
    lower: bool,
    at: impl Fn(usize, usize) -> T,
    diag: impl Fn(usize) -> T,
    out: &mut [T],
) {
    let out = &mut out[..nb * nb];
    out.fill(T::default());
    if lower {
        // Row i: columns 0..i from rows 0..i (row c nonzero in columns 0..=c).
        for i in 0..nb {
            let (done, rest) = out.split_at_mut(i * nb);
            let row = &mut rest[..nb];
            for c in 0..i {
                axpy(&mut row[..=c], at(i, c), &done[c * nb..c * nb + c + 1]);
            }
            finish_row(&mut row[..i], diag(i));
            row[i] = T::one() / diag(i);
        }
    } else {
        // Row i, last first: columns i+1.. from rows i+1.. (row c nonzero in columns c..).
        for i in (0..nb).rev() {
            let (head, done) = out.split_at_mut((i + 1) * nb);
            let row = &mut head[i * nb..];
            for c in i + 1..nb {
                let rc = &done[(c - i - 1) * nb..(c - i) * nb];
                axpy(&mut row[c..], at(i, c), &rc[c..]);
            }
            finish_row(&mut row[i + 1..], diag(i));
            row[i] = T::one() / diag(i);
        }
    }
    for v in out.iter_mut() {
        *v = -*v;
    }
}

/// `y += a x`, element by element.
#[inline(always)]
fn axpy<T: LinalgElem>(y: &mut [T], a: T, x: &[T]) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y = *y + a * x;
    }
}

/// `s = -s / d` for the sums of one row's off-diagonal entries.
#[inline(always)]
fn finish_row<T: LinalgElem>(s: &mut [T], d: T) {
    for v in s.iter_mut() {
        *v = -*v / d;
    }
}

/// One solve's shape and form, fixed for every matrix of a batch.
pub(super) struct Plan {
    m: usize,
    k: usize,
    left_side: bool,
    unit: bool,
    /// `t` (what is solved against, `op(a)` or `op(a)^T`) is lower triangular.
    t_lower: bool,
    /// `t` reads `a` transposed (`t[i][j] = a[j][i]`).
    t_transposed: bool,
    /// `t` reads `conj(a)` (a copy in the scratch).
    t_conj: bool,
}

impl Plan {
    /// The plan of `op(a) x = b` (`left_side`) or `x op(a) = b`, `a` `m x m`, `x` with `k`
    /// columns (left) or rows (right).
    pub(super) fn new(
        m: usize,
        k: usize,
        left_side: bool,
        lower: bool,
        unit: bool,
        t: Transpose,
    ) -> Plan {
        let transposed_op = t != Transpose::No;
        // Left: t = op(a). Right: t = op(a)^T, which undoes op's transpose.
        let t_transposed = transposed_op == left_side;
        Plan {
            m,
            k,
            left_side,
            unit,
            t_lower: lower != t_transposed,
            t_transposed,
            t_conj: t == Transpose::Adjoint,
        }
    }

    /// Scratch elements one solve needs: `conj(a)`, `x^T`, a block of `x` and a block's
    /// inverse.
    pub(super) fn scratch_len<T: LinalgElem>(&self) -> usize {
        let nb = TRSM_BLOCK.min(self.m);
        let conj = if self.t_conj && T::COMPLEX {
            self.m * self.m
        } else {
            0
        };
        let xt = if self.left_side { 0 } else { self.m * self.k };
        conj + xt + nb * self.k + nb * nb
    }

    /// Solves one system in place: `x` holds `b` (`m x k` left, `k x m` right) and gets `x`.
    pub(super) fn solve<T: LinalgElem>(
        &self,
        a: &[T],
        x: &mut [T],
        scratch: &mut [T],
        g: &mut GemmScratch,
    ) -> Result<(), GemmError> {
        let (m, k) = (self.m, self.k);
        let (conj, rest) = scratch.split_at_mut(if self.t_conj && T::COMPLEX { m * m } else { 0 });
        let a: &[T] = if conj.is_empty() {
            a
        } else {
            for (c, &v) in conj.iter_mut().zip(a) {
                *c = v.conj();
            }
            conj
        };
        let (rs, cs) = if self.t_transposed {
            (1, m as isize)
        } else {
            (m as isize, 1)
        };
        let t = (a, rs, cs);
        if self.left_side {
            return self.solve_left(t, x, rest, g);
        }
        let (xt, rest) = rest.split_at_mut(m * k);
        transpose(x, k, m, xt);
        self.solve_left(t, xt, rest, g)?;
        transpose(xt, m, k, x);
        Ok(())
    }

    /// `t x = x` for `x` `m x k` row-major, block by block.
    fn solve_left<T: LinalgElem>(
        &self,
        t: View<'_, T>,
        x: &mut [T],
        scratch: &mut [T],
        g: &mut GemmScratch,
    ) -> Result<(), GemmError> {
        let (m, k) = (self.m, self.k);
        let nb = TRSM_BLOCK.min(m);
        let (w, inv) = scratch.split_at_mut(nb * k);
        let at = |i: usize, j: usize| t.0[i * t.1 as usize + j * t.2 as usize];
        let unit = self.unit;
        let blocks = m.div_ceil(nb);
        // Substitution order: first block first (lower), last block first (upper).
        for q in 0..blocks {
            let i0 = nb * if self.t_lower { q } else { blocks - 1 - q };
            let i1 = (i0 + nb).min(m);
            let b = i1 - i0;
            let diag = |i: usize| if unit { T::one() } else { at(i0 + i, i0 + i) };
            neg_inverse(b, self.t_lower, |i, j| at(i0 + i, i0 + j), diag, inv);
            // x_i <- -inv(t_ii) x_i, through a copy of x_i.
            let w = &mut w[..b * k];
            w.copy_from_slice(&x[i0 * k..i1 * k]);
            let ki = k as isize;
            mm(
                (b, k, b),
                (inv, b as isize, 1),
                (w, ki, 1),
                (&mut x[i0 * k..i1 * k], ki, 1),
                false,
                g,
            )?;
            // The rows still to solve: x_j += t_ji (-x_i).
            let (rows, first) = if self.t_lower {
                (i1..m, i1)
            } else {
                (0..i0, 0)
            };
            if !rows.is_empty() {
                let (before, after) = x.split_at_mut(i0 * k);
                let (xi, after) = after.split_at_mut(b * k);
                let c = if self.t_lower {
                    &mut after[..]
                } else {
                    &mut before[..]
                };
                let tj = &t.0[first * t.1 as usize + i0 * t.2 as usize..];
                mm(
                    (rows.len(), k, b),
                    (tj, t.1, t.2),
                    (xi, ki, 1),
                    (c, ki, 1),
                    true,
                    g,
                )?;
                for v in xi.iter_mut() {
                    *v = -*v;
                }
            } else {
                for v in &mut x[i0 * k..i1 * k] {
                    *v = -*v;
                }
            }
        }
        Ok(())
    }
}

/// `out (c x r) = x^T` for `x` `r x c`, both row-major.
pub(super) fn transpose<T: Copy>(x: &[T], r: usize, c: usize, out: &mut [T]) {
    for i in 0..r {
        for j in 0..c {
            out[j * r + i] = x[i * c + j];
        }
    }
}
