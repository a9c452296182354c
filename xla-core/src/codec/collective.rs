//! Collectives in the byte form (see the parent module): op codes 49 (ReplicaId) to 56
//! (CollectiveBroadcast) and 57 (RaggedAllToAll), then the groups, the channel and the id flag. An optional integer
//! (`shard_count`, the channel) is a flag, 0 or 1, then the value.

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
        CollectiveKind::RaggedAllToAll => 57,
    }
}

/// True for the op codes [`Reader::collective`] reads.
pub(super) fn is_collective_code(code: u64) -> bool {
    (49..=57).contains(&code)
}

impl Writer {
    /// The kind's code and attributes, then the groups, channel and flag.
    pub(super) fn collective(&mut self, c: &Collective) {
        self.u(kind_code(&c.kind));
        match &c.kind {
            CollectiveKind::ReplicaId
            | CollectiveKind::PartitionId
            | CollectiveKind::CollectiveBroadcast
            | CollectiveKind::RaggedAllToAll => {}
            CollectiveKind::AllReduce { computation } => self.computation(computation),
            CollectiveKind::AllGather {
                dimension,
                shard_count,
            } => {
                self.i(*dimension);
                self.opt_i(*shard_count);
            }
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
                shard_count,
            } => {
                self.i(*dimension);
                self.opt_i(*shard_count);
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
        self.opt_i(c.channel_id);
        self.u(u64::from(c.use_global_device_ids));
    }

    /// `None` as 0; `Some(v)` as 1 then `v`.
    fn opt_i(&mut self, v: Option<i64>) {
        match v {
            None => self.u(0),
            Some(v) => {
                self.u(1);
                self.i(v);
            }
        }
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
                shard_count: self.opt_i("shard_count")?,
            },
            53 => CollectiveKind::AllToAll {
                split_dimension: self.i()?,
                concat_dimension: self.i()?,
                split_count: self.i()?,
            },
            54 => CollectiveKind::ReduceScatter {
                dimension: self.i()?,
                shard_count: self.opt_i("shard_count")?,
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
            57 => CollectiveKind::RaggedAllToAll,
            c => return Err(err(format!("collective op code {c}"))),
        };
        let n = self.count()?;
        let replica_groups = (0..n).map(|_| self.ints()).collect::<Result<_>>()?;
        let channel_id = self.opt_i("channel")?;
        Ok(Op::Collective(Collective {
            kind,
            replica_groups,
            channel_id,
            use_global_device_ids: self.bool()?,
        }))
    }

    /// What [`Writer::opt_i`] wrote; `what` names the value in the error.
    fn opt_i(&mut self, what: &str) -> Result<Option<i64>> {
        match self.u()? {
            0 => Ok(None),
            1 => Ok(Some(self.i()?)),
            f => Err(err(format!("{what} flag {f}"))),
        }
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
            CollectiveKind::AllGather {
                dimension: 0,
                shard_count: None,
            },
            CollectiveKind::AllToAll {
                split_dimension: 0,
                concat_dimension: 0,
                split_count: 2,
            },
            CollectiveKind::ReduceScatter {
                dimension: 0,
                computation: add.clone(),
                shard_count: None,
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
        // shard_counts the groups do not tell (cross_replica_and_partition) stay in the IR.
        let raps = [
            CollectiveKind::AllGather {
                dimension: 0,
                shard_count: Some(4),
            },
            CollectiveKind::ReduceScatter {
                dimension: 0,
                computation: add.clone(),
                shard_count: Some(2),
            },
        ];
        for kind in raps {
            let c = Collective {
                kind,
                replica_groups: vec![vec![0, 1]],
                channel_id: Some(1),
                use_global_device_ids: false,
            };
            outs.push(b.collective(c, &[x]).unwrap());
        }
        // RaggedAllToAll: input, output, then the four s32[2] offsets and sizes.
        let rows = b
            .parameter(1, Shape::array(ElementType::F32, &[3, 2]), "rows")
            .unwrap();
        let sizes = b
            .parameter(2, Shape::array(ElementType::S32, &[2]), "sizes")
            .unwrap();
        let ragged = Collective {
            kind: CollectiveKind::RaggedAllToAll,
            replica_groups: vec![vec![1, 0]],
            channel_id: Some(2),
            use_global_device_ids: false,
        };
        outs.push(
            b.collective(ragged, &[rows, rows, sizes, sizes, sizes, sizes])
                .unwrap(),
        );
        let t = b.tuple(&outs).unwrap();
        let comp = b.build(t).unwrap();
        let bytes = encode(&comp);
        let back = decode(&bytes).unwrap();
        assert_eq!(encode(&back), bytes);
        let shards: Vec<Option<i64>> = back
            .instrs
            .iter()
            .filter_map(|i| {
                if let crate::ir::Op::Collective(c) = &i.op {
                    c.shard_count()
                } else {
                    None
                }
            })
            .map(Some)
            .collect();
        assert_eq!(shards, [Some(4), Some(2)]);
        let ragged = back.instrs.iter().find_map(|i| match &i.op {
            crate::ir::Op::Collective(c) if matches!(c.kind, CollectiveKind::RaggedAllToAll) => {
                Some((c.replica_groups.clone(), c.channel_id, i.shape.to_string()))
            }
            _ => None,
        });
        assert_eq!(ragged, Some((vec![vec![1, 0]], Some(2), "f32[3,2]".into())));
    }
}
