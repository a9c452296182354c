//! Evaluator tests: small computations built by hand (instruction by instruction), with expected
//! values worked out by hand.

use std::sync::Arc;

use half::{bf16, f16};
use num_complex::Complex;

use super::evaluate;
use crate::element::ElementType::{self, *};
use crate::ir::{
    BinaryOp, ComparisonDirection, Computation, DotDimensionNumbers, InstrId, Instruction, Op,
    UnaryOp,
};
use crate::literal::{ArrayElement, Literal};
use crate::shape::Shape;

/// A minimal instruction list builder (the real builder is written elsewhere).
struct B {
    instrs: Vec<Instruction>,
    params: Vec<Shape>,
}

impl B {
    fn new() -> Self {
        B {
            instrs: Vec::new(),
            params: Vec::new(),
        }
    }

    fn param(&mut self, shape: Shape) -> InstrId {
        let index = self.params.len();
        self.params.push(shape.clone());
        self.op(
            Op::Parameter {
                index,
                name: format!("p{index}"),
            },
            &[],
            shape,
        )
    }

    fn op(&mut self, op: Op, operands: &[InstrId], shape: Shape) -> InstrId {
        self.instrs.push(Instruction {
            op,
            operands: operands.to_vec(),
            shape,
        });
        InstrId(self.instrs.len() as u32 - 1)
    }

    fn build(self, root: InstrId) -> Computation {
        Computation {
            name: "test".into(),
            params: self.params,
            instrs: self.instrs,
            root,
        }
    }
}

fn arr(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims)
}

fn lit<T: ArrayElement>(dims: &[i64], v: Vec<T>) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}

/// Evaluate a one-op computation on `args` (each a parameter).
fn run1(op: Op, args: &[Literal], out: Shape) -> Literal {
    let mut b = B::new();
    let ps: Vec<InstrId> = args.iter().map(|a| b.param(a.shape())).collect();
    let r = b.op(op, &ps, out);
    evaluate(&b.build(r), args).unwrap()
}

/// A scalar reducer `op(p0, p1)` of type `ty`.
fn reducer(ty: ElementType, op: BinaryOp) -> Arc<Computation> {
    let mut b = B::new();
    let x = b.param(Shape::scalar(ty));
    let y = b.param(Shape::scalar(ty));
    let r = b.op(Op::Binary(op), &[x, y], Shape::scalar(ty));
    Arc::new(b.build(r))
}

#[test]
fn add_rows_with_broadcast_in_dim() {
    // add_rows(x: f32[2,3], v: f32[3]) = Add(x, v, broadcast_dimensions = [1]).
    let mut b = B::new();
    let x = b.param(arr(F32, &[2, 3]));
    let v = b.param(arr(F32, &[3]));
    let vb = b.op(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![1],
        },
        &[v],
        arr(F32, &[2, 3]),
    );
    let r = b.op(Op::Binary(BinaryOp::Add), &[x, vb], arr(F32, &[2, 3]));
    let c = b.build(r);
    let out = evaluate(
        &c,
        &[
            lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]),
            lit(&[3], vec![10f32, 20., 30.]),
        ],
    );
    assert_eq!(
        out.unwrap(),
        lit(&[2, 3], vec![11f32, 22., 33., 14., 25., 36.])
    );
}

#[test]
fn broadcast_size_one_and_new_dims() {
    // f32[2,1] -> f32[2,2,3] with dims [0, 2]: the size-1 dim repeats, dim 1 is new.
    let out = run1(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![0, 2],
        },
        &[lit(&[2, 1], vec![1f32, 2.])],
        arr(F32, &[2, 2, 3]),
    );
    assert_eq!(
        out.as_slice::<f32>().unwrap(),
        &[1., 1., 1., 1., 1., 1., 2., 2., 2., 2., 2., 2.]
    );
    // Scalar to f32[2].
    let out = run1(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![],
        },
        &[Literal::scalar(7i32)],
        arr(S32, &[2]),
    );
    assert_eq!(out, lit(&[2], vec![7i32, 7]));
}

