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
    let c = Collective::new(CollectiveKind::AllGather { dimension: 1 }, vec![vec![0, 1]]);
    let out = run(
        &program(c, &[2, 2]),
        &[2, 2],
        &[&[1, 2, 3, 4], &[5, 6, 7, 8]],
    );
    assert_eq!(out, vec![vec![1, 2, 5, 6, 3, 4, 7, 8]; 2]);
    let c = Collective::new(CollectiveKind::AllGather { dimension: 0 }, vec![vec![1, 0]]);
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
    let c = Collective::new(CollectiveKind::AllGather { dimension: 0 }, vec![vec![0, 1]]);
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
