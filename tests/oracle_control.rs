//! Oracle tests of control flow: While and Conditional programs made with the builder, run
//! through our reference evaluator (`xla_core::eval::evaluate`) and through XLA:CPU (the
//! exported `stablehlo.while` / `stablehlo.if` / `stablehlo.case`, compiled by jaxlib in
//! `target/oracle-venv`), on many element types. Every case must be bit-exact (NaN matches any
//! NaN). If XLA cannot be started every test FAILS, saying why.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_control` (`bash oracle/setup.sh` creates the venv).

use std::sync::Arc;

use xla_aot::core::builder::{Builder, XlaOp};
use xla_aot::core::{
    ArrayShape, BinaryOp, ComparisonDirection, Computation, ElementType, Error, Literal, Shape,
    UnaryOp,
};
use xla_oracle::{check_shared, random_literal, Dist, EvalCase, Tolerance};

use xla_oracle::Check::Close;
use ElementType::*;

/// Cases per XLA compilation: compiling dominates the run time, so cases are merged into one
/// computation returning a tuple of their results (see [`xla_oracle::merge`]).
const CHUNK: usize = 48;

type R<T> = Result<T, Error>;

/// A computation `name` of these parameters whose root `f` builds.
fn comp(
    name: &str,
    params: &[&Shape],
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> R<XlaOp>,
) -> R<Arc<Computation>> {
    let mut b = Builder::new(name);
    let mut ps = Vec::with_capacity(params.len());
    for (i, p) in params.iter().enumerate() {
        ps.push(b.parameter(i, (*p).clone(), &format!("p{i}"))?);
    }
    let root = f(&mut b, &ps)?;
    Ok(Arc::new(b.build(root)?))
}

/// The computation itself (each case owns its own).
fn owned(c: Arc<Computation>) -> Computation {
    Arc::try_unwrap(c).unwrap_or_else(|c| (*c).clone())
}

fn arr(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims)
}

fn s32() -> Shape {
    Shape::scalar(S32)
}

/// Random inputs of `ty[dims]`.
fn rand(ty: ElementType, dims: &[i64], seed: u64, dist: Dist) -> Literal {
    random_literal(&ArrayShape::new(ty, dims), seed, dist)
}

/// The constant `v` as a `ty[]` (an s32 constant converted).
fn konst(b: &mut Builder, ty: ElementType, v: i32) -> R<XlaOp> {
    let c = b.constant(Literal::scalar(v));
    if ty == S32 {
        Ok(c)
    } else {
        b.convert(c, ty)
    }
}

const INTS: [ElementType; 8] = [S8, S16, S32, S64, U8, U16, U32, U64];
const FLOATS: [ElementType; 4] = [F16, Bf16, F32, F64];
const COMPLEX: [ElementType; 2] = [C64, C128];

fn all_types() -> Vec<ElementType> {
    [&INTS[..], &FLOATS[..], &COMPLEX[..]].concat()
}

/// The second update of the counting loop: `*` except for complex (`-`: XLA's complex product
/// rounds differently from ours, by an ulp, which the loop would compound).
fn prod_op(ty: ElementType) -> BinaryOp {
    if ty.is_complex() {
        BinaryOp::Sub
    } else {
        BinaryOp::Mul
    }
}

/// State `(s32 i, s32 n, T[4] acc, T[4] prod, T[4] x)`: `while i < n { i += 1; acc += x;
/// prod = prod * x }`; the result is the final state.
fn counting_loop(ty: ElementType) -> R<Arc<Computation>> {
    let v = arr(ty, &[4]);
    let state = Shape::Tuple(vec![s32(), s32(), v.clone(), v.clone(), v]);
    let cond = comp("cond", &[&state], |b, p| {
        let i = b.get_tuple_element(p[0], 0)?;
        let n = b.get_tuple_element(p[0], 1)?;
        b.compare(ComparisonDirection::Lt, false, i, n, None)
    })?;
    let body = comp("body", &[&state], |b, p| {
        let e: Vec<XlaOp> = (0..5)
            .map(|k| b.get_tuple_element(p[0], k))
            .collect::<R<_>>()?;
        let one = b.constant(Literal::scalar(1i32));
        let i = b.binary(BinaryOp::Add, e[0], one, None)?;
        let acc = b.binary(BinaryOp::Add, e[2], e[4], None)?;
        let prod = b.binary(prod_op(ty), e[3], e[4], None)?;
        b.tuple(&[i, e[1], acc, prod, e[4]])
    })?;
    comp(&format!("count_{ty}"), &[&state], |b, p| {
        b.while_loop(&cond, &body, p[0])
    })
}

