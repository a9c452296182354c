use xla_aot::xla;

xla! {
    // Every error of the block is reported; a failed let does not cascade.
    fn f(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        let bad = Add(x, v);
        let worse = bad * 2.0;
        Sub(worse, undefined)
    }
    fn g(x: f32[4]) -> f32[5] {
        x
    }
}

fn main() {}
