use xla_aot::xla;

xla! {
    fn f(x: f32[5, 3], c: f32[3]) -> (f32[5, 3], f32[3]) {
        Scan(x, c, |v, s| Tuple(v, Reduce(s, 0.0, dimensions = [0], |a, b| a + b)), scan_dimension = 0)
    }
}

fn main() {}
