//! Sort along one dimension of a row-major array of any rank, and TopK.
//!
//! A "row" is the `n = dims[dimension]` elements `base + k * inner` (`k < n`, `inner` = product
//! of the dims after `dimension`); rows are sorted independently.
//!
//! - [`sort`]: one operand in place, in its [`SortKey`] order (XLA's total order for floats:
//!   -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN), ascending or descending.
//! - [`sort_permutation`]: the stable permutation that sorts one key operand; apply it to any
//!   number of payload operands with [`apply_permutation`] (XLA's multi-operand sort whose
//!   comparator looks at the first operand only).
//! - [`sort_permutation_by`]: any comparator over flat element indices (`less(a, b)`), for
//!   comparators that look at several operands; a stable merge sort that never panics, even if
//!   `less` is not a strict weak order (the result is then some permutation).
//! - [`top_k`]: the `k` largest (or smallest) along the last dim, values and s32 indices; ties
//!   go to the lower index first, as XLA.
//!
//! Fast paths: keys are mapped to unsigned integers ([`SortKey::to_key`]) and sorted with a
//! stable LSD radix sort ([`radix`]) from [`RADIX_MIN`] elements, with `sort_unstable` on the
//! integer keys below. Rows run in parallel on rayon (fixed blocks of whole rows, so the result
//! never depends on the thread count) from [`PAR_MIN_ELEMENTS`] elements.
//! [`sort_with_scratch`] takes its key buffers from a caller's [`SortScratch`] (one slot per
//! task, sized by the shapes alone): allocation-free once warm (`tests/no_alloc.rs`
//! counts); [`sort`] makes a fresh one per call.
//!
//! TopK with small `k` is one pass per row: the `k` best so far sorted in a stack array, and
//! each chunk of [`SKIP_CHUNK`] elements compared at once with the current `k`-th best
//! ([`SortKey::candidates`], a vector compare for f32/f64), so only the few lanes that may
//! enter the list are looked at one by one (on random data about `k (1 + ln(n / k))` per row).
//!
//! Speed (`CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" cargo run --release
//! -p xla-kernels --example k3a_speed sort`, 2-core AMD EPYC AVX2, machine loaded by other
//! builds, so best-of-9 process CPU time with `CPU=1`, binaries of the session start and of
//! now alternated three times): top_k k=5 of `f32[1024,1024]` 1.9-3.3 ms before, 1.03-1.07 ms
//! after (1.0 ms on one thread); sort `f32[1M]` 24.6-25.8 ms before, 17.8-22.3 ms after (the
//! bucket split no longer collects a Vec of pieces); sort of `f32[1024,1024]` rows 17.2-18.7 ms
//! before, 17.2-17.5 ms after (16.9-17.3 ms with a warm scratch).

pub mod radix;

use rayon::prelude::*;

use crate::error::{element_count, KernelError};
pub use radix::{RadixKey, SortKey, SKIP_CHUNK};

/// Rows of at least this many elements use the radix sort; shorter ones sort their integer
/// keys with `sort_unstable` (a radix pass costs a 256-bucket histogram scan, too much for
/// short rows).
pub const RADIX_MIN: usize = 256;

/// Below this many elements in total, sorting runs on the caller's thread.
pub const PAR_MIN_ELEMENTS: usize = 1 << 14;

/// A single row at least this long is split by its most significant key byte into buckets
/// sorted on several threads; shorter ones are one radix sort.
pub const PAR_SPLIT_MIN: usize = 1 << 17;

/// Elements per parallel task (whole slabs of `n * inner` elements, at least one).
pub const PAR_TASK_ELEMENTS: usize = 1 << 14;

/// TopK with `k` up to this keeps a sorted list of the best `k` in one pass over each row (an
/// insertion costs O(k)); larger `k` selects with `select_nth_unstable` then sorts `k`.
pub const TOPK_INSERT_MAX: usize = 32;

/// Sort direction in the element type's [`SortKey`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Smallest first (XLA comparator `LT`).
    Ascending,
    /// Largest first (XLA comparator `GT`).
    Descending,
}