/// The counting loop's initial state: `i`, `n`, then random acc, prod and step.
fn counting_init(ty: ElementType, i: i32, n: i32, seed: u64) -> Literal {
    let (acc, prod, x) = if ty.is_integral() {
        (Dist::Special, Dist::Special, Dist::Special)
    } else {
        // Steps in [0.5, 2] from products in [1, 10]: no subnormals (XLA:CPU flushes them).
        (Dist::Special, Dist::Range(1.0, 10.0), Dist::Range(0.5, 2.0))
    };
    Literal::Tuple(vec![
        Literal::scalar(i),
        Literal::scalar(n),
        rand(ty, &[4], seed, acc),
        rand(ty, &[4], seed + 1, prod),
        rand(ty, &[4], seed + 2, x),
    ])
}

#[test]
fn counting_loops_match_xla() -> R<()> {
    let mut cases = Vec::new();
    for (k, ty) in all_types().into_iter().enumerate() {
        let c = counting_loop(ty)?;
        // (i, n): 7 iterations, 1, none (i = n), none (i > n), none (n negative).
        for (j, (i, n)) in [(0, 7), (3, 4), (5, 5), (9, 2), (0, -3)]
            .into_iter()
            .enumerate()
        {
            cases.push(EvalCase {
                name: format!("while/count/{ty}/i={i}/n={n}"),
                comp: owned(Arc::clone(&c)),
                args: vec![counting_init(ty, i, n, (100 * k + 10 * j) as u64)],
                check: Close(Tolerance::Exact),
            });
        }
    }
    check_shared("counting loops", cases, CHUNK);
    Ok(())
}

/// How a power iteration step scales `w = a v` back.
#[derive(Clone, Copy, Debug)]
enum Norm {
    /// `v = w / |w|_2`: the textbook step (its dot and sum round in an order of their own).
    Two,
    /// `v = w / 2^floor(log2 max|w|)` (the power of two from max|w|'s exponent bits, by a
    /// bitcast): with an integer-valued `a` in [-1, 1] every product, sum and quotient is exact
    /// while the bits last, so the result is the same in any summation order.
    PowerOfTwo,
}

/// The signed integer type of `ty`'s width and the mask of its exponent bits.
fn exponent_mask(ty: ElementType) -> (ElementType, Literal) {
    match ty {
        F16 => (S16, Literal::scalar(0x7C00i16)),
        Bf16 => (S16, Literal::scalar(0x7F80i16)),
        F32 => (S32, Literal::scalar(0x7F80_0000i32)),
        F64 => (S64, Literal::scalar(0x7FF0_0000_0000_0000i64)),
        other => panic!("no exponent mask for {other}"),
    }
}

