//! The f32 / f64 kernels of [`super::reduce_fast`]: contiguous rows and strided columns.
//!
//! The speed table and the reasons for this design are in the parent module's docs.

use std::ops::Range;

use rayon::prelude::*;

use super::{
    apply, identity, lanes, scalar, FastFloat, ReduceOp, COL_BLOCK, COL_ROW_BLOCK,
    PAR_TASK_ELEMENTS, ROW_BLOCK,
};
use crate::par;
use crate::simd::VFloat;

/// Rows folded per sweep of a column leaf: each accumulator stays in a register across them
/// (one load and one store of it per four input vectors instead of per one).
const COL_ROWS: usize = 4;

/// `dst[o] = init (+) reduce(src[o * len .. (o + 1) * len])`.
pub(super) fn rows<T: FastFloat>(src: &[T], len: usize, op: ReduceOp, init: T, dst: &mut [T]) {
    let one = |o: usize| {
        let row = &src[o * len..][..len];
        let v = par::reduce_blocks(
            len,
            ROW_BLOCK,
            |r| block::<T>(&row[r], op),
            |a, b| scalar(op, a, b),
        );
        scalar(op, init, v)
    };
    // One row (or a small problem) runs in order: the row's own tree is parallel if it is long.
    let parallel = src.len() >= par::PAR_MIN_ELEMENTS && dst.len() > 1;
    super::each_output(dst, (PAR_TASK_ELEMENTS / len.max(1)).max(1), parallel, one);
}

/// One leaf of a row: four vector accumulators over the block (then combined (0+1)+(2+3)),
/// the tail loaded with the identity, then the lanes in a fixed tree.
#[inline]
fn block<T: FastFloat>(x: &[T], op: ReduceOp) -> T {
    let l = T::V::LANES;
    let id = identity::<T>(op);
    let mut acc = [T::V::splat(id); 4];
    let mut chunks = x.chunks_exact(4 * l);
    for c in &mut chunks {
        for (k, a) in acc.iter_mut().enumerate() {
            *a = apply(op, *a, T::V::load(&c[k * l..]));
        }
    }
    for (k, c) in chunks.remainder().chunks(l).enumerate() {
        acc[k] = apply(op, acc[k], T::V::load_partial(c, id));
    }
    let v = apply(op, apply(op, acc[0], acc[1]), apply(op, acc[2], acc[3]));
    lanes(op, v)
}

/// The accumulators of one column leaf: [`COL_BLOCK`] lanes in vectors of at least 4 lanes.
type Acc<T> = [<T as FastFloat>::V; COL_BLOCK / 4];

/// `dst[k1, j] = init (+) (src[k1, 0, j] (+) src[k1, 1, j] (+) ...)` for `src` of shape
/// `[dst.len() / k2, r, k2]`. Each output chunk of [`COL_BLOCK`] lanes folds leaves of
/// [`COL_ROW_BLOCK`] rows (ascending) and combines the leaves in a fixed tree.
pub(super) fn columns<T: FastFloat>(
    src: &[T],
    r: usize,
    k2: usize,
    op: ReduceOp,
    init: T,
    dst: &mut [T],
) {
    let l = T::V::LANES;
    let chunk = |k1: usize, j0: usize, out: &mut [T]| {
        let slab = &src[k1 * r * k2..][..r * k2];
        let w = out.len();
        let nv = w.div_ceil(l);
        // Blocks over `r * w` "elements" so the tree is parallel from PAR_MIN_ELEMENTS reads.
        let acc = par::reduce_blocks(
            r * w,
            COL_ROW_BLOCK * w,
            |e| leaf::<T>(slab, k2, j0, w, e.start / w..e.end / w, op),
            |mut a, b| {
                for (x, y) in a[..nv].iter_mut().zip(&b[..nv]) {
                    *x = apply(op, *x, *y);
                }
                a
            },
        );
        for (o, a) in out.chunks_mut(l).zip(&acc) {
            apply(op, T::V::splat(init), *a).store_partial(o);
        }
    };
    let parallel = src.len() >= par::PAR_MIN_ELEMENTS;
    let run = |(k1, orow): (usize, &mut [T])| {
        if parallel {
            orow.par_chunks_mut(COL_BLOCK)
                .enumerate()
                .for_each(|(c, o)| chunk(k1, c * COL_BLOCK, o));
        } else {
            orow.chunks_mut(COL_BLOCK)
                .enumerate()
                .for_each(|(c, o)| chunk(k1, c * COL_BLOCK, o));
        }
    };
    if parallel && dst.len() > k2 {
        dst.par_chunks_mut(k2).enumerate().for_each(run);
    } else {
        dst.chunks_mut(k2).enumerate().for_each(run);
    }
}

/// Lanes `j0..j0 + w` of rows `rows` of the `[r, k2]` `slab`, folded in ascending row order
/// from the identity.
#[inline]
fn leaf<T: FastFloat>(
    slab: &[T],
    k2: usize,
    j0: usize,
    w: usize,
    rows: Range<usize>,
    op: ReduceOp,
) -> Acc<T> {
    let l = T::V::LANES;
    let id = identity::<T>(op);
    let mut acc: Acc<T> = [T::V::splat(id); COL_BLOCK / 4];
    let (nf, nv) = (w / l, w.div_ceil(l));
    let part = &slab[rows.start * k2..rows.end * k2];
    for group in part.chunks(COL_ROWS * k2) {
        if group.len() == COL_ROWS * k2 {
            // Four rows cut to this leaf's lanes once: the inner loads need no more checks.
            let rs: [&[T]; COL_ROWS] = std::array::from_fn(|q| &group[q * k2 + j0..][..w]);
            for (v, a) in acc[..nf].iter_mut().enumerate() {
                let o = v * l;
                let mut x = apply(op, *a, T::V::load(&rs[0][o..]));
                x = apply(op, x, T::V::load(&rs[1][o..]));
                x = apply(op, x, T::V::load(&rs[2][o..]));
                *a = apply(op, x, T::V::load(&rs[3][o..]));
            }
            if nf < nv {
                for row in rs {
                    acc[nf] = apply(op, acc[nf], T::V::load_partial(&row[nf * l..], id));
                }
            }
        } else {
            for row in group.chunks_exact(k2) {
                let row = &row[j0..j0 + w];
                for (v, a) in acc[..nv].iter_mut().enumerate() {
                    *a = apply(op, *a, T::V::load_partial(&row[v * l..], id));
                }
            }
        }
    }
    acc
}
