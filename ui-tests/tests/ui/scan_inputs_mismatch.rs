use xla_aot::xla;

xla! {
    fn f(x: f32[5, 3], y: f32[4, 3], c: f32[3]) -> (f32[5, 3], f32[3]) {
        Scan([x, y], [c], |v, w, s| { let r = Add(s, v); Tuple(r, r) }, scan_dimension = 0)
    }
}

fn main() {}
