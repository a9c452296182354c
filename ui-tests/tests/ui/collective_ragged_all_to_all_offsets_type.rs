use xla_aot::xla;

xla! {
    fn f(x: f32[3], y: f32[4], o: u32[2], s: u32[2], p: u32[2], r: u32[2]) -> f32[4] {
        RaggedAllToAll(x, y, o, s, p, r, replica_groups = [[0, 1]])
    }
}

fn main() {}