/// State `(s32 k, s32 steps, T[4,4] a, T[4] v)`: `while k < steps { w = a v; v = w / norm(w);
/// k += 1 }`; the result is `v`.
fn power_iteration(ty: ElementType, norm: Norm) -> R<Computation> {
    let (m, v) = (arr(ty, &[4, 4]), arr(ty, &[4]));
    let state = Shape::Tuple(vec![s32(), s32(), m, v]);
    let add = comp("add", &[&Shape::scalar(ty), &Shape::scalar(ty)], |b, p| {
        b.binary(BinaryOp::Add, p[0], p[1], None)
    })?;
    let max = comp("max", &[&Shape::scalar(ty), &Shape::scalar(ty)], |b, p| {
        b.binary(BinaryOp::Max, p[0], p[1], None)
    })?;
    let cond = comp("cond", &[&state], |b, p| {
        let k = b.get_tuple_element(p[0], 0)?;
        let n = b.get_tuple_element(p[0], 1)?;
        b.compare(ComparisonDirection::Lt, false, k, n, None)
    })?;
    let body = comp("body", &[&state], |b, p| {
        let e: Vec<XlaOp> = (0..4)
            .map(|k| b.get_tuple_element(p[0], k))
            .collect::<R<_>>()?;
        let w = b.dot(e[2], e[3], None)?;
        let zero = konst(b, ty, 0)?;
        let scale = match norm {
            Norm::Two => {
                let sq = b.binary(BinaryOp::Mul, w, w, None)?;
                let s = b.reduce(&[sq], &[zero], &add, &[0])?;
                b.unary(UnaryOp::Sqrt, s)?
            }
            Norm::PowerOfTwo => {
                let a = b.unary(UnaryOp::Abs, w)?;
                let top = b.reduce(&[a], &[zero], &max, &[0])?;
                let (int, mask) = exponent_mask(ty);
                let bits = b.bitcast_convert(top, int)?;
                let mask = b.constant(mask);
                let exp = b.binary(BinaryOp::And, bits, mask, None)?;
                b.bitcast_convert(exp, ty)?
            }
        };
        let v = b.binary(BinaryOp::Div, w, scale, None)?;
        let one = b.constant(Literal::scalar(1i32));
        let k = b.binary(BinaryOp::Add, e[0], one, None)?;
        b.tuple(&[k, e[1], e[2], v])
    })?;
    let c = comp(&format!("power_{ty}_{norm:?}"), &[&state], |b, p| {
        let w = b.while_loop(&cond, &body, p[0])?;
        b.get_tuple_element(w, 3)
    })?;
    Ok(owned(c))
}

/// Integer values in `[-r, r]` as a float array.
fn int_valued(ty: ElementType, dims: &[i64], seed: u64, r: f64) -> Literal {
    let ints = rand(S32, dims, seed, Dist::Range(-r, r));
    xla_oracle::ints_as(ty, &ints).unwrap_or_else(|| panic!("no integer-valued {ty}"))
}

/// Power iterations, bit-exact when the arithmetic is exact ([`Norm::PowerOfTwo`], steps within
/// each type's bits: `w` needs about 2 bits more than `v` per step); the 2-norm step is compared
/// within 4 ulps, because XLA:CPU's 4-term dot and sum round in another order than ours (1-2
/// ulps per step measured, on the matvec alone as well: not a property of the loop).
#[test]
fn power_iteration_matches_xla() -> R<()> {
    let mut cases = Vec::new();
    let exact_steps: [(ElementType, &[i32]); 4] = [
        (F16, &[0, 1, 3]),
        (Bf16, &[0, 1, 2]),
        (F32, &[0, 1, 4, 8]),
        (F64, &[0, 1, 8, 20]),
    ];
    for (k, (ty, steps)) in exact_steps.into_iter().enumerate() {
        for &n in steps {
            let seed = 1000 + 10 * k as u64 + n as u64;
            let init = Literal::Tuple(vec![
                Literal::scalar(0i32),
                Literal::scalar(n),
                int_valued(ty, &[4, 4], seed, 1.0),
                int_valued(ty, &[4], seed + 1, 2.0),
            ]);
            cases.push(EvalCase {
                name: format!("while/power_iteration/power_of_two/{ty}/steps={n}"),
                comp: power_iteration(ty, Norm::PowerOfTwo)?,
                args: vec![init],
                check: Close(Tolerance::Exact),
            });
        }
    }
    for (k, ty) in FLOATS.into_iter().enumerate() {
        for n in [0, 1, 3, 8] {
            let seed = 1500 + 10 * k as u64 + n as u64;
            let init = Literal::Tuple(vec![
                Literal::scalar(0i32),
                Literal::scalar(n),
                rand(ty, &[4, 4], seed, Dist::Range(0.5, 2.0)),
                rand(ty, &[4], seed + 1, Dist::Range(0.5, 2.0)),
            ]);
            cases.push(EvalCase {
                name: format!("while/power_iteration/two_norm/{ty}/steps={n}"),
                comp: power_iteration(ty, Norm::Two)?,
                args: vec![init],
                check: Close(Tolerance::Ulp(4)),
            });
        }
    }
    check_shared("power iteration", cases, CHUNK);
    Ok(())
}

