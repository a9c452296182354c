//! Process groups: a collective's `replica_groups`, channel and id flag resolved to groups of
//! device ids, one function for every op (StableHLO's `cross_replica`, `cross_partition`,
//! `cross_replica_and_partition` and `flattened_ids`).
//!
//! A `cross_replica_and_partition` group is ordered as XLA orders it (`GetParticipatingDevices`:
//! for each replica of the group, every partition), which the oracle checks bit for bit. The
//! StableHLO spec orders it partition-major (`for partition_id in partition_ids for
//! replica_id in replica_group`), and its interpreter follows the spec (its all_gather test
//! for issue 1933 is a known difference). The order decides AllGather's concatenation,
//! ReduceScatter's blocks and AllReduce's fold.

use super::{CollectiveError, Collectives, DeviceId};
use crate::ir::{Collective, GroupMode};

/// The groups of flattened device ids `c` runs in, on a run of `num_replicas x
/// num_partitions` devices, in XLA's order (for `cross_replica_and_partition`, replica major:
/// `[(r0,p0), (r0,p1), (r1,p0), (r1,p1)]`; see the module docs). `Err` when an id is outside
/// the run.
pub fn device_groups(
    c: &Collective,
    num_replicas: u32,
    num_partitions: u32,
) -> Result<Vec<Vec<DeviceId>>, CollectiveError> {
    let groups: Vec<&[i64]> = c.replica_groups.iter().map(Vec::as_slice).collect();
    resolve(
        c.kind.name(),
        c.mode(),
        &groups,
        num_replicas,
        num_partitions,
    )
}

/// [`device_groups`] of an op called `op` whose groups `replica_groups` name devices by
/// `mode` (what generated code calls with its static groups).
pub fn resolve(
    op: &str,
    mode: GroupMode,
    replica_groups: &[&[i64]],
    num_replicas: u32,
    num_partitions: u32,
) -> Result<Vec<Vec<DeviceId>>, CollectiveError> {
    let (r, p) = (num_replicas, num_partitions);
    let bound = match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => r,
        GroupMode::CrossPartition => p,
        GroupMode::FlattenedIds => r * p,
    };
    let groups: Vec<Vec<u32>> = if replica_groups.is_empty() {
        vec![(0..bound).collect()]
    } else {
        let mut out = Vec::with_capacity(replica_groups.len());
        for g in replica_groups {
            let mut ids = Vec::with_capacity(g.len());
            for &id in *g {
                match u32::try_from(id) {
                    Ok(id) if id < bound => ids.push(id),
                    _ => {
                        return Err(CollectiveError::Transport(format!(
                            "{op}: replica_groups name id {id}, outside the {bound} ids of {} on \
                             {r} replicas x {p} partitions",
                            mode.name()
                        )))
                    }
                }
            }
            out.push(ids);
        }
        out
    };
    let dev = |replica: u32, partition: u32| replica * p + partition;
    Ok(match mode {
        GroupMode::CrossReplica => (0..p)
            .flat_map(|pi| {
                groups
                    .iter()
                    .map(move |g| g.iter().map(|&ri| dev(ri, pi)).collect())
            })
            .collect(),
        GroupMode::CrossPartition => (0..r)
            .flat_map(|ri| {
                groups
                    .iter()
                    .map(move |g| g.iter().map(|&pi| dev(ri, pi)).collect())
            })
            .collect(),
        GroupMode::CrossReplicaAndPartition => groups
            .iter()
            .map(|g| {
                g.iter()
                    .flat_map(|&ri| (0..p).map(move |pi| dev(ri, pi)))
                    .collect()
            })
            .collect(),
        GroupMode::FlattenedIds => groups,
    })
}

/// The group of `c` this device belongs to (device ids in group order), `None` when it is in
/// none.
pub fn my_group(
    c: &Collective,
    ctx: &dyn Collectives,
) -> Result<Option<Vec<DeviceId>>, CollectiveError> {
    let groups: Vec<&[i64]> = c.replica_groups.iter().map(Vec::as_slice).collect();
    group_of(ctx, c.kind.name(), c.mode(), &groups)
}

/// This device's group of an op `op` with groups `replica_groups` in `mode`, `None` when it is
/// in none.
pub fn group_of(
    ctx: &dyn Collectives,
    op: &str,
    mode: GroupMode,
    replica_groups: &[&[i64]],
) -> Result<Option<Vec<DeviceId>>, CollectiveError> {
    let me = ctx.device_id();
    Ok(resolve(
        op,
        mode,
        replica_groups,
        ctx.num_replicas(),
        ctx.num_partitions(),
    )?
    .into_iter()
    .find(|g| g.contains(&me)))
}

