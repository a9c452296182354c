//! Gather: `out[b, o] = operand[clamp(start(b)) + window(o)]`, XLA's Gather on row-major
//! buffers with any dimension numbers.
//!
//! The index array is read through [`Starts`] (shared with [`crate::scatter`]): a *position*
//! is a multi-index over the index array's dimensions other than `index_vector_dim`, and its
//! start is the operand index with `start[map[k]] = indices[position, k]` and, per batching
//! pair `(operand dim, index dim)`, `start[operand dim] = position[index dim]`. Gather clamps
//! each start into `[0, size - slice_size]` (XLA's rule), so every read is in range.
//!
//! The output is written row by row (its last dimension): a row of a window dimension that is
//! the operand's last is one `copy_from_slice` (the embedding-lookup fast path: a row of the
//! table per index), other rows are strided copies. Rows are split over rayon in fixed blocks;
//! a gather computes nothing, so the result never depends on the thread count. No allocation.

use crate::error::{element_count, KernelError};
use crate::tensor::MAX_RANK;

/// Dimensions an index array can have: an operand's rank plus the implicit vector dimension.
pub const MAX_INDEX_DIMS: usize = MAX_RANK + 1;

/// An integer index element (s8..s64, u8..u64), read as XLA reads it: signed values below 0
/// are before the operand, unsigned values are never negative.
pub trait IndexValue: Copy + Send + Sync {
    /// `min(max(v, 0), max)`: a gather start clamped into the operand.
    fn clamped(self, max: usize) -> usize;
    /// `Some(v)` when `0 <= v <= max`: a scatter start whose window fits.
    fn within(self, max: usize) -> Option<usize>;
}

macro_rules! index_value {
    ($($t:ty),*) => {$(
        impl IndexValue for $t {
            #[inline]
            #[allow(unused_comparisons)]
            fn clamped(self, max: usize) -> usize {
                if self < 0 {
                    0
                } else {
                    usize::try_from(self).map_or(max, |v| v.min(max))
                }
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn within(self, max: usize) -> Option<usize> {
                if self < 0 {
                    None
                } else {
                    usize::try_from(self).ok().filter(|&v| v <= max)
                }
            }
        }
    )*};
}
index_value!(i8, i16, i32, i64, u8, u16, u32, u64);

/// The index array and what its vectors index (shared by gather and scatter).
#[derive(Clone, Copy, Debug)]
pub struct Starts<'a> {
    /// Dimensions of the index array; when `index_vector_dim` equals its rank, pass them with
    /// the implicit trailing 1 appended.
    pub dims: &'a [usize],
    /// The dimension holding the start vectors.
    pub index_vector_dim: usize,
    /// `map[k]`: the operand dimension component `k` of a vector indexes.
    pub map: &'a [usize],
    /// `(operand dimension, index-array dimension)` pairs indexed by the position itself.
    pub batching: &'a [(usize, usize)],
}

/// [`Starts`] checked against an operand, with the strides positions are read with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Positions {
    /// Sizes of the position dimensions (the index dims but `index_vector_dim`), in order.
    pub sizes: [usize; MAX_INDEX_DIMS],
    pub rank: usize,
    /// Index-array stride of each position dimension, and of the vector dimension.
    strides: [usize; MAX_INDEX_DIMS],
    vector_stride: usize,
    /// `(operand dim, operand stride)` of each vector component.
    map: [(usize, usize); MAX_INDEX_DIMS],
    map_len: usize,
    /// `(position dim, operand stride)` of each batching pair.
    batching: [(usize, usize); MAX_INDEX_DIMS],
    batching_len: usize,
    /// Number of positions and of index elements.
    pub count: usize,
    pub len: usize,
}

/// Row-major strides of `dims` (at most [`MAX_INDEX_DIMS`] of them, checked by callers).
pub(crate) fn strides(dims: &[usize]) -> [usize; MAX_INDEX_DIMS] {
    let mut s = [0usize; MAX_INDEX_DIMS];
    let mut acc = 1usize;
    for d in (0..dims.len()).rev() {
        s[d] = acc;
        acc = acc.saturating_mul(dims[d]);
    }
    s
}

