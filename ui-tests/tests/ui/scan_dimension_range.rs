use xla_aot::xla;

xla! {
    fn step(v: f32[3], s: f32[3]) -> (f32[3], f32[3]) {
        Tuple(Add(s, v), Add(s, v))
    }
    fn f(x: f32[5, 3], c: f32[3]) -> (f32[5, 3], f32[3]) {
        Scan(x, c, step, scan_dimension = 2)
    }
}

fn main() {}
