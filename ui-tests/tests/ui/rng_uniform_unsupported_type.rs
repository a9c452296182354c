use xla_aot::xla;

xla! {
    fn f() -> s8[2] {
        RngUniform(0, 10, s8[2])
    }
}

fn main() {}
