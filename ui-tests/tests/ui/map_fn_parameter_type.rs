use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3]) -> f32[2, 3] {
        Map(x, g)
    }
    fn g(a: s32[]) -> f32[] {
        ConvertElementType(a, new_element_type = f32)
    }
}

fn main() {}
