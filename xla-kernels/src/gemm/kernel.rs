//! The packed f32/f64 GEMM: Goto/BLIS loop nest over [`NC`]-column panels of B and [`KC`]-deep
//! slices of k (B packed once per slice, shared by the threads), row blocks of A (whole
//! `MR`-row panels dealt out evenly, about [`MC`] rows each, packed per task, run on rayon), and
//! an `MR x NR` register tile (`NR = 2 * LANES`) accumulated with vector multiply-adds.
//!
//! Why this shape (measured on the 2-core AVX2+FMA EPYC of this project, 16 vector registers):
//! - 6 x 16 tile: 12 accumulators + 2 B vectors + 1 broadcast. In L1 it runs at 88-91 GFLOP/s
//!   on one core against 95 for a loop of independent FMAs (a throwaway microbenchmark, best of
//!   5 rounds); a 4 x 24 tile (7 loads per 12 FMAs instead of 8) measured 89-94, within the
//!   noise, so the tile stays 6 x 16.
//! - `KC` = 256: a 16 x 256 B micro-panel (16 KiB) and a 6 x 256 A panel fit L1 together. 384
//!   and 512 measured +2-4% on one thread for 1024^3 (fewer passes over C), too little to give
//!   up the L1 fit for the other shapes.
//! - C lines of each tile are prefetched before its k loop: C is read (or written) once per k
//!   slice, too rarely to stay cached, and without the prefetch a 1024^3 product lost 15% to
//!   C misses (1024x1024x256 ran at 84 GFLOP/s on one thread, 1024^3 at 71).
//! - Small operands (A + B <= [`UNPACKED_MAX_BYTES`]) and small `m` read row-major A and B in
//!   place: packing copies cost as much as the product there (64^3 55 -> 77 GFLOP/s;
//!   8x784x128 52 -> 64). Reading in place changes no arithmetic, so every path gives the
//!   same bits.
//! - Batches of small items run one item per task (work stealing over items) instead of one
//!   fork/join per item.
//!
//! Speed: see the table in the `gemm` module docs.

use core::ops::{Add, Mul};

use std::sync::Mutex;

use rayon::prelude::*;

use super::{offset, pack, small, GemmDesc, OutPtr};
use crate::simd::VFloat;

/// Rows of the register tile (with `NR = 2 * LANES` columns: 12 accumulators, which with two
/// B vectors and one A broadcast fits the 16 vector registers of AVX2).
pub(crate) const MR: usize = 6;
/// Depth of one k slice: an `NR x KC` B micro-panel (16 KiB of f32 at NR = 16) stays in L1.
pub(crate) const KC: usize = 256;
/// Maximum rows of a packed A block: `MC x KC` (120 KiB of f32) stays in L2.
pub(crate) const MC: usize = 120;
/// Maximum columns of a packed B panel: `KC x NC` (4 MiB of f32) stays in L3.
pub(crate) const NC: usize = 4096;
/// Up to this many rows of A, a row-major B is read in place instead of packed: packing costs
/// about as much as one row panel's multiply, so it pays only when several panels reuse it.
/// A row-major A is then read in place too (it is small, and packing it was 16% of the time
/// of an 8x784x128 product).
pub(crate) const DIRECT_B_MAX_M: usize = 4 * MR;
/// When A and B together take at most this many bytes, neither is packed (row-major rows are
/// read in place): they stay in L2 (512 KiB) for the whole product, so packing would only add
/// a copy.
pub(crate) const UNPACKED_MAX_BYTES: usize = 192 << 10;
/// Below `2 m n k` = this many flops a GEMM runs on the caller's thread (a rayon fork/join
/// costs about as much as 2M flops on one core).
pub(crate) const PAR_MIN_FLOPS: u128 = 1 << 21;
/// Batch items of at most this many flops each are spread over threads whole (one chunk of
/// items per thread, no fork/join per item) when the chunks balance.
pub(crate) const BATCH_PAR_MAX_ITEM_FLOPS: u128 = 1 << 28;

