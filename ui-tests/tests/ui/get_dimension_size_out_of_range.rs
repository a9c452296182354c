use xla_aot::xla;

xla! {
    fn f(x: f32[<=8, 3]) -> s32[] {
        GetDimensionSize(x, dimension = 2)
    }
}

fn main() {}
