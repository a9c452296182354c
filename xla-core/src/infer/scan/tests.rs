use super::*;
use crate::builder::Builder;
use crate::ir::BinaryOp;
use crate::shape::parse_shape;

fn s(t: &str) -> Shape {
    parse_shape(t).unwrap()
}

/// `|x, c| (x + c, x + c)` over `x: f32[3]`, `c: f32[3]`.
fn cumsum_body(slice: &str) -> Computation {
    let mut b = Builder::new("f");
    let x = b.parameter(0, s(slice), "x").unwrap();
    let c = b.parameter(1, s(slice), "c").unwrap();
    let r = b.binary(BinaryOp::Add, c, x, None).unwrap();
    let t = b.tuple(&[r, r]).unwrap();
    b.build(t).unwrap()
}

#[test]
fn outputs_take_the_scan_dimension_back_and_carries_follow() {
    let f = cumsum_body("f32[3]");
    let out = scan(&[&s("f32[3, 5]")], &[&s("f32[3]")], &f, 1).unwrap();
    assert_eq!(out, s("(f32[3, 5], f32[3])"));
    assert_eq!(
        scan_params(&[&s("f32[3, 5]")], &[&s("f32[3]")], 1),
        vec![s("f32[3]"), s("f32[3]")]
    );
}

#[test]
fn each_rule_is_an_error() {
    let f = cumsum_body("f32[3]");
    let msg = |r: Result<Shape>| r.unwrap_err().message;
    assert!(msg(scan(&[], &[&s("f32[3]")], &f, 0)).contains("at least one input"));
    assert!(msg(scan(&[&s("f32[3, 5]")], &[&s("f32[3]")], &f, 2)).contains("out of range"));
    assert!(msg(scan(
        &[&s("f32[3, 5]"), &s("f32[3, 4]")],
        &[&s("f32[3]")],
        &f,
        1
    ))
    .contains("scan dimension 1 of size 5"));
    assert!(msg(scan(&[&s("f32[5, 3]")], &[&s("f32[3]")], &f, 1)).contains("parameter 0"));
    assert!(msg(scan(
        &[&s("f32[3, 5]")],
        &[&s("f32[3]"), &s("f32[]")],
        &f,
        1
    ))
    .contains("must take 3 parameters"));
}