/// The row geometry of `dims` along `dimension`: `(outer, n, inner)`.
fn geometry(
    op: &'static str,
    dims: &[usize],
    dimension: usize,
) -> Result<(usize, usize, usize, usize), KernelError> {
    if dimension >= dims.len() {
        return Err(KernelError::invalid(
            op,
            format!(
                "dimension {dimension} is out of range for dims {dims:?} (rank {})",
                dims.len()
            ),
        ));
    }
    let total = element_count(op, dims)?;
    let n = dims[dimension];
    if n > u32::MAX as usize {
        return Err(KernelError::invalid(
            op,
            format!("dimension {dimension} has {n} elements, more than u32 indices hold"),
        ));
    }
    let inner: usize = dims[dimension + 1..].iter().product();
    let outer: usize = dims[..dimension].iter().product();
    Ok((outer, n, inner, total))
}

/// Runs `f(first_slab, chunk)` over `out` cut into blocks of whole slabs of `slab_len`
/// elements, in parallel when `out.len() >= PAR_MIN_ELEMENTS`:
/// [`crate::par::rows_with_threshold`] with slabs as rows, except that `f` is never called on
/// an empty `out`.
fn slabs<O: Send>(out: &mut [O], slab_len: usize, f: impl Fn(usize, &mut [O]) + Sync + Send) {
    if !out.is_empty() {
        crate::par::rows_with_threshold(out, slab_len, PAR_MIN_ELEMENTS, f);
    }
}

// `slabs` cuts blocks of about `par::PAR_BLOCK_ELEMENTS`: keep it this module's task size.
const _: () = assert!(PAR_TASK_ELEMENTS == crate::par::PAR_BLOCK_ELEMENTS);

/// Reusable key buffers for [`sort_with_scratch`]: they grow to the largest problem seen and
/// are then reused, so a warm scratch makes the sort allocation-free (also on the rayon path).
#[derive(Clone, Debug, Default)]
pub struct SortScratch {
    k32: Vec<u32>,
    k64: Vec<u64>,
}

impl SortScratch {
    /// An empty scratch (nothing allocated until the first sort).
    pub fn new() -> Self {
        Self::default()
    }

    /// The buffer of key type `K`, at least `len` long (grown, never shrunk).
    fn keys<K: RadixKey>(&mut self, len: usize) -> &mut [K] {
        let buf = K::buffer(self);
        if buf.len() < len {
            buf.resize(len, K::default());
        }
        &mut buf[..len]
    }
}

/// Sorts `data` (row-major, shape `dims`) in place along `dimension`; [`sort_with_scratch`]
/// with a fresh scratch (one allocation per call).
///
/// Equal keys are bit-identical, so stability is moot here. Errors (nothing written):
/// `dimension >= rank`, a length mismatch, or a row longer than `u32::MAX`.
pub fn sort<T: SortKey>(
    data: &mut [T],
    dims: &[usize],
    dimension: usize,
    order: Order,
) -> Result<(), KernelError> {
    sort_with_scratch(data, dims, dimension, order, &mut SortScratch::new())
}

