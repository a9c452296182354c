//! While and Conditional shape rules: each violation, its message and what it blames.

use super::*;
use crate::builder::Builder;
use crate::literal::Literal;
use crate::shape::parse_shape;

fn s(text: &str) -> Shape {
    parse_shape(text).unwrap()
}

/// A zero value of `shape`.
fn zeros(shape: &Shape) -> Literal {
    match shape {
        Shape::Array(a) => Literal::zeros(a),
        Shape::Tuple(elems) => Literal::Tuple(elems.iter().map(zeros).collect()),
        Shape::Token => Literal::Token,
    }
}

/// A computation `name` with these parameter shapes returning a constant of shape `result`.
fn sig(name: &str, params: &[&str], result: &str) -> Computation {
    let mut b = Builder::new(name);
    for (i, p) in params.iter().enumerate() {
        b.parameter(i, s(p), &format!("p{i}")).unwrap();
    }
    let r = b.constant(zeros(&s(result)));
    b.build(r).unwrap()
}

const STATE: &str = "(s32[], f32[3])";

#[test]
fn while_result_is_the_state_without_layout() {
    let cond = sig("cond", &[STATE], "pred[]");
    let body = sig("body", &["(s32[], f32[3]{0})"], STATE);
    let init = s("(s32[], f32[3]{0})");
    assert_eq!(while_loop(&cond, &body, &init).unwrap(), s(STATE));
    // An array state.
    let cond = sig("cond", &["f32[2,2]"], "pred[]");
    let body = sig("body", &["f32[2,2]"], "f32[2,2]");
    assert_eq!(
        while_loop(&cond, &body, &s("f32[2,2]")).unwrap(),
        s("f32[2,2]")
    );
}

#[test]
fn while_computations_take_one_parameter() {
    let good_cond = sig("cond", &[STATE], "pred[]");
    let good_body = sig("body", &[STATE], STATE);
    let e = while_loop(
        &sig("c2", &[STATE, "s32[]"], "pred[]"),
        &good_body,
        &s(STATE),
    )
    .unwrap_err();
    assert_eq!(e.blame, Blame::ComputationAt(0));
    assert_eq!(
        e.message,
        "the condition `c2` must take 1 parameter (the state, (s32[], f32[3])), takes 2 parameters"
    );
    let e = while_loop(&good_cond, &sig("b0", &[], STATE), &s(STATE)).unwrap_err();
    assert_eq!(e.blame, Blame::ComputationAt(1));
    assert_eq!(e.op, "While");
    assert!(
        e.message.contains("the body `b0` must take 1 parameter"),
        "{e}"
    );
}

#[test]
fn while_condition_returns_a_pred_scalar() {
    let body = sig("body", &[STATE], STATE);
    for bad in ["s32[]", "pred[1]", "(pred[])"] {
        let e = while_loop(&sig("cond", &[STATE], bad), &body, &s(STATE)).unwrap_err();
        assert_eq!(e.blame, Blame::ComputationAt(0));
        assert_eq!(
            e.message,
            format!(
                "the condition `cond` must return pred[], returns {bad} (the state is {})",
                s(STATE)
            )
        );
    }
}

#[test]
fn while_body_returns_the_state() {
    let cond = sig("cond", &[STATE], "pred[]");
    let body = sig("body", &[STATE], "(s32[], f32[4])");
    let e = while_loop(&cond, &body, &s(STATE)).unwrap_err();
    assert_eq!(e.blame, Blame::ComputationAt(1));
    assert_eq!(
        e.message,
        "body `body` returns (s32[], f32[4]) but the state is (s32[], f32[3])"
    );
    assert!(e.help.is_some());
    assert!(e
        .to_string()
        .starts_with("While: body `body` returns (s32[], f32[4]) but the state is"));
}

#[test]
fn while_parameters_match_the_state() {
    // The body takes another state than init (and than the condition): the body is at fault.
    let cond = sig("cond", &[STATE], "pred[]");
    let body = sig("body", &["(s32[], f32[4])"], STATE);
    let e = while_loop(&cond, &body, &s(STATE)).unwrap_err();
    assert_eq!(e.blame, Blame::ComputationAt(1));
    assert_eq!(
        e.message,
        "body `body` takes (s32[], f32[4]) but the state is (s32[], f32[3])"
    );
    // The condition takes another state.
    let cond = sig("cond", &["(s32[], f64[3])"], "pred[]");
    let body = sig("body", &[STATE], STATE);
    let e = while_loop(&cond, &body, &s(STATE)).unwrap_err();
    assert_eq!(e.blame, Blame::ComputationAt(0));
    assert_eq!(
        e.message,
        "condition `cond` takes (s32[], f64[3]) but the state is (s32[], f32[3])"
    );
}

#[test]
fn while_init_is_blamed_when_the_computations_agree() {
    let other = "(s32[], f32[4])";
    let cond = sig("cond", &[other], "pred[]");
    let body = sig("body", &[other], other);
    let e = while_loop(&cond, &body, &s(STATE)).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(0));
    assert_eq!(
        e.message,
        "init is (s32[], f32[3]) but the condition `cond` and body `body` take the state \
         (s32[], f32[4])"
    );
    // Array vs tuple state.
    let e = while_loop(&cond, &body, &s("f32[3]")).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(0));
}

