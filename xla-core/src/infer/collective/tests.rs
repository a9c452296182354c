use super::*;
use crate::builder::Builder;
use crate::ir::BinaryOp;
use std::sync::Arc;

fn f32s(dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(ElementType::F32, dims))
}

fn add() -> Arc<crate::ir::Computation> {
    let mut b = Builder::new("add");
    let x = b
        .parameter(0, Shape::scalar(ElementType::F32), "a")
        .unwrap();
    let y = b
        .parameter(1, Shape::scalar(ElementType::F32), "b")
        .unwrap();
    let r = b.binary(BinaryOp::Add, x, y, None).unwrap();
    Arc::new(b.build(r).unwrap())
}

fn gather(groups: Vec<Vec<i64>>) -> Collective {
    Collective::new(
        CollectiveKind::AllGather {
            dimension: 1,
            shard_count: None,
        },
        groups,
    )
}

fn message(c: &Collective, operand: &Shape) -> String {
    collective(c, &[operand]).unwrap_err().to_string()
}

#[test]
fn shapes_follow_the_group_size() {
    let x = f32s(&[2, 6]);
    assert_eq!(
        collective(&gather(vec![vec![0, 1, 2]]), &[&x]).unwrap(),
        f32s(&[2, 18])
    );
    let rs = Collective::new(
        CollectiveKind::ReduceScatter {
            dimension: 1,
            computation: add(),
            shard_count: None,
        },
        vec![vec![0, 1], vec![2, 3]],
    );
    assert_eq!(collective(&rs, &[&x]).unwrap(), f32s(&[2, 3]));
    let a2a = Collective::new(
        CollectiveKind::AllToAll {
            split_dimension: 1,
            concat_dimension: 0,
            split_count: 3,
        },
        vec![],
    );
    assert_eq!(collective(&a2a, &[&x]).unwrap(), f32s(&[6, 2]));
    let ar = Collective::new(CollectiveKind::AllReduce { computation: add() }, vec![]);
    assert_eq!(
        collective(&ar, &[&x, &f32s(&[3])]).unwrap(),
        Shape::Tuple(vec![x.clone(), f32s(&[3])])
    );
    let id = Collective::new(CollectiveKind::ReplicaId, vec![]);
    assert_eq!(
        collective(&id, &[]).unwrap(),
        Shape::scalar(ElementType::U32)
    );
}

#[test]
fn every_group_rule_is_an_error_naming_it() {
    let x = f32s(&[2, 6]);
    let cases = [
        (vec![vec![0, 1], vec![2, 5]], "names id 5"),
        (vec![vec![0, 1], vec![1, 2]], "names id 1 twice"),
        (vec![vec![0, 1, 2], vec![3]], "unequal sizes"),
        (vec![vec![0, 1], vec![]], "is empty"),
        (vec![], "leaves the group size"),
    ];
    for (groups, want) in cases {
        let m = message(&gather(groups), &x);
        assert!(m.contains(want), "{m}");
    }
    let mut global = gather(vec![vec![0, 1]]);
    global.use_global_device_ids = true;
    assert!(message(&global, &x).contains("needs a channel_id"));
    global.channel_id = Some(1);
    global.use_global_device_ids = false;
    assert!(message(&global, &x).contains("cross_replica_and_partition"));
}

#[test]
fn dimension_and_divisibility_rules() {
    let x = f32s(&[2, 6]);
    let m = message(
        &Collective::new(
            CollectiveKind::AllGather {
                dimension: 2,
                shard_count: None,
            },
            vec![vec![0]],
        ),
        &x,
    );
    assert!(m.contains("all_gather_dim = 2 is out of range"), "{m}");
    let rs = Collective::new(
        CollectiveKind::ReduceScatter {
            dimension: 1,
            computation: add(),
            shard_count: None,
        },
        vec![vec![0, 1, 2, 3]],
    );
    assert!(message(&rs, &x).contains("not divisible by the group size, 4"));
    let a2a = |count, groups| {
        Collective::new(
            CollectiveKind::AllToAll {
                split_dimension: 0,
                concat_dimension: 1,
                split_count: count,
            },
            groups,
        )
    };
    assert!(message(&a2a(4, vec![]), &x).contains("not divisible by split_count, 4"));
    assert!(message(&a2a(2, vec![vec![0, 1, 2]]), &x).contains("must be the group size, 3"));
    assert!(message(&a2a(0, vec![]), &x).contains("must be positive"));
}

