//! RaggedAllToAll in generated code (`xla!` on the thread runner) against the evaluator on the
//! same inputs, bit for bit: the seed's example exactly, 3 and 4 devices (empty sends, rows
//! nobody writes, rows of several dimensions, groups other than all, s64 offsets, integer
//! data), a channel on partitions, the op fused between elementwise ops, and invalid offsets
//! or sizes as an `Err` naming them (never a panic). No XLA oracle: XLA:CPU cannot run
//! ragged-all-to-all (jaxlib 0.10.2: "HLO opcode `ragged-all-to-all` is not supported by
//! XLA:CPU ThunkEmitter").

use xla_aot::core::eval::run_replicas;
use xla_aot::core::{Computation, Literal};
use xla_aot::kernels::collectives::run_threads;
use xla_aot::{CollectiveError, Collectives};

xla_aot::xla! {
    pub fn r_seed(x: f32[3], y: f32[4], io: s32[2], ss: s32[2], oo: s32[2], rs: s32[2]) -> f32[4] {
        RaggedAllToAll(x, y, io, ss, oo, rs, replica_groups = [[0, 1]])
    }
    pub fn r_partitions(x: f32[3], y: f32[4], io: s32[2], ss: s32[2], oo: s32[2], rs: s32[2]) -> f32[4] {
        RaggedAllToAll(x, y, io, ss, oo, rs, replica_groups = [[0, 1]], channel_id = 1)
    }
    pub fn r_all3(x: f32[4], y: f32[5], io: s64[3], ss: s64[3], oo: s64[3], rs: s64[3]) -> f32[5] {
        RaggedAllToAll(x, y, io, ss, oo, rs)
    }
    pub fn r_rows(x: f32[6, 3, 2], y: f32[4, 3, 2], io: s32[4], ss: s32[4], oo: s32[4], rs: s32[4]) -> f32[4, 3, 2] {
        RaggedAllToAll(x, y, io, ss, oo, rs, replica_groups = [[0, 2], [1, 3]])
    }
    pub fn r_ints(x: s32[4, 2], y: s32[3, 2], io: s64[2], ss: s64[2], oo: s64[2], rs: s64[2]) -> s32[3, 2] {
        RaggedAllToAll(x, y, io, ss, oo, rs, replica_groups = [[1, 0]])
    }
    pub fn r_fused(x: f32[3], y: f32[4], io: s32[2], ss: s32[2], oo: s32[2], rs: s32[2]) -> f32[4] {
        let r = RaggedAllToAll(Add(x, x), Neg(y), io, ss, oo, rs, replica_groups = [[0, 1]]);
        Mul(r, r)
    }
}

xla_aot::stablehlo! {
    /// What jaxlib 0.10.2 writes for `jax.lax.ragged_all_to_all` in a `shard_map` over 2
    /// devices (the seed's example).
    pub fn r_jax = mlir r#"
        module @jit_fwd attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
          func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2xi32>, %arg3: tensor<2xi32>, %arg4: tensor<2xi32>, %arg5: tensor<2xi32>) -> (tensor<4xf32> {jax.result_info = ""}) {
            %7 = stablehlo.custom_call @ragged_all_to_all(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<3xf32>, tensor<4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4xf32>
            return %7 : tensor<4xf32>
          }
        }"#;
}

/// A generated fn's `run_literals(ctx, args)`.
type RunLiterals =
    dyn Fn(&dyn Collectives, &[Literal]) -> Result<Literal, xla_aot::core::Error> + Sync;

fn f32s(dims: &[i64], v: &[f32]) -> Literal {
    Literal::from_vec(dims, v.to_vec()).unwrap()
}

fn ints<T: xla_aot::core::ArrayElement + Copy>(v: &[T]) -> Literal {
    Literal::from_vec(&[v.len() as i64], v.to_vec()).unwrap()
}

fn bits(l: &Literal) -> String {
    format!("{l:?}")
}

