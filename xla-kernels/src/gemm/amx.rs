//! s8 x s8 -> s32 and bf16 x bf16 -> bf16 products on AMX tiles ([`IsaLevel::Amx`]: Intel
//! Sapphire Rapids and later). One `tdpbssd` adds 16 x 16 x 64 byte products into a 16 x 16
//! tile of i32, one `tdpbf16ps` 16 x 16 x 32 bf16 products into f32: 8x and 4x the
//! multiply-adds per cycle of an AVX-512 VNNI / FMA core.
//!
//! Tiles (palette 1, every tile 16 rows of 64 bytes): `tmm0-3` hold a 32 x 32 block of C,
//! `tmm4-5` two 16-row slices of A (64 bytes of k each), `tmm6-7` two 16-column slices of B in
//! the layout the instructions read: row `g` of a B tile holds one *group* of k (4 s8 or 2
//! bf16) for each of its 16 columns. The block kernel ([`block_kernel!`]) runs the whole k
//! loop in one `asm!` block and stores the four C tiles to a 4 KiB buffer, which [`AmxElem`]
//! writes into C (wrapping for s32; one rounding to bf16, and one more when accumulating,
//! as the f32 path of `widen` does).
//!
//! Packing, zero-padded to whole blocks so every tile is full (padding meets zeros):
//! A as `[item][32-row block][k block][32 rows][64 bytes]`, B as
//! `[item][32-column panel][k block][16 groups][32 columns][group]`: each tile is one
//! contiguous 1 KiB (A, stride 64) or 16 rows of a 2 KiB block (B, stride 128). Threads take
//! contiguous runs of (item, block, panel) units, panels fastest: a run's A block is reused
//! from cache, and its C stores stay on the same 32 rows (the same pages) of C. Measured with
//! the block kernel alone storing into a 1024 x 1024 s32 C (one thread, k = 1024): 2340
//! cycles per block with blocks fastest (each block's 32 rows on 32 other 4 KiB pages), 1550
//! with panels fastest; 1070 storing to one cached buffer.
//!
//! Results: s8 sums are exact modulo 2^32 in any order, so they are the other levels' bits.
//! `tdpbf16ps` treats subnormal inputs and results as zero and adds each 32-deep k slice in an
//! order of its own (not a chain of f32 FMAs: measured against one, about 85% of 256 sums
//! differed in the last bits), so bf16 results at this level may differ from the other
//! levels' in the last bit of the f32 sum before rounding; they do not depend on the number of
//! threads, since every element is one tile row's sum over k in order.

use core::arch::asm;
use core::marker::PhantomData;

use half::bf16;
use half::slice::HalfFloatSliceExt;
use rayon::prelude::*;

use super::{offset, GemmDesc, OutPtr};
use crate::aligned::{AlignedBuf, HUGE_PAGE};
use crate::cpu::{self, IsaLevel};

/// Rows (and columns) of the C block one kernel call computes: 2 x 2 tiles of 16.
const BLOCK: usize = 32;
/// Bytes of one tile row, and of one packed k block of a 16-row A slice per row.
const ROW_BYTES: usize = 64;
/// Elements of k in one packed k block: one tile row (64 s8, 32 bf16).
const fn k_block<E>() -> usize {
    ROW_BYTES / core::mem::size_of::<E>()
}
/// Elements of one packed k block of a 32-row A block or 32-column B panel (2 KiB).
const fn block_elems<E>() -> usize {
    BLOCK * k_block::<E>()
}
/// Below this many multiply-adds the product runs on the caller's thread: AMX does about
/// 1000 per cycle, so a fork/join (tens of microseconds when a worker must be woken) pays only
/// from about 512^3. Measured on the 2-core Xeon: s8 256^3 (2^24) 1.57 TOP/s on one thread,
/// 0.67-0.77 split over two.
const PAR_MIN_MACS: usize = 1 << 26;
/// Runs of units per thread: enough to balance, few enough that each run reuses its A block.
const RUNS_PER_THREAD: usize = 4;

/// Whether the kernels may use AMX: the CPU has it, Linux granted tile data to this process,
/// and `XLA_KERNELS_MAX_ISA` allows it.
pub(crate) fn available() -> bool {
    cpu::level() >= IsaLevel::Amx
}

