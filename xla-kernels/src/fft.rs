//! XLA's `Fft`: complex (FFT, IFFT), real-to-complex (RFFT) and complex-to-real (IRFFT)
//! transforms over the 1 to 3 innermost axes of a row-major array, batched over the leading
//! axes.
//!
//! Along one axis of length `n`: `y[k] = s * sum_j x[j] e^(-+2 pi i j k / n)`, `-` and `s = 1`
//! forward, `+` and `s = 1/n` inverse (XLA scales IFFT and IRFFT by `1/N`). Several axes are a
//! cascade of one-axis passes: RFFT's real-to-complex pass on the innermost axis first, IRFFT's
//! complex-to-real pass last, every other pass complex.
//!
//! The one-axis transforms are `rustfft` plans (mixed radix with AVX butterflies, Rader
//! and Bluestein for large primes: `O(n log n)` for every length); real data pairs the bins of
//! a half-length complex transform (`real`, vectorized at the CPU's level). Chosen by
//! measurement against XLA:CPU (DUCC's FFT) in the same run (`bash scripts/bench.sh kernels
//! fft`, 2-thread AMD EPYC, AVX-512): c64[1M] 5.0 ms vs XLA 14.0 ms, 2-D c64[1024,1024] 3.3 ms
//! vs 4.8 ms, RFFT f32[64,4096] 156 us vs 242 us (with realfft then; see `real` for now). Our own
//! mixed-radix SIMD FFT would have to beat rustfft's hand-written AVX butterflies just to tie;
//! the work here is around it: plans once, passes over outer axes, threads. The
//! complex-to-real transform drops the imaginary parts of bins 0 and `n/2`, which is what XLA
//! does.
//!
//! A [`FftPlan`] is built once (the generated fn keeps it in its `Scratch`): the planner's
//! work, the scratch of every task and the transposition buffer are allocated there, so a
//! transform allocates nothing. A pass over an axis that is not the innermost copies groups of
//! 32 columns into a tile (one padded row per column), transforms those rows, and copies them
//! back while the tile is still in cache (one read and one write of the array; a transposed
//! copy of the whole array and back took 63% of a 1024 x 1024 transform on one thread). Work
//! splits over rayon in a number of tasks fixed by the sizes (never by
//! the thread count), and every row's transform is the same code whatever task runs it, so
//! the results are bit-identical for any number of threads.

use std::sync::Arc;

use num_complex::Complex;
use rayon::prelude::*;
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};
use xla_core::FftType;

use crate::cpu::IsaLevel;
use crate::par::PAR_MIN_ELEMENTS;
use real::RealFft;

mod real;
#[cfg(target_arch = "x86_64")]
mod x86;

/// The most tasks one pass splits into (each owns a scratch slot): enough to balance the
/// cores of a workstation, few enough that the slots stay small.
const MAX_TASKS: usize = 64;

/// Columns copied together for a pass over an outer axis: 32 c64 are 4 cache lines per row
/// read (16, 32 and 64 measured within noise of each other on the Xeon, 2 threads).
const TILE: usize = 32;

/// A plan the caller's shapes cannot have (the macro checks them at compile time).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FftError(pub String);

impl std::fmt::Display for FftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fft: {}", self.0)
    }
}

impl std::error::Error for FftError {}

/// f32 or f64. Each plan operation goes through this trait's methods, implemented for the two
/// types here: the planning and transforms (and all of rustfft's generic butterflies under
/// them) are then compiled once in this crate, optimised, instead of in every crate whose
/// generated code makes a plan (that was 85% of such a crate's machine code).
pub trait FftFloat: FftNum + num_traits::Float {
    #[doc(hidden)]
    fn plan(kind: FftType, dims: &[usize], fft_length: &[usize])
        -> Result<FftPlan<Self>, FftError>;
    #[doc(hidden)]
    fn c2c(
        p: &mut FftPlan<Self>,
        x: &[Complex<Self>],
        y: &mut [Complex<Self>],
    ) -> Result<(), FftError>;
    #[doc(hidden)]
    fn r2c(p: &mut FftPlan<Self>, x: &[Self], y: &mut [Complex<Self>]) -> Result<(), FftError>;
    #[doc(hidden)]
    fn c2r(p: &mut FftPlan<Self>, x: &[Complex<Self>], y: &mut [Self]) -> Result<(), FftError>;
    /// The real transforms' butterflies (see `real`) with the vectors of `level` (capped by
    /// what the CPU runs).
    #[doc(hidden)]
    fn pairs(level: IsaLevel, io: &mut [Complex<Self>], tw_re: &[Self], tw_im: &[Self], half: Self);
}

