//! Evaluator tests of Rev, Slice, Pad and Concatenate on several element types, empty
//! dimensions, negative edge and interior padding, and malformed IR (an `Err`, never a panic).

use half::f16;
use num_complex::Complex;

use crate::builder::{Builder, XlaOp};
use crate::element::ElementType::{self, *};
use crate::error::Result;
use crate::eval::evaluate;
use crate::ir::{Computation, InstrId, Instruction, Op, PadDim};
use crate::literal::{ArrayElement, Literal};
use crate::shape::Shape;

fn lit<T: ArrayElement>(dims: &[i64], v: Vec<T>) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}

fn pd(low: i64, high: i64, interior: i64) -> PadDim {
    PadDim {
        low,
        high,
        interior,
    }
}

/// Builds `f(builder, params)` over parameters of `shapes` and evaluates it on `args`.
fn run(
    shapes: &[(ElementType, &[i64])],
    args: &[Literal],
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Literal {
    let mut b = Builder::new("t");
    let params: Vec<XlaOp> = shapes
        .iter()
        .enumerate()
        .map(|(i, (ty, dims))| b.parameter(i, Shape::array(*ty, dims), "p").unwrap())
        .collect();
    let root = f(&mut b, &params).unwrap();
    evaluate(&b.build(root).unwrap(), args).unwrap()
}

#[test]
fn rev_reverses_each_listed_dimension() {
    let x = lit(&[2, 3], (0..6).collect::<Vec<i32>>());
    let r = run(&[(S32, &[2, 3])], std::slice::from_ref(&x), |b, p| {
        b.rev(p[0], &[1])
    });
    assert_eq!(r, lit(&[2, 3], vec![2, 1, 0, 5, 4, 3]));
    let r = run(&[(S32, &[2, 3])], std::slice::from_ref(&x), |b, p| {
        b.rev(p[0], &[0, 1])
    });
    assert_eq!(r, lit(&[2, 3], vec![5, 4, 3, 2, 1, 0]));
    let r = run(&[(S32, &[2, 3])], std::slice::from_ref(&x), |b, p| {
        b.rev(p[0], &[])
    });
    assert_eq!(r, x);
    let p = lit(&[3], vec![true, false, false]);
    let r = run(&[(Pred, &[3])], &[p], |b, p| b.rev(p[0], &[0]));
    assert_eq!(r, lit(&[3], vec![false, false, true]));
    let h: Vec<f16> = [1.0f32, -0.0, 2.5]
        .iter()
        .map(|&v| f16::from_f32(v))
        .collect();
    let mut hr = h.clone();
    hr.reverse();
    let r = run(&[(F16, &[3, 1])], &[lit(&[3, 1], h)], |b, p| {
        b.rev(p[0], &[0, 1])
    });
    assert_eq!(r, lit(&[3, 1], hr));
    let e = lit(&[2, 0], Vec::<Complex<f32>>::new());
    let r = run(&[(C64, &[2, 0])], std::slice::from_ref(&e), |b, p| {
        b.rev(p[0], &[0, 1])
    });
    assert_eq!(r, e);
    let s = lit(&[], vec![7u64]);
    assert_eq!(
        run(&[(U64, &[])], std::slice::from_ref(&s), |b, p| b
            .rev(p[0], &[])),
        s
    );
}

#[test]
fn seed_slice_examples_evaluate() {
    let a = lit(&[5], vec![0.0f32, 1.0, 2.0, 3.0, 4.0]);
    let r = run(&[(F32, &[5])], &[a], |b, p| b.slice(p[0], &[2], &[4], None));
    assert_eq!(r, lit(&[2], vec![2.0f32, 3.0]));
    let m = lit(&[4, 3], (0..12).map(|v| v as f32).collect::<Vec<_>>());
    let r = run(&[(F32, &[4, 3])], &[m], |b, p| {
        b.slice(p[0], &[2, 1], &[4, 3], None)
    });
    assert_eq!(r, lit(&[2, 2], vec![7.0f32, 8.0, 10.0, 11.0]));
}

#[test]
fn slice_with_strides_and_to_empty() {
    let x = lit(&[3, 5], (0..15).collect::<Vec<i8>>());
    let r = run(&[(S8, &[3, 5])], std::slice::from_ref(&x), |b, p| {
        b.slice(p[0], &[0, 1], &[3, 5], Some(&[2, 3]))
    });
    assert_eq!(r, lit(&[2, 2], vec![1i8, 4, 11, 14]));
    let r = run(&[(S8, &[3, 5])], std::slice::from_ref(&x), |b, p| {
        b.slice(p[0], &[1, 2], &[2, 5], Some(&[5, i64::MAX]))
    });
    assert_eq!(r, lit(&[1, 1], vec![7i8]));
    let r = run(&[(S8, &[3, 5])], &[x], |b, p| {
        b.slice(p[0], &[1, 5], &[3, 5], None)
    });
    assert_eq!(r, lit(&[2, 0], Vec::<i8>::new()));
    let c = lit(
        &[4],
        (0..4).map(|v| Complex::new(v as f32, -v as f32)).collect(),
    );
    let r = run(&[(C64, &[4])], &[c], |b, p| {
        b.slice(p[0], &[1], &[4], Some(&[2]))
    });
    assert_eq!(
        r,
        lit(
            &[2],
            vec![Complex::new(1.0f32, -1.0), Complex::new(3.0, -3.0)]
        )
    );
}

#[test]
fn pad_edges_and_interior() {
    let x = lit(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let nine = lit(&[], vec![9i32]);
    let shapes: &[(ElementType, &[i64])] = &[(S32, &[2, 3]), (S32, &[])];
    // Interior first, then edges: rows [1,2,3] / pad / [4,5,6], then low 1 row.
    let r = run(shapes, &[x.clone(), nine.clone()], |b, p| {
        b.pad(p[0], p[1], &[pd(1, 0, 1), pd(0, 0, 0)])
    });
    assert_eq!(r, lit(&[4, 3], vec![9, 9, 9, 1, 2, 3, 9, 9, 9, 4, 5, 6]));
    // Negative edges cut from the interior-padded operand: [1,9,2,9,3] -> cut 1 low, 2 high.
    let r = run(shapes, &[x.clone(), nine.clone()], |b, p| {
        b.pad(p[0], p[1], &[pd(0, -1, 0), pd(-1, -2, 1)])
    });
    assert_eq!(r, lit(&[1, 2], vec![9, 2]));
    // Mixed: high 2 along dim 0, low -2 with interior 2 along dim 1: [1,9,9,2,9,9,3] -> [9,2,9,9,3].
    let r = run(shapes, &[x.clone(), nine.clone()], |b, p| {
        b.pad(p[0], p[1], &[pd(-1, 1, 0), pd(-2, 0, 2)])
    });
    assert_eq!(r, lit(&[2, 5], vec![9, 5, 9, 9, 6, 9, 9, 9, 9, 9]));
    // Everything removed.
    let r = run(shapes, &[x, nine], |b, p| {
        b.pad(p[0], p[1], &[pd(-2, 0, 0), pd(0, 0, 0)])
    });
    assert_eq!(r, lit(&[0, 3], Vec::<i32>::new()));
}

#[test]
fn pad_other_types_and_empty_operands() {
    let p = lit(&[2], vec![true, true]);
    let f = lit(&[], vec![false]);
    let r = run(&[(Pred, &[2]), (Pred, &[])], &[p, f], |b, p| {
        b.pad(p[0], p[1], &[pd(1, 1, 2)])
    });
    assert_eq!(r, lit(&[6], vec![false, true, false, false, true, false]));
    let h = lit(&[0], Vec::<f16>::new());
    let one = lit(&[], vec![f16::ONE]);
    let r = run(&[(F16, &[0]), (F16, &[])], &[h, one], |b, p| {
        b.pad(p[0], p[1], &[pd(2, 1, 3)])
    });
    assert_eq!(r, lit(&[3], vec![f16::ONE; 3]));
    let c = lit(&[1], vec![Complex::new(1.0f32, 2.0)]);
    let z = lit(&[], vec![Complex::new(0.5f32, -0.5)]);
    let r = run(&[(C64, &[1]), (C64, &[])], &[c, z], |b, p| {
        b.pad(p[0], p[1], &[pd(0, 1, 4)])
    });
    assert_eq!(
        r,
        lit(
            &[2],
            vec![Complex::new(1.0f32, 2.0), Complex::new(0.5, -0.5)]
        )
    );
    let s = lit(&[], vec![3u16]);
    let r = run(
        &[(U16, &[]), (U16, &[])],
        &[s.clone(), s.clone()],
        |b, p| b.pad(p[0], p[1], &[]),
    );
    assert_eq!(r, s);
}

#[test]
fn seed_concat_examples_evaluate() {
    let parts = [vec![2i32, 3], vec![4, 5], vec![6, 7]];
    let args: Vec<Literal> = parts.iter().map(|v| lit(&[2], v.clone())).collect();
    let two: (ElementType, &[i64]) = (S32, &[2]);
    let r = run(&[two; 3], &args, |b, p| b.concat_in_dim(p, 0));
    assert_eq!(r, lit(&[6], vec![2, 3, 4, 5, 6, 7]));
    let a = lit(&[3, 2], vec![1i32, 2, 3, 4, 5, 6]);
    let b2 = lit(&[1, 2], vec![7i32, 8]);
    let r = run(&[(S32, &[3, 2]), (S32, &[1, 2])], &[a, b2], |b, p| {
        b.concat_in_dim(p, 0)
    });
    assert_eq!(r, lit(&[4, 2], (1..=8).collect::<Vec<i32>>()));
}

#[test]
fn concat_along_inner_dimension_with_an_empty_operand() {
    let a = lit(&[2, 2], vec![true, false, false, true]);
    let e = lit(&[2, 0], Vec::<bool>::new());
    let c = lit(&[2, 1], vec![true, true]);
    let shapes: &[(ElementType, &[i64])] = &[(Pred, &[2, 2]), (Pred, &[2, 0]), (Pred, &[2, 1])];
    let r = run(shapes, &[a, e, c], |b, p| b.concat_in_dim(p, 1));
    assert_eq!(r, lit(&[2, 3], vec![true, false, true, false, true, true]));
    let h = |v: &[f32]| -> Vec<f16> { v.iter().map(|&x| f16::from_f32(x)).collect() };
    let x = lit(&[1, 2], h(&[1.0, 2.0]));
    let y = lit(&[1, 2], h(&[3.0, 4.0]));
    let r = run(&[(F16, &[1, 2]), (F16, &[1, 2])], &[x, y], |b, p| {
        b.concat_in_dim(p, 0)
    });
    assert_eq!(r, lit(&[2, 2], h(&[1.0, 2.0, 3.0, 4.0])));
    let z = lit(&[0, 3], Vec::<Complex<f64>>::new());
    let r = run(
        &[(C128, &[0, 3]), (C128, &[0, 3])],
        &[z.clone(), z],
        |b, p| b.concat_in_dim(p, 0),
    );
    assert_eq!(r, lit(&[0, 3], Vec::<Complex<f64>>::new()));
}

/// A hand-made computation `op(params)` with the instruction shape `out`.
fn hand(params: &[Shape], op: Op, out: Shape) -> Computation {
    let mut instrs: Vec<Instruction> = params
        .iter()
        .enumerate()
        .map(|(index, s)| Instruction {
            op: Op::Parameter {
                index,
                name: format!("p{index}"),
            },
            operands: vec![],
            shape: s.clone(),
        })
        .collect();
    instrs.push(Instruction {
        op,
        operands: (0..params.len() as u32).map(InstrId).collect(),
        shape: out,
    });
    Computation {
        name: "bad".into(),
        params: params.to_vec(),
        root: InstrId(params.len() as u32),
        instrs,
    }
}

#[test]
fn malformed_ir_is_an_error() {
    let v = Shape::array(F32, &[3]);
    let x = lit(&[3], vec![1.0f32, 2.0, 3.0]);
    let check = |c: Computation, args: &[Literal], op: &str, part: &str| {
        let e = evaluate(&c, args).unwrap_err();
        assert_eq!(e.op, op, "{e}");
        assert!(e.to_string().contains(part), "{e}");
    };
    let rev = Op::Rev {
        dimensions: vec![1],
    };
    check(
        hand(std::slice::from_ref(&v), rev, v.clone()),
        std::slice::from_ref(&x),
        "Rev",
        "out of range",
    );
    let slice = Op::Slice {
        start_indices: vec![1],
        limit_indices: vec![4],
        strides: vec![1],
    };
    check(
        hand(std::slice::from_ref(&v), slice, v.clone()),
        std::slice::from_ref(&x),
        "Slice",
        "limit_indices",
    );
    let slice = Op::Slice {
        start_indices: vec![0],
        limit_indices: vec![3],
        strides: vec![1],
    };
    let wrong = Shape::array(F32, &[2]);
    check(
        hand(std::slice::from_ref(&v), slice, wrong),
        std::slice::from_ref(&x),
        "Slice",
        "f32[3]",
    );
    let pad = Op::Pad {
        config: vec![pd(0, 0, -1)],
    };
    let f = Shape::scalar(F32);
    let one = lit(&[], vec![1.0f32]);
    check(
        hand(&[v.clone(), f.clone()], pad, v.clone()),
        &[x.clone(), one.clone()],
        "Pad",
        "interior",
    );
    let pad = Op::Pad {
        config: vec![pd(0, 0, 0)],
    };
    check(
        hand(std::slice::from_ref(&v), pad, v.clone()),
        std::slice::from_ref(&x),
        "Pad",
        "operands",
    );
    let cat = Op::Concatenate { dimension: 0 };
    check(
        hand(&[], cat, v.clone()),
        &[],
        "ConcatInDim",
        "at least one operand",
    );
    let cat = Op::Concatenate { dimension: 0 };
    let s = Shape::array(S32, &[3]);
    let xs = lit(&[3], vec![1i32, 2, 3]);
    check(
        hand(&[v.clone(), s], cat, Shape::array(F32, &[6])),
        &[x, xs],
        "ConcatInDim",
        "f32[3] vs s32[3]",
    );
}
