//! Builder methods of the convolutions: `Conv`, `ConvWithGeneralPadding`,
//! `ConvWithGeneralDimensions`, `ConvGeneral` and `ConvGeneralDilated`. Each fills in what its
//! form leaves implicit (XLA's default dimension numbers, the padding of
//! [`Padding::Same`]/[`Padding::Valid`], unit dilations, no reversal, one group), runs the shape
//! inference of `crate::infer::conv` and appends one `Op::Convolution`.

use super::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::Result;
use crate::infer::conv::{convolution_named, default_dimension_numbers, explicit_padding};
use crate::infer::Padding;
use crate::ir::{ConvDimensionNumbers, ConvWindow, Op};
use crate::shape::Shape;

impl Builder {
    /// `Conv(lhs, rhs, window_strides, padding)`: a convolution with XLA's default dimension
    /// numbers (input `[batch, feature, spatial...]`, kernel `[output feature, input feature,
    /// spatial...]`, output `[batch, feature, spatial...]`), `Same` or `Valid` padding, no
    /// dilation and one group.
    pub fn conv(
        &mut self,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: Padding,
    ) -> Result<XlaOp> {
        let dn = self.default_conv_dimensions(lhs, window_strides);
        self.conv_padded("Conv", lhs, rhs, window_strides, padding, &dn)
    }

    /// `ConvWithGeneralPadding(lhs, rhs, window_strides, padding)`: [`Builder::conv`] with an
    /// explicit `(low, high)` padding per spatial dimension (negative values cut).
    pub fn conv_with_general_padding(
        &mut self,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: &[(i64, i64)],
    ) -> Result<XlaOp> {
        let dn = self.default_conv_dimensions(lhs, window_strides);
        self.conv_emit(
            "ConvWithGeneralPadding",
            (lhs, rhs),
            plain_window(window_strides, padding),
            &dn,
            (1, 1),
            None,
        )
    }

    /// `ConvWithGeneralDimensions(lhs, rhs, window_strides, padding, dimension_numbers)`:
    /// [`Builder::conv`] with explicit dimension numbers.
    pub fn conv_with_general_dimensions(
        &mut self,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: Padding,
        dimension_numbers: &ConvDimensionNumbers,
    ) -> Result<XlaOp> {
        self.conv_padded(
            "ConvWithGeneralDimensions",
            lhs,
            rhs,
            window_strides,
            padding,
            dimension_numbers,
        )
    }

    /// `ConvGeneral(lhs, rhs, window_strides, padding, dimension_numbers)`: explicit padding and
    /// dimension numbers, no dilation, one group.
    pub fn conv_general(
        &mut self,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: &[(i64, i64)],
        dimension_numbers: &ConvDimensionNumbers,
    ) -> Result<XlaOp> {
        self.conv_emit(
            "ConvGeneral",
            (lhs, rhs),
            plain_window(window_strides, padding),
            dimension_numbers,
            (1, 1),
            None,
        )
    }

    /// `ConvGeneralDilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
    /// dimension_numbers, feature_group_count, batch_group_count, window_reversal,
    /// preferred_element_type)`: every attribute explicit. As XLA's builder, an empty
    /// `lhs_dilation` or `rhs_dilation` means no dilation and `window_reversal` of `None` means
    /// no reversal; `preferred_element_type` follows DotGeneral's rule.
    #[allow(clippy::too_many_arguments)]
    pub fn conv_general_dilated(
        &mut self,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: &[(i64, i64)],
        lhs_dilation: &[i64],
        rhs_dilation: &[i64],
        dimension_numbers: &ConvDimensionNumbers,
        feature_group_count: i64,
        batch_group_count: i64,
        window_reversal: Option<&[bool]>,
        preferred_element_type: Option<ElementType>,
    ) -> Result<XlaOp> {
        let n = window_strides.len();
        let ones = |d: &[i64]| if d.is_empty() { vec![1; n] } else { d.to_vec() };
        let window = ConvWindow {
            strides: window_strides.to_vec(),
            padding: padding.to_vec(),
            lhs_dilation: ones(lhs_dilation),
            rhs_dilation: ones(rhs_dilation),
            window_reversal: window_reversal.map_or_else(|| vec![false; n], <[bool]>::to_vec),
        };
        self.conv_emit(
            "ConvGeneralDilated",
            (lhs, rhs),
            window,
            dimension_numbers,
            (feature_group_count, batch_group_count),
            preferred_element_type,
        )
    }

