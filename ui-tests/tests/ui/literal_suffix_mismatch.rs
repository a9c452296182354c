use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        x * 2i32
    }
}

fn main() {}