/// An element type with an AMX product.
pub(crate) trait AmxElem: Copy + Default + Send + Sync + 'static {
    /// Elements of k per 4-byte group (one B tile row holds one group of 16 columns).
    const GROUP: usize;
    /// The accumulator a tile holds (i32 or f32).
    type Acc: Copy + Default + Send + Sync;
    /// The result element type.
    type Out: Copy + Send + Sync;

    /// The 32 x 32 block `c = A B` over `kblocks` packed k blocks, row `r` of it stored at
    /// byte `r * c_stride` of `c`.
    ///
    /// # Safety
    /// The thread's tiles are configured ([`Tiles::configure`]); `a` and `b` are readable for
    /// `kblocks >= 1` blocks of [`block_elems`] elements each; `c` is writable for 32 rows of
    /// 32 values `c_stride` bytes apart.
    unsafe fn block(a: *const Self, b: *const Self, kblocks: usize, c: (*mut Self::Acc, usize));

    /// The element written for sum `v`, given the element there when accumulating.
    fn finish(v: Self::Acc, old: Option<Self::Out>) -> Self::Out;

    /// One group of B rows, 32 columns each, interleaved: `dst[j * GROUP + e] = rows[e][j]`
    /// (`rows[..GROUP]` hold 32 elements each, `dst` 32 groups).
    ///
    /// # Safety
    /// The CPU must have AVX2 (the callers run inside [`around_tiles`]).
    #[inline(always)]
    unsafe fn interleave(rows: &[&[Self]; 4], dst: &mut [Self]) {
        let g = Self::GROUP;
        for (j, col) in dst.chunks_exact_mut(g).take(BLOCK).enumerate() {
            for (e, x) in col.iter_mut().enumerate() {
                *x = rows[e][j];
            }
        }
    }

    /// `dst[j] = finish(src[j], old dst[j] if accumulating)` for a row.
    fn finish_row(src: &[Self::Acc], dst: &mut [Self::Out], accumulate: bool) {
        for (x, &v) in dst.iter_mut().zip(src) {
            *x = Self::finish(v, accumulate.then_some(*x));
        }
    }

    /// Where the kernel may store block (`i0`, `j0`) of item `bt` straight into C (pointer and
    /// row stride in bytes), with C's cache lines prefetched for writing; `None` to go through
    /// [`AmxElem::finish`].
    fn direct(
        d: &GemmDesc,
        bt: usize,
        i0: usize,
        j0: usize,
        out: &OutPtr<'_, Self::Out>,
    ) -> Option<(*mut Self::Acc, usize)>;
}

/// Defines `$name`, the block kernel of instruction `$op`: zeroes the four C tiles, loads the
/// first k block's A and B tiles, then runs the k loop software-pipelined: each tile is
/// reloaded with the next k block right after its last use in this one (tiles are not
/// renamed, so a load waits for the products still reading the register). Last, the C tiles
/// are stored as one row-major 32 x 32 block.
macro_rules! block_kernel {
    ($name:ident, $elem:ty, $acc:ty, $op:literal) => {
        /// The block kernel of `
        #[doc = $op]
        /// ` (contract: [`AmxElem::block`]).
        unsafe fn $name(
            a: *const $elem,
            b: *const $elem,
            kblocks: usize,
            (c, c_stride): (*mut $acc, usize),
        ) {
            debug_assert!(kblocks > 0);
            // SAFETY: the caller's contract: tiles configured as 16 x 64 bytes; the loads read
            // 16 rows of 64 bytes at `a` and `a + 1024` (stride 64) and at `b` and `b + 64`
            // (stride 128) of each 2 KiB k block, `kblocks` blocks in all (the loop loads
            // block i + 1 while i remains, then stops); the stores write 32 rows of 128 bytes
            // at `c`, `c_stride` bytes apart. No stack use; flags are clobbered (the default).
            unsafe {
                asm!(
                    "tilezero tmm0",
                    "tilezero tmm1",
                    "tilezero tmm2",
                    "tilezero tmm3",
                    "tileloadd tmm4, [{a} + {s64}*1]",
                    "tileloadd tmm6, [{b} + {s128}*1]",
                    "tileloadd tmm5, [{a} + {s64}*1 + 1024]",
                    "tileloadd tmm7, [{b} + {s128}*1 + 64]",
                    "dec {n}",
                    "jz 3f",
                    "2:",
                    concat!($op, " tmm0, tmm4, tmm6"),
                    concat!($op, " tmm1, tmm4, tmm7"),
                    "tileloadd tmm4, [{a} + {s64}*1 + 2048]",
                    concat!($op, " tmm2, tmm5, tmm6"),
                    "tileloadd tmm6, [{b} + {s128}*1 + 2048]",
                    concat!($op, " tmm3, tmm5, tmm7"),
                    "tileloadd tmm5, [{a} + {s64}*1 + 3072]",
                    "tileloadd tmm7, [{b} + {s128}*1 + 2112]",
                    "add {a}, 2048",
                    "add {b}, 2048",
                    "dec {n}",
                    "jnz 2b",
                    "3:",
                    concat!($op, " tmm0, tmm4, tmm6"),
                    concat!($op, " tmm1, tmm4, tmm7"),
                    concat!($op, " tmm2, tmm5, tmm6"),
                    concat!($op, " tmm3, tmm5, tmm7"),
                    "tilestored [{c} + {sc}*1], tmm0",
                    "tilestored [{c} + {sc}*1 + 64], tmm1",
                    "tilestored [{c16} + {sc}*1], tmm2",
                    "tilestored [{c16} + {sc}*1 + 64], tmm3",
                    a = inout(reg) a => _,
                    b = inout(reg) b => _,
                    n = inout(reg) kblocks => _,
                    c = in(reg) c,
                    c16 = in(reg) c.cast::<u8>().wrapping_add(16 * c_stride),
                    sc = in(reg) c_stride,
                    s64 = in(reg) 64usize,
                    s128 = in(reg) 128usize,
                    options(nostack),
                );
            }
        }
    };
}

