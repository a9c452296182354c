//! `Fft` on the builder.

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{FftType, Op};

impl Builder {
    /// `Fft(operand, fft_type, fft_length)`: the transform over the `fft_length.len()`
    /// innermost axes (see [`infer::fft`] for the shapes).
    pub fn fft(&mut self, operand: XlaOp, fft_type: FftType, fft_length: &[i64]) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::fft(s, fft_type, fft_length)?;
        let op = Op::Fft {
            fft_type,
            fft_length: fft_length.to_vec(),
        };
        Ok(self.push(op, vec![operand.0], out))
    }
}