macro_rules! fft_float {
    ($($t:ty),*) => {$(
        impl FftFloat for $t {
            fn plan(kind: FftType, dims: &[usize], fft_length: &[usize]) -> Result<FftPlan<Self>, FftError> {
                FftPlan::build(kind, dims, fft_length)
            }
            fn c2c(p: &mut FftPlan<Self>, x: &[Complex<Self>], y: &mut [Complex<Self>]) -> Result<(), FftError> {
                p.c2c_here(x, y)
            }
            fn r2c(p: &mut FftPlan<Self>, x: &[Self], y: &mut [Complex<Self>]) -> Result<(), FftError> {
                p.r2c_here(x, y)
            }
            fn c2r(p: &mut FftPlan<Self>, x: &[Complex<Self>], y: &mut [Self]) -> Result<(), FftError> {
                p.c2r_here(x, y)
            }
            fn pairs(level: IsaLevel, io: &mut [Complex<Self>], tw_re: &[Self], tw_im: &[Self], half: Self) {
                #[cfg(target_arch = "x86_64")]
                {
                    use crate::gemm::{Avx2, Avx512};
                    if let Some(t) = Avx512::<$t>::new().filter(|_| level >= IsaLevel::Avx512) {
                        return real::pairs_on(t, io, tw_re, tw_im, half);
                    }
                    if let Some(t) = Avx2::<$t>::new().filter(|_| level >= IsaLevel::Avx2) {
                        return real::pairs_on(t, io, tw_re, tw_im, half);
                    }
                }
                let _ = level;
                real::pairs_scalar(io, tw_re, tw_im, half)
            }
        }
    )*};
}
fft_float!(f32, f64);

/// One complex pass: the axis's transform and its length.
struct Pass<T: FftFloat> {
    fft: Arc<dyn Fft<T>>,
    n: usize,
}

/// A transform of fixed type and shapes, with everything it needs preallocated.
pub struct FftPlan<T: FftFloat> {
    kind: FftType,
    /// Time-domain lengths of the transformed axes, outermost first.
    lens: Vec<usize>,
    /// Rows of the innermost axis (elements of the operand over its innermost dim).
    batch_rows: usize,
    /// Dims of the complex array the complex passes run on (leading axes collapsed):
    /// `[outer, lens...]` with RFFT/IRFFT's innermost as `n/2 + 1`.
    cdims: Vec<usize>,
    /// Complex passes per transformed axis, outermost first (`None` for RFFT/IRFFT's
    /// innermost, which `r2c`/`c2r` transform).
    passes: Vec<Option<Pass<T>>>,
    /// RFFT's or IRFFT's transform of the innermost axis.
    real: Option<RealFft<T>>,
    /// Slots of complex scratch (one per task of the widest split, at most `MAX_TASKS`),
    /// `slot` elements each (at least 1).
    scratch: Vec<Complex<T>>,
    slot: usize,
    /// The column tiles of outer-axis passes (one per task, see [`columns`]).
    tmp: Vec<Complex<T>>,
    /// IRFFT's copy of its input (its outer passes run in place on it).
    work: Vec<Complex<T>>,
}

impl<T: FftFloat> FftPlan<T> {
    /// The plan of `kind` over an operand of dims `dims` with time-domain lengths
    /// `fft_length` (1 to 3 innermost axes, as `xla_core::infer::fft` checks them).
    pub fn new(kind: FftType, dims: &[usize], fft_length: &[usize]) -> Result<Self, FftError> {
        T::plan(kind, dims, fft_length)
    }

    /// FFT or IFFT (as planned) of `x` into `y`, both of the operand's shape.
    pub fn c2c(&mut self, x: &[Complex<T>], y: &mut [Complex<T>]) -> Result<(), FftError> {
        T::c2c(self, x, y)
    }

    /// RFFT of the real `x` into `y` (innermost axis `n/2 + 1`).
    pub fn r2c(&mut self, x: &[T], y: &mut [Complex<T>]) -> Result<(), FftError> {
        T::r2c(self, x, y)
    }

