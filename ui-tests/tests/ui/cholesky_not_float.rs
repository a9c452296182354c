use xla_aot::xla;

xla! {
    fn f(a: s32[3, 3]) -> s32[3, 3] {
        Cholesky(a, lower = true)
    }
}

fn main() {}
