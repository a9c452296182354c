use xla_aot::xla;

xla! {
    // 2^62 f32 elements: 2^64 bytes, more than an i64 can count (XLA's shape check).
    fn f(x: f32[4611686018427387904]) -> f32[4611686018427387904] {
        x
    }
}

fn main() {}