    /// XLA's default dimension numbers for the spatial rank of `lhs` (rank - 2), or of
    /// `window_strides` when `lhs` is not an array of rank at least 2 (inference then reports
    /// the operand).
    fn default_conv_dimensions(&self, lhs: XlaOp, window_strides: &[i64]) -> ConvDimensionNumbers {
        let spatial = self
            .try_shape(lhs)
            .ok()
            .and_then(Shape::as_array)
            .and_then(|a| a.rank().checked_sub(2))
            .unwrap_or(window_strides.len());
        default_dimension_numbers(spatial)
    }

    /// A convolution written with [`Padding`]: made explicit from the operand shapes, then
    /// emitted.
    fn conv_padded(
        &mut self,
        op: &str,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: Padding,
        dn: &ConvDimensionNumbers,
    ) -> Result<XlaOp> {
        let [l, r] = self.shapes([lhs, rhs])?;
        let padding = explicit_padding(op, l, r, window_strides, padding, dn)?;
        self.conv_emit(
            op,
            (lhs, rhs),
            plain_window(window_strides, &padding),
            dn,
            (1, 1),
            None,
        )
    }

    /// Infer (errors naming `op`) and append the one `Op::Convolution`.
    fn conv_emit(
        &mut self,
        op: &str,
        (lhs, rhs): (XlaOp, XlaOp),
        window: ConvWindow,
        dn: &ConvDimensionNumbers,
        (feature_group_count, batch_group_count): (i64, i64),
        preferred_element_type: Option<ElementType>,
    ) -> Result<XlaOp> {
        let [l, r] = self.shapes([lhs, rhs])?;
        let out = convolution_named(
            op,
            l,
            r,
            &window,
            dn,
            feature_group_count,
            batch_group_count,
            preferred_element_type,
        )?;
        let conv = Op::Convolution {
            window,
            dimension_numbers: dn.clone(),
            feature_group_count,
            batch_group_count,
            preferred_element_type,
        };
        Ok(self.push(conv, vec![lhs.0, rhs.0], Shape::Array(out)))
    }
}

