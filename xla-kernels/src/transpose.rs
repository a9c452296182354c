//! Transpose and strided copies: `out[i_0, ..., i_{r-1}] = in[j]` with `j[perm[d]] = i[d]`
//! (XLA's `Transpose`: output dim `d` is input dim `perm[d]`), row-major on both sides.
//!
//! Every copy goes through one engine, `gather`: a contiguous row-major destination filled
//! from a source addressed by arbitrary element strides. It first simplifies the shape (drops
//! extent-1 dims, merges dims that stay adjacent), then picks a path:
//! - the innermost source stride is 1: plain row copies (`copy_from_slice`);
//! - another dim has a smaller source stride: cache-blocked tiles of that dim x the innermost
//!   output dim ([`TILE_I`] x [`TILE_J`]), so each tile's reads and writes stay in cache;
//!   4-byte (8-byte) elements with a unit-stride tile dim use `wide` 8x8 (4x4) register
//!   transposes;
//! - otherwise a strided gather per output row.
//!
//! Threads: destination rows are split into fixed blocks of [`PAR_TASK_ELEMENTS`] (a copy is
//! exact, so the result never depends on the thread count); nothing is parallel below
//! [`PAR_MIN_ELEMENTS`]. No heap allocation: shapes live in `[_; MAX_RANK]` arrays.
//!
//! Speed, `f32[4096,4096]` (`CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native"
//! cargo run --release -p xla-kernels --example k3a_speed transpose`; 2-core AMD EPYC, AVX2):
//! 16.3 ms wall on a quiet machine before the paired strips (memcpy 10.0 ms on one thread).
//! On the loaded shared machine of this session, best-of-9 process CPU time (`CPU=1`, both
//! threads), binaries alternated three times: 8x8 blocks one strip at a time (half a cache
//! line per destination row and store) 20.1-21.9 ms; paired strips (a whole 64-byte line)
//! 14.1-18.0 ms; paired strips with 128 x 4096 tiles 15.2-20.8 ms (no clear gain, not taken).
//! Non-temporal stores (a prototype in k3a_speed, `PROTO=1`) showed no clear gain there; on
//! the Intel Xeon (AVX-512) they make the same transpose 3.5x faster (17.4 -> 4.9 ms on 2
//! threads, 33 -> 11.7 ms on one, where memcpy takes 9.5 ms), so destinations of at least
//! [`NT_MIN_BYTES`] write their whole, line-aligned 64-byte lines that way (`stream_f32`).

use std::any::TypeId;

use rayon::prelude::*;
use wide::{f32x8, f64x4};

use crate::error::{element_count, KernelError};
use crate::tensor::MAX_RANK;

/// Tile extent along the source-contiguous dim (destination rows): 256 f32 = 1 KiB of every
/// source row read front to back. With [`TILE_J`]: a 64 KiB tile read and written once, in L2,
/// and few enough pages for the TLB. Measured on `f32[4096,4096]` against 8..256 x 8..256 tiles:
/// 256x64 and 64x64 were best, 2-3x faster than 16x16 or 32x32 (power-of-two strides alias).
pub const TILE_I: usize = 256;

/// Tile extent along the innermost destination dim (source rows).
pub const TILE_J: usize = 64;

/// From this many destination bytes on, the register-transposed tiles write whole cache lines
/// with non-temporal stores: a destination this large leaves the caches anyway, and a plain
/// store first reads each line it fills. Intel Xeon (AVX-512), `f32[4096,4096]`, 2 threads:
/// 17.4 ms -> 4.9 ms (`PROTO=1 k3a_speed transpose`, ti=256), where a memcpy on one thread
/// takes 9.5 ms; on the AVX2 EPYC it measured no clear gain and no loss.
pub const NT_MIN_BYTES: usize = 8 << 20;

/// Below this many elements a copy runs on the caller's thread: waking a rayon worker costs a
/// few microseconds, about the time to copy 64K elements from L2.
pub const PAR_MIN_ELEMENTS: usize = 1 << 16;

