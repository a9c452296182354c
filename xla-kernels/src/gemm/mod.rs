//! Batched matrix multiplication: `C[b] = A[b] * B[b]` (`+ C[b]` when accumulating), every
//! operand addressed by element strides, for every element type XLA's `dot` accepts.
//!
//! - f32 / f64: packed panels and a register-tile micro-kernel (`kernel`, `micro`) for the
//!   instruction set chosen at run time ([`crate::cpu::level`]): AVX-512F 12 x 32 (f32),
//!   AVX2 + FMA 6 x 16, or the build's own `wide` vectors (`isa`, `x86`); threads over row
//!   blocks with a fork per k slice, or over columns with one fork for products of at most
//!   `COLUMN_SPLIT_MAX_M` rows, batch items whole per task when they are small; small
//!   operands and small `m` read A and B in place (no
//!   packing); `m == 1` / `n == 1` take a no-packing matrix-vector path (`small`); a
//!   column-major C is computed as `C^T = B^T A^T`.
//! - f16 / bf16: widened to dense f32 by vectorised slice conversions into the scratch, the
//!   f32 kernel, each result rounded once (`widen`); on a CPU with AMX, bf16 runs on AMX
//!   tiles instead (`amx`: f32 sums in the tiles' own order, then the same rounding).
//! - c64 / c128: the f32 / f64 kernel on the interleaved reals (`complex`): one real GEMM
//!   `A' (m x 2k) * B' (2k x 2n)` with B expanded to 2x2 blocks `[[x, y], [-y, x]]`, or, for
//!   `m <= 32`, `[re A; im A] * B'` with B's reals read in place, recombined after.
//! - integers (wrapping), pred (or of ands): a plain row loop in the element's own
//!   semantics (`generic`), threads over rows; s8 x s8 -> s32 has its own kernels (`int8`:
//!   AMX tiles, AVX-512 VNNI or AVX2 `vpmaddwd`, chosen at run time).
//! - [`backend::GemmBackend`]: the f32/f64 interface other GEMM crates plug into (optional
//!   feature `gemm-crates`), with the measured comparison.
//!
//! Speed of the f32/f64 paths on the 2-core AVX-512 Zen 4 EPYC of this project (`lscpu`:
//! "AMD EPYC", family 25 model 17, KVM; avx512f/bw/vl/vnni/bf16), GFLOP/s. The machine was
//! shared (load average 5-8 from other jobs), so the table is one-thread CPU time, which does
//! not count time descheduled: median of 5 alternating rounds of `RAYON_NUM_THREADS=1
//! GEMM_SPEED_CLOCK=cpu gemm_speed 5 <shapes>` over four builds of one tree, before and after
//! the run-time dispatch, default (`cargo run --release -p xla-kernels --example gemm_speed`)
//! and native (`CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" ...`):
//!
//! | product | default: before / after | native: before / after |
//! |---|---|---|
//! | f32 1024^3 | 19.7 / 99.8 | 99.9 / 101.1 |
//! | f32 256^3 | 19.1 / 95.8 | 96.6 / 96.8 |
//! | f32 64^3 | 16.0 / 99.4 | 99.6 / 99.6 |
//! | f32 1x784x128 | 14.0 / 34.5 | 35.3 / 36.5 |
//! | f32 8x784x128 | 18.7 / 109.3 | 93.7 / 109.2 |
//! | f32 16x[256^3] | 19.0 / 84.1 | 83.0 / 83.6 |
//! | f64 1024^3 | 9.8 / 48.3 | 49.2 / 48.5 |
//! | f64 256^3 | 9.8 / 48.6 | 48.5 / 49.9 |
//! | f64 64^3 | 8.0 / 49.4 | 48.7 / 49.3 |
//!
//! Before, a default build ran `wide`'s SSE2 code (f32x8 as two 4-lane halves, no FMA: a
//! 1-thread peak of 44 GFLOP/s); after, both builds run the AVX-512 kernel, whose 1-thread
//! FMA peak is 117 (`gemm_speed` prints the peak of the level in use), so a default build is
//! within 6% of a native one on every row (the rest of the code, packing included, is still
//! compiled for SSE2). The native build's 8x784x128 gains from the 8-row tile (one tile
//! high). On both cores, in the quietest moments: f32 1024^3 up to 200 GFLOP/s, 256^3 173,
//! 16x[256^3] 177. An earlier session (AVX2 6 x 16 tile, native build, quiet, 2 threads): f32
//! 1024^3 152.6, 256^3 141.6, 64^3 55.4, 8x784x128 51.5; XLA:CPU then (jax `jnp.matmul`,
//! loaded): 1024^3 54, 256^3 83, 64^3 27, 1x784x128 10.8, 8x784x128 46, 16x[256^3] 65.
//!
//! Determinism: each output element is computed by one thread, summing over `k` in an order
//! fixed by the sizes and strides alone (packed path: k-blocks of `KC` = 256 in order,
//! ascending within a block; `m == 1` dot form: 32 f32 / 16 f64 partial sums combined in a
//! fixed tree), so the bits do not depend on the number of threads. The order is the same at
//! every instruction-set level: levels differ only where one fuses a multiply-add that
//! another rounds twice (a default build's SSE2 baseline has no FMA; AVX2 and AVX-512 give
//! identical bits, and so does the baseline of a `target-cpu=native` build).
//!
//! Safety: strides and extents are checked once up front ([`GemmError`]); an output whose
//! strides would make two elements share a location is rejected, which is what lets threads
//! write disjoint parts of `c` through `OutPtr`.

