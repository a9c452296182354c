use xla_aot::xla;

xla! {
    fn f(x: f32[<8, 3]) -> f32[<8, 3] {
        x
    }
}

fn main() {}