/// Destination elements per parallel task (rounded to whole tiles of rows): 256 KiB of f32,
/// enough to amortise a task, small enough to balance 2+ threads on a 4096x4096 transpose.
pub const PAR_TASK_ELEMENTS: usize = 1 << 16;

/// Transposes the row-major array `src` of shape `dims` into the row-major `dst` of shape
/// `[dims[perm[0]], ..., dims[perm[r-1]]]`: `dst[i] = src[j]` with `j[perm[d]] = i[d]`.
///
/// Errors (nothing written): `perm` is not a permutation of `0..dims.len()`, the rank exceeds
/// [`MAX_RANK`], the element count overflows, or a buffer length differs from it.
pub fn transpose<T: Copy + Send + Sync + 'static>(
    src: &[T],
    dims: &[usize],
    perm: &[usize],
    dst: &mut [T],
) -> Result<(), KernelError> {
    const OP: &str = "transpose";
    let rank = dims.len();
    check_rank(OP, rank)?;
    let mut seen = [false; MAX_RANK];
    if perm.len() != rank
        || perm
            .iter()
            .any(|&p| p >= rank || std::mem::replace(&mut seen[p], true))
    {
        return Err(KernelError::invalid(
            OP,
            format!("perm {perm:?} is not a permutation of 0..{rank} (dims {dims:?})"),
        ));
    }
    let n = element_count(OP, dims)?;
    KernelError::check_len(OP, "src", n, src.len())?;
    KernelError::check_len(OP, "dst", n, dst.len())?;
    if n == 0 {
        return Ok(());
    }
    let mut in_strides = [0isize; MAX_RANK];
    let mut acc = 1usize;
    for d in (0..rank).rev() {
        in_strides[d] = acc as isize;
        acc *= dims[d];
    }
    let mut out_dims = [0usize; MAX_RANK];
    let mut strides = [0isize; MAX_RANK];
    for d in 0..rank {
        out_dims[d] = dims[perm[d]];
        strides[d] = in_strides[perm[d]];
    }
    gather(src, 0, &out_dims[..rank], &strides[..rank], dst);
    Ok(())
}

/// Strided copy: `dst[dst_offset + sum_d i_d * dst_strides[d]] = src[src_offset + sum_d i_d *
/// src_strides[d]]` for every index `i` of the box `dims` (strides in elements, any sign, 0
/// allowed). If the destination strides map two indices to one location, the later index in
/// row-major order wins (then it runs on one thread).
///
/// Errors (nothing written): stride/dims ranks differ or exceed [`MAX_RANK`], or some addressed
/// element lies outside its slice.
pub fn copy_strided<T: Copy + Send + Sync + 'static>(
    src: &[T],
    src_offset: usize,
    src_strides: &[isize],
    dims: &[usize],
    dst: &mut [T],
    dst_offset: usize,
    dst_strides: &[isize],
) -> Result<(), KernelError> {
    const OP: &str = "copy_strided";
    let rank = dims.len();
    check_rank(OP, rank)?;
    if src_strides.len() != rank || dst_strides.len() != rank {
        return Err(KernelError::invalid(
            OP,
            format!(
                "dims {dims:?} has rank {rank} but src_strides {src_strides:?} and dst_strides \
                 {dst_strides:?} have {} and {}",
                src_strides.len(),
                dst_strides.len()
            ),
        ));
    }
    let n = element_count(OP, dims)?;
    if n == 0 {
        return Ok(());
    }
    check_box(OP, "src", src.len(), src_offset, src_strides, dims)?;
    check_box(OP, "dst", dst.len(), dst_offset, dst_strides, dims)?;
    // A row-major contiguous destination (ignoring extent-1 dims) is the gather engine's case.
    let mut acc = 1isize;
    let contiguous = (0..rank).rev().all(|d| {
        let ok = dims[d] == 1 || dst_strides[d] == acc;
        acc *= dims[d] as isize;
        ok
    });
    if contiguous {
        gather(
            src,
            src_offset as isize,
            dims,
            src_strides,
            &mut dst[dst_offset..dst_offset + n],
        );
        return Ok(());
    }
    let mut od = Odometer::new();
    for _ in 0..n {
        let s = (src_offset as isize + od.off_a) as usize;
        let d = (dst_offset as isize + od.off_b) as usize;
        dst[d] = src[s];
        od.step(dims, src_strides, dst_strides);
    }
    Ok(())
}

