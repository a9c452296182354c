//! Oracle tests of the convolution: our reference evaluator (`xla_core::eval::evaluate`) against
//! XLA:CPU (the exported `stablehlo.convolution`, compiled by jaxlib in `target/oracle-venv`) on
//! every element type XLA allows (pred, integers, f16, bf16, f32, f64, complex), with NHWC,
//! NCHW and unusual dimension orders, 1 to 3 spatial dimensions, strides, SAME padding,
//! negative padding, lhs and rhs dilation, feature groups (depthwise), batch groups, window
//! reversal and preferred element types.
//!
//! Integers and pred are bit-exact on any input (wrapping sums do not depend on the order);
//! floats and complex are bit-exact on integer-valued inputs (every partial sum is exact) and
//! within the forward-error bound of a sum in any order on real-valued inputs
//! (`xla_oracle::forward`; XLA:CPU picks its own order). If XLA cannot be started every test
//! FAILS, saying why.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_conv` (`bash oracle/setup.sh` creates the venv).

use xla_aot::core::builder::Builder;
use xla_aot::core::eval::evaluate;
use xla_aot::core::infer::Padding;
use xla_aot::core::{ArrayShape, Computation, ConvDimensionNumbers, ElementType, Literal, Shape};
use xla_oracle::{check_shared, random_literal, shared, started, Dist, EvalCase, Tolerance};

use xla_oracle::Check::Close;
use ElementType::*;

/// Cases per XLA compilation (cases are merged into one computation returning a tuple).
const CHUNK: usize = 48;

/// Random inputs; `XLA_ORACLE_SALT=n` shifts every seed, to try other samples.
fn rand(ty: ElementType, dims: &[i64], seed: u64, dist: Dist) -> Literal {
    let salt: u64 = std::env::var("XLA_ORACLE_SALT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    random_literal(
        &ArrayShape::new(ty, dims),
        seed.wrapping_add(salt.wrapping_mul(0x1_0000_0001)),
        dist,
    )
}

/// Integer-valued floats (complex: both components) in [-r, r], so every partial sum of a
/// small convolution is exact; integers of any bit pattern and fair-coin pred otherwise.
fn int_valued(ty: ElementType, dims: &[i64], seed: u64, r: f64) -> Literal {
    let ints = rand(S32, dims, seed, Dist::Range(-r, r));
    // Integer types span their whole range.
    xla_oracle::ints_as(ty, &ints).unwrap_or_else(|| rand(ty, dims, seed, Dist::Any))
}

/// Dimension numbers from StableHLO's labels, one character per dimension: `b`/`f` (input and
/// output batch and feature), `i`/`o` (kernel input and output features), digits for spatial
/// dimensions: `dn("b01f", "01io", "b01f")` is NHWC/HWIO/NHWC.
fn dn(lhs: &str, rhs: &str, out: &str) -> ConvDimensionNumbers {
    fn roles(labels: &str, first: char, second: char) -> (i64, i64, Vec<i64>) {
        let (mut a, mut b) = (0, 0);
        let mut spatial = vec![0; labels.len() - 2];
        for (p, c) in labels.chars().enumerate() {
            match c {
                c if c == first => a = p as i64,
                c if c == second => b = p as i64,
                d => spatial[d.to_digit(10).expect("a spatial digit") as usize] = p as i64,
            }
        }
        (a, b, spatial)
    }
    let (ib, i_f, is) = roles(lhs, 'b', 'f');
    let (ki, ko, ks) = roles(rhs, 'i', 'o');
    let (ob, of, os) = roles(out, 'b', 'f');
    ConvDimensionNumbers {
        input_batch_dimension: ib,
        input_feature_dimension: i_f,
        input_spatial_dimensions: is,
        kernel_input_feature_dimension: ki,
        kernel_output_feature_dimension: ko,
        kernel_spatial_dimensions: ks,
        output_batch_dimension: ob,
        output_feature_dimension: of,
        output_spatial_dimensions: os,
    }
}

/// How a case is padded: the builder's `Same` (through `conv` or `conv_with_general_dimensions`)
/// or explicit pairs (through `conv_general_dilated`).
#[derive(Clone)]
enum Pad {
    Same,
    Explicit(Vec<(i64, i64)>),
}

