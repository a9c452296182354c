// i4 is a StableHLO element type XLA's operation set (and so xla_core) does not have.
xla_aot::stablehlo! {
    pub fn f = mlir r#"func.func @main(%x: tensor<3xi4>) -> tensor<3xi4> {
  return %x : tensor<3xi4>
}"#;
}

fn main() {}
