//! Convolution with the semantics of XLA's `ConvGeneralDilated` (StableHLO `convolution`):
//! any dimension numbers, 1-3 spatial dimensions, window strides, explicit low/high padding
//! (negative too), lhs (base) and rhs (window) dilation, window reversal, `feature_group_count`
//! and `batch_group_count`.
//!
//! For output element `(b, o, s)` with `G` groups (`feature_group_count` or
//! `batch_group_count`, at most one above 1) and `g = o / (O / G)`:
//! `out[b, o, s] = sum_{c < Ci, k} in[n(b, g), f(c, g), (s * stride + k' * rhs_dil - pad_lo) /
//! lhs_dil] * ker[o, c, k]`, where `k'` is `k` (or `K - 1 - k` where the window is reversed),
//! terms whose dilated position is a hole or outside the input are zero, `f(c, g) = g * Ci + c`
//! for feature groups (else `c`) and `n(b, g) = g * (N / G) + b` for batch groups (else `b`).
//!
//! Strategies (see [`conv`]), chosen by measurement (`examples/conv_speed.rs` prints each
//! case through the chosen path, the direct kernels and im2col):
//! - 3x3, unit strides and dilations, one group, f32, output `[N, O, H, W]` or `[N, H, W, O]`,
//!   at least 16 input and 8 output features: Winograd F(2x2, 3x3) (`winograd.rs`): 2.25x
//!   fewer multiplies, the rest as 16 small GEMMs per row of tiles; error measured below the
//!   direct sum's (tests); ~1.7x faster than the direct kernels on `[8,64,56,56]`;
//! - depthwise 2-D f32 (`feature_group_count` = input features, output `[N, O, H, W]`): a
//!   direct loop over padded planes (`direct.rs`); ~5x faster than im2col here;
//! - other 2-D f32 with output `[N, O, H, W]`, unit innermost stride, no base dilation: a
//!   direct kernel, 2 output channels x 6 vectors of a row per register tile
//!   (`direct_nchw.rs`); 3x3 `[8,64,56,56]`: ~1.4x faster than im2col + GEMM (1.9x on the
//!   AVX-512 Xeon);
//! - 2-D f32 with output `[N, H, W, O]`, no base dilation: a direct kernel, 6 positions x 2
//!   vectors of output features per register tile (`direct_nhwc.rs`); 3x3: ~2x faster than
//!   im2col;
//! - everything else (1-D / 3-D, base dilation, batch groups, other layouts, every other
//!   element type): im2col into a column buffer plus one [`gemm`](crate::gemm::gemm) per
//!   group and output batch (`im2col.rs`), in column chunks that stay in cache. 1x1
//!   convolutions measured within ~5% through im2col and the direct kernels.
//!
//! All the f32 kernels run on the GEMM's tokens of the run-time level (`gemm::F32Isa`), so a
//! default build runs them as wide as the CPU allows.
//!
//! Measured (2-core AVX2 EPYC shared with other jobs, load average 5-7, so absolute times are
//! ~2-3x the quiet machine's): three alternating rounds of XLA:CPU (jaxlib in
//! `target/oracle-venv`, `jax.jit(lax.conv_general_dilated)`, min of 20 runs after warm-up),
//! the previous commit (direct kernels) and this one (best of 5, `CONV_NO_PEAK=1
//! CONV_ROWS=SAME CONV_HOW=auto` with the build command in `examples/conv_speed.rs`); median
//! of the three rounds:
//!
//! | conv f32, SAME, 3x3 | XLA:CPU | direct (before) | now (Winograd) | XLA / now |
//! |---|---|---|---|---|
//! | NCHW `[8,64,56,56]*[64,64,3,3]` | 59.5 ms | 57.0 ms | 31.9 ms | 1.87x |
//! | NHWC `[8,56,56,64]*[3,3,64,64]` | 47.9 ms | 54.0 ms | 31.1 ms | 1.54x |
//! | depthwise NCHW `[8,64,56,56]*[64,1,3,3]` | 87-111 ms | 3.9-4.9 ms | 2.4-5.1 ms | > 20x |
//!
//! Two later alternating rounds at load 3-5 (same commands; XLA min of 20, ours best of 5):
//! NCHW 10.7 ms vs XLA 27.1 ms (2.5x), NHWC 12.0 vs 23.2 ms (1.9x); then NCHW 24.7 vs 28.2 ms
//! (1.14x), NHWC 19.4 vs 23.2 ms (1.2x): the ratio swings with the load on our two threads,
//! the median over rounds is the figure above. Quiet-machine XLA is ~17.7 ms (the issue).
//!
//! Allocation: every path reuses the buffers of its [`ConvScratch`] (`tests/no_alloc.rs`
//! counts zero allocations on a warm scratch, rayon path included).
//!
//! Determinism: every output element is computed by one task, summing in an order fixed by the
//! descriptor, so results do not depend on the number of threads.

