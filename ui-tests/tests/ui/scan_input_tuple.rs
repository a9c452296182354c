use xla_aot::xla;

xla! {
    fn f(x: f32[5, 3], c: f32[3]) -> (f32[5, 3], f32[3]) {
        Scan(Tuple(x, x), c, |v, s| Tuple(s, s), scan_dimension = 0)
    }
}

fn main() {}
