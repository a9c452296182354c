//! Shape inference of DynamicSlice and DynamicUpdateSlice: results, and every rule with its
//! message and blame.

use super::*;
use crate::shape::parse_shape;

fn s(text: &str) -> Shape {
    parse_shape(text).unwrap()
}

fn starts(texts: &[&str]) -> Vec<Shape> {
    texts.iter().map(|t| s(t)).collect()
}

fn refs(v: &[Shape]) -> Vec<&Shape> {
    v.iter().collect()
}

#[test]
fn dynamic_slice_results() {
    let st = starts(&["s32[]", "s32[]"]);
    let out = dynamic_slice(&s("f32[4,3]"), &refs(&st), &[2, 2]).unwrap();
    assert_eq!(out, s("f32[2,2]"));
    let st = starts(&["u8[]"]);
    assert_eq!(
        dynamic_slice(&s("bf16[5]"), &refs(&st), &[5]).unwrap(),
        s("bf16[5]")
    );
    // A scalar operand takes no starts.
    assert_eq!(dynamic_slice(&s("f32[]"), &[], &[]).unwrap(), s("f32[]"));
}

#[test]
fn dynamic_update_slice_results() {
    let st = starts(&["s64[]", "s64[]"]);
    let out = dynamic_update_slice(&s("c64[4,3]"), &s("c64[3,2]"), &refs(&st)).unwrap();
    assert_eq!(out, s("c64[4,3]"));
}

/// (operand, starts, slice sizes, message part, blame).
type SliceCase = (
    &'static str,
    Vec<&'static str>,
    Vec<i64>,
    &'static str,
    Blame,
);

#[test]
fn dynamic_slice_rules() {
    let cases: Vec<SliceCase> = vec![
        (
            "(f32[2])",
            vec!["s32[]"],
            vec![1],
            "the operand must be an array",
            Blame::Operand(0),
        ),
        (
            "f32[4,3]",
            vec!["s32[]"],
            vec![2, 2],
            "1 start index given for a rank-2 operand",
            Blame::Op,
        ),
        (
            "f32[4,3]",
            vec!["s32[2]", "s32[]"],
            vec![2, 2],
            "start index 0 must be a scalar, got s32[2]",
            Blame::Operand(1),
        ),
        (
            "f32[4,3]",
            vec!["s32[]", "f32[]"],
            vec![2, 2],
            "start index 1 must have an integer element type, got f32[]",
            Blame::Operand(2),
        ),
        (
            "f32[4,3]",
            vec!["s32[]", "pred[]"],
            vec![2, 2],
            "start index 1 must have an integer element type",
            Blame::Operand(2),
        ),
        (
            "f32[4,3]",
            vec!["s32[]", "u32[]"],
            vec![2, 2],
            "start index 1 is u32[] but start index 0 is s32[]",
            Blame::Operand(2),
        ),
        (
            "f32[4,3]",
            vec!["s32[]", "s32[]"],
            vec![2],
            "slice_sizes [2] has 1 entry but the operand has rank 2",
            Blame::Attribute("slice_sizes"),
        ),
        (
            "f32[4,3]",
            vec!["s32[]", "s32[]"],
            vec![2, 0],
            "slice_sizes[1] = 0 must be at least 1",
            Blame::Attribute("slice_sizes"),
        ),
        (
            "f32[4,3]",
            vec!["s32[]", "s32[]"],
            vec![-1, 2],
            "slice_sizes[0] = -1 must be at least 1",
            Blame::Attribute("slice_sizes"),
        ),
        (
            "f32[4,3]",
            vec!["s32[]", "s32[]"],
            vec![2, 4],
            "slice_sizes[1] = 4 is larger than dimension 1 of the operand (3)",
            Blame::Attribute("slice_sizes"),
        ),
    ];
    for (operand, st, sizes, part, blame) in cases {
        let st = starts(&st);
        let e = dynamic_slice(&s(operand), &refs(&st), &sizes).unwrap_err();
        assert_eq!(e.op, "DynamicSlice");
        assert!(e.message.contains(part), "{part:?} not in {e}");
        assert_eq!(e.blame, blame, "{e}");
        if !part.contains("must be an array") {
            assert!(e.message.contains(&format!("operand {operand}")), "{e}");
        }
    }
}

/// (operand, update, starts, message part, blame).
type UpdateCase = (
    &'static str,
    &'static str,
    Vec<&'static str>,
    &'static str,
    Blame,
);

#[test]
fn dynamic_update_slice_rules() {
    let cases: Vec<UpdateCase> = vec![
        (
            "f32[4,3]",
            "(f32[2])",
            vec!["s32[]", "s32[]"],
            "the update must be an array",
            Blame::Operand(1),
        ),
        (
            "f32[4,3]",
            "f32[2,2]",
            vec!["s32[]", "s32[]", "s32[]"],
            "3 start indices given for a rank-2 operand",
            Blame::Op,
        ),
        (
            "f32[4,3]",
            "f32[2,2]",
            vec!["s32[]", "s32[1]"],
            "start index 1 must be a scalar",
            Blame::Operand(3),
        ),
        (
            "f32[4,3]",
            "f32[2,2]",
            vec!["f16[]", "f16[]"],
            "start index 0 must have an integer element type",
            Blame::Operand(2),
        ),
        (
            "f32[4,3]",
            "f32[2,2]",
            vec!["s8[]", "s16[]"],
            "start index 1 is s16[] but start index 0 is s8[]",
            Blame::Operand(3),
        ),
        (
            "f32[4,3]",
            "f32[2]",
            vec!["s32[]", "s32[]"],
            "the update has rank 1 but the operand has rank 2",
            Blame::Operand(1),
        ),
        (
            "f32[4,3]",
            "f64[2,2]",
            vec!["s32[]", "s32[]"],
            "the update's element type f64 differs from the operand's f32",
            Blame::Operand(1),
        ),
        (
            "f32[4,3]",
            "f32[0,2]",
            vec!["s32[]", "s32[]"],
            "update dims[0] = 0 must be at least 1",
            Blame::Operand(1),
        ),
        (
            "f32[4,3]",
            "f32[2,4]",
            vec!["s32[]", "s32[]"],
            "update dims[1] = 4 is larger than dimension 1 of the operand (3)",
            Blame::Operand(1),
        ),
    ];
    for (operand, update, st, part, blame) in cases {
        let st = starts(&st);
        let e = dynamic_update_slice(&s(operand), &s(update), &refs(&st)).unwrap_err();
        assert_eq!(e.op, "DynamicUpdateSlice");
        assert!(e.message.contains(part), "{part:?} not in {e}");
        assert_eq!(e.blame, blame, "{e}");
        if !part.contains("must be an array") {
            assert!(e.message.contains(&format!("update {update}")), "{e}");
        }
    }
}
