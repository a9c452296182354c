//! The collectives' surface: their specs and their one route to
//! [`Builder::collective`](crate::builder::Builder::collective).

use super::{op, opt, req};
use super::{AttrKind as K, AttrSpec, Form, OpKind, OpSpec, Typing};
use crate::builder::{Builder, XlaOp};
use crate::error::{Blame, Error, Result};
use crate::ir::{BinaryOp, Collective, CollectiveKind};
use crate::registry::Applied;
use crate::shape::Shape;
use std::sync::Arc;

/// Which collective a spec builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectiveOp {
    /// `ReplicaId()`.
    ReplicaId,
    /// `PartitionId()`.
    PartitionId,
    /// `AllReduce(operands..., computation)`.
    AllReduce,
    /// `CrossReplicaSum(operands...)`: AllReduce with `+`.
    CrossReplicaSum,
    /// `AllGather(operands..., all_gather_dim = d, shard_count = n)`.
    AllGather,
    /// `AllToAll(operands..., split_dimension, concat_dimension, split_count)`.
    AllToAll,
    /// `ReduceScatter(operand, computation, scatter_dimension = d, shard_count = n)`.
    ReduceScatter,
    /// `CollectivePermute(operand, source_target_pairs = [[s, t], ...])`.
    CollectivePermute,
    /// `CollectiveBroadcast(operand)`.
    CollectiveBroadcast,
    /// `RaggedAllToAll(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)`.
    RaggedAllToAll,
}

const GROUPS: [AttrSpec; 3] = [
    opt("replica_groups", K::Groups),
    opt("channel_id", K::Int),
    opt("use_global_device_ids", K::Bool),
];
const CHANNEL: [AttrSpec; 1] = [opt("channel_id", K::Int)];
const GROUPS_CHANNEL: [AttrSpec; 2] = [opt("replica_groups", K::Groups), opt("channel_id", K::Int)];
const GATHER: [AttrSpec; 5] = [
    req("all_gather_dim", K::Int),
    opt("shard_count", K::Int),
    GROUPS[0],
    GROUPS[1],
    GROUPS[2],
];
const SCATTER: [AttrSpec; 5] = [
    req("scatter_dimension", K::Int),
    opt("shard_count", K::Int),
    GROUPS[0],
    GROUPS[1],
    GROUPS[2],
];
const ALL_TO_ALL: [AttrSpec; 5] = [
    req("split_dimension", K::Int),
    req("concat_dimension", K::Int),
    req("split_count", K::Int),
    GROUPS[0],
    GROUPS[1],
];
const PERMUTE: [AttrSpec; 2] = [req("source_target_pairs", K::Pairs), CHANNEL[0]];

const fn c(
    name: &'static str,
    k: CollectiveOp,
    stablehlo: &'static str,
    form: Form,
    signature: &'static str,
    attrs: &'static [AttrSpec],
) -> OpSpec {
    op(
        name,
        OpKind::Collective(k),
        stablehlo,
        form,
        signature,
        attrs,
        Typing::Free,
    )
}

/// The collectives' specs.
pub(super) const COLLECTIVE: [OpSpec; 10] = [
    c(
        "ReplicaId",
        CollectiveOp::ReplicaId,
        "stablehlo.replica_id",
        Form::Operands(0),
        "()",
        &[],
    ),
    c(
        "PartitionId",
        CollectiveOp::PartitionId,
        "stablehlo.partition_id",
        Form::Operands(0),
        "()",
        &[],
    ),
    c(
        "AllReduce",
        CollectiveOp::AllReduce,
        "stablehlo.all_reduce",
        Form::Map,
        "(operands..., computation)",
        &GROUPS,
    ),
    c(
        "CrossReplicaSum",
        CollectiveOp::CrossReplicaSum,
        "stablehlo.all_reduce",
        Form::Variadic(1),
        "(operands...)",
        &GROUPS,
    ),
    c(
        "AllGather",
        CollectiveOp::AllGather,
        "stablehlo.all_gather",
        Form::Variadic(1),
        "(operands...)",
        &GATHER,
    ),
    c(
        "AllToAll",
        CollectiveOp::AllToAll,
        "stablehlo.all_to_all",
        Form::Variadic(1),
        "(operands...)",
        &ALL_TO_ALL,
    ),
    c(
        "ReduceScatter",
        CollectiveOp::ReduceScatter,
        "stablehlo.reduce_scatter",
        Form::Map,
        "(operand, computation)",
        &SCATTER,
    ),
    c(
        "CollectivePermute",
        CollectiveOp::CollectivePermute,
        "stablehlo.collective_permute",
        Form::Operands(1),
        "(operand)",
        &PERMUTE,
    ),
    c(
        "CollectiveBroadcast",
        CollectiveOp::CollectiveBroadcast,
        "stablehlo.collective_broadcast",
        Form::Operands(1),
        "(operand)",
        &GROUPS_CHANNEL,
    ),
    // StableHLO has no ragged all-to-all: JAX writes it as `stablehlo.custom_call
    // @ragged_all_to_all` (the exporter too; the importer maps that target here).
    c(
        "RaggedAllToAll",
        CollectiveOp::RaggedAllToAll,
        "stablehlo.custom_call",
        Form::Operands(6),
        "(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)",
        &GROUPS_CHANNEL,
    ),
];

