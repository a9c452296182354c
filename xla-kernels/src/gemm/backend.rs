//! The swappable f32/f64 GEMM interface: [`GemmBackend`], implemented by [`Native`] (our packed
//! kernel) and, behind the optional `gemm-crates` cargo feature, by the `gemm`, `faer` and
//! `matrixmultiply` crates, so that a faster implementation can replace ours by measurement.
//!
//! TABLE_PLACEHOLDER

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