/// [`sort`] with caller-owned key buffers: allocation-free once `scratch` has served a problem
/// at least this large. Scratch needed: `2 n` keys for one long row, else `n` (plus `n` from
/// [`RADIX_MIN`]) per parallel task of whole slabs.
pub fn sort_with_scratch<T: SortKey>(
    data: &mut [T],
    dims: &[usize],
    dimension: usize,
    order: Order,
    scratch: &mut SortScratch,
) -> Result<(), KernelError> {
    const OP: &str = "sort";
    let (_, n, inner, total) = geometry(OP, dims, dimension)?;
    KernelError::check_len(OP, "data", total, data.len())?;
    if n <= 1 || total == 0 {
        return Ok(());
    }
    if total == n && n >= PAR_SPLIT_MIN {
        let buf = scratch.keys::<T::Key>(2 * n);
        sort_one_long_row(data, order, buf);
        return Ok(());
    }
    let radix = n >= RADIX_MIN;
    let per_row = if radix { 2 * n } else { n };
    let slab = n * inner;
    // The same task split as `slabs`: one scratch slot of `per_row` keys per task.
    let per_task = (PAR_TASK_ELEMENTS / slab).max(1);
    let parallel = total >= PAR_MIN_ELEMENTS && total > slab;
    let tasks = if parallel {
        total.div_ceil(per_task * slab)
    } else {
        1
    };
    let buf = scratch.keys::<T::Key>(tasks * per_row);
    let job = |chunk: &mut [T], buf: &mut [T::Key]| {
        let (keys, tk) = buf.split_at_mut(n);
        for slab in chunk.chunks_exact_mut(slab) {
            for i in 0..inner {
                keys.iter_mut()
                    .enumerate()
                    .for_each(|(k, x)| *x = slab[i + k * inner].to_key());
                if radix {
                    radix::radix_sort(keys, &mut [], &mut tk[..n], &mut []);
                } else {
                    keys.sort_unstable();
                }
                let (n1, ascending) = (n - 1, order == Order::Ascending);
                for (k, &key) in keys.iter().enumerate() {
                    let pos = if ascending { k } else { n1 - k };
                    slab[i + pos * inner] = T::from_key(key);
                }
            }
        }
    };
    if parallel {
        data.par_chunks_mut(per_task * slab)
            .zip(buf.par_chunks_mut(per_row))
            .for_each(|(c, b)| job(c, b));
    } else {
        job(data, buf);
    }
    Ok(())
}

/// One row of at least [`PAR_SPLIT_MIN`] elements: one most-significant-byte counting pass
/// scatters the keys into 256 buckets, then the buckets (a few KiB each on spread data, in
/// cache) are radix-sorted on the remaining bytes in parallel. A sort of keys is exact, so the
/// result is the same for any thread count. `buf` holds `2 * data.len()` keys.
fn sort_one_long_row<T: SortKey>(data: &mut [T], order: Order, buf: &mut [T::Key]) {
    let (keys, sorted) = buf.split_at_mut(data.len());
    keys.par_iter_mut()
        .zip(data.par_iter())
        .for_each(|(k, x)| *k = x.to_key());
    let top = T::Key::BYTES - 1;
    let mut counts = [0usize; 256];
    keys.iter().for_each(|k| counts[k.byte(top)] += 1);
    let mut next = [0usize; 256];
    let mut sum = 0;
    for (s, &c) in next.iter_mut().zip(&counts) {
        *s = sum;
        sum += c;
    }
    for &k in keys.iter() {
        let slot = &mut next[k.byte(top)];
        sorted[*slot] = k;
        *slot += 1;
    }
    // `keys` is free to serve as the buckets' radix scratch.
    sort_buckets(sorted, keys, &counts);
    match order {
        Order::Ascending => data
            .par_iter_mut()
            .zip(sorted.par_iter())
            .for_each(|(x, &k)| *x = T::from_key(k)),
        Order::Descending => data
            .par_iter_mut()
            .zip(sorted.par_iter().rev())
            .for_each(|(x, &k)| *x = T::from_key(k)),
    }
}

/// Radix-sorts the consecutive buckets of `b` (sizes `counts`; `t` is scratch of the same
/// length), halves of the bucket list in parallel. The top byte is constant in a bucket, so
/// radix_sort skips its pass.
fn sort_buckets<K: RadixKey>(b: &mut [K], t: &mut [K], counts: &[usize]) {
    if counts.len() == 1 {
        if b.len() > 1 {
            radix::radix_sort(b, &mut [], t, &mut []);
        }
        return;
    }
    let mid = counts.len() / 2;
    let left: usize = counts[..mid].iter().sum();
    let (bl, br) = b.split_at_mut(left);
    let (tl, tr) = t.split_at_mut(left);
    rayon::join(
        || sort_buckets(bl, tl, &counts[..mid]),
        || sort_buckets(br, tr, &counts[mid..]),
    );
}

