use xla_aot::xla;

xla! {
    fn square(x: f32[3]) -> f32[3] { x * x }
    // CompositeCall needs the composite's name.
    fn f(x: f32[3]) -> f32[3] {
        CompositeCall(square, x, version = 1)
    }
}

fn main() {}
