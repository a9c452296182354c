//! The text of `stablehlo.while`, `stablehlo.if` and `stablehlo.case` (XLA compiles it: see
//! `tests/oracle_control.rs`).

use std::sync::Arc;

use crate::builder::{Builder, XlaOp};
use crate::element::ElementType::*;
use crate::error::Result;
use crate::ir::{BinaryOp, ComparisonDirection, Computation};
use crate::literal::Literal;
use crate::shape::Shape;
use crate::stablehlo::try_to_stablehlo;

fn comp(
    name: &str,
    params: &[&Shape],
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Arc<Computation> {
    let mut b = Builder::new(name);
    let ps: Vec<XlaOp> = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.parameter(i, (*p).clone(), &format!("p{i}")).unwrap())
        .collect();
    let root = f(&mut b, &ps).unwrap();
    Arc::new(b.build(root).unwrap())
}

#[test]
fn while_flattens_a_tuple_state() {
    let state = Shape::Tuple(vec![Shape::scalar(S32), Shape::array(F32, &[4])]);
    let cond = comp("cond", &[&state], |b, p| {
        let i = b.get_tuple_element(p[0], 0)?;
        let n = b.constant(Literal::scalar(3i32));
        b.compare(ComparisonDirection::Lt, false, i, n, None)
    });
    let body = comp("body", &[&state], |b, p| {
        let i = b.get_tuple_element(p[0], 0)?;
        let acc = b.get_tuple_element(p[0], 1)?;
        let one = b.constant(Literal::scalar(1i32));
        let i = b.binary(BinaryOp::Add, i, one, None)?;
        let acc = b.binary(BinaryOp::Add, acc, acc, None)?;
        b.tuple(&[i, acc])
    });
    let c = comp("main", &[&state], |b, p| {
        let w = b.while_loop(&cond, &body, p[0])?;
        b.get_tuple_element(w, 1)
    });
    let text = try_to_stablehlo(&c).unwrap();
    let want = "\
func.func public @main(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = \"stablehlo.while\"(%arg0, %arg1) ({
  ^bb0(%1: tensor<i32>, %2: tensor<4xf32>):
    %3 = stablehlo.constant dense<3> : tensor<i32>
    %4 = stablehlo.compare LT, %1, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %4 : tensor<i1>
  }, {
  ^bb0(%5: tensor<i32>, %6: tensor<4xf32>):
    %7 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.add %5, %7 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %9 = stablehlo.add %6, %6 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %8, %9 : tensor<i32>, tensor<4xf32>
  }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  return %0#1 : tensor<4xf32>
}
";
    assert_eq!(text, want, "\n{text}");
}

#[test]
fn conditionals_inline_branches_over_captured_operands() {
    let f3 = Shape::array(F32, &[3]);
    let double = comp("double", &[&f3], |b, p| {
        b.binary(BinaryOp::Add, p[0], p[0], None)
    });
    let id = comp("id", &[&f3], |_, p| Ok(p[0]));
    let c = comp("main", &[&Shape::scalar(Pred), &f3, &f3], |b, p| {
        b.conditional(p[0], p[1], &double, p[2], &id)
    });
    let text = try_to_stablehlo(&c).unwrap();
    let want = "\
func.func public @main(%arg0: tensor<i1>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> tensor<3xf32> {
  %0 = \"stablehlo.if\"(%arg0) ({
    %1 = stablehlo.add %arg1, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }, {
    stablehlo.return %arg2 : tensor<3xf32>
  }) : (tensor<i1>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
";
    assert_eq!(text, want, "\n{text}");

    // Index form with a tuple result: `stablehlo.case` with two results.
    let pair = comp("pair", &[&f3], |b, p| b.tuple(&[p[0], p[0]]));
    let c = comp("main", &[&Shape::scalar(S32), &f3], |b, p| {
        b.conditional_indexed(p[0], &[pair.clone(), pair], &[p[1], p[1]])
    });
    let text = try_to_stablehlo(&c).unwrap();
    assert!(
        text.contains("%0:2 = \"stablehlo.case\"(%arg0) ({\n    stablehlo.return %arg1, %arg1"),
        "{text}"
    );
    assert!(
        text.contains("}) : (tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>)\n  return %0#0, %0#1"),
        "{text}"
    );
}