block_kernel!(block_s8, i8, i32, "tdpbssd");
block_kernel!(block_bf16, bf16, f32, "tdpbf16ps");

impl AmxElem for i8 {
    const GROUP: usize = 4;
    type Acc = i32;
    type Out = i32;

    unsafe fn block(a: *const i8, b: *const i8, kblocks: usize, c: (*mut i32, usize)) {
        // SAFETY: the caller's contract is the kernel's.
        unsafe { block_s8(a, b, kblocks, c) }
    }

    fn finish(v: i32, old: Option<i32>) -> i32 {
        old.map_or(v, |o| o.wrapping_add(v))
    }

    /// Four 32-byte rows into 32 groups of 4 bytes: bytes of rows 0/1 and 2/3 paired, the
    /// pairs paired, then the 128-bit halves put in column order (10 shuffles for 128 bytes,
    /// where the scalar loop moves one byte at a time).
    #[inline(always)]
    unsafe fn interleave(rows: &[&[i8]; 4], dst: &mut [i8]) {
        use core::arch::x86_64::*;
        let dst = &mut dst[..4 * BLOCK];
        // SAFETY: AVX2 is present (the contract); each load reads the 32 bytes of one row
        // (sliced to 32 first, panicking otherwise) and the stores write the 128 bytes of
        // `dst` (sliced above), 32 at a time.
        unsafe {
            // Written out: `array::map`'s shim is compiled apart, without AVX2 (the intrinsics
            // become calls).
            let load = |e: usize| rows[e][..BLOCK].as_ptr().cast::<__m256i>();
            let r = [
                _mm256_loadu_si256(load(0)),
                _mm256_loadu_si256(load(1)),
                _mm256_loadu_si256(load(2)),
                _mm256_loadu_si256(load(3)),
            ];
            let t0 = _mm256_unpacklo_epi8(r[0], r[1]);
            let t1 = _mm256_unpackhi_epi8(r[0], r[1]);
            let t2 = _mm256_unpacklo_epi8(r[2], r[3]);
            let t3 = _mm256_unpackhi_epi8(r[2], r[3]);
            // Per 128-bit half: u0 columns 0-3 (16-19), u1 4-7, u2 8-11, u3 12-15 (28-31).
            let u0 = _mm256_unpacklo_epi16(t0, t2);
            let u1 = _mm256_unpackhi_epi16(t0, t2);
            let u2 = _mm256_unpacklo_epi16(t1, t3);
            let u3 = _mm256_unpackhi_epi16(t1, t3);
            let o = [
                _mm256_permute2x128_si256::<0x20>(u0, u1),
                _mm256_permute2x128_si256::<0x20>(u2, u3),
                _mm256_permute2x128_si256::<0x31>(u0, u1),
                _mm256_permute2x128_si256::<0x31>(u2, u3),
            ];
            for (d, v) in dst.chunks_exact_mut(32).zip(o) {
                _mm256_storeu_si256(d.as_mut_ptr().cast::<__m256i>(), v);
            }
        }
    }

