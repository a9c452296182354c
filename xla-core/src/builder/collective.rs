//! Collectives on the builder: one entry for every kind, the kind and its groups in a
//! [`Collective`] (see [`infer::collective`] for the rules).

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{Collective, CollectiveKind, Op};

impl Builder {
    /// The collective `c` on `operands` (none for ReplicaId and PartitionId; one array, or
    /// several for AllReduce, AllGather and AllToAll, whose result is then a tuple).
    ///
    /// A `shard_count` the groups already tell (checked equal by inference) is dropped, so one
    /// op has one IR whichever way it was written (the StableHLO importer derives it from the
    /// result type).
    pub fn collective(&mut self, mut c: Collective, operands: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::collective(&c, &shapes)?;
        if c.group_size().is_some() {
            match &mut c.kind {
                CollectiveKind::AllGather { shard_count, .. }
                | CollectiveKind::ReduceScatter { shard_count, .. } => *shard_count = None,
                CollectiveKind::ReplicaId
                | CollectiveKind::PartitionId
                | CollectiveKind::AllReduce { .. }
                | CollectiveKind::AllToAll { .. }
                | CollectiveKind::RaggedAllToAll
                | CollectiveKind::CollectivePermute { .. }
                | CollectiveKind::CollectiveBroadcast => {}
            }
        }
        Ok(self.push(
            Op::Collective(c),
            operands.iter().map(|o| o.0).collect(),
            out,
        ))
    }

    /// `RaggedAllToAll(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)`
    /// over `replica_groups` (`[]`: every device), cross-partition with a channel `> 0`. The
    /// operands in XLA HLO's order, which `jax.lax.ragged_all_to_all` uses too (the seed's
    /// `XlaBuilder` signature lists `output` fourth); see [`CollectiveKind::RaggedAllToAll`].
    pub fn ragged_all_to_all(
        &mut self,
        operands: [XlaOp; 6],
        replica_groups: Vec<Vec<i64>>,
        channel_id: Option<i64>,
    ) -> Result<XlaOp> {
        let mut c = Collective::new(CollectiveKind::RaggedAllToAll, replica_groups);
        c.channel_id = channel_id;
        self.collective(c, &operands)
    }

    /// `ReplicaId()`: this device's replica id, `u32[]`.
    pub fn replica_id(&mut self) -> Result<XlaOp> {
        self.collective(Collective::new(CollectiveKind::ReplicaId, vec![]), &[])
    }

    /// `PartitionId()`: this device's partition id, `u32[]`.
    pub fn partition_id(&mut self) -> Result<XlaOp> {
        self.collective(Collective::new(CollectiveKind::PartitionId, vec![]), &[])
    }
}