/// The parameters of AllReduce's and ReduceScatter's computation: two scalars of the first
/// operand's type.
pub(super) fn computation_params(k: CollectiveOp, operands: &[&Shape]) -> Vec<Vec<Shape>> {
    match k {
        CollectiveOp::AllReduce | CollectiveOp::ReduceScatter => {
            let t: Vec<Shape> = operands
                .iter()
                .take(1)
                .map(|s| {
                    s.as_array()
                        .map_or_else(|| (*s).clone(), |a| Shape::scalar(a.ty))
                })
                .collect();
            vec![t.iter().chain(&t).cloned().collect()]
        }
        CollectiveOp::ReplicaId
        | CollectiveOp::PartitionId
        | CollectiveOp::CrossReplicaSum
        | CollectiveOp::AllGather
        | CollectiveOp::AllToAll
        | CollectiveOp::CollectivePermute
        | CollectiveOp::CollectiveBroadcast
        | CollectiveOp::RaggedAllToAll => Vec::new(),
    }
}

/// Builds collective `k` of application `a`.
pub(super) fn build(
    b: &mut Builder,
    name: &str,
    k: CollectiveOp,
    a: &Applied<'_>,
) -> Result<XlaOp> {
    let int = |attr: &'static str| {
        a.attrs.int(attr).ok_or_else(|| {
            Error::new(name, format!("missing attribute `{attr} = ...`"))
                .blame(Blame::Attribute(attr))
        })
    };
    let comp = || {
        a.computations
            .first()
            .cloned()
            .ok_or_else(|| Error::new(name, "missing computation").blame(Blame::Op))
    };
    let kind = match k {
        CollectiveOp::ReplicaId => CollectiveKind::ReplicaId,
        CollectiveOp::PartitionId => CollectiveKind::PartitionId,
        CollectiveOp::AllReduce => CollectiveKind::AllReduce {
            computation: comp()?,
        },
        CollectiveOp::CrossReplicaSum => CollectiveKind::AllReduce {
            computation: add_computation(b, a.operands.first().copied())?,
        },
        CollectiveOp::AllGather => CollectiveKind::AllGather {
            dimension: int("all_gather_dim")?,
            shard_count: a.attrs.int("shard_count"),
        },
        CollectiveOp::AllToAll => CollectiveKind::AllToAll {
            split_dimension: int("split_dimension")?,
            concat_dimension: int("concat_dimension")?,
            split_count: int("split_count")?,
        },
        CollectiveOp::ReduceScatter => CollectiveKind::ReduceScatter {
            dimension: int("scatter_dimension")?,
            computation: comp()?,
            shard_count: a.attrs.int("shard_count"),
        },
        CollectiveOp::CollectivePermute => CollectiveKind::CollectivePermute {
            source_target_pairs: a.attrs.pairs("source_target_pairs").unwrap_or_default(),
        },
        CollectiveOp::CollectiveBroadcast => CollectiveKind::CollectiveBroadcast,
        CollectiveOp::RaggedAllToAll => CollectiveKind::RaggedAllToAll,
    };
    let c = Collective {
        kind,
        replica_groups: a.attrs.groups("replica_groups").unwrap_or_default(),
        channel_id: a.attrs.int("channel_id"),
        use_global_device_ids: a.attrs.bool("use_global_device_ids").unwrap_or(false),
    };
    // Errors name the op as written (CrossReplicaSum builds an AllReduce).
    b.collective(c, a.operands).map_err(|mut e| {
        e.op = name.to_string();
        e
    })
}

/// `|a, b| a + b` over the element type of `operand` (CrossReplicaSum's reducer).
fn add_computation(b: &Builder, operand: Option<XlaOp>) -> Result<Arc<crate::ir::Computation>> {
    let shape = operand
        .map(|o| b.try_shape(o).cloned())
        .transpose()?
        .ok_or_else(|| Error::new("CrossReplicaSum", "needs at least one operand"))?;
    let ty =
        crate::infer::expect_array("CrossReplicaSum", "each operand", &shape, Blame::Operand(0))?
            .ty;
    let mut s = Builder::new("sum");
    let x = s.parameter(0, Shape::scalar(ty), "a")?;
    let y = s.parameter(1, Shape::scalar(ty), "b")?;
    let r = s.binary(BinaryOp::Add, x, y, None)?;
    Ok(Arc::new(s.build(r)?))
}