/// `Err` unless `group` has `want` devices: the group size op `op`'s result shapes were
/// inferred for, `what` naming where it came from (`shard_count`, `split_count`, the group
/// size). A run whose groups differ (a `shard_count` that is not the replica group's size
/// times `num_partitions`, a `split_count` for groups of every device) stops here, not in a
/// buffer of the wrong length.
pub fn expect_group_size(
    op: &str,
    what: &str,
    group: &[DeviceId],
    want: i64,
) -> Result<(), CollectiveError> {
    if group.len() as i64 == want {
        return Ok(());
    }
    Err(CollectiveError::Transport(format!(
        "{op}: this device's group {group:?} has {} devices, but the op's result shape was \
         inferred for {what} = {want}",
        group.len()
    )))
}

/// CollectivePermute's exchanges for this device: the device it receives from (if a pair
/// targets it) and the devices it sends to. Pairs name replica ids (cross-replica: within this
/// device's partition) or partition ids (cross-partition: within its replica).
pub fn permute_peers(
    c: &Collective,
    pairs: &[(i64, i64)],
    ctx: &dyn Collectives,
) -> Result<(Option<DeviceId>, Vec<DeviceId>), CollectiveError> {
    permute_peers_in(ctx, c.mode(), pairs)
}

/// [`permute_peers`] by the mode (cross-partition or cross-replica) alone.
pub fn permute_peers_in(
    ctx: &dyn Collectives,
    mode: GroupMode,
    pairs: &[(i64, i64)],
) -> Result<(Option<DeviceId>, Vec<DeviceId>), CollectiveError> {
    let (r, p) = (ctx.replica_id(), ctx.partition_id());
    let cross_partition = mode == GroupMode::CrossPartition;
    let (mine, bound) = if cross_partition {
        (p, ctx.num_partitions())
    } else {
        (r, ctx.num_replicas())
    };
    let dev = |id: u32| {
        if cross_partition {
            r * ctx.num_partitions() + id
        } else {
            id * ctx.num_partitions() + p
        }
    };
    let mut from = None;
    let mut to = Vec::new();
    for &(s, t) in pairs {
        let in_run = |id: i64| u32::try_from(id).ok().filter(|&id| id < bound);
        let (Some(s), Some(t)) = (in_run(s), in_run(t)) else {
            return Err(CollectiveError::Transport(format!(
                "CollectivePermute: pair ({s}, {t}) names an id outside the {bound} of the run"
            )));
        };
        if t == mine {
            from = Some(dev(s));
        }
        if s == mine {
            to.push(dev(t));
        }
    }
    Ok((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::CollectiveKind;

    fn op(groups: Vec<Vec<i64>>, channel: Option<i64>, global: bool) -> Collective {
        Collective {
            channel_id: channel,
            use_global_device_ids: global,
            ..Collective::new(
                CollectiveKind::AllGather {
                    dimension: 0,
                    shard_count: None,
                },
                groups,
            )
        }
    }

    #[test]
    fn the_four_modes_follow_stablehlo_in_xlas_order() {
        // The spec's examples: 4 replicas x 2 partitions, devices r * 2 + p.
        let g = device_groups(&op(vec![vec![0, 1], vec![2, 3]], None, false), 4, 2).unwrap();
        assert_eq!(g, vec![vec![0, 2], vec![4, 6], vec![1, 3], vec![5, 7]]);
        // cross_replica_and_partition in XLA's order: each replica with every partition.
        let g = device_groups(&op(vec![vec![0, 1], vec![2, 3]], Some(1), false), 4, 2).unwrap();
        assert_eq!(g, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        let g = device_groups(&op(vec![vec![1, 0]], Some(1), false), 2, 2).unwrap();
        assert_eq!(g, vec![vec![2, 3, 0, 1]]);
        let g = device_groups(
            &op(vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]], Some(1), true),
            4,
            2,
        );
        assert_eq!(g.unwrap(), vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        let mut permute = op(vec![vec![0, 1]], Some(1), false);
        permute.kind = CollectiveKind::CollectiveBroadcast;
        let g = device_groups(&permute, 4, 2).unwrap();
        assert_eq!(g, vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]);
    }

    #[test]
    fn empty_groups_are_everyone_and_ids_outside_the_run_are_errs() {
        assert_eq!(
            device_groups(&op(vec![], None, false), 3, 1).unwrap(),
            vec![vec![0, 1, 2]]
        );
        let e = device_groups(&op(vec![vec![0, 4]], None, false), 2, 1).unwrap_err();
        assert!(e.to_string().contains("id 4"), "{e}");
    }
}
