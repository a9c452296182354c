use xla_aot::xla;

xla! {
    fn f(x: f32[3], y: f32[4], o: s32[3], s: s32[3], p: s32[3], r: s32[3]) -> f32[4] {
        RaggedAllToAll(x, y, o, s, p, r, replica_groups = [[0, 1]])
    }
}

fn main() {}
