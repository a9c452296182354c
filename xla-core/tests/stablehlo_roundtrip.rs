//! Export then import: for programs built with the Builder covering every op the exporter
//! prints, `to_stablehlo` followed by `stablehlo::import` gives a computation that evaluates
//! to the same bits on random inputs, and (control flow aside, whose regions the export
//! inlines) exports back to the same text: the same IR up to names.

mod common;

use std::sync::Arc;

use common::{one_op, param, scalar_fn};
use num_complex::Complex;
use xla_core::builder::Builder;
use xla_core::element::ElementType::{self, *};
use xla_core::ir::{BinaryOp, ComparisonDirection, ComparisonType, UnaryOp};
use xla_core::stablehlo::import::parse_module;
use xla_core::stablehlo::to_stablehlo;
use xla_core::{
    ArrayData, Computation, ConvDimensionNumbers, DotDimensionNumbers, Literal, PadDim, Shape,
};

/// A deterministic generator of test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Mostly small values, some special ones (NaN, infinities, signed zeros).
    fn float(&mut self) -> f64 {
        match self.next() % 16 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -0.0,
            _ => (self.next() % 2001) as f64 / 250.0 - 4.0,
        }
    }

    fn literal(&mut self, shape: &Shape) -> Literal {
        match shape {
            Shape::Tuple(ts) => Literal::Tuple(ts.iter().map(|t| self.literal(t)).collect()),
            Shape::Token => Literal::Token,
            Shape::Array(a) => {
                let n = a.element_count() as usize;
                let data = match a.ty {
                    Pred => {
                        ArrayData::Pred((0..n).map(|_| self.next().is_multiple_of(2)).collect())
                    }
                    S32 => ArrayData::S32((0..n).map(|_| (self.next() % 41) as i32 - 20).collect()),
                    U32 => ArrayData::U32((0..n).map(|_| (self.next() % 70) as u32).collect()),
                    S64 => ArrayData::S64((0..n).map(|_| (self.next() % 41) as i64 - 20).collect()),
                    // RNG states: any word.
                    U64 => ArrayData::U64((0..n).map(|_| self.next()).collect()),
                    Bf16 => ArrayData::Bf16(
                        (0..n).map(|_| half::bf16::from_f64(self.float())).collect(),
                    ),
                    F32 => ArrayData::F32((0..n).map(|_| self.float() as f32).collect()),
                    F64 => ArrayData::F64((0..n).map(|_| self.float()).collect()),
                    C64 => ArrayData::C64(
                        (0..n)
                            .map(|_| Complex::new(self.float() as f32, self.float() as f32))
                            .collect(),
                    ),
                    C128 => ArrayData::C128(
                        (0..n)
                            .map(|_| Complex::new(self.float(), self.float()))
                            .collect(),
                    ),
                    other => panic!("no generator for {other:?}"),
                };
                Literal::Array {
                    shape: a.clone(),
                    data,
                }
            }
        }
    }
}

/// Every element's bits, for comparing literals bit for bit.
fn bits(l: &Literal) -> Vec<u64> {
    match l {
        Literal::Tuple(ts) => ts.iter().flat_map(bits).collect(),
        Literal::Token => vec![],
        Literal::Array { data, .. } => match data {
            ArrayData::Pred(v) => v.iter().map(|&x| x as u64).collect(),
            ArrayData::S32(v) => v.iter().map(|&x| x as u64).collect(),
            ArrayData::S64(v) => v.iter().map(|&x| x as u64).collect(),
            ArrayData::U32(v) => v.iter().map(|&x| x as u64).collect(),
            ArrayData::F32(v) => v.iter().map(|x| x.to_bits() as u64).collect(),
            ArrayData::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
            ArrayData::C64(v) => v
                .iter()
                .flat_map(|x| [x.re.to_bits() as u64, x.im.to_bits() as u64])
                .collect(),
            other => format!("{other:?}").bytes().map(u64::from).collect(),
        },
    }
}