/// Runs `run` on `r x p` threads and the evaluator on `comp`, device `d` on `args[d]`: both
/// results per device, as `Ok(debug text)` or `Err(message)`.
fn both(
    run: &RunLiterals,
    comp: &Computation,
    args: &[Vec<Literal>],
    (r, p): (u32, u32),
) -> Vec<(Result<String, String>, Result<String, String>)> {
    let generated = run_threads(r, p, |ctx| {
        run(ctx, &args[ctx.device_id() as usize])
            .map_err(|e| CollectiveError::Transport(e.to_string()))
    });
    let evaluated = run_replicas(comp, args, r, p);
    generated
        .into_iter()
        .zip(evaluated)
        .map(|(g, e)| {
            (
                g.map(|l| bits(&l)).map_err(|e| e.to_string()),
                e.map(|l| bits(&l)).map_err(|e| e.to_string()),
            )
        })
        .collect()
}

/// Generated code and evaluator agree and succeed on every device; the results.
fn agree(
    name: &str,
    run: &RunLiterals,
    comp: &Computation,
    args: &[Vec<Literal>],
    grid: (u32, u32),
) -> Vec<String> {
    both(run, comp, args, grid)
        .into_iter()
        .enumerate()
        .map(|(d, (g, e))| {
            let g = g.unwrap_or_else(|e| panic!("{name}, device {d}: generated: {e}"));
            let e = e.unwrap_or_else(|e| panic!("{name}, device {d}: evaluator: {e}"));
            assert_eq!(g, e, "{name}, device {d}: generated vs evaluator");
            g
        })
        .collect()
}

/// The seed's example: device `d`'s six arguments.
fn seed_args() -> Vec<Vec<Literal>> {
    let zeros = [0f32; 4];
    vec![
        vec![
            f32s(&[3], &[1., 2., 2.]),
            f32s(&[4], &zeros),
            ints(&[0i32, 1]),
            ints(&[1i32, 2]),
            ints(&[0i32, 0]),
            ints(&[1i32, 1]),
        ],
        vec![
            f32s(&[3], &[3., 4., 0.]),
            f32s(&[4], &zeros),
            ints(&[0i32, 1]),
            ints(&[1i32, 1]),
            ints(&[1i32, 2]),
            ints(&[2i32, 1]),
        ],
    ]
}

#[test]
fn the_seeds_example_in_generated_code() {
    let want = [
        bits(&f32s(&[4], &[1., 3., 0., 0.])),
        bits(&f32s(&[4], &[2., 2., 4., 0.])),
    ];
    let out = agree(
        "r_seed",
        &|c, a| r_seed::run_literals(c, a),
        &r_seed::computation(),
        &seed_args(),
        (2, 1),
    );
    assert_eq!(out, want);
    // On partitions, with a channel (cross_partition, as JAX's shard_map writes it).
    let out = agree(
        "r_partitions",
        &|c, a| r_partitions::run_literals(c, a),
        &r_partitions::computation(),
        &seed_args(),
        (1, 2),
    );
    assert_eq!(out, want);
    // JAX's own text through `stablehlo!`.
    let out = agree(
        "r_jax",
        &|c, a| r_jax::run_literals(c, a),
        &r_jax::computation(),
        &seed_args(),
        (1, 2),
    );
    assert_eq!(out, want);
    // Through the typed entry point too.
    let out = run_threads(2, 1, |ctx| {
        use xla_aot::{Tensor, D1};
        let a = &seed_args()[ctx.device_id() as usize];
        let t = |l: &Literal| l.as_slice::<f32>().unwrap().to_vec();
        let i = |l: &Literal| l.as_slice::<i32>().unwrap().to_vec();
        let x = Tensor::<f32, D1<3>>::from_vec(t(&a[0])).unwrap();
        let y = Tensor::<f32, D1<4>>::from_vec(t(&a[1])).unwrap();
        let m: Vec<Tensor<i32, D1<2>>> = a[2..]
            .iter()
            .map(|l| Tensor::<i32, D1<2>>::from_vec(i(l)).unwrap())
            .collect();
        let r = r_seed(ctx, &x, &y, &m[0], &m[1], &m[2], &m[3])?;
        Ok(r.as_slice().to_vec())
    });
    assert_eq!(out[0].as_ref().unwrap(), &[1., 3., 0., 0.]);
    assert_eq!(out[1].as_ref().unwrap(), &[2., 2., 4., 0.]);
}

