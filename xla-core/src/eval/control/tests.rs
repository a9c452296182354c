//! While and Conditional in the evaluator, programs made with the builder: loops with tuple
//! state, zero-trip loops, a power iteration, a loop around a conditional, both Conditional
//! forms with every kind of selector, and errors (inside a body or branch, or a malformed IR)
//! that come back as `Err`.

use std::sync::Arc;

use super::super::evaluate;
use crate::builder::{Builder, XlaOp};
use crate::element::ElementType::{self, *};
use crate::error::Result;
use crate::ir::{BinaryOp, ComparisonDirection, Computation, InstrId, Instruction, Op, UnaryOp};
use crate::literal::{ArrayElement, Literal};
use crate::shape::Shape;

fn lit<T: ArrayElement>(dims: &[i64], v: Vec<T>) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}

/// A computation `name` of these parameters whose root `f` builds.
fn comp(
    name: &str,
    params: &[&Shape],
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Arc<Computation> {
    let mut b = Builder::new(name);
    let ps: Vec<XlaOp> = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.parameter(i, (*p).clone(), &format!("p{i}")).unwrap())
        .collect();
    let root = f(&mut b, &ps).unwrap();
    Arc::new(b.build(root).unwrap())
}

fn scalar(ty: ElementType) -> Shape {
    Shape::scalar(ty)
}

/// `(s32 i, f32[4] acc)`: `while i < limit { i += 1; acc += step }`.
fn counting_loop(limit: i32) -> Computation {
    let state = Shape::Tuple(vec![scalar(S32), Shape::array(F32, &[4])]);
    let cond = comp("cond", &[&state], |b, p| {
        let i = b.get_tuple_element(p[0], 0)?;
        let n = b.constant(Literal::scalar(limit));
        b.compare(ComparisonDirection::Lt, false, i, n, None)
    });
    let body = comp("body", &[&state], |b, p| {
        let i = b.get_tuple_element(p[0], 0)?;
        let acc = b.get_tuple_element(p[0], 1)?;
        let one = b.constant(Literal::scalar(1i32));
        let step = b.constant(lit(&[4], vec![1.0f32, 0.5, 2.0, -1.0]));
        let i = b.binary(BinaryOp::Add, i, one, None)?;
        let acc = b.binary(BinaryOp::Add, acc, step, None)?;
        b.tuple(&[i, acc])
    });
    let c = comp("main", &[&state], |b, p| b.while_loop(&cond, &body, p[0]));
    Arc::try_unwrap(c).unwrap()
}

fn state(i: i32, acc: [f32; 4]) -> Literal {
    Literal::Tuple(vec![Literal::scalar(i), lit(&[4], acc.to_vec())])
}

#[test]
fn counting_loop_with_tuple_state() {
    let c = counting_loop(5);
    let out = evaluate(&c, &[state(0, [0.0; 4])]).unwrap();
    assert_eq!(out, state(5, [5.0, 2.5, 10.0, -5.0]));
    // Starting part-way: two iterations left.
    let out = evaluate(&c, &[state(3, [1.0, 1.0, 1.0, 1.0])]).unwrap();
    assert_eq!(out, state(5, [3.0, 2.0, 5.0, -1.0]));
}

#[test]
fn loop_that_runs_zero_times_returns_init() {
    let c = counting_loop(5);
    for i in [5, 6, i32::MAX] {
        let init = state(i, [1.5, -2.0, 0.25, 7.0]);
        assert_eq!(evaluate(&c, std::slice::from_ref(&init)).unwrap(), init);
    }
}

/// `(s32 k, f32[3,3] a, f32[3] v)`: `steps` times `v = a v / |a v|`.
fn power_iteration(steps: i32) -> Computation {
    let state = Shape::Tuple(vec![
        scalar(S32),
        Shape::array(F32, &[3, 3]),
        Shape::array(F32, &[3]),
    ]);
    let add = comp("add", &[&scalar(F32), &scalar(F32)], |b, p| {
        b.binary(BinaryOp::Add, p[0], p[1], None)
    });
    let cond = comp("cond", &[&state], |b, p| {
        let k = b.get_tuple_element(p[0], 0)?;
        let n = b.constant(Literal::scalar(steps));
        b.compare(ComparisonDirection::Lt, false, k, n, None)
    });
    let body = comp("body", &[&state], |b, p| {
        let k = b.get_tuple_element(p[0], 0)?;
        let a = b.get_tuple_element(p[0], 1)?;
        let v = b.get_tuple_element(p[0], 2)?;
        let w = b.dot(a, v, None)?;
        let sq = b.binary(BinaryOp::Mul, w, w, None)?;
        let zero = b.constant(Literal::scalar(0.0f32));
        let s = b.reduce(&[sq], &[zero], &add, &[0])?;
        let norm = b.unary(UnaryOp::Sqrt, s)?;
        let v = b.binary(BinaryOp::Div, w, norm, None)?;
        let one = b.constant(Literal::scalar(1i32));
        let k = b.binary(BinaryOp::Add, k, one, None)?;
        b.tuple(&[k, a, v])
    });
    let c = comp("main", &[&state], |b, p| b.while_loop(&cond, &body, p[0]));
    Arc::try_unwrap(c).unwrap()
}