/// One convolution: operand dimensions and every attribute.
#[derive(Clone)]
struct Spec {
    name: &'static str,
    lhs: Vec<i64>,
    rhs: Vec<i64>,
    labels: [&'static str; 3],
    strides: Vec<i64>,
    pad: Pad,
    lhs_dilation: Vec<i64>,
    rhs_dilation: Vec<i64>,
    groups: (i64, i64),
    reversal: Option<Vec<bool>>,
}

/// A spec with only strides and padding (no dilation, groups or reversal).
fn spec(
    name: &'static str,
    lhs: &[i64],
    rhs: &[i64],
    labels: [&'static str; 3],
    strides: &[i64],
    pad: Pad,
) -> Spec {
    Spec {
        name,
        lhs: lhs.to_vec(),
        rhs: rhs.to_vec(),
        labels,
        strides: strides.to_vec(),
        pad,
        lhs_dilation: vec![],
        rhs_dilation: vec![],
        groups: (1, 1),
        reversal: None,
    }
}

fn ex(p: &[(i64, i64)]) -> Pad {
    Pad::Explicit(p.to_vec())
}

const NHWC: [&str; 3] = ["b01f", "01io", "b01f"];
const NCHW: [&str; 3] = ["bf01", "oi01", "bf01"];

/// The window and layout cases every element type runs.
fn specs() -> Vec<Spec> {
    let mut v = vec![
        spec(
            "nhwc_same",
            &[2, 6, 7, 3],
            &[3, 3, 3, 4],
            NHWC,
            &[1, 1],
            Pad::Same,
        ),
        spec(
            "nhwc_same_strided",
            &[1, 7, 6, 2],
            &[3, 2, 2, 3],
            NHWC,
            &[2, 3],
            Pad::Same,
        ),
        spec(
            "nchw_strided_padded",
            &[2, 3, 7, 6],
            &[4, 3, 3, 2],
            NCHW,
            &[2, 3],
            ex(&[(1, 2), (0, 1)]),
        ),
        spec(
            "negative_padding",
            &[1, 7, 6, 2],
            &[2, 3, 2, 3],
            NHWC,
            &[1, 2],
            ex(&[(-1, 2), (1, -2)]),
        ),
        spec(
            "conv1d_same",
            &[2, 3, 9],
            &[4, 3, 3],
            ["bf0", "oi0", "bf0"],
            &[2],
            Pad::Same,
        ),
        spec(
            "conv3d",
            &[1, 4, 5, 3, 2],
            &[2, 2, 2, 2, 3],
            ["b012f", "012io", "b012f"],
            &[1, 2, 1],
            ex(&[(0, 1), (1, 1), (0, 0)]),
        ),
        spec(
            "odd_dimension_order",
            &[5, 3, 2, 6],
            &[4, 2, 3, 3],
            ["0fb1", "o1i0", "1bf0"],
            &[1, 2],
            ex(&[(1, 0), (0, 2)]),
        ),
        spec(
            "no_spatial",
            &[3, 5],
            &[4, 5],
            ["bf", "oi", "bf"],
            &[],
            ex(&[]),
        ),
    ];
    let dilated = Spec {
        lhs_dilation: vec![2, 1],
        rhs_dilation: vec![1, 2],
        ..spec(
            "lhs_rhs_dilation",
            &[1, 5, 6, 2],
            &[3, 2, 2, 3],
            NHWC,
            &[1, 1],
            ex(&[(1, 1), (2, 0)]),
        )
    };
    let depthwise = Spec {
        groups: (4, 1),
        ..spec(
            "depthwise",
            &[2, 6, 6, 4],
            &[3, 3, 1, 8],
            NHWC,
            &[1, 1],
            ex(&[(1, 1), (1, 1)]),
        )
    };
    let grouped = Spec {
        groups: (2, 1),
        ..spec(
            "grouped_nchw",
            &[1, 4, 5, 5],
            &[6, 2, 3, 3],
            NCHW,
            &[2, 2],
            ex(&[(1, 1), (1, 1)]),
        )
    };
    let batch_groups = Spec {
        groups: (1, 2),
        ..spec(
            "batch_groups_nchw",
            &[4, 3, 5, 5],
            &[6, 3, 3, 3],
            NCHW,
            &[1, 1],
            ex(&[(0, 0), (0, 0)]),
        )
    };
    let batch_groups_nhwc = Spec {
        groups: (1, 3),
        ..spec(
            "batch_groups_nhwc",
            &[6, 5, 4, 2],
            &[2, 2, 2, 9],
            NHWC,
            &[1, 2],
            ex(&[(1, 0), (0, 0)]),
        )
    };
    let reversal = Spec {
        reversal: Some(vec![true, false]),
        ..spec(
            "window_reversal",
            &[1, 5, 6, 2],
            &[3, 2, 2, 3],
            NHWC,
            &[1, 1],
            ex(&[(1, 0), (0, 1)]),
        )
    };
    let everything = Spec {
        lhs_dilation: vec![1, 3],
        rhs_dilation: vec![2, 1],
        reversal: Some(vec![false, true]),
        groups: (2, 1),
        ..spec(
            "everything_nchw",
            &[2, 4, 7, 4],
            &[4, 2, 2, 3],
            NCHW,
            &[2, 1],
            ex(&[(-1, 2), (2, -1)]),
        )
    };
    v.extend([
        dilated,
        depthwise,
        grouped,
        batch_groups,
        batch_groups_nhwc,
        reversal,
        everything,
    ]);
    v
}

/// The computation of `s` on `ty` operands, with the preferred element type `out` if it differs.
fn build(s: &Spec, ty: ElementType, out: ElementType) -> Computation {
    let mut b = Builder::new(s.name);
    let x = b.parameter(0, Shape::array(ty, &s.lhs), "lhs").unwrap();
    let y = b.parameter(1, Shape::array(ty, &s.rhs), "rhs").unwrap();
    let d = dn(s.labels[0], s.labels[1], s.labels[2]);
    let plain = s.lhs_dilation.is_empty()
        && s.rhs_dilation.is_empty()
        && s.groups == (1, 1)
        && s.reversal.is_none()
        && out == ty;
    let r = match (&s.pad, plain) {
        // The surface forms: `Conv` when the numbers are XLA's default ones.
        (Pad::Same, true) if s.labels == ["bf0", "oi0", "bf0"] => {
            b.conv(x, y, &s.strides, Padding::Same)
        }
        (Pad::Same, true) => b.conv_with_general_dimensions(x, y, &s.strides, Padding::Same, &d),
        (Pad::Explicit(p), true) => b.conv_general(x, y, &s.strides, p, &d),
        (pad, _) => {
            let p = match pad {
                Pad::Explicit(p) => p.clone(),
                Pad::Same => panic!("{}: Same padding with other attributes", s.name),
            };
            let pref = (out != ty).then_some(out);
            b.conv_general_dilated(
                x,
                y,
                &s.strides,
                &p,
                &s.lhs_dilation,
                &s.rhs_dilation,
                &d,
                s.groups.0,
                s.groups.1,
                s.reversal.as_deref(),
                pref,
            )
        }
    };
    let r = r.unwrap_or_else(|e| panic!("{}: {e}", s.name));
    b.build(r).unwrap()
}

const ALL: [ElementType; 15] = [
    Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, Bf16, F32, F64, C64, C128,
];

/// Every layout and window case on every element type: bit-exact (integer-valued floats).
#[test]
fn convolution_matches_xla_on_every_type() {
    let mut cases = Vec::new();
    for (k, ty) in ALL.into_iter().enumerate() {
        // Small enough for every partial sum to be exact in f16 and bf16 (f32 accumulation).
        let r = if ty == F16 || ty == Bf16 { 2.0 } else { 4.0 };
        for (j, s) in specs().into_iter().enumerate() {
            let seed = 1000 * k as u64 + 10 * j as u64;
            cases.push(EvalCase {
                name: format!("conv/{}/{ty}", s.name),
                comp: build(&s, ty, ty),
                args: vec![
                    int_valued(ty, &s.lhs, seed, r),
                    int_valued(ty, &s.rhs, seed + 1, r),
                ],
                check: Close(Tolerance::Exact),
            });
        }
    }
    check_shared("convolution", cases, CHUNK);
}

/// Preferred element types: narrow operands summed in the wider type (s8 x s8 -> s32 on any
/// s8 values, so the products overflow s8), and float and pred widenings.
#[test]
fn preferred_element_types_match_xla() {
    let mut cases = Vec::new();
    let pairs = [
        (S8, S32),
        (U8, S32),
        (S8, S16),
        (U8, U16),
        (S8, U8),
        (S16, S64),
        (Pred, S32),
        (S32, F32),
        (Bf16, F32),
        (F16, F32),
        (F32, F64),
        (F32, F16),
        (F32, S32),
        (C64, C128),
    ];
    let picks = [
        "nhwc_same",
        "depthwise",
        "batch_groups_nchw",
        "everything_nchw",
    ];
    for (k, (ty, out)) in pairs.into_iter().enumerate() {
        for (j, s) in specs()
            .into_iter()
            .filter(|s| picks.contains(&s.name))
            .enumerate()
        {
            // Same padding needs the plain surface forms; use its explicit equivalent.
            let s = match s.pad {
                Pad::Same => Spec {
                    pad: ex(&[(1, 1), (1, 1)]),
                    ..s
                },
                Pad::Explicit(_) => s,
            };
            let seed = 5000 + 100 * k as u64 + 10 * j as u64;
            // Integers of any bit pattern (a float result would round them: small ones
            // there), pred a fair coin; floats integer-valued, so that every sum is exact and
            // f32 -> s32 or f16 converts it once.
            let input = |dims: &[i64], seed| {
                if ty.is_float_or_complex() {
                    int_valued(ty, dims, seed, 3.0)
                } else if out.is_float_or_complex() {
                    rand(ty, dims, seed, Dist::Range(-50.0, 50.0))
                } else {
                    rand(ty, dims, seed, Dist::Any)
                }
            };
            cases.push(EvalCase {
                name: format!("conv/preferred/{}/{ty}->{out}", s.name),
                comp: build(&s, ty, out),
                args: vec![input(&s.lhs, seed), input(&s.rhs, seed + 1)],
                check: Close(Tolerance::Exact),
            });
        }
    }
    check_shared("preferred", cases, CHUNK);
}

/// Real-valued inputs of both signs on every float and complex type (and float widenings):
/// within the forward-error bound of a sum of the kernel's taps x input features in any order.
#[test]
fn float_convolutions_within_the_forward_error_bound() {
    let mut cases = Vec::new();
    let big = [
        spec(
            "random_nhwc",
            &[2, 8, 8, 16],
            &[3, 3, 16, 8],
            NHWC,
            &[1, 1],
            ex(&[(1, 1), (1, 1)]),
        ),
        spec(
            "random_nchw_strided",
            &[2, 12, 9, 9],
            &[5, 12, 4, 4],
            NCHW,
            &[2, 2],
            ex(&[(2, 1), (-1, 2)]),
        ),
        Spec {
            groups: (8, 1),
            rhs_dilation: vec![2, 2],
            ..spec(
                "random_depthwise_dilated",
                &[1, 9, 9, 8],
                &[3, 3, 1, 16],
                NHWC,
                &[1, 1],
                ex(&[(2, 2), (2, 2)]),
            )
        },
        Spec {
            groups: (1, 4),
            ..spec(
                "random_batch_groups",
                &[8, 6, 7, 7],
                &[8, 6, 3, 3],
                NCHW,
                &[1, 1],
                ex(&[(1, 1), (1, 1)]),
            )
        },
    ];
    let d = Dist::Range(-1.0, 1.0);
    let pairs = [
        (F16, F16),
        (Bf16, Bf16),
        (F32, F32),
        (F64, F64),
        (C64, C64),
        (C128, C128),
        (Bf16, F32),
        (F16, F32),
        (F32, F64),
    ];
    for (k, (ty, out)) in pairs.into_iter().enumerate() {
        for (j, s) in big.iter().enumerate() {
            let seed = 9000 + 100 * k as u64 + 10 * j as u64;
            cases.push(EvalCase {
                name: format!("conv/{}/{ty}->{out}", s.name),
                comp: build(s, ty, out),
                args: vec![rand(ty, &s.lhs, seed, d), rand(ty, &s.rhs, seed + 1, d)],
                check: Close(Tolerance::Forward),
            });
        }
    }
    check_shared("forward", cases, CHUNK);
}

/// The exported text is the pretty form jaxlib accepts, and XLA computes the StableHLO spec's
/// own example.
#[test]
fn stablehlo_text_and_spec_example() {
    let s = Spec {
        lhs_dilation: vec![2, 2],
        ..spec(
            "spec_example",
            &[1, 4, 4, 1],
            &[3, 3, 1, 1],
            NHWC,
            &[4, 4],
            ex(&[(0, 0), (0, 0)]),
        )
    };
    let comp = build(&s, S64, S64);
    let text = xla_aot::core::stablehlo::to_stablehlo(&comp);
    let want = "stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, \
                0, 1, f], window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [2, \
                2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, \
                feature_group_count = 1 : i64, precision_config = [#stablehlo<precision \
                HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<1x4x4x1xi64>, \
                tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>";
    assert!(text.contains(want), "{text}");
    let x: Vec<i64> = vec![1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17];
    let args = vec![
        Literal::from_vec(&[1, 4, 4, 1], x).unwrap(),
        Literal::from_vec(&[3, 3, 1, 1], vec![1i64; 9]).unwrap(),
    ];
    let want = Literal::from_vec(&[1, 2, 2, 1], vec![10i64, 26, 46, 62]).unwrap();
    assert_eq!(evaluate(&comp, &args).unwrap(), want);
    let mut guard = shared();
    let oracle = started(&mut guard, "spec example");
    assert_eq!(oracle.run_computation(&comp, &args).unwrap(), want);
}
