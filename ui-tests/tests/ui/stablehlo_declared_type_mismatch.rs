// The text declares the transpose's result f32[2,3]; inference gives f32[3,2].
xla_aot::stablehlo! {
    pub fn f = mlir r#"func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"#;
}

fn main() {}
