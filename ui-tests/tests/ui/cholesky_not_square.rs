use xla_aot::xla;

xla! {
    fn f(a: f32[2, 3]) -> f32[2, 3] {
        Cholesky(a, lower = true)
    }
}

fn main() {}
