use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3]) -> f32[4, 3] {
        DynamicUpdateSlice(x)
    }
}

fn main() {}
