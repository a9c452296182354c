use super::*;
use crate::element::ElementType::*;

fn s(text: &str) -> Shape {
    crate::shape::parse_shape(text).unwrap()
}

#[test]
fn unary_types_follow_xla() {
    assert_eq!(
        unary(UnaryOp::Exp, &s("f32[2]")).unwrap(),
        ArrayShape::new(F32, &[2])
    );
    assert_eq!(unary(UnaryOp::Exp, &s("c64[2]")).unwrap().ty, C64);
    let e = unary(UnaryOp::Exp, &s("s32[2,3]")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Exp: expects a floating-point or complex element type, got s32[2,3]"
    );
    assert_eq!(e.blame, Blame::Operand(0));
    assert!(unary(UnaryOp::Floor, &s("c64[2]")).is_err());
    assert!(unary(UnaryOp::Erf, &s("f16[2]")).is_ok());
    assert_eq!(unary(UnaryOp::Abs, &s("c128[3]")).unwrap().ty, F64);
    assert_eq!(unary(UnaryOp::Abs, &s("s8[3]")).unwrap().ty, S8);
    assert!(unary(UnaryOp::Abs, &s("u8[3]")).is_err());
    assert!(unary(UnaryOp::Sign, &s("u32[3]")).is_err());
    assert_eq!(unary(UnaryOp::Real, &s("c64[3]")).unwrap().ty, F32);
    assert_eq!(unary(UnaryOp::Imag, &s("f32[3]")).unwrap().ty, F32);
    assert!(unary(UnaryOp::Imag, &s("s32[3]")).is_err());
    assert_eq!(unary(UnaryOp::IsFinite, &s("bf16[3]")).unwrap().ty, Pred);
    assert!(unary(UnaryOp::IsFinite, &s("c64[3]")).is_err());
    let e = unary(UnaryOp::Cbrt, &s("c128[3]")).unwrap_err().to_string();
    assert!(e.contains("Cbrt") && e.contains("c128[3]"), "{e}");
    assert_eq!(
        unary(UnaryOp::Cbrt, &s("f16[3]")).unwrap().ty,
        ElementType::F16
    );
    assert!(unary(UnaryOp::Not, &s("pred[3]")).is_ok());
    assert!(unary(UnaryOp::Not, &s("u16[3]")).is_ok());
    assert!(unary(UnaryOp::Not, &s("f32[3]")).is_err());
    assert!(unary(UnaryOp::Clz, &s("pred[3]")).is_err());
    assert!(unary(UnaryOp::PopulationCount, &s("u64[3]")).is_ok());
    assert!(unary(UnaryOp::Neg, &s("pred[]")).is_err());
    assert!(unary(UnaryOp::Neg, &s("u8[]")).is_ok());
    assert!(unary(UnaryOp::Exp, &s("(f32[])")).is_err());
}

#[test]
fn unary_drops_layout() {
    let r = unary(UnaryOp::Neg, &s("f32[2,3]{0,1}")).unwrap();
    assert_eq!(r.to_string(), "f32[2,3]");
}

#[test]
fn binary_types() {
    let e = binary_op(BinaryOp::Add, &s("f32[2]"), &s("f64[2]"), None).unwrap_err();
    assert_eq!(e.to_string(), "Add: operands must have the same element type (f32[2] vs f64[2]); help: convert one operand with ConvertElementType(_, new_element_type = f32)");
    assert!(binary_op(BinaryOp::Add, &s("pred[2]"), &s("pred[2]"), None).is_ok());
    assert!(binary_op(BinaryOp::Sub, &s("pred[2]"), &s("pred[2]"), None).is_err());
    assert!(binary_op(BinaryOp::Pow, &s("pred[2]"), &s("pred[2]"), None).is_err());
    assert!(binary_op(BinaryOp::Atan2, &s("s32[2]"), &s("s32[2]"), None).is_err());
    assert!(binary_op(BinaryOp::ShiftLeft, &s("f32[2]"), &s("f32[2]"), None).is_err());
    assert!(binary_op(BinaryOp::And, &s("f32[2]"), &s("f32[2]"), None).is_err());
    assert!(binary_op(BinaryOp::Xor, &s("pred[2]"), &s("pred[2]"), None).is_ok());
    let c = binary_op(BinaryOp::Complex, &s("f64[2]"), &s("f64[]"), None).unwrap();
    assert_eq!(c.shape.to_string(), "c128[2]");
    assert!(binary_op(BinaryOp::Complex, &s("f16[2]"), &s("f16[2]"), None).is_err());
}

