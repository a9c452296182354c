use xla_aot::xla;

xla! {
    // Infeed reads an array or a tuple of arrays; XLA takes no nested tuple (refused at `shape`).
    fn f(t: token) -> token {
        GetTupleElement(Infeed(t, shape = ((f32[2], s32[]), f32[])), index = 1)
    }
}

fn main() {}