/// Lane types with a packed kernel.
pub(crate) trait FloatElem:
    Copy + Default + Send + Sync + 'static + Add<Output = Self> + Mul<Output = Self>
{
}
impl FloatElem for f32 {}
impl FloatElem for f64 {}

/// Packing buffers of one element type: B panel, one A block per task, and a set of both per
/// rayon worker for batch-parallel runs (locked by the worker running an item: uncontended).
pub(crate) struct Buffers<T> {
    b: Vec<T>,
    a: Vec<Vec<T>>,
    per_thread: Vec<Mutex<Buffers<T>>>,
}

impl<T> Default for Buffers<T> {
    fn default() -> Self {
        Buffers {
            b: Vec::new(),
            a: Vec::new(),
            per_thread: Vec::new(),
        }
    }
}

/// Strides of A, B and C as arrays `[batch, row, col]`.
pub(crate) fn strides(d: &GemmDesc) -> ([isize; 3], [isize; 3], [isize; 3]) {
    (
        [d.a_batch_stride, d.a_row_stride, d.a_col_stride],
        [d.b_batch_stride, d.b_row_stride, d.b_col_stride],
        [d.c_batch_stride, d.c_row_stride, d.c_col_stride],
    )
}

/// GEMM for a float vector type `V` on validated, non-empty (`batch, m, n > 0`) operands.
pub(crate) fn gemm_float<V: VFloat>(
    d: &GemmDesc,
    a: &[V::Elem],
    b: &[V::Elem],
    c: &mut [V::Elem],
    bufs: &mut Buffers<V::Elem>,
) where
    V::Elem: FloatElem,
{
    let sc = strides(d).2;
    let out = OutPtr::new(c);
    if d.k == 0 {
        if !d.accumulate {
            for bi in 0..d.batch {
                for i in 0..d.m {
                    for j in 0..d.n {
                        // SAFETY: single-threaded here; offsets validated.
                        unsafe { out.set(offset(bi, i, j, sc), V::Elem::default()) };
                    }
                }
            }
        }
        return;
    }
    if d.m == 1 && small::row_times_matrix::<V>(d, a, b, &out) {
        return;
    }
    if d.n == 1 && small::row_times_matrix::<V>(&d.transposed(), b, a, &out) {
        return;
    }
    if sc[2] != 1 && sc[1] == 1 {
        // Column-major C: compute C^T = B^T A^T instead, whose rows are contiguous (vector
        // stores); every element sums the same products in the same order.
        return packed::<V>(&d.transposed(), b, a, &out, bufs);
    }
    packed::<V>(d, a, b, &out, bufs)
}

/// The packed loop nest over the batch: whole items per thread when there are enough of them
/// and they are small, else one item after another, each split over the threads.
fn packed<V: VFloat>(
    d: &GemmDesc,
    a: &[V::Elem],
    b: &[V::Elem],
    out: &OutPtr<'_, V::Elem>,
    bufs: &mut Buffers<V::Elem>,
) where
    V::Elem: FloatElem,
{
    let per_item = GemmDesc { batch: 1, ..*d }.flops();
    let threads = rayon::current_num_threads().max(1);
    let chunks = threads.min(d.batch);
    // Fraction of the threads busy when items are dealt out whole, in eighths.
    let balance8 = 8 * d.batch / (chunks * d.batch.div_ceil(chunks));
    let by_item = chunks > 1
        && d.flops() >= PAR_MIN_FLOPS
        && (per_item < PAR_MIN_FLOPS || (per_item <= BATCH_PAR_MAX_ITEM_FLOPS && balance8 >= 7));
    if by_item {
        // One task per item (work stealing evens out a core shared with another process),
        // each with the buffers of the worker running it.
        if bufs.per_thread.len() < threads {
            bufs.per_thread.resize_with(threads, Default::default);
        }
        let per_thread = &bufs.per_thread[..];
        (0..d.batch).into_par_iter().for_each(|bi| {
            let slot = rayon::current_thread_index().and_then(|t| per_thread.get(t));
            match slot.and_then(|m| m.try_lock().ok()) {
                Some(mut bufs) => packed_item::<V>(d, bi, a, b, out, &mut bufs, false),
                None => packed_item::<V>(d, bi, a, b, out, &mut Buffers::default(), false),
            }
        });
    } else {
        let parallel = per_item >= PAR_MIN_FLOPS;
        for bi in 0..d.batch {
            packed_item::<V>(d, bi, a, b, out, bufs, parallel);
        }
    }
}

