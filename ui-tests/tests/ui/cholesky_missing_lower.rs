use xla_aot::xla;

xla! {
    fn f(a: f32[3, 3]) -> f32[3, 3] {
        Cholesky(a)
    }
}

fn main() {}
