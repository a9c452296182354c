//! RaggedAllToAll evaluated on threads: the seed's example, hand-computed cases on 2, 3 and 4
//! replicas (empty sends, rows nobody writes, rows of several dimensions, groups other than
//! all, partitions), the order of overlapping writes, invalid values as `Err`s, and the
//! property that uniform sizes and offsets give AllToAll's result.

use super::run_replicas;
use crate::builder::{Builder, XlaOp};
use crate::element::ElementType;
use crate::ir::{Collective, CollectiveKind, Computation};
use crate::literal::Literal;
use crate::shape::Shape;

/// `RaggedAllToAll(input: ty[in_dims], output: ty[out_dims], four meta[n])` over `groups`.
fn program(
    (groups, channel): (Vec<Vec<i64>>, Option<i64>),
    ty: ElementType,
    (in_dims, out_dims): (&[i64], &[i64]),
    meta: ElementType,
    n: i64,
) -> Computation {
    let mut b = Builder::new("main");
    let x = b.parameter(0, Shape::array(ty, in_dims), "input").unwrap();
    let y = b
        .parameter(1, Shape::array(ty, out_dims), "output")
        .unwrap();
    let names = [
        "input_offsets",
        "send_sizes",
        "output_offsets",
        "recv_sizes",
    ];
    let m: Vec<XlaOp> = (0..4)
        .map(|i| {
            b.parameter(2 + i, Shape::array(meta, &[n]), names[i])
                .unwrap()
        })
        .collect();
    let r = b
        .ragged_all_to_all([x, y, m[0], m[1], m[2], m[3]], groups, channel)
        .unwrap();
    b.build(r).unwrap()
}

/// One device's arguments: f32 input and output, s32 offsets and sizes.
fn args32(
    (input, in_dims): (&[f32], &[i64]),
    (output, out_dims): (&[f32], &[i64]),
    meta: [&[i32]; 4],
) -> Vec<Literal> {
    let mut a = vec![
        Literal::from_vec(in_dims, input.to_vec()).unwrap(),
        Literal::from_vec(out_dims, output.to_vec()).unwrap(),
    ];
    a.extend(
        meta.iter()
            .map(|m| Literal::from_vec(&[m.len() as i64], m.to_vec()).unwrap()),
    );
    a
}

fn f32s(l: &Literal) -> Vec<f32> {
    l.as_slice::<f32>().unwrap().to_vec()
}

/// The seed's example (operation-semantics.es.md, RaggedAllToAll), exactly.
#[test]
fn the_seeds_example_on_2_replicas() {
    let p = program(
        (vec![vec![0, 1]], None),
        ElementType::F32,
        (&[3], &[4]),
        ElementType::S32,
        2,
    );
    let zeros = [0f32; 4];
    let args = vec![
        args32(
            (&[1., 2., 2.], &[3]),
            (&zeros, &[4]),
            [&[0, 1], &[1, 2], &[0, 0], &[1, 1]],
        ),
        args32(
            (&[3., 4., 0.], &[3]),
            (&zeros, &[4]),
            [&[0, 1], &[1, 1], &[1, 2], &[2, 1]],
        ),
    ];
    let out: Vec<Vec<f32>> = run_replicas(&p, &args, 2, 1)
        .iter()
        .map(|r| f32s(r.as_ref().unwrap()))
        .collect();
    assert_eq!(out, vec![vec![1., 3., 0., 0.], vec![2., 2., 4., 0.]]);
    // The same on 1 replica x 2 partitions with a channel (cross_partition: what JAX's
    // shard_map writes, `channel_id = 1`).
    let p = program(
        (vec![vec![0, 1]], Some(1)),
        ElementType::F32,
        (&[3], &[4]),
        ElementType::S32,
        2,
    );
    let out: Vec<Vec<f32>> = run_replicas(&p, &args, 1, 2)
        .iter()
        .map(|r| f32s(r.as_ref().unwrap()))
        .collect();
    assert_eq!(out, vec![vec![1., 3., 0., 0.], vec![2., 2., 4., 0.]]);
}