#[test]
fn unary_ops_and_result_types() {
    let x = lit(&[3], vec![0f32, 1., f32::INFINITY]);
    let out = run1(
        Op::Unary(UnaryOp::Exp),
        std::slice::from_ref(&x),
        arr(F32, &[3]),
    );
    assert_eq!(
        out.as_slice::<f32>().unwrap(),
        &[1., std::f32::consts::E, f32::INFINITY]
    );
    let out = run1(Op::Unary(UnaryOp::IsFinite), &[x], arr(Pred, &[3]));
    assert_eq!(out, lit(&[3], vec![true, true, false]));
    let z = lit(&[2], vec![Complex::new(3f32, 4.), Complex::new(0., -2.)]);
    let out = run1(
        Op::Unary(UnaryOp::Abs),
        std::slice::from_ref(&z),
        arr(F32, &[2]),
    );
    assert_eq!(out, lit(&[2], vec![5f32, 2.]));
    let out = run1(Op::Unary(UnaryOp::Imag), &[z], arr(F32, &[2]));
    assert_eq!(out, lit(&[2], vec![4f32, -2.]));
    let out = run1(
        Op::Unary(UnaryOp::Neg),
        &[lit(&[2], vec![i32::MIN, 5])],
        arr(S32, &[2]),
    );
    assert_eq!(out, lit(&[2], vec![i32::MIN, -5]));
    let h = lit(&[2], vec![f16::from_f32(2.0), f16::from_f32(-4.0)]);
    let out = run1(Op::Unary(UnaryOp::Abs), &[h], arr(F16, &[2]));
    assert_eq!(out, lit(&[2], vec![f16::from_f32(2.0), f16::from_f32(4.0)]));
    let bf = lit(&[1], vec![bf16::from_f32(4.0)]);
    let out = run1(Op::Unary(UnaryOp::Sqrt), &[bf], arr(Bf16, &[1]));
    assert_eq!(out, lit(&[1], vec![bf16::from_f32(2.0)]));
    // Empty arrays keep their result type.
    let out = run1(
        Op::Unary(UnaryOp::Abs),
        &[lit::<Complex<f64>>(&[0], vec![])],
        arr(F64, &[0]),
    );
    assert_eq!(out, lit::<f64>(&[0], vec![]));
}

#[test]
fn binary_integer_rules_and_complex() {
    let a = lit(&[3], vec![7i32, i32::MIN, 1]);
    let b = lit(&[3], vec![0i32, -1, 40]);
    let out = run1(
        Op::Binary(BinaryOp::Div),
        &[a.clone(), b.clone()],
        arr(S32, &[3]),
    );
    assert_eq!(out, lit(&[3], vec![-1i32, i32::MIN, 0]));
    let out = run1(Op::Binary(BinaryOp::ShiftLeft), &[a, b], arr(S32, &[3]));
    assert_eq!(out, lit(&[3], vec![7i32, 0, 0]));
    let re = lit(&[2], vec![1f32, -0.5]);
    let im = lit(&[2], vec![2f32, 0.0]);
    let out = run1(Op::Binary(BinaryOp::Complex), &[re, im], arr(C64, &[2]));
    assert_eq!(
        out,
        lit(&[2], vec![Complex::new(1f32, 2.), Complex::new(-0.5, 0.)])
    );
    let z = lit(&[1], vec![Complex::new(1f64, 2.)]);
    let w = lit(&[1], vec![Complex::new(3f64, 4.)]);
    let out = run1(Op::Binary(BinaryOp::Mul), &[z, w], arr(C128, &[1]));
    assert_eq!(out, lit(&[1], vec![Complex::new(-5f64, 10.)]));
    let h = lit(&[1], vec![f16::from_f32(60000.0)]);
    let out = run1(Op::Binary(BinaryOp::Add), &[h.clone(), h], arr(F16, &[1]));
    assert_eq!(out, lit(&[1], vec![f16::INFINITY]));
}