fn check_rank(op: &'static str, rank: usize) -> Result<(), KernelError> {
    if rank > MAX_RANK {
        return Err(KernelError::invalid(
            op,
            format!("rank {rank} exceeds MAX_RANK = {MAX_RANK}"),
        ));
    }
    Ok(())
}

/// Checks that every offset `offset + sum i_d * strides[d]` of a non-empty box is in `0..len`.
fn check_box(
    op: &'static str,
    operand: &str,
    len: usize,
    offset: usize,
    strides: &[isize],
    dims: &[usize],
) -> Result<(), KernelError> {
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&s, &e) in strides.iter().zip(dims) {
        let span = s as i128 * (e as i128 - 1);
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    if lo < 0 || hi >= len as i128 {
        return Err(KernelError::invalid(
            op,
            format!(
                "{operand} with offset {offset}, strides {strides:?} and dims {dims:?} addresses \
                 offsets {lo}..={hi} but has {len} elements"
            ),
        ));
    }
    Ok(())
}

/// A row-major walk over a box carrying two strided offsets.
struct Odometer {
    idx: [usize; MAX_RANK],
    off_a: isize,
    off_b: isize,
}

impl Odometer {
    fn new() -> Self {
        Odometer {
            idx: [0; MAX_RANK],
            off_a: 0,
            off_b: 0,
        }
    }

    /// Starts at row-major linear index `linear` of `dims`.
    fn at(linear: usize, dims: &[usize], sa: &[isize], sb: &[isize]) -> Self {
        let mut od = Odometer::new();
        let mut rest = linear;
        for d in (0..dims.len()).rev() {
            let i = rest % dims[d];
            rest /= dims[d];
            od.idx[d] = i;
            od.off_a += i as isize * sa[d];
            od.off_b += i as isize * sb[d];
        }
        od
    }

    /// Advances to the next index in row-major order (wraps to all zeros after the last).
    #[inline]
    fn step(&mut self, dims: &[usize], sa: &[isize], sb: &[isize]) {
        for d in (0..dims.len()).rev() {
            self.idx[d] += 1;
            self.off_a += sa[d];
            self.off_b += sb[d];
            if self.idx[d] < dims[d] {
                return;
            }
            self.off_a -= sa[d] * dims[d] as isize;
            self.off_b -= sb[d] * dims[d] as isize;
            self.idx[d] = 0;
        }
    }
}

/// Fills the contiguous row-major `dst` of shape `dims` with `src[base + sum i_d * strides[d]]`.
/// The caller has checked every addressed offset and `dst.len() == prod(dims) > 0`.
fn gather<T: Copy + Send + Sync + 'static>(
    src: &[T],
    base: isize,
    dims: &[usize],
    strides: &[isize],
    dst: &mut [T],
) {
    // Simplify: drop extent-1 dims, merge a dim into the previous one when it continues it.
    let (mut e, mut s, mut r) = ([0usize; MAX_RANK], [0isize; MAX_RANK], 0usize);
    for (&ed, &sd) in dims.iter().zip(strides) {
        if ed == 1 {
            continue;
        }
        if r > 0 && s[r - 1] == sd * ed as isize {
            e[r - 1] *= ed;
            s[r - 1] = sd;
        } else {
            e[r] = ed;
            s[r] = sd;
            r += 1;
        }
    }
    let (e, s) = (&e[..r], &s[..r]);
    if r == 0 {
        dst[0] = src[base as usize];
        return;
    }
    let last = r - 1;
    // The tile dim: the outer dim with the smallest |stride|, if smaller than the last's.
    let q = (0..last).min_by_key(|&d| s[d].unsigned_abs());
    let q = match q {
        Some(q) if s[q].unsigned_abs() < s[last].unsigned_abs() => q,
        _ => last,
    };
    let nt = std::mem::size_of_val(dst) >= NT_MIN_BYTES;
    let plan = Plan { e, s, q, base, nt };
    let row_len: usize = e[plan.q + 1..].iter().product();
    let n = dst.len();
    if n < PAR_MIN_ELEMENTS {
        plan.run(src, dst, 0);
        return;
    }
    let rows_per_task = (PAR_TASK_ELEMENTS / row_len)
        .max(1)
        .next_multiple_of(TILE_I);
    dst.par_chunks_mut(rows_per_task * row_len)
        .enumerate()
        .for_each(|(t, chunk)| plan.run(src, chunk, t * rows_per_task));
}