#[test]
fn permute_pairs_name_each_source_and_target_once() {
    let x = f32s(&[3]);
    let p = |pairs: Vec<(i64, i64)>| {
        Collective::new(
            CollectiveKind::CollectivePermute {
                source_target_pairs: pairs,
            },
            vec![],
        )
    };
    assert_eq!(collective(&p(vec![(0, 1), (1, 0)]), &[&x]).unwrap(), x);
    assert!(message(&p(vec![(0, 1), (0, 2)]), &x).contains("source 0 twice"));
    assert!(message(&p(vec![(0, 1), (2, 1)]), &x).contains("target 1 twice"));
    assert!(message(&p(vec![(-1, 1)]), &x).contains("negative id"));
}

#[test]
fn all_reduce_operands_share_one_type_and_the_reducer_matches() {
    let s = Shape::Array(ArrayShape::new(ElementType::S32, &[2]));
    let ar = Collective::new(CollectiveKind::AllReduce { computation: add() }, vec![]);
    assert!(collective(&ar, &[&f32s(&[2]), &s])
        .unwrap_err()
        .to_string()
        .contains("one element type"));
    assert!(collective(&ar, &[&s])
        .unwrap_err()
        .to_string()
        .contains("parameter 0"));
}

fn gather_with(
    groups: Vec<Vec<i64>>,
    shard_count: Option<i64>,
    channel: Option<i64>,
) -> Collective {
    Collective {
        channel_id: channel,
        ..Collective::new(
            CollectiveKind::AllGather {
                dimension: 1,
                shard_count,
            },
            groups,
        )
    }
}

#[test]
fn shard_count_gives_the_size_the_groups_do_not() {
    let x = f32s(&[2, 6]);
    // Every device: only shard_count tells the size.
    let g = gather_with(vec![], Some(3), None);
    assert_eq!(collective(&g, &[&x]).unwrap(), f32s(&[2, 18]));
    // cross_replica_and_partition: a replica group of 2 with every partition.
    let g = gather_with(vec![vec![0, 1]], Some(4), Some(1));
    assert_eq!(shards(&g).unwrap(), 4);
    assert_eq!(collective(&g, &[&x]).unwrap(), f32s(&[2, 24]));
    // A shard_count the groups agree with is accepted.
    let g = gather_with(vec![vec![0, 1]], Some(2), None);
    assert_eq!(collective(&g, &[&x]).unwrap(), f32s(&[2, 12]));
    let rs = Collective {
        channel_id: Some(1),
        ..Collective::new(
            CollectiveKind::ReduceScatter {
                dimension: 1,
                computation: add(),
                shard_count: Some(6),
            },
            vec![vec![1, 0, 2]],
        )
    };
    assert_eq!(collective(&rs, &[&x]).unwrap(), f32s(&[2, 1]));
}

#[test]
fn shard_count_rules_name_the_op_the_rule_and_both_numbers() {
    let x = f32s(&[2, 6]);
    let m = message(&gather_with(vec![vec![0, 1]], Some(3), None), &x);
    assert_eq!(
        m,
        "AllGather: shard_count = 3 must be the group size, 2: replica_groups [[0, 1]] \
         (cross_replica) make groups of 2 devices"
    );
    let m = message(&gather_with(vec![vec![0, 1, 2]], Some(4), Some(1)), &x);
    assert!(
        m.starts_with("AllGather: shard_count = 4 must be a multiple of the replica group size, 3"),
        "{m}"
    );
    let m = message(&gather_with(vec![], Some(0), None), &x);
    assert!(m.contains("shard_count = 0 must be positive"), "{m}");
    let m = message(&gather_with(vec![vec![0, 1]], None, Some(1)), &x);
    assert!(
        m.contains("cross_replica_and_partition") && m.contains("shard_count = N"),
        "{m}"
    );
    let rs = Collective::new(
        CollectiveKind::ReduceScatter {
            dimension: 1,
            computation: add(),
            shard_count: Some(4),
        },
        vec![],
    );
    let m = message(&rs, &x);
    assert!(m.contains("(6) is not divisible by shard_count, 4"), "{m}");
    // The error blames the attribute, so xla! points at it.
    let e = collective(&gather_with(vec![vec![0, 1]], Some(3), None), &[&x]).unwrap_err();
    assert_eq!(e.blame, Blame::Attribute("shard_count"));
}