#[test]
fn three_and_four_devices_match_the_evaluator() {
    // 3 replicas, every device (no groups), s64: empty sends, rows nobody writes.
    let metas: [[[i64; 3]; 4]; 3] = [
        [[0, 0, 1], [1, 0, 2], [0, 0, 3], [1, 1, 0]],
        [[3, 0, 0], [1, 2, 0], [1, 2, 0], [0, 2, 1]],
        [[0, 2, 0], [0, 1, 1], [0, 0, 0], [2, 0, 1]],
    ];
    let args: Vec<Vec<Literal>> = (0..3usize)
        .map(|r| {
            let input: Vec<f32> = (0..4).map(|i| (10 * r + i) as f32).collect();
            let mut a = vec![f32s(&[4], &input), f32s(&[5], &[-1.; 5])];
            a.extend(metas[r].iter().map(|m| ints(m)));
            a
        })
        .collect();
    let out = agree(
        "r_all3",
        &|c, a| r_all3::run_literals(c, a),
        &r_all3::computation(),
        &args,
        (3, 1),
    );
    assert_eq!(
        out,
        [
            bits(&f32s(&[5], &[0., 13., -1., -1., -1.])),
            bits(&f32s(&[5], &[22., -1., 10., 11., -1.])),
            bits(&f32s(&[5], &[20., -1., -1., 1., 2.])),
        ]
    );

    // 4 replicas in groups [[0, 2], [1, 3]], rows f32[3, 2], two updates per member.
    let row = |d: usize, r: usize| -> Vec<f32> {
        (0..6).map(|t| (100 * d + 10 * r + t) as f32).collect()
    };
    let metas: [[&[i32]; 4]; 2] = [
        [&[5, 0, 0, 2], &[1, 0, 2, 1], &[3, 0, 0, 3], &[1, 0, 2, 1]],
        [&[1, 4, 0, 3], &[2, 1, 0, 1], &[0, 2, 0, 2], &[2, 1, 0, 1]],
    ];
    let args: Vec<Vec<Literal>> = (0..4usize)
        .map(|d| {
            let input: Vec<f32> = (0..6).flat_map(|r| row(d, r)).collect();
            let mut a = vec![
                f32s(&[6, 3, 2], &input),
                f32s(&[4, 3, 2], &[-(d as f32) - 1.; 24]),
            ];
            a.extend(metas[d / 2].iter().map(|m| ints(m)));
            a
        })
        .collect();
    let out = agree(
        "r_rows",
        &|c, a| r_rows::run_literals(c, a),
        &r_rows::computation(),
        &args,
        (4, 1),
    );
    let want = |rows: [(usize, usize); 4]| -> String {
        let v: Vec<f32> = rows.iter().flat_map(|&(d, r)| row(d, r)).collect();
        bits(&f32s(&[4, 3, 2], &v))
    };
    assert_eq!(out[0], want([(2, 1), (2, 2), (2, 4), (0, 5)]));
    assert_eq!(out[1], want([(3, 1), (3, 2), (3, 4), (1, 5)]));
    assert_eq!(out[2], want([(0, 0), (0, 1), (2, 3), (0, 2)]));
    assert_eq!(out[3], want([(1, 0), (1, 1), (3, 3), (1, 2)]));
}

