// The path is relative to the crate's manifest directory, and there is no such file.
xla_aot::stablehlo!(pub fn model = "models/missing.mlir");

fn main() {}
