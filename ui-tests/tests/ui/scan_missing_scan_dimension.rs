use xla_aot::xla;

xla! {
    fn f(x: f32[5, 3], c: f32[3]) -> (f32[5, 3], f32[3]) {
        Scan(x, c, |v, s| { let r = Add(s, v); Tuple(r, r) })
    }
}

fn main() {}