#[test]
fn compare_ieee_and_total_order() {
    let a = lit(&[3], vec![f32::NAN, -0.0, 1.0]);
    let b = lit(&[3], vec![f32::NAN, 0.0, 2.0]);
    let eq = |total| Op::Compare {
        direction: ComparisonDirection::Eq,
        total_order: total,
    };
    let out = run1(eq(false), &[a.clone(), b.clone()], arr(Pred, &[3]));
    assert_eq!(out, lit(&[3], vec![false, true, false]));
    let out = run1(eq(true), &[a.clone(), b.clone()], arr(Pred, &[3]));
    assert_eq!(out, lit(&[3], vec![true, false, false]));
    let lt = Op::Compare {
        direction: ComparisonDirection::Lt,
        total_order: true,
    };
    let out = run1(lt, &[a, b], arr(Pred, &[3]));
    assert_eq!(out, lit(&[3], vec![false, true, true]));
}

#[test]
fn select_and_clamp() {
    let p = lit(&[3], vec![true, false, true]);
    let t = lit(&[3], vec![1u8, 2, 3]);
    let f = lit(&[3], vec![10u8, 20, 30]);
    let out = run1(Op::Select, &[p, t.clone(), f.clone()], arr(U8, &[3]));
    assert_eq!(out, lit(&[3], vec![1u8, 20, 3]));
    // A scalar pred selects a whole array.
    let out = run1(
        Op::Select,
        &[Literal::scalar(false), t, f.clone()],
        arr(U8, &[3]),
    );
    assert_eq!(out, f);
    // Clamp with scalar bounds; NaN propagates.
    let x = lit(&[4], vec![-5f32, 0.5, 9.0, f32::NAN]);
    let out = run1(
        Op::Clamp,
        &[Literal::scalar(0f32), x, Literal::scalar(1f32)],
        arr(F32, &[4]),
    );
    let v = out.as_slice::<f32>().unwrap();
    assert_eq!(&v[..3], &[0., 0.5, 1.]);
    assert!(v[3].is_nan());
}

#[test]
fn iota_counts_along_its_dimension() {
    let out = run1(Op::Iota { dimension: 1 }, &[], arr(S32, &[2, 3]));
    assert_eq!(out, lit(&[2, 3], vec![0i32, 1, 2, 0, 1, 2]));
    let out = run1(Op::Iota { dimension: 0 }, &[], arr(F32, &[2, 3]));
    assert_eq!(out, lit(&[2, 3], vec![0f32, 0., 0., 1., 1., 1.]));
    let out = run1(Op::Iota { dimension: 0 }, &[], arr(Bf16, &[2]));
    assert_eq!(out, lit(&[2], vec![bf16::ZERO, bf16::ONE]));
}

#[test]
fn convert_element_type() {
    let x = lit(&[4], vec![3.9f32, -1e10, f32::NAN, 300.0]);
    let out = run1(
        Op::ConvertElementType,
        std::slice::from_ref(&x),
        arr(S32, &[4]),
    );
    assert_eq!(out, lit(&[4], vec![3i32, i32::MIN, 0, 300]));
    let out = run1(Op::ConvertElementType, &[x], arr(U8, &[4]));
    assert_eq!(out, lit(&[4], vec![3u8, 0, 0, 255]));
    // f64 -> bf16 rounds once: 1 + 2^-8 + 2^-30 is above the tie, so 1 + 2^-7 (through f32
    // it would become 1).
    let y = lit(&[1], vec![1.0 + 2f64.powi(-8) + 2f64.powi(-30)]);
    let out = run1(Op::ConvertElementType, &[y], arr(Bf16, &[1]));
    assert_eq!(out, lit(&[1], vec![bf16::from_f64(1.0 + 2f64.powi(-7))]));
    let out = run1(
        Op::ConvertElementType,
        &[lit(&[1], vec![Complex::new(2.5f32, 1.0)])],
        arr(F64, &[1]),
    );
    assert_eq!(out, lit(&[1], vec![2.5f64]));
}

