use xla_aot::xla;

xla! {
    fn f(a: f32[3]) -> f32[3] {
        Cholesky(a, lower = true)
    }
}

fn main() {}
