//! Rev, Slice, Pad and ConcatInDim shape inference: the seed's examples and every rule's error
//! (op named, shapes printed, the right attribute or operand blamed).

use super::*;
use crate::element::ElementType;

fn s(text: &str) -> Shape {
    crate::shape::parse_shape(text).unwrap()
}

fn pd(low: i64, high: i64, interior: i64) -> PadDim {
    PadDim {
        low,
        high,
        interior,
    }
}

/// The error's text starts with `op: ` and contains every one of `parts`.
fn assert_err(e: &Error, op: &str, blame: Blame, parts: &[&str]) {
    let text = e.to_string();
    assert!(text.starts_with(&format!("{op}: ")), "{text}");
    for p in parts {
        assert!(text.contains(p), "`{text}` lacks `{p}`");
    }
    assert_eq!(e.blame, blame, "{text}");
}

#[test]
fn rev_keeps_the_shape() {
    assert_eq!(
        rev(&s("f32[2,3]"), &[0, 1]).unwrap().to_string(),
        "f32[2,3]"
    );
    assert_eq!(rev(&s("s8[]"), &[]).unwrap().to_string(), "s8[]");
    assert_eq!(
        rev(&s("f32[<=4,3]"), &[1]).unwrap().to_string(),
        "f32[<=4,3]"
    );
    // Results never carry a layout.
    assert_eq!(
        rev(&s("f32[2,3]{0,1}"), &[0]).unwrap().to_string(),
        "f32[2,3]"
    );
}

#[test]
fn rev_errors() {
    let dims = Blame::Attribute("dimensions");
    let e = rev(&s("f32[2,3]"), &[2]).unwrap_err();
    assert_err(
        &e,
        "Rev",
        dims.clone(),
        &["dimensions[0] = 2", "out of range", "f32[2,3]"],
    );
    let e = rev(&s("f32[2,3]"), &[-1]).unwrap_err();
    assert_err(&e, "Rev", dims.clone(), &["-1", "out of range", "f32[2,3]"]);
    let e = rev(&s("f32[2,3]"), &[1, 1]).unwrap_err();
    assert_err(&e, "Rev", dims, &["repeats dimension 1", "f32[2,3]"]);
    let e = rev(&s("(f32[2], s32[])"), &[]).unwrap_err();
    assert_err(
        &e,
        "Rev",
        Blame::Operand(0),
        &["must be an array", "(f32[2], s32[])"],
    );
}

#[test]
fn seed_slice_examples() {
    // Slice({0, 1, 2, 3, 4}, {2}, {4}) has 2 elements.
    assert_eq!(
        slice(&s("f32[5]"), &[2], &[4], &[1]).unwrap().to_string(),
        "f32[2]"
    );
    // Slice(b, {2, 1}, {4, 3}) of a 4x3 array is 2x2.
    assert_eq!(
        slice(&s("f32[4,3]"), &[2, 1], &[4, 3], &[1, 1])
            .unwrap()
            .to_string(),
        "f32[2,2]"
    );
}

#[test]
fn slice_sizes_round_up_and_may_be_empty() {
    let v = s("f32[10]");
    assert_eq!(slice(&v, &[1], &[10], &[3]).unwrap().to_string(), "f32[3]");
    assert_eq!(slice(&v, &[1], &[8], &[3]).unwrap().to_string(), "f32[3]");
    assert_eq!(slice(&v, &[1], &[7], &[3]).unwrap().to_string(), "f32[2]");
    assert_eq!(slice(&v, &[4], &[4], &[1]).unwrap().to_string(), "f32[0]");
    assert_eq!(slice(&v, &[10], &[10], &[1]).unwrap().to_string(), "f32[0]");
    assert_eq!(
        slice(&v, &[0], &[10], &[i64::MAX]).unwrap().to_string(),
        "f32[1]"
    );
    assert_eq!(
        slice(&s("pred[]"), &[], &[], &[]).unwrap().to_string(),
        "pred[]"
    );
    assert_eq!(
        slice(&s("f32[0,3]"), &[0, 1], &[0, 3], &[1, 1])
            .unwrap()
            .to_string(),
        "f32[0,2]"
    );
    // A dynamic dimension stays dynamic unless a single element is taken.
    let d = s("f32[<=8,3]");
    assert_eq!(
        slice(&d, &[0, 0], &[8, 3], &[2, 1]).unwrap().to_string(),
        "f32[<=4,3]"
    );
    assert_eq!(
        slice(&d, &[2, 0], &[3, 3], &[1, 1]).unwrap().to_string(),
        "f32[1,3]"
    );
}

