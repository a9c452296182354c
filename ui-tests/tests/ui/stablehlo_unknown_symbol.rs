// `@symbol` names a function the module does not have.
xla_aot::stablehlo! {
    pub fn f = mlir r#"
func.func public @encode(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}"# @decode;
}

fn main() {}