/// Exports `c`, imports it, and compares evaluations (and the re-exported text when `same_ir`).
fn round_trip(c: &Computation, same_ir: bool) {
    let text = to_stablehlo(c);
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", c.name));
    let main = m.function("main").expect("@main");
    if same_ir {
        assert_eq!(
            to_stablehlo(&main.computation),
            text,
            "{}: a different IR",
            c.name
        );
    }
    let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ c.instrs.len() as u64);
    for _ in 0..3 {
        let args: Vec<Literal> = c.params.iter().map(|p| rng.literal(p)).collect();
        let want = xla_core::eval::evaluate(c, &args).expect("the original evaluates");
        let got = main
            .run(&args)
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let got = if got.len() == 1 {
            got[0].clone()
        } else {
            Literal::Tuple(got)
        };
        assert_eq!(
            bits(&got),
            bits(&want),
            "{}: different values\n{text}",
            c.name
        );
        assert_eq!(got.shape(), want.shape(), "{}", c.name);
    }
}

#[test]
fn elementwise_ops() {
    let mut n = 0;
    for u in UnaryOp::ALL {
        for ty in [F32, S32, C64] {
            if let Some(c) = one_op(&format!("{u:?}"), &[(ty, &[2, 3])], |b, p| b.unary(u, p[0])) {
                round_trip(&c, true);
                n += 1;
            }
        }
    }
    for op in BinaryOp::ALL {
        for ty in [F32, S32, U32, Pred] {
            let params: [(ElementType, &[i64]); 2] = [(ty, &[4]), (ty, &[4])];
            if let Some(c) = one_op(&format!("{op:?}"), &params, |b, p| {
                b.binary(op, p[0], p[1], None)
            }) {
                round_trip(&c, true);
                n += 1;
            }
        }
    }
    for d in ComparisonDirection::ALL {
        for (ty, ct) in [
            (F32, None),
            (F32, Some(ComparisonType::TotalOrder)),
            (S32, None),
            (U32, None),
        ] {
            let params: [(ElementType, &[i64]); 2] = [(ty, &[5]), (ty, &[5])];
            let c = one_op("cmp", &params, |b, p| {
                b.compare_with_type(d, ct, p[0], p[1], None)
            })
            .unwrap();
            round_trip(&c, true);
            n += 1;
        }
    }
    assert!(n > 80, "only {n} elementwise programs");
}

#[test]
fn conversions_and_selection() {
    let progs: Vec<Option<Computation>> = vec![
        one_op(
            "select",
            &[(Pred, &[3]), (F32, &[3]), (F32, &[3])],
            |b, p| b.select(p[0], p[1], p[2]),
        ),
        one_op(
            "select_scalar",
            &[(Pred, &[]), (S32, &[3]), (S32, &[3])],
            |b, p| b.select(p[0], p[1], p[2]),
        ),
        one_op("clamp", &[(F32, &[]), (F32, &[4]), (F32, &[])], |b, p| {
            b.clamp(p[0], p[1], p[2])
        }),
        one_op("convert", &[(F32, &[4])], |b, p| b.convert(p[0], S32)),
        one_op("convert_c", &[(S32, &[4])], |b, p| b.convert(p[0], C64)),
        one_op("convert_pred", &[(F64, &[4])], |b, p| b.convert(p[0], Pred)),
        one_op("bitcast", &[(F32, &[4])], |b, p| {
            b.bitcast_convert(p[0], S32)
        }),
        one_op("bitcast_narrow", &[(F64, &[2])], |b, p| {
            b.bitcast_convert(p[0], F32)
        }),
        one_op("reduce_precision", &[(F32, &[6])], |b, p| {
            b.reduce_precision(p[0], 5, 10)
        }),
        one_op("complex", &[(F32, &[2]), (F32, &[2])], |b, p| {
            b.binary(BinaryOp::Complex, p[0], p[1], None)
        }),
    ];
    for c in progs {
        round_trip(&c.expect("builds"), true);
    }
}

