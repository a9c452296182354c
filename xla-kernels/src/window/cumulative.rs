//! A cumulative Scan along one dimension with a carry per lane: for the operand seen as
//! `[outer, n, inner]`, `out[o, j, l] = f(prev, x[o, j, l])` with `prev` the carry
//! `init[o, l]` at the first step and `out[o, j∓1, l]` after, `j` running `0..n` (or down
//! from `n - 1` when reversed); the final carry is the last step's row (`init` when `n = 0`).
//! The lanes of one step are independent, so the loop over `l` vectorises; planes run on rayon.

use crate::error::KernelError;
use crate::par;

const OP: &str = "cumulative_scan";

/// `[outer, n, inner]` sizes of a cumulative scan.
#[derive(Clone, Copy, Debug)]
pub struct ScanDims {
    /// Product of the dimensions before the scan dimension.
    pub outer: usize,
    /// The scan dimension's size.
    pub n: usize,
    /// Product of the dimensions after it.
    pub inner: usize,
}

/// `(out, carry) = Scan(x, init, |x, c| (f(c, x), f(c, x)))` over `dims`.
pub fn cumulative_scan<T: Copy + Send + Sync>(
    dims: ScanDims,
    x: &[T],
    init: &[T],
    reverse: bool,
    out: &mut [T],
    carry: &mut [T],
    f: impl Fn(T, T) -> T + Sync,
) -> Result<(), KernelError> {
    let ScanDims { outer, n, inner } = dims;
    let plane = n * inner;
    KernelError::check_len(OP, "input", outer * plane, x.len())?;
    KernelError::check_len(OP, "output", outer * plane, out.len())?;
    KernelError::check_len(OP, "init", outer * inner, init.len())?;
    KernelError::check_len(OP, "carry", outer * inner, carry.len())?;
    if n == 0 || inner == 0 {
        carry.copy_from_slice(init);
        return Ok(());
    }
    let step = |s: usize| if reverse { n - 1 - s } else { s };
    par::rows(out, plane, |first, block| {
        for (b, o) in block.chunks_mut(plane).enumerate() {
            let p = first + b;
            let xs = &x[p * plane..][..plane];
            let c0 = &init[p * inner..][..inner];
            let j0 = step(0);
            for ((y, &a), &v) in o[j0 * inner..][..inner]
                .iter_mut()
                .zip(c0)
                .zip(&xs[j0 * inner..])
            {
                *y = f(a, v);
            }
            for s in 1..n {
                let (jp, j) = (step(s - 1), step(s));
                // The previous row and this one are disjoint: split at the later of the two.
                let (prev, cur) = if reverse {
                    let (lo, hi) = o.split_at_mut(jp * inner);
                    (&hi[..inner], &mut lo[j * inner..][..inner])
                } else {
                    let (lo, hi) = o.split_at_mut(j * inner);
                    (&lo[jp * inner..][..inner], &mut hi[..inner])
                };
                for ((y, &a), &v) in cur.iter_mut().zip(prev).zip(&xs[j * inner..]) {
                    *y = f(a, v);
                }
            }
        }
    });
    let last = step(n - 1);
    for (p, c) in carry.chunks_mut(inner).enumerate() {
        c.copy_from_slice(&out[(p * n + last) * inner..][..inner]);
    }
    Ok(())
}
