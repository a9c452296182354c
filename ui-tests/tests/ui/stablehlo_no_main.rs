// Two public functions and no @main: a `fn` item must say which one (`@symbol`).
xla_aot::stablehlo! {
    pub fn f = mlir r#"
func.func public @encode(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func public @decode(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}"#;
}

fn main() {}
