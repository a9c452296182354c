//! Collectives on import: all_gather's and reduce_scatter's `shard_count` derived from the
//! declared types (kept only where the groups do not tell the size), variadic all_gather and
//! all_to_all, and the errors of types that imply no whole group size.

use super::*;
use crate::ir::{Collective, Op};

/// `@main(%x: tensor<OPERAND>) -> RESULT` whose body is one `op` (generic form, `attrs`).
fn module(op: &str, attrs: &str, operands: &[&str], results: &[&str], region: bool) -> String {
    let params: Vec<String> = operands
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%a{i}: tensor<{t}>"))
        .collect();
    let names: Vec<String> = (0..operands.len()).map(|i| format!("%a{i}")).collect();
    let ins: Vec<String> = operands.iter().map(|t| format!("tensor<{t}>")).collect();
    let outs: Vec<String> = results.iter().map(|t| format!("tensor<{t}>")).collect();
    let rets: Vec<String> = (0..results.len()).map(|i| format!("%r#{i}")).collect();
    let body = if region {
        " ({\n    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n      %s = stablehlo.add %p, %q : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n  })"
    } else {
        ""
    };
    format!(
        "func.func @main({}) -> ({}) {{\n  %r:{} = \"stablehlo.{op}\"({}){body} {{{attrs}}} : ({}) -> ({})\n  return {} : {}\n}}\n",
        params.join(", "),
        outs.join(", "),
        results.len(),
        names.join(", "),
        ins.join(", "),
        outs.join(", "),
        rets.join(", "),
        outs.join(", "),
    )
}

/// The collective of `@main`.
fn the_collective(text: &str) -> Collective {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let main = &m.function("main").unwrap().computation;
    main.instrs
        .iter()
        .find_map(|i| {
            if let Op::Collective(c) = &i.op {
                Some(c.clone())
            } else {
                None
            }
        })
        .expect("a collective")
}

const CRAP: &str = "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, \
                    channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>";

#[test]
fn shard_count_comes_from_the_types_where_the_groups_do_not_tell_it() {
    let ag = |groups: &str, result: &str| {
        module(
            "all_gather",
            &format!("all_gather_dim = 1 : i64, {groups}"),
            &["2x2xf32"],
            &[result],
            false,
        )
    };
    // cross_replica_and_partition: 2 replicas x 2 partitions.
    let c = the_collective(&ag(CRAP, "2x8xf32"));
    assert_eq!(c.shard_count(), Some(4));
    // Every device (no groups): the types are the only source.
    let c = the_collective(&ag("replica_groups = dense<> : tensor<0x0xi64>", "2x6xf32"));
    assert_eq!(c.shard_count(), Some(3));
    // Groups that tell the size: the IR is the same as without a shard_count.
    let c = the_collective(&ag(
        "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>",
        "2x4xf32",
    ));
    assert_eq!(c.shard_count(), None);
    let rs = module(
        "reduce_scatter",
        &format!("scatter_dimension = 1 : i64, {CRAP}"),
        &["2x4xf32"],
        &["2x2xf32"],
        true,
    );
    assert_eq!(the_collective(&rs).shard_count(), Some(2));
}

#[test]
fn types_implying_no_whole_group_size_are_clear_errors() {
    let e = parse_module(&module(
        "all_gather",
        &format!("all_gather_dim = 1 : i64, {CRAP}"),
        &["2x2xf32"],
        &["2x5xf32"],
        false,
    ))
    .unwrap_err();
    assert!(
        matches!(&e, ImportError::Invalid { message, pos } if pos.line == 2
            && message == "stablehlo.all_gather: dimension 1 (all_gather_dim) of result 0, 5, \
                           is not a multiple of the operand's, 2: the group size (XLA's \
                           shard_count) it implies is not a whole number"),
        "{e}"
    );
    let e = parse_module(&module(
        "reduce_scatter",
        &format!("scatter_dimension = 0 : i64, {CRAP}"),
        &["5x2xf32"],
        &["2x2xf32"],
        true,
    ))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("dimension 0 (scatter_dimension) of operand 0, 5"),
        "{e}"
    );
    // Two operands implying different sizes.
    let e = parse_module(&module(
        "all_gather",
        &format!("all_gather_dim = 0 : i64, {CRAP}"),
        &["2xf32", "2xi32"],
        &["8xf32", "4xi32"],
        false,
    ))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("operand 0 imply a group size (shard_count) of 4, those of operand 1 of 2"),
        "{e}"
    );
    // Types disagreeing with groups that tell the size: inference names both numbers.
    let e = parse_module(&module(
        "all_gather",
        "all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>",
        &["2xf32"],
        &["6xf32"],
        false,
    ))
    .unwrap_err();
    assert!(
        matches!(&e, ImportError::Shape { op, error, .. } if op == "stablehlo.all_gather"
            && error.message.contains("shard_count = 3 must be the group size, 2")),
        "{e}"
    );
}

