//! Collectives evaluated as one device of an SPMD run: every op is byte exchanges through the
//! device's [`Collectives`] then local work in a fixed order, so every device (and every
//! transport) computes the same bits.
//!
//! - AllReduce: the elements (flat, padded) cut into one chunk per group member; an
//!   all-to-all gives member `j` chunk `j` of everyone, which it reduces in group order
//!   (`acc = x@g0; acc = f(acc, x@gi)` for `i = 1, 2, ...`); an all-gather of the reduced chunks.
//! - ReduceScatter: the same with the operand's blocks along `scatter_dimension`, no gather.
//! - AllGather, AllToAll: the group's blocks concatenated along a dimension.
//! - CollectivePermute, CollectiveBroadcast: point-to-point sends; no sender: zeros.

use super::reduce::simple_reducer;
use super::{array, Ctx};
use crate::codec::{data_bytes, data_from_bytes};
use crate::error::{Error, Result};
use crate::ir::{Collective, CollectiveKind, Computation};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::Scalar;
use crate::shape::ArrayShape;
use crate::spmd::groups::{my_group, permute_peers};
use crate::spmd::threads::ThreadRunner;
use crate::spmd::{CollectiveError, Collectives, DeviceId};

/// Collective `c` on `operands`, on the context's device.
pub(super) fn collective(ctx: &Ctx<'_>, c: &Collective, operands: &[&Literal]) -> Result<Literal> {
    let Some(dev) = ctx.device else {
        return Err(ctx.err(
            "the program uses a collective, which needs the device it runs on: evaluate it \
             with eval::evaluate_on (or eval::run_replicas)",
        ));
    };
    let coll = |e: CollectiveError| ctx.err(e);
    match &c.kind {
        CollectiveKind::ReplicaId => Ok(Literal::scalar(dev.replica_id())),
        CollectiveKind::PartitionId => Ok(Literal::scalar(dev.partition_id())),
        CollectiveKind::AllReduce { computation } => {
            let group = group(ctx, c, dev)?;
            let mut out = Vec::with_capacity(operands.len());
            for x in operands {
                let (shape, data) = array(ctx, x)?;
                let r = all_reduce(ctx, dev, &group, data, computation)?;
                out.push(Literal::Array {
                    shape: shape.clone(),
                    data: r,
                });
            }
            Ok(if out.len() == 1 {
                out.pop().unwrap_or(Literal::Token)
            } else {
                Literal::Tuple(out)
            })
        }
        CollectiveKind::AllGather { dimension } => {
            let group = group(ctx, c, dev)?;
            let (shape, data) = one(ctx, operands)?;
            let bytes = data_bytes(data);
            let mut recv = vec![0; bytes.len() * group.len()];
            dev.all_gather(&group, &bytes, &mut recv).map_err(coll)?;
            let blocks: Vec<&[u8]> = recv.chunks(bytes.len().max(1)).take(group.len()).collect();
            let blocks = if bytes.is_empty() {
                vec![&recv[..]; group.len()]
            } else {
                blocks
            };
            let out = concat(
                &blocks,
                &shape.dims,
                shape.ty.byte_width(),
                *dimension as usize,
            );
            finish(ctx, &out)
        }
        CollectiveKind::AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
        } => {
            let group = group(ctx, c, dev)?;
            if group.len() as i64 != *split_count {
                return Err(ctx.err(format!(
                    "split_count = {split_count} but the group has {} devices ({group:?})",
                    group.len()
                )));
            }
            let (shape, data) = one(ctx, operands)?;
            let w = shape.ty.byte_width();
            let g = group.len();
            let send = split(
                &data_bytes(data),
                &shape.dims,
                w,
                *split_dimension as usize,
                g,
            )
            .concat();
            let mut recv = vec![0; send.len()];
            dev.all_to_all(&group, &send, &mut recv).map_err(coll)?;
            let mut part = shape.dims.clone();
            part[*split_dimension as usize] /= *split_count;
            let n = send.len() / g;
            let blocks: Vec<&[u8]> = (0..g).map(|i| &recv[i * n..(i + 1) * n]).collect();
            finish(ctx, &concat(&blocks, &part, w, *concat_dimension as usize))
        }
        CollectiveKind::ReduceScatter {
            dimension,
            computation,
        } => {
            let group = group(ctx, c, dev)?;
            let (shape, data) = one(ctx, operands)?;
            let w = shape.ty.byte_width();
            let blocks = split(
                &data_bytes(data),
                &shape.dims,
                w,
                *dimension as usize,
                group.len(),
            );
            let mine = reduce_scatter(ctx, dev, &group, &blocks.concat(), shape, computation)?;
            Ok(Literal::Array {
                shape: ctx.out_array()?.clone(),
                data: mine,
            })
        }
        CollectiveKind::CollectivePermute {
            source_target_pairs,
        } => {
            let (shape, data) = one(ctx, operands)?;
            let bytes = data_bytes(data);
            let (from, to) = permute_peers(c, source_target_pairs, dev).map_err(coll)?;
            let me = dev.device_id();
            for &t in to.iter().filter(|&&t| t != me) {
                dev.send(t, &bytes).map_err(coll)?;
            }
            match from {
                None => Ok(Literal::zeros(shape)),
                Some(f) if f == me => Ok(operands[0].clone()),
                Some(f) => {
                    let mut buf = vec![0; bytes.len()];
                    dev.recv(f, &mut buf).map_err(coll)?;
                    finish(ctx, &buf)
                }
            }
        }
        CollectiveKind::CollectiveBroadcast => {
            let (shape, data) = one(ctx, operands)?;
            let Some(group) = my_group(c, dev).map_err(coll)? else {
                return Ok(Literal::zeros(shape));
            };
            let me = dev.device_id();
            if group[0] == me {
                let bytes = data_bytes(data);
                for &d in &group[1..] {
                    dev.send(d, &bytes).map_err(coll)?;
                }
                return Ok(operands[0].clone());
            }
            let mut buf = vec![0; data_bytes(data).len()];
            dev.recv(group[0], &mut buf).map_err(coll)?;
            finish(ctx, &buf)
        }
    }
}

