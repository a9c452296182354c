use xla_aot::xla;

xla! {
    fn f(x: f32[8], n: s64[]) -> f32[<=8] {
        SetDimensionSize(x, n, dimension = 0)
    }
}

fn main() {}
