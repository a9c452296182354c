use xla_aot::xla;

xla! {
    fn f(a: f32[2, 4, 3], b: f32[5, 3, 6]) -> f32[2, 4, 6] {
        DotGeneral(a, b,
            lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
            lhs_batch_dimensions = [0], rhs_batch_dimensions = [0])
    }
}

fn main() {}