#[test]
fn slice_errors() {
    let v = s("f32[4,3]");
    let e = slice(&v, &[0], &[4, 3], &[1, 1]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Attribute("start_indices"),
        &["[0]", "1 entry", "f32[4,3]", "rank 2"],
    );
    let e = slice(&v, &[0, 0], &[4, 3, 1], &[1, 1]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Attribute("limit_indices"),
        &["3 entries", "f32[4,3]"],
    );
    let e = slice(&v, &[0, 0], &[4, 3], &[1]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Attribute("strides"),
        &["1 entry", "f32[4,3]"],
    );
    let e = slice(&v, &[0, -1], &[4, 3], &[1, 1]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Attribute("start_indices"),
        &["start_indices[1] = -1", "negative", "f32[4,3]"],
    );
    let e = slice(&v, &[0, 0], &[5, 3], &[1, 1]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Attribute("limit_indices"),
        &["limit_indices[0] = 5", "size 4", "f32[4,3]"],
    );
    let e = slice(&v, &[3, 0], &[2, 3], &[1, 1]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Attribute("limit_indices"),
        &["limit_indices[0] = 2", "start_indices[0] = 3", "f32[4,3]"],
    );
    let e = slice(&v, &[0, 0], &[4, 3], &[1, 0]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Attribute("strides"),
        &["strides[1] = 0", "at least 1", "f32[4,3]"],
    );
    let e = slice(&v, &[0, 0], &[4, 3], &[-2, 1]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Attribute("strides"),
        &["strides[0] = -2", "f32[4,3]"],
    );
    let e = slice(&Shape::Token, &[], &[], &[]).unwrap_err();
    assert_err(
        &e,
        "Slice",
        Blame::Operand(0),
        &["must be an array", "token"],
    );
}

#[test]
fn pad_sizes() {
    let v = s("f32[2,3]");
    let f = s("f32[]");
    assert_eq!(
        pad(&v, &f, &[pd(0, 0, 0), pd(0, 0, 0)])
            .unwrap()
            .to_string(),
        "f32[2,3]"
    );
    // low + size + high + (size - 1) * interior.
    assert_eq!(
        pad(&v, &f, &[pd(1, 2, 0), pd(0, 0, 1)])
            .unwrap()
            .to_string(),
        "f32[5,5]"
    );
    assert_eq!(
        pad(&v, &f, &[pd(-1, 0, 0), pd(-2, -1, 2)])
            .unwrap()
            .to_string(),
        "f32[1,4]"
    );
    // Removing everything gives an empty dimension.
    assert_eq!(
        pad(&v, &f, &[pd(-1, -1, 0), pd(0, 0, 0)])
            .unwrap()
            .to_string(),
        "f32[0,3]"
    );
    // Interior padding of an empty or one-element dimension adds nothing.
    assert_eq!(
        pad(&s("c64[0,1]"), &s("c64[]"), &[pd(1, 1, 5), pd(0, 0, 7)])
            .unwrap()
            .to_string(),
        "c64[2,1]"
    );
    assert_eq!(
        pad(&s("pred[]"), &s("pred[]"), &[]).unwrap().to_string(),
        "pred[]"
    );
    assert_eq!(
        pad(&s("s32[<=4]"), &s("s32[]"), &[pd(1, 0, 0)])
            .unwrap()
            .to_string(),
        "s32[<=5]"
    );
}

#[test]
fn pad_errors() {
    let v = s("f32[2,3]");
    let f = s("f32[]");
    let cfg = Blame::Attribute("padding_config");
    let e = pad(&v, &s("f32[1]"), &[pd(0, 0, 0); 2]).unwrap_err();
    assert_err(
        &e,
        "Pad",
        Blame::Operand(1),
        &["scalar", "f32[1]", "f32[2,3]"],
    );
    let e = pad(&v, &f, &[pd(0, 0, 0)]).unwrap_err();
    assert_err(&e, "Pad", cfg.clone(), &["1 entry", "f32[2,3]", "rank 2"]);
    let e = pad(&v, &s("s32[]"), &[pd(0, 0, 0); 2]).unwrap_err();
    assert_err(
        &e,
        "Pad",
        Blame::Operand(1),
        &["element type", "f32[2,3] vs s32[]"],
    );
    let e = pad(&v, &f, &[pd(0, 0, 0), pd(0, 0, -1)]).unwrap_err();
    assert_err(
        &e,
        "Pad",
        cfg.clone(),
        &[
            "padding_config[1]",
            "negative interior padding -1",
            "f32[2,3]",
        ],
    );
    let e = pad(&v, &f, &[pd(-2, -1, 0), pd(0, 0, 0)]).unwrap_err();
    assert_err(
        &e,
        "Pad",
        cfg.clone(),
        &["dimension 0", "f32[2,3]", "negative size -1"],
    );
    let e = pad(&v, &f, &[pd(0, 0, 0), pd(0, i64::MAX, 0)]).unwrap_err();
    assert_err(&e, "Pad", cfg.clone(), &["dimension 1", "f32[2,3]", "2^63"]);
    let e = pad(&v, &f, &[pd(0, 0, 0), pd(0, 0, i64::MAX / 4)]).unwrap_err();
    assert_err(&e, "Pad", cfg, &["f32"]);
    let e = pad(&v, &Shape::Tuple(vec![]), &[pd(0, 0, 0); 2]).unwrap_err();
    assert_err(&e, "Pad", Blame::Operand(1), &["must be an array"]);
    let e = pad(&Shape::Tuple(vec![]), &f, &[]).unwrap_err();
    assert_err(&e, "Pad", Blame::Operand(0), &["must be an array"]);
}

