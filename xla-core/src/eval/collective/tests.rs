//! The StableHLO spec's examples of each collective, run on threads.

use super::run_replicas;
use crate::builder::Builder;
use crate::element::ElementType;
use crate::eval::evaluate;
use crate::ir::{BinaryOp, Collective, CollectiveKind, Computation};
use crate::literal::Literal;
use crate::shape::Shape;
use std::sync::Arc;

fn add() -> Arc<Computation> {
    let mut b = Builder::new("add");
    let x = b
        .parameter(0, Shape::scalar(ElementType::S64), "a")
        .unwrap();
    let y = b
        .parameter(1, Shape::scalar(ElementType::S64), "b")
        .unwrap();
    let r = b.binary(BinaryOp::Add, x, y, None).unwrap();
    Arc::new(b.build(r).unwrap())
}

/// `c` applied to one parameter of `dims` (s64).
fn program(c: Collective, dims: &[i64]) -> Computation {
    let mut b = Builder::new("main");
    let x = b
        .parameter(0, Shape::array(ElementType::S64, dims), "x")
        .unwrap();
    let r = b.collective(c, &[x]).unwrap();
    b.build(r).unwrap()
}

fn s64(dims: &[i64], v: &[i64]) -> Literal {
    Literal::from_vec(dims, v.to_vec()).unwrap()
}

/// Runs `p` on `n` replicas, replica `r` on `inputs[r]`; the results' elements.
fn run(p: &Computation, dims: &[i64], inputs: &[&[i64]]) -> Vec<Vec<i64>> {
    let args: Vec<Vec<Literal>> = inputs.iter().map(|v| vec![s64(dims, v)]).collect();
    run_replicas(p, &args, inputs.len() as u32, 1)
        .into_iter()
        .map(|r| r.unwrap().as_slice::<i64>().unwrap().to_vec())
        .collect()
}

#[test]
fn all_reduce_sums_over_the_group() {
    let c = Collective::new(
        CollectiveKind::AllReduce { computation: add() },
        vec![vec![0, 1]],
    );
    let out = run(&program(c, &[4]), &[4], &[&[1, 2, 3, 4], &[5, 6, 7, 8]]);
    assert_eq!(out, vec![vec![6, 8, 10, 12]; 2]);
    // Groups [[0, 2], [1, 3]] on 4 replicas, 5 elements
    // (chunks padded).
    let c = Collective::new(
        CollectiveKind::AllReduce { computation: add() },
        vec![vec![0, 2], vec![1, 3]],
    );
    let out = run(
        &program(c, &[5]),
        &[5],
        &[&[1; 5], &[10; 5], &[100; 5], &[1000; 5]],
    );
    assert_eq!(
        out,
        vec![vec![101; 5], vec![1010; 5], vec![101; 5], vec![1010; 5]]
    );
    // AllReduce's groups may differ in size (XLA's verifier allows it): [[0, 2], [1]] on 3
    // replicas, replica 1 reduces alone.
    let c = Collective::new(
        CollectiveKind::AllReduce { computation: add() },
        vec![vec![0, 2], vec![1]],
    );
    let out = run(&program(c, &[2]), &[2], &[&[1, 2], &[10, 20], &[100, 200]]);
    assert_eq!(out, vec![vec![101, 202], vec![10, 20], vec![101, 202]]);
}

#[test]
fn all_gather_concatenates_in_group_order() {
    let c = Collective::new(
        CollectiveKind::AllGather {
            dimension: 1,
            shard_count: None,
        },
        vec![vec![0, 1]],
    );
    let out = run(
        &program(c, &[2, 2]),
        &[2, 2],
        &[&[1, 2, 3, 4], &[5, 6, 7, 8]],
    );
    assert_eq!(out, vec![vec![1, 2, 5, 6, 3, 4, 7, 8]; 2]);
    let c = Collective::new(
        CollectiveKind::AllGather {
            dimension: 0,
            shard_count: None,
        },
        vec![vec![1, 0]],
    );
    let out = run(&program(c, &[2]), &[2], &[&[1, 2], &[3, 4]]);
    assert_eq!(out, vec![vec![3, 4, 1, 2]; 2]);
}

