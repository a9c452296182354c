use xla_aot::xla;

xla! {
    fn f(x: f32[5, 3], c: f32[3], d: f32[3]) -> (f32[5, 3], f32[3]) {
        Scan([x], [c, d], |v, s, t| Add(s, v), scan_dimension = 0)
    }
}

fn main() {}