#[test]
fn conditional_pred_and_index_forms() {
    let t = sig("t", &["f32[3]"], "f32[]");
    let f = sig("f", &["(s32[2], f32[])"], "f32[]{}");
    let ops = [&s("f32[3]"), &s("(s32[2], f32[])")];
    assert_eq!(
        conditional(&s("pred[]"), &[&t, &f], &ops).unwrap(),
        s("f32[]")
    );
    let g = sig("g", &["u8[]"], "f32[]");
    let ops3 = [&s("f32[3]"), &s("(s32[2], f32[])"), &s("u8[]")];
    assert_eq!(
        conditional(&s("s32[]"), &[&t, &f, &g], &ops3).unwrap(),
        s("f32[]")
    );
    // One branch is enough for an index.
    assert_eq!(
        conditional(&s("s32[]"), &[&t], &[&s("f32[3]")]).unwrap(),
        s("f32[]")
    );
    // Layouts of operands and parameters are ignored.
    let l = sig("l", &["f32[2,3]{0,1}"], "(f32[2,3]{0,1})");
    assert_eq!(
        conditional(&s("s32[]"), &[&l], &[&s("f32[2,3]")]).unwrap(),
        s("(f32[2,3])")
    );
}

#[test]
fn conditional_selector_type() {
    let t = sig("t", &["f32[]"], "f32[]");
    let ops = [&s("f32[]"), &s("f32[]")];
    for bad in ["f32[]", "pred[2]", "s32[1]", "s64[]", "u32[]", "(pred[])"] {
        let e = conditional(&s(bad), &[&t, &t], &ops).unwrap_err();
        assert_eq!(e.op, "Conditional");
        assert_eq!(e.blame, Blame::Operand(0));
        assert_eq!(
            e.message,
            format!("the selector must be pred[] or s32[], got {bad}")
        );
    }
    // Each builder form insists on its own type.
    assert!(conditional_selector(&s("pred[]"), ElementType::Pred).is_ok());
    assert!(conditional_selector(&s("s32[]"), ElementType::S32).is_ok());
    let e = conditional_selector(&s("s32[]"), ElementType::Pred).unwrap_err();
    assert_eq!(
        e.message,
        "the predicate of a true/false Conditional must be pred[], got s32[]"
    );
    assert_eq!(e.blame, Blame::Operand(0));
    let e = conditional_selector(&s("pred[]"), ElementType::S32).unwrap_err();
    assert_eq!(
        e.message,
        "the branch index of an indexed Conditional must be s32[], got pred[]"
    );
}

#[test]
fn conditional_branch_counts() {
    let t = sig("t", &["f32[]"], "f32[]");
    let x = s("f32[]");
    let e = conditional(&s("pred[]"), &[&t, &t, &t], &[&x, &x, &x]).unwrap_err();
    assert_eq!(
        e.message,
        "a pred[] selector needs exactly 2 branches (true, false), got 3"
    );
    assert_eq!(e.blame, Blame::Op);
    assert!(conditional(&s("pred[]"), &[&t], &[&x]).is_err());
    let e = conditional(&s("s32[]"), &[], &[]).unwrap_err();
    assert_eq!(
        e.message,
        "an s32[] branch index needs at least 1 branch, got none"
    );
    let e = conditional(&s("s32[]"), &[&t, &t], &[&x]).unwrap_err();
    assert_eq!(e.message, "2 branches need one operand each, got 1 operand");
    assert_eq!(e.blame, Blame::Op);
}

#[test]
fn conditional_branches_take_their_operand() {
    let t = sig("t", &["f32[]"], "f32[]");
    let two = sig("two", &["f32[]", "f32[]"], "f32[]");
    let x = s("f32[]");
    let e = conditional(&s("pred[]"), &[&t, &two], &[&x, &x]).unwrap_err();
    assert_eq!(e.blame, Blame::ComputationAt(1));
    assert_eq!(
        e.message,
        "the false branch `two` must take 1 parameter (its operand, f32[]), takes 2 parameters"
    );
    let e = conditional(&s("s32[]"), &[&t, &t, &t], &[&x, &x, &s("f64[]")]).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(3));
    assert_eq!(
        e.message,
        "the operand of branch 2 `t` is f64[] but its parameter is f32[]"
    );
    let e = conditional(&s("pred[]"), &[&t, &t], &[&s("s32[]"), &x]).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(1));
    assert_eq!(
        e.message,
        "the operand of the true branch `t` is s32[] but its parameter is f32[]"
    );
}

#[test]
fn conditional_branches_return_one_shape() {
    let t = sig("t", &["f32[]"], "(f32[], s32[2])");
    let f = sig("f", &["f32[]"], "(f32[], s32[3])");
    let x = s("f32[]");
    let e = conditional(&s("pred[]"), &[&t, &f], &[&x, &x]).unwrap_err();
    assert_eq!(e.blame, Blame::ComputationAt(1));
    assert_eq!(
        e.message,
        "the false branch `f` returns (f32[], s32[3]) but the true branch `t` returns \
         (f32[], s32[2]); all branches must return one shape"
    );
    let e = conditional(&s("s32[]"), &[&t, &t, &f], &[&x, &x, &x]).unwrap_err();
    assert!(
        e.message
            .starts_with("branch 2 `f` returns (f32[], s32[3]) but branch 0 `t` returns"),
        "{e}"
    );
}