/// One batch item through the packed loop nest; `parallel` splits row blocks (and column
/// panels when there are too few row blocks) over rayon.
fn packed_item<V: VFloat>(
    d: &GemmDesc,
    bi: usize,
    a: &[V::Elem],
    b: &[V::Elem],
    out: &OutPtr<'_, V::Elem>,
    bufs: &mut Buffers<V::Elem>,
    parallel: bool,
) where
    V::Elem: FloatElem,
{
    let (sa, sb, sc) = strides(d);
    let nr = 2 * V::LANES;
    let threads = if parallel {
        rayon::current_num_threads().max(1)
    } else {
        1
    };
    // Row blocks: about MC rows each, whole MR-row panels dealt out evenly (block sizes differ
    // by at most one panel), and (when parallel) a multiple of the thread count of them when
    // there are enough panels. The split changes no element's arithmetic.
    let m_panels = d.m.div_ceil(MR);
    let mut n_ic = d.m.div_ceil(MC);
    if threads > 1 {
        n_ic = n_ic.div_ceil(threads) * threads;
    }
    let n_ic = n_ic.min(m_panels);
    // Rows `ic..ic + rows` of block `t`.
    let block = |t: usize| {
        let (p0, p1) = (t * m_panels / n_ic, (t + 1) * m_panels / n_ic);
        (p0 * MR, (p1 * MR).min(d.m) - p0 * MR)
    };
    let Buffers {
        b: bbuf, a: abufs, ..
    } = bufs;
    let elem = core::mem::size_of::<V::Elem>();
    // Small row-major operands are read in place (see UNPACKED_MAX_BYTES); B also when few rows
    // of A reuse it.
    let small = (d.m * d.k + d.k * d.n) * elem <= UNPACKED_MAX_BYTES;
    let direct_b = sb[2] == 1 && sb[1] >= 0 && (d.m <= DIRECT_B_MAX_M || small);
    let direct_a = sa[2] == 1 && sa[1] >= 0 && (d.m <= DIRECT_B_MAX_M || small);
    for jc in (0..d.n).step_by(NC) {
        let nc = NC.min(d.n - jc);
        let panels = nc.div_ceil(nr);
        let n_jr = threads.div_ceil(n_ic).min(panels).max(1);
        let per_task = panels.div_ceil(n_jr);
        let n_jr = panels.div_ceil(per_task);
        let tasks = n_ic * n_jr;
        if abufs.len() < tasks {
            abufs.resize_with(tasks, Vec::new);
        }
        for pc in (0..d.k).step_by(KC) {
            let kc = KC.min(d.k - pc);
            // Direct B: only a partial last panel is packed (as panel 0).
            let full = if direct_b { nc / nr } else { 0 };
            if full * nr < nc {
                pack::pack_b(
                    bbuf,
                    b,
                    sb,
                    bi,
                    pc,
                    kc,
                    jc + full * nr,
                    nc - full * nr,
                    nr,
                    threads > 1,
                );
            }
            let first = pc == 0 && !d.accumulate;
            let bbuf = &bbuf[..];
            let run = |t: usize, abuf: &mut Vec<V::Elem>| {
                let ((ic, rows), jr) = (block(t / n_jr), t % n_jr);
                if !direct_a {
                    pack::pack_a(abuf, a, sa, bi, ic, rows, pc, kc);
                }
                let tile = Tile { bi, sc, first, nr };
                for jp in jr * per_task..((jr + 1) * per_task).min(panels) {
                    let cols = nr.min(nc - jp * nr);
                    let (bp, b_rs) = if jp < full {
                        (&b[offset(bi, pc, jc + jp * nr, sb)..], sb[1] as usize)
                    } else {
                        let q = jp - full;
                        (&bbuf[q * kc * nr..(q + 1) * kc * nr], nr)
                    };
                    for ip in 0..rows.div_ceil(MR) {
                        let rows_here = MR.min(rows - ip * MR);
                        let (row0, col0) = (ic + ip * MR, jc + jp * nr);
                        // The tile's C lines arrive while the k loop runs (C is read or
                        // written once per slice, too rarely to stay cached).
                        tile.prefetch::<V>(out, row0, col0, rows_here, cols);
                        let (ap, a_rs) = if direct_a {
                            (&a[offset(bi, row0, pc, sa)..], sa[1] as usize)
                        } else {
                            (&abuf[ip * kc * MR..(ip + 1) * kc * MR], MR)
                        };
                        let s = Src {
                            ap,
                            a_rs,
                            bp,
                            b_rs,
                            kc,
                        };
                        let dst = Dst {
                            tile: &tile,
                            out,
                            row0,
                            col0,
                            cols,
                        };
                        match (direct_a, jp < full) {
                            (false, false) => micro_rows::<V, false, false>(rows_here, s, dst),
                            (false, true) => micro_rows::<V, false, true>(rows_here, s, dst),
                            (true, false) => micro_rows::<V, true, false>(rows_here, s, dst),
                            (true, true) => micro_rows::<V, true, true>(rows_here, s, dst),
                        }
                    }
                }
            };
            if tasks > 1 {
                abufs[..tasks]
                    .par_iter_mut()
                    .enumerate()
                    .for_each(|(t, ab)| run(t, ab));
            } else {
                run(0, &mut abufs[0]);
            }
        }
    }
}

