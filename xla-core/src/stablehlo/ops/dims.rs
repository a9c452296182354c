//! `DynamicReshape` as StableHLO: `stablehlo.dynamic_reshape` takes the result sizes as one
//! 1-D `tensor<Nxi32>`, which the export builds from the op's scalar sizes (reshape each to
//! `tensor<1xi32>`, concatenate). GetDimensionSize and SetDimensionSize are positional ops.

use super::super::{Body, Val};
use super::array_result;
use crate::error::Result;
use crate::ir::Instruction;

impl Body<'_> {
    /// `stablehlo.dynamic_reshape(operand, concatenate(reshape(size_i)))`.
    pub(super) fn dynamic_reshape(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        let (x, xty) = ops[0].leaf(opcode)?;
        let (x, xty) = (x.to_string(), xty.to_string());
        let mut parts = Vec::with_capacity(ops.len() - 1);
        for v in &ops[1..] {
            let (s, _) = v.leaf(opcode)?;
            let rhs = format!("stablehlo.reshape {s} : (tensor<i32>) -> tensor<1xi32>");
            let Val::Leaf { name, .. } = self.single(depth, &rhs, "tensor<1xi32>".into()) else {
                unreachable!("single returns a leaf")
            };
            parts.push(name);
        }
        let n = parts.len();
        let shape_ty = format!("tensor<{n}xi32>");
        let shape = if n == 0 {
            let rhs = format!("stablehlo.constant dense<> : {shape_ty}");
            self.single(depth, &rhs, shape_ty.clone())
        } else {
            let ins_ty = vec!["tensor<1xi32>"; n].join(", ");
            let rhs = format!(
                "stablehlo.concatenate {}, dim = 0 : ({ins_ty}) -> {shape_ty}",
                parts.join(", ")
            );
            self.single(depth, &rhs, shape_ty.clone())
        };
        let Val::Leaf { name: shape, .. } = shape else {
            unreachable!("single returns a leaf")
        };
        let ty = array_result(ins, opcode)?;
        let rhs = format!("stablehlo.dynamic_reshape {x}, {shape} : ({xty}, {shape_ty}) -> {ty}");
        Ok(self.single(depth, &rhs, ty))
    }
}
