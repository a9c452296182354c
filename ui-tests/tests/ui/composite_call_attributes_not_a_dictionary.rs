use xla_aot::xla;

xla! {
    fn square(x: f32[3]) -> f32[3] { x * x }
    // The attributes are an MLIR dictionary, printed verbatim into StableHLO.
    fn f(x: f32[3]) -> f32[3] {
        CompositeCall(square, x, name = "my_lib.square", attributes = "{n = [1, 2}")
    }
}

fn main() {}