/// A simplified gather: dims `e`, source strides `s`; "rows" are the indices of dims `0..=q`,
/// each a contiguous `prod(e[q+1..])` elements of the destination.
struct Plan<'a> {
    e: &'a [usize],
    s: &'a [isize],
    q: usize,
    base: isize,
    /// Non-temporal stores for whole destination lines (see [`NT_MIN_BYTES`]).
    nt: bool,
}

impl Plan<'_> {
    /// Fills `chunk` = destination rows `g0..` (whole rows).
    fn run<T: Copy + 'static>(&self, src: &[T], chunk: &mut [T], g0: usize) {
        let (e, s, q) = (self.e, self.s, self.q);
        let last = e.len() - 1;
        if q == last {
            self.run_rows(src, chunk, g0);
            return;
        }
        let row_len: usize = e[q + 1..].iter().product();
        let n_rows = chunk.len() / row_len;
        let (mid_e, mid_s) = (&e[q + 1..last], &s[q + 1..last]);
        let mid_count: usize = mid_e.iter().product();
        let (eq, el, sq, sl) = (e[q], e[last], s[q], s[last]);
        let (v32, v64) = (view::<T, f32>(src), view::<T, f64>(src));
        let mut g = g0;
        while g < g0 + n_rows {
            let i = g % eq;
            let h = TILE_I.min(eq - i).min(g0 + n_rows - g);
            let prefix = Odometer::at(g / eq, &e[..q], &s[..q], &s[..q]);
            let sp = self.base + prefix.off_a + i as isize * sq;
            let mut mid = Odometer::new();
            for m in 0..mid_count {
                let so = sp + mid.off_a;
                let d0 = (g - g0) * row_len + m * el;
                for j0 in (0..el).step_by(TILE_J) {
                    let w = TILE_J.min(el - j0);
                    let (so, d0) = (so + j0 as isize * sl, d0 + j0);
                    match (v32, v64, sq) {
                        (Some(s32), _, 1) => {
                            let d32 = view_mut(chunk).expect("dst has src's element type");
                            tile_f32(s32, so, sl, d32, d0, row_len, h, w, self.nt)
                        }
                        (_, Some(s64), 1) => {
                            let d64 = view_mut(chunk).expect("dst has src's element type");
                            tile_f64(s64, so, sl, d64, d0, row_len, h, w, self.nt)
                        }
                        _ => tile(src, so, sq, sl, chunk, d0, row_len, h, w),
                    }
                }
                mid.step(mid_e, mid_s, mid_s);
            }
            g += h;
        }
        if self.nt {
            fence();
        }
    }

    /// `q == last`: each destination row is a (strided) run of the source.
    fn run_rows<T: Copy>(&self, src: &[T], chunk: &mut [T], g0: usize) {
        let (e, s) = (self.e, self.s);
        let last = e.len() - 1;
        let (el, sl) = (e[last], s[last]);
        let mut od = Odometer::at(g0, &e[..last], &s[..last], &s[..last]);
        for row in chunk.chunks_exact_mut(el) {
            let o = self.base + od.off_a;
            if sl == 1 {
                row.copy_from_slice(&src[o as usize..o as usize + el]);
            } else {
                for (j, x) in row.iter_mut().enumerate() {
                    *x = src[(o + j as isize * sl) as usize];
                }
            }
            od.step(&e[..last], &s[..last], &s[..last]);
        }
    }
}

