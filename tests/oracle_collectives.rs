//! Collectives against XLA:CPU with N host devices: the same program run by our evaluator on N
//! threads (`eval::run_replicas`) and by XLA (`--xla_force_host_platform_device_count`,
//! `num_replicas` in the compile options), N in {1, 2, 3, 4}, with and without replica groups.
//! Results compared bit for bit: integers trivially; f32 sums too, because both reduce each
//! element in group order (`((x0 + x1) + x2) + x3`: XLA:CPU's in-process all-reduce folds the
//! participants in rank order, which the data below would expose otherwise: 1e8, 1, -1e8).
//! Fails (never skips) when XLA cannot start.

use std::sync::Arc;
use xla_aot::core::builder::Builder;
use xla_aot::core::eval::run_replicas;
use xla_aot::core::stablehlo::try_to_stablehlo_spmd;
use xla_aot::core::{
    BinaryOp, Collective, CollectiveKind, Computation, ElementType, Literal, Shape,
};
use xla_aot::kernels::collectives::run_threads;
use xla_aot::{CollectiveError, Collectives};
use xla_oracle::Oracle;

fn reducer(op: BinaryOp, ty: ElementType) -> Arc<Computation> {
    let mut b = Builder::new("r");
    let x = b.parameter(0, Shape::scalar(ty), "a").unwrap();
    let y = b.parameter(1, Shape::scalar(ty), "b").unwrap();
    let r = b.binary(op, x, y, None).unwrap();
    Arc::new(b.build(r).unwrap())
}

fn program(c: Collective, ty: ElementType, dims: &[i64]) -> Computation {
    let mut b = Builder::new("main");
    let x = b.parameter(0, Shape::array(ty, dims), "x").unwrap();
    let r = b.collective(c, &[x]).unwrap();
    b.build(r).unwrap()
}

/// Device `d`'s operand: values that make the order of a float sum visible.
fn input(ty: ElementType, dims: &[i64], d: usize) -> Literal {
    let n: i64 = dims.iter().product();
    let f = |i: i64| -> f64 {
        match (d + i as usize) % 3 {
            0 => 1e8,
            1 => 1.0 + i as f64 * 0.25,
            _ => -1e8,
        }
    };
    match ty {
        ElementType::F32 => Literal::from_vec(dims, (0..n).map(|i| f(i) as f32).collect()).unwrap(),
        ElementType::S32 => Literal::from_vec(
            dims,
            (0..n)
                .map(|i| (i * 7 + d as i64 * 13) as i32 % 23)
                .collect(),
        )
        .unwrap(),
        _ => unreachable!(),
    }
}

fn bits(l: &Literal) -> Vec<u8> {
    let (_, data) = l.as_array().expect("an array");
    format!("{data:?}").into_bytes()
}

/// Runs `c` on `n` replicas both ways and compares every device's result bit for bit.
fn check(oracle: &mut Oracle, name: &str, c: Collective, ty: ElementType, dims: &[i64], n: u32) {
    check_grid(oracle, name, &program(c, ty, dims), ty, dims, n, 1);
}

/// [`check`] of program `p` on `r` replicas x `parts` partitions.
fn check_grid(
    oracle: &mut Oracle,
    name: &str,
    p: &Computation,
    ty: ElementType,
    dims: &[i64],
    r: u32,
    parts: u32,
) {
    check_with(oracle, name, p, p, ty, dims, r, parts);
}