mod direct;
mod direct_nchw;
mod direct_nhwc;
mod im2col;
mod winograd;

#[cfg(test)]
mod tests;

use std::any::Any;
use std::fmt;

use crate::error::element_count;
use crate::gemm::{GemmElem, GemmScratch};
use crate::KernelError;

/// The most spatial dimensions a convolution may have.
pub const MAX_SPATIAL: usize = 3;
/// The most dimensions of any operand (`MAX_SPATIAL + 2`).
pub const MAX_RANK: usize = MAX_SPATIAL + 2;

const OP: &str = "conv";

/// Dimension numbers: which dimension of each operand plays which role (the first
/// `spatial_rank` entries of the spatial arrays are used, in matching order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvDims {
    /// Input dimension indexing the batch (`N`).
    pub input_batch: usize,
    /// Input dimension indexing the feature (channel) (`C`).
    pub input_feature: usize,
    /// Input dimensions the window slides over, in spatial order.
    pub input_spatial: [usize; MAX_SPATIAL],
    /// Kernel dimension indexing the input features it reads (`I`).
    pub kernel_input_feature: usize,
    /// Kernel dimension indexing the output features it produces (`O`).
    pub kernel_output_feature: usize,
    /// Kernel dimensions of the window, in spatial order.
    pub kernel_spatial: [usize; MAX_SPATIAL],
    /// Output dimension indexing the batch.
    pub output_batch: usize,
    /// Output dimension indexing the output feature.
    pub output_feature: usize,
    /// Output dimensions of the window positions, in spatial order.
    pub output_spatial: [usize; MAX_SPATIAL],
}

impl ConvDims {
    /// Input `[N, C, spatial..]`, kernel `[O, I, spatial..]`, output `[N, O, spatial..]`
    /// (XLA's default, "NCHW / OIHW / NCHW").
    pub fn nchw() -> Self {
        ConvDims {
            input_batch: 0,
            input_feature: 1,
            input_spatial: [2, 3, 4],
            kernel_input_feature: 1,
            kernel_output_feature: 0,
            kernel_spatial: [2, 3, 4],
            output_batch: 0,
            output_feature: 1,
            output_spatial: [2, 3, 4],
        }
    }

    /// Input `[N, spatial.., C]`, kernel `[spatial.., I, O]`, output `[N, spatial.., O]`
    /// ("NHWC / HWIO / NHWC") for `spatial_rank` spatial dimensions.
    pub fn nhwc(spatial_rank: usize) -> Self {
        let r = spatial_rank;
        ConvDims {
            input_batch: 0,
            input_feature: r + 1,
            input_spatial: [1, 2, 3],
            kernel_input_feature: r,
            kernel_output_feature: r + 1,
            kernel_spatial: [0, 1, 2],
            output_batch: 0,
            output_feature: r + 1,
            output_spatial: [1, 2, 3],
        }
    }
}