#[test]
fn movement_and_constants() {
    let pads = [
        PadDim {
            low: 1,
            high: -1,
            interior: 1,
        },
        PadDim {
            low: 0,
            high: 2,
            interior: 0,
        },
    ];
    let progs: Vec<Option<Computation>> = vec![
        one_op("bcast", &[(F32, &[3])], |b, p| {
            b.broadcast_in_dim(p[0], &[2, 3], &[1])
        }),
        one_op("reshape", &[(S32, &[2, 3])], |b, p| {
            b.reshape(p[0], None, &[3, 2])
        }),
        one_op("transpose", &[(F32, &[2, 3, 4])], |b, p| {
            b.transpose(p[0], &[2, 0, 1])
        }),
        one_op("rev", &[(F32, &[2, 3])], |b, p| b.rev(p[0], &[0, 1])),
        one_op("slice", &[(F32, &[5, 6])], |b, p| {
            b.slice(p[0], &[1, 0], &[5, 6], Some(&[2, 3]))
        }),
        one_op("pad", &[(F32, &[3, 2]), (F32, &[])], |b, p| {
            b.pad(p[0], p[1], &pads)
        }),
        one_op("concat", &[(S32, &[2, 2]), (S32, &[1, 2])], |b, p| {
            b.concat_in_dim(&[p[0], p[1]], 0)
        }),
        one_op(
            "dynamic_slice",
            &[(F32, &[5, 6]), (S32, &[]), (S32, &[])],
            |b, p| b.dynamic_slice(p[0], &p[1..], &[2, 3]),
        ),
        one_op(
            "dynamic_update_slice",
            &[(C64, &[5, 6]), (C64, &[3, 2]), (S64, &[]), (S64, &[])],
            |b, p| b.dynamic_update_slice(p[0], p[1], &p[2..]),
        ),
        one_op("iota", &[], |b, _| b.iota(Shape::array(F32, &[3, 4]), 1)),
        one_op("constants", &[(F32, &[2])], |b, p| {
            let k = b.constant(Literal::from_vec(&[2], vec![f32::NAN, -0.0])?);
            let h = b.constant(Literal::from_vec(
                &[2],
                vec![half::f16::from_f32(0.1), half::f16::MAX],
            )?);
            let h = b.convert(h, F32)?;
            let z = b.constant(Literal::from_vec(
                &[2],
                vec![Complex::new(1.5f32, -2.0), Complex::new(-0.0, 3.0)],
            )?);
            let z = b.unary(UnaryOp::Real, z)?;
            let s = b.binary(BinaryOp::Add, p[0], k, None)?;
            let s = b.binary(BinaryOp::Add, s, h, None)?;
            let u = b.constant(Literal::scalar(u64::MAX));
            let t = b.constant(Literal::from_vec(&[2], vec![true, false])?);
            let r = b.binary(BinaryOp::Mul, s, z, None)?;
            b.tuple(&[r, u, t])
        }),
    ];
    for c in progs {
        round_trip(&c.expect("builds"), true);
    }
}

