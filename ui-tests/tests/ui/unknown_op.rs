use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        Tanhh(x)
    }
}

fn main() {}