/// Strides and padding, no dilation or reversal (one entry per stride; inference checks the
/// padding's length).
fn plain_window(window_strides: &[i64], padding: &[(i64, i64)]) -> ConvWindow {
    let n = window_strides.len();
    ConvWindow {
        strides: window_strides.to_vec(),
        padding: padding.to_vec(),
        lhs_dilation: vec![1; n],
        rhs_dilation: vec![1; n],
        window_reversal: vec![false; n],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Blame;
    use crate::ir::Computation;
    use crate::shape::parse_shape;

    /// Parameters of these shapes, then `f` on them; the built computation.
    fn build(
        shapes: [&str; 2],
        f: impl FnOnce(&mut Builder, XlaOp, XlaOp) -> Result<XlaOp>,
    ) -> Result<Computation> {
        let mut b = Builder::new("conv");
        let x = b.parameter(0, parse_shape(shapes[0])?, "x")?;
        let y = b.parameter(1, parse_shape(shapes[1])?, "y")?;
        let r = f(&mut b, x, y)?;
        b.build(r)
    }

    /// The root's attributes (it must be the one convolution after the two parameters).
    fn root(
        c: &Computation,
    ) -> (
        ConvWindow,
        ConvDimensionNumbers,
        i64,
        i64,
        Option<ElementType>,
    ) {
        assert_eq!(c.instrs.len(), 3);
        match &c.instr(c.root).op {
            Op::Convolution {
                window,
                dimension_numbers,
                feature_group_count,
                batch_group_count,
                preferred_element_type,
            } => (
                window.clone(),
                dimension_numbers.clone(),
                *feature_group_count,
                *batch_group_count,
                *preferred_element_type,
            ),
            other => panic!("root is {other:?}"),
        }
    }

    fn nhwc() -> ConvDimensionNumbers {
        ConvDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 3,
            input_spatial_dimensions: vec![1, 2],
            kernel_input_feature_dimension: 2,
            kernel_output_feature_dimension: 3,
            kernel_spatial_dimensions: vec![0, 1],
            output_batch_dimension: 0,
            output_feature_dimension: 3,
            output_spatial_dimensions: vec![1, 2],
        }
    }

    #[test]
    fn conv_lowers_same_padding_and_default_dimensions() {
        let c = build(["f32[2,3,7,8]", "f32[4,3,4,3]"], |b, x, y| {
            b.conv(x, y, &[2, 1], Padding::Same)
        })
        .unwrap();
        assert_eq!(c.result_shape().to_string(), "f32[2,4,4,8]");
        let (w, dn, fg, bg, pref) = root(&c);
        assert_eq!(dn, default_dimension_numbers(2));
        // ceil(7 / 2) = 4 outputs need (4 - 1) * 2 + 4 - 7 = 3 padding; 8 need 2.
        assert_eq!(w.padding, vec![(1, 2), (1, 1)]);
        assert_eq!(w.strides, vec![2, 1]);
        assert_eq!(w.lhs_dilation, vec![1, 1]);
        assert_eq!(w.rhs_dilation, vec![1, 1]);
        assert_eq!(w.window_reversal, vec![false, false]);
        assert_eq!((fg, bg, pref), (1, 1, None));
        let c = build(["f32[2,3,7,8]", "f32[4,3,4,3]"], |b, x, y| {
            b.conv(x, y, &[1, 1], Padding::Valid)
        })
        .unwrap();
        assert_eq!(c.result_shape().to_string(), "f32[2,4,4,6]");
    }

    #[test]
    fn general_padding_and_dimensions() {
        let c = build(["s32[1,2,5]", "s32[3,2,2]"], |b, x, y| {
            b.conv_with_general_padding(x, y, &[1], &[(-1, 2)])
        })
        .unwrap();
        assert_eq!(c.result_shape().to_string(), "s32[1,3,5]");
        assert_eq!(root(&c).0.padding, vec![(-1, 2)]);
        let c = build(["f32[1,5,5,3]", "f32[3,3,3,8]"], |b, x, y| {
            b.conv_with_general_dimensions(x, y, &[1, 1], Padding::Same, &nhwc())
        })
        .unwrap();
        assert_eq!(c.result_shape().to_string(), "f32[1,5,5,8]");
        assert_eq!(root(&c).1, nhwc());
        let c = build(["f32[1,5,5,3]", "f32[3,3,3,8]"], |b, x, y| {
            b.conv_general(x, y, &[2, 2], &[(0, 0), (1, 1)], &nhwc())
        })
        .unwrap();
        assert_eq!(c.result_shape().to_string(), "f32[1,2,3,8]");
    }

    #[test]
    fn conv_general_dilated_fills_defaults() {
        let c = build(["s8[4,5,5,6]", "s8[3,3,3,8]"], |b, x, y| {
            b.conv_general_dilated(
                x,
                y,
                &[1, 1],
                &[(0, 0), (0, 0)],
                &[],
                &[2, 1],
                &nhwc(),
                2,
                1,
                None,
                Some(ElementType::S32),
            )
        })
        .unwrap();
        assert_eq!(c.result_shape().to_string(), "s32[4,1,3,8]");
        let (w, _, fg, bg, pref) = root(&c);
        assert_eq!(w.lhs_dilation, vec![1, 1]);
        assert_eq!(w.rhs_dilation, vec![2, 1]);
        assert_eq!(w.window_reversal, vec![false, false]);
        assert_eq!((fg, bg, pref), (2, 1, Some(ElementType::S32)));
        let c = build(["f32[4,3,5]", "f32[6,3,2]"], |b, x, y| {
            let dn = default_dimension_numbers(1);
            let rev = [true];
            b.conv_general_dilated(x, y, &[1], &[(0, 0)], &[], &[], &dn, 1, 2, Some(&rev), None)
        })
        .unwrap();
        assert_eq!(c.result_shape().to_string(), "f32[2,6,4]");
        assert_eq!(root(&c).0.window_reversal, vec![true]);
    }

    #[test]
    fn errors_name_the_surface_form() {
        let e = build(["f32[1,3,5,5]", "f32[8,3,3,3]"], |b, x, y| {
            b.conv(x, y, &[1], Padding::Same)
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Conv: window_strides [1] has 1 entry, expected 2 (one per spatial dimension) \
             (f32[1,3,5,5] vs f32[8,3,3,3])"
        );
        assert_eq!(e.blame, Blame::Attribute("window_strides"));
        let e = build(["f32[1,3,5,5]", "f32[8,3,3,3]"], |b, x, y| {
            b.conv_with_general_padding(x, y, &[1, 1], &[(0, 0)])
        })
        .unwrap_err();
        assert_eq!(e.op, "ConvWithGeneralPadding");
        assert_eq!(e.blame, Blame::Attribute("padding"));
        let e = build(["f32[1,5,5,3]", "f32[3,3,4,8]"], |b, x, y| {
            b.conv_with_general_dimensions(x, y, &[1, 1], Padding::Valid, &nhwc())
        })
        .unwrap_err();
        assert_eq!(e.op, "ConvWithGeneralDimensions");
        assert!(e.message.ends_with("(f32[1,5,5,3] vs f32[3,3,4,8])"), "{e}");
        let e = build(["f32[1,5,5,3]", "f32[3,3,3,8]"], |b, x, y| {
            b.conv_general(
                x,
                y,
                &[1, 1],
                &[(0, 0), (0, 0)],
                &default_dimension_numbers(1),
            )
        })
        .unwrap_err();
        assert_eq!(e.op, "ConvGeneral");
        let e = build(["f32[1,5,5,3]", "f32[3,3,3,8]"], |b, x, y| {
            b.conv_general_dilated(
                x,
                y,
                &[1, 1],
                &[(0, 0), (0, 0)],
                &[1],
                &[],
                &nhwc(),
                1,
                1,
                None,
                None,
            )
        })
        .unwrap_err();
        assert_eq!(e.op, "ConvGeneralDilated");
        assert_eq!(e.blame, Blame::Attribute("lhs_dilation"));
        // Operands of rank below 2 or from another builder are errors, not panics.
        assert!(build(["f32[3]", "f32[3]"], |b, x, y| b.conv(
            x,
            y,
            &[],
            Padding::Same
        ))
        .is_err());
        let foreign = XlaOp(crate::ir::InstrId(99));
        let e = build(["f32[1,1,3]", "f32[1,1,1]"], |b, x, _| {
            b.conv(x, foreign, &[1], Padding::Valid)
        });
        assert_eq!(e.unwrap_err().op, "Builder");
    }

    #[test]
    fn exports_the_pretty_stablehlo_form() {
        let dn = ConvDimensionNumbers {
            input_batch_dimension: 2,
            input_feature_dimension: 1,
            input_spatial_dimensions: vec![0, 3],
            kernel_input_feature_dimension: 2,
            kernel_output_feature_dimension: 0,
            kernel_spatial_dimensions: vec![3, 1],
            output_batch_dimension: 3,
            output_feature_dimension: 0,
            output_spatial_dimensions: vec![2, 1],
        };
        let c = build(["bf16[5,4,2,6]", "bf16[6,2,2,3]"], |b, x, y| {
            let rev = [true, false];
            let pad = [(-1, 2), (1, 0)];
            b.conv_general_dilated(
                x,
                y,
                &[2, 1],
                &pad,
                &[1, 2],
                &[2, 1],
                &dn,
                2,
                1,
                Some(&rev),
                Some(ElementType::F32),
            )
        })
        .unwrap();
        let text = crate::stablehlo::try_to_stablehlo(&c).unwrap();
        let want = "stablehlo.convolution(%arg0, %arg1) dim_numbers = [0, f, b, 1]x[o, 1, i, \
                    0]->[f, 1, 0, b], window = {stride = [2, 1], pad = [[-1, 2], [1, 0]], \
                    lhs_dilate = [1, 2], rhs_dilate = [2, 1], reverse = [true, false]} \
                    {batch_group_count = 1 : i64, feature_group_count = 2 : i64, \
                    precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision \
                    HIGHEST>]} : (tensor<5x4x2x6xbf16>, tensor<6x2x2x3xbf16>) -> \
                    tensor<6x11x1x2xf32>";
        assert!(text.contains(want), "{text}");
        // No spatial dimensions: empty window lists.
        let c = build(["f32[3,5]", "f32[4,5]"], |b, x, y| {
            b.conv_with_general_padding(x, y, &[], &[])
        })
        .unwrap();
        let text = crate::stablehlo::try_to_stablehlo(&c).unwrap();
        assert!(
            text.contains(
                "dim_numbers = [b, f]x[o, i]->[b, f], window = {stride = [], pad = [], \
                 lhs_dilate = [], rhs_dilate = [], reverse = []}"
            ),
            "{text}"
        );
        // A hand-made instruction whose dimension numbers do not label every dimension.
        let mut bad = c.clone();
        let root = bad.root.0 as usize;
        if let Op::Convolution {
            dimension_numbers, ..
        } = &mut bad.instrs[root].op
        {
            dimension_numbers.kernel_input_feature_dimension = 0;
        }
        assert!(crate::stablehlo::try_to_stablehlo(&bad).is_err());
    }
}
