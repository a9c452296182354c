use xla_aot::xla;

xla! {
    fn f(t: (f32[2], s32[])) -> f32[2] {
        Rev(t, dimensions = [0])
    }
}

fn main() {}
