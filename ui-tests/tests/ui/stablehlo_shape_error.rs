// stablehlo.add of f32[3] and f32[4]: xla_core's inference rejects it, as in xla!.
xla_aot::stablehlo! {
    pub fn f = mlir r#"func.func @main(%x: tensor<3xf32>, %y: tensor<4xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %y : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}"#;
}

fn main() {}