#[test]
fn power_iteration_normalised_matvec() {
    let a = [2.0f32, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0];
    let v0 = [1.0f32, 1.0, 1.0];
    let steps = 6;
    let init = Literal::Tuple(vec![
        Literal::scalar(0i32),
        lit(&[3, 3], a.to_vec()),
        lit(&[3], v0.to_vec()),
    ]);
    let out = evaluate(&power_iteration(steps), &[init]).unwrap();
    let Literal::Tuple(parts) = out else {
        panic!("not a tuple")
    };
    assert_eq!(parts[0], Literal::scalar(steps));
    assert_eq!(parts[1], lit(&[3, 3], a.to_vec()));
    // The same iteration in f64.
    let mut v: Vec<f64> = v0.iter().map(|&x| f64::from(x)).collect();
    for _ in 0..steps {
        let w: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| f64::from(a[3 * i + j]) * v[j]).sum())
            .collect();
        let n = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        v = w.iter().map(|x| x / n).collect();
    }
    let got = parts[2].as_slice::<f32>().unwrap();
    for (g, want) in got.iter().zip(&v) {
        assert!((f64::from(*g) - want).abs() < 1e-6, "{got:?} vs {v:?}");
    }
    let norm: f32 = got.iter().map(|x| x * x).sum();
    assert!((norm - 1.0).abs() < 1e-6);
}

/// `(s32 n, s32 steps)`: Collatz steps to reach 1, the step a pred Conditional inside the body.
fn collatz() -> Computation {
    let s = scalar(S32);
    let state = Shape::Tuple(vec![s.clone(), s.clone()]);
    let cond = comp("cond", &[&state], |b, p| {
        let n = b.get_tuple_element(p[0], 0)?;
        let one = b.constant(Literal::scalar(1i32));
        b.compare(ComparisonDirection::Ne, false, n, one, None)
    });
    let half = comp("half", &[&s], |b, p| {
        let two = b.constant(Literal::scalar(2i32));
        b.binary(BinaryOp::Div, p[0], two, None)
    });
    let triple = comp("triple", &[&s], |b, p| {
        let three = b.constant(Literal::scalar(3i32));
        let one = b.constant(Literal::scalar(1i32));
        let t = b.binary(BinaryOp::Mul, p[0], three, None)?;
        b.binary(BinaryOp::Add, t, one, None)
    });
    let body = comp("body", &[&state], |b, p| {
        let n = b.get_tuple_element(p[0], 0)?;
        let k = b.get_tuple_element(p[0], 1)?;
        let two = b.constant(Literal::scalar(2i32));
        let zero = b.constant(Literal::scalar(0i32));
        let one = b.constant(Literal::scalar(1i32));
        let r = b.binary(BinaryOp::Rem, n, two, None)?;
        let even = b.compare(ComparisonDirection::Eq, false, r, zero, None)?;
        let n = b.conditional(even, n, &half, n, &triple)?;
        let k = b.binary(BinaryOp::Add, k, one, None)?;
        b.tuple(&[n, k])
    });
    let c = comp("main", &[&state], |b, p| b.while_loop(&cond, &body, p[0]));
    Arc::try_unwrap(c).unwrap()
}

#[test]
fn loop_around_a_conditional() {
    let c = collatz();
    for (n, steps) in [(1, 0), (2, 1), (6, 8), (27, 111), (97, 118)] {
        let init = Literal::Tuple(vec![Literal::scalar(n), Literal::scalar(0i32)]);
        let out = evaluate(&c, &[init]).unwrap();
        let want = Literal::Tuple(vec![Literal::scalar(1i32), Literal::scalar(steps)]);
        assert_eq!(out, want, "collatz({n})");
    }
}