/// 3 replicas, s64 offsets: empty sends (with any in-range offsets) and rows nobody writes.
#[test]
fn three_replicas_with_empty_sends_and_rows_left_alone() {
    let p = program(
        (vec![], None),
        ElementType::F32,
        (&[4], &[5]),
        ElementType::S64,
        3,
    );
    // Replica r's input rows are 10r + 0..4.
    let metas: [[[i64; 3]; 4]; 3] = [
        [[0, 0, 1], [1, 0, 2], [0, 0, 3], [1, 1, 0]],
        [[3, 0, 0], [1, 2, 0], [1, 2, 0], [0, 2, 1]],
        [[0, 2, 0], [0, 1, 1], [0, 0, 0], [2, 0, 1]],
    ];
    let args: Vec<Vec<Literal>> = (0..3)
        .map(|r| {
            let input: Vec<f32> = (0..4).map(|i| (10 * r + i) as f32).collect();
            let mut a = vec![
                Literal::from_vec(&[4], input).unwrap(),
                Literal::from_vec(&[5], vec![-1f32; 5]).unwrap(),
            ];
            a.extend(
                metas[r as usize]
                    .iter()
                    .map(|m| Literal::from_vec(&[3], m.to_vec()).unwrap()),
            );
            a
        })
        .collect();
    let out: Vec<Vec<f32>> = run_replicas(&p, &args, 3, 1)
        .iter()
        .map(|r| f32s(r.as_ref().unwrap()))
        .collect();
    assert_eq!(
        out,
        vec![
            vec![0., 13., -1., -1., -1.],
            vec![22., -1., 10., 11., -1.],
            vec![20., -1., -1., 1., 2.],
        ]
    );
}

/// 4 replicas in groups [[0, 2], [1, 3]], rows of f32[3, 2], two updates per member.
#[test]
fn four_replicas_in_two_groups_with_rows_of_two_dimensions() {
    let p = program(
        (vec![vec![0, 2], vec![1, 3]], None),
        ElementType::F32,
        (&[6, 3, 2], &[4, 3, 2]),
        ElementType::S32,
        4,
    );
    let row = |d: usize, r: usize| -> Vec<f32> {
        (0..6).map(|t| (100 * d + 10 * r + t) as f32).collect()
    };
    // By position in the group: member 0, member 1.
    let metas: [[&[i32]; 4]; 2] = [
        [&[5, 0, 0, 2], &[1, 0, 2, 1], &[3, 0, 0, 3], &[1, 0, 2, 1]],
        [&[1, 4, 0, 3], &[2, 1, 0, 1], &[0, 2, 0, 2], &[2, 1, 0, 1]],
    ];
    let args: Vec<Vec<Literal>> = (0..4usize)
        .map(|d| {
            let input: Vec<f32> = (0..6).flat_map(|r| row(d, r)).collect();
            let output = vec![-(d as f32) - 1.; 24];
            args32((&input, &[6, 3, 2]), (&output, &[4, 3, 2]), metas[d / 2])
        })
        .collect();
    let out = run_replicas(&p, &args, 4, 1);
    let want = |rows: [(usize, usize); 4]| -> Vec<f32> {
        rows.iter().flat_map(|&(d, r)| row(d, r)).collect()
    };
    // Member 0 (replica a, its peer b): [b1, b2, b4, a5]; member 1: [a0, a1, b3, a2].
    let expect = [
        want([(2, 1), (2, 2), (2, 4), (0, 5)]),
        want([(3, 1), (3, 2), (3, 4), (1, 5)]),
        want([(0, 0), (0, 1), (2, 3), (0, 2)]),
        want([(1, 0), (1, 1), (3, 3), (1, 2)]),
    ];
    for (d, (o, e)) in out.iter().zip(&expect).enumerate() {
        let o = o.as_ref().unwrap();
        assert_eq!(o.shape(), Shape::array(ElementType::F32, &[4, 3, 2]));
        assert_eq!(&f32s(o), e, "replica {d}");
    }
}

/// Rows two updates write keep the later one's: group order, then update order.
#[test]
fn overlapping_writes_keep_the_later_update() {
    // k = 2: replica 0 sends itself two updates, both to its row 0, and replica 1 sends it one
    // more there; replica 1 receives nothing.
    let p = program(
        (vec![vec![0, 1]], None),
        ElementType::F32,
        (&[2], &[2]),
        ElementType::S32,
        4,
    );
    let args = vec![
        args32(
            (&[1., 2.], &[2]),
            (&[0., 0.], &[2]),
            // e0 = update 0 to 0: row 0 at 0; e1 = update 1 to 0: row 1 at 0 (later, kept).
            [&[0, 1, 0, 0], &[1, 1, 0, 0], &[0, 0, 0, 0], &[1, 1, 1, 0]],
        ),
        args32(
            (&[5., 6.], &[2]),
            (&[0., 0.], &[2]),
            // Update 0 to replica 0: row 1 at its row 0, after replica 0's own.
            [&[1, 0, 0, 0], &[1, 0, 0, 0], &[0, 0, 0, 0], &[0, 0, 0, 0]],
        ),
    ];
    let out: Vec<Vec<f32>> = run_replicas(&p, &args, 2, 1)
        .iter()
        .map(|r| f32s(r.as_ref().unwrap()))
        .collect();
    assert_eq!(out, vec![vec![6., 0.], vec![0., 0.]]);
}

