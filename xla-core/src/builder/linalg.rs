//! `Cholesky` and `TriangularSolve` on the builder.

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{Op, TransposeA};

impl Builder {
    /// `Cholesky(a, lower)`: per matrix, `l` with `a = l l^H` (`lower`) or `u` with `a = u^H u`.
    pub fn cholesky(&mut self, a: XlaOp, lower: bool) -> Result<XlaOp> {
        let [s] = self.shapes([a])?;
        let out = infer::cholesky(s, lower)?;
        Ok(self.push(Op::Cholesky { lower }, vec![a.0], out))
    }

    /// `TriangularSolve(a, b, ..)`: per matrix, `x` with `op(a) x = b` (`left_side`) or
    /// `x op(a) = b`, `a` lower (or upper) triangular.
    pub fn triangular_solve(
        &mut self,
        a: XlaOp,
        b: XlaOp,
        left_side: bool,
        lower: bool,
        unit_diagonal: bool,
        transpose_a: TransposeA,
    ) -> Result<XlaOp> {
        let [sa, sb] = self.shapes([a, b])?;
        let out = infer::triangular_solve(sa, sb, left_side, lower, unit_diagonal, transpose_a)?;
        let op = Op::TriangularSolve {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        };
        Ok(self.push(op, vec![a.0, b.0], out))
    }
}
