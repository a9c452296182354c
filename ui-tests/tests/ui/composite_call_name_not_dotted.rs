use xla_aot::xla;

xla! {
    fn square(x: f32[3]) -> f32[3] { x * x }
    // A composite's name is a dotted identifier such as "my_lib.square".
    fn f(x: f32[3]) -> f32[3] {
        CompositeCall(square, x, name = "my lib/square")
    }
}

fn main() {}
