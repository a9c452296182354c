//! The swappable f32/f64 GEMM interface: [`GemmBackend`], implemented by [`Native`] (our packed
//! kernel) and, behind the optional `gemm-crates` cargo feature, by the `gemm`, `faer` and
//! `matrixmultiply` crates, so that a faster implementation can replace ours by measurement.
//!
//! Measured (`CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" cargo run
//! --release -p xla-kernels --features gemm-crates --example gemm_crates`; 2 threads, AVX2+FMA
//! EPYC shared with other builds, load average 6-7; best of 9 rounds, the four backends
//! alternating within each round; GFLOP/s; session 3, after GEMM-A's tuning landed):
//!
//! | shape | native | gemm 0.19 | faer 0.24 | matrixmultiply 0.3 | native / best |
//! |---|---|---|---|---|---|
//! | f32 1024^3 | 81.1 | 81.5 | 90.9 | 87.7 | 0.89 |
//! | f32 256^3 | 72.9 | 116.5 | 107.2 | 104.7 | 0.63 |
//! | f32 64^3 | 69.9 | 81.3 | 22.5 | 65.3 | 0.86 |
//! | f32 1x784 * 784x128 | 17.4 | 23.7 | 8.3 | 2.6 | 0.73 |
//! | f32 8x784 * 784x128 | 45.0 | 56.9 | 31.9 | 19.4 | 0.79 |
//! | f64 1024^3 | 38.5 | 36.9 | 36.2 | 30.1 | 1.04 |
//!
//! Three earlier runs the same afternoon gave native / best 0.96-1.06 at 1024^3, 0.52-0.75 at
//! 256^3, 0.84-0.91 at 64^3: on this loaded machine the large square product is a tie, and
//! the `gemm` crate is ahead on the small and medium shapes. Heap allocations per warm call
//! (same example, counting allocator), for the five f32 shapes above: native 0 0 0 0 0, `gemm`
//! 3 2 1 0 1, `faer` 12 9 9 2 12, `matrixmultiply` 1 1 1 1 1. All four agree within
//! `2 k eps sum_p |a_ip b_pj|` and gave the same bits on 1 and 2 threads for 200x3000x300.
//!
//! Why [`Native`] stays the implementation behind [`gemm`]: it allocates nothing
//! once its [`GemmScratch`] is warm (the generated code's no-allocation guarantee rests on it);
//! bit-identical results for any thread count are a property of its design (fixed k blocks,
//! one thread per output element) rather than an observation on one shape; and the same
//! kernel serves the strided batched layouts, c64/c128 (as real products) and f16/bf16
//! (widened) without another dependency tree (`faer` alone brings ~60 crates). What it costs:
//! 0.6-0.9x of the `gemm` crate on 256^3 and the small shapes in this measurement, the gap
//! the kernel's tuning has to close; if it does not, `GemmCrate` (feature `gemm-crates`) is the
//! swap to measure in
//! the generated code (accepting its per-call allocations).

use super::{gemm, GemmDesc, GemmError, GemmScratch};

/// An f32/f64 GEMM implementation over [`GemmDesc`]: `C[b] = A[b] B[b]` (`+ C[b]` when
/// accumulating), `c_ij = sum_p a_ip b_pj`; every implementation validates the strides first
/// and returns `Err` (writing nothing) where [`gemm`] would.
pub trait GemmBackend: Sync {
    /// Short name for tables (`"native"`, `"gemm"`, ...).
    fn name(&self) -> &'static str;
    /// f32 product; `scratch` may be unused by a backend with its own buffers.
    fn gemm_f32(
        &self,
        desc: &GemmDesc,
        a: &[f32],
        b: &[f32],
        c: &mut [f32],
        scratch: &mut GemmScratch,
    ) -> Result<(), GemmError>;
    /// f64 product; `scratch` may be unused by a backend with its own buffers.
    fn gemm_f64(
        &self,
        desc: &GemmDesc,
        a: &[f64],
        b: &[f64],
        c: &mut [f64],
        scratch: &mut GemmScratch,
    ) -> Result<(), GemmError>;
}

