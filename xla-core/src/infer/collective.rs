//! Collectives: ReplicaId, PartitionId, AllReduce, AllGather, AllToAll, ReduceScatter,
//! CollectivePermute, CollectiveBroadcast (StableHLO's constraints and XLA's
//! `ShapeInference::Infer*Shape`; the HLO verifier's `CheckReplicaGroups`), RaggedAllToAll
//! (`collective/ragged.rs`).
//!
//! The program does not know how many devices run it, so the rules here are the ones a
//! program alone decides: replica groups name ids `0..n` once each, in groups of one size
//! (StableHLO writes them as a 2-D tensor); the shapes of AllGather (`d * g`),
//! ReduceScatter (`d / g`) and AllToAll come from the group size `g`. Ids outside the run are
//! a runtime `Err` ([`crate::spmd::groups`]).

use super::reduce::check_reducer;
use super::{expect_array, list};
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::ir::{Collective, CollectiveKind, GroupMode};
use crate::shape::{ArrayShape, Shape};

/// The result shape of collective `c` on `operands`.
pub fn collective(c: &Collective, operands: &[&Shape]) -> Result<Shape> {
    let op = c.kind.name();
    check_groups(c)?;
    let one = |operands: &[&Shape]| -> Result<ArrayShape> {
        if operands.len() != 1 {
            return Err(Error::new(
                op,
                format!("takes 1 operand, got {}", operands.len()),
            ));
        }
        Ok(expect_array(op, "the operand", operands[0], Blame::Operand(0))?.clone())
    };
    match &c.kind {
        CollectiveKind::ReplicaId | CollectiveKind::PartitionId => {
            if !operands.is_empty() {
                return Err(Error::new(
                    op,
                    format!("takes no operand, got {}", operands.len()),
                ));
            }
            Ok(Shape::Array(ArrayShape::scalar(ElementType::U32)))
        }
        CollectiveKind::AllReduce { computation } => {
            let arrays = several(op, operands)?;
            for (i, a) in arrays.iter().enumerate() {
                if a.ty != arrays[0].ty {
                    return Err(Error::new(
                        op,
                        format!(
                            "every operand goes through the one computation, so all have one \
                             element type: operand 0 is {}, operand {i} is {a}",
                            arrays[0]
                        ),
                    )
                    .blame(Blame::Operand(i)));
                }
            }
            check_reducer(op, &[&arrays[0]], computation)?;
            Ok(results(arrays))
        }
        CollectiveKind::AllGather { dimension, .. } => {
            let arrays = several(op, operands)?;
            let g = shards(c)?;
            let out = arrays
                .into_iter()
                .map(|a| {
                    let d = dim(op, "all_gather_dim", *dimension, &a)?;
                    let mut dims = a.dims.clone();
                    dims[d] *= g;
                    Ok(ArrayShape::new(a.ty, &dims))
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(results(out))
        }
        CollectiveKind::ReduceScatter {
            dimension,
            computation,
            ..
        } => {
            let a = one(operands)?;
            let d = dim(op, "scatter_dimension", *dimension, &a)?;
            let g = shards(c)?;
            let by = if c.shard_count().is_some() {
                "shard_count"
            } else {
                "the group size"
            };
            divisible(op, "scatter_dimension", &a, d, g, by)?;
            check_reducer(op, &[&a], computation)?;
            let mut dims = a.dims.clone();
            dims[d] /= g;
            Ok(Shape::Array(ArrayShape::new(a.ty, &dims)))
        }
        CollectiveKind::AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
        } => {
            let arrays = several(op, operands)?;
            if *split_count <= 0 {
                return Err(attr(
                    op,
                    "split_count",
                    format!(
                        "split_count = {split_count} must be positive (operand {})",
                        arrays[0]
                    ),
                ));
            }
            if let Some(g) = c.replica_groups.first().map(|g| g.len() as i64) {
                if g != *split_count {
                    return Err(attr(
                        op,
                        "split_count",
                        format!("split_count = {split_count} must be the group size, {g} (replica_groups {})", groups_text(&c.replica_groups)),
                    ));
                }
            }
            let out = arrays
                .into_iter()
                .map(|a| {
                    let s = dim(op, "split_dimension", *split_dimension, &a)?;
                    let cd = dim(op, "concat_dimension", *concat_dimension, &a)?;
                    divisible(op, "split_dimension", &a, s, *split_count, "split_count")?;
                    let mut dims = a.dims.clone();
                    dims[s] /= split_count;
                    dims[cd] *= split_count;
                    Ok(ArrayShape::new(a.ty, &dims))
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(results(out))
        }
        CollectiveKind::CollectivePermute {
            source_target_pairs,
        } => {
            let a = one(operands)?;
            check_pairs(op, source_target_pairs)?;
            Ok(Shape::Array(a))
        }
        CollectiveKind::CollectiveBroadcast => Ok(Shape::Array(one(operands)?)),
        CollectiveKind::RaggedAllToAll => ragged::ragged_all_to_all(c, operands),
    }
}

/// Every operand as an array, at least one (AllReduce, AllGather, AllToAll).
fn several(op: &str, operands: &[&Shape]) -> Result<Vec<ArrayShape>> {
    if operands.is_empty() {
        return Err(Error::new(op, "needs at least one operand"));
    }
    operands
        .iter()
        .enumerate()
        .map(|(i, s)| Ok(expect_array(op, "each operand", s, Blame::Operand(i))?.clone()))
        .collect()
}

/// One result per operand: the array itself for one, a tuple for several.
fn results(mut arrays: Vec<ArrayShape>) -> Shape {
    match arrays.len() {
        1 => Shape::Array(arrays.remove(0)),
        _ => Shape::Tuple(arrays.into_iter().map(Shape::Array).collect()),
    }
}

fn attr(op: &str, name: &'static str, msg: String) -> Error {
    Error::new(op, msg).blame(Blame::Attribute(name))
}

/// `[[0, 1], [2, 3]]` for messages.
fn groups_text(groups: &[Vec<i64>]) -> String {
    format!(
        "[{}]",
        groups
            .iter()
            .map(|g| list(g))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `d` as an index of `a`'s dimensions.
fn dim(op: &str, name: &'static str, d: i64, a: &ArrayShape) -> Result<usize> {
    if d < 0 || d >= a.rank() as i64 {
        return Err(attr(
            op,
            name,
            format!(
                "{name} = {d} is out of range for the rank-{} operand {a}",
                a.rank()
            ),
        ));
    }
    Ok(d as usize)
}

/// `Err` unless dimension `d` of `a` splits into `by` equal blocks.
fn divisible(
    op: &str,
    name: &'static str,
    a: &ArrayShape,
    d: usize,
    by: i64,
    what: &str,
) -> Result<()> {
    if a.dims[d] % by != 0 {
        return Err(attr(
            op,
            name,
            format!(
                "dimension {d} of the operand {a} ({}) is not divisible by {what}, {by}",
                a.dims[d]
            ),
        ));
    }
    Ok(())
}

/// The group size AllGather's and ReduceScatter's result shapes use (XLA's `shard_count`):
/// the groups' size where they tell it ([`Collective::group_size`]), else `shard_count`.
/// Where both are known they must agree; in `cross_replica_and_partition` a group is a
/// replica group taken with every partition, so `shard_count` is a multiple of its size.
/// The run checks the actual group against it (`Err`, never a wrong shape).
pub fn shards(c: &Collective) -> Result<i64> {
    let op = c.kind.name();
    let groups = groups_text(&c.replica_groups);
    match (c.shard_count(), c.group_size()) {
        (Some(s), _) if s <= 0 => Err(attr(
            op,
            "shard_count",
            format!("shard_count = {s} must be positive (it is the group size)"),
        )),
        (Some(s), Some(g)) if s != g => Err(attr(
            op,
            "shard_count",
            format!(
                "shard_count = {s} must be the group size, {g}: replica_groups {groups} ({}) \
                 make groups of {g} devices",
                c.mode().name()
            ),
        )),
        (Some(s), Some(_)) => Ok(s),
        (Some(s), None) => match c.replica_groups.first() {
            Some(g) if s % g.len() as i64 != 0 => Err(attr(
                op,
                "shard_count",
                format!(
                    "shard_count = {s} must be a multiple of the replica group size, {}: with \
                     a channel and replica ids (cross_replica_and_partition) a group is a \
                     replica group of replica_groups {groups} taken with every partition, \
                     {} x num_partitions devices",
                    g.len(),
                    g.len()
                ),
            )),
            _ => Ok(s),
        },
        (None, Some(g)) => Ok(g),
        (None, None) if c.mode() == GroupMode::CrossReplicaAndPartition => Err(attr(
            op,
            "channel_id",
            "with a channel and replica ids (cross_replica_and_partition) the group size is \
             the replica group's times num_partitions, which the program does not know; give \
             it as shard_count = N, or name flattened device ids (use_global_device_ids = true)"
                .to_string(),
        )),
        (None, None) => Err(attr(
            op,
            "replica_groups",
            "replica_groups = [] (every device) leaves the group size, which the result \
             shape depends on, unknown to the program; name the groups, e.g. [[0, 1]], or give \
             it as shard_count = N"
                .to_string(),
        )),
    }
}

/// The group size a collective's result shapes were inferred for, with the name of what set
/// it (`split_count`, `shard_count` or "the group size"): AllToAll's `split_count`, AllGather's
/// and ReduceScatter's [`shards`]; `None` for the kinds whose shapes do not depend on it. The
/// evaluator and generated code check the device's actual group against it.
pub fn expected_group_size(c: &Collective) -> Result<Option<(&'static str, i64)>> {
    Ok(match &c.kind {
        CollectiveKind::AllToAll { split_count, .. } => Some(("split_count", *split_count)),
        CollectiveKind::AllGather { .. } | CollectiveKind::ReduceScatter { .. } => {
            let what = match c.shard_count() {
                Some(_) => "shard_count",
                None => "the group size",
            };
            Some((what, shards(c)?))
        }
        CollectiveKind::ReplicaId
        | CollectiveKind::PartitionId
        | CollectiveKind::AllReduce { .. }
        | CollectiveKind::RaggedAllToAll
        | CollectiveKind::CollectivePermute { .. }
        | CollectiveKind::CollectiveBroadcast => None,
    })
}

/// XLA's `CheckReplicaGroups` and StableHLO's constraints on `replica_groups`, `channel_id` and
/// `use_global_device_ids`.
fn check_groups(c: &Collective) -> Result<()> {
    let op = c.kind.name();
    let groups = &c.replica_groups;
    if c.use_global_device_ids && !c.has_channel() {
        return Err(attr(op, "use_global_device_ids", "use_global_device_ids = true needs a channel_id > 0 (flattened ids are ids of replicas and partitions together)".to_string()));
    }
    if c.use_global_device_ids && groups.is_empty() {
        return Err(attr(op, "replica_groups", "use_global_device_ids = true needs the groups of flattened ids written out, not replica_groups = []".to_string()));
    }
    let total: usize = groups.iter().map(Vec::len).sum();
    for (i, g) in groups.iter().enumerate() {
        if g.is_empty() {
            return Err(attr(
                op,
                "replica_groups",
                format!(
                    "group {i} of replica_groups {} is empty",
                    groups_text(groups)
                ),
            ));
        }
        // XLA's verifier lets AllReduce's groups differ in size (its result shape does not
        // depend on it: `CheckReplicaGroups(.., uniform_replica_group_size = false)`).
        let uniform = !matches!(c.kind, CollectiveKind::AllReduce { .. });
        if uniform && g.len() != groups[0].len() {
            return Err(attr(
                op,
                "replica_groups",
                format!(
                    "replica_groups {} has groups of unequal sizes ({} and {}); every group has one size",
                    groups_text(groups),
                    groups[0].len(),
                    g.len()
                ),
            ));
        }
    }
    // CollectiveBroadcast's groups may leave devices out (they get zeros): only distinct
    // non-negative ids; every other op's groups cover 0..n (XLA's CheckReplicaGroups).
    let covers = !matches!(c.kind, CollectiveKind::CollectiveBroadcast);
    let bound = if covers { total } else { usize::MAX };
    let mut seen = std::collections::HashSet::new();
    for &id in groups.iter().flatten() {
        if id < 0 || id as usize >= bound {
            return Err(attr(
                op,
                "replica_groups",
                format!(
                    "replica_groups {} names id {id}, but {total} ids must be 0..{} each once",
                    groups_text(groups),
                    total as i64 - 1
                ),
            ));
        }
        if !seen.insert(id) {
            return Err(attr(
                op,
                "replica_groups",
                format!("replica_groups {} names id {id} twice", groups_text(groups)),
            ));
        }
    }
    Ok(())
}

/// StableHLO's CollectivePermute constraints: ids non-negative, no source and no target twice.
fn check_pairs(op: &str, pairs: &[(i64, i64)]) -> Result<()> {
    let name = "source_target_pairs";
    let text = || {
        let p: Vec<String> = pairs.iter().map(|(s, t)| format!("[{s}, {t}]")).collect();
        format!("[{}]", p.join(", "))
    };
    for (i, &(s, t)) in pairs.iter().enumerate() {
        if s < 0 || t < 0 {
            return Err(attr(
                op,
                name,
                format!("{name} {} has a negative id in pair {i}", text()),
            ));
        }
        if pairs[..i].iter().any(|p| p.0 == s) {
            return Err(attr(
                op,
                name,
                format!("{name} {} names source {s} twice", text()),
            ));
        }
        if pairs[..i].iter().any(|p| p.1 == t) {
            return Err(attr(
                op,
                name,
                format!("{name} {} names target {t} twice", text()),
            ));
        }
    }
    Ok(())
}

mod ragged;
pub use ragged::OPERANDS as RAGGED_OPERANDS;

#[cfg(test)]
mod tests;
