//! `stablehlo.custom_call` on import: a Rust target kept as our CustomCall (pretty and generic
//! forms, tuple results, backend configs, layouts), JAX's LAPACK calls as our linalg ops; CHLO's
//! complex functions as maps.

use super::*;
use crate::ir::Op;
use crate::literal::Literal;
use crate::shape::Shape;

/// Each CustomCall of `@main`: (target, opaque, has_side_effect, result shape).
fn custom_calls(text: &str) -> Vec<(String, String, bool, Shape)> {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let main = &m.function("main").unwrap().computation;
    main.instrs
        .iter()
        .filter_map(|i| match &i.op {
            Op::CustomCall {
                target,
                opaque,
                has_side_effect,
            } => Some((
                target.clone(),
                opaque.clone(),
                *has_side_effect,
                i.shape.clone(),
            )),
            _ => None,
        })
        .collect()
}

const PRETTY: &str = r#"func.func public @main(%x: tensor<2x3xf32>, %k: tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @"my_ops::split"(%x, %k) {api_version = 4 : i32, backend_config = {scale = 2 : i64, mode = "fast"}, has_side_effect = true, operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], mhlo.frontend_attributes = {a = "1"}} : (tensor<2x3xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<i32>
}"#;

#[test]
fn rust_targets_import_as_custom_calls() {
    let calls = custom_calls(PRETTY);
    let tuple = Shape::Tuple(vec![
        Shape::array(crate::ElementType::F32, &[2, 3]),
        Shape::scalar(crate::ElementType::S32),
    ]);
    assert_eq!(
        calls,
        vec![(
            "my_ops::split".into(),
            "{scale = 2, mode = \"fast\"}".into(),
            true,
            tuple
        )]
    );
    // The generic form, a string backend_config, one result.
    let generic = r#"func.func public @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "softplus", backend_config = "v1", api_version = 2 : i32} : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}"#;
    let calls = custom_calls(generic);
    assert_eq!(
        calls,
        vec![(
            "softplus".into(),
            "v1".into(),
            false,
            Shape::array(crate::ElementType::F64, &[4])
        )]
    );
    // The evaluator cannot run Rust code: an Err naming the target.
    let x = Literal::from_vec(&[4], vec![1.0f64; 4]).unwrap();
    let e = run(generic, "main", &[x]).unwrap_err().to_string();
    assert!(e.contains("softplus"), "{e}");
}

#[test]
fn custom_call_errors_name_the_rule_and_the_line() {
    let err = |t: &str| parse_module(t).unwrap_err().to_string();
    // A column-major operand: the Rust fn reads row-major views.
    let e = err(&PRETTY.replacen("dense<[1, 0]>", "dense<[0, 1]>", 1));
    assert!(
        e.starts_with("2:") && e.contains("operand_layouts[0] is {0, 1}, only {1, 0} is read"),
        "{e}"
    );
    let e = err(&PRETTY.replace("has_side_effect = true", "called_computations = [@f]"));
    assert!(
        e.starts_with("2:") && e.contains("called_computations"),
        "{e}"
    );
    // A target that is not a Rust path: the builder's rule.
    let e = err(&PRETTY.replace("my_ops::split", "libfoo.so"));
    assert!(
        e.starts_with("2:") && e.contains("must name a Rust fn"),
        "{e}"
    );
}

/// `jnp.linalg.cholesky` as JAX 0.10 prints it for f32[3, 3] (LAPACK potrf, then JAX's own
/// `info == 0` select and triangle mask).
const JAX_CHOLESKY: &str = r#"func.func public @main(%arg0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>) {
    %4:2 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], []) {i=3, j=3, k=3, l=3}, custom>} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
    return %4#0, %4#1 : tensor<3x3xf32>, tensor<i32>
}"#;