/// Where the micro-kernel reads its operands: packed panels, or A / B in place.
#[derive(Clone, Copy)]
struct Src<'a, T> {
    /// A: packed `MR`-row panel (`ap[p * MR + i]`), or with `DA` row `i` at `ap[i * a_rs..]`.
    ap: &'a [T],
    a_rs: usize,
    /// B: packed `NR`-column panel (`bp[p * NR + j]`), or with `DB` row `p` at `bp[p * b_rs..]`.
    bp: &'a [T],
    b_rs: usize,
    kc: usize,
}

/// Where the micro-kernel's tile goes: `cols` columns at `(row0, col0)` of C.
#[derive(Clone, Copy)]
struct Dst<'t, 'o, 'c, T> {
    tile: &'t Tile,
    out: &'o OutPtr<'c, T>,
    row0: usize,
    col0: usize,
    cols: usize,
}

/// [`micro`] for the first `rows` (1..=MR) rows of the panel: edge panels skip the padding
/// rows instead of computing them.
#[inline(always)]
fn micro_rows<V: VFloat, const DA: bool, const DB: bool>(
    rows: usize,
    s: Src<'_, V::Elem>,
    d: Dst<'_, '_, '_, V::Elem>,
) where
    V::Elem: FloatElem,
{
    match rows {
        6 => micro::<V, 6, DA, DB>(s, d),
        5 => micro::<V, 5, DA, DB>(s, d),
        4 => micro::<V, 4, DA, DB>(s, d),
        3 => micro::<V, 3, DA, DB>(s, d),
        2 => micro::<V, 2, DA, DB>(s, d),
        _ => micro::<V, 1, DA, DB>(s, d),
    }
}

/// `acc[i][h] += a[i] * b[h]` for the `R` rows of one step `p`.
#[inline(always)]
fn step<V: VFloat, const R: usize>(
    acc: &mut [[V; 2]; R],
    a: impl Fn(usize) -> V::Elem,
    b: &[V::Elem],
) where
    V::Elem: FloatElem,
{
    let l = V::LANES;
    let b0 = V::load(&b[..l]);
    let b1 = V::load(&b[l..]);
    for (i, r) in acc.iter_mut().enumerate() {
        let ai = V::splat(a(i));
        r[0] = ai.mul_add(b0, r[0]);
        r[1] = ai.mul_add(b1, r[1]);
    }
}

