//! Control flow in MLIR's generic form: `While` as `stablehlo.while`, a pred `Conditional` as
//! `stablehlo.if`, an s32 one as `stablehlo.case`.
//!
//! ```text
//! %7:2 = "stablehlo.while"(%3, %arg0) ({
//! ^bb0(%8: tensor<i32>, %9: tensor<4xf32>):
//!   ...
//!   stablehlo.return %11 : tensor<i1>
//! }, {
//! ^bb0(%12: tensor<i32>, %13: tensor<4xf32>):
//!   ...
//!   stablehlo.return %15, %16 : tensor<i32>, tensor<4xf32>
//! }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
//!
//! %20 = "stablehlo.case"(%arg0) ({
//!   %21 = stablehlo.add %arg1, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
//!   stablehlo.return %21 : tensor<3xf32>
//! }, {
//!   stablehlo.return %arg2 : tensor<3xf32>
//! }) : (tensor<i32>) -> tensor<3xf32>
//! ```
//!
//! A tuple state is flattened into the while's operands, results and block arguments (the
//! condition and body are inlined as its two regions, their parameter bound to the block
//! arguments). Branch regions take no arguments in StableHLO: each branch is inlined with its
//! parameter bound to the outer value of its operand, which the region captures (regions of
//! `if`, `case` and `while` are not isolated from above). StableHLO's `case` runs the last
//! branch for an index out of range, as XLA's Conditional does.

use super::{text, tree, Body, Val};
use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::ir::{Computation, Instruction};
use crate::shape::Shape;

/// `t` for one type, `(t1, t2)` otherwise (a function type's results).
fn result_list(types: &[String]) -> String {
    if types.len() == 1 {
        types[0].clone()
    } else {
        format!("({})", types.join(", "))
    }
}

impl Body<'_> {
    /// The left-hand side for an op with the leaves of `shape` as results (`%n`, `%n:k`, or
    /// nothing for no results) and the value tree naming them.
    fn results_of(&mut self, shape: &Shape) -> (String, Val) {
        let mut types = Vec::new();
        text::flat_types(shape, &mut types);
        let n = self.fresh();
        let k = types.len();
        let lhs = match k {
            0 => String::new(),
            1 => format!("%{n} = "),
            2.. => format!("%{n}:{k} = "),
        };
        let mut i = 0;
        let val = tree(shape, &mut || {
            i += 1;
            if k == 1 {
                format!("%{n}")
            } else {
                format!("%{n}#{}", i - 1)
            }
        });
        (lhs, val)
    }

    /// Prints `c` inlined as the body of a region at `depth` (its parameters bound to `args`)
    /// followed by `stablehlo.return` of its root.
    fn region_body(&mut self, c: &Computation, args: &[Val], depth: usize) -> Result<()> {
        let root = self.computation(c, args, depth)?;
        let (names, types) = root.names_and_types();
        if names.is_empty() {
            self.line(depth, "stablehlo.return");
        } else {
            self.line(depth, &format!("stablehlo.return {names} : {types}"));
        }
        Ok(())
    }

    /// `^bb0(%a: t, ...):` with fresh block arguments for a value of `shape`; returns the
    /// header line and the value tree bound to them.
    fn block_args(&mut self, shape: &Shape) -> (String, Val) {
        let v = tree(shape, &mut || format!("%{}", self.fresh()));
        let mut leaves = Vec::new();
        v.flatten(&mut leaves);
        let args: Vec<String> = leaves
            .iter()
            .filter_map(|l| match l {
                Val::Leaf { name, ty } => Some(format!("{name}: {ty}")),
                Val::Tuple(_) => None,
            })
            .collect();
        (format!("^bb0({}):", args.join(", ")), v)
    }

    /// `"stablehlo.while"(state...) ({ condition }, { body }) : (T...) -> (T...)`.
    pub(super) fn while_loop(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        condition: &Computation,
        body: &Computation,
        depth: usize,
    ) -> Result<Val> {
        let [init] = ops else {
            return Err(Error::new(
                ins.op.opcode(),
                format!("StableHLO export: {} operands, expected 1", ops.len()),
            ));
        };
        let (names, types) = init.names_and_types();
        let mut result_types = Vec::new();
        text::flat_types(&ins.shape, &mut result_types);
        let (lhs, val) = self.results_of(&ins.shape);
        self.line(depth, &format!("{lhs}\"stablehlo.while\"({names}) ({{"));
        let (header, cond_args) = self.block_args(&ins.shape);
        self.line(depth, &header);
        self.region_body(condition, &[cond_args], depth + 1)?;
        self.line(depth, "}, {");
        let (header, body_args) = self.block_args(&ins.shape);
        self.line(depth, &header);
        self.region_body(body, &[body_args], depth + 1)?;
        self.line(
            depth,
            &format!("}}) : ({types}) -> {}", result_list(&result_types)),
        );
        Ok(val)
    }

    /// `"stablehlo.if"(%pred) ({ true }, { false })` or `"stablehlo.case"(%index) ({ branch
    /// 0 }, ...)`, each branch inlined with its parameter bound to its operand's outer value.
    pub(super) fn conditional(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        operand_shapes: &[&Shape],
        branches: &[std::sync::Arc<Computation>],
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        if branches.is_empty() || ops.len() != branches.len() + 1 {
            return Err(Error::new(
                opcode,
                format!(
                    "StableHLO export: {} branches with {} operands (expected a selector and one \
                     operand per branch)",
                    branches.len(),
                    ops.len()
                ),
            ));
        }
        let (sel, sel_ty) = ops[0].leaf(opcode)?;
        let name = match operand_shapes.first().and_then(|s| s.as_array()) {
            Some(a) if a.ty == ElementType::Pred && branches.len() == 2 => "stablehlo.if",
            Some(a) if a.ty == ElementType::S32 => "stablehlo.case",
            Some(_) | None => {
                return Err(Error::new(
                    opcode,
                    "StableHLO export: the selector must be pred[] (2 branches) or s32[]",
                ))
            }
        };
        let mut result_types = Vec::new();
        text::flat_types(&ins.shape, &mut result_types);
        let (lhs, val) = self.results_of(&ins.shape);
        self.line(depth, &format!("{lhs}\"{name}\"({sel}) ({{"));
        for (j, b) in branches.iter().enumerate() {
            if j > 0 {
                self.line(depth, "}, {");
            }
            self.region_body(b, std::slice::from_ref(&ops[j + 1]), depth + 1)?;
        }
        self.line(
            depth,
            &format!("}}) : ({sel_ty}) -> {}", result_list(&result_types)),
        );
        Ok(val)
    }
}

#[cfg(test)]
mod tests;
