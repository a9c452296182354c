use xla_aot::xla;

xla! {
    fn f(n: s32[]) -> s32[] {
        While(|s| Lt(s, 10), n)
    }
}

fn main() {}