#[test]
fn all_gather_and_all_to_all_take_several_operands() {
    let x = f32s(&[2, 6]);
    let y = Shape::Array(ArrayShape::new(ElementType::S32, &[4, 2]));
    let g = gather_with(vec![vec![0, 1]], None, None);
    assert_eq!(
        collective(&g, &[&x, &y]).unwrap(),
        Shape::Tuple(vec![
            f32s(&[2, 12]),
            Shape::Array(ArrayShape::new(ElementType::S32, &[4, 4]))
        ])
    );
    let a2a = Collective::new(
        CollectiveKind::AllToAll {
            split_dimension: 1,
            concat_dimension: 0,
            split_count: 2,
        },
        vec![vec![0, 1]],
    );
    assert_eq!(
        collective(&a2a, &[&x, &y]).unwrap(),
        Shape::Tuple(vec![
            f32s(&[4, 3]),
            Shape::Array(ArrayShape::new(ElementType::S32, &[8, 1]))
        ])
    );
    // Each operand is checked: the second does not split into 4.
    let a2a4 = Collective::new(
        CollectiveKind::AllToAll {
            split_dimension: 1,
            concat_dimension: 0,
            split_count: 4,
        },
        vec![],
    );
    let z = f32s(&[4, 8]);
    let m = collective(&a2a4, &[&z, &x]).unwrap_err().to_string();
    assert!(
        m.contains("f32[2,6] (6) is not divisible by split_count, 4"),
        "{m}"
    );
    for c in [g, a2a] {
        let m = collective(&c, &[]).unwrap_err().to_string();
        assert!(m.contains("needs at least one operand"), "{m}");
    }
}

#[test]
fn the_builder_keeps_shard_count_only_where_the_groups_do_not_tell_it() {
    let shard_of = |c: Collective| {
        let mut b = Builder::new("g");
        let x = b.parameter(0, f32s(&[2, 6]), "x").unwrap();
        let r = b.collective(c, &[x]).unwrap();
        let comp = b.build(r).unwrap();
        let crate::ir::Op::Collective(c) = &comp.instrs[comp.root.0 as usize].op else {
            panic!("the root is the collective")
        };
        c.shard_count()
    };
    assert_eq!(shard_of(gather_with(vec![vec![0, 1]], Some(2), None)), None);
    assert_eq!(
        shard_of(gather_with(vec![vec![0, 1]], Some(4), Some(1))),
        Some(4)
    );
    assert_eq!(shard_of(gather_with(vec![], Some(3), None)), Some(3));
}

fn arr(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(ty, dims))
}

/// RaggedAllToAll over `groups` on `input, output` and four offsets and sizes of `meta`.
fn ragged(
    groups: Vec<Vec<i64>>,
    input: &Shape,
    output: &Shape,
    meta: [&Shape; 4],
) -> Result<Shape> {
    let c = Collective::new(CollectiveKind::RaggedAllToAll, groups);
    collective(&c, &[input, output, meta[0], meta[1], meta[2], meta[3]])
}

