use xla_aot::xla;

xla! {
    // AfterAll joins tokens only; an array operand is refused at that operand.
    fn f(t: token, x: f32[3]) -> token {
        AfterAll(t, x)
    }
}

fn main() {}
