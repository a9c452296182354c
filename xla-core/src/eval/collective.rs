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
//! - RaggedAllToAll: the announced updates exchanged (`spmd::ops::ragged_all_to_all`); invalid
//!   offsets or sizes are an `Err` naming them on every member of the group.

use super::reduce::simple_reducer;
use super::{array, Ctx};
use crate::error::{Error, Result};
use crate::ir::{Collective, CollectiveKind, Computation};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::Scalar;
use crate::shape::ArrayShape;
use crate::shape::Shape;
use crate::spmd::groups::{self, my_group, permute_peers};
use crate::spmd::ops::{self, Around, Rows};
use crate::spmd::threads::ThreadRunner;
use crate::spmd::{CollectiveError, Collectives, DeviceId};
use crate::with_array_data;

/// Collective `c` on `operands`, on the context's device.
pub(super) fn collective(ctx: &Ctx<'_>, c: &Collective, operands: &[&Literal]) -> Result<Literal> {
    let Some(dev) = ctx.device else {
        return Err(ctx.err(
            "the program uses a collective, which needs the device it runs on: evaluate it \
             with eval::evaluate_on (or eval::run_replicas)",
        ));
    };
    let coll = |e: CollectiveError| ctx.err(e);
    let out_len =
        |ctx: &Ctx<'_>| -> Result<usize> { Ok(ctx.out_array()?.element_count() as usize) };
    let data = match &c.kind {
        CollectiveKind::ReplicaId => return Ok(Literal::scalar(dev.replica_id())),
        CollectiveKind::PartitionId => return Ok(Literal::scalar(dev.partition_id())),
        CollectiveKind::AllReduce { computation } => {
            let group = group(ctx, c, dev)?;
            let simple = simple_reducer(computation);
            return per_operand(ctx, operands, |_, data, _| {
                Ok(with_array_data!(data, v: T => {
                    let mut o = vec![T::default(); v.len()];
                    let mut f = |a: T, b: T| combine(ctx, computation, simple, a, b);
                    ops::all_reduce(dev, &group, v, &mut o, &mut f).map_err(coll)?;
                    T::wrap(o)
                }))
            });
        }
        CollectiveKind::AllGather { dimension, .. } => {
            let group = group(ctx, c, dev)?;
            expect_group_size(ctx, c, &group)?;
            return per_operand(ctx, operands, |shape, data, out| {
                let a = Around::of(&shape.dims, checked_dim(ctx, *dimension, shape)?);
                let n = out.element_count() as usize;
                Ok(with_array_data!(data, v: T => {
                    let mut o = vec![T::default(); n];
                    ops::all_gather(dev, &group, v, a, &mut o).map_err(coll)?;
                    T::wrap(o)
                }))
            });
        }
        CollectiveKind::AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
        } => {
            let group = group(ctx, c, dev)?;
            expect_group_size(ctx, c, &group)?;
            return per_operand(ctx, operands, |shape, data, out| {
                let s = checked_dim(ctx, *split_dimension, shape)?;
                let split = Around::of(&shape.dims, s);
                let mut part = shape.dims.clone();
                part[s] /= *split_count;
                let part = Around::of(&part, checked_dim(ctx, *concat_dimension, shape)?);
                let n = out.element_count() as usize;
                Ok(with_array_data!(data, v: T => {
                    let mut o = vec![T::default(); n];
                    ops::all_to_all(dev, &group, v, split, part, &mut o).map_err(coll)?;
                    T::wrap(o)
                }))
            });
        }
        CollectiveKind::ReduceScatter {
            dimension,
            computation,
            ..
        } => {
            let group = group(ctx, c, dev)?;
            expect_group_size(ctx, c, &group)?;
            let (shape, data) = one(ctx, operands)?;
            let a = Around::of(&shape.dims, checked_dim(ctx, *dimension, shape)?);
            let simple = simple_reducer(computation);
            let n = out_len(ctx)?;
            with_array_data!(data, v: T => {
                let mut o = vec![T::default(); n];
                let mut f = |a: T, b: T| combine(ctx, computation, simple, a, b);
                ops::reduce_scatter(dev, &group, v, a, &mut o, &mut f).map_err(coll)?;
                T::wrap(o)
            })
        }
        CollectiveKind::CollectivePermute {
            source_target_pairs,
        } => {
            let (_, data) = one(ctx, operands)?;
            let (from, to) = permute_peers(c, source_target_pairs, dev).map_err(coll)?;
            with_array_data!(data, v: T => {
                let mut o = vec![T::default(); v.len()];
                ops::collective_permute(dev, from, &to, v, &mut o).map_err(coll)?;
                T::wrap(o)
            })
        }
        CollectiveKind::CollectiveBroadcast => {
            let (_, data) = one(ctx, operands)?;
            let group = my_group(c, dev).map_err(coll)?;
            with_array_data!(data, v: T => {
                let mut o = vec![T::default(); v.len()];
                ops::collective_broadcast(dev, group.as_deref(), v, &mut o).map_err(coll)?;
                T::wrap(o)
            })
        }
        CollectiveKind::RaggedAllToAll => ragged_all_to_all(ctx, c, dev, operands)?,
    };
    Ok(Literal::Array {
        shape: ctx.out_array()?.clone(),
        data,
    })
}

