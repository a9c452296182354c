//! Text-level tests of the export; the oracle tests (`tests/oracle_eval.rs` at the repo root)
//! check that XLA compiles the text and computes the same values as the evaluator.

use std::sync::Arc;

use num_complex::Complex;

use super::*;
use crate::builder::Builder;
use crate::element::ElementType::{self, *};
use crate::error::Blame;
use crate::ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DotDimensionNumbers, InstrId, Instruction, Op,
    UnaryOp,
};
use crate::literal::Literal;
use crate::shape::Shape;

/// A hand-made computation: `instrs` as (op, operands, shape); params from Parameter ops.
fn comp(name: &str, instrs: Vec<(Op, Vec<u32>, Shape)>) -> Computation {
    let params = instrs
        .iter()
        .filter(|(op, _, _)| matches!(op, Op::Parameter { .. }))
        .map(|(_, _, s)| s.clone())
        .collect();
    let root = InstrId(instrs.len() as u32 - 1);
    let instrs = instrs
        .into_iter()
        .map(|(op, o, shape)| Instruction {
            op,
            operands: o.into_iter().map(InstrId).collect(),
            shape,
        })
        .collect();
    Computation {
        name: name.into(),
        params,
        instrs,
        root,
    }
}

fn p(i: usize) -> Op {
    Op::Parameter {
        index: i,
        name: format!("p{i}"),
    }
}

fn a(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims)
}

#[test]
fn add_rows_is_broadcast_then_add() {
    let c = comp(
        "add_rows",
        vec![
            (p(0), vec![], a(F32, &[2, 3])),
            (p(1), vec![], a(F32, &[3])),
            (
                Op::BroadcastInDim {
                    broadcast_dimensions: vec![1],
                },
                vec![1],
                a(F32, &[2, 3]),
            ),
            (Op::Binary(BinaryOp::Add), vec![0, 2], a(F32, &[2, 3])),
        ],
    );
    let expected = "\
func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.add %arg0, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
";
    assert_eq!(to_stablehlo(&c), expected);
}

#[test]
fn constants_are_bit_exact_hex() {
    let lit = |l: Literal| {
        let s = l.shape();
        to_stablehlo(&comp("k", vec![(Op::Constant(l), vec![], s)]))
    };
    let f = lit(Literal::from_vec(&[3], vec![1.0f32, f32::NAN, -0.0]).unwrap());
    assert!(
        f.contains("dense<[0x3F800000, 0x7FC00000, 0x80000000]> : tensor<3xf32>"),
        "{f}"
    );
    let h = lit(Literal::from_vec(&[2, 1], vec![half::f16::ONE, half::f16::INFINITY]).unwrap());
    assert!(
        h.contains("dense<[[0x3C00], [0x7C00]]> : tensor<2x1xf16>"),
        "{h}"
    );
    let b = lit(Literal::scalar(half::bf16::from_f32(-2.0)));
    assert!(b.contains("dense<0xC000> : tensor<bf16>"), "{b}");
    let d = lit(Literal::scalar(0.1f64));
    assert!(d.contains("dense<0x3FB999999999999A> : tensor<f64>"), "{d}");
    let c = lit(Literal::from_vec(&[1], vec![Complex::new(1.0f32, -2.0)]).unwrap());
    assert!(
        c.contains("dense<[(0x3F800000, 0xC0000000)]> : tensor<1xcomplex<f32>>"),
        "{c}"
    );
    let pr = lit(Literal::from_vec(&[2], vec![true, false]).unwrap());
    assert!(pr.contains("dense<[true, false]> : tensor<2xi1>"), "{pr}");
    let u = lit(Literal::from_vec(&[2], vec![u64::MAX, 0]).unwrap());
    assert!(
        u.contains("dense<[18446744073709551615, 0]> : tensor<2xui64>"),
        "{u}"
    );
    let e = lit(Literal::from_vec::<i8>(&[2, 0], vec![]).unwrap());
    assert!(e.contains("dense<[[], []]> : tensor<2x0xi8>"), "{e}");
}

