//! `ReduceWindow` on the builder.

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer::{self, WindowSpec};
use crate::ir::{Computation, Op};
use crate::shape::Shape;

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
        let shapes = |ops: &[XlaOp]| -> Result<Vec<&Shape>> {
            ops.iter().map(|&o| self.try_shape(o)).collect()
        };
        let (a, i) = (shapes(operands)?, shapes(init_values)?);
        let (out, window) = infer::reduce_window(&a, &i, computation, window)?;
        let ids = operands.iter().chain(init_values).map(|o| o.0).collect();
        let op = Op::ReduceWindow {
            window,
            computation: Arc::clone(computation),
        };
        Ok(self.push(op, ids, out))
    }
}