impl Positions {
    /// Checks `starts` against an operand of `operand` dims (row-major strides `ostrides`);
    /// `op` names the kernel in errors.
    pub(crate) fn new(
        op: &'static str,
        starts: &Starts<'_>,
        operand: &[usize],
        ostrides: &[usize],
    ) -> Result<Positions, KernelError> {
        let (dims, ivd) = (starts.dims, starts.index_vector_dim);
        if dims.len() > MAX_INDEX_DIMS || operand.len() > MAX_RANK || ivd >= dims.len() {
            return Err(KernelError::invalid(
                op,
                format!(
                    "index dims {dims:?} with index_vector_dim {ivd}, operand rank {}",
                    operand.len()
                ),
            ));
        }
        if starts.map.len() != dims[ivd] || starts.batching.len() > MAX_RANK {
            return Err(KernelError::invalid(
                op,
                format!(
                    "{} map entries for vectors of {}",
                    starts.map.len(),
                    dims[ivd]
                ),
            ));
        }
        let istrides = strides(dims);
        let mut p = Positions {
            sizes: [0; MAX_INDEX_DIMS],
            rank: 0,
            strides: [0; MAX_INDEX_DIMS],
            vector_stride: istrides[ivd],
            map: [(0, 0); MAX_INDEX_DIMS],
            map_len: starts.map.len(),
            batching: [(0, 0); MAX_INDEX_DIMS],
            batching_len: starts.batching.len(),
            count: 1,
            len: element_count(op, dims)?,
        };
        for (d, &n) in dims.iter().enumerate().filter(|&(d, _)| d != ivd) {
            p.sizes[p.rank] = n;
            p.strides[p.rank] = istrides[d];
            p.rank += 1;
            p.count *= n;
        }
        for (k, &od) in starts.map.iter().enumerate() {
            let repeated =
                starts.map[..k].contains(&od) || starts.batching.iter().any(|b| b.0 == od);
            if od >= operand.len() || repeated {
                return Err(KernelError::invalid(
                    op,
                    format!(
                        "map {:?} with batching {:?}: entry {od}",
                        starts.map, starts.batching
                    ),
                ));
            }
            p.map[k] = (od, ostrides[od]);
        }
        for (j, &(od, id)) in starts.batching.iter().enumerate() {
            let repeated = starts.batching[..j].iter().any(|b| b.0 == od || b.1 == id);
            if od >= operand.len()
                || id >= dims.len()
                || id == ivd
                || dims[id] > operand[od]
                || repeated
            {
                return Err(KernelError::invalid(
                    op,
                    format!("batching pair ({od}, {id})"),
                ));
            }
            let pd = if id < ivd { id } else { id - 1 };
            p.batching[j] = (pd, ostrides[od]);
        }
        Ok(p)
    }

    /// Index-array offset of position `pos`'s vector.
    #[inline]
    fn vector_at(&self, pos: &[usize]) -> usize {
        index_offset(pos, &self.strides[..self.rank])
    }

    /// Operand offset of position `pos`'s start, each component clamped to `max[d]`
    /// (gather's rule).
    #[inline]
    pub(crate) fn clamped_start<I: IndexValue>(
        &self,
        pos: &[usize],
        indices: &[I],
        max: &[usize],
    ) -> usize {
        let at = self.vector_at(pos);
        let mut off = 0;
        for (k, &(od, os)) in self.map[..self.map_len].iter().enumerate() {
            off += indices[at + k * self.vector_stride].clamped(max[od]) * os;
        }
        for &(pd, os) in &self.batching[..self.batching_len] {
            off += pos[pd] * os;
        }
        off
    }

    /// Operand offset of position `pos`'s start when every component `d` is in `0..=max[d]`
    /// (scatter's rule: the window fits), else `None`.
    #[inline]
    pub(crate) fn start_within<I: IndexValue>(
        &self,
        pos: &[usize],
        indices: &[I],
        max: &[Option<usize>],
    ) -> Option<usize> {
        let at = self.vector_at(pos);
        let mut off = 0;
        for (k, &(od, os)) in self.map[..self.map_len].iter().enumerate() {
            off += indices[at + k * self.vector_stride].within(max[od]?)? * os;
        }
        for &(pd, os) in &self.batching[..self.batching_len] {
            off += pos[pd] * os;
        }
        Some(off)
    }
}

