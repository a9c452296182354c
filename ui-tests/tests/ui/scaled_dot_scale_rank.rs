use xla_aot::xla;

xla! {
    fn f(a: f32[4, 64], sa: f32[4], b: f32[64, 6], sb: f32[2, 6]) -> f32[4, 6] {
        ScaledDot(a, sa, b, sb, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0])
    }
}

fn main() {}