    /// A whole block of a row-major C that is overwritten: the sums are the results.
    fn direct(
        d: &GemmDesc,
        bt: usize,
        i0: usize,
        j0: usize,
        out: &OutPtr<'_, i32>,
    ) -> Option<(*mut i32, usize)> {
        let cs = [d.c_batch_stride, d.c_row_stride, d.c_col_stride];
        let whole = i0 + BLOCK <= d.m && j0 + BLOCK <= d.n;
        if d.accumulate || !whole || cs[2] != 1 || cs[1] <= 0 {
            return None;
        }
        // SAFETY: rows i0..i0 + 32, columns j0..j0 + 32 of item bt lie inside C (validated
        // strides, a whole block) and belong to this unit alone. `slice` bounds-checks the
        // first and the last row; the slices end at once, and the kernel then writes exactly
        // those 32 rows of 32 elements through the pointer, `c_row_stride` apart.
        let start = unsafe {
            out.slice(offset(bt, i0 + BLOCK - 1, j0, cs), BLOCK);
            out.slice(offset(bt, i0, j0, cs), BLOCK).as_mut_ptr()
        };
        Some((start, cs[1] as usize * 4))
    }
}

impl AmxElem for bf16 {
    const GROUP: usize = 2;
    type Acc = f32;
    type Out = bf16;

    unsafe fn block(a: *const bf16, b: *const bf16, kblocks: usize, c: (*mut f32, usize)) {
        // SAFETY: the caller's contract is the kernel's.
        unsafe { block_bf16(a, b, kblocks, c) }
    }

    fn finish(v: f32, old: Option<bf16>) -> bf16 {
        let r = bf16::from_f32(v);
        old.map_or(r, |o| bf16::from_f32(o.to_f32() + r.to_f32()))
    }

    /// Two rows of 32 bf16 into 32 pairs: 16-bit elements of the rows paired, then the
    /// 128-bit halves put in column order (as i8's, one level fewer).
    #[inline(always)]
    unsafe fn interleave(rows: &[&[bf16]; 4], dst: &mut [bf16]) {
        use core::arch::x86_64::*;
        let dst = &mut dst[..2 * BLOCK];
        // SAFETY: AVX2 is present (the contract); each load reads 16 of the 32 elements of a
        // row (sliced to 32 first, panicking otherwise) and the stores write the 64 elements
        // of `dst` (sliced above), 16 at a time.
        unsafe {
            let (a, b) = (&rows[0][..BLOCK], &rows[1][..BLOCK]);
            for h in 0..2 {
                let ra = _mm256_loadu_si256(a[16 * h..].as_ptr().cast::<__m256i>());
                let rb = _mm256_loadu_si256(b[16 * h..].as_ptr().cast::<__m256i>());
                // Per 128-bit half: t0 columns 0-3 (8-11), t1 4-7 (12-15).
                let t0 = _mm256_unpacklo_epi16(ra, rb);
                let t1 = _mm256_unpackhi_epi16(ra, rb);
                let d = &mut dst[32 * h..][..32];
                let (lo, hi) = d.split_at_mut(16);
                let v0 = _mm256_permute2x128_si256::<0x20>(t0, t1);
                let v1 = _mm256_permute2x128_si256::<0x31>(t0, t1);
                _mm256_storeu_si256(lo.as_mut_ptr().cast::<__m256i>(), v0);
                _mm256_storeu_si256(hi.as_mut_ptr().cast::<__m256i>(), v1);
            }
        }
    }

    fn finish_row(src: &[f32], dst: &mut [bf16], accumulate: bool) {
        if accumulate {
            for (x, &v) in dst.iter_mut().zip(src) {
                *x = Self::finish(v, Some(*x));
            }
        } else {
            // The vectorised slice conversion: the same rounding as `bf16::from_f32`.
            dst.convert_from_f32_slice(&src[..dst.len()]);
        }
    }

    /// Never: f32 sums are rounded to bf16 on the way to C.
    fn direct(
        _: &GemmDesc,
        _: usize,
        _: usize,
        _: usize,
        _: &OutPtr<'_, bf16>,
    ) -> Option<(*mut f32, usize)> {
        None
    }
}

/// The thread's tile configuration while it lives: loaded by [`Tiles::configure`], released
/// (`tilerelease`, back to the initial state the OS saves cheaply) on drop. Not `Send`: tile
/// state belongs to the thread that configured it.
struct Tiles(PhantomData<*const ()>);

/// `ldtilecfg`'s 64-byte operand (palette 1).
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    colsb: [u16; 16],
    rows: [u8; 16],
}