/// `sum_d idx[d] strides[d]` (over the shorter slice): the offset of a multi-index, written
/// out for up to three dimensions. As a loop, an AVX-512 build vectorised it into masked
/// loads of an index array just written element by element (a store-forwarding stall) and
/// `vpmullq`: 86% of the gather's samples in a native build, whose 4096-row embedding gather
/// ran at 550-563 us against 355-387 in a default build.
#[inline]
pub(crate) fn index_offset(idx: &[usize], strides: &[usize]) -> usize {
    match (idx, strides) {
        ([], _) | (_, []) => 0,
        ([a], [s, ..]) | ([a, ..], [s]) => a * s,
        ([a, b], [s, t, ..]) | ([a, b, ..], [s, t]) => a * s + b * t,
        ([a, b, c], [s, t, u, ..]) | ([a, b, c, ..], [s, t, u]) => a * s + b * t + c * u,
        _ => idx.iter().zip(strides).map(|(i, s)| i * s).sum(),
    }
}

/// Advances the row-major multi-index `idx` of `sizes` by one (wrapping to zeros at the end).
#[inline]
pub(crate) fn advance(idx: &mut [usize], sizes: &[usize]) {
    for d in (0..idx.len()).rev() {
        idx[d] += 1;
        if idx[d] < sizes[d] {
            return;
        }
        idx[d] = 0;
    }
}

/// Sets `idx` to the row-major multi-index of `flat` in `sizes`.
pub(crate) fn unflatten(mut flat: usize, sizes: &[usize], idx: &mut [usize]) {
    for d in (0..sizes.len()).rev() {
        let n = sizes[d].max(1);
        idx[d] = flat % n;
        flat /= n;
    }
}

/// A gather's shapes and dimension numbers, as row-major dimensions.
#[derive(Clone, Copy, Debug)]
pub struct GatherDesc<'a> {
    /// Operand dimensions.
    pub operand: &'a [usize],
    /// The index array and what its vectors index.
    pub starts: Starts<'a>,
    /// The slice taken at each start, one size per operand dimension; dimensions that are not
    /// window dimensions have size 1.
    pub slice_sizes: &'a [usize],
    /// Output dimensions (the batch dimensions are the positions', in order).
    pub out: &'a [usize],
    /// Output dimensions indexing inside the slice, ascending.
    pub offset_dims: &'a [usize],
    /// The operand dimension each offset dimension walks, ascending.
    pub window_dims: &'a [usize],
}

/// What [`gather`] needs per row, checked once.
struct Plan {
    pos: Positions,
    /// Per output dimension: `Some(operand stride)` for an offset dimension, `None` for a
    /// batch dimension (its position dimension is the count of batch dimensions before it).
    roles: [Option<usize>; MAX_INDEX_DIMS],
    /// Largest start per operand dimension: `size - slice_size`.
    max: [usize; MAX_INDEX_DIMS],
}