#[test]
fn reductions_sorts_products() {
    let add = scalar_fn(F32, BinaryOp::Add);
    let lt = {
        let mut b = Builder::new("lt");
        let (x, y) = (param(&mut b, 0, F32, &[]), param(&mut b, 1, F32, &[]));
        let (_, _) = (param(&mut b, 2, S32, &[]), param(&mut b, 3, S32, &[]));
        let r = b
            .compare(ComparisonDirection::Lt, true, x, y, None)
            .unwrap();
        Arc::new(b.build(r).unwrap())
    };
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![2],
        rhs_contracting_dimensions: vec![1],
        lhs_batch_dimensions: vec![0],
        rhs_batch_dimensions: vec![0],
    };
    let conv_dn = ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 3,
        input_spatial_dimensions: vec![1, 2],
        kernel_input_feature_dimension: 2,
        kernel_output_feature_dimension: 3,
        kernel_spatial_dimensions: vec![0, 1],
        output_batch_dimension: 0,
        output_feature_dimension: 3,
        output_spatial_dimensions: vec![1, 2],
    };
    let progs: Vec<Option<Computation>> = vec![
        one_op("reduce", &[(F32, &[3, 4]), (F32, &[])], |b, p| {
            b.reduce(&[p[0]], &[p[1]], &add, &[1])
        }),
        one_op("sort", &[(F32, &[2, 5]), (S32, &[2, 5])], |b, p| {
            b.sort(&[p[0], p[1]], &lt, 1, true)
        }),
        one_op("top_k", &[(F32, &[2, 5])], |b, p| b.top_k(p[0], 3, true)),
        one_op("bottom_k", &[(F32, &[2, 5])], |b, p| {
            b.top_k(p[0], 2, false)
        }),
        one_op(
            "dot_general",
            &[(F32, &[2, 3, 4]), (F32, &[2, 4, 5])],
            |b, p| b.dot_general(p[0], p[1], &dn, None),
        ),
        one_op("dot_wide", &[(S32, &[3, 4]), (S32, &[4])], |b, p| {
            b.dot(p[0], p[1], Some(S64))
        }),
        one_op(
            "conv",
            &[(F32, &[1, 5, 5, 4]), (F32, &[3, 3, 2, 4])],
            |b, p| {
                b.conv_general_dilated(
                    p[0],
                    p[1],
                    &[2, 1],
                    &[(1, 1), (0, 2)],
                    &[1, 2],
                    &[2, 1],
                    &conv_dn,
                    2,
                    1,
                    Some(&[true, false]),
                    None,
                )
            },
        ),
    ];
    for c in progs {
        let c = c.expect("builds");
        // TopK of the smallest exports as sort + slice, which imports as those ops.
        round_trip(&c, c.name != "bottom_k");
    }
}

#[test]
fn control_flow_and_calls() {
    // while (i < 5) { i += 1; x *= 2 }
    let state = Shape::Tuple(vec![Shape::array(S32, &[]), Shape::array(F32, &[3])]);
    let cond = {
        let mut b = Builder::new("cond");
        let s = b.parameter(0, state.clone(), "s").unwrap();
        let i = b.get_tuple_element(s, 0).unwrap();
        let five = b.constant(Literal::scalar(5i32));
        let r = b
            .compare(ComparisonDirection::Lt, false, i, five, None)
            .unwrap();
        Arc::new(b.build(r).unwrap())
    };
    let body = {
        let mut b = Builder::new("body");
        let s = b.parameter(0, state.clone(), "s").unwrap();
        let (i, x) = (
            b.get_tuple_element(s, 0).unwrap(),
            b.get_tuple_element(s, 1).unwrap(),
        );
        let one = b.constant(Literal::scalar(1i32));
        let i = b.binary(BinaryOp::Add, i, one, None).unwrap();
        let x = b.binary(BinaryOp::Add, x, x, None).unwrap();
        let r = b.tuple(&[i, x]).unwrap();
        Arc::new(b.build(r).unwrap())
    };
    let neg = {
        let mut b = Builder::new("neg_branch");
        let x = param(&mut b, 0, F32, &[3]);
        let r = b.unary(UnaryOp::Neg, x).unwrap();
        Arc::new(b.build(r).unwrap())
    };
    let helper = {
        let mut b = Builder::new("helper");
        let x = param(&mut b, 0, F32, &[3]);
        let e = b.unary(UnaryOp::Exp, x).unwrap();
        let r = b.tuple(&[e, x]).unwrap();
        Arc::new(b.build(r).unwrap())
    };
    let w = one_op("while", &[(F32, &[3])], |b, p| {
        let zero = b.constant(Literal::scalar(0i32));
        let init = b.tuple(&[zero, p[0]])?;
        let w = b.while_loop(&cond, &body, init)?;
        b.get_tuple_element(w, 1)
    });
    round_trip(&w.expect("builds"), true);
    let call = one_op("call", &[(F32, &[3])], |b, p| {
        let t = b.call(&helper, &[p[0]])?;
        let e = b.get_tuple_element(t, 0)?;
        let t2 = b.call(&helper, &[e])?;
        b.get_tuple_element(t2, 1)
    });
    round_trip(&call.expect("builds"), true);
    // Branches become regions that capture their operand: same values, different IR.
    let cond_pred = one_op("if", &[(Pred, &[]), (F32, &[3]), (F32, &[3])], |b, p| {
        b.conditional(p[0], p[1], &neg, p[2], &neg)
    });
    round_trip(&cond_pred.expect("builds"), false);
    let exp = {
        let mut b = Builder::new("exp_branch");
        let x = param(&mut b, 0, F32, &[3]);
        let r = b.unary(UnaryOp::Exp, x).unwrap();
        Arc::new(b.build(r).unwrap())
    };
    let case = one_op("case", &[(S32, &[]), (F32, &[3]), (F32, &[3])], |b, p| {
        b.conditional_indexed(p[0], &[Arc::clone(&neg), exp], &[p[1], p[2]])
    });
    round_trip(&case.expect("builds"), false);
}

