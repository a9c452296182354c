//! Control flow: `While` and the two forms of `Conditional`.

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::Result;
use crate::infer;
use crate::ir::{Computation, Op};

impl Builder {
    /// `While(condition, body, init)`: `state = body(state)` while `condition(state)`, starting
    /// from `init` (an array or a tuple); the result is the final state.
    pub fn while_loop(
        &mut self,
        condition: &Arc<Computation>,
        body: &Arc<Computation>,
        init: XlaOp,
    ) -> Result<XlaOp> {
        let [s] = self.shapes([init])?;
        let out = infer::control::while_loop(condition, body, s)?;
        let op = Op::While {
            condition: Arc::clone(condition),
            body: Arc::clone(body),
        };
        Ok(self.push(op, vec![init.0], out))
    }

    /// `Conditional(pred, true_operand, true_computation, false_operand, false_computation)`:
    /// `true_computation(true_operand)` if `pred` (a `pred[]`) is true, else
    /// `false_computation(false_operand)`; only the chosen computation runs.
    pub fn conditional(
        &mut self,
        pred: XlaOp,
        true_operand: XlaOp,
        true_computation: &Arc<Computation>,
        false_operand: XlaOp,
        false_computation: &Arc<Computation>,
    ) -> Result<XlaOp> {
        let [p, t, f] = self.shapes([pred, true_operand, false_operand])?;
        infer::control::conditional_selector(p, ElementType::Pred)?;
        let out = infer::control::conditional(
            p,
            &[true_computation.as_ref(), false_computation.as_ref()],
            &[t, f],
        )?;
        let op = Op::Conditional {
            branches: vec![Arc::clone(true_computation), Arc::clone(false_computation)],
        };
        Ok(self.push(op, vec![pred.0, true_operand.0, false_operand.0], out))
    }

    /// `Conditional(branch_index, branch_computations, branch_operands)`:
    /// `branches[i](operands[i])` for `i = branch_index` (an `s32[]`); an index out of range
    /// (negative included) runs the last branch.
    pub fn conditional_indexed(
        &mut self,
        branch_index: XlaOp,
        branches: &[Arc<Computation>],
        operands: &[XlaOp],
    ) -> Result<XlaOp> {
        let [index] = self.shapes([branch_index])?;
        let shapes = self.shape_list(operands)?;
        infer::control::conditional_selector(index, ElementType::S32)?;
        let comps: Vec<&Computation> = branches.iter().map(Arc::as_ref).collect();
        let out = infer::control::conditional(index, &comps, &shapes)?;
        let op = Op::Conditional {
            branches: branches.to_vec(),
        };
        let ids = std::iter::once(branch_index)
            .chain(operands.iter().copied())
            .map(|o| o.0)
            .collect();
        Ok(self.push(op, ids, out))
    }
}