impl Tiles {
    /// Configures tiles 0-7 as 16 rows of 64 bytes on this thread.
    ///
    /// # Safety
    /// The CPU runs AMX and Linux granted this process tile data ([`available`]).
    unsafe fn configure() -> Tiles {
        let mut cfg = TileConfig {
            palette: 1,
            start_row: 0,
            reserved: [0; 14],
            colsb: [0; 16],
            rows: [0; 16],
        };
        cfg.colsb[..8].fill(ROW_BYTES as u16);
        cfg.rows[..8].fill(16);
        // SAFETY: AMX is usable (caller); `cfg` is a valid palette-1 configuration (8 tiles of
        // 16 x 64 bytes, the maximum) in 64 readable bytes.
        unsafe { asm!("ldtilecfg [{}]", in(reg) &cfg, options(nostack, readonly)) };
        Tiles(PhantomData)
    }
}

impl Drop for Tiles {
    fn drop(&mut self) {
        // SAFETY: tiles were configured on this thread by `configure` (a `Tiles` is not Send,
        // so it is dropped on the thread that made it).
        unsafe { asm!("tilerelease", options(nostack, nomem)) };
    }
}

/// Packed operands, reused across calls (grown, never shrunk).
pub(crate) struct Buffers<E: Copy> {
    /// A: `[item][block][k block][32 rows][64 bytes]`.
    a: AlignedBuf<E>,
    /// B: `[item][panel][k block][16 groups][32 columns][group]`.
    b: AlignedBuf<E>,
}

impl<E: Copy> Default for Buffers<E> {
    fn default() -> Self {
        Buffers {
            a: AlignedBuf::new(),
            b: AlignedBuf::new(),
        }
    }
}

/// Packed operands larger than this take whole 2 MiB pages. A tile load translates each of
/// its 16 row addresses: once the tiles a run reads span more 4 KiB pages than the first-level
/// TLB holds (64 entries, 256 KiB), every row waits on the second-level TLB. Measured with the
/// block kernel alone (one thread, s8, k = 1024): 16.8 cycles per product with every operand
/// on 2 MiB pages, 39 on 4 KiB pages once A and B exceed about 200 KiB.
const HUGE_MIN_BYTES: usize = 128 << 10;

/// The first `len` elements of `v`, grown to at least `len` (to whole huge pages when large).
/// Old contents may remain: the packing rewrites every element it uses.
fn reserve<E: Copy + Default>(v: &mut AlignedBuf<E>, len: usize) -> &mut [E] {
    if v.len() < len {
        let size = core::mem::size_of::<E>().max(1);
        let bytes = len * size;
        let cap = if bytes >= HUGE_MIN_BYTES {
            bytes.next_multiple_of(HUGE_PAGE) / size
        } else {
            len
        };
        *v = AlignedBuf::filled(E::default(), cap);
    }
    &mut v[..len]
}