#[cfg(target_arch = "x86_64")]
mod amx;
pub mod backend;
mod complex;
mod generic;
mod int8;
#[cfg(target_arch = "x86_64")]
mod int8_vnni;
mod isa;
mod kernel;
mod micro;
mod pack;
pub mod ragged;
mod small;
mod widen;
#[cfg(target_arch = "x86_64")]
mod x86;

/// The vector tokens of the run-time dispatch, for the other kernels that use them (the
/// Winograd convolution's point products, the depthwise loop).
pub(crate) use isa::{with_f32_isa, F32Isa, Isa};
/// The x86-64 tokens themselves, for kernels with vector operations of their own (the real
/// FFT's butterflies).
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{Avx2, Avx512};

pub use int8::gemm_s8_s32;
pub use isa::{fma_chains, PEAK_CHAINS};
pub(crate) use kernel::{split_min_flops, PAR_MIN_FLOPS};

use std::fmt;
use std::marker::PhantomData;

use half::{bf16, f16};
use num_complex::Complex;

/// One batched GEMM: `C[b] (m x n) = A[b] (m x k) * B[b] (k x n)` (`+ C[b]` if `accumulate`).
///
/// Element `(b, i, j)` of an operand `X` is `x[b * x_batch_stride + i * x_row_stride +
/// j * x_col_stride]`; any stride may be negative or zero (zero only for inputs, or outputs of
/// extent 1), as long as every element addressed lies inside the slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmDesc {
    /// Number of independent products.
    pub batch: usize,
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B (the contracted extent).
    pub k: usize,
    /// Element offset between consecutive batch items of A (0 broadcasts one A).
    pub a_batch_stride: isize,
    /// Element offset between rows of A: `A[b, i, p]` is at `b*bs + i*rs + p*cs`.
    pub a_row_stride: isize,
    /// Element offset between columns of A.
    pub a_col_stride: isize,
    /// Element offset between consecutive batch items of B (0 broadcasts one B).
    pub b_batch_stride: isize,
    /// Element offset between rows of B.
    pub b_row_stride: isize,
    /// Element offset between columns of B.
    pub b_col_stride: isize,
    /// Element offset between consecutive batch items of C.
    pub c_batch_stride: isize,
    /// Element offset between rows of C.
    pub c_row_stride: isize,
    /// Element offset between columns of C.
    pub c_col_stride: isize,
    /// `C += A * B` instead of `C = A * B` (then `c` is not read).
    pub accumulate: bool,
}

impl GemmDesc {
    /// Contiguous row-major operands: `A` is `batch x m x k`, `B` `batch x k x n`, `C`
    /// `batch x m x n`, each dense.
    pub fn row_major(batch: usize, m: usize, n: usize, k: usize) -> Self {
        let (m_, n_, k_) = (m as isize, n as isize, k as isize);
        GemmDesc {
            batch,
            m,
            n,
            k,
            a_batch_stride: m_ * k_,
            a_row_stride: k_,
            a_col_stride: 1,
            b_batch_stride: k_ * n_,
            b_row_stride: n_,
            b_col_stride: 1,
            c_batch_stride: m_ * n_,
            c_row_stride: n_,
            c_col_stride: 1,
            accumulate: false,
        }
    }