#[test]
fn variadic_all_gather_and_all_to_all_import_as_tuples() {
    let text = module(
        "all_gather",
        "all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>",
        &["2x2xi64", "2x2xi32"],
        &["2x4xi64", "2x4xi32"],
        false,
    );
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.function("main").unwrap().results, 2);
    let text = module(
        "all_to_all",
        "split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, \
         replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>",
        &["2x4xi64", "3x4xi32"],
        &["4x2xi64", "6x2xi32"],
        false,
    );
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.function("main").unwrap().results, 2);
}

/// What jaxlib 0.10.2 writes for `jax.lax.ragged_all_to_all` under `shard_map` on 2 devices
/// (the seed's example: f32[3] rows into f32[4]).
const JAX_RAGGED: &str = r#"module @jit_fwd attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2xi32>, %arg3: tensor<2xi32>, %arg4: tensor<2xi32>, %arg5: tensor<2xi32>) -> (tensor<4xf32> {jax.result_info = ""}) {
    %7 = stablehlo.custom_call @ragged_all_to_all(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<3xf32>, tensor<4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4xf32>
    return %7 : tensor<4xf32>
  }
}
"#;

#[test]
fn jaxs_ragged_all_to_all_imports_runs_and_exports_the_same_call() {
    let c = the_collective(JAX_RAGGED);
    assert!(matches!(c.kind, crate::ir::CollectiveKind::RaggedAllToAll));
    assert_eq!(
        (c.replica_groups.clone(), c.channel_id),
        (vec![vec![0, 1]], Some(1))
    );
    let m = parse_module(JAX_RAGGED).unwrap();
    let main = &m.function("main").unwrap().computation;
    // The seed's example on 1 replica x 2 partitions (cross_partition, as JAX runs it).
    let s32 = |v: &[i32]| Literal::from_vec(&[2], v.to_vec()).unwrap();
    let f32s = |v: &[f32]| Literal::from_vec(&[v.len() as i64], v.to_vec()).unwrap();
    let args = vec![
        vec![
            f32s(&[1., 2., 2.]),
            f32s(&[0.; 4]),
            s32(&[0, 1]),
            s32(&[1, 2]),
            s32(&[0, 0]),
            s32(&[1, 1]),
        ],
        vec![
            f32s(&[3., 4., 0.]),
            f32s(&[0.; 4]),
            s32(&[0, 1]),
            s32(&[1, 1]),
            s32(&[1, 2]),
            s32(&[2, 1]),
        ],
    ];
    let out: Vec<Vec<f32>> = crate::eval::run_replicas(main, &args, 1, 2)
        .into_iter()
        .map(|r| r.unwrap().as_slice::<f32>().unwrap().to_vec())
        .collect();
    assert_eq!(out, vec![vec![1., 3., 0., 0.], vec![2., 2., 4., 0.]]);
    // The export writes JAX's call back, and it imports to the same IR.
    let text = crate::stablehlo::try_to_stablehlo(main).unwrap();
    assert!(
        text.contains(
            "stablehlo.custom_call @ragged_all_to_all(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) \
             {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = \
             dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<3xf32>, tensor<4xf32>, \
             tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4xf32>"
        ),
        "{text}"
    );
    let back = parse_module(&text).unwrap();
    let back = &back.function("main").unwrap().computation;
    assert_eq!(crate::codec::encode(back), crate::codec::encode(main));
}

#[test]
fn ragged_all_to_all_import_errors_name_the_call() {
    let with = |from: &str, to: &str| JAX_RAGGED.replace(from, to);
    let e = parse_module(&with(
        "channel_id = 1 : i64",
        "channel_id = 1 : i64, split = 2 : i64",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("stablehlo.custom_call @ragged_all_to_all: backend_config entry `split = 2`"),
        "{e}"
    );
    let e = parse_module(&with(
        "api_version = 4 : i32",
        "api_version = 4 : i32, has_side_effect = true",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("attribute `has_side_effect = true`"), "{e}");
    // Inference's rules reach the importer's error: rank-2 offsets.
    let rank2 = with("tensor<2xi32>", "tensor<2x1xi32>");
    let e = parse_module(&rank2).unwrap_err().to_string();
    assert!(
        e.contains("RaggedAllToAll") && e.contains("input_offsets must be rank 1"),
        "{e}"
    );
}