#[test]
fn bitcast_convert_type_widths() {
    let x = lit(&[2], vec![1f32, -2.0]);
    let out = run1(
        Op::BitcastConvertType,
        std::slice::from_ref(&x),
        arr(U32, &[2]),
    );
    assert_eq!(out, lit(&[2], vec![0x3f80_0000u32, 0xc000_0000]));
    // Narrower: a new minor dimension, little-endian halves.
    let out = run1(Op::BitcastConvertType, &[x], arr(U16, &[2, 2]));
    assert_eq!(out, lit(&[2, 2], vec![0u16, 0x3f80, 0, 0xc000]));
    // Wider: the minor dimension is consumed.
    let bytes = lit(&[2, 4], vec![0u8, 0, 0x80, 0x3f, 0, 0, 0, 0x40]);
    let out = run1(Op::BitcastConvertType, &[bytes], arr(F32, &[2]));
    assert_eq!(out, lit(&[2], vec![1f32, 2.0]));
    // c64 -> f32[.., 2] is (re, im).
    let z = lit(&[1], vec![Complex::new(1.5f32, -3.0)]);
    let out = run1(Op::BitcastConvertType, &[z], arr(F32, &[1, 2]));
    assert_eq!(out, lit(&[1, 2], vec![1.5f32, -3.0]));
    // pred <-> u8.
    let out = run1(
        Op::BitcastConvertType,
        &[lit(&[2], vec![true, false])],
        arr(S8, &[2]),
    );
    assert_eq!(out, lit(&[2], vec![1i8, 0]));
}

#[test]
fn reduce_precision_elementwise() {
    let x = lit(&[3], vec![65504f32, 65520.0, 1.0 + 2f32.powi(-12)]);
    let op = Op::ReducePrecision {
        exponent_bits: 5,
        mantissa_bits: 10,
    };
    let out = run1(op, &[x], arr(F32, &[3]));
    assert_eq!(out, lit(&[3], vec![65504f32, f32::INFINITY, 1.0]));
}

