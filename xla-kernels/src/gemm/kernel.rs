//! The packed f32/f64 GEMM: Goto/BLIS loop nest over [`NC`]-column panels of B and [`KC`]-deep
//! slices of k (B packed once per slice, shared by the threads), row blocks of A (whole
//! `MR`-row panels dealt out evenly, about `MC` rows each, packed per task, run on rayon), and
//! an `MR x NR` register tile (`NR = 2 * LANES`) accumulated with vector multiply-adds.
//! Products of at most [`COLUMN_SPLIT_MAX_M`] rows split over threads by columns instead: each
//! thread runs the whole nest on its columns, one fork in all. Measured on the 2-core AVX-512
//! Xeon (`gemm_speed 40 <shapes>`, 2 threads, 4 alternating rounds, GFLOP/s, row split vs
//! column split): 128x1024x256 216-238 vs 300-326, 128x256x1024 169-199 vs 243-264,
//! 128x768x256 171-213 vs 311-337, 128x256x256 177-241 vs 277-309, 256^3 289-306 vs 257-306:
//! a fork wakes the other core (tens of microseconds on a shared VM), and at 128 rows the two
//! forks per k slice cost more than packing all of A on both threads. The transformer block of
//! the program benchmark went from 0.92x to 1.23x XLA's time in a default build.
//!
//! Run-time dispatch: the loop nest is generic over a [`Kernel`] (tile shape, block sizes,
//! instruction set), and [`FloatElem::with_kernel`] picks the one of [`cpu::level`]: AVX-512F
//! (12 x 32 f32 / 12 x 16 f64), AVX2 + FMA (6 x 16 / 6 x 8), or the portable `wide` vectors of
//! the build (6 x 2 vectors). `KC` is shared by all, so every level adds the same products in
//! the same order into each element; only a build without FMA rounds them differently.
//!
//! The AVX-512 tile, measured on the 2-core AVX-512 Zen 4 EPYC (one thread, CPU time,
//! `RAYON_NUM_THREADS=1 GEMM_SPEED_CLOCK=cpu gemm_speed 5 <shapes>`, 3 alternating rounds,
//! median GFLOP/s, with a 1-thread AVX-512 FMA peak of 116):
//!
//! | MR x NR (f32) | 1024^3 | 256^3 | 64^3 | 8x784x128 | f64 1024^3 | f64 64^3 |
//! |---|---|---|---|---|---|---|
//! | 6 x 32 | 99.8 | 79.9 | 100.7 | 94.6 | 50.4 | 49.6 |
//! | 8 x 32 | 99.2 | 97.8 | 99.8 | 109.9 | 49.3 | 49.6 |
//! | 12 x 32 | 99.0 | 97.5 | 57.9 | 109.6 | 48.7 | 28.2 |
//! | 14 x 32 | 97.8 | 95.3 | 45.8 | 109.5 | 49.3 | 22.6 |
//! | 6 x 64 | 42.2 | 42.2 | 45.1 | 49.3 | 21.2 | 22.4 |
//!
//! On that Zen 4, 8 x 32 was as fast as the taller tiles on large products, and 12 or 14 rows
//! read in place (64^3) needed more row pointers than there are general registers (spills).
//! On the 2-core AVX-512 Intel Xeon (2 full 512-bit FMA pipes, 1-thread peak 247 GFLOP/s;
//! same command, 2 alternating rounds, GFLOP/s) the taller tile wins everywhere:
//!
//! | MR x NR, MC | 1024^3 | 256^3 | 64^3 | 8x784x128 | f64 1024^3 | 2 threads 1024^3 | 2 threads 256^3 |
//! |---|---|---|---|---|---|---|---|
//! | 8 x 32, 120 | 184-186 | 176 | 174-179 | 151-155 | 92-95 | 335-337 | 282 |
//! | 8 x 32, 240 | 187-189 | 186 | - | - | - | - | - |
//! | 12 x 32, 120 | 179-192 | 171-189 | 165-182 | 137-153 | 96 | - | - |
//! | 12 x 32, 240 | 190-192 | 192-193 | 190 | 147-155 | 93-95 | 352-366 | 269-303 |
//! | 14 x 32, 112 | 192-194 | 191-195 | 190-192 | 151-154 | 95-96 | 357-360 | 294-298 |
//! | 14 x 32, 224 | 191 | 191 | 195-196 | 152-153 | 95 | 347-355 | 303-307 |
//!
//! 12 x 32 (24 accumulators, 12 broadcasts + 2 loads per 24 FMAs) with `MC` = 240 is kept:
//! as fast as 14 x 32 and its edge panels split into fewer pieces. An 8 + 4-row register
//! transpose for packing its A panels measured 1-3% slower than the scalar interleave in a
//! default build, so A is packed by the interleave.

