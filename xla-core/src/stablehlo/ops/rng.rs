//! `RngBitGenerator`, `RngUniform` and `RngNormal` as StableHLO:
//! `stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (st) -> (st, bits)` (as JAX prints
//! it) and `stablehlo.rng %a, %b, %shape, distribution = UNIFORM`, the shape a constant
//! `tensor<Rxi64>`. XLA runs `stablehlo.rng` on a global state of its own, so only the
//! distribution, not the stream, survives the export.

use super::super::text::{flat_types, tensor_type};
use super::super::{Body, Val};
use crate::error::{Error, Result};
use crate::ir::{Instruction, RandomAlgorithm, RngDistribution};

impl Body<'_> {
    /// `%n:2 = stablehlo.rng_bit_generator %s, algorithm = A : (st) -> (st, bt)`.
    pub(super) fn rng_bit_generator(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        algorithm: RandomAlgorithm,
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        let fail = |what: String| Error::new(opcode, format!("StableHLO export: {what}"));
        let [op] = ops else {
            return Err(fail(format!("{} operands, expected 1", ops.len())));
        };
        let (s, st) = op.leaf(opcode)?;
        let mut types = Vec::new();
        flat_types(&ins.shape, &mut types);
        let [nt, bt] = types.as_slice() else {
            return Err(fail(format!("result shape {} is not a pair", ins.shape)));
        };
        let n = self.fresh();
        let line = format!(
            "%{n}:2 = stablehlo.rng_bit_generator {s}, algorithm = {} : ({st}) -> ({nt}, {bt})",
            algorithm.name()
        );
        let (nt, bt) = (nt.clone(), bt.clone());
        self.line(depth, &line);
        Ok(Val::Tuple(vec![
            Val::Leaf {
                name: format!("%{n}#0"),
                ty: nt,
            },
            Val::Leaf {
                name: format!("%{n}#1"),
                ty: bt,
            },
        ]))
    }

    /// `%c = stablehlo.constant dense<dims>`, `%n = stablehlo.rng %a, %b, %c, distribution = D`.
    pub(super) fn rng(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        distribution: RngDistribution,
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        let fail = |what: String| Error::new(opcode, format!("StableHLO export: {what}"));
        let [p0, p1] = ops else {
            return Err(fail(format!("{} operands, expected 2", ops.len())));
        };
        let ((a, at), (b, bt)) = (p0.leaf(opcode)?, p1.leaf(opcode)?);
        let out = ins
            .shape
            .as_array()
            .ok_or_else(|| fail(format!("result shape {} is not an array", ins.shape)))?;
        let ty = tensor_type(out);
        let dims: Vec<String> = out.dims.iter().map(i64::to_string).collect();
        let shape_ty = format!("tensor<{}xi64>", dims.len());
        let c = self.fresh();
        let line = format!(
            "%{c} = stablehlo.constant dense<[{}]> : {shape_ty}",
            dims.join(", ")
        );
        let dist = match distribution {
            RngDistribution::Uniform => "UNIFORM",
            RngDistribution::Normal => "NORMAL",
        };
        let n = self.fresh();
        let rng = format!(
            "%{n} = stablehlo.rng {a}, {b}, %{c}, distribution = {dist} : ({at}, {bt}, {shape_ty}) -> {ty}"
        );
        self.line(depth, &line);
        self.line(depth, &rng);
        Ok(Val::Leaf {
            name: format!("%{n}"),
            ty,
        })
    }
}
