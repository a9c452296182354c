//! The StableHLO text of Gather and Scatter.

use std::sync::Arc;

use crate::builder::Builder;
use crate::element::ElementType::{F32, S32};
use crate::error::Result;
use crate::ir::{BinaryOp, GatherDimensionNumbers, ScatterDimensionNumbers};
use crate::shape::Shape;
use crate::stablehlo::to_stablehlo;

#[test]
fn gather_prints_its_dimension_numbers() -> Result<()> {
    let mut b = Builder::new("main");
    let x = b.parameter(0, Shape::array(F32, &[3, 5, 2]), "x")?;
    let i = b.parameter(1, Shape::array(S32, &[3, 4]), "i")?;
    let dn = GatherDimensionNumbers {
        offset_dims: vec![2],
        collapsed_slice_dims: vec![1],
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        start_index_map: vec![1],
        index_vector_dim: 2,
    };
    let g = b.gather(x, i, &dn, &[1, 1, 2], true)?;
    let text = to_stablehlo(&b.build(g)?);
    let want = "\
func.func public @main(%arg0: tensor<3x5x2xf32>, %arg1: tensor<3x4xi32>) -> tensor<3x4x2xf32> {
  %0 = \"stablehlo.gather\"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 2>, indices_are_sorted = true} : (tensor<3x5x2xf32>, tensor<3x4xi32>) -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}
";
    assert_eq!(text, want);
    Ok(())
}

#[test]
fn scatter_inlines_its_update_computation() -> Result<()> {
    let mut f = Builder::new("add");
    let a = f.parameter(0, Shape::scalar(F32), "a")?;
    let u = f.parameter(1, Shape::scalar(F32), "b")?;
    let s = f.binary(BinaryOp::Add, a, u, None)?;
    let add = Arc::new(f.build(s)?);
    let mut b = Builder::new("main");
    let x = b.parameter(0, Shape::array(F32, &[6, 4]), "x")?;
    let i = b.parameter(1, Shape::array(S32, &[8]), "i")?;
    let u = b.parameter(2, Shape::array(F32, &[8, 4]), "u")?;
    let dn = ScatterDimensionNumbers {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..ScatterDimensionNumbers::default()
    };
    let r = b.scatter(&[x], i, &[u], &add, &dn, false, true)?;
    let text = to_stablehlo(&b.build(r)?);
    let want = "\
func.func public @main(%arg0: tensor<6x4xf32>, %arg1: tensor<8xi32>, %arg2: tensor<8x4xf32>) -> tensor<6x4xf32> {
  %2 = \"stablehlo.scatter\"(%arg0, %arg1, %arg2) ({
  ^bb0(%0: tensor<f32>, %1: tensor<f32>):
    %3 = stablehlo.add %0, %1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %3 : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = true} : (tensor<6x4xf32>, tensor<8xi32>, tensor<8x4xf32>) -> tensor<6x4xf32>
  return %2 : tensor<6x4xf32>
}
";
    assert_eq!(text, want);
    Ok(())
}