#[test]
fn reshape_and_transpose() {
    let x = lit(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let out = run1(Op::Reshape, std::slice::from_ref(&x), arr(S32, &[3, 2]));
    assert_eq!(out, lit(&[3, 2], vec![1i32, 2, 3, 4, 5, 6]));
    let out = run1(
        Op::Transpose {
            permutation: vec![1, 0],
        },
        &[x],
        arr(S32, &[3, 2]),
    );
    assert_eq!(out, lit(&[3, 2], vec![1i32, 4, 2, 5, 3, 6]));
    // Rank 3: out[i,j,k] = in[j,k,i] for permutation [2, 0, 1] of dims [2,3,4] -> [4,2,3].
    let v: Vec<i32> = (0..24).collect();
    let out = run1(
        Op::Transpose {
            permutation: vec![2, 0, 1],
        },
        &[lit(&[2, 3, 4], v)],
        arr(S32, &[4, 2, 3]),
    );
    let got = out.as_slice::<i32>().unwrap();
    for i in 0..4 {
        for j in 0..2 {
            for k in 0..3 {
                assert_eq!(got[i * 6 + j * 3 + k], (j * 12 + k * 4 + i) as i32);
            }
        }
    }
}

#[test]
fn reduce_sum_and_max() {
    let x = lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let sum = |dims: Vec<i64>, out: Shape| {
        let op = Op::Reduce {
            dimensions: dims,
            computation: reducer(F32, BinaryOp::Add),
        };
        run1(op, &[x.clone(), Literal::scalar(0f32)], out)
    };
    assert_eq!(sum(vec![1], arr(F32, &[2])), lit(&[2], vec![6f32, 15.]));
    assert_eq!(sum(vec![0], arr(F32, &[3])), lit(&[3], vec![5f32, 7., 9.]));
    assert_eq!(sum(vec![0, 1], Shape::scalar(F32)), Literal::scalar(21f32));
    assert_eq!(sum(vec![], arr(F32, &[2, 3])), x);
    let op = Op::Reduce {
        dimensions: vec![1],
        computation: reducer(F32, BinaryOp::Max),
    };
    let y = lit(&[2, 2], vec![-1f32, -3., f32::NAN, 2.]);
    let out = run1(op, &[y, Literal::scalar(f32::NEG_INFINITY)], arr(F32, &[2]));
    let v = out.as_slice::<f32>().unwrap();
    assert_eq!(v[0], -1.0);
    assert!(v[1].is_nan());
    // A non-commutative reducer applied in order: (((0 - 1) - 2) - 3) and the swapped form.
    let op = Op::Reduce {
        dimensions: vec![0],
        computation: reducer(S32, BinaryOp::Sub),
    };
    let out = run1(
        op,
        &[lit(&[3], vec![1i32, 2, 3]), Literal::scalar(0i32)],
        Shape::scalar(S32),
    );
    assert_eq!(out, Literal::scalar(-6i32));
    let mut b = B::new();
    let p0 = b.param(Shape::scalar(S32));
    let p1 = b.param(Shape::scalar(S32));
    let r = b.op(Op::Binary(BinaryOp::Sub), &[p1, p0], Shape::scalar(S32));
    let op = Op::Reduce {
        dimensions: vec![0],
        computation: Arc::new(b.build(r)),
    };
    // acc' = x - acc: 1 - 0 = 1, 2 - 1 = 1, 3 - 1 = 2.
    let out = run1(
        op,
        &[lit(&[3], vec![1i32, 2, 3]), Literal::scalar(0i32)],
        Shape::scalar(S32),
    );
    assert_eq!(out, Literal::scalar(2i32));
}

#[test]
fn reduce_general_path_matches_fast_path() {
    // max(p0, p1) followed by a no-op reshape: not the single-op pattern, so the reducer is
    // evaluated recursively; the result must equal the direct one.
    let mut b = B::new();
    let p0 = b.param(Shape::scalar(F32));
    let p1 = b.param(Shape::scalar(F32));
    let m = b.op(Op::Binary(BinaryOp::Max), &[p0, p1], Shape::scalar(F32));
    let r = b.op(Op::Reshape, &[m], Shape::scalar(F32));
    let general = Arc::new(b.build(r));
    let x = lit(&[2, 3], vec![3f32, -1., 7., -0.0, 0.0, -5.]);
    let init = Literal::scalar(f32::NEG_INFINITY);
    let out = Shape::array(F32, &[2]);
    let a = run1(
        Op::Reduce {
            dimensions: vec![1],
            computation: general,
        },
        &[x.clone(), init.clone()],
        out.clone(),
    );
    let fast = Op::Reduce {
        dimensions: vec![1],
        computation: reducer(F32, BinaryOp::Max),
    };
    let b = run1(fast, &[x, init], out);
    assert_eq!(a, lit(&[2], vec![7f32, 0.0]));
    assert_eq!(
        a.as_slice::<f32>().unwrap()[1].to_bits(),
        0,
        "max(-0, +0) = +0"
    );
    assert_eq!(a, b);
}

#[test]
fn variadic_reduce_argmax() {
    // (value, index) pairs; keeps the first maximum: x > acc ? x : acc (ties keep acc).
    let mut b = B::new();
    let av = b.param(Shape::scalar(F32));
    let ai = b.param(Shape::scalar(S32));
    let xv = b.param(Shape::scalar(F32));
    let xi = b.param(Shape::scalar(S32));
    let gt = Op::Compare {
        direction: ComparisonDirection::Gt,
        total_order: false,
    };
    let take = b.op(gt, &[xv, av], Shape::scalar(Pred));
    let v = b.op(Op::Select, &[take, xv, av], Shape::scalar(F32));
    let i = b.op(Op::Select, &[take, xi, ai], Shape::scalar(S32));
    let t = b.op(
        Op::Tuple,
        &[v, i],
        Shape::Tuple(vec![Shape::scalar(F32), Shape::scalar(S32)]),
    );
    let argmax = Arc::new(b.build(t));

    let mut b = B::new();
    let x = b.param(arr(F32, &[2, 4]));
    let idx = b.op(Op::Iota { dimension: 1 }, &[], arr(S32, &[2, 4]));
    let init_v = b.op(
        Op::Constant(Literal::scalar(f32::NEG_INFINITY)),
        &[],
        Shape::scalar(F32),
    );
    let init_i = b.op(
        Op::Constant(Literal::scalar(-1i32)),
        &[],
        Shape::scalar(S32),
    );
    let out_shape = Shape::Tuple(vec![arr(F32, &[2]), arr(S32, &[2])]);
    let red = b.op(
        Op::Reduce {
            dimensions: vec![1],
            computation: argmax,
        },
        &[x, idx, init_v, init_i],
        out_shape,
    );
    let gi = b.op(Op::GetTupleElement { index: 1 }, &[red], arr(S32, &[2]));
    let c = b.build(gi);
    let data = lit(&[2, 4], vec![1f32, 9., 3., 9., -4., -2., -3., -8.]);
    assert_eq!(evaluate(&c, &[data]).unwrap(), lit(&[2], vec![1i32, 1]));
}

#[test]
fn dot_general_matmul_and_batch() {
    let dn = |lc: i64, rc: i64, batch: bool| DotDimensionNumbers {
        lhs_contracting_dimensions: vec![lc],
        rhs_contracting_dimensions: vec![rc],
        lhs_batch_dimensions: if batch { vec![0] } else { vec![] },
        rhs_batch_dimensions: if batch { vec![0] } else { vec![] },
    };
    let dot = |d, p| Op::DotGeneral {
        dimension_numbers: d,
        preferred_element_type: p,
    };
    // [[1,2,3],[4,5,6]] x [[1,0],[0,1],[1,1]] = [[4,5],[10,11]].
    let a = lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let b = lit(&[3, 2], vec![1f32, 0., 0., 1., 1., 1.]);
    let out = run1(
        dot(dn(1, 0, false), None),
        &[a.clone(), b],
        arr(F32, &[2, 2]),
    );
    assert_eq!(out, lit(&[2, 2], vec![4f32, 5., 10., 11.]));
    // Contracting dim 1 with dim 1: a x a^T = [[14, 32], [32, 77]].
    let out = run1(
        dot(dn(1, 1, false), None),
        &[a.clone(), a],
        arr(F32, &[2, 2]),
    );
    assert_eq!(out, lit(&[2, 2], vec![14f32, 32., 32., 77.]));
    // Batched: lhs s32[2,2,3], rhs s32[2,3,1] -> s32[2,2,1].
    let l = lit(&[2, 2, 3], (1..=12).collect::<Vec<i32>>());
    let r = lit(&[2, 3, 1], vec![1i32, 1, 1, 1, 0, -1]);
    let out = run1(dot(dn(2, 1, true), None), &[l, r], arr(S32, &[2, 2, 1]));
    // Batch 0: rows sums 6, 15; batch 1: 7 - 9, 10 - 12.
    assert_eq!(out, lit(&[2, 2, 1], vec![6i32, 15, -2, -2]));
    // Outer product (no contracting dims).
    let outer = DotDimensionNumbers::default();
    let out = run1(
        dot(outer, None),
        &[lit(&[2], vec![1i32, 2]), lit(&[2], vec![3i32, 4])],
        arr(S32, &[2, 2]),
    );
    assert_eq!(out, lit(&[2, 2], vec![3i32, 4, 6, 8]));
}

#[test]
fn dot_general_accumulation_types() {
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![0],
        rhs_contracting_dimensions: vec![0],
        lhs_batch_dimensions: vec![],
        rhs_batch_dimensions: vec![],
    };
    let dot = |p| Op::DotGeneral {
        dimension_numbers: dn.clone(),
        preferred_element_type: p,
    };
    // f16: 2048 + 1 + 1 accumulated in f16 would stay 2048 (ties to even); in f32 it is 2050.
    let h = |v: &[f32]| {
        lit(
            &[v.len() as i64],
            v.iter().map(|&x| f16::from_f32(x)).collect(),
        )
    };
    let out = run1(
        dot(None),
        &[h(&[2048., 1., 1.]), h(&[1., 1., 1.])],
        Shape::scalar(F16),
    );
    assert_eq!(out, Literal::scalar(f16::from_f32(2050.0)));
    // s8 operands with preferred s32: 100*2 + 100*2 = 400 does not wrap.
    let s = |v: Vec<i8>| lit(&[2], v);
    let out = run1(
        dot(Some(S32)),
        &[s(vec![100, 100]), s(vec![2, 2])],
        Shape::scalar(S32),
    );
    assert_eq!(out, Literal::scalar(400i32));
    // Without it the s8 result wraps: 400 mod 256 = 144 -> -112.
    let out = run1(
        dot(None),
        &[s(vec![100, 100]), s(vec![2, 2])],
        Shape::scalar(S8),
    );
    assert_eq!(out, Literal::scalar(-112i8));
    // c64: (1+i)(1-i) + i*i = 2 - 1 = 1.
    let z = lit(&[2], vec![Complex::new(1f32, 1.), Complex::new(0., 1.)]);
    let w = lit(&[2], vec![Complex::new(1f32, -1.), Complex::new(0., 1.)]);
    let out = run1(dot(None), &[z, w], Shape::scalar(C64));
    assert_eq!(out, Literal::scalar(Complex::new(1f32, 0.)));
}

