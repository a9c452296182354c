//! Cholesky and TriangularSolve compile warning-free through the whole macro and run: a
//! factor, and the solve of `l x = b` with it (the seed's 2 x 2 example values).
#![deny(warnings)]

use xla_aot::{xla, Tensor, D2};

xla! {
    /// `l` with `a = l l^T`.
    pub fn chol(a: f64[2, 2]) -> f64[2, 2] {
        Cholesky(a, lower = true)
    }

    /// `x` with `a x = b`, through `l y = b`, `l^T x = y`.
    pub fn solve(a: f64[2, 2], b: f64[2, 1]) -> f64[2, 1] {
        let l = Cholesky(a, lower = true);
        let y = TriangularSolve(l, b, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = NO_TRANSPOSE);
        TriangularSolve(l, y, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = TRANSPOSE)
    }
}

fn main() {
    // The upper triangle is not read: 99 stands in for the 2 that makes `a` symmetric.
    let a = Tensor::<f64, D2<2, 2>>::from_vec(vec![4.0, 99.0, 2.0, 5.0]).expect("a");
    assert_eq!(chol(&a).as_slice(), &[2.0, 0.0, 1.0, 2.0]);
    // [[4, 2], [2, 5]] x = [8, 9]: x = [1.375, 1.25].
    let b = Tensor::<f64, D2<2, 1>>::from_vec(vec![8.0, 9.0]).expect("b");
    let x = solve(&a, &b);
    assert!((x.as_slice()[0] - 1.375).abs() < 1e-15 && (x.as_slice()[1] - 1.25).abs() < 1e-15);
}
