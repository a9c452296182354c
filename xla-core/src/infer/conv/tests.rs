//! Convolution shape inference: the seed's and StableHLO's examples, SAME/VALID padding, and
//! one test per rule (message, shapes and blame).

use super::*;
use crate::shape::parse_shape;

fn s(text: &str) -> Shape {
    parse_shape(text).unwrap()
}

/// NHWC input, HWIO kernel, NHWC output (TensorFlow's layout; jax's `('NHWC', 'HWIO',
/// 'NHWC')`).
fn nhwc() -> ConvDimensionNumbers {
    ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 3,
        input_spatial_dimensions: vec![1, 2],
        kernel_input_feature_dimension: 2,
        kernel_output_feature_dimension: 3,
        kernel_spatial_dimensions: vec![0, 1],
        output_batch_dimension: 0,
        output_feature_dimension: 3,
        output_spatial_dimensions: vec![1, 2],
    }
}

/// A window of `n` spatial dimensions with these strides and padding, no dilation.
fn win(strides: &[i64], padding: &[(i64, i64)]) -> ConvWindow {
    let n = strides.len();
    ConvWindow {
        strides: strides.to_vec(),
        padding: padding.to_vec(),
        lhs_dilation: vec![1; n],
        rhs_dilation: vec![1; n],
        window_reversal: vec![false; n],
    }
}

fn conv(l: &str, r: &str, w: &ConvWindow, dn: &ConvDimensionNumbers) -> Result<Shape> {
    convolution(&s(l), &s(r), w, dn, 1, 1, None)
}

fn out(l: &str, r: &str, w: &ConvWindow, dn: &ConvDimensionNumbers) -> String {
    conv(l, r, w, dn).unwrap().to_string()
}

#[test]
fn seed_default_dimension_numbers_and_pseudocode_shape() {
    // The seed's 2D pseudocode: output (b, oz, oy, ox) from input (b, iz, iy, ix) and kernel
    // (oz, iz, ky, kx), i.e. XLA's default dimension numbers.
    let dn = default_dimension_numbers(2);
    assert_eq!(dn.input_batch_dimension, 0);
    assert_eq!(dn.input_feature_dimension, 1);
    assert_eq!(dn.input_spatial_dimensions, vec![2, 3]);
    assert_eq!(dn.kernel_output_feature_dimension, 0);
    assert_eq!(dn.kernel_input_feature_dimension, 1);
    assert_eq!(dn.kernel_spatial_dimensions, vec![2, 3]);
    assert_eq!(dn.output_batch_dimension, 0);
    assert_eq!(dn.output_feature_dimension, 1);
    assert_eq!(dn.output_spatial_dimensions, vec![2, 3]);
    assert_eq!(
        default_dimension_numbers(0).input_spatial_dimensions,
        vec![]
    );
    // 7x9 input, 3x4 kernel, strides (2, 3), padding (1, 1) and (2, 0).
    let w = win(&[2, 3], &[(1, 1), (2, 0)]);
    assert_eq!(out("f32[2,5,7,9]", "f32[6,5,3,4]", &w, &dn), "f32[2,6,4,3]");
}

#[test]
fn stablehlo_and_jax_examples() {
    // StableHLO's example: 4x4 input dilated by 2, 3x3 kernel, stride 4.
    let w = ConvWindow {
        lhs_dilation: vec![2, 2],
        ..win(&[4, 4], &[(0, 0), (0, 0)])
    };
    assert_eq!(
        out("s64[1,4,4,1]", "s64[3,3,1,1]", &w, &nhwc()),
        "s64[1,2,2,1]"
    );
    // What jax gives for conv_general_dilated(x, w, (2, 1), [(1, 1), (0, -1)], (1, 2), (2, 1),
    // ('NHWC', 'HWIO', 'NHWC')) on f32[1,5,5,3] and f32[3,3,3,8].
    let w = ConvWindow {
        lhs_dilation: vec![1, 2],
        rhs_dilation: vec![2, 1],
        ..win(&[2, 1], &[(1, 1), (0, -1)])
    };
    assert_eq!(
        out("f32[1,5,5,3]", "f32[3,3,3,8]", &w, &nhwc()),
        "f32[1,2,6,8]"
    );
    // No spatial dimensions: a matrix product of [b, f] with [o, i].
    let dn = default_dimension_numbers(0);
    assert_eq!(out("f32[2,3]", "f32[4,3]", &win(&[], &[]), &dn), "f32[2,4]");
}