/// The register tile: `acc[i][h]` = lanes `h*LANES..` of row `i < R`, summed over the slice in
/// order `p = 0..kc`, one fused multiply-add per step, then stored (or added) into C. Where A and B are read from (packed or
/// in place, see [`Src`]) changes no arithmetic.
#[inline(always)]
fn micro<V: VFloat, const R: usize, const DA: bool, const DB: bool>(
    s: Src<'_, V::Elem>,
    d: Dst<'_, '_, '_, V::Elem>,
) where
    V::Elem: FloatElem,
{
    let nr = 2 * V::LANES;
    let zero = V::splat(V::Elem::default());
    let mut acc = [[zero; 2]; R];
    let kc = s.kc;
    if DA {
        // Row i of the tile is A's row i: R streams read in order (the prefetcher follows).
        let rows: [&[V::Elem]; R] = core::array::from_fn(|i| &s.ap[i * s.a_rs..][..kc]);
        // `p` indexes all R rows and B's row stride at once: no single iterator to zip.
        #[allow(clippy::needless_range_loop)]
        for p in 0..kc {
            let b = if DB {
                &s.bp[p * s.b_rs..][..nr]
            } else {
                &s.bp[p * nr..][..nr]
            };
            step::<V, R>(&mut acc, |i| rows[i][p], b);
        }
    } else if DB {
        for (p, a) in s.ap.chunks_exact(MR).take(kc).enumerate() {
            step::<V, R>(&mut acc, |i| a[i], &s.bp[p * s.b_rs..][..nr]);
        }
    } else {
        for (a, b) in s.ap.chunks_exact(MR).zip(s.bp.chunks_exact(nr)).take(kc) {
            step::<V, R>(&mut acc, |i| a[i], b);
        }
    }
    // Stored straight from the accumulators (no copy of the tile through the stack).
    d.tile.store::<V>(&acc, d.out, d.row0, d.col0, d.cols);
}

/// Where a tile goes: batch item, C strides, whether this is the first k slice of a
/// non-accumulating GEMM (store) or not (add).
struct Tile {
    bi: usize,
    sc: [isize; 3],
    first: bool,
    nr: usize,
}

impl Tile {
    /// Asks for the cache lines of the `rows x cols` tile at `(row0, col0)` of C.
    #[inline(always)]
    fn prefetch<V: VFloat>(
        &self,
        out: &OutPtr<'_, V::Elem>,
        row0: usize,
        col0: usize,
        rows: usize,
        cols: usize,
    ) where
        V::Elem: FloatElem,
    {
        for i in 0..rows {
            out.prefetch(offset(self.bi, row0 + i, col0, self.sc));
            out.prefetch(offset(self.bi, row0 + i, col0 + cols - 1, self.sc));
        }
    }

    /// Writes the first `cols` columns of the rows of `acc` at `(row0, col0)` of C.
    #[inline(always)]
    fn store<V: VFloat>(
        &self,
        acc: &[[V; 2]],
        out: &OutPtr<'_, V::Elem>,
        row0: usize,
        col0: usize,
        cols: usize,
    ) where
        V::Elem: FloatElem,
    {
        let l = V::LANES;
        if self.sc[2] == 1 && cols == self.nr {
            for (i, r) in acc.iter().enumerate() {
                let o = offset(self.bi, row0 + i, col0, self.sc);
                // SAFETY: this task owns rows row0.. x columns col0..col0+nr of C (disjoint
                // tiles per task; C's strides validated injective), contiguous as col stride 1.
                let s = unsafe { out.slice(o, self.nr) };
                let (lo, hi) = s.split_at_mut(l);
                if self.first {
                    r[0].store(lo);
                    r[1].store(hi);
                } else {
                    (V::load(lo) + r[0]).store(lo);
                    (V::load(hi) + r[1]).store(hi);
                }
            }
            return;
        }
        let mut row = [V::Elem::default(); 64];
        for (i, r) in acc.iter().enumerate() {
            r[0].store(&mut row[..l]);
            r[1].store(&mut row[l..2 * l]);
            for (j, &v) in row.iter().enumerate().take(cols) {
                let o = offset(self.bi, row0 + i, col0 + j, self.sc);
                // SAFETY: element (row0+i, col0+j) belongs to this task's tile only.
                unsafe {
                    let v = if self.first { v } else { out.get(o) + v };
                    out.set(o, v);
                }
            }
        }
    }
}
