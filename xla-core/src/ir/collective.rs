//! The collective ops' attributes: what each computes ([`CollectiveKind`]) and which devices
//! take part ([`Collective`]'s replica groups, channel and id flag, resolved by [`GroupMode`]).

use std::sync::Arc;

use super::Computation;

/// One collective op of an SPMD program: its kind and its process groups.
#[derive(Clone, Debug)]
pub struct Collective {
    /// What the op computes.
    pub kind: CollectiveKind,
    /// Replica (or partition, or flattened device) ids per group; empty = one group of all.
    pub replica_groups: Vec<Vec<i64>>,
    /// StableHLO's `channel_handle` handle; `None` (or `<= 0`) for a cross-replica op.
    pub channel_id: Option<i64>,
    /// `replica_groups` holds flattened device ids (`replica * num_partitions + partition`).
    pub use_global_device_ids: bool,
}

/// What a collective computes.
#[derive(Clone, Debug)]
pub enum CollectiveKind {
    /// `ReplicaId()`: this device's replica id, a `u32[]`.
    ReplicaId,
    /// `PartitionId()`: this device's partition id, a `u32[]`.
    PartitionId,
    /// `AllReduce(operands...)`: per operand, `out[i] = fold(computation, x[i]@g0, x[i]@g1, ...)`
    /// over the group in group order (left fold from the first member).
    AllReduce {
        /// The reducer, `(T[], T[]) -> T[]`.
        computation: Arc<Computation>,
    },
    /// `AllGather(operands...)`: per operand, the group's operands concatenated along
    /// `dimension`, group order (several operands: a tuple of results).
    AllGather {
        /// The concatenated dimension.
        dimension: i64,
        /// XLA's `shard_count`: the group size, where the groups do not tell it
        /// (`replica_groups = []`, or `cross_replica_and_partition`, whose groups are the
        /// replica group's size times `num_partitions`); `None` when they do. The builder
        /// keeps it only where the groups leave it unknown ([`Collective::group_size`]).
        shard_count: Option<i64>,
    },
    /// `AllToAll(operands...)`: per operand, split along `split_dimension` into `split_count`
    /// blocks, block `j` sent to group member `j`, received blocks concatenated along
    /// `concat_dimension` (several operands: a tuple of results).
    AllToAll {
        /// The dimension cut into blocks.
        split_dimension: i64,
        /// The dimension the received blocks are concatenated along.
        concat_dimension: i64,
        /// Blocks, the group size.
        split_count: i64,
    },
    /// `ReduceScatter(operand)`: the AllReduce with `computation`, member `j` keeping block `j`
    /// of `dimension` (cut into group-size blocks).
    ReduceScatter {
        /// The dimension cut into blocks.
        dimension: i64,
        /// The reducer, `(T[], T[]) -> T[]`.
        computation: Arc<Computation>,
        /// XLA's `shard_count`, as for AllGather: the group size where the groups do not tell it.
        shard_count: Option<i64>,
    },
    /// `CollectivePermute(operand)`: `target` receives `source`'s operand for each pair; a
    /// device no pair targets gets zeros.
    CollectivePermute {
        /// `(source, target)` ids (replica or partition ids, by the mode).
        source_target_pairs: Vec<(i64, i64)>,
    },
    /// `CollectiveBroadcast(operand)`: every member of a group gets the first member's
    /// operand; a device in no group gets zeros.
    CollectiveBroadcast,
    /// `RaggedAllToAll(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)`
    /// (XLA HLO's operand order): the offsets and sizes are `s32[G*k]` or `s64[G*k]` for a
    /// group of `G`, entry `j*k + i` being update `i` to group member `j`; each update sends
    /// the rows `input[input_offsets[e] .. + send_sizes[e]]` (rows: slices along the
    /// outermost dimension) to member `j`, which writes them at its own
    /// `output[output_offsets[e] .. + send_sizes[e]]` (offsets in the receiver's rows, given by
    /// the sender); `recv_sizes[e]` is how many rows this device receives in update `i` from
    /// member `j`. The result is `output` with those rows overwritten.
    RaggedAllToAll,
}

/// How `replica_groups` names devices (StableHLO's process-group strategies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupMode {
    /// Groups of replica ids, one set of groups per partition.
    CrossReplica,
    /// Groups of partition ids, one set of groups per replica.
    CrossPartition,
    /// Groups of replica ids, each taken with every partition.
    CrossReplicaAndPartition,
    /// Groups of flattened device ids.
    FlattenedIds,
}

impl GroupMode {
    /// StableHLO's name for the mode.
    pub fn name(self) -> &'static str {
        match self {
            GroupMode::CrossReplica => "cross_replica",
            GroupMode::CrossPartition => "cross_partition",
            GroupMode::CrossReplicaAndPartition => "cross_replica_and_partition",
            GroupMode::FlattenedIds => "flattened_ids",
        }
    }
}