//! Why the AVX2 shape (measured on the 2-core AVX2+FMA EPYC of this project, 16 vector
//! registers):
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

use core::ops::{Add, Mul, Range};

use std::sync::Mutex;

use rayon::prelude::*;

use super::isa::Portable;
use super::micro::{Dst, Kernel, Src, Tile, Tiles};
use super::{offset, pack, GemmDesc, OutPtr};
use crate::cpu::{self, IsaLevel};

/// Depth of one k slice: an `NR x KC` B micro-panel (16 KiB of f32 at NR = 16) stays in L1.
/// The same for every instruction set: a slice's sum is added into C at its end, so KC fixes
/// each element's rounding sequence.
pub(crate) const KC: usize = 256;
/// Maximum columns of a packed B panel: `KC x NC` (4 MiB of f32) stays in L3.
pub(crate) const NC: usize = 4096;
/// Bytes of packed B micro-panels one A micro-panel runs against before the next A panel: the
/// A panel (12 KiB at 12 x 256 f32) stays in L1 while these B panels stream from L2, instead
/// of one B panel (32 KiB at 32 x 256) held in L1 against every A panel of the block, which
/// left the 48 KiB L1 of the AVX-512 Xeon too full. Measured there (`RAYON_NUM_THREADS=1
/// GEMM_SPEED_CLOCK=cpu gemm_speed 7`, 3 alternating rounds, GFLOP/s, one B panel vs 512 KiB):
/// 1024^3 165-178 vs 172-176, 2048^3 159-168 vs 181-188, 2 threads 1024^3 249-320 vs 326-343;
/// 256 KiB measured the same as 512 and leaves room in a 512 KiB L2 (Zen 3); at the AVX2 level
/// on the Xeon the order measured neutral (1024^3 109-111 both).
pub(crate) const B_STREAM_BYTES: usize = 256 << 10;
/// When A and B together take at most this many bytes, neither is packed (row-major rows are
/// read in place): they stay in L2 (512 KiB) for the whole product, so packing would only add
/// a copy.
pub(crate) const UNPACKED_MAX_BYTES: usize = 192 << 10;
/// Below `2 m n k` = this many flops a GEMM runs on the caller's thread (a rayon fork/join
/// costs about as much as 2M flops on one core).
pub(crate) const PAR_MIN_FLOPS: u128 = 1 << 21;
/// The fewest flops (`2 m n k`) of one product split over threads: a split forks twice per k
/// slice, and a fork that wakes a worker costs tens of microseconds on a shared VM, so the
/// product must take longer than that on one core. AVX-512 cores run about twice the flops of
/// AVX2 ones. Measured on the 2-core Intel Xeon (AVX-512, `gemm_speed 5`, 1 vs 2 rayon
/// threads): 64x784x128 (1.3 x 2^23) 136 GFLOP/s on one thread, 65 split over two; 256^3
/// (2^25) 194 vs 256. The AVX2 and portable levels keep [`PAR_MIN_FLOPS`] (measured on the
/// AVX2 EPYC).
pub(crate) fn split_min_flops(level: IsaLevel) -> u128 {
    match level {
        IsaLevel::Avx512 | IsaLevel::Amx => 1 << 24,
        IsaLevel::Avx2 | IsaLevel::Baseline => PAR_MIN_FLOPS,
    }
}

/// Products of at most this many rows split over threads by columns: each thread runs the
/// whole loop nest on its own columns (packing all of A and its part of B), one fork for the
/// product instead of two per k slice, which cost more than the duplicated A packing while
/// there are few row blocks to share a packed B.
pub(crate) const COLUMN_SPLIT_MAX_M: usize = 480;

/// Batch items of at most this many flops each are spread over threads whole (one chunk of
/// items per thread, no fork/join per item) when the chunks balance.
pub(crate) const BATCH_PAR_MAX_ITEM_FLOPS: u128 = 1 << 28;

