use xla_aot::xla;

xla! {
    // `>>` is ShiftRightArithmetic on signed and ShiftRightLogical on unsigned integers only.
    fn f(x: f32[4]) -> f32[4] {
        x >> 1.0
    }
}

fn main() {}