/// This device's group; a device in none is an `Err` (only CollectiveBroadcast allows it).
fn group(ctx: &Ctx<'_>, c: &Collective, dev: &dyn Collectives) -> Result<Vec<DeviceId>> {
    my_group(c, dev).map_err(|e| ctx.err(e))?.ok_or_else(|| {
        ctx.err(format!(
            "device {} (replica {}, partition {}) is in none of replica_groups {:?}",
            dev.device_id(),
            dev.replica_id(),
            dev.partition_id(),
            c.replica_groups
        ))
    })
}

fn one<'a>(ctx: &Ctx<'_>, operands: &[&'a Literal]) -> Result<(&'a ArrayShape, &'a ArrayData)> {
    ctx.arity(operands, 1)?;
    array(ctx, operands[0])
}

/// The instruction's array from row-major element bytes.
fn finish(ctx: &Ctx<'_>, bytes: &[u8]) -> Result<Literal> {
    let shape = ctx.out_array()?.clone();
    let n = shape.element_count() as usize;
    let data = data_from_bytes(shape.ty, n, bytes).map_err(|e| ctx.err(e.message))?;
    Ok(Literal::Array { shape, data })
}

/// `(outer, extent of d, inner)` element counts of `dims` around dimension `d`.
fn around(dims: &[i64], d: usize) -> (usize, usize, usize) {
    let p = |s: &[i64]| s.iter().product::<i64>() as usize;
    (p(&dims[..d]), dims[d] as usize, p(&dims[d + 1..]))
}

/// `g` equal blocks of an array (`dims`, `w` bytes per element) along dimension `d`.
fn split(bytes: &[u8], dims: &[i64], w: usize, d: usize, g: usize) -> Vec<Vec<u8>> {
    let (outer, extent, inner) = around(dims, d);
    let row = extent / g * inner * w;
    (0..g)
        .map(|j| {
            (0..outer)
                .flat_map(|o| &bytes[o * extent * inner * w + j * row..][..row])
                .copied()
                .collect()
        })
        .collect()
}

/// Blocks of dims `part` concatenated along dimension `d`, in order.
fn concat(blocks: &[&[u8]], part: &[i64], w: usize, d: usize) -> Vec<u8> {
    let (outer, extent, inner) = around(part, d);
    let row = extent * inner * w;
    let mut out = Vec::with_capacity(row * outer * blocks.len());
    for o in 0..outer {
        for b in blocks {
            out.extend_from_slice(&b[o * row..(o + 1) * row]);
        }
    }
    out
}

