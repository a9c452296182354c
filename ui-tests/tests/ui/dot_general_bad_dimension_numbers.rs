use xla_aot::xla;

xla! {
    fn f(a: f32[4, 3], b: f32[3, 5]) -> f32[4, 5] {
        DotGeneral(a, b, lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0])
    }
}

fn main() {}
