// A missing comma between the operands of stablehlo.add.
xla_aot::stablehlo! {
    pub fn f = mlir r#"func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}"#;
}

fn main() {}
