use xla_aot::xla;

xla! {
    fn f(n: s32[]) -> s32[] {
        While(|s| 10 - s, |s| s + 1, n)
    }
}

fn main() {}
