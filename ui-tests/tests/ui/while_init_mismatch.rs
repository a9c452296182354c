use xla_aot::xla;

xla! {
    fn f(n: s32[]) -> s32[] {
        While(|s: s64[]| Lt(s, 10), |s: s64[]| s + 1, n)
    }
}

fn main() {}
