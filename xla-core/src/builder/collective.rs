//! Collectives on the builder: one entry for every kind, the kind and its groups in a
//! [`Collective`] (see [`infer::collective`] for the rules).

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{Collective, CollectiveKind, Op};

impl Builder {
    /// The collective `c` on `operands` (none for ReplicaId and PartitionId; one array, or
    /// several for AllReduce, whose result is then a tuple).
    pub fn collective(&mut self, c: Collective, operands: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::collective(&c, &shapes)?;
        Ok(self.push(
            Op::Collective(c),
            operands.iter().map(|o| o.0).collect(),
            out,
        ))
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
