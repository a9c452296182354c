use xla_aot::xla;

xla! {
    fn f(x: f32[3], y: f32[4], o: s32[0], s: s32[0], p: s32[0], r: s32[0]) -> f32[4] {
        RaggedAllToAll(x, y, o, s, p, r)
    }
}

fn main() {}