/// `C[b] = A[b] B[b]` (`+ C[b]` if accumulating) on validated, non-empty operands; the caller
/// has checked [`available`].
pub(crate) fn gemm<E: AmxElem>(
    d: &GemmDesc,
    a: &[E],
    b: &[E],
    out: &OutPtr<'_, E::Out>,
    bufs: &mut Buffers<E>,
) {
    // At least one (zero) k block, so k = 0 gives zeros through the same kernel.
    let kblocks = d.k.div_ceil(k_block::<E>()).max(1);
    let (blocks, panels) = (d.m.div_ceil(BLOCK), d.n.div_ceil(BLOCK));
    let per = kblocks * block_elems::<E>();
    let items_a = super::items(d.batch, d.a_batch_stride);
    let items_b = super::items(d.batch, d.b_batch_stride);
    let parallel = splits(d);
    let pa = reserve(&mut bufs.a, items_a * blocks * per);
    let pb = reserve(&mut bufs.b, items_b * panels * per);
    // SAFETY (both): the caller checked `available()`, and the AMX level requires AVX-512F
    // and BW (`cpu::detect`), which `around_tiles` enables.
    let pack_a_unit = |t: usize, dst: &mut [E]| unsafe {
        around_tiles(|| pack_a(d, a, t / blocks, t % blocks * BLOCK, dst))
    };
    let pack_b_unit = |t: usize, dst: &mut [E]| unsafe {
        around_tiles(|| pack_b(d, b, t / panels, t % panels * BLOCK, dst))
    };
    if parallel {
        pa.par_chunks_mut(per)
            .enumerate()
            .for_each(|(t, x)| pack_a_unit(t, x));
        pb.par_chunks_mut(per)
            .enumerate()
            .for_each(|(t, x)| pack_b_unit(t, x));
    } else {
        pa.chunks_mut(per)
            .enumerate()
            .for_each(|(t, x)| pack_a_unit(t, x));
        pb.chunks_mut(per)
            .enumerate()
            .for_each(|(t, x)| pack_b_unit(t, x));
    }
    let (pa, pb) = (&*pa, &*pb);
    let units = d.batch * panels * blocks;
    let run = |r: std::ops::Range<usize>| {
        // SAFETY: `available()` was checked by the caller.
        let _tiles = unsafe { Tiles::configure() };
        let mut acc = Acc::<E::Acc>::default();
        for u in r {
            let (bt, blk, p) = (u / (blocks * panels), u / panels % blocks, u % panels);
            let ia = if items_a == 1 { 0 } else { bt };
            let ib = if items_b == 1 { 0 } else { bt };
            let ap = &pa[(ia * blocks + blk) * per..][..per];
            let bp = &pb[(ib * panels + p) * per..][..per];
            let (i0, j0) = (blk * BLOCK, p * BLOCK);
            if let Some(dst) = E::direct(d, bt, i0, j0, out) {
                // SAFETY: as below, with `dst` the block's 32 rows inside C (`direct`).
                unsafe { E::block(ap.as_ptr(), bp.as_ptr(), kblocks, dst) };
                continue;
            }
            // SAFETY: tiles configured above; `ap` and `bp` hold `kblocks` blocks each (sliced
            // to `per` elements, bounds-checked); `acc` holds 32 rows of 32 values, 128 bytes
            // apart.
            let dst = (acc.0.as_mut_ptr(), BLOCK * core::mem::size_of::<E::Acc>());
            unsafe { E::block(ap.as_ptr(), bp.as_ptr(), kblocks, dst) };
            store::<E>(d, bt, i0, j0, &acc.0, out);
        }
    };
    let runs = if parallel {
        (rayon::current_num_threads() * RUNS_PER_THREAD).min(units)
    } else {
        1
    };
    if runs <= 1 {
        run(0..units);
    } else {
        (0..runs)
            .into_par_iter()
            .for_each(|t| run(t * units / runs..(t + 1) * units / runs));
    }
}

/// [`gemm`] entering rayon's pool once when it forks (packing A, packing B, the runs: three
/// forks, each a hand-over and a wait from outside the pool).
pub(crate) fn gemm_in_pool<E: AmxElem>(
    d: &GemmDesc,
    a: &[E],
    b: &[E],
    out: &OutPtr<'_, E::Out>,
    bufs: &mut Buffers<E>,
) {
    if splits(d) {
        crate::par::in_pool(|| gemm(d, a, b, out, bufs))
    } else {
        gemm(d, a, b, out, bufs)
    }
}

/// Whether the product is split over rayon's threads (there are several, and it has at least
/// [`PAR_MIN_MACS`] multiply-adds).
fn splits(d: &GemmDesc) -> bool {
    d.batch * d.m * d.n * d.k >= PAR_MIN_MACS && rayon::current_num_threads() > 1
}

/// One C block as the kernel stores it (row-major 32 x 32), cache-line aligned.
#[repr(C, align(64))]
struct Acc<T>([T; BLOCK * BLOCK]);

impl<T: Copy + Default> Default for Acc<T> {
    fn default() -> Self {
        Acc([T::default(); BLOCK * BLOCK])
    }
}

/// `f()` compiled with AVX-512F and BW: the packing inlined into it runs `interleave`'s AVX2
/// shuffles and vector copies in a default build too (B's s8 interleave, compiled for the
/// baseline's SSE2, took 22% of a 1024^3 s8 product on one thread).
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512BW (every CPU at the AMX level: `cpu::detect`).
#[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
unsafe fn around_tiles<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Packs rows `i0..i0 + 32` of A's item `bt` into `dst` (`[k block][row][64 bytes]`), zero
/// beyond `m` and `k`.
#[inline(always)]
fn pack_a<E: AmxElem>(d: &GemmDesc, a: &[E], bt: usize, i0: usize, dst: &mut [E]) {
    let kb = k_block::<E>();
    let s = [d.a_batch_stride, d.a_row_stride, d.a_col_stride];
    // Zeros only where padding is: rows past m, the last k block's tail.
    if i0 + BLOCK > d.m || !d.k.is_multiple_of(kb) || d.k == 0 {
        dst.fill(E::default());
    }
    if d.k == 0 {
        return;
    }
    for r in 0..BLOCK.min(d.m - i0) {
        let i = i0 + r;
        for (q, chunk) in dst.chunks_exact_mut(BLOCK * kb).enumerate() {
            let p0 = q * kb;
            if p0 >= d.k {
                break;
            }
            let len = kb.min(d.k - p0);
            let row = &mut chunk[r * kb..][..len];
            if s[2] == 1 {
                let o = offset(bt, i, p0, s);
                row.copy_from_slice(&a[o..o + len]);
            } else {
                for (t, x) in row.iter_mut().enumerate() {
                    *x = a[offset(bt, i, p0 + t, s)];
                }
            }
        }
    }
}