/// `Conditional(p, x, |x| x + x, (a, b), |(a, b)| a * b)` on `T[3]` (`a - b` for complex).
fn pred_conditional(ty: ElementType) -> R<Computation> {
    let v = arr(ty, &[3]);
    let pair = Shape::Tuple(vec![v.clone(), v.clone()]);
    let double = comp("double", &[&v], |b, p| {
        b.binary(BinaryOp::Add, p[0], p[0], None)
    })?;
    let combine = comp("combine", &[&pair], |b, p| {
        let a = b.get_tuple_element(p[0], 0)?;
        let c = b.get_tuple_element(p[0], 1)?;
        b.binary(prod_op(ty), a, c, None)
    })?;
    let c = comp(
        &format!("if_{ty}"),
        &[&Shape::scalar(Pred), &v, &pair],
        |b, p| b.conditional(p[0], p[1], &double, p[2], &combine),
    )?;
    Ok(owned(c))
}

/// Three branches on `T[2]`, each returning `(T[2], s32 tag)`: `(x + 1, 0)`, `(x * x, 1)`,
/// `(-x, 2)` (`x - x` for complex in branch 1).
fn indexed_conditional(ty: ElementType) -> R<Computation> {
    let v = arr(ty, &[2]);
    let tagged = |b: &mut Builder, x: XlaOp, tag: i32| -> R<XlaOp> {
        let t = b.constant(Literal::scalar(tag));
        b.tuple(&[x, t])
    };
    let inc = comp("inc", &[&v], |b, p| {
        let one = konst(b, ty, 1)?;
        let x = b.binary(BinaryOp::Add, p[0], one, None)?;
        tagged(b, x, 0)
    })?;
    let square = comp("square", &[&v], |b, p| {
        let x = b.binary(prod_op(ty), p[0], p[0], None)?;
        tagged(b, x, 1)
    })?;
    let neg = comp("neg", &[&v], |b, p| {
        let x = b.unary(UnaryOp::Neg, p[0])?;
        tagged(b, x, 2)
    })?;
    let c = comp(&format!("case_{ty}"), &[&s32(), &v, &v, &v], |b, p| {
        b.conditional_indexed(p[0], &[inc, square, neg], &[p[1], p[2], p[3]])
    })?;
    Ok(owned(c))
}

#[test]
fn conditionals_match_xla() -> R<()> {
    let mut cases = Vec::new();
    for (k, ty) in all_types().into_iter().enumerate() {
        let seed = 2000 + 20 * k as u64;
        for p in [true, false] {
            cases.push(EvalCase {
                name: format!("conditional/pred/{ty}/{p}"),
                comp: pred_conditional(ty)?,
                args: vec![
                    Literal::scalar(p),
                    rand(ty, &[3], seed, Dist::Special),
                    Literal::Tuple(vec![
                        rand(ty, &[3], seed + 1, Dist::Special),
                        rand(ty, &[3], seed + 2, Dist::Special),
                    ]),
                ],
                check: Close(Tolerance::Exact),
            });
        }
        for (j, i) in [0, 1, 2, -1, -7, 3, 1000, i32::MIN, i32::MAX]
            .into_iter()
            .enumerate()
        {
            let s = seed + 3 + 3 * j as u64;
            cases.push(EvalCase {
                name: format!("conditional/index/{ty}/{i}"),
                comp: indexed_conditional(ty)?,
                args: vec![
                    Literal::scalar(i),
                    rand(ty, &[2], s, Dist::Special),
                    rand(ty, &[2], s + 1, Dist::Special),
                    rand(ty, &[2], s + 2, Dist::Special),
                ],
                check: Close(Tolerance::Exact),
            });
        }
    }
    check_shared("conditionals", cases, CHUNK);
    Ok(())
}

