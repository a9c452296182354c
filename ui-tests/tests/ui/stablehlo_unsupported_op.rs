// lax.lgamma exports chlo.lgamma, which the importer does not lower.
xla_aot::stablehlo! {
    pub fn f = mlir r#"func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
}"#;
}

fn main() {}