#[test]
fn all_to_all_splits_and_concatenates() {
    let kind = CollectiveKind::AllToAll {
        split_dimension: 1,
        concat_dimension: 0,
        split_count: 2,
    };
    let c = Collective::new(kind, vec![vec![0, 1]]);
    let out = run(
        &program(c, &[2, 4]),
        &[2, 4],
        &[&[1, 2, 3, 4, 5, 6, 7, 8], &[9, 10, 11, 12, 13, 14, 15, 16]],
    );
    assert_eq!(out[0], vec![1, 2, 5, 6, 9, 10, 13, 14]);
    assert_eq!(out[1], vec![3, 4, 7, 8, 11, 12, 15, 16]);
}

#[test]
fn reduce_scatter_keeps_each_members_block() {
    let kind = CollectiveKind::ReduceScatter {
        dimension: 1,
        computation: add(),
        shard_count: None,
    };
    let c = Collective::new(kind, vec![vec![0, 1]]);
    let x: &[i64] = &[1, 2, 3, 4, 5, 6, 7, 8];
    let out = run(&program(c, &[2, 4]), &[2, 4], &[x, x]);
    assert_eq!(out[0], vec![2, 4, 10, 12]);
    assert_eq!(out[1], vec![6, 8, 14, 16]);
}

#[test]
fn collective_permute_zeros_where_no_pair_targets() {
    let kind = CollectiveKind::CollectivePermute {
        source_target_pairs: vec![(0, 1), (1, 2)],
    };
    let c = Collective::new(kind, vec![]);
    let out = run(
        &program(c, &[2, 2]),
        &[2, 2],
        &[&[1, 2, 3, 4], &[5, 6, 7, 8], &[9, 9, 9, 9]],
    );
    assert_eq!(out, vec![vec![0; 4], vec![1, 2, 3, 4], vec![5, 6, 7, 8]]);
}

#[test]
fn collective_broadcast_from_the_first_member() {
    let c = Collective::new(CollectiveKind::CollectiveBroadcast, vec![vec![2, 1]]);
    let out = run(
        &program(c, &[1, 2]),
        &[1, 2],
        &[&[1, 2], &[3, 4], &[5, 6], &[7, 8]],
    );
    assert_eq!(out, vec![vec![0, 0], vec![5, 6], vec![5, 6], vec![0, 0]]);
}

#[test]
fn replica_and_partition_ids_on_a_grid() {
    let mut b = Builder::new("ids");
    let r = b.replica_id().unwrap();
    let p = b.partition_id().unwrap();
    let t = b.tuple(&[r, p]).unwrap();
    let prog = b.build(t).unwrap();
    let out = run_replicas(&prog, &vec![vec![]; 6], 3, 2);
    for (d, lit) in out.into_iter().enumerate() {
        let Literal::Tuple(v) = lit.unwrap() else {
            panic!("not a tuple")
        };
        assert_eq!(v[0].as_slice::<u32>().unwrap(), &[d as u32 / 2]);
        assert_eq!(v[1].as_slice::<u32>().unwrap(), &[d as u32 % 2]);
    }
}

