//! Padding, convolution and window attributes: [`PadDim`], [`ConvDimensionNumbers`],
//! [`ConvWindow`], [`Window`].

/// Pad's configuration of one dimension: `low` and `high` elements of the padding value added
/// at each end (a negative count removes elements), `interior` between neighbouring elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PadDim {
    /// Elements added before the first (removed when negative).
    pub low: i64,
    /// Elements added after the last (removed when negative).
    pub high: i64,
    /// Elements added between each pair of neighbours (never negative).
    pub interior: i64,
}

/// Which operand dimension plays which role in a convolution (StableHLO's
/// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConvDimensionNumbers {
    /// Batch dimension of the input (lhs).
    pub input_batch_dimension: i64,
    /// Feature dimension of the input.
    pub input_feature_dimension: i64,
    /// Spatial dimensions of the input, in window order.
    pub input_spatial_dimensions: Vec<i64>,
    /// Input-feature dimension of the kernel (rhs).
    pub kernel_input_feature_dimension: i64,
    /// Output-feature dimension of the kernel.
    pub kernel_output_feature_dimension: i64,
    /// Spatial dimensions of the kernel, in window order.
    pub kernel_spatial_dimensions: Vec<i64>,
    /// Batch dimension of the output.
    pub output_batch_dimension: i64,
    /// Feature dimension of the output.
    pub output_feature_dimension: i64,
    /// Spatial dimensions of the output, in window order.
    pub output_spatial_dimensions: Vec<i64>,
}

/// A convolution's window, one entry per spatial dimension (all the same length).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConvWindow {
    /// Step of the window over the (dilated, padded) input.
    pub strides: Vec<i64>,
    /// `(low, high)` padding of the dilated input; negative values cut.
    pub padding: Vec<(i64, i64)>,
    /// Input (lhs, "base") dilation: `d - 1` holes between input elements.
    pub lhs_dilation: Vec<i64>,
    /// Kernel (rhs, "window") dilation: `d - 1` holes between kernel taps.
    pub rhs_dilation: Vec<i64>,
    /// Whether the kernel is flipped along each spatial dimension.
    pub window_reversal: Vec<bool>,
}

/// A window slid over an array (XLA's `Window` of ReduceWindow and SelectAndScatter), one
/// entry per array dimension: window position `o` covers the (base-dilated, padded) indices
/// `o * stride + k * window_dilation` for `k < dimension`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Window {
    /// Window size per dimension (at least 1).
    pub dimensions: Vec<i64>,
    /// Step between window positions (at least 1).
    pub strides: Vec<i64>,
    /// `(low, high)` padding of the base-dilated array; negative values cut.
    pub padding: Vec<(i64, i64)>,
    /// `d - 1` holes between array elements (at least 1).
    pub base_dilations: Vec<i64>,
    /// `d - 1` holes between window taps (at least 1).
    pub window_dilations: Vec<i64>,
}