fn plan(
    d: &GatherDesc<'_>,
    operand_len: usize,
    indices_len: usize,
    out_len: usize,
) -> Result<Plan, KernelError> {
    let op = "gather";
    let bad = |why: String| KernelError::invalid(op, why);
    KernelError::check_len(op, "operand", element_count(op, d.operand)?, operand_len)?;
    KernelError::check_len(op, "out", element_count(op, d.out)?, out_len)?;
    let ostrides = strides(d.operand);
    let pos = Positions::new(op, &d.starts, d.operand, &ostrides[..d.operand.len()])?;
    KernelError::check_len(op, "indices", pos.len, indices_len)?;
    let rank = d.operand.len();
    if d.slice_sizes.len() != rank || d.offset_dims.len() != d.window_dims.len() {
        return Err(bad(format!(
            "slice sizes {:?}, offset dims {:?}, window dims {:?}",
            d.slice_sizes, d.offset_dims, d.window_dims
        )));
    }
    if d.out.len() != d.offset_dims.len() + pos.rank || d.out.len() > MAX_INDEX_DIMS {
        return Err(bad(format!(
            "output dims {:?} for {} offset and {} batch dims",
            d.out,
            d.offset_dims.len(),
            pos.rank
        )));
    }
    let mut max = [0usize; MAX_INDEX_DIMS];
    for (dim, (&s, &n)) in d.slice_sizes.iter().zip(d.operand).enumerate() {
        if s > n || (s != 1 && !d.window_dims.contains(&dim)) {
            return Err(bad(format!(
                "slice size {s} of operand dimension {dim} (size {n})"
            )));
        }
        max[dim] = n - s;
    }
    let mut roles = [None; MAX_INDEX_DIMS];
    let (mut w, mut b) = (0, 0);
    for (o, &size) in d.out.iter().enumerate() {
        if d.offset_dims.get(w) == Some(&o) {
            let od = d.window_dims[w];
            if od >= rank || (w > 0 && od <= d.window_dims[w - 1]) || d.slice_sizes[od] != size {
                return Err(bad(format!(
                    "window dims {:?} against output {:?}",
                    d.window_dims, d.out
                )));
            }
            roles[o] = Some(ostrides[od]);
            w += 1;
        } else {
            if pos.sizes[b] != size {
                return Err(bad(format!(
                    "output dims {:?} against the positions",
                    d.out
                )));
            }
            b += 1;
        }
    }
    if w != d.offset_dims.len() {
        return Err(bad(format!(
            "offset dims {:?} not ascending in 0..{}",
            d.offset_dims,
            d.out.len()
        )));
    }
    Ok(Plan { pos, roles, max })
}

/// `out = Gather(operand, indices)` as `d` describes (see the module docs). `Err` (nothing
/// written) when the descriptor or a buffer length is inconsistent.
pub fn gather<T: Copy + Send + Sync, I: IndexValue>(
    d: &GatherDesc<'_>,
    operand: &[T],
    indices: &[I],
    out: &mut [T],
) -> Result<(), KernelError> {
    let p = plan(d, operand.len(), indices.len(), out.len())?;
    if out.is_empty() {
        return Ok(());
    }
    // Rows of the last output dimension (one row for a scalar output).
    let (outer, inner) = match d.out.split_last() {
        Some((&n, rest)) => (rest, n),
        None => (&[][..], 1),
    };
    let last = d.out.len().checked_sub(1);
    let inner_role = last.and_then(|l| p.roles[l]);
    crate::par::rows_with_threshold(out, inner, 1 << 16, |first, block| {
        let mut oidx = [0usize; MAX_INDEX_DIMS];
        unflatten(first, outer, &mut oidx[..outer.len()]);
        for row in block.chunks_mut(inner) {
            gather_row(&p, &oidx[..outer.len()], inner_role, operand, indices, row);
            advance(&mut oidx[..outer.len()], outer);
        }
    });
    Ok(())
}

/// One output row at outer index `oidx`: its batch coordinates give the position, its offset
/// coordinates the window offset; the last dimension is a window run (`Some(stride)`) or a run
/// of positions (`None`).
#[inline]
fn gather_row<T: Copy, I: IndexValue>(
    p: &Plan,
    oidx: &[usize],
    inner_role: Option<usize>,
    operand: &[T],
    indices: &[I],
    row: &mut [T],
) {
    let mut pos = [0usize; MAX_INDEX_DIMS];
    let (mut nb, mut woff) = (0, 0);
    for (o, &i) in oidx.iter().enumerate() {
        match p.roles[o] {
            Some(stride) => woff += i * stride,
            None => {
                pos[nb] = i;
                nb += 1;
            }
        }
    }
    match inner_role {
        Some(stride) => {
            let base = p.pos.clamped_start(&pos[..p.pos.rank], indices, &p.max) + woff;
            if stride == 1 {
                row.copy_from_slice(&operand[base..base + row.len()]);
            } else {
                for (k, x) in row.iter_mut().enumerate() {
                    *x = operand[base + k * stride];
                }
            }
        }
        None => {
            for (k, x) in row.iter_mut().enumerate() {
                pos[nb] = k;
                *x = operand[p.pos.clamped_start(&pos[..p.pos.rank], indices, &p.max) + woff];
            }
        }
    }
}

#[cfg(test)]
mod tests;
