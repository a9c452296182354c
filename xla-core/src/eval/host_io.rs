//! Host I/O evaluated on the device of an SPMD run: Infeed, Outfeed, Send and Recv move each
//! array as its wire bytes through the device's [`Collectives`](crate::spmd::Collectives)
//! (the thread runner's [`HostQueues`](crate::spmd::host::HostQueues)). The evaluator runs
//! instructions in order, so the effects happen in program order.

use super::Ctx;
use crate::error::Result;
use crate::ir::HostIo;
use crate::literal::Literal;
use crate::shape::Shape;
use crate::spmd::host::{array_from_bytes, literal_bytes};

/// Host I/O op `h` on `operands` (the token last), on the context's device.
pub(super) fn host_io(ctx: &Ctx<'_>, h: &HostIo, operands: &[&Literal]) -> Result<Literal> {
    let Some(dev) = ctx.device else {
        return Err(ctx.err(
            "host I/O needs the device it runs on and its host queues: evaluate it with \
             eval::evaluate_on on a run with HostQueues (spmd::threads::ThreadRunner::run_host)",
        ));
    };
    let data = operands.split_last().map_or(&[][..], |(_, d)| d);
    match h {
        HostIo::Infeed { config } => {
            let t = data_shape(ctx)?;
            let v = read(ctx, t, &mut |ty, dims, buf| {
                dev.infeed(config, ty, dims, buf)
            })?;
            Ok(Literal::Tuple(vec![v, Literal::Token]))
        }
        HostIo::Recv { channel_id, .. } => {
            let t = data_shape(ctx)?;
            let v = read(ctx, t, &mut |_, _, buf| dev.host_recv(*channel_id, buf))?;
            Ok(Literal::Tuple(vec![v, Literal::Token]))
        }
        HostIo::Outfeed { config } => {
            for x in data {
                each_array(x, &mut |ty, dims, b| {
                    dev.outfeed(config, ty, dims, b).map_err(|e| ctx.err(e))
                })?;
            }
            Ok(Literal::Token)
        }
        HostIo::Send { channel_id, .. } => {
            for x in data {
                each_array(x, &mut |_, _, b| {
                    dev.host_send(*channel_id, b).map_err(|e| ctx.err(e))
                })?;
            }
            Ok(Literal::Token)
        }
    }
}

type Io<'a> = dyn FnMut(
        crate::ElementType,
        &[i64],
        &mut [u8],
    ) -> std::result::Result<(), crate::spmd::CollectiveError>
    + 'a;

/// Takes one array's type, dims and wire bytes.
type Put<'a> = dyn FnMut(crate::ElementType, &[i64], &[u8]) -> Result<()> + 'a;

/// `T` of the instruction's `(T, token)`.
fn data_shape<'c>(ctx: &'c Ctx<'_>) -> Result<&'c Shape> {
    match &ctx.instr.shape {
        Shape::Tuple(ts) if ts.len() == 2 => Ok(&ts[0]),
        s => Err(ctx.err(format!("expected a (T, token) result, got {s}"))),
    }
}

/// A value of `t` read one array at a time by `io`.
fn read(ctx: &Ctx<'_>, t: &Shape, io: &mut Io<'_>) -> Result<Literal> {
    match t {
        Shape::Array(a) => {
            let n = a.element_count() as usize * a.ty.byte_width();
            let mut buf = vec![0u8; n];
            io(a.ty, &a.dims, &mut buf).map_err(|e| ctx.err(e))?;
            array_from_bytes(a, &buf).ok_or_else(|| ctx.err(format!("{n} bytes do not make a {t}")))
        }
        Shape::Tuple(ts) => Ok(Literal::Tuple(
            ts.iter().map(|e| read(ctx, e, io)).collect::<Result<_>>()?,
        )),
        Shape::Token => Ok(Literal::Token),
    }
}

/// Calls `f` on each array of `x` with its wire bytes, in order.
fn each_array(x: &Literal, f: &mut Put<'_>) -> Result<()> {
    let shapes = {
        let mut v = Vec::new();
        leaves(&x.shape(), &mut v);
        v
    };
    for (a, b) in shapes.iter().zip(literal_bytes(x)) {
        f(a.ty, &a.dims, &b)?;
    }
    Ok(())
}

fn leaves(s: &Shape, out: &mut Vec<crate::shape::ArrayShape>) {
    match s {
        Shape::Array(a) => out.push(a.clone()),
        Shape::Tuple(ts) => ts.iter().for_each(|t| leaves(t, out)),
        Shape::Token => {}
    }
}
