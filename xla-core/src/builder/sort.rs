//! `Sort` and `TopK` on the builder.

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{Computation, Op};

impl Builder {
    /// Variadic `Sort(operands..., comparator, dimension, is_stable)`: the operands permuted
    /// together along `dimension` (-1: the last) so that `comparator(a..., b...)` holds when `a`
    /// comes before `b`; one array for one operand, a tuple otherwise. The IR stores the
    /// non-negative dimension.
    pub fn sort(
        &mut self,
        operands: &[XlaOp],
        comparator: &Arc<Computation>,
        dimension: i64,
        is_stable: bool,
    ) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::sort(&shapes, dimension, comparator)?;
        let dimension = infer::sort_dimension(&shapes, dimension)?;
        let op = Op::Sort {
            dimension,
            is_stable,
            comparator: Arc::clone(comparator),
        };
        Ok(self.push(op, operands.iter().map(|o| o.0).collect(), out))
    }

    /// `TopK(operand, k, largest)`: the tuple `(values, indices)` of the `k` largest (or
    /// smallest) elements along the last dimension, in order, ties by lower index first.
    pub fn top_k(&mut self, operand: XlaOp, k: i64, largest: bool) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::top_k(s, k, largest)?;
        Ok(self.push(Op::TopK { k, largest }, vec![operand.0], out))
    }
}
