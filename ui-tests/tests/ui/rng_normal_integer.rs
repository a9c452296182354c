use xla_aot::xla;

xla! {
    fn f() -> s32[2] {
        RngNormal(0, 1, s32[2])
    }
}

fn main() {}
