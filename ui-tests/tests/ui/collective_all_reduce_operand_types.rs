use xla_aot::xla;

xla! {
    fn f(x: f32[4], y: s32[4]) -> (f32[4], s32[4]) {
        AllReduce(x, y, |a, b| a + b)
    }
}

fn main() {}