/// Fills `perm` (shape `dims`) with the stable sorting permutation of `keys` along
/// `dimension`: `perm[.., k, ..]` is the position along `dimension` of the element that goes
/// to position `k`. Equal keys keep their original order in both directions.
pub fn sort_permutation<T: SortKey>(
    keys: &[T],
    dims: &[usize],
    dimension: usize,
    order: Order,
    perm: &mut [u32],
) -> Result<(), KernelError> {
    const OP: &str = "sort_permutation";
    let (_, n, inner, total) = geometry(OP, dims, dimension)?;
    KernelError::check_len(OP, "keys", total, keys.len())?;
    KernelError::check_len(OP, "perm", total, perm.len())?;
    let slab_len = n * inner;
    slabs(perm, slab_len, |first, chunk| {
        let radix = n >= RADIX_MIN;
        let (mut k, mut v) = (vec![T::Key::default(); n], vec![0u32; n]);
        let (mut tk, mut tv) = (k.clone(), v.clone());
        let mut pairs: Vec<(T::Key, u32)> = Vec::with_capacity(if radix { 0 } else { n });
        for (s, slab) in chunk.chunks_exact_mut(slab_len.max(1)).enumerate() {
            let base = (first + s) * slab_len;
            for i in 0..inner {
                let key = |j: usize| {
                    let key = keys[base + i + j * inner].to_key();
                    match order {
                        Order::Ascending => key,
                        // Not reverses the order and keeps ties in index order (stable).
                        Order::Descending => key.not(),
                    }
                };
                if radix {
                    k.iter_mut().enumerate().for_each(|(j, x)| *x = key(j));
                    v.iter_mut().enumerate().for_each(|(j, x)| *x = j as u32);
                    radix::radix_sort(&mut k, &mut v, &mut tk, &mut tv);
                    v.iter()
                        .enumerate()
                        .for_each(|(j, &p)| slab[i + j * inner] = p);
                } else {
                    // (key, index) pairs are distinct, so the unstable sort is stable.
                    pairs.clear();
                    pairs.extend((0..n).map(|j| (key(j), j as u32)));
                    pairs.sort_unstable();
                    pairs
                        .iter()
                        .enumerate()
                        .for_each(|(j, p)| slab[i + j * inner] = p.1);
                }
            }
        }
    });
    Ok(())
}

/// Fills `perm` (shape `dims`) with a permutation sorting each row along `dimension` by
/// `less(a, b)`, which compares the elements at flat row-major indices `a` and `b` (so it can
/// look at any number of operands of shape `dims`). The sort is stable whatever `stable` says
/// (a stable result is a valid unstable one); it never panics, even when `less` is not a
/// strict weak order.
pub fn sort_permutation_by(
    dims: &[usize],
    dimension: usize,
    stable: bool,
    less: impl Fn(usize, usize) -> bool + Sync + Send,
    perm: &mut [u32],
) -> Result<(), KernelError> {
    const OP: &str = "sort_permutation_by";
    let _ = stable;
    let (_, n, inner, total) = geometry(OP, dims, dimension)?;
    KernelError::check_len(OP, "perm", total, perm.len())?;
    let slab_len = n * inner;
    slabs(perm, slab_len, |first, chunk| {
        let (mut idx, mut tmp) = (vec![0u32; n], vec![0u32; n]);
        for (s, slab) in chunk.chunks_exact_mut(slab_len.max(1)).enumerate() {
            let base = (first + s) * slab_len;
            for i in 0..inner {
                let flat = |j: u32| base + i + j as usize * inner;
                idx.iter_mut().enumerate().for_each(|(j, x)| *x = j as u32);
                merge_sort_by(&mut idx, &mut tmp, &|a, b| less(flat(a), flat(b)));
                idx.iter()
                    .enumerate()
                    .for_each(|(j, &p)| slab[i + j * inner] = p);
            }
        }
    });
    Ok(())
}

/// Runs shorter than this are sorted by insertion before merging.
const MERGE_RUN: usize = 16;