#[test]
fn seed_concat_examples() {
    // Concat({{2, 3}, {4, 5}, {6, 7}}, 0) = {2, 3, 4, 5, 6, 7}.
    let two = s("s32[2]");
    assert_eq!(
        concat_in_dim(&[&two, &two, &two], 0).unwrap().to_string(),
        "s32[6]"
    );
    // A 3x2 array and a 1x2 array along dimension 0 give 4x2.
    assert_eq!(
        concat_in_dim(&[&s("f32[3,2]"), &s("f32[1,2]")], 0)
            .unwrap()
            .to_string(),
        "f32[4,2]"
    );
}

#[test]
fn concat_shapes() {
    let a = s("f32[2,3]");
    assert_eq!(concat_in_dim(&[&a], 1).unwrap().to_string(), "f32[2,3]");
    assert_eq!(
        concat_in_dim(&[&a, &s("f32[2,0]"), &s("f32[2,4]")], 1)
            .unwrap()
            .to_string(),
        "f32[2,7]"
    );
    assert_eq!(
        concat_in_dim(&[&s("f32[<=2,3]"), &s("f32[2,<=3]")], 0)
            .unwrap()
            .to_string(),
        "f32[<=4,<=3]"
    );
}

#[test]
fn concat_errors() {
    let a = s("f32[2,3]");
    let e = concat_in_dim(&[], 0).unwrap_err();
    assert_err(&e, "ConcatInDim", Blame::Op, &["at least one operand"]);
    let e = concat_in_dim(&[&a, &a], 2).unwrap_err();
    assert_err(
        &e,
        "ConcatInDim",
        Blame::Attribute("dimension"),
        &["dimension 2", "out of range", "f32[2,3]"],
    );
    let e = concat_in_dim(&[&a, &a], -1).unwrap_err();
    assert_err(
        &e,
        "ConcatInDim",
        Blame::Attribute("dimension"),
        &["-1", "f32[2,3]"],
    );
    let sc = s("f32[]");
    let e = concat_in_dim(&[&sc, &sc], 0).unwrap_err();
    assert_err(
        &e,
        "ConcatInDim",
        Blame::Attribute("dimension"),
        &["rank-0", "f32[]"],
    );
    assert!(e.help.unwrap().contains("Reshape"));
    let e = concat_in_dim(&[&a, &s("f32[3]")], 0).unwrap_err();
    assert_err(
        &e,
        "ConcatInDim",
        Blame::Operand(1),
        &["same rank", "f32[2,3] vs f32[3]"],
    );
    let e = concat_in_dim(&[&a, &a, &s("s32[2,3]")], 0).unwrap_err();
    assert_err(
        &e,
        "ConcatInDim",
        Blame::Operand(2),
        &["element type", "f32[2,3] vs s32[2,3]"],
    );
    let e = concat_in_dim(&[&a, &s("f32[1,4]")], 0).unwrap_err();
    assert_err(
        &e,
        "ConcatInDim",
        Blame::Operand(1),
        &[
            "but dimension 0",
            "dimension 1 differs",
            "f32[2,3] vs f32[1,4]",
        ],
    );
    let e = concat_in_dim(&[&a, &Shape::Token], 0).unwrap_err();
    assert_err(
        &e,
        "ConcatInDim",
        Blame::Operand(1),
        &["must be an array", "token"],
    );
    let big = Shape::array(ElementType::Pred, &[i64::MAX - 1]);
    let e = concat_in_dim(&[&big, &big], 0).unwrap_err();
    assert_err(&e, "ConcatInDim", Blame::Operand(1), &["2^63"]);
}
