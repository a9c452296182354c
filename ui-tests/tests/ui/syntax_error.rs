use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        let y = x +;
        y
    }
}

fn main() {}