    /// Operands by strides `[batch, row, col]` (element `(b, i, j)` of A at
    /// `b * a[0] + i * a[1] + j * a[2]`, and so on), overwriting C. This is how a `DotGeneral`
    /// with batch and contracting dimensions anywhere maps onto a GEMM without a copy.
    pub fn from_strides(
        batch: usize,
        m: usize,
        n: usize,
        k: usize,
        a: [isize; 3],
        b: [isize; 3],
        c: [isize; 3],
    ) -> Self {
        GemmDesc {
            batch,
            m,
            n,
            k,
            a_batch_stride: a[0],
            a_row_stride: a[1],
            a_col_stride: a[2],
            b_batch_stride: b[0],
            b_row_stride: b[1],
            b_col_stride: b[2],
            c_batch_stride: c[0],
            c_row_stride: c[1],
            c_col_stride: c[2],
            accumulate: false,
        }
    }

    /// The same product transposed: `C^T (n x m) = B^T (n x k) * A^T (k x m)`. Every output
    /// element sums the same products in the same order.
    pub(crate) fn transposed(&self) -> Self {
        GemmDesc {
            batch: self.batch,
            m: self.n,
            n: self.m,
            k: self.k,
            a_batch_stride: self.b_batch_stride,
            a_row_stride: self.b_col_stride,
            a_col_stride: self.b_row_stride,
            b_batch_stride: self.a_batch_stride,
            b_row_stride: self.a_col_stride,
            b_col_stride: self.a_row_stride,
            c_batch_stride: self.c_batch_stride,
            c_row_stride: self.c_col_stride,
            c_col_stride: self.c_row_stride,
            accumulate: self.accumulate,
        }
    }

    /// `2 * batch * m * n * k`, saturating.
    pub fn flops(&self) -> u128 {
        2 * self.batch as u128 * self.m as u128 * self.n as u128 * self.k as u128
    }
}

/// Why a GEMM was refused (nothing is written then).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GemmError {
    /// The strides and extents of `operand` ('A', 'B' or 'C') address offsets
    /// `min_offset..=max_offset`, outside `0..len`.
    OutOfBounds {
        /// 'A', 'B' or 'C'.
        operand: char,
        /// The lowest offset the strides reach.
        min_offset: i128,
        /// The highest offset the strides reach.
        max_offset: i128,
        /// The slice's length.
        len: usize,
    },
    /// Two elements of C would share a location (so threads could race and the result would
    /// depend on write order).
    OverlappingOutput {
        /// C's extents: batch, m, n.
        extents: [usize; 3],
        /// C's strides for the same three dims.
        strides: [isize; 3],
    },
}

impl fmt::Display for GemmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GemmError::OutOfBounds { operand, min_offset, max_offset, len } => write!(
                f,
                "gemm: operand {operand} addresses offsets {min_offset}..={max_offset} but its slice has {len} elements"
            ),
            GemmError::OverlappingOutput { extents, strides } => write!(
                f,
                "gemm: output C with extents {extents:?} and strides {strides:?} maps two elements to one location"
            ),
        }
    }
}

impl std::error::Error for GemmError {}

/// Packing buffers, reused across calls: [`GemmScratch::new`] allocates nothing; each buffer
/// grows to the largest size needed and stays.
#[derive(Default)]
pub struct GemmScratch {
    f32: kernel::Buffers<f32>,
    f64: kernel::Buffers<f64>,
    /// f16/bf16 operands widened to dense f32 (A, B, C).
    widened: widen::Widened,
    /// c64 / c128: expanded B, dense A, dense C (see `complex`).
    c64: complex::ComplexBuffers<f32>,
    c128: complex::ComplexBuffers<f64>,
    /// s8 x s8 -> s32: packed i16 pairs (see `int8`).
    s8: int8::Buffers,
    /// bf16 on AMX tiles (see `amx`).
    #[cfg(target_arch = "x86_64")]
    bf16_amx: amx::Buffers<bf16>,
}

impl GemmScratch {
    /// Empty scratch (no allocation).
    pub fn new() -> Self {
        Self::default()
    }
}

impl fmt::Debug for GemmScratch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GemmScratch").finish_non_exhaustive()
    }
}

/// Element types [`gemm`] accepts: the 15 native types of XLA (`dot` is defined on all).
pub trait GemmElem: Copy + Send + Sync + 'static {
    /// Runs a validated GEMM.
    #[doc(hidden)]
    fn gemm_validated(d: &GemmDesc, a: &[Self], b: &[Self], c: &mut [Self], s: &mut GemmScratch);
}

impl GemmElem for f32 {
    fn gemm_validated(d: &GemmDesc, a: &[f32], b: &[f32], c: &mut [f32], s: &mut GemmScratch) {
        kernel::gemm_real(d, a, b, c, &mut s.f32)
    }
}