/// Our own kernel ([`gemm`]): deterministic bits for any thread count, rayon threads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Native;

impl GemmBackend for Native {
    fn name(&self) -> &'static str {
        "native"
    }
    fn gemm_f32(
        &self,
        desc: &GemmDesc,
        a: &[f32],
        b: &[f32],
        c: &mut [f32],
        scratch: &mut GemmScratch,
    ) -> Result<(), GemmError> {
        gemm(desc, a, b, c, scratch)
    }
    fn gemm_f64(
        &self,
        desc: &GemmDesc,
        a: &[f64],
        b: &[f64],
        c: &mut [f64],
        scratch: &mut GemmScratch,
    ) -> Result<(), GemmError> {
        gemm(desc, a, b, c, scratch)
    }
}

/// Runs `item(a_off, b_off, c_off)` for every batch item, with the offsets of element
/// `(bi, 0, 0)` of each operand, after the checks [`gemm`] makes; empty and `k == 0` products
/// go to [`gemm`] itself (nothing to multiply).
#[cfg(feature = "gemm-crates")]
fn per_item<T: super::GemmElem>(
    d: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
    scratch: &mut GemmScratch,
    mut item: impl FnMut(usize, usize, usize, &mut [T]),
) -> Result<(), GemmError> {
    super::validate(d, a.len(), b.len(), c.len())?;
    if d.batch == 0 || d.m == 0 || d.n == 0 || d.k == 0 {
        return gemm(d, a, b, c, scratch);
    }
    for bi in 0..d.batch {
        item(
            super::offset(bi, 0, 0, [d.a_batch_stride, d.a_row_stride, d.a_col_stride]),
            super::offset(bi, 0, 0, [d.b_batch_stride, d.b_row_stride, d.b_col_stride]),
            super::offset(bi, 0, 0, [d.c_batch_stride, d.c_row_stride, d.c_col_stride]),
            c,
        );
    }
    Ok(())
}

/// The `gemm` crate (0.19, sarah-ek), on rayon's threads; AVX2/FMA chosen at run time (its
/// AVX-512 path, feature `x86-v4`, is off: this machine has none).
#[cfg(feature = "gemm-crates")]
#[derive(Clone, Copy, Debug, Default)]
pub struct GemmCrate;

/// `faer` 0.24's `matmul`, on rayon's threads.
#[cfg(feature = "gemm-crates")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Faer;

/// `matrixmultiply` 0.3 (`sgemm` / `dgemm`) with its `threading` feature (its own thread pool,
/// sized by `MATMUL_NUM_THREADS`, else the physical core count).
#[cfg(feature = "gemm-crates")]
#[derive(Clone, Copy, Debug, Default)]
pub struct MatrixMultiply;

/// One backend's f32 and f64 methods from a body generic over [`CrateElem`].
#[cfg(feature = "gemm-crates")]
macro_rules! backend_impl {
    ($ty:ty, $name:literal, $body:ident $(,)?) => {
        impl GemmBackend for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn gemm_f32(
                &self,
                d: &GemmDesc,
                a: &[f32],
                b: &[f32],
                c: &mut [f32],
                s: &mut GemmScratch,
            ) -> Result<(), GemmError> {
                $body(d, a, b, c, s)
            }
            fn gemm_f64(
                &self,
                d: &GemmDesc,
                a: &[f64],
                b: &[f64],
                c: &mut [f64],
                s: &mut GemmScratch,
            ) -> Result<(), GemmError> {
                $body(d, a, b, c, s)
            }
        }
    };
}

/// `matrixmultiply::{sgemm, dgemm}`'s signature.
#[cfg(feature = "gemm-crates")]
type MmFn<T> = unsafe fn(
    usize,
    usize,
    usize,
    T,
    *const T,
    isize,
    isize,
    *const T,
    isize,
    isize,
    T,
    *mut T,
    isize,
    isize,
);

/// f32 and f64 as every compared crate takes them.
#[cfg(feature = "gemm-crates")]
trait CrateElem:
    super::GemmElem + faer::traits::ComplexField + num_traits::One + num_traits::Zero
{
    /// `matrixmultiply`'s routine for the type.
    const MM: MmFn<Self>;
}