/// Lane types with a packed kernel: f32 and f64.
pub(crate) trait FloatElem:
    Copy + Default + Send + Sync + 'static + Add<Output = Self> + Mul<Output = Self>
{
    /// Partial sums of the dot form of `small`: `s_q = sum_{p = q mod DOT_SUMS} x_p y_p`, a
    /// count fixed per type (four AVX2 vectors) so every instruction set sums in one order.
    const DOT_SUMS: usize;

    /// `w.run(kernel)` with the kernel of `level`, or of the widest level below it that this
    /// CPU runs.
    fn with_kernel<W: WithKernel<Self>>(level: IsaLevel, w: W) -> W::Out;
}

/// Something to do with a kernel of element type `T` (a closure generic over the kernel).
pub(crate) trait WithKernel<T: FloatElem> {
    /// The result.
    type Out;
    /// Does it with kernel `k`.
    fn run<K: Kernel<E = T>>(self, k: K) -> Self::Out;
}

/// The tile of the portable path: 6 x 2 vectors, 12 accumulators + 2 B vectors + 1
/// broadcast in the 16 registers of AVX2 (see the module docs for the measurements).
type PortableTiles<V> = Tiles<Portable<V>, 6, 2, 120>;
/// AVX2 + FMA: the same 6 x 2 vectors (6 x 16 f32, 6 x 8 f64).
#[cfg(target_arch = "x86_64")]
type Avx2Tiles<E> = Tiles<super::x86::Avx2<E>, 6, 2, 120>;
/// AVX-512F: 32 registers hold a taller tile (see the module docs for the measurements).
#[cfg(target_arch = "x86_64")]
type Avx512Tiles<E> = Tiles<super::x86::Avx512<E>, 12, 2, 240>;

/// `FloatElem` for `$t`, with its portable vector `$v` and dot-form sum count.
macro_rules! float_elem {
    ($t:ty, $v:ty, $sums:literal) => {
        impl FloatElem for $t {
            const DOT_SUMS: usize = $sums;

            fn with_kernel<W: WithKernel<$t>>(level: IsaLevel, w: W) -> W::Out {
                #[cfg(target_arch = "x86_64")]
                {
                    use super::x86::{Avx2, Avx512};
                    if let Some(t) = Avx512::new().filter(|_| level >= IsaLevel::Avx512) {
                        return w.run::<Avx512Tiles<$t>>(Tiles(t));
                    }
                    if let Some(t) = Avx2::new().filter(|_| level >= IsaLevel::Avx2) {
                        return w.run::<Avx2Tiles<$t>>(Tiles(t));
                    }
                }
                let _ = level;
                w.run::<PortableTiles<$v>>(Tiles(Portable::default()))
            }
        }
    };
}

float_elem!(f32, crate::simd::F32V, 32);
float_elem!(f64, crate::simd::F64V, 16);

/// The f32/f64 GEMM at the process's instruction-set level ([`cpu::level`]), on validated,
/// non-empty (`batch, m, n > 0`) operands.
pub(crate) fn gemm_real<T: FloatElem>(
    d: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
    bufs: &mut Buffers<T>,
) {
    gemm_at(cpu::level(), d, a, b, c, bufs)
}

/// [`gemm_real`] at instruction-set level `level` (capped by what the CPU runs).
pub(crate) fn gemm_at<T: FloatElem>(
    level: IsaLevel,
    d: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
    bufs: &mut Buffers<T>,
) {
    /// The GEMM's operands, waiting for a kernel.
    struct Run<'x, T> {
        d: &'x GemmDesc,
        a: &'x [T],
        b: &'x [T],
        c: &'x mut [T],
        bufs: &'x mut Buffers<T>,
    }
    impl<T: FloatElem> WithKernel<T> for Run<'_, T> {
        type Out = ();
        fn run<K: Kernel<E = T>>(self, k: K) {
            gemm_float(k, self.d, self.a, self.b, self.c, self.bufs)
        }
    }
    T::with_kernel(level, Run { d, a, b, c, bufs })
}

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