#[test]
fn compare_types_follow_the_element_type() {
    let cases = [
        (F32, false, "FLOAT"),
        (F32, true, "TOTALORDER"),
        (S8, false, "SIGNED"),
        (U32, false, "UNSIGNED"),
        (Pred, false, "UNSIGNED"),
        (C64, false, "FLOAT"),
        // The *TotalOrder ops as XLA's builders lower them: TOTALORDER on floats only, the
        // element type's own comparison elsewhere (XLA's verifier refuses TOTALORDER there).
        (Bf16, true, "TOTALORDER"),
        (S32, true, "SIGNED"),
        (U8, true, "UNSIGNED"),
        (Pred, true, "UNSIGNED"),
        (C128, true, "FLOAT"),
    ];
    for (ty, total_order, expected) in cases {
        let c = comp(
            "cmp",
            vec![
                (p(0), vec![], a(ty, &[4])),
                (p(1), vec![], a(ty, &[4])),
                (
                    Op::Compare {
                        direction: ComparisonDirection::Ne,
                        total_order,
                    },
                    vec![0, 1],
                    a(Pred, &[4]),
                ),
            ],
        );
        let t = to_stablehlo(&c);
        assert!(
            t.contains(&format!("stablehlo.compare NE, %arg0, %arg1, {expected} :")),
            "{ty}: {t}"
        );
    }
}

/// `Compare(.., comparison_type = t)` builds exactly when XLA's HLO verifier accepts `t` on the
/// operands (FLOAT or TOTALORDER for floats, FLOAT for complex, SIGNED for signed integers,
/// UNSIGNED for unsigned integers and pred; checked against jaxlib 0.10.2), and then the export
/// prints `t` itself.
#[test]
fn compare_with_type_exports_the_type_xla_accepts() {
    use ComparisonType::{Float, Signed, TotalOrder, Unsigned};
    for ty in ElementType::ALL {
        let accepted: &[ComparisonType] = match ty {
            F16 | Bf16 | F32 | F64 => &[Float, TotalOrder],
            C64 | C128 => &[Float],
            S8 | S16 | S32 | S64 => &[Signed],
            Pred | U8 | U16 | U32 | U64 => &[Unsigned],
        };
        for ct in [Float, TotalOrder, Signed, Unsigned] {
            let mut b = Builder::new("cmp");
            let x = b.parameter(0, a(ty, &[3]), "x").unwrap();
            let y = b.parameter(1, a(ty, &[3]), "y").unwrap();
            let r = b.compare_with_type(ComparisonDirection::Eq, Some(ct), x, y, None);
            match r {
                Ok(root) => {
                    assert!(accepted.contains(&ct), "{ty} {ct:?} was accepted");
                    let t = to_stablehlo(&b.build(root).unwrap());
                    let want = format!("stablehlo.compare EQ, %arg0, %arg1, {} :", ct.name());
                    assert!(t.contains(&want), "{ty} {ct:?}: {t}");
                }
                Err(e) => {
                    assert!(!accepted.contains(&ct), "{ty} {ct:?}: {e}");
                    assert_eq!(e.op, "Compare");
                    assert_eq!(e.blame, Blame::Attribute("comparison_type"));
                    assert!(e.message.contains(ct.name()), "{e}");
                }
            }
        }
    }
}