impl GemmElem for f64 {
    fn gemm_validated(d: &GemmDesc, a: &[f64], b: &[f64], c: &mut [f64], s: &mut GemmScratch) {
        kernel::gemm_real(d, a, b, c, &mut s.f64)
    }
}

macro_rules! generic_elem {
    ($($t:ty),*) => {$(
        impl GemmElem for $t {
            fn gemm_validated(d: &GemmDesc, a: &[$t], b: &[$t], c: &mut [$t], _s: &mut GemmScratch) {
                generic::gemm_generic(d, a, b, c)
            }
        }
    )*};
}

generic_elem!(bool, i8, i16, i32, i64, u8, u16, u32, u64);

impl GemmElem for Complex<f32> {
    fn gemm_validated(d: &GemmDesc, a: &[Self], b: &[Self], c: &mut [Self], s: &mut GemmScratch) {
        complex::gemm_complex::<crate::simd::F32V>(d, a, b, c, &mut s.f32, &mut s.c64)
    }
}

impl GemmElem for Complex<f64> {
    fn gemm_validated(d: &GemmDesc, a: &[Self], b: &[Self], c: &mut [Self], s: &mut GemmScratch) {
        complex::gemm_complex::<crate::simd::F64V>(d, a, b, c, &mut s.f64, &mut s.c128)
    }
}

impl GemmElem for f16 {
    fn gemm_validated(d: &GemmDesc, a: &[f16], b: &[f16], c: &mut [f16], s: &mut GemmScratch) {
        widen::gemm_narrow(d, a, b, c, &mut s.f32, &mut s.widened)
    }
}

impl GemmElem for bf16 {
    fn gemm_validated(d: &GemmDesc, a: &[bf16], b: &[bf16], c: &mut [bf16], s: &mut GemmScratch) {
        #[cfg(target_arch = "x86_64")]
        if amx::available() {
            return amx::gemm_in_pool(d, a, b, &OutPtr::new(c), &mut s.bf16_amx);
        }
        widen::gemm_narrow(d, a, b, c, &mut s.f32, &mut s.widened)
    }
}

/// `C[b] = A[b] * B[b]` (`+ C[b]` if `desc.accumulate`) for every `b < desc.batch`.
///
/// `c_ij = sum_p a_ip b_pj`, summed over `p` in an order fixed by the sizes (identical bits for
/// any number of rayon threads). Returns `Err` (and writes nothing) if an operand's strides
/// reach outside its slice or C's strides overlap.
pub fn gemm<T: GemmElem>(
    desc: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
    scratch: &mut GemmScratch,
) -> Result<(), GemmError> {
    validate(desc, a.len(), b.len(), c.len())?;
    if desc.batch == 0 || desc.m == 0 || desc.n == 0 {
        return Ok(());
    }
    T::gemm_validated(desc, a, b, c, scratch);
    Ok(())
}

thread_local! {
    /// Packing buffers reused by [`gemm_auto`] on this thread.
    static THREAD_SCRATCH: std::cell::RefCell<GemmScratch> = std::cell::RefCell::new(GemmScratch::new());
}

/// [`gemm`] with this thread's cached [`GemmScratch`] (no allocation once warm); if that
/// scratch is already in use (a GEMM started from inside another one's rayon task on the same
/// thread), a fresh one.
pub fn gemm_auto<T: GemmElem>(
    desc: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
) -> Result<(), GemmError> {
    THREAD_SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => gemm(desc, a, b, c, &mut s),
        Err(_) => gemm(desc, a, b, c, &mut GemmScratch::new()),
    })
}

/// Offsets `min..=max` addressed by extents/strides, or `None` if an extent is 0.
fn span(extents: [usize; 3], strides: [isize; 3]) -> Option<(i128, i128)> {
    if extents.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&e, &s) in extents.iter().zip(&strides) {
        let reach = (e as i128 - 1) * s as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    Some((lo, hi))
}

fn check_operand(
    operand: char,
    extents: [usize; 3],
    strides: [isize; 3],
    len: usize,
) -> Result<(), GemmError> {
    match span(extents, strides) {
        Some((lo, hi)) if lo < 0 || hi >= len as i128 => Err(GemmError::OutOfBounds {
            operand,
            min_offset: lo,
            max_offset: hi,
            len,
        }),
        _ => Ok(()),
    }
}

