// The source is a path string or `mlir "..."`; `text` is neither.
xla_aot::stablehlo!(pub fn f = text "func.func @main() -> () { return }");

fn main() {}