/// State `(T n, s32 steps)`: Collatz steps until `n == 1` (a pred Conditional in the body
/// halves even `n` and maps odd `n` to `3n + 1`); stops early after 1000 steps.
fn collatz(ty: ElementType) -> R<Computation> {
    let t = Shape::scalar(ty);
    let state = Shape::Tuple(vec![t.clone(), s32()]);
    let cond = comp("cond", &[&state], |b, p| {
        let n = b.get_tuple_element(p[0], 0)?;
        let k = b.get_tuple_element(p[0], 1)?;
        let one = konst(b, ty, 1)?;
        let cap = b.constant(Literal::scalar(1000i32));
        let more = b.compare(ComparisonDirection::Ne, false, n, one, None)?;
        let room = b.compare(ComparisonDirection::Lt, false, k, cap, None)?;
        b.binary(BinaryOp::And, more, room, None)
    })?;
    let half = comp("half", &[&t], |b, p| {
        let two = konst(b, ty, 2)?;
        b.binary(BinaryOp::Div, p[0], two, None)
    })?;
    let triple = comp("triple", &[&t], |b, p| {
        let three = konst(b, ty, 3)?;
        let one = konst(b, ty, 1)?;
        let x = b.binary(BinaryOp::Mul, p[0], three, None)?;
        b.binary(BinaryOp::Add, x, one, None)
    })?;
    let body = comp("body", &[&state], |b, p| {
        let n = b.get_tuple_element(p[0], 0)?;
        let k = b.get_tuple_element(p[0], 1)?;
        let two = konst(b, ty, 2)?;
        let zero = konst(b, ty, 0)?;
        let r = b.binary(BinaryOp::Rem, n, two, None)?;
        let even = b.compare(ComparisonDirection::Eq, false, r, zero, None)?;
        let n = b.conditional(even, n, &half, n, &triple)?;
        let one = b.constant(Literal::scalar(1i32));
        let k = b.binary(BinaryOp::Add, k, one, None)?;
        b.tuple(&[n, k])
    })?;
    let c = comp(&format!("collatz_{ty}"), &[&state], |b, p| {
        b.while_loop(&cond, &body, p[0])
    })?;
    Ok(owned(c))
}

/// `n` as a `ty[]` literal.
fn int_scalar(ty: ElementType, n: i64) -> Literal {
    match ty {
        S16 => Literal::scalar(n as i16),
        S32 => Literal::scalar(n as i32),
        S64 => Literal::scalar(n),
        U16 => Literal::scalar(n as u16),
        U32 => Literal::scalar(n as u32),
        U64 => Literal::scalar(n as u64),
        F32 => Literal::scalar(n as f32),
        F64 => Literal::scalar(n as f64),
        other => panic!("no Collatz start for {other}"),
    }
}

/// An index Conditional whose branches are loops: branch 0 runs the counting loop, branch 1
/// returns the state as it is, branch 2 runs the counting loop twice (with `n` doubled).
fn loops_in_branches(ty: ElementType) -> R<Computation> {
    let count = counting_loop(ty)?;
    let state = count.params[0].clone();
    let run = comp("run", &[&state], |b, p| b.call(&count, &[p[0]]))?;
    let id = comp("id", &[&state], |_, p| Ok(p[0]))?;
    let twice = comp("twice", &[&state], |b, p| {
        let first = b.call(&count, &[p[0]])?;
        let e: Vec<XlaOp> = (0..5)
            .map(|k| b.get_tuple_element(first, k))
            .collect::<R<_>>()?;
        let two = b.constant(Literal::scalar(2i32));
        let n = b.binary(BinaryOp::Mul, e[1], two, None)?;
        let again = b.tuple(&[e[0], n, e[2], e[3], e[4]])?;
        b.call(&count, &[again])
    })?;
    let c = comp(
        &format!("loops_in_branches_{ty}"),
        &[&s32(), &state],
        |b, p| b.conditional_indexed(p[0], &[run, id, twice], &[p[1], p[1], p[1]]),
    )?;
    Ok(owned(c))
}