#[test]
fn plain_evaluate_refuses_collectives_and_bad_runs_are_errs() {
    let c = Collective::new(
        CollectiveKind::AllGather {
            dimension: 0,
            shard_count: None,
        },
        vec![vec![0, 1]],
    );
    let p = program(c, &[2]);
    let e = evaluate(&p, &[s64(&[2], &[1, 2])]).unwrap_err().to_string();
    assert!(e.contains("evaluate_on"), "{e}");
    // Three replicas for groups naming two: replica 2 is in no group, the others finish.
    let args = vec![vec![s64(&[2], &[1, 2])]; 3];
    let out = run_replicas(&p, &args, 3, 1);
    assert!(out[2]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("in none of replica_groups"));
    // Replicas disagreeing on a shape: the exchange reports the mismatch.
    let c = Collective::new(CollectiveKind::AllReduce { computation: add() }, vec![]);
    let mut b = Builder::new("main");
    let x = b
        .parameter(0, Shape::array(ElementType::S64, &[2]), "x")
        .unwrap();
    let r = b.collective(c, &[x]).unwrap();
    let p = b.build(r).unwrap();
    let out = run_replicas(
        &p,
        &[vec![s64(&[2], &[1, 2])], vec![s64(&[3], &[1, 2, 3])]],
        2,
        1,
    );
    assert!(out.iter().all(Result::is_err), "{out:?}");
}

/// `c` applied to parameters of `shapes` (s64 or s32 arrays): the program.
fn program_of(c: Collective, shapes: &[Shape]) -> Computation {
    let mut b = Builder::new("main");
    let xs: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| b.parameter(i, s.clone(), "x").unwrap())
        .collect();
    let r = b.collective(c, &xs).unwrap();
    b.build(r).unwrap()
}

/// The s64 elements of `l` (an array, or each element of a tuple as s64 or s32).
fn elems(l: &Literal) -> Vec<Vec<i64>> {
    match l {
        Literal::Tuple(v) => v.iter().flat_map(elems).collect(),
        a => vec![a
            .as_slice::<i64>()
            .map(<[i64]>::to_vec)
            .or_else(|| {
                a.as_slice::<i32>()
                    .map(|s| s.iter().map(|&x| i64::from(x)).collect())
            })
            .expect("s64 or s32")],
    }
}

/// The StableHLO interpreter's issue 1933 case: 2 replicas x 2 partitions, groups [[0, 1]]
/// with a channel (cross_replica_and_partition): one group of 4, in XLA's order (r0,p0),
/// (r0,p1), (r1,p0), (r1,p1) (the interpreter's, the spec's, is partition-major).
#[test]
fn all_gather_across_replicas_and_partitions_takes_its_shard_count() {
    let c = Collective {
        channel_id: Some(1),
        ..Collective::new(
            CollectiveKind::AllGather {
                dimension: 1,
                shard_count: Some(4),
            },
            vec![vec![0, 1]],
        )
    };
    let p = program(c, &[2, 2]);
    let (a, b): (&[i64], &[i64]) = (&[1, 2, 3, 4], &[5, 6, 7, 8]);
    // Devices r * 2 + p: (r0,p0) = b, (r0,p1) = b, (r1,p0) = a, (r1,p1) = b.
    let args: Vec<Vec<Literal>> = [b, b, a, b].iter().map(|v| vec![s64(&[2, 2], v)]).collect();
    for r in run_replicas(&p, &args, 2, 2) {
        assert_eq!(
            r.unwrap().as_slice::<i64>().unwrap(),
            &[5, 6, 5, 6, 1, 2, 5, 6, 7, 8, 7, 8, 3, 4, 7, 8]
        );
    }
}

#[test]
fn reduce_scatter_across_replicas_and_partitions() {
    let c = Collective {
        channel_id: Some(1),
        ..Collective::new(
            CollectiveKind::ReduceScatter {
                dimension: 1,
                computation: add(),
                shard_count: Some(2),
            },
            vec![vec![0, 1]],
        )
    };
    let out = run(
        &program(c, &[2, 4]),
        &[2, 4],
        &[&[1, 2, 3, 4, 5, 6, 7, 8], &[9, 10, 11, 12, 13, 14, 15, 16]],
    );
    assert_eq!(out, vec![vec![10, 12, 18, 20], vec![14, 16, 22, 24]]);
}