/// Stable bottom-up merge sort of `idx` by `less`; `tmp` is scratch of the same length. Only
/// ever permutes `idx`, whatever `less` answers.
fn merge_sort_by(idx: &mut [u32], tmp: &mut [u32], less: &impl Fn(u32, u32) -> bool) {
    let n = idx.len();
    for run in idx.chunks_mut(MERGE_RUN) {
        for a in 1..run.len() {
            let mut b = a;
            while b > 0 && less(run[b], run[b - 1]) {
                run.swap(b, b - 1);
                b -= 1;
            }
        }
    }
    let mut width = MERGE_RUN;
    let mut in_tmp = false;
    while width < n {
        let (src, dst) = if in_tmp {
            (&*tmp, &mut *idx)
        } else {
            (&*idx, &mut *tmp)
        };
        for lo in (0..n).step_by(2 * width) {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut a, mut b) = (lo, mid);
            for slot in dst[lo..hi].iter_mut() {
                // Take from the right only if strictly less: equal elements keep their order.
                if b < hi && (a >= mid || less(src[b], src[a])) {
                    *slot = src[b];
                    b += 1;
                } else {
                    *slot = src[a];
                    a += 1;
                }
            }
        }
        in_tmp = !in_tmp;
        width *= 2;
    }
    if in_tmp {
        idx.copy_from_slice(tmp);
    }
}

/// `dst[.., k, ..] = src[.., perm[.., k, ..], ..]` along `dimension` (all of shape `dims`):
/// applies a permutation from [`sort_permutation`] or [`sort_permutation_by`] to an operand.
///
/// Errors (nothing written): bad geometry, length mismatch, or a `perm` entry `>= n`.
pub fn apply_permutation<T: Copy + Send + Sync>(
    src: &[T],
    dims: &[usize],
    dimension: usize,
    perm: &[u32],
    dst: &mut [T],
) -> Result<(), KernelError> {
    const OP: &str = "apply_permutation";
    let (_, n, inner, total) = geometry(OP, dims, dimension)?;
    KernelError::check_len(OP, "src", total, src.len())?;
    KernelError::check_len(OP, "perm", total, perm.len())?;
    KernelError::check_len(OP, "dst", total, dst.len())?;
    if let Some(p) = perm.iter().position(|&p| p as usize >= n) {
        return Err(KernelError::invalid(
            OP,
            format!(
                "perm[{p}] = {} is out of range for dimension {dimension} of size {n}",
                perm[p]
            ),
        ));
    }
    let slab_len = n * inner;
    slabs(dst, slab_len, |first, chunk| {
        let base = first * slab_len;
        for (o, x) in chunk.iter_mut().enumerate() {
            let flat = base + o;
            let (slab, i) = (flat / slab_len.max(1), flat % inner.max(1));
            *x = src[slab * slab_len + i + perm[flat] as usize * inner];
        }
    });
    Ok(())
}

