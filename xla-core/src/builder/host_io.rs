//! Host I/O on the builder: Infeed, Outfeed, Send, Recv (see [`infer::host_io`] for the
//! rules). Each takes a token and returns one (Infeed and Recv: `(T, token)`).

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{HostIo, Op};
use crate::shape::Shape;

impl Builder {
    /// Host I/O op `h` on `operands` (the token last); `shape` is the data type `T` Infeed and
    /// Recv read.
    pub fn host_io(
        &mut self,
        h: HostIo,
        operands: &[XlaOp],
        shape: Option<&Shape>,
    ) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::host_io(&h, &shapes, shape)?;
        Ok(self.push(Op::HostIo(h), operands.iter().map(|o| o.0).collect(), out))
    }

    /// `Infeed(token, shape = T, config)`: `(T, token)`.
    pub fn infeed(&mut self, token: XlaOp, shape: &Shape, config: &str) -> Result<XlaOp> {
        let h = HostIo::Infeed {
            config: config.to_string(),
        };
        self.host_io(h, &[token], Some(shape))
    }

    /// `Outfeed(operand, token, outfeed_config)`: a token.
    pub fn outfeed(&mut self, operand: XlaOp, token: XlaOp, config: &str) -> Result<XlaOp> {
        let h = HostIo::Outfeed {
            config: config.to_string(),
        };
        self.host_io(h, &[operand, token], None)
    }

    /// `Send(operands..., token, channel_id, is_host_transfer)`: a token.
    pub fn send(
        &mut self,
        operands: &[XlaOp],
        token: XlaOp,
        channel_id: i64,
        is_host_transfer: bool,
    ) -> Result<XlaOp> {
        let h = HostIo::Send {
            channel_id,
            is_host_transfer,
        };
        let all: Vec<XlaOp> = operands.iter().copied().chain([token]).collect();
        self.host_io(h, &all, None)
    }

    /// `Recv(token, shape = T, channel_id, is_host_transfer)`: `(T, token)`.
    pub fn recv(
        &mut self,
        token: XlaOp,
        shape: &Shape,
        channel_id: i64,
        is_host_transfer: bool,
    ) -> Result<XlaOp> {
        let h = HostIo::Recv {
            channel_id,
            is_host_transfer,
        };
        self.host_io(h, &[token], Some(shape))
    }
}