    /// IRFFT of `x` (innermost axis `n/2 + 1`) into the real `y` (innermost axis `n`).
    pub fn c2r(&mut self, x: &[Complex<T>], y: &mut [T]) -> Result<(), FftError> {
        T::c2r(self, x, y)
    }

    fn build(kind: FftType, dims: &[usize], fft_length: &[usize]) -> Result<Self, FftError> {
        let l = fft_length.len();
        if !(1..=3).contains(&l) || dims.len() < l {
            return Err(FftError(format!(
                "{} over {fft_length:?} of an operand {dims:?}",
                kind.name()
            )));
        }
        let n = fft_length[l - 1];
        let half = if n == 0 { 0 } else { n / 2 + 1 };
        let mut inner_dims = fft_length.to_vec();
        if kind == FftType::Irfft {
            inner_dims[l - 1] = half;
        }
        if dims[dims.len() - l..] != inner_dims[..] {
            return Err(FftError(format!(
                "{} over {fft_length:?} needs the operand's innermost dims {inner_dims:?}, got \
                 {dims:?}",
                kind.name()
            )));
        }
        let outer: usize = dims[..dims.len() - l].iter().product();
        let mut cdims = vec![outer];
        cdims.extend_from_slice(fft_length);
        if matches!(kind, FftType::Rfft | FftType::Irfft) {
            cdims[l] = half;
        }
        let direction = if kind.is_inverse() {
            FftDirection::Inverse
        } else {
            FftDirection::Forward
        };
        let mut planner = FftPlanner::<T>::new();
        let real = matches!(kind, FftType::Rfft | FftType::Irfft);
        let passes: Vec<Option<Pass<T>>> = (0..l)
            .map(|a| {
                (!(real && a == l - 1)).then(|| Pass {
                    fft: planner.plan_fft(fft_length[a], direction),
                    n: fft_length[a],
                })
            })
            .collect();
        let real = (real && n > 0).then(|| RealFft::new(n, kind == FftType::Irfft, &mut planner));
        let mut slot = passes
            .iter()
            .flatten()
            .map(|p| p.fft.get_inplace_scratch_len())
            .max()
            .unwrap_or(0);
        if let Some(p) = &real {
            slot = slot.max(p.scratch_len());
        }
        // Never empty: `split` cuts slots out of it.
        let slot = slot + 1;
        let total: usize = cdims.iter().product();
        let batch_rows = if n == 0 {
            0
        } else {
            dims.iter().product::<usize>() / dims[dims.len() - 1].max(1)
        };
        // One column tile per task of the widest column pass.
        let tmp_len = (0..l)
            .filter_map(|a| {
                let before: usize = cdims[..a + 1].iter().product();
                let after: usize = cdims[a + 2..].iter().product();
                let groups = before * after.div_ceil(TILE);
                (after > 1).then(|| groups.clamp(1, MAX_TASKS) * tile_len(cdims[a + 1], after))
            })
            .max()
            .unwrap_or(0);
        // As many scratch slots as the widest split takes (never more than MAX_TASKS): one
        // row of 1M points needs one slot of ~1M elements, not MAX_TASKS of them.
        let mut widest = batch_rows;
        for a in 0..l {
            let before: usize = cdims[..a + 1].iter().product();
            let after: usize = cdims[a + 2..].iter().product();
            widest = widest.max(before * after);
            if after > 1 {
                widest = widest.max(before * cdims[a + 1]);
            }
        }
        let slots = widest.clamp(1, MAX_TASKS);
        Ok(FftPlan {
            kind,
            lens: fft_length.to_vec(),
            batch_rows,
            cdims,
            passes,
            real,
            scratch: vec![Complex::new(T::zero(), T::zero()); slots * slot],
            slot,
            tmp: vec![Complex::new(T::zero(), T::zero()); tmp_len],
            work: if kind == FftType::Irfft && l > 1 {
                vec![Complex::new(T::zero(), T::zero()); total]
            } else {
                Vec::new()
            },
        })
    }

    /// The transform's type.
    pub fn kind(&self) -> FftType {
        self.kind
    }

