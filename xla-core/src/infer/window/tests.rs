use super::*;
use crate::builder::Builder;
use crate::ir::BinaryOp;
use crate::shape::parse_shape;
use std::sync::Arc;

fn s(text: &str) -> Shape {
    parse_shape(text).unwrap()
}

fn add(ty: &str) -> Arc<Computation> {
    let mut b = Builder::new("add");
    let x = b.parameter(0, s(ty), "a").unwrap();
    let y = b.parameter(1, s(ty), "b").unwrap();
    let r = b.binary(BinaryOp::Add, x, y, None).unwrap();
    Arc::new(b.build(r).unwrap())
}

fn spec(dims: &[i64], strides: &[i64], padding: WindowPadding) -> WindowSpec {
    WindowSpec {
        strides: Some(strides.to_vec()),
        padding,
        ..WindowSpec::new(dims)
    }
}

fn rw(operand: &str, w: &WindowSpec) -> Result<Shape> {
    let c = add("f32[]");
    reduce_window(&[&s(operand)], &[&s("f32[]")], &c, w).map(|(s, _)| s)
}

#[test]
fn output_sizes() {
    let valid = WindowPadding::Kind(Padding::Valid);
    // The seed's example 1: [4x6] by [2x3] windows, strides [2x3].
    assert_eq!(
        rw("f32[4,6]", &spec(&[2, 3], &[2, 3], valid.clone())).unwrap(),
        s("f32[2,2]")
    );
    // The seed's 1-D example: window 3, stride 2 over 5 elements: VALID 2, SAME 3.
    assert_eq!(
        rw("f32[5]", &spec(&[3], &[2], valid.clone())).unwrap(),
        s("f32[2]")
    );
    let same = WindowPadding::Kind(Padding::Same);
    let (_, w) = reduce_window(
        &[&s("f32[5]")],
        &[&s("f32[]")],
        &add("f32[]"),
        &spec(&[3], &[1], same),
    )
    .unwrap();
    assert_eq!(w.padding, vec![(1, 1)]);
    // The seed's example 2: s32[3,2], base dilation 2, padding (2,1), window [2,1] dilated
    // [3,1], strides [4,1] -> [2,2].
    let w = WindowSpec {
        dimensions: vec![2, 1],
        strides: Some(vec![4, 1]),
        base_dilations: Some(vec![2, 1]),
        window_dilations: Some(vec![3, 1]),
        padding: WindowPadding::Explicit(vec![(2, 1), (0, 0)]),
    };
    let c = add("s32[]");
    let (out, _) = reduce_window(&[&s("s32[3,2]")], &[&s("s32[]")], &c, &w).unwrap();
    assert_eq!(out, s("s32[2,2]"));
    // A window larger than the operand: no positions.
    assert_eq!(rw("f32[2]", &spec(&[3], &[1], valid)).unwrap(), s("f32[0]"));
}

#[test]
fn rules() {
    let valid = || WindowPadding::Kind(Padding::Valid);
    let msg = |operand: &str, w: &WindowSpec| rw(operand, w).unwrap_err().to_string();
    assert_eq!(
        msg("f32[4,6]", &spec(&[2], &[1], valid())),
        "ReduceWindow: window_dimensions [2] has 1 entry but the operand f32[4,6] has rank 2"
    );
    assert_eq!(
        msg("f32[4,6]", &spec(&[2, 0], &[1, 1], valid())),
        "ReduceWindow: window_dimensions[1] = 0: a window is at least 1 element wide (operand f32[4,6])"
    );
    assert_eq!(
        msg("f32[4]", &spec(&[2], &[0], valid())),
        "ReduceWindow: window_strides[0] = 0: a stride is at least 1 (operand f32[4])"
    );
    let e = rw(
        "f32[4]",
        &spec(&[2], &[1], WindowPadding::Explicit(vec![(-3, -2)])),
    )
    .unwrap_err();
    assert_eq!(e.blame, Blame::Attribute("padding"));
    let e = rw("f32[4]", &spec(&[2], &[1], WindowPadding::Explicit(vec![]))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ReduceWindow: padding has 0 (low, high) pairs but the operand f32[4] has rank 1"
    );
    let e = reduce_window(
        &[&s("f32[4]")],
        &[&s("f32[]")],
        &add("s32[]"),
        &WindowSpec::new(&[2]),
    )
    .unwrap_err();
    assert_eq!(e.blame, Blame::Computation);
    let e = reduce_window(
        &[&s("f32[4]")],
        &[&s("s32[]")],
        &add("f32[]"),
        &WindowSpec::new(&[2]),
    )
    .unwrap_err();
    assert_eq!(e.blame, Blame::Operand(1));
}
