//! The ops of bounded dynamic dimensions on the builder: GetDimensionSize, SetDimensionSize,
//! DynamicReshape (see `infer::dims`; the padder, `crate::padder`, runs them).

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::Op;
use crate::shape::Shape;

impl Builder {
    /// `GetDimensionSize(operand, dimension)`: the `s32[]` runtime size of `dimension`.
    pub fn get_dimension_size(&mut self, operand: XlaOp, dimension: i64) -> Result<XlaOp> {
        let [a] = self.shapes([operand])?;
        let out = infer::dims::get_dimension_size(a, dimension)?;
        Ok(self.push(
            Op::GetDimensionSize { dimension },
            vec![operand.0],
            Shape::Array(out),
        ))
    }

    /// `SetDimensionSize(operand, size, dimension)`: the operand with `dimension` dynamic
    /// (bound unchanged), its runtime size `size` (`s32[]`, clamped into `[0, bound]` when run).
    pub fn set_dimension_size(
        &mut self,
        operand: XlaOp,
        size: XlaOp,
        dimension: i64,
    ) -> Result<XlaOp> {
        let [a, s] = self.shapes([operand, size])?;
        let out = infer::dims::set_dimension_size(a, s, dimension)?;
        Ok(self.push(
            Op::SetDimensionSize { dimension },
            vec![operand.0, size.0],
            Shape::Array(out),
        ))
    }

    /// `DynamicReshape(operand, sizes..., new_size_bounds, dims_are_dynamic)`: the operand's
    /// valid elements, row-major, over the runtime `sizes` of a `ty[new_size_bounds]` result.
    pub fn dynamic_reshape(
        &mut self,
        operand: XlaOp,
        sizes: &[XlaOp],
        new_size_bounds: &[i64],
        dims_are_dynamic: &[bool],
    ) -> Result<XlaOp> {
        let a = self.try_shape(operand)?;
        let s = self.shape_list(sizes)?;
        let out = infer::dims::dynamic_reshape(a, &s, new_size_bounds, dims_are_dynamic)?;
        let ids = std::iter::once(operand)
            .chain(sizes.iter().copied())
            .map(|o| o.0)
            .collect();
        Ok(self.push(Op::DynamicReshape, ids, Shape::Array(out)))
    }
}
