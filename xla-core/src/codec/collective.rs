//! Collectives in the byte form (see the parent module): op codes 49 (ReplicaId) to 56
//! (CollectiveBroadcast), then the groups, the channel and the id flag.

use std::sync::Arc;

use super::{err, Reader, Writer};
use crate::error::Result;
use crate::ir::{Collective, CollectiveKind, Op};

/// The op code of a collective kind (the coll range of the op numbering, 49..=62).
fn kind_code(k: &CollectiveKind) -> u64 {
    match k {
        CollectiveKind::ReplicaId => 49,
        CollectiveKind::PartitionId => 50,
        CollectiveKind::AllReduce { .. } => 51,
        CollectiveKind::AllGather { .. } => 52,
        CollectiveKind::AllToAll { .. } => 53,
        CollectiveKind::ReduceScatter { .. } => 54,
        CollectiveKind::CollectivePermute { .. } => 55,
        CollectiveKind::CollectiveBroadcast => 56,
    }
}

/// True for the op codes [`Reader::collective`] reads.
pub(super) fn is_collective_code(code: u64) -> bool {
    (49..=56).contains(&code)
}

impl Writer {
    /// The kind's code and attributes, then the groups, channel and flag.
    pub(super) fn collective(&mut self, c: &Collective) {
        self.u(kind_code(&c.kind));
        match &c.kind {
            CollectiveKind::ReplicaId
            | CollectiveKind::PartitionId
            | CollectiveKind::CollectiveBroadcast => {}
            CollectiveKind::AllReduce { computation } => self.computation(computation),
            CollectiveKind::AllGather { dimension } => self.i(*dimension),
            CollectiveKind::AllToAll {
                split_dimension,
                concat_dimension,
                split_count,
            } => {
                self.i(*split_dimension);
                self.i(*concat_dimension);
                self.i(*split_count);
            }
            CollectiveKind::ReduceScatter {
                dimension,
                computation,
            } => {
                self.i(*dimension);
                self.computation(computation);
            }
            CollectiveKind::CollectivePermute {
                source_target_pairs,
            } => {
                self.u(source_target_pairs.len() as u64);
                for &(s, t) in source_target_pairs {
                    self.i(s);
                    self.i(t);
                }
            }
        }
        self.u(c.replica_groups.len() as u64);
        c.replica_groups.iter().for_each(|g| self.ints(g));
        match c.channel_id {
            None => self.u(0),
            Some(id) => {
                self.u(1);
                self.i(id);
            }
        }
        self.u(u64::from(c.use_global_device_ids));
    }
}

impl Reader<'_> {
    /// What [`Writer::collective`] wrote after op code `code`.
    pub(super) fn collective(&mut self, code: u64, depth: usize) -> Result<Op> {
        let kind = match code {
            49 => CollectiveKind::ReplicaId,
            50 => CollectiveKind::PartitionId,
            51 => CollectiveKind::AllReduce {
                computation: Arc::new(self.computation(depth + 1)?),
            },
            52 => CollectiveKind::AllGather {
                dimension: self.i()?,
            },
            53 => CollectiveKind::AllToAll {
                split_dimension: self.i()?,
                concat_dimension: self.i()?,
                split_count: self.i()?,
            },
            54 => CollectiveKind::ReduceScatter {
                dimension: self.i()?,
                computation: Arc::new(self.computation(depth + 1)?),
            },
            55 => {
                let n = self.count()?;
                CollectiveKind::CollectivePermute {
                    source_target_pairs: (0..n)
                        .map(|_| Ok((self.i()?, self.i()?)))
                        .collect::<Result<_>>()?,
                }
            }
            56 => CollectiveKind::CollectiveBroadcast,
            c => return Err(err(format!("collective op code {c}"))),
        };
        let n = self.count()?;
        let replica_groups = (0..n).map(|_| self.ints()).collect::<Result<_>>()?;
        let channel_id = match self.u()? {
            0 => None,
            1 => Some(self.i()?),
            f => return Err(err(format!("channel flag {f}"))),
        };
        Ok(Op::Collective(Collective {
            kind,
            replica_groups,
            channel_id,
            use_global_device_ids: self.bool()?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::builder::Builder;
    use crate::codec::{decode, encode};
    use crate::element::ElementType;
    use crate::ir::{BinaryOp, Collective, CollectiveKind};
    use crate::shape::Shape;
    use std::sync::Arc;

    #[test]
    fn every_collective_round_trips() {
        let mut a = Builder::new("add");
        let p = a
            .parameter(0, Shape::scalar(ElementType::F32), "a")
            .unwrap();
        let q = a
            .parameter(1, Shape::scalar(ElementType::F32), "b")
            .unwrap();
        let r = a.binary(BinaryOp::Add, p, q, None).unwrap();
        let add = Arc::new(a.build(r).unwrap());
        let kinds = [
            CollectiveKind::AllReduce {
                computation: add.clone(),
            },
            CollectiveKind::AllGather { dimension: 0 },
            CollectiveKind::AllToAll {
                split_dimension: 0,
                concat_dimension: 0,
                split_count: 2,
            },
            CollectiveKind::ReduceScatter {
                dimension: 0,
                computation: add,
            },
            CollectiveKind::CollectivePermute {
                source_target_pairs: vec![(0, 1), (1, 0)],
            },
            CollectiveKind::CollectiveBroadcast,
        ];
        let mut b = Builder::new("main");
        let x = b
            .parameter(0, Shape::array(ElementType::F32, &[4]), "x")
            .unwrap();
        let mut outs = vec![b.replica_id().unwrap(), b.partition_id().unwrap()];
        for kind in kinds {
            let c = Collective {
                kind,
                replica_groups: vec![vec![0, 1]],
                channel_id: Some(3),
                use_global_device_ids: true,
            };
            outs.push(b.collective(c, &[x]).unwrap());
        }
        let t = b.tuple(&outs).unwrap();
        let comp = b.build(t).unwrap();
        let bytes = encode(&comp);
        assert_eq!(encode(&decode(&bytes).unwrap()), bytes);
    }
}
