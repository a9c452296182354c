// A stablehlo.custom_call names a Rust fn of the crate: rustc reports a missing one at the
// module's text (the macro's path or inline string).
xla_aot::stablehlo! {
    fn f = mlir r#"
func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @no_such_fn(%x) {backend_config = ""} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}"#;
}

fn main() {}