/// One tile: `dst[d0 + ii * ds + jj] = src[so + ii * sq + jj * sl]` for `ii < h`, `jj < w`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn tile<T: Copy>(
    src: &[T],
    so: isize,
    sq: isize,
    sl: isize,
    dst: &mut [T],
    d0: usize,
    ds: usize,
    h: usize,
    w: usize,
) {
    for ii in 0..h {
        let row = &mut dst[d0 + ii * ds..][..w];
        let si = so + ii as isize * sq;
        for (jj, x) in row.iter_mut().enumerate() {
            *x = src[(si + jj as isize * sl) as usize];
        }
    }
}

/// Register-transposing tiles: `$name` is [`tile`] for `$t` elements with a unit source stride
/// along `ii`: full `$n x $n` blocks through `wide`'s register transpose ($n loads, shuffles,
/// $n stores), the edges through [`tile`]. Blocks go in pairs of source-row strips, so each
/// destination row receives `2 $n` elements (64 bytes, a whole cache line) per store pair.
macro_rules! simd_tile {
    ($name:ident, $t:ty, $v:ty, $n:literal, $stream:ident) => {
        #[allow(clippy::too_many_arguments)]
        #[inline]
        fn $name(
            src: &[$t],
            so: isize,
            sl: isize,
            dst: &mut [$t],
            d0: usize,
            ds: usize,
            h: usize,
            w: usize,
            nt: bool,
        ) {
            const N2: usize = 2 * $n;
            let (hb, wb) = (h - h % $n, w - w % $n);
            let w2 = w - w % N2;
            // The source rows of a strip, cut to the tile's hb elements once, so the inner
            // loop's loads need no further bounds checks.
            let strip = |jb: usize, jj: usize| {
                let o = (so + (jb + jj) as isize * sl) as usize;
                &src[o..o + hb]
            };
            let load = |rows: &[&[$t]], ib: usize| -> [$v; $n] {
                std::array::from_fn(|jj| {
                    <$v>::new(rows[jj][ib..ib + $n].try_into().expect("a full vector"))
                })
            };
            // Source rows outermost: each group of source rows is read front to back (whole
            // cache lines) while the destination rows of each block fill up over successive
            // groups.
            for jb in (0..w2).step_by(N2) {
                let rows: [&[$t]; N2] = std::array::from_fn(|jj| strip(jb, jj));
                for ib in (0..hb).step_by($n) {
                    let a = <$v>::transpose(load(&rows[..$n], ib));
                    let b = <$v>::transpose(load(&rows[$n..], ib));
                    for (ii, (a, b)) in a.iter().zip(&b).enumerate() {
                        let o = d0 + (ib + ii) * ds + jb;
                        let line = &mut dst[o..o + N2];
                        if !(nt && $stream(line, a.as_array(), b.as_array())) {
                            line[..$n].copy_from_slice(a.as_array());
                            line[$n..].copy_from_slice(b.as_array());
                        }
                    }
                }
            }
            if w2 < wb {
                let rows: [&[$t]; $n] = std::array::from_fn(|jj| strip(w2, jj));
                for ib in (0..hb).step_by($n) {
                    for (ii, v) in <$v>::transpose(load(&rows, ib)).iter().enumerate() {
                        let o = d0 + (ib + ii) * ds + w2;
                        dst[o..o + $n].copy_from_slice(v.as_array());
                    }
                }
            }
            if wb < w {
                let so = so + wb as isize * sl;
                tile(src, so, 1, sl, dst, d0 + wb, ds, hb, w - wb);
            }
            if hb < h {
                tile(
                    src,
                    so + hb as isize,
                    1,
                    sl,
                    dst,
                    d0 + hb * ds,
                    ds,
                    h - hb,
                    w,
                );
            }
        }
    };
}

simd_tile!(tile_f32, f32, f32x8, 8, stream_f32);
simd_tile!(tile_f64, f64, f64x4, 4, stream_f64);

