use super::*;
use crate::element::ElementType::{self, C64, F32, F64, S32};

fn s(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(ty, dims))
}

fn msg(r: Result<Shape>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn cholesky_keeps_the_shape_of_batched_square_matrices() {
    assert_eq!(cholesky(&s(F32, &[3, 3]), true).unwrap(), s(F32, &[3, 3]));
    assert_eq!(
        cholesky(&s(C64, &[2, 5, 4, 4]), false).unwrap(),
        s(C64, &[2, 5, 4, 4])
    );
}

#[test]
fn cholesky_rules() {
    assert!(msg(cholesky(&s(S32, &[3, 3]), true)).contains("floating-point or complex"));
    assert!(msg(cholesky(&s(F32, &[3]), true)).contains("rank >= 2"));
    assert!(msg(cholesky(&s(F32, &[2, 3]), true)).contains("2 x 3"));
}

#[test]
fn triangular_solve_result_is_b() {
    let t = TransposeA::Adjoint;
    let r = triangular_solve(
        &s(F64, &[2, 4, 4]),
        &s(F64, &[2, 4, 7]),
        true,
        true,
        false,
        t,
    );
    assert_eq!(r.unwrap(), s(F64, &[2, 4, 7]));
    let r = triangular_solve(&s(F64, &[4, 4]), &s(F64, &[7, 4]), false, false, true, t);
    assert_eq!(r.unwrap(), s(F64, &[7, 4]));
}

#[test]
fn triangular_solve_rules() {
    let t = TransposeA::NoTranspose;
    let ts = |a: Shape, b: Shape, left| msg(triangular_solve(&a, &b, left, true, false, t));
    assert!(ts(s(F32, &[4, 4]), s(F64, &[4, 2]), true).contains("element type"));
    assert!(ts(s(F32, &[4, 4]), s(F32, &[1, 4, 2]), true).contains("equal rank"));
    assert!(ts(s(F32, &[2, 4, 4]), s(F32, &[3, 4, 2]), true).contains("batch"));
    assert!(ts(s(F32, &[4, 4]), s(F32, &[2, 4]), true).contains("dimension 0"));
    assert!(ts(s(F32, &[4, 4]), s(F32, &[4, 2]), false).contains("dimension 1"));
    assert!(ts(s(F32, &[4, 3]), s(F32, &[4, 2]), true).contains("4 x 3"));
    assert!(ts(s(S32, &[4, 4]), s(S32, &[4, 2]), true).contains("floating-point"));
}
