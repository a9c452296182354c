use xla_aot::xla;

xla! {
    // `token` is a type of its own, without dimensions.
    fn f(t: token[2]) -> token {
        t
    }
}

fn main() {}