/// `line = [a, b]` (64 bytes) with non-temporal stores when `line` starts a cache line, else
/// `false` and nothing written. [`fence`] orders them before the task ends.
#[inline(always)]
fn stream_f32(line: &mut [f32], a: &[f32; 8], b: &[f32; 8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_loadu_ps, _mm_stream_ps};
        let line = &mut line[..16];
        let p = line.as_mut_ptr();
        if !(p as usize).is_multiple_of(64) {
            return false;
        }
        // SAFETY: `p` addresses the 16 writable f32 of `line` (sliced above), 64-byte aligned
        // (checked), so each 16-byte store is in bounds and aligned as `_mm_stream_ps` needs;
        // the loads read 4 of the 8 elements of `a` or `b`. SSE is in every x86-64 CPU.
        unsafe {
            _mm_stream_ps(p, _mm_loadu_ps(a.as_ptr()));
            _mm_stream_ps(p.add(4), _mm_loadu_ps(a.as_ptr().add(4)));
            _mm_stream_ps(p.add(8), _mm_loadu_ps(b.as_ptr()));
            _mm_stream_ps(p.add(12), _mm_loadu_ps(b.as_ptr().add(4)));
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (line, a, b);
        false
    }
}

/// [`stream_f32`] for f64: `line = [a, b]` (64 bytes), non-temporal, if line-aligned.
#[inline(always)]
fn stream_f64(line: &mut [f64], a: &[f64; 4], b: &[f64; 4]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_loadu_pd, _mm_stream_pd};
        let line = &mut line[..8];
        let p = line.as_mut_ptr();
        if !(p as usize).is_multiple_of(64) {
            return false;
        }
        // SAFETY: `p` addresses the 8 writable f64 of `line` (sliced above), 64-byte aligned
        // (checked), so each 16-byte store is in bounds and aligned as `_mm_stream_pd` needs;
        // the loads read 2 of the 4 elements of `a` or `b`. SSE2 is in every x86-64 CPU.
        unsafe {
            _mm_stream_pd(p, _mm_loadu_pd(a.as_ptr()));
            _mm_stream_pd(p.add(2), _mm_loadu_pd(a.as_ptr().add(2)));
            _mm_stream_pd(p.add(4), _mm_loadu_pd(b.as_ptr()));
            _mm_stream_pd(p.add(6), _mm_loadu_pd(b.as_ptr().add(2)));
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (line, a, b);
        false
    }
}

/// Orders this thread's non-temporal stores before its later stores (and so before the task's
/// completion is seen by another thread): they are weakly ordered.
#[inline]
fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `sfence` only orders stores; SSE is in every x86-64 CPU.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    }
}

/// A lane type of the register transposes, and the element types that may be viewed as it.
pub(crate) trait Lane: Copy + 'static {
    /// `T` has this type's size and alignment, no padding, and accepts every bit pattern.
    fn accepts<T: 'static>() -> bool;
}

impl Lane for f32 {
    fn accepts<T: 'static>() -> bool {
        let t = TypeId::of::<T>();
        t == TypeId::of::<f32>() || t == TypeId::of::<u32>() || t == TypeId::of::<i32>()
    }
}

impl Lane for f64 {
    fn accepts<T: 'static>() -> bool {
        let t = TypeId::of::<T>();
        t == TypeId::of::<f64>() || t == TypeId::of::<u64>() || t == TypeId::of::<i64>()
    }
}

/// `src` as `&[U]` when `U::accepts::<T>()` (f32 for f32/u32/i32, f64 for f64/u64/i64):
/// register transposes only move bits, so the values are preserved.
pub(crate) fn view<T: 'static, U: Lane>(src: &[T]) -> Option<&[U]> {
    if !U::accepts::<T>() {
        return None;
    }
    // SAFETY: `U::accepts::<T>()` holds only for primitive T of U's size and alignment with no
    // padding and every bit pattern valid as U; the length is unchanged, so the new slice
    // covers exactly the same bytes, borrowed for the same lifetime.
    Some(unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<U>(), src.len()) })
}

/// Mutable version of [`view`].
pub(crate) fn view_mut<T: 'static, U: Lane>(dst: &mut [T]) -> Option<&mut [U]> {
    if !U::accepts::<T>() {
        return None;
    }
    // SAFETY: as in `view`; additionally every U bit pattern written through the new slice is
    // a valid T (the accepted T take every bit pattern of their size), and the exclusive
    // borrow of `dst` moves into the result, so no alias exists.
    Some(unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<U>(), dst.len()) })
}

#[cfg(test)]
mod tests;