/// TopK along the last dim of `operand` (shape `dims`, rank >= 1): `values` and `indices`
/// (shape `dims` with the last dim replaced by `k`) hold, per row, the `k` largest elements
/// (`largest`, in descending order) or the `k` smallest (ascending) in the [`SortKey`] order,
/// and their positions; equal elements come lower index first.
///
/// Errors: rank 0, `k > dims[last]`, a length mismatch, or a row longer than `i32::MAX`.
pub fn top_k<T: SortKey>(
    operand: &[T],
    dims: &[usize],
    k: usize,
    largest: bool,
    values: &mut [T],
    indices: &mut [i32],
) -> Result<(), KernelError> {
    const OP: &str = "top_k";
    if dims.is_empty() {
        return Err(KernelError::invalid(
            OP,
            "the operand must have rank >= 1, got dims []",
        ));
    }
    let last = dims.len() - 1;
    let (_, n, _, total) = geometry(OP, dims, last)?;
    if k > n || n > i32::MAX as usize {
        return Err(KernelError::invalid(
            OP,
            format!("k = {k} must be at most the last dim of {dims:?} (and that below 2^31)"),
        ));
    }
    KernelError::check_len(OP, "operand", total, operand.len())?;
    let rows = total.checked_div(n).unwrap_or(0);
    // With n == 0 the row count is the product of the other dims (all outputs are empty).
    KernelError::check_len(OP, "values", rows * k, values.len())?;
    KernelError::check_len(OP, "indices", rows * k, indices.len())?;
    if k == 0 || rows == 0 {
        return Ok(());
    }
    let job = |first: usize, vals: &mut [T], idxs: &mut [i32]| {
        let mut pairs: Vec<(T::Key, u32)> = Vec::with_capacity(n);
        for (r, (vrow, irow)) in vals
            .chunks_exact_mut(k)
            .zip(idxs.chunks_exact_mut(k))
            .enumerate()
        {
            let row = &operand[(first + r) * n..][..n];
            pairs.clear();
            // Largest first = ascending in the reversed key; the index breaks ties lower first.
            let ranked = |j: usize, x: &T| {
                let key = x.to_key();
                (if largest { key.not() } else { key }, j as u32)
            };
            if k <= TOPK_INSERT_MAX && k < n {
                // One pass keeping the k best sorted: most elements fail the one comparison
                // with the current k-th best, and whole chunks of SKIP_CHUNK fail it at once
                // (a vector compare). A later equal element never displaces an earlier one (its
                // index is larger), so ties keep the lower index.
                // The k best so far, sorted, in a stack array: an insertion shifts at most k
                // entries in place (no Vec insert / pop calls).
                let mut best = [(T::Key::default(), 0u32); TOPK_INSERT_MAX];
                let mut len = 0usize;
                let insert = |best: &mut [(T::Key, u32)], len: &mut usize, j: usize, x: &T| {
                    let c = ranked(j, x);
                    let mut i = *len;
                    if i == k {
                        if c >= best[k - 1] {
                            return;
                        }
                        i = k - 1;
                    } else {
                        *len += 1;
                    }
                    while i > 0 && best[i - 1] > c {
                        best[i] = best[i - 1];
                        i -= 1;
                    }
                    best[i] = c;
                };
                let mut chunks = row.chunks_exact(SKIP_CHUNK);
                let mut kth: Option<T> = None;
                for (c, chunk) in (&mut chunks).enumerate() {
                    let chunk: &[T; SKIP_CHUNK] = chunk.try_into().expect("a full chunk");
                    let mut maybe = match kth {
                        Some(t) => T::candidates(chunk, t, largest),
                        None => (1 << SKIP_CHUNK) - 1,
                    };
                    // Only the lanes that may beat the k-th best, each checked exactly.
                    while maybe != 0 {
                        let q = maybe.trailing_zeros() as usize;
                        maybe &= maybe - 1;
                        insert(&mut best, &mut len, c * SKIP_CHUNK + q, &chunk[q]);
                    }
                    if len == k {
                        let key = best[k - 1].0;
                        kth = Some(T::from_key(if largest { key.not() } else { key }));
                    }
                }
                let j0 = n - chunks.remainder().len();
                for (q, x) in chunks.remainder().iter().enumerate() {
                    insert(&mut best, &mut len, j0 + q, x);
                }
                pairs.extend_from_slice(&best[..k]);
            } else {
                pairs.extend(row.iter().enumerate().map(|(j, x)| ranked(j, x)));
                if k < n {
                    pairs.select_nth_unstable(k - 1);
                }
                pairs[..k].sort_unstable();
            }
            for ((v, i), &(key, j)) in vrow.iter_mut().zip(irow.iter_mut()).zip(&pairs[..k]) {
                *v = T::from_key(if largest { key.not() } else { key });
                *i = j as i32;
            }
        }
    };
    if total < PAR_MIN_ELEMENTS || rows == 1 {
        job(0, values, indices);
    } else {
        let per_task = (PAR_TASK_ELEMENTS / n).max(1);
        values
            .par_chunks_mut(per_task * k)
            .zip(indices.par_chunks_mut(per_task * k))
            .enumerate()
            .for_each(|(t, (v, i))| job(t * per_task, v, i));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
