use xla_aot::xla;

xla! {
    fn g(v: f32[5], s: f32[3]) -> (f32[3], f32[3]) {
        Tuple(s, s)
    }
    fn f(x: f32[5, 3], c: f32[3]) -> (f32[5, 3], f32[3]) {
        Scan(x, c, g, scan_dimension = 0)
    }
}

fn main() {}