/// `Conditional(p, x, |x| x + x, y, |(y,)| convert(y))` with x: f32[3], y: (s32[3]).
fn pred_conditional() -> Computation {
    let f3 = Shape::array(F32, &[3]);
    let yt = Shape::Tuple(vec![Shape::array(S32, &[3])]);
    let double = comp("double", &[&f3], |b, p| {
        b.binary(BinaryOp::Add, p[0], p[0], None)
    });
    let to_f32 = comp("to_f32", &[&yt], |b, p| {
        let y = b.get_tuple_element(p[0], 0)?;
        b.convert(y, F32)
    });
    let c = comp("main", &[&scalar(Pred), &f3, &yt], |b, p| {
        b.conditional(p[0], p[1], &double, p[2], &to_f32)
    });
    Arc::try_unwrap(c).unwrap()
}

#[test]
fn conditional_pred_both_ways() {
    let c = pred_conditional();
    let x = lit(&[3], vec![1.5f32, -2.0, 0.0]);
    let y = Literal::Tuple(vec![lit(&[3], vec![7i32, -8, 9])]);
    let run = |p: bool| evaluate(&c, &[Literal::scalar(p), x.clone(), y.clone()]).unwrap();
    assert_eq!(run(true), lit(&[3], vec![3.0f32, -4.0, 0.0]));
    assert_eq!(run(false), lit(&[3], vec![7.0f32, -8.0, 9.0]));
}

/// Three branches on s32[2]: `x + 1`, `x * 2`, `-x`.
fn indexed_conditional() -> Computation {
    let v = Shape::array(S32, &[2]);
    let inc = comp("inc", &[&v], |b, p| {
        let one = b.constant(Literal::scalar(1i32));
        b.binary(BinaryOp::Add, p[0], one, None)
    });
    let dbl = comp("dbl", &[&v], |b, p| {
        let two = b.constant(Literal::scalar(2i32));
        b.binary(BinaryOp::Mul, p[0], two, None)
    });
    let neg = comp("neg", &[&v], |b, p| b.unary(UnaryOp::Neg, p[0]));
    let c = comp("main", &[&scalar(S32), &v], |b, p| {
        b.conditional_indexed(p[0], &[inc, dbl, neg], &[p[1], p[1], p[1]])
    });
    Arc::try_unwrap(c).unwrap()
}

#[test]
fn conditional_index_in_range_negative_and_too_large() {
    let c = indexed_conditional();
    let x = lit(&[2], vec![5i32, -3]);
    let run = |i: i32| evaluate(&c, &[Literal::scalar(i), x.clone()]).unwrap();
    assert_eq!(run(0), lit(&[2], vec![6i32, -2]));
    assert_eq!(run(1), lit(&[2], vec![10i32, -6]));
    assert_eq!(run(2), lit(&[2], vec![-5i32, 3]));
    // Out of range, negative included: the last branch.
    for i in [-1, 3, 4, 100, i32::MIN, i32::MAX] {
        assert_eq!(run(i), lit(&[2], vec![-5i32, 3]), "index {i}");
    }
}

/// A computation `s32[] -> s32[]` that fails when evaluated: its root claims s32[] but is an
/// f32 constant.
fn broken(name: &str) -> Arc<Computation> {
    let s = scalar(S32);
    Arc::new(Computation {
        name: name.into(),
        params: vec![s.clone()],
        instrs: vec![
            Instruction {
                op: Op::Parameter {
                    index: 0,
                    name: "x".into(),
                },
                operands: vec![],
                shape: s.clone(),
            },
            Instruction {
                op: Op::Constant(Literal::scalar(1.0f32)),
                operands: vec![],
                shape: s,
            },
        ],
        root: InstrId(1),
    })
}

#[test]
fn only_the_chosen_branch_runs() {
    let s = scalar(S32);
    let id = comp("id", &[&s], |_, p| Ok(p[0]));
    let c = comp("main", &[&s, &s], |b, p| {
        b.conditional_indexed(p[0], &[id.clone(), broken("bad")], &[p[1], p[1]])
    });
    let run = |i: i32| evaluate(&c, &[Literal::scalar(i), Literal::scalar(42i32)]);
    assert_eq!(run(0).unwrap(), Literal::scalar(42i32));
    let e = run(1).unwrap_err();
    assert_eq!(e.op, "Conditional");
    assert!(e.message.contains("branch 1 `bad`"), "{e}");
    // -1 runs the last branch, the broken one.
    assert!(run(-1).is_err());
}