/// One convolution: operand shapes, dimension numbers and window configuration. Plain data
/// (`Copy`, no allocation); the first `spatial_rank + 2` entries of the shapes and the first
/// `spatial_rank` of the per-spatial-dimension arrays are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvDesc {
    /// Number of spatial dimensions, 1..=[`MAX_SPATIAL`].
    pub spatial_rank: usize,
    /// Input (lhs) dimensions, row-major.
    pub input_shape: [usize; MAX_RANK],
    /// Kernel (rhs) dimensions, row-major.
    pub kernel_shape: [usize; MAX_RANK],
    /// Which dimension of each operand plays which role.
    pub dims: ConvDims,
    /// Window step per spatial dimension (> 0).
    pub window_strides: [usize; MAX_SPATIAL],
    /// `(low, high)` zero padding of the dilated input per spatial dimension; negative removes.
    pub padding: [(i64, i64); MAX_SPATIAL],
    /// Base dilation: `d - 1` holes between input elements (> 0).
    pub lhs_dilation: [usize; MAX_SPATIAL],
    /// Window dilation: `d - 1` holes between kernel taps (> 0).
    pub rhs_dilation: [usize; MAX_SPATIAL],
    /// Reverse the window along this spatial dimension.
    pub window_reversal: [bool; MAX_SPATIAL],
    /// Feature groups (> 0): input and output features split into this many groups.
    pub feature_group_count: usize,
    /// Batch groups (> 0): input batch and output features split into this many groups.
    pub batch_group_count: usize,
}

impl ConvDesc {
    /// A convolution of `input_shape` by `kernel_shape` (each `spatial_rank + 2` long) with
    /// `dims`, unit strides and dilations, no padding, one group. Panics never: bad lengths are
    /// reported by [`ConvDesc::validate`] (the shapes are then recorded as empty).
    pub fn new(input_shape: &[usize], kernel_shape: &[usize], dims: ConvDims) -> Self {
        let r = input_shape.len().saturating_sub(2);
        let mut d = ConvDesc {
            spatial_rank: r,
            input_shape: [0; MAX_RANK],
            kernel_shape: [0; MAX_RANK],
            dims,
            window_strides: [1; MAX_SPATIAL],
            padding: [(0, 0); MAX_SPATIAL],
            lhs_dilation: [1; MAX_SPATIAL],
            rhs_dilation: [1; MAX_SPATIAL],
            window_reversal: [false; MAX_SPATIAL],
            feature_group_count: 1,
            batch_group_count: 1,
        };
        if input_shape.len() <= MAX_RANK && kernel_shape.len() == input_shape.len() {
            d.input_shape[..input_shape.len()].copy_from_slice(input_shape);
            d.kernel_shape[..kernel_shape.len()].copy_from_slice(kernel_shape);
        } else {
            // Recorded as an impossible rank so that validate() names the problem.
            d.spatial_rank = usize::MAX;
        }
        d
    }

    /// Sets the window strides (first `spatial_rank` used).
    pub fn with_strides(mut self, s: &[usize]) -> Self {
        copy_prefix(&mut self.window_strides, s);
        self
    }
    /// Sets the `(low, high)` padding per spatial dimension.
    pub fn with_padding(mut self, p: &[(i64, i64)]) -> Self {
        copy_prefix(&mut self.padding, p);
        self
    }
    /// Sets the lhs (base) dilation.
    pub fn with_lhs_dilation(mut self, d: &[usize]) -> Self {
        copy_prefix(&mut self.lhs_dilation, d);
        self
    }
    /// Sets the rhs (window) dilation.
    pub fn with_rhs_dilation(mut self, d: &[usize]) -> Self {
        copy_prefix(&mut self.rhs_dilation, d);
        self
    }
    /// Sets the window reversal flags.
    pub fn with_window_reversal(mut self, r: &[bool]) -> Self {
        copy_prefix(&mut self.window_reversal, r);
        self
    }
    /// Sets the feature and batch group counts.
    pub fn with_groups(mut self, feature_group_count: usize, batch_group_count: usize) -> Self {
        self.feature_group_count = feature_group_count;
        self.batch_group_count = batch_group_count;
        self
    }

    /// Number of dimensions of each operand (`spatial_rank + 2`).
    pub fn rank(&self) -> usize {
        self.spatial_rank + 2
    }

    /// Checks every constraint of StableHLO's `convolution` (C1-C26 that apply to shapes and
    /// attributes) and that element counts fit in `usize`.
    pub fn validate(&self) -> Result<(), KernelError> {
        self.output_shape().map(|_| ())
    }