impl CollectiveKind {
    /// The surface name.
    pub fn name(&self) -> &'static str {
        match self {
            CollectiveKind::ReplicaId => "ReplicaId",
            CollectiveKind::PartitionId => "PartitionId",
            CollectiveKind::AllReduce { .. } => "AllReduce",
            CollectiveKind::AllGather { .. } => "AllGather",
            CollectiveKind::AllToAll { .. } => "AllToAll",
            CollectiveKind::ReduceScatter { .. } => "ReduceScatter",
            CollectiveKind::CollectivePermute { .. } => "CollectivePermute",
            CollectiveKind::CollectiveBroadcast => "CollectiveBroadcast",
            CollectiveKind::RaggedAllToAll => "RaggedAllToAll",
        }
    }

    /// The HLO opcode.
    pub fn opcode(&self) -> &'static str {
        match self {
            CollectiveKind::ReplicaId => "replica-id",
            CollectiveKind::PartitionId => "partition-id",
            CollectiveKind::AllReduce { .. } => "all-reduce",
            CollectiveKind::AllGather { .. } => "all-gather",
            CollectiveKind::AllToAll { .. } => "all-to-all",
            CollectiveKind::ReduceScatter { .. } => "reduce-scatter",
            CollectiveKind::CollectivePermute { .. } => "collective-permute",
            CollectiveKind::CollectiveBroadcast => "collective-broadcast",
            CollectiveKind::RaggedAllToAll => "ragged-all-to-all",
        }
    }
}

impl Collective {
    /// An op of `kind` over `replica_groups`, cross-replica (no channel).
    pub fn new(kind: CollectiveKind, replica_groups: Vec<Vec<i64>>) -> Self {
        Collective {
            kind,
            replica_groups,
            channel_id: None,
            use_global_device_ids: false,
        }
    }

    /// True when a channel id `> 0` is set.
    pub fn has_channel(&self) -> bool {
        self.channel_id.is_some_and(|c| c > 0)
    }

    /// How `replica_groups` names devices, as StableHLO decides it: AllToAll,
    /// CollectivePermute and CollectiveBroadcast (and RaggedAllToAll, as XLA's verifier
    /// resolves it: `GetCollectiveOpGroupMode(has_channel, nullopt)`) are cross-partition with
    /// a channel, else
    /// cross-replica; the others add `use_global_device_ids` (flattened ids, which needs a
    /// channel: [`crate::infer::collective`] checks it).
    pub fn mode(&self) -> GroupMode {
        match (&self.kind, self.has_channel(), self.use_global_device_ids) {
            (
                CollectiveKind::AllToAll { .. }
                | CollectiveKind::RaggedAllToAll
                | CollectiveKind::CollectivePermute { .. }
                | CollectiveKind::CollectiveBroadcast,
                true,
                _,
            ) => GroupMode::CrossPartition,
            (_, false, _) => GroupMode::CrossReplica,
            (_, true, false) => GroupMode::CrossReplicaAndPartition,
            (_, true, true) => GroupMode::FlattenedIds,
        }
    }

    /// The size of every group as the groups alone tell it: the first group's size, except
    /// `replica_groups = []` (every device: the run's size) and `cross_replica_and_partition`
    /// (the replica group's size times `num_partitions`), which only the run knows.
    pub fn group_size(&self) -> Option<i64> {
        match self.mode() {
            GroupMode::CrossReplicaAndPartition => None,
            GroupMode::CrossReplica | GroupMode::CrossPartition | GroupMode::FlattenedIds => {
                self.replica_groups.first().map(|g| g.len() as i64)
            }
        }
    }

    /// AllGather's and ReduceScatter's `shard_count`, `None` for the other kinds.
    pub fn shard_count(&self) -> Option<i64> {
        match &self.kind {
            CollectiveKind::AllGather { shard_count, .. }
            | CollectiveKind::ReduceScatter { shard_count, .. } => *shard_count,
            CollectiveKind::ReplicaId
            | CollectiveKind::PartitionId
            | CollectiveKind::AllReduce { .. }
            | CollectiveKind::AllToAll { .. }
            | CollectiveKind::RaggedAllToAll
            | CollectiveKind::CollectivePermute { .. }
            | CollectiveKind::CollectiveBroadcast => None,
        }
    }

    /// The reducer of AllReduce and ReduceScatter.
    pub fn computation(&self) -> Option<&Arc<Computation>> {
        match &self.kind {
            CollectiveKind::AllReduce { computation }
            | CollectiveKind::ReduceScatter { computation, .. } => Some(computation),
            CollectiveKind::ReplicaId
            | CollectiveKind::PartitionId
            | CollectiveKind::AllGather { .. }
            | CollectiveKind::AllToAll { .. }
            | CollectiveKind::RaggedAllToAll
            | CollectiveKind::CollectivePermute { .. }
            | CollectiveKind::CollectiveBroadcast => None,
        }
    }
}