#[test]
fn tuple_get_tuple_element_and_call() {
    // callee(a, b) = a * b; main(x) = call(callee, x, x) + 1.
    let mut b = B::new();
    let p0 = b.param(arr(F64, &[2]));
    let p1 = b.param(arr(F64, &[2]));
    let r = b.op(Op::Binary(BinaryOp::Mul), &[p0, p1], arr(F64, &[2]));
    let callee = Arc::new(b.build(r));

    let mut b = B::new();
    let x = b.param(arr(F64, &[2]));
    let sq = b.op(
        Op::Call {
            computation: callee,
            composite: None,
        },
        &[x, x],
        arr(F64, &[2]),
    );
    let one = b.op(Op::Constant(lit(&[2], vec![1f64, 1.])), &[], arr(F64, &[2]));
    let s = b.op(Op::Binary(BinaryOp::Add), &[sq, one], arr(F64, &[2]));
    let t = b.op(
        Op::Tuple,
        &[s, x],
        Shape::Tuple(vec![arr(F64, &[2]), arr(F64, &[2])]),
    );
    let g = b.op(Op::GetTupleElement { index: 0 }, &[t], arr(F64, &[2]));
    let c = b.build(t);
    let out = evaluate(&c, &[lit(&[2], vec![3f64, -2.])]).unwrap();
    assert_eq!(
        out,
        Literal::Tuple(vec![lit(&[2], vec![10f64, 5.]), lit(&[2], vec![3f64, -2.])])
    );
    let mut c2 = c;
    c2.root = g;
    assert_eq!(
        evaluate(&c2, &[lit(&[2], vec![1f64, 0.])]).unwrap(),
        lit(&[2], vec![2f64, 1.])
    );
}