#[test]
fn same_and_valid_padding() {
    for (input, window, stride, want) in [
        (5, 3, 1, (1, 1)),
        (5, 4, 1, (1, 2)),
        (5, 3, 2, (1, 1)),
        (6, 3, 2, (0, 1)),
        (1, 5, 1, (2, 2)),
        (10, 1, 3, (0, 0)),
        (7, 2, 3, (0, 1)),
        (4, 1, 5, (0, 0)),
        (0, 3, 1, (1, 1)),
    ] {
        assert_eq!(
            padding_for(Padding::Same, &[input], &[window], &[stride]),
            vec![want],
            "in {input} window {window} stride {stride}"
        );
    }
    assert_eq!(
        padding_for(Padding::Valid, &[5, 6], &[3, 3], &[1, 2]),
        vec![(0, 0), (0, 0)]
    );
    // SAME gives ceil(in / stride) outputs; VALID the windows that fit.
    let dn = default_dimension_numbers(1);
    for input in 1..12i64 {
        for window in 1..6i64 {
            for stride in 1..4i64 {
                let l = format!("f32[1,1,{input}]");
                let r = format!("f32[1,1,{window}]");
                for (kind, want) in [
                    (Padding::Same, (input + stride - 1) / stride),
                    (
                        Padding::Valid,
                        if window > input {
                            0
                        } else {
                            (input - window) / stride + 1
                        },
                    ),
                ] {
                    let p = explicit_padding("Conv", &s(&l), &s(&r), &[stride], kind, &dn).unwrap();
                    let got = conv(&l, &r, &win(&[stride], &p), &dn).unwrap();
                    assert_eq!(got, Shape::array(ElementType::F32, &[1, 1, want]));
                }
            }
        }
    }
}

#[test]
fn groups_shapes() {
    // Depthwise: 4 input features, feature_group_count 4, kernel [3,3,1,8] (multiplier 2).
    let w = win(&[1, 1], &[(1, 1), (1, 1)]);
    let dw = convolution(
        &s("f32[2,5,5,4]"),
        &s("f32[3,3,1,8]"),
        &w,
        &nhwc(),
        4,
        1,
        None,
    );
    assert_eq!(dw.unwrap().to_string(), "f32[2,5,5,8]");
    // Batch groups: batch 4 in 2 groups, 6 output features.
    let dn = default_dimension_numbers(1);
    let bg = convolution(
        &s("f32[4,3,5]"),
        &s("f32[6,3,2]"),
        &win(&[1], &[(0, 0)]),
        &dn,
        1,
        2,
        None,
    );
    assert_eq!(bg.unwrap().to_string(), "f32[2,6,4]");
}

#[test]
fn empty_windows_and_dynamic_dimensions() {
    let dn = default_dimension_numbers(1);
    let w = win(&[1], &[(0, 0)]);
    // A window larger than the input, an empty input: no positions.
    assert_eq!(out("f32[1,1,2]", "f32[1,1,3]", &w, &dn), "f32[1,1,0]");
    assert_eq!(out("f32[1,1,0]", "f32[1,1,3]", &w, &dn), "f32[1,1,0]");
    assert_eq!(out("f32[0,1,4]", "f32[2,1,3]", &w, &dn), "f32[0,2,2]");
    // Padding cutting the whole input still leaves a valid (empty) size.
    assert_eq!(
        out("f32[1,1,4]", "f32[1,1,1]", &win(&[1], &[(-2, -2)]), &dn),
        "f32[1,1,0]"
    );
    // Dynamic batch and spatial dimensions stay dynamic; the feature dimension does not.
    assert_eq!(
        out("f32[<=3,2,<=7]", "f32[4,2,3]", &w, &dn),
        "f32[<=3,4,<=5]"
    );
    assert_eq!(out("f32[3,<=2,7]", "f32[4,<=2,3]", &w, &dn), "f32[3,4,5]");
}