#[test]
fn loops_and_conditionals_nested_match_xla() -> R<()> {
    let mut cases = Vec::new();
    for ty in [S16, S32, S64, U16, U32, U64, F32, F64] {
        for n in [1i64, 2, 6, 27, 97, 871] {
            cases.push(EvalCase {
                name: format!("collatz/{ty}/{n}"),
                comp: collatz(ty)?,
                args: vec![Literal::Tuple(vec![
                    int_scalar(ty, n),
                    Literal::scalar(0i32),
                ])],
                check: Close(Tolerance::Exact),
            });
        }
    }
    for (k, ty) in [S32, U8, F32, Bf16, C64].into_iter().enumerate() {
        for (j, branch) in [0, 1, 2, 5].into_iter().enumerate() {
            cases.push(EvalCase {
                name: format!("loops_in_branches/{ty}/{branch}"),
                comp: loops_in_branches(ty)?,
                args: vec![
                    Literal::scalar(branch),
                    counting_init(ty, 0, 3, (3000 + 10 * k + j) as u64),
                ],
                check: Close(Tolerance::Exact),
            });
        }
    }
    check_shared("nested control flow", cases, CHUNK);
    Ok(())
}

/// OptimizationBarrier passes its operands through (one: itself; several: their tuple) and
/// AfterAll makes and joins tokens, on every type: XLA runs the exported
/// `stablehlo.optimization_barrier` / `stablehlo.after_all`.
#[test]
fn optimization_barriers_and_tokens_match_xla() -> R<()> {
    let mut cases = Vec::new();
    for (k, ty) in all_types().into_iter().enumerate() {
        let c = comp(
            &format!("barrier_{ty}"),
            &[&arr(ty, &[3, 4]), &arr(ty, &[5])],
            |b, p| {
                let fresh = b.after_all(&[])?;
                let _joined = b.after_all(&[fresh, fresh])?;
                let both = b.optimization_barrier(&[p[0], p[1]])?;
                let x = b.get_tuple_element(both, 0)?;
                let y = b.get_tuple_element(both, 1)?;
                let x1 = b.optimization_barrier(&[x])?;
                let sum = b.binary(BinaryOp::Add, x1, x, None)?;
                b.tuple(&[sum, y])
            },
        )?;
        cases.push(EvalCase {
            name: format!("opt-barrier/{ty}"),
            comp: owned(c),
            args: vec![
                rand(ty, &[3, 4], 7 * k as u64, Dist::Special),
                rand(ty, &[5], 7 * k as u64 + 1, Dist::Special),
            ],
            check: Close(Tolerance::Exact),
        });
    }
    check_shared("barriers and tokens", cases, CHUNK);
    Ok(())
}

/// CompositeCall runs its decomposition: XLA compiles the exported `stablehlo.composite`
/// (name, attributes, version and `decomposition = @fn`) on every type.
#[test]
fn composite_calls_match_xla() -> R<()> {
    let mut cases = Vec::new();
    for (k, ty) in all_types().into_iter().enumerate() {
        let dims: &[i64] = &[2, 5];
        let decomposition = comp(
            &format!("add_{ty}"),
            &[&arr(ty, dims), &arr(ty, dims)],
            |b, p| {
                // One add: XLA contracts `a * b + b` into an FMA and simplifies `(a + b) - b`.
                b.binary(BinaryOp::Add, p[0], p[1], None)
            },
        )?;
        let c = comp(
            &format!("composite_{ty}"),
            &[&arr(ty, dims), &arr(ty, dims)],
            |b, p| {
                let once = b.composite_call(
                    &decomposition,
                    &[p[0], p[1]],
                    xla_aot::core::Composite {
                        name: "my_lib.add".into(),
                        attributes: "{alpha = 1 : i64, mode = \"fused\"}".into(),
                        version: 1,
                    },
                )?;
                b.composite_call(
                    &decomposition,
                    &[once, p[0]],
                    xla_aot::core::Composite {
                        name: "my_lib.add".into(),
                        attributes: String::new(),
                        version: 0,
                    },
                )
            },
        )?;
        cases.push(EvalCase {
            name: format!("composite/{ty}"),
            comp: owned(c),
            args: vec![
                rand(ty, dims, 11 * k as u64, Dist::Special),
                rand(ty, dims, 11 * k as u64 + 1, Dist::Special),
            ],
            check: Close(Tolerance::Exact),
        });
    }
    check_shared("composite calls", cases, CHUNK);
    Ok(())
}