#[test]
fn batch_norm_ops() {
    let x = [2i64, 3, 4];
    let f: &[i64] = &[3];
    for ty in [F32, F64] {
        let t = one_op("bn_training", &[(ty, &x), (ty, f), (ty, f)], |b, p| {
            b.batch_norm_training(p[0], p[1], p[2], 1e-3, 1)
        });
        round_trip(&t.expect("builds"), true);
        let i = one_op(
            "bn_inference",
            &[(ty, &x), (ty, f), (ty, f), (ty, f), (ty, f)],
            |b, p| b.batch_norm_inference(p[0], p[1], p[2], p[3], p[4], 1e-5, 1),
        );
        round_trip(&i.expect("builds"), true);
        let g = one_op(
            "bn_grad",
            &[(ty, &x), (ty, f), (ty, f), (ty, f), (ty, &x)],
            |b, p| b.batch_norm_grad(p[0], p[1], p[2], p[3], p[4], 0.1, 1),
        );
        round_trip(&g.expect("builds"), true);
    }
}

#[test]
fn map_op() {
    let mul = scalar_fn(F32, BinaryOp::Mul);
    let m = one_op("map", &[(F32, &[2, 3]), (F32, &[2, 3])], |b, p| {
        b.map(&[p[0], p[1]], &mul, &[0, 1])
    });
    round_trip(&m.expect("builds"), true);
}

#[test]
fn reduce_window() {
    use xla_core::infer::{Padding, WindowPadding, WindowSpec};
    let windows = [
        WindowSpec::new(&[2, 3]),
        WindowSpec {
            strides: Some(vec![2, 1]),
            base_dilations: Some(vec![2, 1]),
            window_dilations: Some(vec![1, 2]),
            padding: WindowPadding::Explicit(vec![(2, 1), (-1, 1)]),
            ..WindowSpec::new(&[2, 2])
        },
        WindowSpec {
            padding: WindowPadding::Kind(Padding::Same),
            ..WindowSpec::new(&[3, 3])
        },
    ];
    for w in &windows {
        for (ty, op) in [
            (F32, BinaryOp::Max),
            (S32, BinaryOp::Add),
            (F64, BinaryOp::Add),
        ] {
            let c = one_op("reduce_window", &[(ty, &[4, 5]), (ty, &[])], |b, p| {
                b.reduce_window(&[p[0]], &[p[1]], &scalar_fn(ty, op), w)
            })
            .unwrap();
            round_trip(&c, true);
        }
    }
}

#[test]
fn optimization_barrier_and_after_all() {
    let mut b = Builder::new("barrier");
    let x = param(&mut b, 0, F32, &[2, 3]);
    let y = param(&mut b, 1, S32, &[4]);
    let fresh = b.after_all(&[]).unwrap();
    let _joined = b.after_all(&[fresh, fresh]).unwrap();
    let both = b.optimization_barrier(&[x, y]).unwrap();
    let x2 = b.get_tuple_element(both, 0).unwrap();
    let y2 = b.get_tuple_element(both, 1).unwrap();
    let one = b.optimization_barrier(&[x2]).unwrap();
    let sum = b.binary(BinaryOp::Add, one, x2, None).unwrap();
    let root = b.tuple(&[sum, y2]).unwrap();
    round_trip(&b.build(root).expect("builds"), true);
}