/// GEMM with kernel `k` on validated, non-empty (`batch, m, n > 0`) operands.
fn gemm_float<K: Kernel>(
    k: K,
    d: &GemmDesc,
    a: &[K::E],
    b: &[K::E],
    c: &mut [K::E],
    bufs: &mut Buffers<K::E>,
) {
    let sc = strides(d).2;
    let out = OutPtr::new(c);
    if d.k == 0 {
        if !d.accumulate {
            for bi in 0..d.batch {
                for i in 0..d.m {
                    for j in 0..d.n {
                        // SAFETY: single-threaded here; offsets validated.
                        unsafe { out.set(offset(bi, i, j, sc), K::E::default()) };
                    }
                }
            }
        }
        return;
    }
    if d.m == 1 && k.row_times_matrix(d, a, b, &out) {
        return;
    }
    if d.n == 1 && k.row_times_matrix(&d.transposed(), b, a, &out) {
        return;
    }
    if sc[2] != 1 && sc[1] == 1 {
        // Column-major C: compute C^T = B^T A^T instead, whose rows are contiguous (vector
        // stores); every element sums the same products in the same order.
        return packed(k, &d.transposed(), b, a, &out, bufs);
    }
    packed(k, d, a, b, &out, bufs)
}

/// The packed loop nest over the batch: whole items per thread when there are enough of them
/// and they are small, else one item after another, each split over the threads.
fn packed<K: Kernel>(
    k: K,
    d: &GemmDesc,
    a: &[K::E],
    b: &[K::E],
    out: &OutPtr<'_, K::E>,
    bufs: &mut Buffers<K::E>,
) {
    let per_item = GemmDesc { batch: 1, ..*d }.flops();
    let threads = rayon::current_num_threads().max(1);
    let chunks = threads.min(d.batch);
    // Fraction of the threads busy when items are dealt out whole, in eighths.
    let balance8 = 8 * d.batch / (chunks * d.batch.div_ceil(chunks));
    let by_item = chunks > 1
        && d.flops() >= PAR_MIN_FLOPS
        && (per_item < PAR_MIN_FLOPS || (per_item <= BATCH_PAR_MAX_ITEM_FLOPS && balance8 >= 7));
    if bufs.per_thread.len() < threads {
        bufs.per_thread.resize_with(threads, Default::default);
    }
    let per_thread = &bufs.per_thread[..];
    if by_item {
        // One task per item (work stealing evens out a core shared with another process),
        // each with the buffers of the worker running it.
        (0..d.batch).into_par_iter().for_each(|bi| {
            with_worker_buffers(per_thread, |bufs| {
                packed_item(k, d, bi, a, b, out, bufs, false, 0..d.n)
            })
        });
    } else {
        // One thread: no fork at all (a fork from outside a one-thread pool still hands the
        // job to its worker and waits: measured 18 GFLOP/s for 128x768x128 that way).
        let parallel = per_item >= split_min_flops(cpu::level()) && threads > 1;
        let panels = d.n.div_ceil(K::NR);
        if parallel && d.m <= COLUMN_SPLIT_MAX_M && panels >= 2 * threads {
            return crate::par::in_pool(|| {
                for bi in 0..d.batch {
                    (0..threads).into_par_iter().for_each(|g| {
                        let (p0, p1) = (g * panels / threads, (g + 1) * panels / threads);
                        let cols = p0 * K::NR..(p1 * K::NR).min(d.n);
                        with_worker_buffers(per_thread, |bufs| {
                            packed_item(k, d, bi, a, b, out, bufs, false, cols)
                        })
                    });
                }
            });
        }
        let items = |bufs: &mut Buffers<K::E>| {
            for bi in 0..d.batch {
                packed_item(k, d, bi, a, b, out, bufs, parallel, 0..d.n);
            }
        };
        // Each k slice forks twice (B packing, row blocks): enter the pool once for all.
        if parallel {
            crate::par::in_pool(|| items(bufs))
        } else {
            items(bufs)
        }
    }
}

/// Row blocks of an `m`-row product: about `K::MC` rows each, whole `MR`-row panels dealt
/// out evenly (sizes differ by at most one panel), a multiple of the thread count of them when
/// there are enough panels. The split changes no element's arithmetic.
#[derive(Clone, Copy)]
struct RowBlocks {
    m: usize,
    mr: usize,
    panels: usize,
    /// Number of blocks.
    count: usize,
}