    /// The output dimensions (first `rank()` entries; the rest 0), after validating.
    ///
    /// Spatial: `num_windows = (padded == 0 || window > padded) ? 0 : (padded - window) /
    /// stride + 1` with `padded = lo + (n - 1) * lhs_dil + 1 + hi` (`lo + hi` if `n == 0`) and
    /// `window = (k - 1) * rhs_dil + 1` (0 if `k == 0`).
    pub fn output_shape(&self) -> Result<[usize; MAX_RANK], KernelError> {
        let r = self.spatial_rank;
        if !(1..=MAX_SPATIAL).contains(&r) {
            return Err(KernelError::invalid(
                OP,
                format!(
                    "operands must have 3 to {MAX_RANK} dimensions (1 to {MAX_SPATIAL} spatial) and equal ranks"
                ),
            ));
        }
        let n = r + 2;
        let dm = &self.dims;
        check_dims(
            "input",
            dm.input_batch,
            dm.input_feature,
            &dm.input_spatial[..r],
            n,
        )?;
        check_dims(
            "kernel",
            dm.kernel_output_feature,
            dm.kernel_input_feature,
            &dm.kernel_spatial[..r],
            n,
        )?;
        check_dims(
            "output",
            dm.output_batch,
            dm.output_feature,
            &dm.output_spatial[..r],
            n,
        )?;
        let ins = &self.input_shape[..n];
        let ks = &self.kernel_shape[..n];
        element_count(OP, ins)?;
        element_count(OP, ks)?;
        for i in 0..r {
            if self.window_strides[i] == 0 {
                return Err(bad(format!(
                    "window_strides must be > 0, got {:?}",
                    &self.window_strides[..r]
                )));
            }
            if self.lhs_dilation[i] == 0 || self.rhs_dilation[i] == 0 {
                return Err(bad(format!(
                    "dilations must be > 0, got lhs_dilation {:?} rhs_dilation {:?}",
                    &self.lhs_dilation[..r],
                    &self.rhs_dilation[..r]
                )));
            }
        }
        let (fg, bg) = (self.feature_group_count, self.batch_group_count);
        if fg == 0 || bg == 0 {
            return Err(bad(format!(
                "feature_group_count ({fg}) and batch_group_count ({bg}) must be > 0"
            )));
        }
        if fg > 1 && bg > 1 {
            return Err(bad(format!(
                "feature_group_count ({fg}) and batch_group_count ({bg}) cannot both exceed 1"
            )));
        }
        let batch = ins[dm.input_batch];
        let feat = ins[dm.input_feature];
        let kin = ks[dm.kernel_input_feature];
        let kout = ks[dm.kernel_output_feature];
        if !batch.is_multiple_of(bg) {
            return Err(bad(format!(
                "input batch size {batch} is not a multiple of batch_group_count {bg} (input {ins:?})"
            )));
        }
        if !feat.is_multiple_of(fg) {
            return Err(bad(format!(
                "input feature size {feat} is not a multiple of feature_group_count {fg} (input {ins:?})"
            )));
        }
        if kin * fg != feat {
            return Err(bad(format!(
                "kernel input features {kin} times feature_group_count {fg} must equal input features {feat} (input {ins:?} vs kernel {ks:?})"
            )));
        }
        if !kout.is_multiple_of(bg) || !kout.is_multiple_of(fg) {
            return Err(bad(format!(
                "kernel output features {kout} must be a multiple of feature_group_count {fg} and batch_group_count {bg} (kernel {ks:?})"
            )));
        }
        let mut out = [0usize; MAX_RANK];
        out[dm.output_batch] = batch / bg;
        out[dm.output_feature] = kout;
        for i in 0..r {
            out[dm.output_spatial[i]] = self.windows(i)?;
        }
        element_count(OP, &out[..n])?;
        Ok(out)
    }

