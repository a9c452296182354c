use xla_aot::xla;

xla! {
    fn f(n: s32[]) -> s32[] {
        While(|s| Lt(s, 10), |s| ConvertElementType(s + 1, new_element_type = s64), n)
    }
}

fn main() {}