#[test]
fn ragged_all_to_all_gives_the_outputs_shape() {
    let s32 = |n| arr(ElementType::S32, &[n]);
    let s64 = |n| arr(ElementType::S64, &[n]);
    let (m2, m4) = (s32(2), s64(4));
    // The seed's example: f32[3] rows into f32[4].
    let out = ragged(vec![vec![0, 1]], &f32s(&[3]), &f32s(&[4]), [&m2; 4]).unwrap();
    assert_eq!(out, f32s(&[4]));
    // Multi-dimensional rows, s64 offsets, two updates per member, groups of 2.
    let out = ragged(
        vec![vec![0, 2], vec![1, 3]],
        &f32s(&[6, 3, 2]),
        &f32s(&[5, 3, 2]),
        [&m4; 4],
    )
    .unwrap();
    assert_eq!(out, f32s(&[5, 3, 2]));
    // Groups left to the run: any positive number of entries.
    let m3 = s32(3);
    assert!(ragged(vec![], &f32s(&[3]), &f32s(&[4]), [&m3; 4]).is_ok());
}

#[test]
fn ragged_all_to_all_rules_name_the_shapes() {
    let m2 = arr(ElementType::S32, &[2]);
    let g = || vec![vec![0, 1]];
    let err = |input: &Shape, output: &Shape, meta: [&Shape; 4]| {
        let e = ragged(g(), input, output, meta).unwrap_err();
        (e.to_string(), e.blame)
    };
    let (e, b) = err(&f32s(&[3]), &arr(ElementType::S32, &[4]), [&m2; 4]);
    assert!(
        e.contains("input and output have one element type: input f32[3] vs output s32[4]"),
        "{e}"
    );
    assert_eq!(b, Blame::Operand(1));
    let (e, _) = err(&f32s(&[3]), &f32s(&[4, 2]), [&m2; 4]);
    assert!(
        e.contains("one rank: input f32[3] vs output f32[4,2]"),
        "{e}"
    );
    let (e, _) = err(&f32s(&[3, 2]), &f32s(&[4, 3]), [&m2; 4]);
    assert!(
        e.contains("rows have one shape (every dimension but the outermost): input f32[3,2] vs output f32[4,3]"),
        "{e}"
    );
    let (e, b) = err(&f32s(&[]), &f32s(&[]), [&m2; 4]);
    assert!(
        e.contains("the input f32[] has no outermost dimension"),
        "{e}"
    );
    assert_eq!(b, Blame::Operand(0));
    let u32s = arr(ElementType::U32, &[2]);
    let (e, b) = err(&f32s(&[3]), &f32s(&[4]), [&u32s; 4]);
    assert!(
        e.contains("input_offsets must be s32 or s64 (row numbers), got u32[2]"),
        "{e}"
    );
    assert_eq!(b, Blame::Operand(2));
    let rank2 = arr(ElementType::S32, &[2, 1]);
    let (e, _) = err(&f32s(&[3]), &f32s(&[4]), [&rank2; 4]);
    assert!(
        e.contains("must be rank 1") && e.contains("got s32[2,1]") && e.contains("rank 2"),
        "{e}"
    );
    let s64 = arr(ElementType::S64, &[2]);
    let (e, b) = err(&f32s(&[3]), &f32s(&[4]), [&m2, &m2, &m2, &s64]);
    assert!(
        e.contains("have one shape: input_offsets s32[2] vs recv_sizes s64[2]"),
        "{e}"
    );
    assert_eq!(b, Blame::Operand(5));
    let m3 = arr(ElementType::S32, &[3]);
    let (e, _) = err(&f32s(&[3]), &f32s(&[4]), [&m3; 4]);
    assert!(
        e.contains("has 3 entries, not a multiple of the group size, 2 (replica_groups [[0, 1]])"),
        "{e}"
    );
    let m0 = arr(ElementType::S32, &[0]);
    let (e, _) = err(&f32s(&[3]), &f32s(&[4]), [&m0; 4]);
    assert!(e.contains("s32[0] has no entry"), "{e}");
    let c = Collective::new(CollectiveKind::RaggedAllToAll, g());
    let e = collective(&c, &[&f32s(&[3])]).unwrap_err().to_string();
    assert!(
        e.contains("takes 6 operands (input, output, input_offsets, send_sizes, output_offsets, recv_sizes), got 1"),
        "{e}"
    );
}