    fn check(&self, want: FftType, x: usize, y: usize) -> Result<(), FftError> {
        let complex: usize = self.cdims.iter().product();
        let real =
            complex / self.cdims[self.cdims.len() - 1].max(1) * self.lens[self.lens.len() - 1];
        let (nx, ny) = match self.kind {
            FftType::Fft | FftType::Ifft => (complex, complex),
            FftType::Rfft => (real, complex),
            FftType::Irfft => (complex, real),
        };
        let same_family = matches!(
            (want, self.kind),
            (FftType::Fft, FftType::Fft | FftType::Ifft)
                | (FftType::Rfft, FftType::Rfft)
                | (FftType::Irfft, FftType::Irfft)
        );
        if !same_family || x != nx || y != ny {
            return Err(FftError(format!(
                "a {} plan of {nx} -> {ny} elements called as {} with {x} -> {y}",
                self.kind.name(),
                want.name()
            )));
        }
        Ok(())
    }

    fn c2c_here(&mut self, x: &[Complex<T>], y: &mut [Complex<T>]) -> Result<(), FftError> {
        self.check(FftType::Fft, x.len(), y.len())?;
        // Outermost axis first, reading `x`; the innermost last, in place on `y` (rows in
        // order, which the prefetchers follow). The passes commute (each is linear along its
        // own axis), so only rounding depends on the order.
        for a in 0..self.lens.len() {
            self.pass(a, (a == 0).then_some(x), y);
        }
        Ok(())
    }

    fn r2c_here(&mut self, x: &[T], y: &mut [Complex<T>]) -> Result<(), FftError> {
        self.check(FftType::Rfft, x.len(), y.len())?;
        let Some(&n) = self.lens.last() else {
            return Err(FftError("an RFFT plan without axes".into()));
        };
        if y.is_empty() || n == 0 {
            return Ok(());
        }
        let Some(plan) = &self.real else {
            return Err(FftError("an RFFT plan without its real transform".into()));
        };
        let (half, slot) = (n / 2 + 1, self.slot);
        split(
            y,
            half,
            self.batch_rows,
            &mut self.scratch,
            slot,
            |first, out, s| {
                for (r, o) in out.chunks_mut(half).enumerate() {
                    let at = (first + r) * n;
                    plan.r2c(&x[at..at + n], o, s);
                }
            },
        );
        for a in (0..self.lens.len() - 1).rev() {
            self.pass(a, None, y);
        }
        Ok(())
    }

    fn c2r_here(&mut self, x: &[Complex<T>], y: &mut [T]) -> Result<(), FftError> {
        self.check(FftType::Irfft, x.len(), y.len())?;
        let l = self.lens.len();
        let n = self.lens[l - 1];
        if y.is_empty() || n == 0 {
            return Ok(());
        }
        // The outer axes first (complex inverses on a copy), the innermost last.
        let mut work = std::mem::take(&mut self.work);
        let src: &[Complex<T>] = if l > 1 {
            for a in (0..l - 1).rev() {
                self.pass(a, (a == l - 2).then_some(x), &mut work);
            }
            &work
        } else {
            x
        };
        let Some(plan) = &self.real else {
            self.work = work;
            return Err(FftError("an IRFFT plan without its real transform".into()));
        };
        let (half, slot) = (n / 2 + 1, self.slot);
        split(
            y,
            n,
            self.batch_rows,
            &mut self.scratch,
            slot,
            |first, out, s| {
                for (r, o) in out.chunks_mut(n).enumerate() {
                    let at = (first + r) * half;
                    plan.c2r(&src[at..at + half], o, s);
                }
            },
        );
        self.work = work;
        Ok(())
    }