/// RaggedAllToAll's result elements: `input, output, input_offsets, send_sizes,
/// output_offsets, recv_sizes`, rows along the outermost dimension.
fn ragged_all_to_all(
    ctx: &Ctx<'_>,
    c: &Collective,
    dev: &dyn Collectives,
    operands: &[&Literal],
) -> Result<ArrayData> {
    ctx.arity(operands, 6)?;
    let group = group(ctx, c, dev)?;
    let (input, x) = array(ctx, operands[0])?;
    let (output, y) = array(ctx, operands[1])?;
    let meta = operands[2..]
        .iter()
        .map(|o| Ok(array(ctx, o)?.1))
        .collect::<Result<Vec<&ArrayData>>>()?;
    let (Some(&n_in), Some(&n_out)) = (input.dims.first(), output.dims.first()) else {
        return Err(ctx.err(format!("rank-0 input {input} or output {output}")));
    };
    let count = |n: i64| usize::try_from(n).unwrap_or(0);
    let rows = Rows {
        input: count(n_in),
        output: count(n_out),
        row: count(output.dims[1..].iter().product::<i64>()),
    };
    let coll = |e: CollectiveError| ctx.err(e);
    /// The four offsets and sizes as `I` (all of one type: inference checks it).
    fn four<'a, I: ArrayElement>(m: &[&'a ArrayData]) -> Option<[&'a [I]; 4]> {
        Some([
            I::unwrap(m[0])?,
            I::unwrap(m[1])?,
            I::unwrap(m[2])?,
            I::unwrap(m[3])?,
        ])
    }
    let bad = || {
        ctx.err(format!(
            "the input {input}, output {output} and offsets ({}) are not of the inferred types",
            meta.iter()
                .map(|m| m.element_type().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    };
    Ok(with_array_data!(x, v: T => {
        let o = T::unwrap(y).ok_or_else(bad)?;
        let mut out = vec![T::default(); o.len()];
        if let Some(m) = four::<i32>(&meta) {
            ops::ragged_all_to_all(dev, &group, v, o, m, rows, &mut out).map_err(coll)?;
        } else if let Some(m) = four::<i64>(&meta) {
            ops::ragged_all_to_all(dev, &group, v, o, m, rows, &mut out).map_err(coll)?;
        } else {
            return Err(bad());
        }
        T::wrap(out)
    }))
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

/// `Err` unless this device's group has the size the op's result shapes were inferred for
/// ([`crate::infer::collective::expected_group_size`]).
fn expect_group_size(ctx: &Ctx<'_>, c: &Collective, group: &[DeviceId]) -> Result<()> {
    match crate::infer::collective::expected_group_size(c)? {
        Some((what, want)) => {
            groups::expect_group_size(c.kind.name(), what, group, want).map_err(|e| ctx.err(e))
        }
        None => Ok(()),
    }
}

/// The instruction's result arrays: its shape for one operand, its tuple's elements for `n`.
fn out_arrays<'a>(ctx: &'a Ctx<'_>, n: usize) -> Result<Vec<&'a ArrayShape>> {
    let shapes: Vec<&Shape> = match &ctx.instr.shape {
        Shape::Tuple(t) if n != 1 => t.iter().collect(),
        s => vec![s],
    };
    if shapes.len() != n {
        return Err(ctx.err(format!("{n} operands for the result {}", ctx.instr.shape)));
    }
    shapes
        .into_iter()
        .map(|s| {
            s.as_array()
                .ok_or_else(|| ctx.err(format!("expected an array result, got {s}")))
        })
        .collect()
}

/// Dimension `d` of `shape` as an index; `Err` outside its rank (a decoded IR that skipped
/// inference).
fn checked_dim(ctx: &Ctx<'_>, d: i64, shape: &ArrayShape) -> Result<usize> {
    usize::try_from(d)
        .ok()
        .filter(|&d| d < shape.rank())
        .ok_or_else(|| ctx.err(format!("dimension {d} of the operand {shape}")))
}

/// `f(operand shape, operand data, result shape)` for each operand in turn (the variadic
/// AllReduce, AllGather and AllToAll); one result as itself, several as a tuple.
fn per_operand(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    mut f: impl FnMut(&ArrayShape, &ArrayData, &ArrayShape) -> Result<ArrayData>,
) -> Result<Literal> {
    let outs = out_arrays(ctx, operands.len())?;
    let mut results = operands
        .iter()
        .zip(outs)
        .map(|(x, out)| {
            let (shape, data) = array(ctx, x)?;
            Ok(Literal::Array {
                shape: out.clone(),
                data: f(shape, data, out)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(match results.len() {
        1 => results.remove(0),
        _ => Literal::Tuple(results),
    })
}

fn one<'a>(ctx: &Ctx<'_>, operands: &[&'a Literal]) -> Result<(&'a ArrayShape, &'a ArrayData)> {
    ctx.arity(operands, 1)?;
    array(ctx, operands[0])
}

/// `computation(acc, x)`, its evaluation errors as the transport's (the op's fold runs
/// inside the exchange).
fn combine<T: Scalar>(
    ctx: &Ctx<'_>,
    computation: &Computation,
    simple: Option<(crate::ir::BinaryOp, bool)>,
    acc: T,
    x: T,
) -> std::result::Result<T, CollectiveError> {
    let e = |e: Error| CollectiveError::Transport(e.to_string());
    match simple {
        Some((op, false)) => Ok(T::binary(op, acc, x)),
        Some((op, true)) => Ok(T::binary(op, x, acc)),
        None => {
            let r = ctx
                .nested(computation, &[Literal::scalar(acc), Literal::scalar(x)])
                .map_err(e)?;
            r.as_slice::<T>()
                .filter(|s| s.len() == 1)
                .map(|s| s[0])
                .ok_or_else(|| e(ctx.err(format!("the computation returned {}", r.shape()))))
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
mod ragged_tests;
#[cfg(test)]
mod tests;