/// Our evaluator on `p` against XLA on `xla` (the same program, or an equivalent where XLA:CPU
/// lacks the op).
#[allow(clippy::too_many_arguments)]
fn check_with(
    oracle: &mut Oracle,
    name: &str,
    p: &Computation,
    xla: &Computation,
    ty: ElementType,
    dims: &[i64],
    r: u32,
    parts: u32,
) {
    let n = r * parts;
    let args: Vec<Vec<Literal>> = (0..n as usize)
        .map(|d| p.params.iter().map(|_| input(ty, dims, d)).collect())
        .collect();
    let ours = run_replicas(p, &args, r, parts);
    let text = try_to_stablehlo_spmd(xla, r, parts).unwrap();
    let theirs = oracle
        .run_spmd(&text, &args, r, parts)
        .unwrap_or_else(|e| panic!("{name}, N = {n}: XLA failed: {e}\n{text}"));
    for (d, (o, t)) in ours.iter().zip(&theirs).enumerate() {
        let o = o
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}, N = {n}, device {d}: {e}"));
        assert_eq!(t.len(), 1, "{name}: one result");
        let same = match (o.as_slice::<f32>(), t[0].as_slice::<f32>()) {
            (Some(a), Some(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            _ => bits(o) == bits(&t[0]),
        };
        assert!(
            same,
            "{name}, N = {n}, device {d}: ours {o:?}\nXLA {:?}",
            t[0]
        );
    }
}

fn all(n: u32) -> Vec<Vec<i64>> {
    vec![(0..n as i64).collect()]
}

#[test]
fn every_collective_matches_xla_on_1_to_4_replicas() {
    let mut oracle = Oracle::start_spmd(4).unwrap_or_else(|e| panic!("XLA is unavailable: {e}"));
    let f32_ = ElementType::F32;
    for n in 1..=4u32 {
        let nn = i64::from(n);
        let ar = |op, ty, groups| {
            Collective::new(
                CollectiveKind::AllReduce {
                    computation: reducer(op, ty),
                },
                groups,
            )
        };
        check(
            &mut oracle,
            "AllReduce add f32",
            ar(BinaryOp::Add, f32_, vec![]),
            f32_,
            &[5, 3],
            n,
        );
        check(
            &mut oracle,
            "AllReduce max s32",
            ar(BinaryOp::Max, ElementType::S32, all(n)),
            ElementType::S32,
            &[7],
            n,
        );
        if n == 3 {
            // AllReduce's groups may differ in size (exported padded with -1).
            check(
                &mut oracle,
                "AllReduce unequal groups",
                ar(BinaryOp::Add, f32_, vec![vec![0, 2], vec![1]]),
                f32_,
                &[6],
                n,
            );
            // A group listed out of order: the fold follows the listed order, [2, 0, 1].
            let groups = vec![vec![2, 0, 1]];
            check(
                &mut oracle,
                "AllReduce group order",
                ar(BinaryOp::Add, f32_, groups),
                f32_,
                &[6],
                n,
            );
        }
        if n == 4 {
            let groups = vec![vec![0, 2], vec![3, 1]];
            check(
                &mut oracle,
                "AllReduce groups",
                ar(BinaryOp::Add, f32_, groups.clone()),
                f32_,
                &[6],
                n,
            );
            let g = Collective::new(
                CollectiveKind::AllGather {
                    dimension: 1,
                    shard_count: None,
                },
                groups.clone(),
            );
            check(&mut oracle, "AllGather groups", g, f32_, &[2, 3], n);
        }
        let g = Collective::new(
            CollectiveKind::AllGather {
                dimension: 0,
                shard_count: None,
            },
            all(n),
        );
        check(&mut oracle, "AllGather", g, f32_, &[2, 3], n);
        let kind = CollectiveKind::AllToAll {
            split_dimension: 0,
            concat_dimension: 1,
            split_count: nn,
        };
        check(
            &mut oracle,
            "AllToAll",
            Collective::new(kind, all(n)),
            f32_,
            &[2 * nn, 3],
            n,
        );
        let kind = CollectiveKind::ReduceScatter {
            dimension: 0,
            computation: reducer(BinaryOp::Add, f32_),
            shard_count: None,
        };
        check(
            &mut oracle,
            "ReduceScatter",
            Collective::new(kind, all(n)),
            f32_,
            &[2 * nn, 3],
            n,
        );
        let pairs = (0..nn)
            .map(|i| (i, (i + 1) % nn))
            .filter(|&(s, _)| s != 1)
            .collect();
        let kind = CollectiveKind::CollectivePermute {
            source_target_pairs: pairs,
        };
        check(
            &mut oracle,
            "CollectivePermute",
            Collective::new(kind, vec![]),
            f32_,
            &[4],
            n,
        );
        // XLA:CPU has no collective-broadcast ("not supported by XLA:CPU ThunkEmitter"): its
        // result is checked against XLA's AllGather of the group, first block sliced.
        let group: Vec<i64> = (0..nn).rev().collect();
        let b = Collective::new(CollectiveKind::CollectiveBroadcast, vec![group.clone()]);
        let ours = program(b, f32_, &[3]);
        let mut x = Builder::new("main");
        let p = x.parameter(0, Shape::array(f32_, &[3]), "x").unwrap();
        let g = Collective::new(
            CollectiveKind::AllGather {
                dimension: 0,
                shard_count: None,
            },
            vec![group],
        );
        let g = x.collective(g, &[p]).unwrap();
        let first = x.slice(g, &[0], &[3], None).unwrap();
        let theirs = x.build(first).unwrap();
        check_with(
            &mut oracle,
            "CollectiveBroadcast",
            &ours,
            &theirs,
            f32_,
            &[3],
            n,
            1,
        );
    }
}

/// Replicas x partitions: the four group modes.
#[test]
fn group_modes_match_xla_on_2_replicas_x_2_partitions() {
    let mut oracle = Oracle::start_spmd(4).unwrap_or_else(|e| panic!("XLA is unavailable: {e}"));
    let f32_ = ElementType::F32;
    let with = |kind, groups, channel: Option<i64>, global| Collective {
        kind,
        replica_groups: groups,
        channel_id: channel,
        use_global_device_ids: global,
    };
    let add = || reducer(BinaryOp::Add, f32_);
    let cases = [
        (
            "AllReduce cross_replica",
            with(
                CollectiveKind::AllReduce { computation: add() },
                vec![vec![0, 1]],
                None,
                false,
            ),
        ),
        (
            "AllReduce cross_replica_and_partition",
            with(
                CollectiveKind::AllReduce { computation: add() },
                vec![vec![1, 0]],
                Some(1),
                false,
            ),
        ),
        (
            "AllReduce flattened_ids",
            with(
                CollectiveKind::AllReduce { computation: add() },
                vec![vec![0, 3], vec![2, 1]],
                Some(1),
                true,
            ),
        ),
        (
            "AllGather flattened_ids",
            with(
                CollectiveKind::AllGather {
                    dimension: 0,
                    shard_count: None,
                },
                vec![vec![3, 0, 1, 2]],
                Some(1),
                true,
            ),
        ),
        (
            "AllGather cross_replica_and_partition",
            with(
                CollectiveKind::AllGather {
                    dimension: 0,
                    shard_count: Some(4),
                },
                vec![vec![1, 0]],
                Some(1),
                false,
            ),
        ),
        (
            "ReduceScatter cross_replica_and_partition",
            with(
                CollectiveKind::ReduceScatter {
                    dimension: 0,
                    computation: add(),
                    shard_count: Some(4),
                },
                vec![vec![1, 0]],
                Some(1),
                false,
            ),
        ),
        (
            "AllToAll cross_partition",
            with(
                CollectiveKind::AllToAll {
                    split_dimension: 0,
                    concat_dimension: 0,
                    split_count: 2,
                },
                vec![vec![0, 1]],
                Some(1),
                false,
            ),
        ),
        (
            "CollectivePermute cross_partition",
            with(
                CollectiveKind::CollectivePermute {
                    source_target_pairs: vec![(0, 1)],
                },
                vec![],
                Some(1),
                false,
            ),
        ),
        (
            "CollectivePermute cross_replica",
            with(
                CollectiveKind::CollectivePermute {
                    source_target_pairs: vec![(1, 0)],
                },
                vec![],
                None,
                false,
            ),
        ),
    ];
    for (name, c) in cases {
        check_grid(
            &mut oracle,
            name,
            &program(c, f32_, &[4, 2]),
            f32_,
            &[4, 2],
            2,
            2,
        );
    }
    // Ids joined to the operand: ReplicaId on the grid; PartitionId on 4 x 1 only (XLA's
    // SPMD partitioner, which partitions need, refuses PartitionId as ambiguous).
    for (with_partition, r, parts) in [(false, 2, 2), (true, 4, 1)] {
        let mut b = Builder::new("ids");
        let x = b.parameter(0, Shape::array(f32_, &[1]), "x").unwrap();
        let mut ids = vec![b.replica_id().unwrap()];
        if with_partition {
            ids.push(b.partition_id().unwrap());
        }
        let mut pieces = Vec::new();
        for id in ids {
            let id = b.reshape(id, None, &[1]).unwrap();
            pieces.push(b.convert(id, f32_).unwrap());
        }
        pieces.push(x);
        let out = b.concat_in_dim(&pieces, 0).unwrap();
        let prog = b.build(out).unwrap();
        check_grid(
            &mut oracle,
            "ReplicaId, PartitionId",
            &prog,
            f32_,
            &[1],
            r,
            parts,
        );
    }
}

xla_aot::xla! {
    pub fn g_sum(x: f32[5, 3]) -> f32[5, 3] { CrossReplicaSum(x) }
    pub fn g_max(x: s32[7]) -> s32[7] { AllReduce(x, |a, b| Max(a, b), replica_groups = [[0, 1]]) }
    pub fn g_pair(x: f32[6], y: f32[2]) -> (f32[6], f32[2]) {
        AllReduce(x, y, |a, b| a * b + a, replica_groups = [[1, 0]])
    }
    pub fn g_gather(x: f32[2, 3]) -> f32[2, 6] { AllGather(x, all_gather_dim = 1, replica_groups = [[0, 1]]) }
    pub fn g_all_to_all(x: f32[4, 3]) -> f32[2, 6] {
        AllToAll(x, split_dimension = 0, concat_dimension = 1, split_count = 2)
    }
    pub fn g_scatter(x: f32[4, 3]) -> f32[2, 3] {
        ReduceScatter(x, |a, b| a + b, scatter_dimension = 0, replica_groups = [[0, 1]])
    }
    pub fn g_permute(x: f32[4]) -> f32[4] { CollectivePermute(x, source_target_pairs = [[0, 1]]) }
    pub fn g_broadcast(x: f32[3]) -> f32[3] { CollectiveBroadcast(x, replica_groups = [[1, 0]]) }
    pub fn g_loop(x: f32[4]) -> f32[4] {
        While(|s| Lt(Reduce(Abs(s), 0.0, dimensions = [0], |a, b| a + b), 1e30), |s| CrossReplicaSum(s), x)
    }
    pub fn g_branch(x: f32[4]) -> f32[4] {
        let t = CrossReplicaSum(x);
        Conditional(Gt(Reduce(t, 0.0, dimensions = [0], |a, b| a + b), 0.0), t, |a| CrossReplicaSum(a), t, |a| Neg(a))
    }
    pub fn g_big(x: f32[262144]) -> f32[262144] { Mul(CrossReplicaSum(Mul(x, x)), x) }
    pub fn g_ids(x: f32[1]) -> (u32[], u32[], f32[1]) { Tuple(ReplicaId(), PartitionId(), x) }
    pub fn g_gather_pair(x: f32[2, 3], y: s32[2]) -> (f32[4, 3], s32[4]) {
        AllGather(x, y, all_gather_dim = 0, replica_groups = [[1, 0]])
    }
    pub fn g_all_to_all_pair(x: f32[4, 3], y: s32[2, 2]) -> (f32[2, 6], s32[1, 4]) {
        AllToAll(x, y, split_dimension = 0, concat_dimension = 1, split_count = 2, replica_groups = [[0, 1]])
    }
    pub fn g_all_to_all_same(x: f32[4, 3], y: f32[4, 3]) -> (f32[2, 6], f32[2, 6]) {
        AllToAll(x, y, split_dimension = 0, concat_dimension = 1, split_count = 2, replica_groups = [[1, 0]])
    }
    // cross_replica_and_partition: a replica group of 2 with both partitions, 4 devices.
    pub fn g_gather_rap(x: f32[2, 3]) -> f32[2, 12] {
        AllGather(x, all_gather_dim = 1, replica_groups = [[0, 1]], channel_id = 1, shard_count = 4)
    }
    pub fn g_scatter_rap(x: f32[8, 3]) -> f32[2, 3] {
        ReduceScatter(x, |a, b| a + b, scatter_dimension = 0, replica_groups = [[1, 0]], channel_id = 1, shard_count = 4)
    }
}

/// A generated fn's `run_literals(ctx, args)`.
type RunLiterals =
    dyn Fn(&dyn Collectives, &[Literal]) -> Result<Literal, xla_aot::core::Error> + Sync;

/// A generated fn on 2 threads (through its `run_literals(ctx, ..)`, which calls `into`)
/// against the evaluator on its IR and, where XLA:CPU has the op, XLA.
fn check_generated(
    oracle: &mut Oracle,
    name: &str,
    run: &RunLiterals,
    comp: &Computation,
    xla: bool,
) {
    check_generated_on(oracle, name, run, comp, xla, (2, 1));
}

/// [`check_generated`] on `r` replicas x `p` partitions.
fn check_generated_on(
    oracle: &mut Oracle,
    name: &str,
    run: &RunLiterals,
    comp: &Computation,
    xla: bool,
    (r, p): (u32, u32),
) {
    let n = r * p;
    let args: Vec<Vec<Literal>> = (0..n as usize)
        .map(|d| {
            comp.params
                .iter()
                .map(|p| {
                    let a = p.as_array().unwrap();
                    input(a.ty, &a.dims, d)
                })
                .collect()
        })
        .collect();
    let generated = run_threads(r, p, |ctx| {
        run(ctx, &args[ctx.device_id() as usize])
            .map_err(|e| CollectiveError::Transport(e.to_string()))
    });
    let evaluated = run_replicas(comp, &args, r, p);
    let theirs = if xla {
        let text = try_to_stablehlo_spmd(comp, r, p).unwrap();
        Some(
            oracle
                .run_spmd(&text, &args, r, p)
                .unwrap_or_else(|e| panic!("{name}: XLA: {e}\n{text}")),
        )
    } else {
        None
    };
    for d in 0..n as usize {
        let g = generated[d]
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}, device {d}: {e}"));
        let e = evaluated[d]
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}, device {d}: {e}"));
        let (mut gl, mut el) = (Vec::new(), Vec::new());
        leaves(g, &mut gl);
        leaves(e, &mut el);
        assert_eq!(
            gl.iter().map(|l| bits(l)).collect::<Vec<_>>(),
            el.iter().map(|l| bits(l)).collect::<Vec<_>>(),
            "{name}, device {d}: generated {g:?}\nevaluator {e:?}"
        );
        if let Some(t) = &theirs {
            let tl: Vec<Vec<u8>> = t[d].iter().map(bits).collect();
            assert_eq!(
                gl.iter().map(|l| bits(l)).collect::<Vec<_>>(),
                tl,
                "{name}, device {d}: generated {g:?}\nXLA {:?}",
                t[d]
            );
        }
    }
}

