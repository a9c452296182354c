//! `Gather` and `Scatter` on the builder.

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{Computation, GatherDimensionNumbers, Op, ScatterDimensionNumbers};

impl Builder {
    /// `Gather(operand, start_indices, dimension_numbers, slice_sizes, indices_are_sorted)`:
    /// `out[b, o] = operand[clamp(start(b)) + o]`, slices of `slice_sizes` taken at the start
    /// vectors of `start_indices`, each clamped so its slice fits in the operand.
    pub fn gather(
        &mut self,
        operand: XlaOp,
        start_indices: XlaOp,
        dimension_numbers: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        indices_are_sorted: bool,
    ) -> Result<XlaOp> {
        let [a, i] = self.shapes([operand, start_indices])?;
        let out = infer::gather(a, i, dimension_numbers, slice_sizes)?;
        let op = Op::Gather {
            dimension_numbers: dimension_numbers.clone(),
            slice_sizes: slice_sizes.to_vec(),
            indices_are_sorted,
        };
        Ok(self.push(op, vec![operand.0, start_indices.0], out))
    }

    /// Variadic `Scatter(operands..., scatter_indices, updates..., update_computation,
    /// dimension_numbers, indices_are_sorted, unique_indices)`: copies of the operands with
    /// `out[s + w] = update_computation(out[s + w], updates[u])` for every update index `u`,
    /// in order, windows outside the operand skipped; one array for one operand, else a tuple.
    #[allow(clippy::too_many_arguments)]
    pub fn scatter(
        &mut self,
        operands: &[XlaOp],
        scatter_indices: XlaOp,
        updates: &[XlaOp],
        update_computation: &Arc<Computation>,
        dimension_numbers: &ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
    ) -> Result<XlaOp> {
        let (a, u) = (self.shape_list(operands)?, self.shape_list(updates)?);
        let i = self.try_shape(scatter_indices)?;
        let out = infer::scatter(&a, i, &u, dimension_numbers, update_computation)?;
        let op = Op::Scatter {
            dimension_numbers: dimension_numbers.clone(),
            indices_are_sorted,
            unique_indices,
            update_computation: Arc::clone(update_computation),
        };
        let ids = operands
            .iter()
            .chain(std::iter::once(&scatter_indices))
            .chain(updates)
            .map(|o| o.0)
            .collect();
        Ok(self.push(op, ids, out))
    }
}