    /// The complex pass over transformed axis `a` into `y`, reading its input from `src` (same
    /// shape) or, without one, from `y` itself (in place).
    fn pass(&mut self, a: usize, src: Option<&[Complex<T>]>, y: &mut [Complex<T>]) {
        let pass = self.passes[a].as_ref().filter(|p| p.n > 0 && !y.is_empty());
        let Some(Pass { fft, n }) = pass else {
            if let Some(x) = src {
                y.copy_from_slice(x);
            }
            return;
        };
        let (fft, n) = (Arc::clone(fft), *n);
        let before: usize = self.cdims[..a + 1].iter().product();
        let after: usize = self.cdims[a + 2..].iter().product();
        let inverse = self.kind.is_inverse();
        let scale = T::one() / from_usize::<T>(n);
        let slot = self.slot;
        let transform = |rows: &mut [Complex<T>], s: &mut [Complex<T>]| {
            fft.process_with_scratch(rows, &mut s[..fft.get_inplace_scratch_len()]);
            if inverse {
                for v in rows.iter_mut() {
                    *v = *v * scale;
                }
            }
        };
        if after == 1 {
            split(y, n, before, &mut self.scratch, slot, |first, rows, s| {
                if let Some(x) = src {
                    rows.copy_from_slice(&x[first * n..][..rows.len()]);
                }
                transform(rows, s)
            });
            return;
        }
        columns(
            src,
            y,
            &*fft,
            [before, n, after],
            inverse.then_some(scale),
            &mut self.tmp,
            &mut self.scratch,
            slot,
        );
    }
}

/// Elements of padding after each row of a column tile: a row of `n` c64 with `n` a multiple
/// of 512 would put every row of the tile in one L1 set (the gather writes one element into
/// each row per step).
const PAD: usize = 8;

/// Rows ahead that the column copy asks the cache for: its reads are `after` elements apart,
/// a stride the hardware prefetchers do not follow.
const AHEAD: usize = 8;

/// Elements of one task's column tile for a pass of length `n` over blocks of `after`
/// columns (a group never spans two blocks).
fn tile_len(n: usize, after: usize) -> usize {
    TILE.min(after) * (n + PAD)
}

/// The complex pass over the middle axis of `src` (or of `y` in place; dims
/// `[before, n, after]`, `after > 1`) into `y`: groups of up to [`TILE`] adjacent columns of
/// one block are copied into a tile (one padded row per column), transformed (and scaled by
/// `scale`), and copied back while the tile is in cache. The tasks own disjoint groups of
/// columns, hence disjoint elements of `y`.
#[allow(clippy::too_many_arguments)]
fn columns<T: FftFloat>(
    src: Option<&[Complex<T>]>,
    y: &mut [Complex<T>],
    fft: &dyn Fft<T>,
    [before, n, after]: [usize; 3],
    scale: Option<T>,
    tiles: &mut [Complex<T>],
    scratch: &mut [Complex<T>],
    slot: usize,
) {
    let per_block = after.div_ceil(TILE);
    let groups = before * per_block;
    let tlen = tile_len(n, after);
    let tasks = if y.len() >= PAR_MIN_ELEMENTS {
        groups
            .min(MAX_TASKS)
            .min(tiles.len() / tlen)
            .min(scratch.len() / slot)
            .max(1)
    } else {
        1
    };
    let per_task = groups.div_ceil(tasks);
    let shared = Shared::new(y);
    let run = |t: usize, tile: &mut [Complex<T>], s: &mut [Complex<T>]| {
        for g in t * per_task..((t + 1) * per_task).min(groups) {
            let (b, i0) = (g / per_block, g % per_block * TILE);
            let w = TILE.min(after - i0);
            let base = b * n * after + i0;
            let mut line = [Complex::new(T::zero(), T::zero()); TILE];
            for k in 0..n {
                let at = base + k * after;
                if k + AHEAD < n {
                    match src {
                        Some(x) => prefetch_run(x.as_ptr(), x.len(), at + AHEAD * after, w),
                        None => prefetch_run(shared.ptr, shared.len, at + AHEAD * after, w),
                    }
                }
                match src {
                    Some(x) => line[..w].copy_from_slice(&x[at..at + w]),
                    // SAFETY: as for the write below.
                    None => unsafe { shared.read(at, &mut line[..w]) },
                }
                for (c, &v) in line[..w].iter().enumerate() {
                    tile[c * (n + PAD) + k] = v;
                }
            }
            for row in tile.chunks_exact_mut(n + PAD).take(w) {
                let row = &mut row[..n];
                fft.process_with_scratch(row, &mut s[..fft.get_inplace_scratch_len()]);
                if let Some(scale) = scale {
                    for v in row.iter_mut() {
                        *v = *v * scale;
                    }
                }
            }
            for k in 0..n {
                for (c, v) in line[..w].iter_mut().enumerate() {
                    *v = tile[c * (n + PAD) + k];
                }
                // SAFETY: group `g` (columns i0..i0 + w of block b) belongs to this task
                // alone, and no other reference to `y` is used while the tasks run.
                unsafe { shared.write(base + k * after, &line[..w]) };
            }
        }
    };
    if tasks == 1 {
        return run(0, &mut tiles[..tlen], &mut scratch[..slot]);
    }
    tiles[..tasks * tlen]
        .par_chunks_mut(tlen)
        .zip(scratch.par_chunks_mut(slot))
        .enumerate()
        .for_each(|(t, (tile, s))| run(t, tile, s));
}

