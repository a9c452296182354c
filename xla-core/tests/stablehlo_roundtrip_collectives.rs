//! Collectives exported then imported: the text re-exports the same, XLA's `shard_count`
//! (which StableHLO leaves to the types) comes back, and several operands give the same tuple
//! (all_to_all as one op per operand) and the same values on 2 replicas.

mod common;

use common::{one_op, scalar_fn};
use xla_core::element::ElementType::*;
use xla_core::eval::run_replicas;
use xla_core::ir::BinaryOp;
use xla_core::stablehlo::import::parse_module;
use xla_core::stablehlo::to_stablehlo;
use xla_core::{Computation, Literal};

/// The first collective of `comp`.
fn collective_of(comp: &Computation) -> xla_core::Collective {
    comp.instrs
        .iter()
        .find_map(|i| {
            if let xla_core::Op::Collective(c) = &i.op {
                Some(c.clone())
            } else {
                None
            }
        })
        .expect("a collective")
}

#[test]
fn collectives() {
    use xla_core::{Collective, CollectiveKind as K};
    let add = || scalar_fn(F32, BinaryOp::Add);
    let with = |kind, groups: Vec<Vec<i64>>, channel: Option<i64>, global: bool| Collective {
        kind,
        replica_groups: groups,
        channel_id: channel,
        use_global_device_ids: global,
    };
    let cases = [
        with(K::AllReduce { computation: add() }, vec![], None, false),
        with(
            K::AllReduce { computation: add() },
            vec![vec![1, 0]],
            Some(2),
            false,
        ),
        with(
            K::AllGather {
                dimension: 1,
                shard_count: None,
            },
            vec![vec![0, 3], vec![1, 2]],
            Some(1),
            true,
        ),
        with(
            K::AllToAll {
                split_dimension: 0,
                concat_dimension: 1,
                split_count: 2,
            },
            vec![vec![0, 1]],
            None,
            false,
        ),
        with(
            K::ReduceScatter {
                dimension: 0,
                computation: add(),
                shard_count: None,
            },
            vec![vec![0, 1]],
            None,
            false,
        ),
        with(
            K::CollectivePermute {
                source_target_pairs: vec![(0, 1), (1, 0)],
            },
            vec![],
            Some(1),
            false,
        ),
        with(K::CollectiveBroadcast, vec![vec![1, 0]], None, false),
        // shard_counts only the types carry (StableHLO has no such attribute).
        with(
            K::AllGather {
                dimension: 1,
                shard_count: Some(4),
            },
            vec![vec![0, 1]],
            Some(1),
            false,
        ),
        with(
            K::ReduceScatter {
                dimension: 0,
                computation: add(),
                shard_count: Some(2),
            },
            vec![vec![1, 0]],
            Some(3),
            false,
        ),
        with(
            K::AllGather {
                dimension: 0,
                shard_count: Some(3),
            },
            vec![],
            None,
            false,
        ),
    ];
    for c in cases {
        let name = c.kind.name();
        let comp = one_op(name, &[(F32, &[4, 2])], |b, p| {
            b.collective(c.clone(), &[p[0]])
        })
        .unwrap();
        let text = to_stablehlo(&comp);
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        let main = m.function("main").expect("@main");
        assert_eq!(
            to_stablehlo(&main.computation),
            text,
            "{name}: a different IR"
        );
        assert_eq!(
            collective_of(&main.computation).shard_count(),
            c.shard_count(),
            "{name}: shard_count\n{text}"
        );
    }
    // Several operands: several results, re-imported as the same tuple. all_to_all's operands
    // go as one op each (XLA lowers a variadic one as its tuple all-to-all, another op).
    let variadic = [
        (
            K::AllGather {
                dimension: 0,
                shard_count: None,
            },
            S32,
            1,
        ),
        (
            K::AllToAll {
                split_dimension: 0,
                concat_dimension: 1,
                split_count: 2,
            },
            F32,
            2,
        ),
        (
            K::AllToAll {
                split_dimension: 0,
                concat_dimension: 1,
                split_count: 2,
            },
            S32,
            2,
        ),
    ];
    for (kind, second, ops) in variadic {
        let name = kind.name();
        let c = with(kind, vec![vec![0, 1]], None, false);
        let comp = one_op(name, &[(F32, &[4, 2]), (second, &[4, 2])], |b, p| {
            b.collective(c, p)
        })
        .unwrap();
        let text = to_stablehlo(&comp);
        assert_eq!(text.matches("\"stablehlo.all_").count(), ops, "{text}");
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        let main = m.function("main").expect("@main");
        assert_eq!(to_stablehlo(&main.computation), text, "{name}");
        // The re-imported program (one op or one per operand) computes the same on 2 replicas.
        let args: Vec<Vec<Literal>> = (0..2)
            .map(|d| {
                let x = Literal::from_vec(&[4, 2], (0..8).map(|i| (i + 10 * d) as f32).collect());
                let y = match second {
                    S32 => {
                        Literal::from_vec(&[4, 2], (0..8).map(|i| i - 10 * d).collect::<Vec<i32>>())
                    }
                    _ => Literal::from_vec(&[4, 2], (0..8).map(|i| (i * d) as f32).collect()),
                };
                vec![x.unwrap(), y.unwrap()]
            })
            .collect();
        let ours = run_replicas(&comp, &args, 2, 1);
        let back = run_replicas(&main.computation, &args, 2, 1);
        for (a, b) in ours.into_iter().zip(back) {
            assert_eq!(a.unwrap(), b.unwrap(), "{name}");
        }
    }
    let ids = one_op("ids", &[], |b, _| {
        let r = b.replica_id()?;
        let p = b.partition_id()?;
        b.tuple(&[r, p])
    })
    .unwrap();
    let text = to_stablehlo(&ids);
    let m = parse_module(&text).unwrap_or_else(|e| panic!("ids: {e}\n{text}"));
    assert_eq!(to_stablehlo(&m.function("main").unwrap().computation), text);
}