fn leaves<'a>(l: &'a Literal, out: &mut Vec<&'a Literal>) {
    match l {
        Literal::Tuple(v) => v.iter().for_each(|x| leaves(x, out)),
        other => out.push(other),
    }
}

#[test]
fn generated_code_on_threads_matches_the_evaluator_and_xla() {
    let mut oracle = Oracle::start_spmd(4).unwrap_or_else(|e| panic!("XLA is unavailable: {e}"));
    macro_rules! case {
        ($f:ident, $xla:expr) => {
            check_generated(
                &mut oracle,
                stringify!($f),
                &|c, a| $f::run_literals(c, a),
                &$f::computation(),
                $xla,
            )
        };
    }
    case!(g_sum, true);
    case!(g_max, true);
    // XLA:CPU's all-reduce takes sum/product/min/max only: a * b + a is ours and the evaluator's.
    case!(g_pair, false);
    case!(g_gather, true);
    case!(g_all_to_all, true);
    case!(g_scatter, true);
    case!(g_permute, true);
    // XLA:CPU has no collective-broadcast (checked above through AllGather).
    case!(g_broadcast, false);
    case!(g_ids, true);
    // Collectives inside a While body and a Conditional branch.
    case!(g_loop, true);
    case!(g_branch, true);
    // Several operands: one result each.
    case!(g_gather_pair, true);
    // AllToAll's operands are exported as one all_to_all each: XLA runs a variadic
    // all_to_all as its tuple all-to-all (operand j to member j), not the spec's split.
    case!(g_all_to_all_pair, true);
    case!(g_all_to_all_same, true);
    // shard_count across replicas and partitions, on 2 x 2 devices (a group in XLA's order,
    // replica-major, which spmd::groups follows; the StableHLO spec's is partition-major).
    check_generated_on(
        &mut oracle,
        "g_gather_rap",
        &|c, a| g_gather_rap::run_literals(c, a),
        &g_gather_rap::computation(),
        true,
        (2, 2),
    );
    check_generated_on(
        &mut oracle,
        "g_scatter_rap",
        &|c, a| g_scatter_rap::run_literals(c, a),
        &g_scatter_rap::computation(),
        true,
        (2, 2),
    );
}