    /// Number of window positions along spatial dimension `i` (see [`ConvDesc::output_shape`]).
    fn windows(&self, i: usize) -> Result<usize, KernelError> {
        let n = self.input_shape[self.dims.input_spatial[i]] as i128;
        let k = self.kernel_shape[self.dims.kernel_spatial[i]] as i128;
        let (lo, hi) = self.padding[i];
        let dilated = if n == 0 {
            0
        } else {
            (n - 1) * self.lhs_dilation[i] as i128 + 1
        };
        let padded = lo as i128 + dilated + hi as i128;
        let window = if k == 0 {
            0
        } else {
            (k - 1) * self.rhs_dilation[i] as i128 + 1
        };
        // Kernels index the padded, dilated input with i64/usize arithmetic: keep every extent
        // (and so every position) far inside that range.
        const LIMIT: i128 = 1 << 60;
        if dilated > LIMIT || padded.abs() > LIMIT || window > LIMIT {
            return Err(bad(format!(
                "spatial dimension {i}: dilated input {dilated}, padded input {padded} or window {window} exceeds 2^60"
            )));
        }
        let w = if padded <= 0 || window > padded {
            0
        } else {
            (padded - window) / self.window_strides[i] as i128 + 1
        };
        usize::try_from(w).map_err(|_| {
            bad(format!(
                "spatial dimension {i} has {w} window positions, more than usize holds"
            ))
        })
    }

    /// `2 * output elements * kernel input features * kernel spatial size`: the multiply-adds
    /// the convolution performs (counting padding taps), for GFLOP/s figures.
    pub fn flops(&self) -> u128 {
        let Ok(out) = self.output_shape() else {
            return 0;
        };
        let n = self.rank();
        let outs: u128 = out[..n].iter().map(|&d| d as u128).product();
        let taps: u128 = (0..self.spatial_rank)
            .map(|i| self.kernel_shape[self.dims.kernel_spatial[i]] as u128)
            .product();
        2 * outs * self.kernel_shape[self.dims.kernel_input_feature] as u128 * taps
    }
}

fn copy_prefix<T: Copy>(dst: &mut [T], src: &[T]) {
    let k = dst.len().min(src.len());
    dst[..k].copy_from_slice(&src[..k]);
}

fn bad(reason: String) -> KernelError {
    KernelError::invalid(OP, reason)
}

/// Batch, feature and spatial dimension numbers of one operand: distinct and `< n`.
fn check_dims(
    operand: &str,
    a: usize,
    b: usize,
    spatial: &[usize],
    n: usize,
) -> Result<(), KernelError> {
    let mut seen = [false; MAX_RANK];
    for &d in [a, b].iter().chain(spatial) {
        if d >= n || seen[d] {
            return Err(bad(format!(
                "{operand} dimension numbers (batch/feature {a}, {b}, spatial {spatial:?}) must be distinct and < rank {n}"
            )));
        }
        seen[d] = true;
    }
    Ok(())
}

/// Row-major strides of `shape`.
pub(crate) fn strides_of(shape: &[usize]) -> [usize; MAX_RANK] {
    let mut s = [0usize; MAX_RANK];
    let mut acc = 1usize;
    for i in (0..shape.len()).rev() {
        s[i] = acc;
        acc *= shape[i];
    }
    s
}

/// Reusable buffers for [`conv`]: the GEMM packing buffers and one set of column / weight
/// buffers of the last element type used. [`ConvScratch::new`] allocates nothing.
#[derive(Default)]
pub struct ConvScratch {
    /// Skip the specialised kernels (for measuring them against im2col).
    im2col_only: bool,
    /// Skip Winograd (for measuring it against the direct kernels).
    no_winograd: bool,
    gemm: GemmScratch,
    nchw: direct_nchw::Buffers,
    nhwc: direct_nhwc::Buffers,
    depthwise: direct::Buffers,
    winograd: winograd::Buffers,
    bufs: Option<Box<dyn Any + Send>>,
}

impl ConvScratch {
    /// Empty scratch (no allocation).
    pub fn new() -> Self {
        Self::default()
    }

    /// With `true`, every convolution takes the im2col + GEMM path (benchmarks compare the
    /// strategies with it; results agree up to summation order).
    #[doc(hidden)]
    pub fn set_im2col_only(&mut self, on: bool) {
        self.im2col_only = on;
    }

