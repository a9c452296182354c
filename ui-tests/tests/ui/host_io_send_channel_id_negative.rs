use xla_aot::xla;

xla! {
    // A channel id is non-negative: -1 is refused at the attribute.
    fn f(t: token, x: f32[3]) -> token {
        Send(x, t, channel_id = -1, is_host_transfer = true)
    }
}

fn main() {}