#[test]
fn preferred_element_type_follows_dot_general() {
    use ElementType::*;
    let dn = default_dimension_numbers(1);
    let w = win(&[1], &[(0, 0)]);
    let ty = |from: &str, to| {
        let (l, r) = (s(&format!("{from}[1,2,5]")), s(&format!("{from}[3,2,2]")));
        convolution(&l, &r, &w, &dn, 1, 1, Some(to)).map(|o| o.as_array().unwrap().ty)
    };
    for (from, to) in [
        ("s8", S32),
        ("u8", S32),
        ("s8", U8),
        ("bf16", F32),
        ("f16", F32),
        ("f32", F16),
        ("f32", S32),
        ("pred", S32),
        ("c64", C128),
    ] {
        assert_eq!(ty(from, to).ok(), Some(to), "{from} -> {to}");
    }
    let e = ty("s32", S8).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ConvGeneralDilated: preferred_element_type s8 must not be narrower than the operands' \
         s32 (s32[1,2,5] vs s32[3,2,2])"
    );
    assert_eq!(e.blame, Blame::Attribute("preferred_element_type"));
    let e = ty("c64", F32).unwrap_err();
    assert!(e.message.contains("complex"), "{e}");
    assert!(e.message.ends_with("(c64[1,2,5] vs c64[3,2,2])"), "{e}");
}

/// The error of `conv` with NHWC numbers (one change applied by `f`) on the given operands.
fn err_with(
    l: &str,
    r: &str,
    groups: (i64, i64),
    f: impl FnOnce(&mut ConvWindow, &mut ConvDimensionNumbers),
) -> Error {
    let mut w = win(&[1, 1], &[(0, 0), (0, 0)]);
    let mut dn = nhwc();
    f(&mut w, &mut dn);
    convolution(&s(l), &s(r), &w, &dn, groups.0, groups.1, None).unwrap_err()
}

/// The error for the usual `f32[1,5,5,3]` input and `f32[3,3,3,8]` kernel.
fn err(f: impl FnOnce(&mut ConvWindow, &mut ConvDimensionNumbers)) -> Error {
    err_with("f32[1,5,5,3]", "f32[3,3,3,8]", (1, 1), f)
}

/// Every message names the op, ends with both shapes, and blames `blame`.
fn check(e: &Error, has: &str, blame: Blame) {
    assert_eq!(e.op, "ConvGeneralDilated", "{e}");
    assert!(e.message.contains(has), "{e}\nwanted: {has}");
    assert!(e.message.ends_with(")"), "{e}");
    assert!(e.message.contains(" vs "), "{e}");
    assert_eq!(e.blame, blame, "{e}");
}

#[test]
fn operand_rules() {
    let w = win(&[1], &[(0, 0)]);
    let dn = default_dimension_numbers(1);
    let e = convolution(&s("(f32[1,1,3])"), &s("f32[1,1,3]"), &w, &dn, 1, 1, None).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(0));
    let e = convolution(&s("f32[1,1,3]"), &Shape::Token, &w, &dn, 1, 1, None).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(1));
    let e = conv("f32[1,1,3]", "f32[1,1,3,1]", &w, &dn).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ConvGeneralDilated: lhs and rhs must have the same rank, got 3 and 4 (f32[1,1,3] vs \
         f32[1,1,3,1])"
    );
    assert_eq!(e.blame, Blame::Operand(1));
    let e = conv(
        "f32[3]",
        "f32[3]",
        &win(&[], &[]),
        &default_dimension_numbers(0),
    )
    .unwrap_err();
    check(&e, "rank at least 2", Blame::Operand(0));
    let e = conv("f32[1,1,3]", "s32[1,1,3]", &w, &dn).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ConvGeneralDilated: operands must have the same element type (f32[1,1,3] vs s32[1,1,3])"
    );
    assert_eq!(e.blame, Blame::Operand(1));
}

