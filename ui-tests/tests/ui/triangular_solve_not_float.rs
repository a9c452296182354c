use xla_aot::xla;

xla! {
    fn f(a: s32[4, 4], b: s32[4, 2]) -> s32[4, 2] {
        TriangularSolve(a, b, left_side = true, lower = true, unit_diagonal = false, transpose_a = NO_TRANSPOSE)
    }
}

fn main() {}
