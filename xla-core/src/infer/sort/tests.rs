//! Shape inference of Sort and TopK: results and every rule.

use super::*;
use crate::builder::Builder;
use crate::element::ElementType::{self, Pred, F32, S32};
use crate::ir::ComparisonDirection;
use crate::shape::parse_shape;

fn s(text: &str) -> Shape {
    parse_shape(text).unwrap()
}

/// A computation with parameters `params` returning `ret` (a comparison of parameters 0 and 1
/// when `ret` is `pred[]` and they allow it; otherwise a constant of shape `ret`).
fn comp(params: &[Shape], ret: &str) -> Computation {
    let mut b = Builder::new("cmp");
    let ps: Vec<_> = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.parameter(i, p.clone(), "p").unwrap())
        .collect();
    let want = s(ret);
    let root = match b.compare(ComparisonDirection::Lt, false, ps[0], ps[1], None) {
        Ok(r) if *b.shape(r) == want => r,
        _ => {
            let a = want.as_array().unwrap();
            b.constant(crate::literal::Literal::zeros(a))
        }
    };
    b.build(root).unwrap()
}

/// The comparator over `types` that inference must accept.
fn good(types: &[ElementType]) -> Computation {
    comp(&comparator_params(types), "pred[]")
}

#[test]
fn comparator_params_pair_each_operand() {
    assert_eq!(
        comparator_params(&[S32, F32]),
        vec![s("s32[]"), s("s32[]"), s("f32[]"), s("f32[]")]
    );
    assert!(comparator_params(&[]).is_empty());
}

#[test]
fn one_operand_keeps_its_shape_without_layout() {
    let c = good(&[F32]);
    assert_eq!(sort(&[&s("f32[2,3]")], 1, &c).unwrap(), s("f32[2,3]"));
    assert_eq!(sort(&[&s("f32[2,3]")], 0, &c).unwrap(), s("f32[2,3]"));
    assert_eq!(sort(&[&s("f32[2,3]{0,1}")], -1, &c).unwrap(), s("f32[2,3]"));
    assert_eq!(sort(&[&s("f32[<=4,3]")], 0, &c).unwrap(), s("f32[<=4,3]"));
    assert_eq!(sort(&[&s("f32[0]")], 0, &c).unwrap(), s("f32[0]"));
}

#[test]
fn the_seed_example_is_a_tuple_of_three() {
    // operand0 = [3, 1], operand1 = [42, 50], operand2 = [-3.0, 1.1].
    let c = good(&[S32, S32, F32]);
    let out = sort(&[&s("s32[2]"), &s("s32[2]"), &s("f32[2]")], 0, &c).unwrap();
    assert_eq!(out, s("(s32[2], s32[2], f32[2])"));
}

#[test]
fn minus_one_is_the_last_dimension() {
    let x = s("f32[2,3,4]");
    assert_eq!(sort_dimension(&[&x], -1).unwrap(), 2);
    assert_eq!(sort_dimension(&[&x], 1).unwrap(), 1);
    let e = sort_dimension(&[&x], -2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Sort: dimension = -2 is out of range for the rank-3 operand f32[2,3,4] (0..3, or -1 \
         for the last)"
    );
    assert_eq!(e.blame, Blame::Attribute("dimension"));
    let e = sort(&[&x], 3, &good(&[F32])).unwrap_err();
    assert_eq!(e.blame, Blame::Attribute("dimension"));
    assert!(e.message.contains("dimension = 3 is out of range"));
}

#[test]
fn operands_rules() {
    let c = good(&[F32]);
    let e = sort(&[], 0, &c).unwrap_err();
    assert_eq!(e.to_string(), "Sort: needs at least one operand");
    let e = sort(&[&s("(f32[2])")], 0, &c).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(0));
    assert_eq!(
        e.to_string(),
        "Sort: each operand must be an array, got (f32[2])"
    );
    let e = sort(&[&s("f32[]")], -1, &c).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Sort: operand 0 is the scalar f32[]: there is no dimension to sort along"
    );
    let c2 = good(&[F32, S32]);
    let e = sort(&[&s("f32[4]"), &s("s32[5]")], 0, &c2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Sort: all operands must have the same dimensions: operand 0 is f32[4], operand 1 is \
         s32[5]"
    );
    assert_eq!(e.blame, Blame::Operand(1));
    let e = sort(&[&s("f32[4]"), &s("s32[<=4]")], 0, &c2).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(1));
    let e = sort(&[&s("f32[4]"), &s("token[]")], 0, &c2).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(1));
}