#[test]
fn dimension_number_rules() {
    let e = err(|_, dn| dn.input_spatial_dimensions = vec![1]);
    check(
        &e,
        "input_spatial_dimensions [1] has 1 entry but rank-4 operands have 2 spatial dimensions",
        Blame::Attribute("dimension_numbers"),
    );
    let e = err(|_, dn| dn.kernel_spatial_dimensions = vec![0, 1, 2]);
    check(&e, "3 entries", Blame::Attribute("dimension_numbers"));
    let e = err(|_, dn| dn.output_spatial_dimensions = vec![]);
    check(&e, "0 entries", Blame::Attribute("dimension_numbers"));
    let e = err(|_, dn| dn.input_batch_dimension = 4);
    assert_eq!(
        e.to_string(),
        "ConvGeneralDilated: dimension_numbers: input_batch_dimension = 4 is out of range for \
         the rank-4 lhs (f32[1,5,5,3] vs f32[3,3,3,8])"
    );
    assert_eq!(e.blame, Blame::Attribute("dimension_numbers"));
    let e = err(|_, dn| dn.kernel_spatial_dimensions = vec![0, -1]);
    check(
        &e,
        "kernel_spatial_dimensions[1] = -1 is out of range for the rank-4 rhs",
        Blame::Attribute("dimension_numbers"),
    );
    let e = err(|_, dn| dn.output_feature_dimension = 7);
    check(&e, "rank-4 output", Blame::Attribute("dimension_numbers"));
    let e = err(|_, dn| dn.input_spatial_dimensions = vec![1, 3]);
    check(
        &e,
        "input_spatial_dimensions[1] and input_feature_dimension both name lhs dimension 3",
        Blame::Attribute("dimension_numbers"),
    );
    let e = err(|_, dn| dn.kernel_output_feature_dimension = 2);
    check(
        &e,
        "kernel_output_feature_dimension and kernel_input_feature_dimension both name rhs \
         dimension 2",
        Blame::Attribute("dimension_numbers"),
    );
    let e = err(|_, dn| dn.output_spatial_dimensions = vec![2, 2]);
    check(
        &e,
        "both name output dimension 2",
        Blame::Attribute("dimension_numbers"),
    );
}

#[test]
fn group_count_rules() {
    let e = err_with("f32[1,5,5,3]", "f32[3,3,3,8]", (0, 1), |_, _| {});
    check(
        &e,
        "feature_group_count = 0 must be at least 1",
        Blame::Attribute("feature_group_count"),
    );
    let e = err_with("f32[1,5,5,3]", "f32[3,3,3,8]", (1, -2), |_, _| {});
    check(
        &e,
        "batch_group_count = -2 must be at least 1",
        Blame::Attribute("batch_group_count"),
    );
    let e = err_with("f32[2,5,5,4]", "f32[3,3,2,8]", (2, 2), |_, _| {});
    check(
        &e,
        "at most one of them may exceed 1",
        Blame::Attribute("batch_group_count"),
    );
    // Kernel input features x feature_group_count must be the input features.
    let e = err_with("f32[1,5,5,4]", "f32[3,3,3,8]", (1, 1), |_, _| {});
    assert_eq!(
        e.message,
        "the kernel's input features (rhs dimension 2 = 3) times feature_group_count 1 must \
         equal the input features (lhs dimension 3 = 4) (f32[1,5,5,4] vs f32[3,3,3,8])"
    );
    assert_eq!(e.blame, Blame::Operand(1));
    let e = err_with("f32[1,5,5,4]", "f32[3,3,1,8]", (1, 1), |_, _| {});
    assert_eq!(
        e.help.as_deref(),
        Some("a grouped convolution with feature_group_count = 4 takes these shapes")
    );
    let e = err_with("f32[1,5,5,6]", "f32[3,3,2,8]", (2, 1), |_, _| {});
    check(
        &e,
        "times feature_group_count 2",
        Blame::Attribute("feature_group_count"),
    );
    // Output features divisible by both counts; batch by batch_group_count.
    let e = err_with("f32[1,5,5,6]", "f32[3,3,2,8]", (3, 1), |_, _| {});
    check(
        &e,
        "the kernel's output features (rhs dimension 3 = 8) must be a multiple of \
         feature_group_count 3",
        Blame::Attribute("feature_group_count"),
    );
    let e = err_with("f32[6,5,5,3]", "f32[3,3,3,8]", (1, 3), |_, _| {});
    check(
        &e,
        "must be a multiple of batch_group_count 3",
        Blame::Attribute("batch_group_count"),
    );
    let e = err_with("f32[5,5,5,3]", "f32[3,3,3,8]", (1, 2), |_, _| {});
    check(
        &e,
        "the input batch (lhs dimension 0 = 5) must be a multiple of batch_group_count 2",
        Blame::Attribute("batch_group_count"),
    );
}

