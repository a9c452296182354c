use xla_aot::xla;

xla! {
    fn f(x: f32[3], y: f32[4, 2], o: s32[2], s: s32[2], p: s32[2], r: s32[2]) -> f32[4, 2] {
        RaggedAllToAll(x, y, o, s, p, r, replica_groups = [[0, 1]])
    }
}

fn main() {}
