//! `ReduceWindow` and `SelectAndScatter` on the builder.

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer::{self, WindowSpec};
use crate::ir::{Computation, Op};

impl Builder {
    /// Variadic `ReduceWindow(operands..., init_values..., computation, window)`:
    /// `out[o] = computation(init, operand[w] for every w in window o)`, padding and dilation
    /// holes contributing nothing; one array for one operand, else a tuple.
    pub fn reduce_window(
        &mut self,
        operands: &[XlaOp],
        init_values: &[XlaOp],
        computation: &Arc<Computation>,
        window: &WindowSpec,
    ) -> Result<XlaOp> {
        let (a, i) = (self.shape_list(operands)?, self.shape_list(init_values)?);
        let (out, window) = infer::reduce_window(&a, &i, computation, window)?;
        let ids = operands.iter().chain(init_values).map(|o| o.0).collect();
        let op = Op::ReduceWindow {
            window,
            computation: Arc::clone(computation),
        };
        Ok(self.push(op, ids, out))
    }

    /// `SelectAndScatter(operand, select, window, source, init_value, scatter)`: the output
    /// (operand's shape) starts at `init_value`; each window position `o` keeps one element
    /// `k` by `select` (the first tap, replaced by a later tap `t` when `!select(k, t)`) and
    /// sets `out[k] = scatter(out[k], source[o])`.
    pub fn select_and_scatter(
        &mut self,
        operand: XlaOp,
        select: &Arc<Computation>,
        window: &WindowSpec,
        source: XlaOp,
        init_value: XlaOp,
        scatter: &Arc<Computation>,
    ) -> Result<XlaOp> {
        let [x, s, i] = self.shapes([operand, source, init_value])?;
        let (out, window) = infer::select_and_scatter(x, select, window, s, i, scatter)?;
        let op = Op::SelectAndScatter {
            window,
            select: Arc::clone(select),
            scatter: Arc::clone(scatter),
        };
        Ok(self.push(op, vec![operand.0, source.0, init_value.0], out))
    }
}
