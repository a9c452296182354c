//! `RngBitGenerator`, `RngUniform` and `RngNormal` on the builder.

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{Op, RandomAlgorithm, RngDistribution};
use crate::shape::Shape;

impl Builder {
    /// `RngBitGenerator(algorithm, initial_state, shape)`: the tuple `(new_state, bits)`.
    pub fn rng_bit_generator(
        &mut self,
        algorithm: RandomAlgorithm,
        initial_state: XlaOp,
        shape: &Shape,
    ) -> Result<XlaOp> {
        let [s] = self.shapes([initial_state])?;
        let out = infer::rng_bit_generator(algorithm, s, shape)?;
        Ok(self.push(
            Op::RngBitGenerator { algorithm },
            vec![initial_state.0],
            out,
        ))
    }

    /// `RngUniform(a, b, shape)` or `RngNormal(mu, sigma, shape)`; the stream's key is the
    /// number of Rng ops built before it in this computation: a fixed stream per call site,
    /// kept by a StableHLO round trip (which adds other instructions, not Rng ops).
    pub fn rng(
        &mut self,
        distribution: RngDistribution,
        p0: XlaOp,
        p1: XlaOp,
        shape: &Shape,
    ) -> Result<XlaOp> {
        let [a, b] = self.shapes([p0, p1])?;
        let out = infer::rng(distribution, a, b, shape)?;
        let seed = self
            .instrs
            .iter()
            .filter(|i| matches!(i.op, Op::Rng { .. }))
            .count() as u64;
        Ok(self.push(
            Op::Rng { distribution, seed },
            vec![p0.0, p1.0],
            Shape::Array(out),
        ))
    }
}