#[test]
fn comparator_rules() {
    let x = s("s32[4]");
    // Parameter count.
    let e = sort(&[&x], 0, &good(&[S32, S32])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Sort: the comparator `cmp` takes 4 parameters but sorting the operand s32[4] needs 2 \
         (an lhs and an rhs scalar of each operand): (s32[], s32[]) -> pred[]"
    );
    assert_eq!(e.blame, Blame::Computation);
    // Parameter type.
    let c = comp(&[s("s32[]"), s("f32[]")], "pred[]");
    let e = sort(&[&x], 0, &c).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Sort: comparator parameter 1 is f32[] but operand 0 is s32[4]; the comparator must \
         be (s32[], s32[]) -> pred[]"
    );
    assert_eq!(e.blame, Blame::Computation);
    // A non-scalar parameter.
    let c = comp(&[s("s32[4]"), s("s32[4]")], "pred[]");
    let e = sort(&[&x], 0, &c).unwrap_err();
    assert!(e
        .message
        .starts_with("comparator parameter 0 is s32[4] but operand 0 is s32[4]"));
    // The second operand's pair is checked too.
    let c = comp(&[s("s32[]"), s("s32[]"), s("f32[]"), s("f16[]")], "pred[]");
    let e = sort(&[&x, &s("f32[4]")], 0, &c).unwrap_err();
    assert!(e
        .message
        .starts_with("comparator parameter 3 is f16[] but operand 1 is f32[4]"));
    // Result.
    let c = comp(&comparator_params(&[S32]), "s32[]");
    let e = sort(&[&x], 0, &c).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Sort: the comparator `cmp` returns s32[] but must return pred[] (whether its lhs goes \
         first): (s32[], s32[]) -> pred[] for the operand s32[4]; help: compare the parameters, \
         e.g. `|a, b| Lt(a, b)` for an ascending sort"
    );
    assert_eq!(e.blame, Blame::Computation);
    let c = comp(&comparator_params(&[S32]), "pred[2]");
    assert_eq!(sort(&[&x], 0, &c).unwrap_err().blame, Blame::Computation);
    // A pred operand with a pred comparator is fine.
    assert_eq!(
        sort(&[&s("pred[3]")], 0, &good(&[Pred])).unwrap(),
        s("pred[3]")
    );
}

#[test]
fn top_k_shapes() {
    assert_eq!(
        top_k(&s("f32[2,5]"), 3, true).unwrap(),
        s("(f32[2,3], s32[2,3])")
    );
    assert_eq!(top_k(&s("s8[5]"), 0, false).unwrap(), s("(s8[0], s32[0])"));
    assert_eq!(top_k(&s("u16[5]"), 5, true).unwrap(), s("(u16[5], s32[5])"));
    assert_eq!(
        top_k(&s("bf16[<=3,<=5]{0,1}"), 2, true).unwrap(),
        s("(bf16[<=3,2], s32[<=3,2])")
    );
    assert_eq!(
        top_k(&s("pred[4]"), 1, false).unwrap(),
        s("(pred[1], s32[1])")
    );
}

#[test]
fn top_k_rules() {
    let e = top_k(&s("f32[]"), 0, true).unwrap_err();
    assert_eq!(
        e.to_string(),
        "TopK: the operand must have at least one dimension, got the scalar f32[]"
    );
    assert_eq!(e.blame, Blame::Operand(0));
    let e = top_k(&s("(f32[2])"), 1, true).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(0));
    let e = top_k(&s("c64[4]"), 1, true).unwrap_err();
    assert_eq!(
        e.to_string(),
        "TopK: c64 elements have no order (operand c64[4]); TopK takes pred, integer or \
         floating-point elements"
    );
    let e = top_k(&s("f32[2,4]"), -1, true).unwrap_err();
    assert_eq!(
        e.to_string(),
        "TopK: k = -1 must not be negative (operand f32[2,4])"
    );
    assert_eq!(e.blame, Blame::Attribute("k"));
    let e = top_k(&s("f32[2,4]"), 5, false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "TopK: k = 5 is larger than the last dimension (size 4) of the operand f32[2,4]"
    );
    assert_eq!(e.blame, Blame::Attribute("k"));
}