/// Packs columns `j0..j0 + 32` of B's item `bt` into `dst` (`[k block][group][column]
/// [element of the group]`), zero beyond `k` and `n`. Runs inside [`around_tiles`].
#[inline(always)]
fn pack_b<E: AmxElem>(d: &GemmDesc, b: &[E], bt: usize, j0: usize, dst: &mut [E]) {
    let g = E::GROUP;
    let s = [d.b_batch_stride, d.b_row_stride, d.b_col_stride];
    let nr = BLOCK.min(d.n - j0);
    // Zeros only where padding is: columns past n, the last k block's tail.
    if nr < BLOCK || !d.k.is_multiple_of(k_block::<E>()) || d.k == 0 {
        dst.fill(E::default());
    }
    // Rows p..p + g of B (one group) go to the group's 32 columns, g elements each: gathered
    // a group at a time so the writes are contiguous.
    let mut rows = [&[][..]; 4];
    for (q, cols) in dst.chunks_exact_mut(BLOCK * g).enumerate() {
        let p0 = q * g;
        if p0 >= d.k {
            break;
        }
        let full = p0 + g <= d.k;
        if s[2] == 1 && full {
            for (e, row) in rows.iter_mut().enumerate().take(g) {
                let o = offset(bt, p0 + e, j0, s);
                *row = &b[o..o + nr];
            }
            if nr == BLOCK {
                // SAFETY: AVX2 is present: `pack_b` runs only inside `around_tiles`, from
                // `gemm`, whose caller checked `available()` (the AMX level); the rows hold 32
                // elements (nr == BLOCK).
                unsafe { E::interleave(&rows, cols) };
                continue;
            }
            for (jj, col) in cols.chunks_exact_mut(g).take(nr).enumerate() {
                for (e, x) in col.iter_mut().enumerate() {
                    *x = rows[e][jj];
                }
            }
        } else {
            for e in 0..g.min(d.k - p0) {
                for jj in 0..nr {
                    cols[jj * g + e] = b[offset(bt, p0 + e, j0 + jj, s)];
                }
            }
        }
    }
}

