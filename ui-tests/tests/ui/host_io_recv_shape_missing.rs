use xla_aot::xla;

xla! {
    // Recv needs the type it receives: without `shape = ...` it is refused at the op.
    fn f(t: token) -> token {
        GetTupleElement(Recv(t, channel_id = 1), index = 1)
    }
}

fn main() {}