    /// With `true`, 3x3 convolutions take the direct kernels instead of Winograd (benchmarks
    /// compare the two with it; results agree up to rounding).
    #[doc(hidden)]
    pub fn set_no_winograd(&mut self, on: bool) {
        self.no_winograd = on;
    }

    /// The typed buffers (created, or replaced if they held another element type).
    fn bufs<T: ConvElem>(&mut self) -> (&mut im2col::Buffers<T>, &mut GemmScratch) {
        let fresh = !matches!(&self.bufs, Some(b) if b.is::<im2col::Buffers<T>>());
        if fresh {
            self.bufs = Some(Box::new(im2col::Buffers::<T>::default()));
        }
        let b = self
            .bufs
            .as_mut()
            .and_then(|b| b.downcast_mut::<im2col::Buffers<T>>())
            .expect("just set to this type");
        (b, &mut self.gemm)
    }
}

impl fmt::Debug for ConvScratch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConvScratch").finish_non_exhaustive()
    }
}

/// Element types [`conv`] accepts: every type [`gemm`](crate::gemm::gemm) does (sums in the
/// same arithmetic: f16/bf16 through f32, integers wrapping, pred as or-of-ands).
pub trait ConvElem: GemmElem + Default {
    /// Tries a specialised kernel; `false` leaves the case to im2col.
    #[doc(hidden)]
    fn conv_fast(
        _d: &ConvDesc,
        _out_shape: &[usize; MAX_RANK],
        _input: &[Self],
        _kernel: &[Self],
        _out: &mut [Self],
        _scratch: &mut ConvScratch,
    ) -> bool {
        false
    }
}

impl ConvElem for f32 {
    fn conv_fast(
        d: &ConvDesc,
        out_shape: &[usize; MAX_RANK],
        input: &[f32],
        kernel: &[f32],
        out: &mut [f32],
        scratch: &mut ConvScratch,
    ) -> bool {
        if direct::depthwise_f32(d, input, kernel, out, &mut scratch.depthwise) {
            return true;
        }
        if !scratch.no_winograd
            && winograd::applies(d, out_shape)
            && winograd::conv_winograd_f32(d, out_shape, input, kernel, out, &mut scratch.winograd)
        {
            return true;
        }
        if direct_nchw::applies(d) {
            direct_nchw::conv_nchw_f32(d, out_shape, input, kernel, out, &mut scratch.nchw);
            return true;
        }
        if direct_nhwc::applies(d) {
            direct_nhwc::conv_nhwc_f32(d, out_shape, input, kernel, out, &mut scratch.nhwc);
            return true;
        }
        false
    }
}

macro_rules! plain_elem {
    ($($t:ty),*) => {$( impl ConvElem for $t {} )*};
}

plain_elem!(
    f64,
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    half::f16,
    half::bf16,
    num_complex::Complex<f32>,
    num_complex::Complex<f64>
);

/// `out = conv(input, kernel)` as described by `desc` (module docs give the sum); all three
/// buffers are dense row-major in their own dimension order. Returns `Err` (writing nothing)
/// if `desc` is invalid or a buffer's length differs from its shape's element count.
pub fn conv<T: ConvElem>(
    desc: &ConvDesc,
    input: &[T],
    kernel: &[T],
    out: &mut [T],
    scratch: &mut ConvScratch,
) -> Result<(), KernelError> {
    let out_shape = desc.output_shape()?;
    let n = desc.rank();
    KernelError::check_len(
        OP,
        "input",
        element_count(OP, &desc.input_shape[..n])?,
        input.len(),
    )?;
    KernelError::check_len(
        OP,
        "kernel",
        element_count(OP, &desc.kernel_shape[..n])?,
        kernel.len(),
    )?;
    KernelError::check_len(OP, "out", element_count(OP, &out_shape[..n])?, out.len())?;
    if out.is_empty() {
        return Ok(());
    }
    if !scratch.im2col_only && T::conv_fast(desc, &out_shape, input, kernel, out, scratch) {
        return Ok(());
    }
    let (bufs, gemm_scratch) = scratch.bufs::<T>();
    im2col::conv_im2col(desc, &out_shape, input, kernel, out, bufs, gemm_scratch)
}
