//! The StableHLO text of Sort (comparator region) and TopK (chlo.top_k, or sort and slice).

use std::sync::Arc;

use crate::builder::Builder;
use crate::element::ElementType::{F32, S32};
use crate::error::Result;
use crate::infer::sort::comparator_params;
use crate::ir::{ComparisonDirection, Computation};
use crate::shape::Shape;
use crate::stablehlo::to_stablehlo;

/// `lhs_0 < rhs_0` (total order) over operands (f32, s32).
fn by_key() -> Result<Arc<Computation>> {
    let mut b = Builder::new("cmp");
    let ps = comparator_params(&[F32, S32])
        .into_iter()
        .enumerate()
        .map(|(i, s)| b.parameter(i, s, "p"))
        .collect::<Result<Vec<_>>>()?;
    let r = b.compare(ComparisonDirection::Lt, true, ps[0], ps[1], None)?;
    Ok(Arc::new(b.build(r)?))
}

#[test]
fn sort_inlines_its_comparator() -> Result<()> {
    let mut b = Builder::new("main");
    let k = b.parameter(0, Shape::array(F32, &[2, 3]), "k")?;
    let v = b.parameter(1, Shape::array(S32, &[2, 3]), "v")?;
    let s = b.sort(&[k, v], &by_key()?, -1, true)?;
    let text = to_stablehlo(&b.build(s)?);
    let want = "\
func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %4:2 = \"stablehlo.sort\"(%arg0, %arg1) ({
  ^bb0(%0: tensor<f32>, %1: tensor<f32>, %2: tensor<i32>, %3: tensor<i32>):
    %5 = stablehlo.compare LT, %0, %1, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %5 : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %4#0, %4#1 : tensor<2x3xf32>, tensor<2x3xi32>
}
";
    assert_eq!(text, want);
    Ok(())
}

#[test]
fn top_k_largest_is_chlo_and_smallest_is_sort_and_slice() -> Result<()> {
    let top = |largest: bool| -> Result<String> {
        let mut b = Builder::new("main");
        let x = b.parameter(0, Shape::array(F32, &[2, 5]), "x")?;
        let t = b.top_k(x, 3, largest)?;
        Ok(to_stablehlo(&b.build(t)?))
    };
    let want = "\
func.func public @main(%arg0: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %0:2 = chlo.top_k(%arg0, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}
";
    assert_eq!(top(true)?, want);
    let want = "\
func.func public @main(%arg0: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %0 = stablehlo.iota dim = 1 : tensor<2x5xi32>
  %6:2 = \"stablehlo.sort\"(%arg0, %0) ({
  ^bb0(%1: tensor<f32>, %2: tensor<f32>, %3: tensor<i32>, %4: tensor<i32>):
    %5 = stablehlo.compare LT, %1, %2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %5 : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x5xf32>, tensor<2x5xi32>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
  %7 = \"stablehlo.slice\"(%6#0) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x5xf32>) -> tensor<2x3xf32>
  %8 = \"stablehlo.slice\"(%6#1) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x5xi32>) -> tensor<2x3xi32>
  return %7, %8 : tensor<2x3xf32>, tensor<2x3xi32>
}
";
    assert_eq!(top(false)?, want);
    Ok(())
}