#[test]
fn invalid_offsets_and_sizes_are_errors_on_every_device() {
    let p = program(
        (vec![vec![0, 1]], None),
        ElementType::F32,
        (&[3], &[4]),
        ElementType::S32,
        2,
    );
    let zeros = [0f32; 4];
    let args = |r0_recv: [i32; 2], r1_in: [i32; 2]| {
        vec![
            args32(
                (&[1., 2., 2.], &[3]),
                (&zeros, &[4]),
                [&[0, 1], &[1, 2], &[0, 0], &r0_recv],
            ),
            args32(
                (&[3., 4., 0.], &[3]),
                (&zeros, &[4]),
                [&r1_in, &[1, 1], &[1, 2], &[2, 1]],
            ),
        ]
    };
    let errs = |a: &[Vec<Literal>]| -> Vec<String> {
        run_replicas(&p, a, 2, 1)
            .into_iter()
            .map(|r| r.map_or_else(|e| e.to_string(), |_| "ok".into()))
            .collect()
    };
    let e = errs(&args([1, 1], [0, 3]));
    assert!(
        e[1].contains("RaggedAllToAll: instruction %6: RaggedAllToAll: ")
            && e[1].contains("input_offsets[1] = 3 + send_sizes[1] = 1 is past the input's 3 rows"),
        "{}",
        e[1]
    );
    assert!(
        e[0].contains("group member 1 (device 1) sends no rows"),
        "{}",
        e[0]
    );
    let e = errs(&args([1, 3], [0, 1]));
    assert!(
        e[0].contains("recv_sizes[1] = 3, but group member 1 (device 1) sends 1 rows"),
        "{}",
        e[0]
    );
    // Replica 1's values are all valid: it gets its result.
    assert_eq!(e[1], "ok");
}

/// A small deterministic generator (xorshift), for the property test's data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Uniform sizes and offsets (`s` rows to each member, written at the sender's position times
/// `s`) give AllToAll's result with split and concat dimension 0; extra output rows keep their
/// values.
#[test]
fn uniform_sizes_equal_all_to_all() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for g in 1..=4i64 {
        for s in 0..=2i64 {
            for rest in [&[][..], &[3][..], &[2, 2][..]] {
                for extra in [0, 2] {
                    let dims_in: Vec<i64> = [g * s].iter().chain(rest).copied().collect();
                    let dims_out: Vec<i64> = [g * s + extra].iter().chain(rest).copied().collect();
                    let groups = vec![(0..g).rev().collect::<Vec<_>>()];
                    let p = program(
                        (groups.clone(), None),
                        ElementType::F32,
                        (&dims_in, &dims_out),
                        ElementType::S32,
                        g,
                    );
                    let kind = CollectiveKind::AllToAll {
                        split_dimension: 0,
                        concat_dimension: 0,
                        split_count: g,
                    };
                    let mut b = Builder::new("a2a");
                    let x = b
                        .parameter(0, Shape::array(ElementType::F32, &dims_in), "x")
                        .unwrap();
                    let r = b.collective(Collective::new(kind, groups), &[x]).unwrap();
                    let a2a = b.build(r).unwrap();
                    let len = |d: &[i64]| d.iter().product::<i64>() as usize;
                    let mut inputs = Vec::new();
                    let mut ragged_args = Vec::new();
                    for d in 0..g {
                        // The group is reversed: replica d is member g - 1 - d.
                        let me = (g - 1 - d) as i32;
                        let input: Vec<f32> = (0..len(&dims_in))
                            .map(|_| (rng.next() % 1000) as f32)
                            .collect();
                        let output: Vec<f32> = (0..len(&dims_out)).map(|i| -(i as f32)).collect();
                        let s = s as i32;
                        let io: Vec<i32> = (0..g as i32).map(|j| j * s).collect();
                        let same = vec![s; g as usize];
                        let oo = vec![me * s; g as usize];
                        ragged_args.push(args32(
                            (&input, &dims_in),
                            (&output, &dims_out),
                            [&io, &same, &oo, &same],
                        ));
                        inputs.push(vec![Literal::from_vec(&dims_in, input).unwrap()]);
                    }
                    let ragged = run_replicas(&p, &ragged_args, g as u32, 1);
                    let dense = run_replicas(&a2a, &inputs, g as u32, 1);
                    for d in 0..g as usize {
                        let r = f32s(ragged[d].as_ref().unwrap());
                        let a = f32s(dense[d].as_ref().unwrap());
                        let n = a.len();
                        let case = format!("g {g}, s {s}, rows {rest:?}, extra {extra}, d {d}");
                        assert_eq!(r[..n], a[..], "{case}");
                        let kept: Vec<f32> = (n..r.len()).map(|i| -(i as f32)).collect();
                        assert_eq!(r[n..], kept[..], "{case}");
                    }
                }
            }
        }
    }
}