impl RowBlocks {
    fn new<K: Kernel>(m: usize, threads: usize) -> Self {
        let panels = m.div_ceil(K::MR);
        let mut count = m.div_ceil(K::MC);
        if threads > 1 {
            count = count.div_ceil(threads) * threads;
        }
        RowBlocks {
            m,
            mr: K::MR,
            panels,
            count: count.min(panels),
        }
    }

    /// Block `t`: `(first row, rows)`.
    fn get(&self, t: usize) -> (usize, usize) {
        let (p0, p1) = (
            t * self.panels / self.count,
            (t + 1) * self.panels / self.count,
        );
        (p0 * self.mr, (p1 * self.mr).min(self.m) - p0 * self.mr)
    }
}

/// `f` with the packing buffers of the rayon worker running it (fresh ones off the pool, or if
/// they are taken).
fn with_worker_buffers<T>(per_thread: &[Mutex<Buffers<T>>], f: impl FnOnce(&mut Buffers<T>)) {
    let slot = rayon::current_thread_index().and_then(|t| per_thread.get(t));
    match slot.and_then(|m| m.try_lock().ok()) {
        Some(mut bufs) => f(&mut bufs),
        None => f(&mut Buffers::default()),
    }
}

/// Columns `cols` of batch item `bi` through the packed loop nest, whose k slices fork over
/// rayon when `parallel`: row blocks (and column panels when there are too few row blocks)
/// split, B packed once per slice for all of them.
#[allow(clippy::too_many_arguments)]
fn packed_item<K: Kernel>(
    k: K,
    d: &GemmDesc,
    bi: usize,
    a: &[K::E],
    b: &[K::E],
    out: &OutPtr<'_, K::E>,
    bufs: &mut Buffers<K::E>,
    parallel: bool,
    cols: Range<usize>,
) {
    let (sa, sb, _) = strides(d);
    let nr = K::NR;
    let threads = if parallel {
        rayon::current_num_threads().max(1)
    } else {
        1
    };
    let blocks = RowBlocks::new::<K>(d.m, threads);
    let Buffers {
        b: bbuf, a: abufs, ..
    } = bufs;
    let elem = core::mem::size_of::<K::E>();
    // Small row-major operands are read in place (see UNPACKED_MAX_BYTES); B also when few rows
    // of A reuse it (packing costs about one row panel's multiply, so it pays only when several
    // panels reuse it), and A with it (packing A was 16% of an 8x784x128 product).
    let small = (d.m * d.k + d.k * d.n) * elem <= UNPACKED_MAX_BYTES;
    let direct_b = sb[2] == 1 && sb[1] >= 0 && (d.m <= K::DIRECT_MAX_M || small);
    let direct_a = sa[2] == 1 && sa[1] >= 0 && (d.m <= K::DIRECT_MAX_M || small);
    for jc in cols.clone().step_by(NC) {
        let nc = NC.min(cols.end - jc);
        let panels = nc.div_ceil(nr);
        let n_jr = threads.div_ceil(blocks.count).min(panels).max(1);
        let per_task = panels.div_ceil(n_jr);
        let n_jr = panels.div_ceil(per_task);
        let tasks = blocks.count * n_jr;
        if abufs.len() < tasks {
            abufs.resize_with(tasks, Vec::new);
        }
        for pc in (0..d.k).step_by(KC) {
            let kc = KC.min(d.k - pc);
            // Direct B: only a partial last panel is packed (as panel 0).
            let full = if direct_b { nc / nr } else { 0 };
            if full * nr < nc {
                let (col0, cols) = (jc + full * nr, nc - full * nr);
                pack::pack_b(bbuf, b, sb, bi, pc, kc, col0, cols, nr, threads > 1);
            }
            let job = SliceJob {
                d,
                bi,
                a,
                b,
                bbuf: &bbuf[..],
                out,
                blocks,
                jc,
                nc,
                pc,
                kc,
                full,
                per_task,
                n_jr,
                direct_a,
            };
            // Several row blocks on one thread run in order: a rayon call from outside the
            // pool would hand each to a worker and wait.
            if tasks > 1 && parallel {
                abufs[..tasks]
                    .par_iter_mut()
                    .enumerate()
                    .for_each(|(t, ab)| job.run(k, t, ab));
            } else {
                for (t, ab) in abufs[..tasks].iter_mut().enumerate() {
                    job.run(k, t, ab);
                }
            }
        }
    }
}

