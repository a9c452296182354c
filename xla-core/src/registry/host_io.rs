//! Host I/O's surface: Infeed, Outfeed, Send, Recv, and their one route to
//! [`Builder::host_io`](crate::builder::Builder::host_io).

use super::{op, opt, req};
use super::{AttrKind as K, Form, OpKind, OpSpec, Typing};
use crate::builder::{Builder, XlaOp};
use crate::error::{Blame, Error, Result};
use crate::ir::HostIo;
use crate::registry::Applied;

/// Which host I/O op a spec builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostIoOp {
    /// `Infeed(token, shape = T, config = "...")`.
    Infeed,
    /// `Outfeed(operand, token, outfeed_config = "...")`.
    Outfeed,
    /// `Send(operands..., token, channel_id = N, is_host_transfer = b)`.
    Send,
    /// `Recv(token, shape = T, channel_id = N, is_host_transfer = b)`.
    Recv,
}

/// The host I/O specs.
pub(super) const HOST_IO: [OpSpec; 4] = [
    op(
        "Infeed",
        OpKind::HostIo(HostIoOp::Infeed),
        "stablehlo.infeed",
        Form::Operands(1),
        "(token)",
        &[req("shape", K::Shape), opt("config", K::Str)],
        Typing::Free,
    ),
    op(
        "Outfeed",
        OpKind::HostIo(HostIoOp::Outfeed),
        "stablehlo.outfeed",
        Form::Operands(2),
        "(operand, token)",
        &[opt("outfeed_config", K::Str)],
        Typing::Free,
    ),
    op(
        "Send",
        OpKind::HostIo(HostIoOp::Send),
        "stablehlo.send",
        Form::Variadic(1),
        "(operands..., token)",
        &[req("channel_id", K::Int), opt("is_host_transfer", K::Bool)],
        Typing::Free,
    ),
    op(
        "Recv",
        OpKind::HostIo(HostIoOp::Recv),
        "stablehlo.recv",
        Form::Operands(1),
        "(token)",
        &[
            req("shape", K::Shape),
            req("channel_id", K::Int),
            opt("is_host_transfer", K::Bool),
        ],
        Typing::Free,
    ),
];

/// Builds host I/O op `k` of application `a`.
pub(super) fn build(b: &mut Builder, k: HostIoOp, a: &Applied<'_>) -> Result<XlaOp> {
    let name = match k {
        HostIoOp::Infeed => "Infeed",
        HostIoOp::Outfeed => "Outfeed",
        HostIoOp::Send => "Send",
        HostIoOp::Recv => "Recv",
    };
    let channel = || {
        a.attrs.int("channel_id").ok_or_else(|| {
            Error::new(name, "missing attribute `channel_id = ...` (the channel)")
                .blame(Blame::Attribute("channel_id"))
        })
    };
    let host = a.attrs.bool("is_host_transfer").unwrap_or(false);
    let shape = a.attrs.shape("shape");
    let h = match k {
        HostIoOp::Infeed => HostIo::Infeed {
            config: a.attrs.str("config").unwrap_or_default(),
        },
        HostIoOp::Outfeed => HostIo::Outfeed {
            config: a.attrs.str("outfeed_config").unwrap_or_default(),
        },
        HostIoOp::Send => HostIo::Send {
            channel_id: channel()?,
            is_host_transfer: host,
        },
        HostIoOp::Recv => HostIo::Recv {
            channel_id: channel()?,
            is_host_transfer: host,
        },
    };
    b.host_io(h, a.operands, shape.as_ref())
}
