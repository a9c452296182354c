//! Cholesky factorisation and triangular solves of batches of matrices (XLA's `Cholesky` and
//! `TriangularSolve`) for f32, f64, c64 and c128: blocked algorithms whose bulk is
//! [`crate::gemm`], batched over leading dimensions with rayon.
//!
//! - [`cholesky`]: right-looking blocked `a = l l^H`: per block column of [`CHOL_BLOCK`], the
//!   diagonal block factored in place, the panel below solved against it (as one left-side
//!   solve of its conjugate transpose), the trailing lower triangle updated by GEMMs, one block
//!   column of width [`CHOL_BLOCK`] at a time (half the flops of a full square update).
//! - [`triangular_solve`]: `op(a) x = b` or `x op(a) = b` by blocks of [`TRSM_BLOCK`] rows:
//!   each diagonal block by substitution (row operations over `x`'s contiguous rows, which
//!   vectorise), the rest of `x` updated by one GEMM per block.
//!
//! Semantics are XLA's (see `xla_core::eval::linalg`): only the `lower` (else upper) triangle
//! of `a` is read; Cholesky's upper form factors `a^T` and transposes the factor; the other
//! triangle of its result is zero; a matrix with a NaN pivot (`sqrt` of a negative or NaN real
//! part) is all NaN; a complex diagonal entry keeps its imaginary part divided by the real
//! pivot, the solves dividing by the real pivot.
//!
//! Determinism: every split (batch chunks, column chunks of a solve) is over independent
//! outputs and the GEMM's bits do not depend on the thread count, so neither do these.
//!
//! Why not `faer`: measured beside it (`examples/linalg_crates.rs`: ours and faer 0.24 on the
//! same data, each in its best layout, time and heap allocations per warm call; AMD EPYC, 2
//! threads, 2026-11-25, load ~4-6): Cholesky f32[1024,1024] 11.4 ms vs faer's 6.7 ms,
//! f32[256,32,32] 362 us vs 177 us, TriangularSolve f32[1024,1024] x f32[1024,256] 4.6 ms vs
//! 4.6 ms. faer is ahead on Cholesky (its recursive left-looking factorisation keeps more of
//! the work in large products), but it allocates on every threaded call (2808 allocations per
//! 1024 Cholesky, 2103 per solve), where generated code needs calls that allocate nothing once
//! [`LinalgScratch`] has grown, which ours do (`tests/no_alloc.rs`; the 2 the example counts on
//! a 1024 Cholesky are rayon's own, on a call from outside its pool), and it brings ~60 crates into every
//! user's build (compile time is part of the product). Against XLA:CPU, the bar the issue sets,
//! these kernels lead on every row (`bash scripts/bench.sh kernels cholesky` /
//! `triangular_solve`, `benches/kernels/linalg.rs`: 6.3x on the 1024 Cholesky, 34x batched).
//! The gap to faer is the next thing to close in this module: a recursive panel and one GEMM
//! per trailing update instead of one per block column.

mod chol;
mod elem;
mod trsm;

pub use elem::LinalgElem;

use rayon::prelude::*;

use crate::gemm::{GemmError, GemmScratch};

/// Block size (columns) of the blocked Cholesky: the diagonal block factored unblocked, and the
/// width of the GEMM updates (`k` of each trailing product). 64 keeps the unblocked part (`n
/// b^2` flops, scalar) small against the GEMMs' `n^3 / 3` while `k = 64` still feeds the
/// micro-kernel well.
pub const CHOL_BLOCK: usize = 64;

/// Block size (rows of `x`) of the blocked triangular solve: each block's substitution costs
/// `b^2 k / 2` row operations, its GEMM update `(m - b) b k` multiply-adds.
pub const TRSM_BLOCK: usize = 64;

/// How `TriangularSolve` applies `a` (XLA's `transpose_a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transpose {
    /// `op(a) = a`.
    No,
    /// `op(a) = a^T`.
    Transpose,
    /// `op(a) = conj(a)^T`.
    Adjoint,
}

/// Scratch of the linalg kernels, reused across calls: [`LinalgScratch::new`] allocates
/// nothing; each slot (one per parallel task: its elements and its GEMM packing buffers) grows
/// to the largest size needed and stays, so a call allocates nothing once one call of the
/// same sizes has run.
#[derive(Debug, Default)]
pub struct LinalgScratch<T> {
    slots: Vec<Slot<T>>,
}

/// One task's scratch: elements for the algorithm and the GEMM's packing buffers (its own, so
/// which rayon thread runs the task never decides whether a buffer must grow).
#[derive(Debug, Default)]
struct Slot<T> {
    buf: Vec<T>,
    gemm: GemmScratch,
}

impl<T: LinalgElem> LinalgScratch<T> {
    /// Empty scratch (no allocation).
    pub fn new() -> Self {
        LinalgScratch { slots: Vec::new() }
    }