/// One k slice of one column panel of one batch item, split into tasks: row block `t / n_jr`
/// times the `per_task` column panels `t % n_jr` owns.
struct SliceJob<'x, 'o, 'c, T> {
    d: &'x GemmDesc,
    bi: usize,
    a: &'x [T],
    b: &'x [T],
    /// Packed B panels: all of them, or with direct B only the partial last one.
    bbuf: &'x [T],
    out: &'o OutPtr<'c, T>,
    blocks: RowBlocks,
    /// Columns `jc..jc + nc`, k slice `pc..pc + kc`.
    jc: usize,
    nc: usize,
    pc: usize,
    kc: usize,
    /// Column panels read from B in place (the first `full`).
    full: usize,
    per_task: usize,
    n_jr: usize,
    direct_a: bool,
}

impl<T: FloatElem> SliceJob<'_, '_, '_, T> {
    /// Task `t`: packs its A block into `abuf` (unless read in place) and runs its tiles, each
    /// A micro-panel against [`B_STREAM_BYTES`] of B micro-panels at a time.
    fn run<K: Kernel<E = T>>(&self, k: K, t: usize, abuf: &mut Vec<T>) {
        let (sa, _, sc) = strides(self.d);
        let ((ic, rows), jr) = (self.blocks.get(t / self.n_jr), t % self.n_jr);
        if !self.direct_a {
            k.pack_a(abuf, self.a, sa, self.bi, ic, rows, self.pc, self.kc);
        }
        let first = self.pc == 0 && !self.d.accumulate;
        let tile = Tile {
            bi: self.bi,
            sc,
            first,
        };
        let panels = self.nc.div_ceil(K::NR);
        let mine = jr * self.per_task..((jr + 1) * self.per_task).min(panels);
        let chunk = (B_STREAM_BYTES / (self.kc * K::NR * core::mem::size_of::<T>())).max(1);
        let a_panels = rows.div_ceil(K::MR);
        for c0 in mine.clone().step_by(chunk) {
            for ip in 0..a_panels {
                let rows_here = K::MR.min(rows - ip * K::MR);
                for jp in c0..(c0 + chunk).min(mine.end) {
                    self.tile(k, &tile, abuf, ic + ip * K::MR, rows_here, ip, jp);
                }
            }
        }
    }

    /// The tile of A micro-panel `ip` (rows `row0..row0 + rows`) and B micro-panel `jp`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn tile<K: Kernel<E = T>>(
        &self,
        k: K,
        tile: &Tile,
        abuf: &[T],
        row0: usize,
        rows: usize,
        ip: usize,
        jp: usize,
    ) {
        let (sa, sb, _) = strides(self.d);
        let (mr, nr, bi, kc) = (K::MR, K::NR, self.bi, self.kc);
        let cols = nr.min(self.nc - jp * nr);
        let (bp, b_rs) = if jp < self.full {
            (
                &self.b[offset(bi, self.pc, self.jc + jp * nr, sb)..],
                sb[1] as usize,
            )
        } else {
            let q = jp - self.full;
            (&self.bbuf[q * kc * nr..(q + 1) * kc * nr], nr)
        };
        let col0 = self.jc + jp * nr;
        // The tile's C lines arrive while the k loop runs (C is read or written once per
        // slice, too rarely to stay cached).
        tile.prefetch(self.out, row0, col0, rows, cols);
        let (ap, a_rs) = if self.direct_a {
            (&self.a[offset(bi, row0, self.pc, sa)..], sa[1] as usize)
        } else {
            (&abuf[ip * kc * mr..(ip + 1) * kc * mr], mr)
        };
        let s = Src {
            ap,
            a_rs,
            bp,
            b_rs,
            kc,
        };
        let dst = Dst {
            tile,
            out: self.out,
            row0,
            col0,
            cols,
        };
        match (self.direct_a, jp < self.full) {
            (false, false) => k.tile::<false, false>(rows, s, dst),
            (false, true) => k.tile::<false, true>(rows, s, dst),
            (true, false) => k.tile::<true, false>(rows, s, dst),
            (true, true) => k.tile::<true, true>(rows, s, dst),
        }
    }
}
