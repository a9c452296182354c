//! `Gather` and `Scatter` as StableHLO, in the generic form with their dimension numbers as
//! `#stablehlo.gather<...>` / `#stablehlo.scatter<...>` (empty lists left out, as StableHLO
//! prints them); Scatter's update computation is its region (like Reduce's reducer).

use super::super::text::i64_array;
use super::super::{Body, Val};
use super::{array_result, dims_list};
use crate::error::{Error, Result};
use crate::ir::{Computation, GatherDimensionNumbers, Instruction, ScatterDimensionNumbers};

/// `name = [..]` for each non-empty list, then `index_vector_dim = d`, comma-separated.
fn fields(lists: &[(&str, &[i64])], index_vector_dim: i64) -> String {
    let mut parts: Vec<String> = lists
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(name, v)| format!("{name} = {}", dims_list(v)))
        .collect();
    parts.push(format!("index_vector_dim = {index_vector_dim}"));
    parts.join(", ")
}

/// `#stablehlo.gather<offset_dims = [..], ..., index_vector_dim = d>`.
pub(crate) fn gather_dims(d: &GatherDimensionNumbers) -> String {
    let lists: [(&str, &[i64]); 5] = [
        ("offset_dims", &d.offset_dims),
        ("collapsed_slice_dims", &d.collapsed_slice_dims),
        ("operand_batching_dims", &d.operand_batching_dims),
        (
            "start_indices_batching_dims",
            &d.start_indices_batching_dims,
        ),
        ("start_index_map", &d.start_index_map),
    ];
    format!("#stablehlo.gather<{}>", fields(&lists, d.index_vector_dim))
}

/// `#stablehlo.scatter<update_window_dims = [..], ..., index_vector_dim = d>`.
pub(crate) fn scatter_dims(d: &ScatterDimensionNumbers) -> String {
    let lists: [(&str, &[i64]); 5] = [
        ("update_window_dims", &d.update_window_dims),
        ("inserted_window_dims", &d.inserted_window_dims),
        ("input_batching_dims", &d.input_batching_dims),
        (
            "scatter_indices_batching_dims",
            &d.scatter_indices_batching_dims,
        ),
        (
            "scatter_dims_to_operand_dims",
            &d.scatter_dims_to_operand_dims,
        ),
    ];
    format!("#stablehlo.scatter<{}>", fields(&lists, d.index_vector_dim))
}

impl Body<'_> {
    /// `"stablehlo.gather"(%x, %i) {dimension_numbers = .., slice_sizes = array<i64: ..>,
    /// indices_are_sorted = b}`.
    pub(super) fn gather(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        dn: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        indices_are_sorted: bool,
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        let [x, i] = ops else {
            return Err(Error::new(
                opcode,
                format!("StableHLO export: {} operands, expected 2", ops.len()),
            ));
        };
        let ((x, xt), (i, it)) = (x.leaf(opcode)?, i.leaf(opcode)?);
        let ty = array_result(ins, opcode)?;
        let sizes = i64_array(slice_sizes);
        let rhs = format!(
            "\"stablehlo.gather\"({x}, {i}) {{dimension_numbers = {}, slice_sizes = {sizes}, \
             indices_are_sorted = {indices_are_sorted}}} : ({xt}, {it}) -> {ty}",
            gather_dims(dn),
        );
        Ok(self.single(depth, &rhs, ty))
    }

    /// `"stablehlo.scatter"(operands..., %indices, updates...) ({ ^bb0(current..., update...):
    /// ... }) {scatter_dimension_numbers = .., indices_are_sorted, unique_indices}`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scatter(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        dn: &ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
        computation: &Computation,
        depth: usize,
    ) -> Result<Val> {
        let attrs = format!(
            "{{scatter_dimension_numbers = {}, indices_are_sorted = {indices_are_sorted}, \
             unique_indices = {unique_indices}}}",
            scatter_dims(dn)
        );
        self.region_op(ins, ops, "stablehlo.scatter", computation, &attrs, depth)
    }
}

#[cfg(test)]
mod tests;