#[test]
fn binary_broadcast_plan() {
    let p = binary_op(BinaryOp::Add, &s("f32[2,3]"), &s("f32[3]"), Some(&[1])).unwrap();
    assert_eq!(p.shape.to_string(), "f32[2,3]");
    assert_eq!(p.broadcast.operands, vec![None, Some(vec![1])]);
    let e = binary_op(BinaryOp::Add, &s("f32[2,3]"), &s("f32[3]"), None).unwrap_err();
    assert_eq!(e.to_string(), "Add: operands of rank 2 and 1 need broadcast_dimensions (f32[2,3] vs f32[3]); help: broadcast_dimensions = [1]");
}

#[test]
fn comparisons() {
    let p = compare(
        ComparisonDirection::Lt,
        false,
        &s("f32[2,3]"),
        &s("f32[]"),
        None,
    )
    .unwrap();
    assert_eq!(p.shape.to_string(), "pred[2,3]");
    assert_eq!(p.operand_type, F32);
    assert!(compare(
        ComparisonDirection::Eq,
        false,
        &s("c64[2]"),
        &s("c64[2]"),
        None
    )
    .is_ok());
    let e = compare(
        ComparisonDirection::Gt,
        true,
        &s("c64[2]"),
        &s("c64[2]"),
        None,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("GtTotalOrder: complex numbers have no order"),
        "{e}"
    );
    assert!(compare(
        ComparisonDirection::Eq,
        false,
        &s("s32[2]"),
        &s("u32[2]"),
        None
    )
    .is_err());
}

/// XLA's rule (the HLO verifier's check of a compare's comparison type, hlo_verifier.cc;
/// StableHLO's compare constraint C3): FLOAT or TOTALORDER for floats, FLOAT for complex,
/// SIGNED for signed integers, UNSIGNED for unsigned integers and pred.
#[test]
fn comparison_type_must_fit_the_operands() {
    let cmp =
        |ct, l: &str, r: &str| compare_with_type(ComparisonDirection::Gt, ct, &s(l), &s(r), None);
    let e = cmp(Some(ComparisonType::Signed), "f32[3]", "f32[3]").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Compare: comparison_type SIGNED needs signed integer operands, got f32[3] vs \
         f32[3]; help: f32 operands compare with comparison_type = FLOAT or TOTALORDER (or \
         leave it out)"
    );
    assert_eq!(e.blame, Blame::Attribute("comparison_type"));
    // TOTALORDER is a float order: XLA refuses it on integers, pred and complex.
    let e = cmp(Some(ComparisonType::TotalOrder), "s32[2,3]", "s32[]");
    let e = e.unwrap_err().to_string();
    assert!(
        e.starts_with("Compare: comparison_type TOTALORDER needs floating-point"),
        "{e}"
    );
    assert!(
        e.contains("s32[2,3] vs s32[]") && e.contains("= SIGNED"),
        "{e}"
    );
    assert!(cmp(Some(ComparisonType::TotalOrder), "u8[2]", "u8[2]").is_err());
    assert!(cmp(Some(ComparisonType::TotalOrder), "pred[2]", "pred[2]").is_err());
    let e = compare_with_type(
        ComparisonDirection::Eq,
        Some(ComparisonType::TotalOrder),
        &s("c64[2]"),
        &s("c64[2]"),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("= FLOAT (or"), "{e}");
    assert!(cmp(Some(ComparisonType::Unsigned), "s8[2]", "s8[2]").is_err());
    assert!(cmp(Some(ComparisonType::Signed), "u16[2]", "u16[2]").is_err());
    assert!(cmp(Some(ComparisonType::Float), "s64[2]", "s64[2]").is_err());
    assert!(cmp(Some(ComparisonType::Signed), "pred[2]", "pred[2]").is_err());
    // And what fits.
    for (ct, ty) in [
        (ComparisonType::Float, "bf16"),
        (ComparisonType::TotalOrder, "f16"),
        (ComparisonType::TotalOrder, "f64"),
        (ComparisonType::Signed, "s16"),
        (ComparisonType::Unsigned, "u64"),
        (ComparisonType::Unsigned, "pred"),
    ] {
        let t = format!("{ty}[2]");
        let p = cmp(Some(ct), &t, &t).unwrap();
        assert_eq!(p.shape.to_string(), "pred[2]");
    }
    assert!(compare_with_type(
        ComparisonDirection::Ne,
        Some(ComparisonType::Float),
        &s("c128[2]"),
        &s("c128[2]"),
        None
    )
    .is_ok());
    // No comparison_type: the operands' own; the other rules are compare's, naming Compare.
    assert!(cmp(None, "u32[2]", "u32[2]").is_ok());
    let e = cmp(None, "c64[2]", "c64[2]").unwrap_err().to_string();
    assert!(
        e.starts_with("Compare: complex numbers have no order"),
        "{e}"
    );
    let e = cmp(Some(ComparisonType::Float), "f32[2]", "f64[2]");
    assert!(e
        .unwrap_err()
        .to_string()
        .starts_with("Compare: operands must have"));
    // The *TotalOrder ops take integers as XLA's LtTotalOrder does (as SIGNED/UNSIGNED).
    for t in ["s32[2]", "u8[2]", "pred[2]"] {
        assert!(compare(ComparisonDirection::Lt, true, &s(t), &s(t), None).is_ok());
    }
}