/// Checks every offset each operand can address, and that C's elements are distinct locations
/// (sorted by |stride|, each stride must step past everything the smaller ones reach).
fn validate(d: &GemmDesc, a_len: usize, b_len: usize, c_len: usize) -> Result<(), GemmError> {
    let c_ext = [d.batch, d.m, d.n];
    let c_str = [d.c_batch_stride, d.c_row_stride, d.c_col_stride];
    check_operand('C', c_ext, c_str, c_len)?;
    if d.k > 0 {
        check_operand(
            'A',
            [d.batch, d.m, d.k],
            [d.a_batch_stride, d.a_row_stride, d.a_col_stride],
            a_len,
        )?;
        check_operand(
            'B',
            [d.batch, d.k, d.n],
            [d.b_batch_stride, d.b_row_stride, d.b_col_stride],
            b_len,
        )?;
    }
    if c_ext.contains(&0) {
        return Ok(());
    }
    // A fixed array, sorted in place: validation runs on every call and must not allocate.
    let mut dims = [(0u128, 0u128); 3];
    for (slot, (&e, &s)) in dims.iter_mut().zip(c_ext.iter().zip(&c_str)) {
        *slot = (s.unsigned_abs() as u128, e as u128);
    }
    dims.sort_unstable();
    let mut reach = 0u128;
    for (s, e) in dims.into_iter().filter(|&(_, e)| e > 1) {
        if s <= reach {
            return Err(GemmError::OverlappingOutput {
                extents: c_ext,
                strides: c_str,
            });
        }
        reach += (e - 1) * s;
    }
    Ok(())
}

/// Offset of element `(b, i, j)` for validated strides (the value is in `0..len`).
#[inline(always)]
fn offset(b: usize, i: usize, j: usize, strides: [isize; 3]) -> usize {
    (b as isize * strides[0] + i as isize * strides[1] + j as isize * strides[2]) as usize
}

/// Distinct batch items of an operand: 1 when it is broadcast (batch stride 0).
fn items(batch: usize, batch_stride: isize) -> usize {
    if batch_stride == 0 {
        1
    } else {
        batch
    }
}

/// Shared write access to `c` for the threads of one GEMM, each owning a disjoint set of
/// output elements (C's strides were checked injective by [`validate`]).
pub(crate) struct OutPtr<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: `OutPtr` is only a `&mut [T]` shared between the tasks of one GEMM; every access is
// bounds-checked, and tasks touch disjoint elements (see the `unsafe fn`s' contracts).
unsafe impl<T: Send> Send for OutPtr<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for OutPtr<'_, T> {}

impl<'a, T: Copy> OutPtr<'a, T> {
    fn new(c: &'a mut [T]) -> Self {
        OutPtr {
            ptr: c.as_mut_ptr(),
            len: c.len(),
            _borrow: PhantomData,
        }
    }

    /// Reads element `off` (panics if out of bounds).
    ///
    /// # Safety
    /// No other thread may write element `off` during the call.
    #[inline(always)]
    unsafe fn get(&self, off: usize) -> T {
        assert!(
            off < self.len,
            "gemm output offset {off} out of {}",
            self.len
        );
        // SAFETY: in bounds (asserted); no concurrent writer (caller's contract).
        unsafe { *self.ptr.add(off) }
    }

    /// Writes element `off` (panics if out of bounds).
    ///
    /// # Safety
    /// No other thread may access element `off` during the call.
    #[inline(always)]
    unsafe fn set(&self, off: usize, v: T) {
        assert!(
            off < self.len,
            "gemm output offset {off} out of {}",
            self.len
        );
        // SAFETY: in bounds (asserted); exclusive (caller's contract).
        unsafe { *self.ptr.add(off) = v }
    }

    /// Hints the cache to load element `off` (no effect on any value; ignored when `off` is out
    /// of bounds or the target has no prefetch instruction).
    #[inline(always)]
    fn prefetch(&self, off: usize) {
        #[cfg(target_arch = "x86_64")]
        if off < self.len {
            // SAFETY: `off` is inside `c` (checked above), so the pointer is in bounds of one
            // allocation; a prefetch reads nothing into the program and cannot fault.
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                    self.ptr.add(off).cast::<i8>(),
                )
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = off;
    }

    /// Elements `off..off + n` as a slice (panics if out of bounds).
    ///
    /// # Safety
    /// No other thread may access these elements while the slice lives.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice(&self, off: usize, n: usize) -> &mut [T] {
        assert!(
            off <= self.len && n <= self.len - off,
            "gemm output range {off}+{n} out of {}",
            self.len
        );
        // SAFETY: in bounds (asserted); exclusive for the slice's life (caller's contract).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(off), n) }
    }
}

#[cfg(test)]
mod eval_tests;
#[cfg(test)]
mod level_tests;
#[cfg(test)]
mod tests;
