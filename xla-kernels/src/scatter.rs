//! Scatter: for every position `p` of the index array, in row-major order, and every element
//! `w` of its update window, `out[start(p) + w] = f(out[start(p) + w], updates[p, w])`; a
//! window whose start is negative or whose end passes the operand is skipped whole (XLA's
//! rule). Starts are read as [`crate::gather`] reads them.
//!
//! The kernel does not know the update computation: it calls `apply(o, u, n)` for each run of
//! `n` elements that are contiguous in both the output (from offset `o`) and the updates (from
//! `u`), and the caller combines `out[o..o + n]` with `updates[u..u + n]` (generated code
//! inlines the computation there). A run is a row of the window when the updates' last
//! dimension is a window dimension walking the operand's last dimension (scatter-add of rows:
//! one run per row), otherwise one element.
//!
//! Determinism: runs are applied in one fixed order (positions row-major, each window
//! row-major), on the calling thread, so duplicate indices combine in index order whatever the
//! thread count, as XLA:CPU does. No allocation.

use crate::error::{element_count, KernelError};
use crate::gather::{
    advance, index_offset, strides, IndexValue, Positions, Starts, MAX_INDEX_DIMS,
};
use crate::tensor::MAX_RANK;

/// A scatter's shapes and dimension numbers, as row-major dimensions.
#[derive(Clone, Copy, Debug)]
pub struct ScatterDesc<'a> {
    /// Operand (and output) dimensions.
    pub operand: &'a [usize],
    /// The index array and what its vectors index.
    pub starts: Starts<'a>,
    /// Dimensions of the update arrays: the positions' dimensions (in order) interleaved with
    /// the window dimensions at `update_window_dims`.
    pub updates: &'a [usize],
    /// Update dimensions walking the window, ascending.
    pub update_window_dims: &'a [usize],
    /// The operand dimension each window dimension walks, ascending; the other operand
    /// dimensions have a window extent of 1.
    pub window_dims: &'a [usize],
}

/// What [`scatter`] needs, checked once.
struct Plan {
    pos: Positions,
    /// Largest start per operand dimension for the window to fit (`None`: it never fits).
    max: [Option<usize>; MAX_INDEX_DIMS],
    /// Update stride of each position dimension.
    pstrides: [usize; MAX_INDEX_DIMS],
    /// Window sizes and the (operand, update) strides of each window dimension, the last one
    /// left out when it is the run.
    wsizes: [usize; MAX_INDEX_DIMS],
    wstrides: [(usize, usize); MAX_INDEX_DIMS],
    wrank: usize,
    /// Elements per run.
    run: usize,
}

fn plan(
    d: &ScatterDesc<'_>,
    out_len: usize,
    indices_len: usize,
    updates_len: usize,
) -> Result<Plan, KernelError> {
    let op = "scatter";
    let bad = |why: String| KernelError::invalid(op, why);
    KernelError::check_len(op, "out", element_count(op, d.operand)?, out_len)?;
    KernelError::check_len(op, "updates", element_count(op, d.updates)?, updates_len)?;
    let (rank, urank) = (d.operand.len(), d.updates.len());
    let ostrides = strides(d.operand);
    let ustrides = strides(d.updates);
    let pos = Positions::new(op, &d.starts, d.operand, &ostrides[..rank])?;
    KernelError::check_len(op, "indices", pos.len, indices_len)?;
    let nw = d.update_window_dims.len();
    if nw != d.window_dims.len() || urank != nw + pos.rank || urank > MAX_RANK {
        return Err(bad(format!(
            "updates {:?} with window dims {:?} -> {:?} and {} position dims",
            d.updates, d.update_window_dims, d.window_dims, pos.rank
        )));
    }
    let mut extent = [1usize; MAX_INDEX_DIMS];
    let mut p = Plan {
        pos,
        max: [None; MAX_INDEX_DIMS],
        pstrides: [0; MAX_INDEX_DIMS],
        wsizes: [0; MAX_INDEX_DIMS],
        wstrides: [(0, 0); MAX_INDEX_DIMS],
        wrank: 0,
        run: 1,
    };
    let (mut w, mut b) = (0, 0);
    for (ud, &size) in d.updates.iter().enumerate() {
        if d.update_window_dims.get(w) == Some(&ud) {
            let od = d.window_dims[w];
            if od >= rank || (w > 0 && od <= d.window_dims[w - 1]) || size > d.operand[od] {
                return Err(bad(format!(
                    "window dims {:?} of sizes {:?} in operand {:?}",
                    d.window_dims, d.updates, d.operand
                )));
            }
            extent[od] = size;
            p.wsizes[w] = size;
            p.wstrides[w] = (ostrides[od], ustrides[ud]);
            w += 1;
        } else {
            if p.pos.sizes[b] != size {
                return Err(bad(format!(
                    "updates {:?} against the positions",
                    d.updates
                )));
            }
            p.pstrides[b] = ustrides[ud];
            b += 1;
        }
    }
    if w != nw {
        return Err(bad(format!(
            "update window dims {:?} not ascending",
            d.update_window_dims
        )));
    }
    for (od, &n) in d.operand.iter().enumerate() {
        p.max[od] = n.checked_sub(extent[od]);
    }
    p.wrank = nw;
    // The last window dimension is the run when it is the updates' and the operand's last.
    if nw > 0 && d.update_window_dims[nw - 1] == urank - 1 && d.window_dims[nw - 1] == rank - 1 {
        p.wrank = nw - 1;
        p.run = p.wsizes[nw - 1];
    }
    Ok(p)
}

/// Calls `apply(o, u, n)` for every run of a scatter as `d` describes, in order (see the module
/// docs); `o + n <= out_len` and `u + n <= updates_len` for every call. `Err` (no call made)
/// when the descriptor or a length is inconsistent.
pub fn scatter<I: IndexValue>(
    d: &ScatterDesc<'_>,
    out_len: usize,
    indices: &[I],
    updates_len: usize,
    mut apply: impl FnMut(usize, usize, usize),
) -> Result<(), KernelError> {
    let p = plan(d, out_len, indices.len(), updates_len)?;
    if p.run == 0 || updates_len == 0 {
        return Ok(());
    }
    let sizes = &p.pos.sizes[..p.pos.rank];
    let wsizes = &p.wsizes[..p.wrank];
    let windows: usize = wsizes.iter().product();
    let mut pos = [0usize; MAX_INDEX_DIMS];
    for _ in 0..p.pos.count {
        let pidx = &mut pos[..p.pos.rank];
        if let Some(base) = p.pos.start_within(pidx, indices, &p.max) {
            let ubase = index_offset(pidx, &p.pstrides);
            let mut widx = [0usize; MAX_INDEX_DIMS];
            for _ in 0..windows {
                let (mut o, mut u) = (base, ubase);
                for (&i, &(os, us)) in widx[..p.wrank].iter().zip(&p.wstrides) {
                    o += i * os;
                    u += i * us;
                }
                apply(o, u, p.run);
                advance(&mut widx[..p.wrank], wsizes);
            }
        }
        advance(pidx, sizes);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