#[test]
fn window_rules() {
    for (attr, f) in [
        (
            "window_strides [1] has 1 entry, expected 2",
            Box::new(|w: &mut ConvWindow| w.strides = vec![1]) as Box<dyn Fn(&mut ConvWindow)>,
        ),
        (
            "padding [(0, 0), (0, 0), (1, 1)] has 3 entries",
            Box::new(|w: &mut ConvWindow| w.padding.push((1, 1))),
        ),
        (
            "lhs_dilation [] has 0 entries",
            Box::new(|w: &mut ConvWindow| w.lhs_dilation.clear()),
        ),
        (
            "rhs_dilation [1, 1, 1] has 3 entries",
            Box::new(|w: &mut ConvWindow| w.rhs_dilation.push(1)),
        ),
        (
            "window_reversal [true] has 1 entry",
            Box::new(|w: &mut ConvWindow| w.window_reversal = vec![true]),
        ),
    ] {
        let e = err(|w, _| f(w));
        let name = attr.split(' ').next().unwrap();
        let blame = match name {
            "window_strides" => "window_strides",
            "padding" => "padding",
            "lhs_dilation" => "lhs_dilation",
            "rhs_dilation" => "rhs_dilation",
            _ => "window_reversal",
        };
        check(&e, attr, Blame::Attribute(blame));
        assert!(e.message.contains("(one per spatial dimension)"), "{e}");
    }
    let e = err(|w, _| w.strides = vec![1, 0]);
    check(
        &e,
        "window_strides[1] = 0 must be at least 1",
        Blame::Attribute("window_strides"),
    );
    let e = err(|w, _| w.lhs_dilation = vec![-1, 1]);
    check(&e, "lhs_dilation[0] = -1", Blame::Attribute("lhs_dilation"));
    let e = err(|w, _| w.rhs_dilation = vec![1, 0]);
    check(&e, "rhs_dilation[1] = 0", Blame::Attribute("rhs_dilation"));
    // Negative padding may cut the whole input, not more.
    let e = err(|w, _| w.padding = vec![(0, 0), (-3, -3)]);
    assert_eq!(
        e.message,
        "spatial dimension 1: the input (lhs dimension 2 = 5) dilated by 1 and padded by (-3, \
         -3) has negative size -1 (f32[1,5,5,3] vs f32[3,3,3,8])"
    );
    assert_eq!(e.blame, Blame::Attribute("padding"));
    // A kernel needs a tap; arithmetic must not overflow.
    let e = err_with("f32[1,5,5,3]", "f32[3,0,3,8]", (1, 1), |_, _| {});
    check(
        &e,
        "kernel spatial dimension 1 (rhs dimension 1) has size 0",
        Blame::Operand(1),
    );
    let e = err(|w, _| w.lhs_dilation = vec![i64::MAX, 1]);
    check(&e, "overflows", Blame::Attribute("lhs_dilation"));
    let e = err(|w, _| w.padding = vec![(i64::MAX, 0), (0, 0)]);
    check(&e, "overflows", Blame::Attribute("padding"));
    let e = err(|w, _| w.rhs_dilation = vec![1, i64::MAX]);
    check(&e, "overflows", Blame::Attribute("rhs_dilation"));
    let e = err_with("f32[1,5,5,3]", "f32[3,3,3,<=8]", (1, 1), |_, _| {});
    check(&e, "must not be dynamic", Blame::Operand(1));
}

#[test]
fn explicit_padding_checks_what_it_reads() {
    let dn = default_dimension_numbers(2);
    let (l, r) = (s("f32[1,3,5,5]"), s("f32[8,3,3,3]"));
    assert_eq!(
        explicit_padding("Conv", &l, &r, &[1, 2], Padding::Same, &dn).unwrap(),
        vec![(1, 1), (1, 1)]
    );
    let e = explicit_padding("Conv", &l, &r, &[1], Padding::Same, &dn).unwrap_err();
    assert_eq!(e.op, "Conv");
    assert_eq!(e.blame, Blame::Attribute("window_strides"));
    let e = explicit_padding("Conv", &l, &r, &[1, 0], Padding::Valid, &dn).unwrap_err();
    assert!(e.message.contains("window_strides[1] = 0"), "{e}");
    let mut bad = dn.clone();
    bad.kernel_spatial_dimensions = vec![2, 9];
    let e = explicit_padding(
        "ConvWithGeneralDimensions",
        &l,
        &r,
        &[1, 1],
        Padding::Same,
        &bad,
    );
    assert_eq!(e.unwrap_err().op, "ConvWithGeneralDimensions");
    assert!(explicit_padding("Conv", &s("f32[3]"), &r, &[1], Padding::Same, &dn).is_err());
}
