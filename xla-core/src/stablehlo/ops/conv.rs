//! `Convolution` as StableHLO: `stablehlo.convolution` in its pretty form, the dimension
//! numbers as `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` and the window as `stride`, `pad`,
//! `lhs_dilate`, `rhs_dilate` and `reverse`.

use super::super::{Body, Val};
use super::{array_result, dims_list};
use crate::error::{Error, Result};
use crate::ir::{ConvWindow, Instruction};
use crate::shape::Shape;

/// StableHLO's `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` for operands of ranks `ranks` (lhs,
/// rhs; the output has the lhs's): each dimension's role, spatial dimension `i` as `i`; `None`
/// unless every dimension has exactly one role.
fn conv_dims(ranks: &[usize], dn: &crate::ir::ConvDimensionNumbers) -> Option<String> {
    let (&l, &r) = (ranks.first()?, ranks.get(1)?);
    Some(format!(
        "{}x{}->{}",
        conv_labels(
            l,
            [
                (dn.input_batch_dimension, "b"),
                (dn.input_feature_dimension, "f")
            ],
            &dn.input_spatial_dimensions
        )?,
        conv_labels(
            r,
            [
                (dn.kernel_input_feature_dimension, "i"),
                (dn.kernel_output_feature_dimension, "o")
            ],
            &dn.kernel_spatial_dimensions
        )?,
        conv_labels(
            l,
            [
                (dn.output_batch_dimension, "b"),
                (dn.output_feature_dimension, "f")
            ],
            &dn.output_spatial_dimensions
        )?,
    ))
}

/// One operand's `[b, 0, 1, f]`: the two named roles of `scalars`, spatial dimension `i` as `i`.
fn conv_labels(rank: usize, scalars: [(i64, &str); 2], spatial: &[i64]) -> Option<String> {
    let mut labels: Vec<Option<String>> = vec![None; rank];
    let roles = scalars
        .iter()
        .map(|&(d, name)| (d, name.to_string()))
        .chain(spatial.iter().enumerate().map(|(i, &d)| (d, i.to_string())));
    for (d, name) in roles {
        let slot = labels.get_mut(usize::try_from(d).ok()?)?;
        if slot.replace(name).is_some() {
            return None;
        }
    }
    let labels: Option<Vec<String>> = labels.into_iter().collect();
    Some(format!("[{}]", labels?.join(", ")))
}

impl Body<'_> {
    /// `stablehlo.convolution(%x, %y) dim_numbers = .., window = {..} {..} : (xt, yt) -> ty`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn convolution(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        operand_shapes: &[&Shape],
        w: &ConvWindow,
        dn: &crate::ir::ConvDimensionNumbers,
        feature_group_count: i64,
        batch_group_count: i64,
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        let ((x, xt), (y, yt)) = (ops[0].leaf(opcode)?, ops[1].leaf(opcode)?);
        // The preferred element type is the instruction's result element type already.
        let ty = array_result(ins, opcode)?;
        let ranks: Vec<usize> = operand_shapes
            .iter()
            .filter_map(|s| s.as_array())
            .map(|a| a.rank())
            .collect();
        let dims = conv_dims(&ranks, dn)
            .ok_or_else(|| Error::new(opcode, "StableHLO export: invalid dimension numbers"))?;
        let pad: Vec<String> = w
            .padding
            .iter()
            .map(|(l, h)| format!("[{l}, {h}]"))
            .collect();
        let reverse: Vec<String> = w.window_reversal.iter().map(bool::to_string).collect();
        // HIGHEST, as for dots: no backend may round f32 operands to bf16.
        let rhs = format!(
            "stablehlo.convolution({x}, {y}) dim_numbers = {dims}, window = {{stride = {}, \
             pad = [{}], lhs_dilate = {}, rhs_dilate = {}, reverse = [{}]}} \
             {{batch_group_count = {batch_group_count} : i64, feature_group_count = \
             {feature_group_count} : i64, precision_config = [#stablehlo<precision \
             HIGHEST>, #stablehlo<precision HIGHEST>]}} : ({xt}, {yt}) -> {ty}",
            dims_list(&w.strides),
            pad.join(", "),
            dims_list(&w.lhs_dilation),
            dims_list(&w.rhs_dilation),
            reverse.join(", ")
        );
        Ok(self.single(depth, &rhs, ty))
    }
}
