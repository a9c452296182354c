use xla_aot::xla;

xla! {
    fn f(x: f32[3, 5], c: f32[]) -> (f32[3, 5], f32[]) {
        Scan(x, c, |v, s| { let r = Reduce(v, s, dimensions = [0], |a, b| a + b); Tuple(r, r) }, scan_dimension = 1)
    }
}

fn main() {}