#[test]
fn comparison_type_names_and_defaults() {
    for ct in [
        ComparisonType::Float,
        ComparisonType::TotalOrder,
        ComparisonType::Signed,
        ComparisonType::Unsigned,
    ] {
        assert_eq!(ComparisonType::from_name(ct.name()), Some(ct));
    }
    assert_eq!(ComparisonType::from_name("PARTIALORDER"), None);
    for ty in ElementType::ALL {
        let d = ComparisonType::default_for(ty);
        assert!(d.admits(ty), "{ty}");
        assert!(ComparisonType::total_order_for(ty).admits(ty), "{ty}");
    }
    assert_eq!(ComparisonType::default_for(Pred), ComparisonType::Unsigned);
    assert_eq!(ComparisonType::default_for(C64), ComparisonType::Float);
    assert_eq!(
        ComparisonType::total_order_for(Bf16),
        ComparisonType::TotalOrder
    );
    assert_eq!(ComparisonType::total_order_for(S8), ComparisonType::Signed);
}

#[test]
fn select_rules() {
    assert_eq!(
        select(&s("pred[4]"), &s("s32[4]"), &s("s32[4]")).unwrap(),
        s("s32[4]")
    );
    assert_eq!(
        select(&s("pred[]"), &s("s32[4]"), &s("s32[4]")).unwrap(),
        s("s32[4]")
    );
    assert!(select(&s("s32[4]"), &s("s32[4]"), &s("s32[4]")).is_err());
    assert!(select(&s("pred[3]"), &s("s32[4]"), &s("s32[4]")).is_err());
    assert!(select(&s("pred[4]"), &s("s32[4]"), &s("f32[4]")).is_err());
    assert!(select(&s("pred[]"), &s("(s32[4], f32[])"), &s("(s32[4], f32[])")).is_ok());
    assert!(select(&s("pred[4]"), &s("(s32[4])"), &s("(s32[4])")).is_err());
}

#[test]
fn clamp_rules() {
    assert_eq!(
        clamp(&s("s32[]"), &s("s32[3]"), &s("s32[]"))
            .unwrap()
            .to_string(),
        "s32[3]"
    );
    assert!(clamp(&s("s32[3]"), &s("s32[3]"), &s("s32[3]")).is_ok());
    let e = clamp(&s("s32[2]"), &s("s32[3]"), &s("s32[]")).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(0));
    let e = clamp(&s("s32[]"), &s("s32[3]"), &s("f32[]")).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(2));
}

#[test]
fn conversions() {
    assert_eq!(convert(&s("s32[3]"), F32).unwrap().to_string(), "f32[3]");
    assert!(convert(&s("f32[3]"), C64).is_ok());
    assert!(convert(&s("c64[3]"), F32).is_err());
    assert_eq!(
        bitcast_convert(&s("f32[10]"), F16).unwrap().to_string(),
        "f16[10,2]"
    );
    assert_eq!(
        bitcast_convert(&s("f32[]"), F16).unwrap().to_string(),
        "f16[2]"
    );
    assert_eq!(
        bitcast_convert(&s("f16[10,2]"), F32).unwrap().to_string(),
        "f32[10]"
    );
    assert_eq!(
        bitcast_convert(&s("s32[3]"), F32).unwrap().to_string(),
        "f32[3]"
    );
    assert_eq!(
        bitcast_convert(&s("s32[4]"), S8).unwrap().to_string(),
        "s8[4,4]"
    );
    assert!(bitcast_convert(&s("f16[10,3]"), F32).is_err());
    assert!(bitcast_convert(&s("f16[]"), F32).is_err());
    assert!(bitcast_convert(&s("c64[2]"), F64).is_err());
    assert!(bitcast_convert(&s("u8[2]"), Pred).is_err());
    assert!(reduce_precision(&s("f32[2]"), 5, 10).is_ok());
    assert!(reduce_precision(&s("f32[2]"), 0, 10).is_err());
    assert!(reduce_precision(&s("f32[2]"), 5, -1).is_err());
    assert!(reduce_precision(&s("s32[2]"), 5, 10).is_err());
}