/// Writes block (`i0`, `j0`) of item `bt` from `acc` into the rows and columns of C that exist.
fn store<E: AmxElem>(
    d: &GemmDesc,
    bt: usize,
    i0: usize,
    j0: usize,
    acc: &[E::Acc; BLOCK * BLOCK],
    out: &OutPtr<'_, E::Out>,
) {
    let cs = [d.c_batch_stride, d.c_row_stride, d.c_col_stride];
    let (mr, nr) = (BLOCK.min(d.m - i0), BLOCK.min(d.n - j0));
    for (r, row) in acc.chunks_exact(BLOCK).enumerate().take(mr) {
        let o0 = offset(bt, i0 + r, j0, cs);
        if cs[2] == 1 {
            // SAFETY: row i0 + r, columns j0..j0 + nr of item bt lie inside C (validated) and
            // belong to this unit alone (C's strides are injective; units are disjoint blocks).
            E::finish_row(row, unsafe { out.slice(o0, nr) }, d.accumulate);
        } else {
            for (jj, &v) in row.iter().enumerate().take(nr) {
                let o = offset(bt, i0 + r, j0 + jj, cs);
                // SAFETY: as above, one element at a time.
                unsafe { out.set(o, E::finish(v, d.accumulate.then(|| out.get(o)))) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The AMX bf16 path on values whose sums are not exact (the `widen` tests use exact
    //! ones, which pin the packing and layouts bit for bit at every level): within the error
    //! bound of the exact sum, the same bits on 1 and 2 threads, every layout, NaN-filled
    //! outputs. The s8 path is checked bit for bit by `int8`'s tests, which run it here.

    use half::bf16;

    use super::available;
    use crate::gemm::{gemm, GemmDesc, GemmScratch};

    fn vals(len: usize, seed: u64) -> Vec<bf16> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                // Mantissas full of bits, magnitudes over 2^-6..2^6, both signs.
                let m = (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                bf16::from_f32(m * 2f32.powi((s % 13) as i32 - 6))
            })
            .collect()
    }

    /// `C = A B` (`+ C`) for one layout against the exact sum: `|C - round(exact)|` within
    /// one bf16 ulp (`2^-7 |x|`: the f32 sum may round to the other neighbour) plus the f32
    /// sum's error bound `k 2^-23 sum |a b|`.
    fn check(batch: usize, (m, n, k): (usize, usize, usize), t: [bool; 3], acc: bool) {
        let (sa, sb, sc) = (
            strides(batch, m, k, t[0]),
            strides(batch, k, n, t[1]),
            strides(batch, m, n, t[2]),
        );
        let d = GemmDesc {
            accumulate: acc,
            ..GemmDesc::from_strides(batch, m, n, k, sa, sb, sc)
        };
        let a = vals(batch * m * k, 1);
        let b = vals(batch * k * n, 2);
        let c0: Vec<bf16> = if acc {
            vals(batch * m * n, 3)
        } else {
            vec![bf16::NAN; batch * m * n]
        };
        let run = |threads: usize| {
            let mut c = c0.clone();
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool")
                .install(|| gemm(&d, &a, &b, &mut c, &mut GemmScratch::new()))
                .expect("valid");
            c
        };
        let c = run(2);
        let bits = |v: &[bf16]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&c), bits(&run(1)), "{d:?}: 1 and 2 threads differ");
        let at = |s: [isize; 3], bi: usize, i: usize, j: usize| {
            (bi as isize * s[0] + i as isize * s[1] + j as isize * s[2]) as usize
        };
        for bi in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let (mut exact, mut mag) = (0f64, 0f64);
                    for p in 0..k {
                        let x = a[at(sa, bi, i, p)].to_f64() * b[at(sb, bi, p, j)].to_f64();
                        exact += x;
                        mag += x.abs();
                    }
                    let o = at(sc, bi, i, j);
                    let r = bf16::from_f64(exact).to_f64();
                    let (want, err) = if acc {
                        let w = c0[o].to_f64() + r;
                        (w, (r.abs() + w.abs()) * 2f64.powi(-7))
                    } else {
                        (r, r.abs() * 2f64.powi(-7))
                    };
                    let bound = err + (k as f64 * 2f64.powi(-23) * mag) * 1.01;
                    let got = c[o].to_f64();
                    assert!(
                        (got - want).abs() <= bound,
                        "{d:?} at ({bi},{i},{j}): {got} vs {want} (bound {bound})"
                    );
                }
            }
        }
    }

    /// Dense strides of a `batch x rows x cols` operand, row- or column-major.
    fn strides(batch: usize, rows: usize, cols: usize, col_major: bool) -> [isize; 3] {
        let (r, c) = (rows as isize, cols as isize);
        let s = if col_major {
            [r * c, 1, r]
        } else {
            [r * c, c, 1]
        };
        [if batch == 1 { 0 } else { s[0] }, s[1], s[2]]
    }

    #[test]
    fn bf16_within_the_bound_of_the_exact_sum_on_every_layout() {
        eprintln!(
            "bf16 GEMM on {}",
            if available() {
                "AMX tiles"
            } else {
                "the f32 kernel"
            }
        );
        for &(m, n, k) in &[
            (1, 1, 1),
            (31, 33, 31),
            (32, 32, 32),
            (33, 65, 64),
            (70, 40, 300),
        ] {
            for t in 0..8 {
                let t = [t & 1 != 0, t & 2 != 0, t & 4 != 0];
                check(1, (m, n, k), t, m % 2 == 1);
                check(2, (m, n, k), t, m % 2 == 0);
            }
        }
        check(3, (130, 100, 1000), [false; 3], false);
    }

    /// AMX reads subnormal bf16 inputs as zero (as XLA:CPU, which runs with denormals
    /// flushed); the other levels multiply them exactly.
    #[test]
    fn bf16_subnormal_inputs_where_amx_flushes_them() {
        let tiny = bf16::from_bits(0x0001); // the smallest subnormal, 2^-133
        let d = GemmDesc::row_major(1, 1, 1, 1);
        let mut c = [bf16::NAN];
        gemm(
            &d,
            &[tiny],
            &[bf16::from_f32(2f32.powi(100))],
            &mut c,
            &mut GemmScratch::new(),
        )
        .expect("valid");
        let want = if available() { 0.0 } else { 2f32.powi(-33) };
        assert_eq!(c[0].to_f32(), want);
    }
}