/// No `_ =>` arm anywhere in the export: every match over ops, element types and directions
/// lists its cases, so a new one does not compile until the export handles it.
#[test]
fn export_has_no_catch_all_arms() {
    fn scan(dir: &std::path::Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            // The importer (`import/`) matches text and attributes, not ops: its catch-alls
            // reject what it does not know.
            if path.is_dir() && !path.ends_with("import") {
                scan(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (i, line) in text.lines().enumerate() {
                    if line.trim_start().starts_with("_ =>") {
                        found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                    }
                }
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/stablehlo");
    let mut found = Vec::new();
    scan(&dir, &mut found);
    assert!(found.is_empty(), "catch-all arms:\n{}", found.join("\n"));
}

#[test]
fn convert_bitcast_and_reshape_print_their_own_names() {
    let c = comp(
        "r",
        vec![
            (p(0), vec![], a(F32, &[2, 3])),
            (Op::ConvertElementType, vec![0], a(S32, &[2, 3])),
            (Op::BitcastConvertType, vec![1], a(F32, &[2, 3])),
            (Op::Reshape, vec![2], a(F32, &[6])),
        ],
    );
    let t = to_stablehlo(&c);
    for want in [
        "%0 = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi32>",
        "%1 = stablehlo.bitcast_convert %0 : (tensor<2x3xi32>) -> tensor<2x3xf32>",
        "%2 = stablehlo.reshape %1 : (tensor<2x3xf32>) -> tensor<6xf32>",
    ] {
        assert!(t.contains(want), "{want}\n{t}");
    }
}

#[test]
fn erf_is_chlo_and_abs_of_complex_is_real() {
    let c = comp(
        "u",
        vec![
            (p(0), vec![], a(C64, &[2])),
            (Op::Unary(UnaryOp::Abs), vec![0], a(F32, &[2])),
            (Op::Unary(UnaryOp::Erf), vec![1], a(F32, &[2])),
        ],
    );
    let t = to_stablehlo(&c);
    assert!(
        t.contains("%0 = stablehlo.abs %arg0 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>"),
        "{t}"
    );
    assert!(
        t.contains("%1 = chlo.erf %0 : tensor<2xf32> -> tensor<2xf32>"),
        "{t}"
    );
}

/// Variadic reduce (argmax-like) with the reducer inlined as a region, and a tuple result
/// flattened into two results of @main.
#[test]
fn variadic_reduce_has_a_region_and_two_results() {
    let s = |ty| a(ty, &[]);
    let reducer = Arc::new(comp(
        "argmax",
        vec![
            (p(0), vec![], s(F32)),
            (p(1), vec![], s(S32)),
            (p(2), vec![], s(F32)),
            (p(3), vec![], s(S32)),
            (
                Op::Compare {
                    direction: ComparisonDirection::Ge,
                    total_order: false,
                },
                vec![0, 2],
                s(Pred),
            ),
            (Op::Select, vec![4, 0, 2], s(F32)),
            (Op::Select, vec![4, 1, 3], s(S32)),
            (Op::Tuple, vec![5, 6], Shape::Tuple(vec![s(F32), s(S32)])),
        ],
    ));
    let out = Shape::Tuple(vec![a(F32, &[2]), a(S32, &[2])]);
    let c = comp(
        "main",
        vec![
            (p(0), vec![], a(F32, &[2, 5])),
            (Op::Iota { dimension: 1 }, vec![], a(S32, &[2, 5])),
            (
                Op::Constant(Literal::scalar(f32::NEG_INFINITY)),
                vec![],
                s(F32),
            ),
            (Op::Constant(Literal::scalar(0i32)), vec![], s(S32)),
            (
                Op::Reduce {
                    dimensions: vec![1],
                    computation: reducer,
                },
                vec![0, 1, 2, 3],
                out.clone(),
            ),
        ],
    );
    let t = to_stablehlo(&c);
    let expected = "\
func.func public @main(%arg0: tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %0 = stablehlo.iota dim = 1 : tensor<2x5xi32>
  %1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %2 = stablehlo.constant dense<0> : tensor<i32>
  %7 = \"stablehlo.reduce\"(%arg0, %0, %1, %2) ({
  ^bb0(%3: tensor<f32>, %4: tensor<i32>, %5: tensor<f32>, %6: tensor<i32>):
    %8 = stablehlo.compare GE, %3, %5, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %9 = \"stablehlo.select\"(%8, %3, %5) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %10 = \"stablehlo.select\"(%8, %4, %6) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<2x5xf32>, tensor<2x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
  return %7#0, %7#1 : tensor<2xf32>, tensor<2xi32>
}
";
    assert_eq!(
        t,
        expected.replace("%7 = \"stablehlo.reduce\"", "%7:2 = \"stablehlo.reduce\"")
    );
}

/// Two calls of one computation give one private function; tuple parameters are flattened.
#[test]
fn calls_share_one_private_function_and_tuples_flatten() {
    let sq = Arc::new(comp(
        "square",
        vec![
            (p(0), vec![], a(F32, &[3])),
            (Op::Binary(BinaryOp::Mul), vec![0, 0], a(F32, &[3])),
        ],
    ));
    let pair = Shape::Tuple(vec![a(F32, &[3]), a(S32, &[])]);
    let c = comp(
        "main",
        vec![
            (p(0), vec![], pair),
            (Op::GetTupleElement { index: 0 }, vec![0], a(F32, &[3])),
            (
                Op::Call {
                    computation: sq.clone(),
                    composite: None,
                },
                vec![1],
                a(F32, &[3]),
            ),
            (
                Op::Call {
                    computation: sq,
                    composite: None,
                },
                vec![2],
                a(F32, &[3]),
            ),
        ],
    );
    let t = to_stablehlo(&c);
    assert!(
        t.starts_with(
            "func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<i32>) -> tensor<3xf32> {"
        ),
        "{t}"
    );
    assert!(
        t.contains("%0 = func.call @square(%arg0) : (tensor<3xf32>) -> tensor<3xf32>"),
        "{t}"
    );
    assert!(
        t.contains("%1 = func.call @square(%0) : (tensor<3xf32>) -> tensor<3xf32>"),
        "{t}"
    );
    assert_eq!(t.matches("func.func private @square(").count(), 1, "{t}");
}

#[test]
fn dot_general_prints_dimension_numbers() {
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![2],
        rhs_contracting_dimensions: vec![1],
        lhs_batch_dimensions: vec![0],
        rhs_batch_dimensions: vec![0],
    };
    let c = comp(
        "bmm",
        vec![
            (p(0), vec![], a(S8, &[2, 3, 4])),
            (p(1), vec![], a(S8, &[2, 4, 5])),
            (
                Op::DotGeneral {
                    dimension_numbers: dn,
                    preferred_element_type: Some(S32),
                },
                vec![0, 1],
                a(S32, &[2, 3, 5]),
            ),
        ],
    );
    let t = to_stablehlo(&c);
    assert!(
        t.contains(
            "stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], \
             precision = [HIGHEST, HIGHEST] : (tensor<2x3x4xi8>, tensor<2x4x5xi8>) -> tensor<2x3x5xi32>"
        ),
        "{t}"
    );
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    let c = comp(
        "bad",
        vec![
            (p(0), vec![], a(F32, &[2])),
            (Op::Binary(BinaryOp::Add), vec![0, 5], a(F32, &[2])),
        ],
    );
    let e = try_to_stablehlo(&c).unwrap_err();
    assert!(e.message.contains("used before it is defined"), "{e}");
    assert!(to_stablehlo(&c).starts_with("// StableHLO export failed"));
    let k = comp(
        "k",
        vec![(Op::Constant(Literal::scalar(1.0f32)), vec![], a(F32, &[2]))],
    );
    // The literal's own shape is what is printed; a mismatching instruction shape is not used.
    assert!(try_to_stablehlo(&k).is_ok());
}

#[test]
fn empty_i64_arrays_print_as_mlir_parses_them() {
    assert_eq!(super::text::i64_array(&[]), "array<i64>");
    assert_eq!(super::text::i64_array(&[0, 2]), "array<i64: 0, 2>");
}