/// Generated code whose shard_count is not the run's group size returns an `Err` naming the
/// op on every device (checked before any exchange), never a panic or a wrong shape.
#[test]
fn generated_code_refuses_a_run_whose_groups_differ_from_shard_count() {
    // shard_count = 4 says 2 partitions; the run has 1.
    let args = vec![input(ElementType::F32, &[2, 3], 0)];
    let out = run_threads(2, 1, |ctx| {
        g_gather_rap::run_literals(ctx, &args)
            .map_err(|e| CollectiveError::Transport(e.to_string()))
    });
    for r in out {
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains("AllGather") && e.contains("has 2 devices") && e.contains("shard_count = 4"),
            "{e}"
        );
    }
}

/// A program large enough that its loops fork onto rayon's pool, on more devices than pool
/// threads: the devices run on their own threads (only the loops enter the pool), so none
/// waits for a peer inside the pool and the run finishes.
#[test]
fn large_programs_on_more_devices_than_cores_do_not_deadlock() {
    let n = 4u32;
    let args: Vec<Vec<Literal>> = (0..n as usize)
        .map(|d| vec![input(ElementType::F32, &[262144], d)])
        .collect();
    let generated = run_threads(n, 1, |ctx| {
        g_big::run_literals(ctx, &args[ctx.device_id() as usize])
            .map_err(|e| CollectiveError::Transport(e.to_string()))
    });
    let evaluated = run_replicas(&g_big::computation(), &args, n, 1);
    for (g, e) in generated.iter().zip(&evaluated) {
        assert_eq!(bits(g.as_ref().unwrap()), bits(e.as_ref().unwrap()));
    }
}