#[test]
fn a_group_of_another_size_than_shard_count_is_an_err_naming_the_op() {
    // shard_count = 2 says one partition, the run has two: every device errs, none panics.
    let c = Collective {
        channel_id: Some(1),
        ..Collective::new(
            CollectiveKind::AllGather {
                dimension: 0,
                shard_count: Some(2),
            },
            vec![vec![0, 1]],
        )
    };
    let p = program(c, &[2]);
    let out = run_replicas(&p, &vec![vec![s64(&[2], &[1, 2])]; 4], 2, 2);
    for r in out {
        let e = r.unwrap_err().to_string();
        assert!(e.contains("AllGather"), "{e}");
        assert!(
            e.contains("has 4 devices") && e.contains("shard_count = 2"),
            "{e}"
        );
    }
    // AllToAll over every device with a split_count for another run size.
    let kind = CollectiveKind::AllToAll {
        split_dimension: 0,
        concat_dimension: 0,
        split_count: 2,
    };
    let p = program(Collective::new(kind, vec![]), &[2]);
    let out = run_replicas(&p, &vec![vec![s64(&[2], &[1, 2])]; 3], 3, 1);
    for r in out {
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains("AllToAll") && e.contains("split_count = 2"),
            "{e}"
        );
    }
}

#[test]
fn variadic_all_gather_and_all_to_all_work_per_operand() {
    let x = Shape::array(ElementType::S64, &[2, 2]);
    let y = Shape::array(ElementType::S32, &[2, 2]);
    let c = Collective::new(
        CollectiveKind::AllGather {
            dimension: 1,
            shard_count: None,
        },
        vec![vec![0, 1]],
    );
    let p = program_of(c, &[x, y]);
    let arg = |a: [i64; 4], b: [i32; 4]| {
        vec![
            s64(&[2, 2], &a),
            Literal::from_vec(&[2, 2], b.to_vec()).unwrap(),
        ]
    };
    let args = vec![
        arg([1, 2, 3, 4], [5, 6, 7, 8]),
        arg([11, 12, 13, 14], [15, 16, 17, 18]),
    ];
    for r in run_replicas(&p, &args, 2, 1) {
        assert_eq!(
            elems(&r.unwrap()),
            vec![
                vec![1, 2, 11, 12, 3, 4, 13, 14],
                vec![5, 6, 15, 16, 7, 8, 17, 18]
            ]
        );
    }
    // all_to_all.mlir's variadic case: operands of different shapes.
    let kind = CollectiveKind::AllToAll {
        split_dimension: 1,
        concat_dimension: 0,
        split_count: 2,
    };
    let shapes = [
        Shape::array(ElementType::S64, &[2, 4]),
        Shape::array(ElementType::S32, &[3, 4]),
    ];
    let p = program_of(Collective::new(kind, vec![vec![0, 1]]), &shapes);
    let arg = |a: Vec<i64>, b: Vec<i32>| {
        vec![
            Literal::from_vec(&[2, 4], a).unwrap(),
            Literal::from_vec(&[3, 4], b).unwrap(),
        ]
    };
    let args = vec![
        arg((1..=8).collect(), (9..=20).collect()),
        arg((31..=38).collect(), (41..=52).collect()),
    ];
    let out: Vec<_> = run_replicas(&p, &args, 2, 1)
        .into_iter()
        .map(|r| elems(&r.unwrap()))
        .collect();
    assert_eq!(out[0][0], vec![1, 2, 5, 6, 31, 32, 35, 36]);
    assert_eq!(
        out[0][1],
        vec![9, 10, 13, 14, 17, 18, 41, 42, 45, 46, 49, 50]
    );
    assert_eq!(out[1][0], vec![3, 4, 7, 8, 33, 34, 37, 38]);
    assert_eq!(
        out[1][1],
        vec![11, 12, 15, 16, 19, 20, 43, 44, 47, 48, 51, 52]
    );
}