    /// `tasks` slots of at least `len` elements each.
    fn slots(&mut self, tasks: usize, len: usize) -> &mut [Slot<T>] {
        if self.slots.len() < tasks {
            self.slots.resize_with(tasks, Slot::default);
        }
        for s in &mut self.slots[..tasks] {
            if s.buf.len() < len {
                s.buf.resize(len, T::default());
            }
        }
        &mut self.slots[..tasks]
    }
}

/// Splits `batch` items (`a` of `a_len` elements each, `out` of `out_len`) over up to one
/// task per rayon thread, each with its own scratch slot of `scratch_len` elements, and runs
/// `f(a_item, out_item, slot)` on each item in order. Items are independent, so the split
/// does not change any result.
fn batched<T: LinalgElem>(
    (a, a_len): (&[T], usize),
    (out, out_len): (&mut [T], usize),
    batch: usize,
    scratch: &mut LinalgScratch<T>,
    scratch_len: usize,
    f: impl Fn(&[T], &mut [T], &mut [T], &mut GemmScratch) -> Result<(), GemmError> + Sync,
) -> Result<(), LinalgError> {
    let tasks = batch.min(rayon::current_num_threads()).max(1);
    let slots = scratch.slots(tasks, scratch_len);
    let per = batch.div_ceil(tasks);
    let run = |(t, slot): (usize, &mut Slot<T>), out: &mut [T]| {
        for (i, o) in out.chunks_exact_mut(out_len).enumerate() {
            let item = t * per + i;
            f(
                &a[item * a_len..][..a_len],
                o,
                &mut slot.buf[..scratch_len],
                &mut slot.gemm,
            )?;
        }
        Ok(())
    };
    let r = if tasks == 1 {
        run((0, &mut slots[0]), out)
    } else {
        out.par_chunks_mut(per * out_len)
            .zip(slots.par_iter_mut().enumerate())
            .try_for_each(|(o, s)| run(s, o))
    };
    r.map_err(|e: GemmError| LinalgError(format!("linalg: an internal product failed: {e}")))
}

/// Why a linalg call was refused (nothing is written then).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinalgError(pub String);

impl std::fmt::Display for LinalgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LinalgError {}

/// `Cholesky(a, lower)` of `batch` row-major `n x n` matrices `a` into `out`: per matrix `l`
/// with `a = l l^H` (`lower`, strictly upper part zero) or `u` with `a = u^H u` (`u` the
/// transpose of the lower factor of `a^T`); all NaN where a pivot's square root is NaN.
pub fn cholesky<T: LinalgElem>(
    a: &[T],
    out: &mut [T],
    batch: usize,
    n: usize,
    lower: bool,
    scratch: &mut LinalgScratch<T>,
) -> Result<(), LinalgError> {
    if a.len() != batch * n * n || out.len() != a.len() {
        return Err(LinalgError(format!(
            "Cholesky: {batch} matrices of {n} x {n} need {} elements, got a {} and out {}",
            batch * n * n,
            a.len(),
            out.len()
        )));
    }
    if n == 0 || batch == 0 {
        return Ok(());
    }
    let len = chol::scratch_len(n);
    batched(
        (a, n * n),
        (out, n * n),
        batch,
        scratch,
        len,
        |a, o, s, g| chol::factor(a, o, n, lower, s, g),
    )
}

/// `TriangularSolve(a, b, ..)` of `batch` matrices into `out` (`b`'s shape): per matrix `x`
/// with `op(a) x = b` (`left_side`; `a` `m x m`, `b` `m x k`) or `x op(a) = b` (`b` `k x m`),
/// reading only the `lower` (else upper) triangle of `a`, its diagonal taken as ones when
/// `unit_diagonal`.
#[allow(clippy::too_many_arguments)] // XLA's four attributes, plus the operands and sizes.
pub fn triangular_solve<T: LinalgElem>(
    a: &[T],
    b: &[T],
    out: &mut [T],
    (batch, m, k): (usize, usize, usize),
    (left_side, lower, unit_diagonal): (bool, bool, bool),
    transpose_a: Transpose,
    scratch: &mut LinalgScratch<T>,
) -> Result<(), LinalgError> {
    if a.len() != batch * m * m || b.len() != batch * m * k || out.len() != b.len() {
        return Err(LinalgError(format!(
            "TriangularSolve: {batch} systems of {m} x {m} with {k} right-hand sides need a of \
             {} and b, out of {} elements, got {}, {} and {}",
            batch * m * m,
            batch * m * k,
            a.len(),
            b.len(),
            out.len()
        )));
    }
    if batch == 0 || m == 0 || k == 0 {
        return Ok(());
    }
    out.copy_from_slice(b);
    let plan = trsm::Plan::new(m, k, left_side, lower, unit_diagonal, transpose_a);
    let len = plan.scratch_len::<T>();
    batched(
        (a, m * m),
        (out, m * k),
        batch,
        scratch,
        len,
        |a, x, s, g| plan.solve(a, x, s, g),
    )
}

#[cfg(test)]
mod tests;