#[test]
fn errors_in_the_body_or_condition_end_the_loop() {
    let s = scalar(S32);
    let below3 = comp("below3", &[&s], |b, p| {
        let three = b.constant(Literal::scalar(3i32));
        b.compare(ComparisonDirection::Lt, false, p[0], three, None)
    });
    let c = comp("main", &[&s], |b, p| {
        b.while_loop(&below3, &broken("bad_body"), p[0])
    });
    let e = evaluate(&c, &[Literal::scalar(0i32)]).unwrap_err();
    assert_eq!(e.op, "While");
    assert!(e.message.contains("body `bad_body` at iteration 0"), "{e}");
    // The condition is false at once: the broken body never runs.
    assert_eq!(
        evaluate(&c, &[Literal::scalar(5i32)]).unwrap(),
        Literal::scalar(5i32)
    );
    // An argument that is not the loop state.
    assert!(evaluate(&c, &[Literal::scalar(0.0f32)]).is_err());
}

/// A hand-made computation `main(params) = op(params)` with the given result shape, skipping
/// shape inference.
fn raw(op: Op, params: &[Shape], out: Shape) -> Computation {
    let mut instrs: Vec<Instruction> = params
        .iter()
        .enumerate()
        .map(|(i, p)| Instruction {
            op: Op::Parameter {
                index: i,
                name: format!("p{i}"),
            },
            operands: vec![],
            shape: p.clone(),
        })
        .collect();
    instrs.push(Instruction {
        op,
        operands: (0..params.len() as u32).map(InstrId).collect(),
        shape: out,
    });
    Computation {
        name: "raw".into(),
        params: params.to_vec(),
        root: InstrId(params.len() as u32),
        instrs,
    }
}

#[test]
fn malformed_control_flow_is_an_error_not_a_panic() {
    let s = scalar(S32);
    let id = comp("id", &[&s], |_, p| Ok(p[0]));
    // A condition returning s32[] instead of pred[].
    let w = raw(
        Op::While {
            condition: id.clone(),
            body: id.clone(),
        },
        std::slice::from_ref(&s),
        s.clone(),
    );
    let e = evaluate(&w, &[Literal::scalar(1i32)]).unwrap_err();
    assert!(e.message.contains("not a pred[]"), "{e}");
    // A While with two operands.
    let w2 = raw(
        Op::While {
            condition: id.clone(),
            body: id.clone(),
        },
        &[s.clone(), s.clone()],
        s.clone(),
    );
    let one = Literal::scalar(1i32);
    assert!(evaluate(&w2, &[one.clone(), one.clone()]).is_err());
    let cond = |branches: Vec<Arc<Computation>>, params: &[Shape]| {
        raw(Op::Conditional { branches }, params, s.clone())
    };
    // An f32 selector, a pred selector with 3 branches, a missing operand, no branches.
    let c = cond(vec![id.clone()], &[scalar(F32), s.clone()]);
    assert!(evaluate(&c, &[Literal::scalar(0.0f32), one.clone()]).is_err());
    let c = cond(
        vec![id.clone(); 3],
        &[scalar(Pred), s.clone(), s.clone(), s.clone()],
    );
    let args = [Literal::scalar(true), one.clone(), one.clone(), one.clone()];
    assert!(evaluate(&c, &args).is_err());
    let c = cond(vec![id.clone(); 2], &[s.clone(), s.clone()]);
    assert!(evaluate(&c, &[one.clone(), one.clone()]).is_err());
    let c = cond(vec![], std::slice::from_ref(&s));
    assert!(evaluate(&c, std::slice::from_ref(&one)).is_err());
    // A branch given an operand of the wrong shape.
    let c = cond(vec![id], &[s.clone(), scalar(F32)]);
    assert!(evaluate(&c, &[one, Literal::scalar(0.0f32)]).is_err());
}

#[test]
fn builder_rejects_bad_control_flow() {
    let s = scalar(S32);
    let id = comp("id", &[&s], |_, p| Ok(p[0]));
    let mut b = Builder::new("main");
    let x = b.parameter(0, s.clone(), "x").unwrap();
    let f = b.parameter(1, scalar(F32), "f").unwrap();
    // The pred form wants a pred, the indexed form an s32.
    let e = b.conditional(x, x, &id, x, &id).unwrap_err();
    assert!(e.message.contains("must be pred[]"), "{e}");
    let t = b.constant(Literal::scalar(true));
    let e = b
        .conditional_indexed(t, std::slice::from_ref(&id), &[x])
        .unwrap_err();
    assert!(e.message.contains("must be s32[]"), "{e}");
    // An operand of the wrong shape; a body as condition.
    assert!(b
        .conditional_indexed(x, std::slice::from_ref(&id), &[f])
        .is_err());
    assert!(b.while_loop(&id, &id, x).is_err());
    // Nothing was appended by the failures.
    assert_eq!(b.len(), 3);
}