/// AllReduce of one operand: reduce-scatter of padded flat chunks, then all-gather.
fn all_reduce(
    ctx: &Ctx<'_>,
    dev: &dyn Collectives,
    group: &[DeviceId],
    data: &ArrayData,
    computation: &Computation,
) -> Result<ArrayData> {
    let g = group.len();
    let n = data.len();
    let chunk = n.div_ceil(g);
    let ty = data.element_type();
    let mut bytes = data_bytes(data);
    bytes.resize(chunk * g * ty.byte_width(), 0);
    let flat = ArrayShape::new(ty, &[(chunk * g) as i64]);
    let mine = reduce_scatter(ctx, dev, group, &bytes, &flat, computation)?;
    let mine = data_bytes(&mine);
    let mut all = vec![0; mine.len() * g];
    dev.all_gather(group, &mine, &mut all)
        .map_err(|e| ctx.err(e))?;
    all.truncate(n * ty.byte_width());
    data_from_bytes(ty, n, &all).map_err(|e| ctx.err(e.message))
}

/// `send` is `g` equal blocks, block `j` for group member `j`; returns this member's block
/// reduced over the group in group order.
fn reduce_scatter(
    ctx: &Ctx<'_>,
    dev: &dyn Collectives,
    group: &[DeviceId],
    send: &[u8],
    shape: &ArrayShape,
    computation: &Computation,
) -> Result<ArrayData> {
    let g = group.len();
    let mut recv = vec![0; send.len()];
    dev.all_to_all(group, send, &mut recv)
        .map_err(|e| ctx.err(e))?;
    let w = shape.ty.byte_width();
    let n = send.len() / g / w;
    let parts = recv
        .chunks(n * w)
        .take(g)
        .map(|b| data_from_bytes(shape.ty, n, b))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| ctx.err(e.message))?;
    if n == 0 {
        return Ok(ArrayData::zeros(shape.ty, 0));
    }
    fold(ctx, &parts, computation)
}

/// `acc = parts[0]; acc = f(acc, parts[i])` for `i = 1..`, elementwise.
fn fold(ctx: &Ctx<'_>, parts: &[ArrayData], computation: &Computation) -> Result<ArrayData> {
    let simple = simple_reducer(computation);
    crate::with_array_data!(&parts[0], first: T => {
        let mut acc: Vec<T> = first.clone();
        for p in &parts[1..] {
            let xs = T::unwrap(p).ok_or_else(|| ctx.err("parts of different types"))?;
            for (a, &x) in acc.iter_mut().zip(xs) {
                *a = apply::<T>(ctx, computation, simple, *a, x)?;
            }
        }
        Ok(T::wrap(acc))
    })
}

fn apply<T: Scalar>(
    ctx: &Ctx<'_>,
    computation: &Computation,
    simple: Option<(crate::ir::BinaryOp, bool)>,
    acc: T,
    x: T,
) -> Result<T> {
    match simple {
        Some((op, false)) => Ok(T::binary(op, acc, x)),
        Some((op, true)) => Ok(T::binary(op, x, acc)),
        None => {
            let r = ctx.nested(computation, &[Literal::scalar(acc), Literal::scalar(x)])?;
            r.as_slice::<T>()
                .filter(|s| s.len() == 1)
                .map(|s| s[0])
                .ok_or_else(|| ctx.err(format!("the computation returned {}", r.shape())))
        }
    }
}

/// Runs `computation` on `num_replicas x num_partitions` devices as threads
/// ([`ThreadRunner`], default time-out), device `d` on `args[d]` (`d = replica *
/// num_partitions + partition`); results in device order.
pub fn run_replicas(
    computation: &Computation,
    args: &[Vec<Literal>],
    num_replicas: u32,
    num_partitions: u32,
) -> Vec<Result<Literal>> {
    let n = (num_replicas * num_partitions) as usize;
    if args.len() != n {
        let e = Error::new(
            "run_replicas",
            format!("{} argument lists for {n} devices", args.len()),
        );
        return vec![Err(e)];
    }
    ThreadRunner::new(num_replicas, num_partitions)
        .run(|dev| {
            super::evaluate_on(computation, &args[dev.device_id() as usize], dev)
                .map_err(|e| CollectiveError::Transport(e.to_string()))
        })
        .into_iter()
        .map(|r| r.map_err(|e| Error::new("run_replicas", e.to_string())))
        .collect()
}

#[cfg(test)]
mod tests;
