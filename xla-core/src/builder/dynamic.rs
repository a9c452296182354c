//! `DynamicSlice` and `DynamicUpdateSlice` on the builder.

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::Op;
use crate::shape::Shape;

impl Builder {
    /// `DynamicSlice(operand, start_indices..., slice_sizes)`: `out[i] = operand[s + i]`, one
    /// scalar integer start per operand dimension clamped as
    /// `s[d] = clamp(start[d], 0, dims[d] - slice_sizes[d])`.
    pub fn dynamic_slice(
        &mut self,
        operand: XlaOp,
        start_indices: &[XlaOp],
        slice_sizes: &[i64],
    ) -> Result<XlaOp> {
        let a = self.try_shape(operand)?;
        let starts = self.start_shapes(start_indices)?;
        let out = infer::dynamic_slice(a, &starts, slice_sizes)?;
        let op = Op::DynamicSlice {
            slice_sizes: slice_sizes.to_vec(),
        };
        let ids = std::iter::once(operand)
            .chain(start_indices.iter().copied())
            .map(|o| o.0)
            .collect();
        Ok(self.push(op, ids, out))
    }

    /// `DynamicUpdateSlice(operand, update, start_indices...)`: the operand with
    /// `out[s + i] = update[i]`, `s[d] = clamp(start[d], 0, dims[d] - update.dims[d])`.
    pub fn dynamic_update_slice(
        &mut self,
        operand: XlaOp,
        update: XlaOp,
        start_indices: &[XlaOp],
    ) -> Result<XlaOp> {
        let [a, u] = self.shapes([operand, update])?;
        let starts = self.start_shapes(start_indices)?;
        let out = infer::dynamic_update_slice(a, u, &starts)?;
        let ids = [operand, update]
            .into_iter()
            .chain(start_indices.iter().copied())
            .map(|o| o.0)
            .collect();
        Ok(self.push(Op::DynamicUpdateSlice, ids, out))
    }

    fn start_shapes(&self, starts: &[XlaOp]) -> Result<Vec<&Shape>> {
        starts.iter().map(|&s| self.try_shape(s)).collect()
    }
}