#[test]
fn lapack_potrf_is_cholesky_with_info() {
    // [[4, 2, 2], [2, 5, 3], [2, 3, 6]] = L L^T with L = [[2, 0, 0], [1, 2, 0], [1, 1, 2]];
    // the upper triangle (here 9s) is left as it was, as LAPACK does.
    let a = Literal::from_vec(&[3, 3], vec![4f32, 9., 9., 2., 5., 9., 2., 3., 6.]).unwrap();
    let out = run(JAX_CHOLESKY, "main", &[a]).unwrap();
    let l = [2f32, 9., 9., 1., 2., 9., 1., 1., 2.];
    assert_eq!(out[0].as_slice::<f32>(), Some(&l[..]));
    assert_eq!(out[1].as_slice::<i32>(), Some(&[0][..]));
    // Not positive definite: the second leading minor is 4 * 1 - 4 = 0 (LAPACK's info is 2;
    // ours is positive, 1 as our Cholesky makes the matrix NaN, which is all JAX reads).
    let a = Literal::from_vec(&[3, 3], vec![4f32, 0., 0., 2., 1., 0., 2., 3., 6.]).unwrap();
    let out = run(JAX_CHOLESKY, "main", &[a]).unwrap();
    assert_eq!(out[1].as_slice::<i32>(), Some(&[1][..]));
    // A negative third pivot (1 - 1 - 0.25 < 0) after two good ones: info positive.
    let a = Literal::from_vec(&[3, 3], vec![4f32, 0., 0., 2., 5., 0., 2., 3., 1.]).unwrap();
    let out = run(JAX_CHOLESKY, "main", &[a]).unwrap();
    assert!(
        out[1].as_slice::<i32>().is_some_and(|i| i[0] > 0),
        "{:?}",
        out[1]
    );
    // A row-major operand layout would be another problem for LAPACK: refused at the line.
    let bad = JAX_CHOLESKY.replace(
        "operand_layouts = [dense<[0, 1]>",
        "operand_layouts = [dense<[1, 0]>",
    );
    let e = parse_module(&bad).unwrap_err().to_string();
    assert!(
        e.starts_with("2:") && e.contains("lapack_spotrf_ffi") && e.contains("{0, 1}"),
        "{e}"
    );
    let bad = JAX_CHOLESKY.replace("uplo = 76", "uplo = 88");
    let e = parse_module(&bad).unwrap_err().to_string();
    assert!(e.contains("uplo = 'X'"), "{e}");
}

#[test]
fn lapack_trsm_is_triangular_solve() {
    let text = r#"func.func public @main(%a: tensor<2x2xf64>, %b: tensor<2x1xf64>) -> tensor<2x1xf64> {
    %0 = stablehlo.custom_call @lapack_dtrsm_ffi(%a, %b) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
    return %0 : tensor<2x1xf64>
}"#;
    // Upper a = [[2, 1], [7, 4]] (the 7 unread); a^T x = b: [[2, 0], [1, 4]] x = [4, 6].
    let a = Literal::from_vec(&[2, 2], vec![2f64, 1., 7., 4.]).unwrap();
    let b = Literal::from_vec(&[2, 1], vec![4f64, 6.]).unwrap();
    let out = run(text, "main", &[a, b]).unwrap();
    assert_eq!(out[0].as_slice::<f64>(), Some(&[2.0, 1.0][..]));
    // Another LAPACK routine is an error naming the target.
    let e = parse_module(&text.replace("lapack_dtrsm_ffi", "lapack_dgetrf_ffi"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("2:") && e.contains("lapack_dgetrf_ffi"),
        "{e}"
    );
}

/// CHLO's functions of complex numbers import as `Map` of XLA's decomposition (against XLA in
/// `tests/oracle_chlo_complex.rs`): exact points here.
#[test]
fn chlo_complex_functions_import_as_maps() {
    use num_complex::Complex;
    let text = r#"func.func @main(%x: tensor<2xcomplex<f64>>) -> (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) {
  %0 = chlo.asin %x : tensor<2xcomplex<f64>> -> tensor<2xcomplex<f64>>
  %1 = chlo.sinh %x : tensor<2xcomplex<f64>> -> tensor<2xcomplex<f64>>
  return %0, %1 : tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>
}"#;
    let m = parse_module(text).unwrap();
    let main = &m.function("main").unwrap().computation;
    assert_eq!(
        main.instrs
            .iter()
            .filter(|i| matches!(i.op, Op::Map { .. }))
            .count(),
        2
    );
    let x = Literal::from_vec(
        &[2],
        vec![Complex::new(0.0f64, 0.0), Complex::new(1.0, 0.0)],
    )
    .unwrap();
    let out = run(text, "main", &[x]).unwrap();
    let asin = out[0].as_slice::<Complex<f64>>().unwrap();
    assert_eq!(asin[0], Complex::new(0.0, 0.0));
    assert!(
        (asin[1].re - std::f64::consts::FRAC_PI_2).abs() < 1e-15,
        "{asin:?}"
    );
    let sinh = out[1].as_slice::<Complex<f64>>().unwrap();
    assert!(
        (sinh[1].re - 1f64.sinh()).abs() < 1e-15 && sinh[1].im == 0.0,
        "{sinh:?}"
    );
}