#[test]
fn errors_never_panics() {
    let mut b = B::new();
    let x = b.param(arr(F32, &[2]));
    let r = b.op(Op::Unary(UnaryOp::Neg), &[x], arr(F32, &[2]));
    let c = b.build(r);
    // Wrong argument count and shapes.
    assert!(evaluate(&c, &[]).is_err());
    assert!(evaluate(&c, &[lit(&[3], vec![1f32, 2., 3.])]).is_err());
    let e = evaluate(&c, &[lit(&[2], vec![1i32, 2])]).unwrap_err();
    assert!(
        e.message.contains("f32[2]") && e.message.contains("s32[2]"),
        "{e}"
    );
    // Operand defined after its use.
    let bad = Computation {
        name: "bad".into(),
        params: vec![],
        instrs: vec![Instruction {
            op: Op::Unary(UnaryOp::Neg),
            operands: vec![InstrId(5)],
            shape: arr(F32, &[]),
        }],
        root: InstrId(0),
    };
    assert!(evaluate(&bad, &[]).is_err());
    // Inconsistent IR: mismatched binary operands, bad permutation, wrong declared shape,
    // out-of-range dims, bad bitcast, bad reduce dims.
    let fails = |op: Op, args: &[Literal], out: Shape| {
        let mut b = B::new();
        let ps: Vec<InstrId> = args.iter().map(|a| b.param(a.shape())).collect();
        let r = b.op(op, &ps, out);
        evaluate(&b.build(r), args).unwrap_err()
    };
    let v2 = lit(&[2], vec![1f32, 2.]);
    let v3 = lit(&[3], vec![1f32, 2., 3.]);
    let e = fails(
        Op::Binary(BinaryOp::Add),
        &[v2.clone(), v3.clone()],
        arr(F32, &[2]),
    );
    assert!(e.message.contains("f32[2] vs f32[3]"), "{e}");
    assert_eq!(e.op, "Add");
    fails(
        Op::Transpose {
            permutation: vec![0, 0],
        },
        &[lit(&[1, 1], vec![1f32])],
        arr(F32, &[1, 1]),
    );
    fails(
        Op::Unary(UnaryOp::Neg),
        std::slice::from_ref(&v2),
        arr(F32, &[3]),
    );
    fails(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![4],
        },
        std::slice::from_ref(&v2),
        arr(F32, &[2, 2]),
    );
    fails(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![0],
        },
        std::slice::from_ref(&v3),
        arr(F32, &[2]),
    );
    fails(
        Op::BitcastConvertType,
        std::slice::from_ref(&v3),
        arr(U16, &[3]),
    );
    fails(Op::Reshape, std::slice::from_ref(&v3), arr(F32, &[2]));
    fails(Op::Iota { dimension: 3 }, &[], arr(S32, &[2]));
    fails(Op::Iota { dimension: 0 }, &[], arr(S32, &[-2]));
    fails(
        Op::Iota { dimension: 0 },
        &[],
        arr(S32, &[i64::MAX, i64::MAX, 4]),
    );
    fails(
        Op::GetTupleElement { index: 0 },
        std::slice::from_ref(&v2),
        arr(F32, &[2]),
    );
    let red = Op::Reduce {
        dimensions: vec![1],
        computation: reducer(F32, BinaryOp::Add),
    };
    fails(
        red,
        &[v2.clone(), Literal::scalar(0f32)],
        Shape::scalar(F32),
    );
    let red = Op::Reduce {
        dimensions: vec![0],
        computation: reducer(F32, BinaryOp::Add),
    };
    fails(
        red,
        &[v2.clone(), Literal::scalar(0i32)],
        Shape::scalar(F32),
    );
    let dot = Op::DotGeneral {
        dimension_numbers: DotDimensionNumbers {
            lhs_contracting_dimensions: vec![0],
            rhs_contracting_dimensions: vec![0],
            lhs_batch_dimensions: vec![],
            rhs_batch_dimensions: vec![],
        },
        preferred_element_type: None,
    };
    let e = fails(dot, &[v2, v3], Shape::scalar(F32));
    assert!(e.message.contains("contracting"), "{e}");
}
