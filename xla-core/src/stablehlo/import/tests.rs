//! The importer on JAX's printed forms, our exporter's, and bad input.

use super::*;
use crate::literal::Literal;

/// `jax.export(jax.jit(mlp)).mlir_module()` for `softmax(tanh(x @ w + b)), sum(...)`, with
/// locations (trimmed to the ops used).
const JAX_MLP: &str = r#"#loc1 = loc("x")
#loc2 = loc("w")
module @jit_mlp attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> loc("x"), %arg1: tensor<3x2xf32> loc("w"), %arg2: tensor<2xf32> loc("b")) -> (tensor<2x2xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32> loc(#loc)
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32> loc(#loc22)
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32> loc(#loc23)
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<2x2xf32> loc(#loc24)
    %3 = stablehlo.add %0, %2 : tensor<2x2xf32> loc(#loc24)
    %4 = stablehlo.tanh %3 : tensor<2x2xf32> loc(#loc25)
    %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32> loc(#loc26)
    %8 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<2xf32>) -> tensor<2x2xf32>
    %10 = stablehlo.subtract %4, %8 : tensor<2x2xf32> loc(#loc29)
    %11 = stablehlo.exponential %10 : tensor<2x2xf32> loc(#loc30)
    %12 = stablehlo.reduce(%11 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32> loc(#loc31)
    %13 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<2xf32>) -> tensor<2x2xf32> loc(#loc28)
    %15 = stablehlo.divide %11, %13 : tensor<2x2xf32> loc(#loc32)
    %16 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<f32> loc(#loc33)
    return %15, %16 : tensor<2x2xf32>, tensor<f32> loc(#loc21)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc4 = loc("/tmp/gen.py":4:17 to :22)
#loc16 = loc(callsite(#loc10 at #loc11))
#loc22 = loc("jit(mlp)/dot_general"(#loc16))
"#;

fn f32s(dims: &[i64], v: &[f32]) -> Literal {
    Literal::from_vec(dims, v.to_vec()).unwrap()
}

#[test]
fn jax_mlp_runs() {
    let x = f32s(&[2, 3], &[0.1, 0.2, 0.3, -0.4, 0.5, -0.6]);
    let w = f32s(&[3, 2], &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    let b = f32s(&[2], &[0.0, 0.5]);
    let out = run(JAX_MLP, "main", &[x, w, b]).unwrap();
    assert_eq!(out.len(), 2);
    let p = out[0].as_slice::<f32>().unwrap();
    // Each row of a softmax sums to 1.
    assert!((p[0] + p[1] - 1.0).abs() < 1e-6 && (p[2] + p[3] - 1.0).abs() < 1e-6);
    let h = [
        0.4f32.tanh(),
        1.0f32.tanh(),
        (-1.0f32).tanh(),
        0.4f32.tanh(),
    ];
    let sum = out[1].as_slice::<f32>().unwrap()[0];
    assert!((sum - h.iter().sum::<f32>()).abs() < 1e-5, "{sum}");
}

/// A while loop with captured values, multiple results, `func.call` and a generic-form
/// reduce of two operands (JAX's argmax).
const LOOP: &str = r#"
func.func private @step(%arg0: tensor<i32>, %arg1: tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
  %c = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.add %arg0, %c : tensor<i32>
  %1 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %3 = stablehlo.add %arg1, %2 : tensor<3xf32>
  return %0, %3 : tensor<i32>, tensor<3xf32>
}
func.func public @main(%x: tensor<3xf32>, %limit: tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<3xf32>
  cond {
    %p = stablehlo.compare LT, %i, %limit, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n:2 = func.call @step(%i, %acc) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)
    stablehlo.return %n#0, %n#1 : tensor<i32>, tensor<3xf32>
  }
  %iota = stablehlo.iota dim = 0 : tensor<3xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m:2 = "stablehlo.reduce"(%r#1, %iota, %ninf, %c0) ({
  ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
    %vi = "stablehlo.select"(%gt, %ai, %bi) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %v, %vi : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  return %r#1, %m#1 : tensor<3xf32>, tensor<i32>
}
"#;

#[test]
fn while_call_and_variadic_reduce() {
    let x = f32s(&[3], &[0.0, 5.0, 1.0]);
    let out = run(LOOP, "main", &[x, Literal::scalar(4i32)]).unwrap();
    // 0 + 1 + 2 + 3 added to every element.
    assert_eq!(out[0].as_slice::<f32>(), Some(&[6.0f32, 11.0, 7.0][..]));
    assert_eq!(out[1].as_slice::<i32>(), Some(&[1i32][..]));
    let m = parse_module(LOOP).unwrap();
    assert!(!m.function("step").unwrap().public);
    assert_eq!(m.function("main").unwrap().pos, Pos { line: 10, col: 1 });
}

#[test]
fn case_captures_outer_values() {
    let text = r#"
func.func @main(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.case"(%i) ({
    %a = stablehlo.add %x, %x : tensor<2xf32>
    stablehlo.return %a : tensor<2xf32>
  }, {
    %b = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %b : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}"#;
    let x = f32s(&[2], &[1.0, -2.0]);
    let r0 = run(text, "main", &[Literal::scalar(0i32), x.clone()]).unwrap();
    assert_eq!(r0[0].as_slice::<f32>(), Some(&[2.0f32, -4.0][..]));
    let r1 = run(text, "main", &[Literal::scalar(7i32), x]).unwrap();
    assert_eq!(r1[0].as_slice::<f32>(), Some(&[-1.0f32, 2.0][..]));
}

fn err(text: &str) -> ImportError {
    match parse_module(text) {
        Err(e) => e,
        Ok(m) => panic!("imported: {m:?}"),
    }
}

#[test]
fn errors_name_the_op_and_its_line() {
    let e = err("func.func @f(%a: tensor<1xi32>) -> tensor<2xf32> {\n  %0 = \"stablehlo.dynamic_iota\"(%a) {iota_dimension = 0 : i64} : (tensor<1xi32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}");
    assert_eq!(
        e,
        ImportError::Unsupported {
            feature: "stablehlo.dynamic_iota".into(),
            pos: Pos { line: 2, col: 3 }
        }
    );
    let e = err("func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n  %0 = stablehlo.abs %a : (tensor<2xf32>) -> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}");
    assert!(
        matches!(&e, ImportError::TypeMismatch { op, pos, .. } if op == "stablehlo.abs" && pos.line == 2),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "2:3: stablehlo.abs: declared result type f32[3] but inference gives f32[2]"
    );
    let e = err("func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}");
    assert!(
        matches!(&e, ImportError::Shape { op, .. } if op == "stablehlo.add"),
        "{e}"
    );
    let e = err("func.func @f() -> tensor<f32> {\n  return %nope : tensor<f32>\n}");
    assert!(
        matches!(&e, ImportError::Invalid { pos, .. } if pos.line == 2),
        "{e}"
    );
    let e = err("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.abs %a {frobnicate = 1 : i64} : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}");
    assert!(
        matches!(&e, ImportError::Unsupported { feature, .. } if feature.contains("frobnicate")),
        "{e}"
    );
}

#[test]
fn truncated_and_mutated_text_is_an_error_not_a_panic() {
    for text in [JAX_MLP, LOOP] {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        for k in (0..chars.len()).step_by(7) {
            let _ = parse_module(&text[..chars[k].0]);
        }
        // Deterministic mutations: delete, duplicate or replace one character.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..600 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let (at, _) = chars[(seed % chars.len() as u64) as usize];
            let repl = [
                "",
                "%",
                "(",
                "}",
                "<",
                "0x",
                "9999999999999999999999",
                ",",
                "x",
                "\"",
            ][(seed >> 40) as usize % 10];
            let mut m = String::from(&text[..at]);
            m.push_str(repl);
            m.push_str(&text[at + 1.min(text.len() - at)..]);
            let _ = parse_module(&m);
        }
    }
    assert!(parse_module("").is_err());
    assert!(parse_module(&"(".repeat(10_000)).is_err());
    let nested = format!(
        "func.func @f() {{ {} }}",
        "\"stablehlo.case\"(%a) ({ ".repeat(500)
    );
    assert!(parse_module(&nested).is_err());
}

#[test]
fn chlo_square_is_a_multiply_of_reals_and_unsupported_on_complex() {
    // What `jax.jit(jnp.square).lower(x).as_text()` prints.
    let text = r#"module @jit_square attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}"#;
    let out = run(text, "main", &[f32s(&[4], &[1.5, -2.0, 0.0, 3e20])]).unwrap();
    assert_eq!(out, vec![f32s(&[4], &[2.25, 4.0, 0.0, f32::INFINITY])]);
    let complex = r#"func.func @main(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = chlo.square %x : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}"#;
    let e = parse_module(complex).unwrap_err();
    assert_eq!(
        e.to_string(),
        "2:3: unsupported: chlo.square of a complex tensor"
    );
}

#[test]
fn chlo_math_ops_decompose_on_real_floats_and_name_other_types() {
    // Exact points of each decomposition (XLA gives the same: tests/oracle_chlo.rs).
    let text = r#"func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = chlo.atanh %x : tensor<3xf32> -> tensor<3xf32>
  %1 = chlo.acos %x : tensor<3xf32> -> tensor<3xf32>
  %2 = chlo.tan %x : tensor<3xf32> -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}"#;
    let out = run(text, "main", &[f32s(&[3], &[0.0, 1.0, 2.0])]).unwrap();
    let vals = |l: &Literal| l.as_slice::<f32>().unwrap().to_vec();
    let atanh = vals(&out[0]);
    assert_eq!(&atanh[..2], &[0.0, f32::INFINITY]);
    assert!(atanh[2].is_nan(), "atanh(2) is NaN: {atanh:?}");
    let acos = vals(&out[1]);
    assert_eq!(acos[1], 0.0);
    assert!((acos[0] - std::f32::consts::FRAC_PI_2).abs() <= f32::EPSILON);
    assert_eq!(vals(&out[2])[0], 0.0);
    let int = r#"func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %0 = chlo.asinh %x : tensor<2xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}"#;
    let e = parse_module(int).unwrap_err();
    assert_eq!(
        e.to_string(),
        "2:3: unsupported: chlo.asinh of s32 (real floats, and c64/c128 for the complex functions)"
    );
}

/// `chlo.erf_inv` of f64 imports as CHLO's three-range approximation (against XLA in
/// `tests/oracle_chlo.rs`): a point in each range (`w = -log1p(-x²)` 0.29, 8.3, 17.3) within
/// 2 ulps of the exact erf⁻¹, signed zeros kept, ±1 to ±∞, NaN outside [-1, 1]. The points have
/// exact squares: near ±1 the rounding of `x · x` alone moves CHLO's `w`, and so its result
/// (as XLA's), by many ulps.
#[test]
fn chlo_erf_inv_of_f64_uses_three_ranges() {
    let text = r#"func.func @main(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = chlo.erf_inv %x : tensor<8xf64> -> tensor<8xf64>
  return %0 : tensor<8xf64>
}"#;
    let x = [
        0.5,
        -(1.0 - 2f64.powi(-13)),
        1.0 - 2f64.powi(-26),
        0.0,
        -0.0,
        1.0,
        -1.0,
        1.5,
    ];
    let arg = Literal::from_vec(&[8], x.to_vec()).unwrap();
    let out = run(text, "main", &[arg]).unwrap();
    let y = out[0].as_slice::<f64>().unwrap();
    // erf⁻¹ of the first three, rounded from 50 digits (mpmath).
    for (i, exact) in [0.4769362762044699f64, -2.716655240567082, 4.004131885114475]
        .into_iter()
        .enumerate()
    {
        let ulps = y[i].to_bits().abs_diff(exact.to_bits());
        assert!(ulps <= 2, "erf_inv({}) = {} vs {exact}", x[i], y[i]);
    }
    assert!(y[3] == 0.0 && y[3].is_sign_positive(), "{y:?}");
    assert!(y[4] == 0.0 && y[4].is_sign_negative(), "{y:?}");
    assert_eq!(&y[5..7], &[f64::INFINITY, f64::NEG_INFINITY]);
    assert!(y[7].is_nan(), "{y:?}");
}

/// The pretty forms JAX prints for `optimization_barrier` (two results) and `after_all`, with a
/// token parameter and result.
#[test]
fn optimization_barrier_and_after_all_pretty_forms() {
    let text = "func.func public @main(%arg0: tensor<3xf32>, %arg1: !stablehlo.token) -> (tensor<3xf32>, !stablehlo.token) {
  %0:2 = stablehlo.optimization_barrier %arg0, %arg0 : tensor<3xf32>, tensor<3xf32>
  %1 = stablehlo.add %0#0, %0#1 : tensor<3xf32>
  %2 = stablehlo.after_all %arg1, %arg1 : !stablehlo.token
  %3 = stablehlo.after_all : !stablehlo.token
  %4 = stablehlo.after_all %2, %3 : !stablehlo.token
  return %1, %4 : tensor<3xf32>, !stablehlo.token
}
";
    let x = f32s(&[3], &[1.0, -2.5, 4.0]);
    let out = run(text, "main", &[x, Literal::Token]).unwrap();
    assert_eq!(out[0].as_slice::<f32>(), Some(&[2.0f32, -5.0, 8.0][..]));
    assert_eq!(out[1], Literal::Token);
    let bad = err("func.func @main(%arg0: tensor<3xf32>) -> !stablehlo.token {
  %0 = stablehlo.after_all %arg0 : tensor<3xf32>
  return %0 : !stablehlo.token
}
");
    let msg = bad.to_string();
    assert!(
        msg.contains("AfterAll") && msg.contains("must be a token") && msg.contains("f32[3]"),
        "{msg}"
    );
}

/// `stablehlo.composite` as `jax.lax.composite` prints it: the decomposition runs.
#[test]
fn composite_pretty_form_runs_its_decomposition() {
    let text = r#"func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.composite "my.softsign" %arg0 {composite_attributes = {eps = 1.000000e-06 : f32, n = 2 : i32}, decomposition = @my.softsign.impl, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @my.softsign.impl(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.abs %arg0 : tensor<3xf32>
  %1 = stablehlo.constant dense<1.0> : tensor<3xf32>
  %2 = stablehlo.add %0, %1 : tensor<3xf32>
  %3 = stablehlo.divide %arg0, %2 : tensor<3xf32>
  return %3 : tensor<3xf32>
}
"#;
    let x = f32s(&[3], &[1.0, -3.0, 0.0]);
    let out = run(text, "main", &[x]).unwrap();
    assert_eq!(out[0].as_slice::<f32>(), Some(&[0.5f32, -0.75, 0.0][..]));
    let m = parse_module(text).unwrap();
    let main = &m.function("main").unwrap().computation;
    let composite = main
        .instrs
        .iter()
        .find_map(|i| match &i.op {
            crate::ir::Op::Call {
                composite: Some(c), ..
            } => Some(c.clone()),
            _ => None,
        })
        .expect("a composite call");
    assert_eq!(composite.name, "my.softsign");
    assert_eq!(composite.version, 1);
    assert_eq!(composite.attributes, "{eps = 1.0e-6 : f64, n = 2 : i64}");
}

/// `chlo.ragged_dot` in jax.lax.ragged_dot's mode imports as RaggedDot: row 0 in group 0,
/// rows 1-2 in group 1, row 3 in no group (zero).
#[test]
fn chlo_ragged_dot_imports() {
    let text = r#"
func.func public @main(%a: tensor<4x2xf32>, %b: tensor<2x2x3xf32>, %g: tensor<2xi32>) -> tensor<4x3xf32> {
  %0 = "chlo.ragged_dot"(%a, %b, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]} : (tensor<4x2xf32>, tensor<2x2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}"#;
    let a = f32s(&[4, 2], &[1., 2., 3., 4., 5., 6., 7., 8.]);
    // Group 0: every entry 1; group 1: every entry 10.
    let mut w = vec![1f32; 6];
    w.extend([10f32; 6]);
    let b = f32s(&[2, 2, 3], &w);
    let g = Literal::from_vec(&[2], vec![1i32, 2]).unwrap();
    let out = run(text, "main", &[a, b, g]).expect("imports and runs");
    let want = f32s(
        &[4, 3],
        &[3., 3., 3., 70., 70., 70., 110., 110., 110., 0., 0., 0.],
    );
    assert_eq!(out, vec![want]);
    // Ragged along k (mode 2) with a group dimension: CHLO's verifier rule.
    let bad = text.replace("lhs_ragged_dimensions = [0]", "lhs_ragged_dimensions = [1]");
    let e = err(&bad).to_string();
    assert!(
        e.contains(
            "rhs_group_dimensions [0] must be empty when the lhs ragged dimension is contracting"
        ),
        "{e}"
    );
}

/// `chlo.ragged_dot` ragged along k (mode 2): `out[j] = lhs[:, range_j] * rhs[range_j, :]`,
/// a group past the sum empty (zeros).
#[test]
fn chlo_ragged_dot_contracting_imports() {
    let text = r#"
func.func public @main(%a: tensor<1x3xf32>, %b: tensor<3x1xf32>, %g: tensor<3xi32>) -> tensor<3x1x1xf32> {
  %0 = "chlo.ragged_dot"(%a, %b, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []>, precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]} : (tensor<1x3xf32>, tensor<3x1xf32>, tensor<3xi32>) -> tensor<3x1x1xf32>
  return %0 : tensor<3x1x1xf32>
}"#;
    let a = f32s(&[1, 3], &[1., 2., 3.]);
    let b = f32s(&[3, 1], &[10., 100., 1000.]);
    let g = Literal::from_vec(&[3], vec![2i32, 1, 4]).unwrap();
    let out = run(text, "main", &[a, b, g]).expect("imports and runs");
    assert_eq!(out, vec![f32s(&[3, 1, 1], &[210., 3000., 0.])]);
}

/// `interpreter.run_parallel` on 1 replica x 2 partitions: the function's argument and a
/// check made before the cut are carried across it, and each program's two results come back
/// in device order.
const RUN_PARALLEL: &str = r#"
module @m {
  func.func @f(%a: tensor<2xi32>, %b: tensor<i32>) -> (tensor<2xi32>, tensor<i32>) {
    %p = stablehlo.partition_id : tensor<ui32>
    %q = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %s = stablehlo.add %b, %q : tensor<i32>
    return %a, %s : tensor<2xi32>, tensor<i32>
  }
  func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
    %c = stablehlo.constant dense<10> : tensor<i32>
    check.expect_eq_const %c, dense<10> : tensor<i32>
    %r:4 = "interpreter.run_parallel"(%x, %c, %x, %c) {
      programs = [[@f, @f]]
    } : (tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>)
        -> (tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>)
    %y = stablehlo.add %r#2, %x : tensor<2xi32>
    check.expect_eq_const %r#3, dense<11> : tensor<i32>
    func.return %y : tensor<2xi32>
  }
}
"#;

#[test]
fn run_parallel_carries_values_across_the_cut() {
    let m = parse_module(RUN_PARALLEL).unwrap();
    let main = m.function("main").unwrap();
    assert_eq!(main.stages.len(), 1);
    let x = Literal::from_vec(&[2], vec![3i32, -4]).unwrap();
    let (out, checked) = main.run_checked(&[x]).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].as_slice::<i32>().unwrap(), &[6, -8]);
    let scalars: Vec<i32> = checked
        .iter()
        .map(|v| v[0].as_slice::<i32>().unwrap()[0])
        .collect();
    // The check before the cut sees the constant, the one after partition 1's 10 + 1.
    assert_eq!(scalars, [10, 11]);
}

#[test]
fn run_parallel_rejects_ragged_programs() {
    let text = RUN_PARALLEL.replace("[[@f, @f]]", "[[@f, @f], [@f]]");
    let e = parse_module(&text).unwrap_err();
    assert!(
        matches!(&e, ImportError::Invalid { message, .. } if message.contains("one length")),
        "{e}"
    );
}