#[test]
fn composite_calls() {
    let square = one_op("square_impl", &[(F32, &[3])], |b, p| {
        b.binary(BinaryOp::Mul, p[0], p[0], None)
    })
    .map(Arc::new)
    .expect("builds");
    let mut b = Builder::new("composite");
    let x = param(&mut b, 0, F32, &[3]);
    let plain = b
        .composite_call(
            &square,
            &[x],
            xla_core::Composite {
                name: "my_lib.square".into(),
                attributes: String::new(),
                version: 0,
            },
        )
        .unwrap();
    let attributed = b
        .composite_call(
            &square,
            &[plain],
            xla_core::Composite {
                name: "my_lib.square".into(),
                attributes: "{mode = \"fast\", n = 3 : i64, sizes = array<i64: 1, 2>}".into(),
                version: 2,
            },
        )
        .unwrap();
    round_trip(&b.build(attributed).expect("builds"), true);
}

/// SelectAndScatter exports as `stablehlo.select_and_scatter` and imports back to the same IR;
/// the evaluator agrees on both.
#[test]
fn select_and_scatter() {
    use xla_core::infer::{Padding, WindowPadding, WindowSpec};
    let ge = |ty: ElementType| {
        let mut b = Builder::new("ge");
        let (x, y) = (param(&mut b, 0, ty, &[]), param(&mut b, 1, ty, &[]));
        let r = b
            .compare(ComparisonDirection::Ge, false, x, y, None)
            .unwrap();
        Arc::new(b.build(r).unwrap())
    };
    let windows = [
        (WindowSpec::new(&[2, 3]), [3, 3]),
        (
            WindowSpec {
                strides: Some(vec![2, 2]),
                padding: WindowPadding::Explicit(vec![(1, 1), (0, 2)]),
                ..WindowSpec::new(&[3, 2])
            },
            [2, 3],
        ),
        (
            WindowSpec {
                strides: Some(vec![2, 2]),
                padding: WindowPadding::Kind(Padding::Same),
                ..WindowSpec::new(&[3, 3])
            },
            [2, 3],
        ),
    ];
    for (w, src) in &windows {
        for ty in [F32, S32] {
            let c = one_op(
                "select_and_scatter",
                &[(ty, &[4, 5]), (ty, src), (ty, &[])],
                |b, p| {
                    b.select_and_scatter(
                        p[0],
                        &ge(ty),
                        w,
                        p[1],
                        p[2],
                        &scalar_fn(ty, BinaryOp::Add),
                    )
                },
            )
            .unwrap();
            round_trip(&c, true);
        }
    }
}

/// Scan exports as `chlo.scan` (StableHLO has no scan op) and imports back to the same IR.
#[test]
fn scan_exports_as_chlo_scan() {
    let mut b = Builder::new("f");
    let x = param(&mut b, 0, F32, &[3]);
    let c = param(&mut b, 1, F32, &[3]);
    let r = b.binary(BinaryOp::Add, c, x, None).unwrap();
    let t = b.tuple(&[r, r]).unwrap();
    let f = Arc::new(b.build(t).unwrap());
    let c = one_op("scan", &[(F32, &[3, 4]), (F32, &[3])], |b, p| {
        b.scan(&[p[0]], &[p[1]], &f, 1, true, None)
    })
    .unwrap();
    let text = to_stablehlo(&c);
    assert!(text.contains("\"chlo.scan\""), "{text}");
    round_trip(&c, true);
}

#[test]
fn linalg_ops() {
    use xla_core::ir::TransposeA;
    for lower in [true, false] {
        let c = one_op("cholesky", &[(C64, &[2, 3, 3])], |b, p| {
            b.cholesky(p[0], lower)
        });
        round_trip(&c.expect("builds"), true);
    }
    for t in TransposeA::ALL {
        let s = one_op(
            "triangular_solve",
            &[(F64, &[2, 4, 4]), (F64, &[2, 3, 4])],
            |b, p| b.triangular_solve(p[0], p[1], false, true, true, t),
        );
        round_trip(&s.expect("builds"), true);
    }
}

