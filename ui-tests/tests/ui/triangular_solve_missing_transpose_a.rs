use xla_aot::xla;

xla! {
    fn f(a: f32[4, 4], b: f32[4, 2]) -> f32[4, 2] {
        TriangularSolve(a, b, left_side = true, lower = true, unit_diagonal = false)
    }
}

fn main() {}
