use xla_aot::xla;

xla! {
    fn g(v: f32[3]) -> (f32[3], f32[3]) {
        Tuple(v, v)
    }
    fn f(x: f32[5, 3], c: f32[3]) -> (f32[5, 3], f32[3]) {
        Scan(x, c, g, scan_dimension = 0)
    }
}

fn main() {}