#[cfg(feature = "gemm-crates")]
impl CrateElem for f32 {
    const MM: MmFn<f32> = matrixmultiply::sgemm;
}

#[cfg(feature = "gemm-crates")]
impl CrateElem for f64 {
    const MM: MmFn<f64> = matrixmultiply::dgemm;
}

#[cfg(feature = "gemm-crates")]
fn via_gemm_crate<T: CrateElem>(
    d: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
    s: &mut GemmScratch,
) -> Result<(), GemmError> {
    per_item(d, a, b, c, s, |ao, bo, co, c| {
        // SAFETY: `validate` checked that every element addressed by the extents and strides
        // of A, B and C lies inside its slice, so from the offsets of (bi, 0, 0) the crate
        // reads and writes only in bounds; C's elements are distinct (checked injective) and
        // C is an exclusive borrow, so no write aliases A, B or another C element.
        unsafe {
            gemm_crate::gemm(
                d.m,
                d.n,
                d.k,
                c.as_mut_ptr().add(co),
                d.c_col_stride,
                d.c_row_stride,
                d.accumulate,
                a.as_ptr().add(ao),
                d.a_col_stride,
                d.a_row_stride,
                b.as_ptr().add(bo),
                d.b_col_stride,
                d.b_row_stride,
                T::one(),
                T::one(),
                false,
                false,
                false,
                gemm_crate::Parallelism::Rayon(0),
            )
        }
    })
}

#[cfg(feature = "gemm-crates")]
fn via_faer<T: CrateElem>(
    d: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
    s: &mut GemmScratch,
) -> Result<(), GemmError> {
    per_item(d, a, b, c, s, |ao, bo, co, c| {
        // SAFETY: as in `via_gemm_crate`: the views cover exactly the validated elements of
        // batch item bi, the output view is the only access to C during the call.
        let (dst, lhs, rhs) = unsafe {
            (
                faer::MatMut::from_raw_parts_mut(
                    c.as_mut_ptr().add(co),
                    d.m,
                    d.n,
                    d.c_row_stride,
                    d.c_col_stride,
                ),
                faer::MatRef::from_raw_parts(
                    a.as_ptr().add(ao),
                    d.m,
                    d.k,
                    d.a_row_stride,
                    d.a_col_stride,
                ),
                faer::MatRef::from_raw_parts(
                    b.as_ptr().add(bo),
                    d.k,
                    d.n,
                    d.b_row_stride,
                    d.b_col_stride,
                ),
            )
        };
        let accum = if d.accumulate {
            faer::Accum::Add
        } else {
            faer::Accum::Replace
        };
        faer::linalg::matmul::matmul(dst, accum, lhs, rhs, T::one(), faer::Par::rayon(0));
    })
}

#[cfg(feature = "gemm-crates")]
fn via_matrixmultiply<T: CrateElem>(
    d: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
    s: &mut GemmScratch,
) -> Result<(), GemmError> {
    let beta = if d.accumulate { T::one() } else { T::zero() };
    per_item(d, a, b, c, s, |ao, bo, co, c| {
        // SAFETY: as in `via_gemm_crate`; with beta = 0 matrixmultiply does not read C.
        unsafe {
            (T::MM)(
                d.m,
                d.k,
                d.n,
                T::one(),
                a.as_ptr().add(ao),
                d.a_row_stride,
                d.a_col_stride,
                b.as_ptr().add(bo),
                d.b_row_stride,
                d.b_col_stride,
                beta,
                c.as_mut_ptr().add(co),
                d.c_row_stride,
                d.c_col_stride,
            )
        }
    })
}

#[cfg(feature = "gemm-crates")]
backend_impl!(GemmCrate, "gemm", via_gemm_crate,);
#[cfg(feature = "gemm-crates")]
backend_impl!(Faer, "faer", via_faer,);
#[cfg(feature = "gemm-crates")]
backend_impl!(MatrixMultiply, "matrixmultiply", via_matrixmultiply,);