/// Asks for the cache lines of elements `at..at + w` of the `len` elements at `base` (no
/// effect on any value; nothing beyond `len`).
#[inline(always)]
fn prefetch_run<T>(base: *const T, len: usize, at: usize, w: usize) {
    #[cfg(target_arch = "x86_64")]
    if at < len && w > 0 {
        let last = (at + w - 1).min(len - 1);
        let step = (64 / core::mem::size_of::<T>().max(1)).max(1);
        for j in (at..=last).step_by(step).chain([last]) {
            // SAFETY: a prefetch reads nothing into the program and cannot fault, whatever
            // the address (`wrapping_add`: no in-bounds requirement on `base` and `len`).
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                    base.wrapping_add(j).cast::<i8>(),
                )
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (base, len, at, w);
}

/// `y` seen by the tasks of [`columns`], each of which reads and writes only the elements of
/// its own columns.
struct Shared<'a, T> {
    ptr: *mut T,
    len: usize,
    _y: core::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: `Shared` hands out no references; its reads and writes of one element are confined
// to the one task that owns the element (see `write`), so sharing it between threads is sound
// for `T: Send`.
unsafe impl<T: Send> Sync for Shared<'_, T> {}

impl<'a, T: Copy> Shared<'a, T> {
    fn new(y: &'a mut [T]) -> Self {
        Shared {
            ptr: y.as_mut_ptr(),
            len: y.len(),
            _y: core::marker::PhantomData,
        }
    }

    /// `out[j] = y[at + j]`; panics if out of bounds.
    ///
    /// # Safety
    /// No other thread may write these elements while the tasks run.
    unsafe fn read(&self, at: usize, out: &mut [T]) {
        assert!(
            at <= self.len && out.len() <= self.len - at,
            "fft column read out of bounds"
        );
        // SAFETY: in bounds (checked above); no concurrent write by the caller's contract.
        unsafe { core::ptr::copy_nonoverlapping(self.ptr.add(at), out.as_mut_ptr(), out.len()) }
    }

    /// `y[at + j] = src[j]`; panics if out of bounds.
    ///
    /// # Safety
    /// No other thread may read or write these elements while the tasks run.
    unsafe fn write(&self, at: usize, src: &[T]) {
        assert!(
            at <= self.len && src.len() <= self.len - at,
            "fft column write out of bounds"
        );
        // SAFETY: in bounds (checked above); exclusive by the caller's contract.
        unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.add(at), src.len()) }
    }
}

fn from_usize<T: FftFloat>(n: usize) -> T {
    T::from_usize(n).unwrap_or_else(T::one)
}

/// Runs `f(first_row, rows, scratch)` over `out` cut into tasks of whole rows of `row_len`
/// (`rows` of them), each task with its own `slot` elements of `scratch`. On rayon when `out`
/// has at least [`PAR_MIN_ELEMENTS`] elements, in at most `MAX_TASKS` tasks (and no more than
/// the slots given) whose bounds depend only on `rows`; else one call on this thread.
fn split<O: Send, S: Send>(
    out: &mut [O],
    row_len: usize,
    rows: usize,
    scratch: &mut [S],
    slot: usize,
    f: impl Fn(usize, &mut [O], &mut [S]) + Sync,
) {
    let tasks = if out.len() >= PAR_MIN_ELEMENTS {
        let slots = scratch.len() / slot.max(1);
        rows.clamp(1, MAX_TASKS.min(slots).max(1))
    } else {
        1
    };
    if tasks == 1 || row_len == 0 {
        f(0, out, &mut scratch[..slot]);
        return;
    }
    let per_task = rows.div_ceil(tasks);
    out.par_chunks_mut(per_task * row_len)
        .zip(scratch.par_chunks_mut(slot))
        .enumerate()
        .for_each(|(t, (o, s))| f(t * per_task, o, s));
}

#[cfg(test)]
mod tests;