#[test]
fn integer_rows_a_reversed_group_and_fused_neighbours() {
    // Group [[1, 0]]: replica 1 is member 0. Replica 0 (member 1) sends its rows 1..3 to
    // member 0 (replica 1) at its row 0 and nothing to itself; replica 1 (member 0) sends its
    // row 3 to itself at row 2 and its row 0 to member 1 (replica 0) at row 1.
    let int_rows = |d: i32| -> Literal {
        Literal::from_vec(&[4, 2], (0..8).map(|i| 100 * d + i).collect()).unwrap()
    };
    let out_rows = || Literal::from_vec(&[3, 2], vec![-7i32; 6]).unwrap();
    let args = vec![
        vec![
            int_rows(0),
            out_rows(),
            ints(&[1i64, 0]),
            ints(&[2i64, 0]),
            ints(&[0i64, 0]),
            ints(&[1i64, 0]),
        ],
        vec![
            int_rows(1),
            out_rows(),
            ints(&[3i64, 0]),
            ints(&[1i64, 1]),
            ints(&[2i64, 1]),
            ints(&[1i64, 2]),
        ],
    ];
    let out = agree(
        "r_ints",
        &|c, a| r_ints::run_literals(c, a),
        &r_ints::computation(),
        &args,
        (2, 1),
    );
    let lit = |v: Vec<i32>| bits(&Literal::from_vec(&[3, 2], v).unwrap());
    assert_eq!(out[0], lit(vec![-7, -7, 100, 101, -7, -7]));
    assert_eq!(out[1], lit(vec![2, 3, 4, 5, 106, 107]));
    // The op between elementwise ops: (ragged(2x, -y))^2.
    let out = agree(
        "r_fused",
        &|c, a| r_fused::run_literals(c, a),
        &r_fused::computation(),
        &seed_args(),
        (2, 1),
    );
    assert_eq!(out[0], bits(&f32s(&[4], &[4., 36., 0., 0.])));
    assert_eq!(out[1], bits(&f32s(&[4], &[16., 16., 64., 0.])));
}

#[test]
fn invalid_offsets_and_sizes_are_errs_in_generated_code_as_in_the_evaluator() {
    let bad = |d: usize, m: usize, v: [i32; 2]| {
        let mut a = seed_args();
        a[d][2 + m] = ints(&v);
        a
    };
    // (arguments, the device whose values are invalid, its message, whether its peer fails
    // too: a sender's invalid values stop its sends, a receiver's only its own result).
    let cases = [
        // Replica 1's second update reads rows 3..4 of 3.
        (
            bad(1, 0, [0, 3]),
            1,
            "input_offsets[1] = 3 + send_sizes[1] = 1 is past the input's 3 rows",
            true,
        ),
        // Replica 0 writes replica 1's rows 3..5 of 4.
        (
            bad(0, 2, [0, 3]),
            0,
            "output_offsets[1] = 3 + send_sizes[1] = 2 is past the output's 4 rows",
            true,
        ),
        (
            bad(0, 1, [-1, 2]),
            0,
            "send_sizes[0] = -1 is negative",
            true,
        ),
        // Replica 1 expects 3 rows from replica 0, which sends 2.
        (
            bad(1, 3, [3, 1]),
            1,
            "recv_sizes[0] = 3, but group member 0 (device 0) sends 2 rows",
            false,
        ),
    ];
    for (args, culprit, message, peer_fails) in cases {
        let results = both(
            &|c, a| r_seed::run_literals(c, a),
            &r_seed::computation(),
            &args,
            (2, 1),
        );
        for (d, (g, e)) in results.into_iter().enumerate() {
            if d != culprit && !peer_fails {
                assert_eq!(g.unwrap(), e.unwrap(), "device {d}");
                continue;
            }
            let (g, e) = (g.unwrap_err(), e.unwrap_err());
            for text in [&g, &e] {
                assert!(text.contains("RaggedAllToAll"), "device {d}: {text}");
                let m = if d == culprit {
                    message
                } else {
                    "sends no rows"
                };
                assert!(text.contains(m), "device {d}: {text}");
            }
        }
    }
}

#[test]
fn the_export_is_jaxs_custom_call() {
    let text = r_partitions::stablehlo();
    assert!(
        text.contains(
            "stablehlo.custom_call @ragged_all_to_all(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) \
             {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = \
             dense<[[0, 1]]> : tensor<1x2xi64>}}"
        ),
        "{text}"
    );
}