#[test]
fn rng_ops() {
    use xla_core::ir::{RandomAlgorithm, RngDistribution};
    for alg in RandomAlgorithm::ALL {
        for (state, ty, dims) in [(2, U32, &[3, 5][..]), (2, F16, &[7]), (2, S64, &[])] {
            let c = one_op("rng_bits", &[(U64, &[state])], |b, p| {
                b.rng_bit_generator(alg, p[0], &Shape::array(ty, dims))
            })
            .unwrap();
            round_trip(&c, true);
        }
    }
    let c = one_op("rng_bits3", &[(U64, &[3])], |b, p| {
        b.rng_bit_generator(RandomAlgorithm::Philox, p[0], &Shape::array(U8, &[2, 9]))
    })
    .unwrap();
    round_trip(&c, true);
    for (d, ty) in [
        (RngDistribution::Uniform, F32),
        (RngDistribution::Uniform, S32),
        (RngDistribution::Normal, F64),
        (RngDistribution::Normal, Bf16),
    ] {
        // Two call sites: each keeps its own stream through the round trip (same values; the
        // imported shape constants stay as instructions, so the text is not the same).
        let c = one_op("rng", &[(ty, &[]), (ty, &[])], |b, p| {
            let x = b.rng(d, p[0], p[1], &Shape::array(ty, &[4, 3]))?;
            let y = b.rng(d, p[0], p[1], &Shape::array(ty, &[4, 3]))?;
            b.tuple(&[x, y])
        })
        .unwrap();
        round_trip(&c, false);
    }
}

#[test]
fn fft() {
    use xla_core::FftType;
    let cases: [(FftType, ElementType, &[i64], &[i64]); 6] = [
        (FftType::Fft, C64, &[2, 7], &[7]),
        (FftType::Ifft, C128, &[3, 4, 5], &[3, 4, 5]),
        (FftType::Rfft, F32, &[2, 8, 6], &[8, 6]),
        (FftType::Rfft, F64, &[5], &[5]),
        (FftType::Irfft, C64, &[4, 3], &[4, 5]),
        (FftType::Irfft, C128, &[2, 5], &[8]),
    ];
    for (t, ty, dims, len) in cases {
        let c = one_op("fft", &[(ty, dims)], |b, p| b.fft(p[0], t, len)).unwrap();
        round_trip(&c, true);
        let text = to_stablehlo(&c);
        assert!(
            text.contains(&format!("stablehlo.fft %arg0, type = {}", t.name())),
            "{text}"
        );
    }
    // The generic form XLA's tools print reads the same.
    let text = "func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {\n\
        %0 = \"stablehlo.fft\"(%x) {fft_type = #stablehlo<fft_type IFFT>, fft_length = array<i64: 4>} \
        : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>\n  return %0 : tensor<4xcomplex<f32>>\n}\n";
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let main = m.function("main").unwrap();
    assert!(to_stablehlo(&main.computation).contains("type = IFFT, length = [4]"));
}

/// CustomCall exports as `stablehlo.custom_call` and imports back to the same IR (the
/// evaluator cannot run it, so only the text is compared), a tuple result included.
#[test]
fn custom_call() {
    let mut b = Builder::new("main");
    let x = param(&mut b, 0, F32, &[2, 3]);
    let k = param(&mut b, 1, S32, &[]);
    let shape = Shape::Tuple(vec![Shape::array(F32, &[2, 3]), Shape::scalar(S32)]);
    let t = b
        .custom_call("my_ops::split", &[x, k], &shape, "cfg \"v1\"", true)
        .unwrap();
    let y = b.get_tuple_element(t, 0).unwrap();
    let one = b.custom_call("softplus", &[y], &Shape::array(F32, &[2, 3]), "", false);
    let c = b.build(one.unwrap()).unwrap();
    let text = to_stablehlo(&c);
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let main = m.function("main").expect("@main");
    assert_eq!(to_stablehlo(&main.computation), text);
    assert!(
        text.contains("call_target_name = \"my_ops::split\""),
        "{text}"
    );
}
