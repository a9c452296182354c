//! Oracle test of whole generated programs: the three programs of issue #2 (add_rows,
//! dense_relu at batch 1 and 8 with f32[8,784]x[784,128], row_softmax on f32[32,1000]),
//! tuples and GetTupleElement (tuple results and a tuple parameter), Call (both spellings),
//! layouts `{0,1}` inside fused programs, the operator sugar, fused chains of converts,
//! compares and selects, and sizes above the rayon threshold (`PAR_MIN_ELEMENTS`), each run
//! through the generated code, the evaluator and XLA:CPU (see `common`).
//!
//! Programs with a Dot or a float Reduce are bit-exact on integer-valued inputs (every partial
//! sum exact) and within the forward-error bound of a sum in any order on random reals
//! (`Tol::Forward`); the rest is bit-exact or within the op's ulp bound.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_programs`.

mod common;

use common::{args_with, check_all, gen_bound, int_valued, reduce_tol, Case, Tol};
use xla_aot::core::ElementType::{self, F32};
use xla_aot::{Literal, Tensor, D1, D2};
use xla_oracle::{random_literal, Dist};

xla_aot::xla! {
    /// The seed's first example.
    pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [1])
    }

    pub fn dense_relu_1(x: f32[1, 784], w: f32[784, 128], b: f32[128]) -> f32[1, 128] {
        let h = Dot(x, w);
        let h = Add(h, b, broadcast_dimensions = [1]);
        Max(h, 0.0)
    }

    pub fn dense_relu_8(x: f32[8, 784], w: f32[784, 128], b: f32[128]) -> f32[8, 128] {
        let h = Dot(x, w);
        let h = Add(h, b, broadcast_dimensions = [1]);
        Max(h, 0.0)
    }

    /// A CustomCall of a Rust fn of this crate (`softplus_shift` below) between fused ops...
    pub fn custom_softplus(x: f32[16, 33], b: f32[33]) -> f32[16, 33] {
        let y = CustomCall(x * 0.5, b, call_target_name = "softplus_shift", shape = f32[16, 33]);
        Tanh(y) - x
    }

    /// ...and the same program with the target's maths written as ops: what XLA runs.
    pub fn custom_softplus_ops(x: f32[16, 33], b: f32[33]) -> f32[16, 33] {
        let z = Add(x * 0.5, b, broadcast_dimensions = [1]);
        let y = Max(z, 0.0) + Log1p(Exp(Neg(Abs(z))));
        Tanh(y) - x
    }

    /// A CustomCall with a tuple result (`square_and_count` below): one result view per leaf,
    /// the leaves read apart by GetTupleElement and the field sugar...
    pub fn custom_tuple(x: f32[8, 5], k: s32[8]) -> (f32[8, 5], s32[8]) {
        let t = CustomCall(x, k, call_target_name = "square_and_count", shape = (f32[8, 5], s32[8]));
        Tuple(Sqrt(GetTupleElement(t, index = 0)), t.1 * 2)
    }

    /// ...and the target's maths as ops.
    pub fn custom_tuple_ops(x: f32[8, 5], k: s32[8]) -> (f32[8, 5], s32[8]) {
        let sq = x * x + 1.0;
        let pos = ConvertElementType(Gt(x, 0.0), new_element_type = s32);
        let n = Reduce(pos, 0, dimensions = [1], |a, b| a + b) + k;
        Tuple(Sqrt(sq), n * 2)
    }

    pub fn row_softmax(x: f32[32, 1000]) -> f32[32, 1000] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }
}

xla_aot::xla! {
    fn square(x: f32[17]) -> f32[17] { x * x }

    /// Call in both spellings, twice, and a tuple result holding a tuple.
    pub fn calls(x: f32[17], i: s32[3]) -> (f32[17], (f32[17], s32[3])) {
        let a = Call(square, x);
        let b = square(a);
        Tuple(a, Tuple(b, i))
    }

    /// A tuple parameter taken apart and put back together in another order.
    pub fn tuple_param(t: (f32[17], s32[3]), u: u8[2]) -> (s32[3], f32[17], u8[2]) {
        let f = GetTupleElement(t, index = 0);
        Tuple(GetTupleElement(t, index = 1), Neg(f), u)
    }

    /// Column-major parameter and result around a fused elementwise region.
    pub fn layouts(x: f32[17, 33]{0, 1}, y: f32[17, 33]) -> f32[17, 33]{0, 1} {
        Add(Mul(x, 2.0), y)
    }

    /// Column-major in, transposed out: the transpose is a change of strides.
    pub fn layout_transpose(x: f64[3, 100]{0, 1}) -> f64[100, 3] {
        Transpose(Exp(x), permutation = [1, 0])
    }

    /// The operator sugar on integers: `+ - * / % & | ^ << >>`, unary `-` and `!`.
    pub fn int_sugar(x: s32[3, 33], y: s32[3, 33]) -> s32[3, 33] {
        let a = x + y * 3 - (x / 7) % 5;
        let b = (a & y) | (x ^ -y);
        let c = (b << (y & 7)) >> (x & 3);
        !c
    }

    /// `>>` on unsigned values, and comparisons as sugar feeding a Select.
    pub fn uint_sugar(x: u16[3, 33], y: u16[3, 33]) -> u16[3, 33] {
        let s = (x >> (y & 15)) + (x << 2);
        Select(x < y, s, Select(x == y, x, y % 7))
    }

    /// A fused chain of converts, compares, selects and broadcasts.
    pub fn fused_chain(x: f32[5, 33], i: s32[33], p: pred[5, 33]) -> f64[5, 33] {
        let fi = ConvertElementType(i, new_element_type = f32);
        let z = Add(x, fi, broadcast_dimensions = [1]);
        let y = Select(Gt(z, 0.0), Exp(Neg(z)), Abs(z));
        let y = Select(p, y, -y);
        ConvertElementType(y, new_element_type = f64) * 0.5
    }

    /// Reshape and BroadcastInDim feeding an elementwise region.
    pub fn reshape_fused(x: f32[3, 5, 2], v: f32[10]) -> f32[3, 10] {
        let r = Reshape(x, new_sizes = [3, 10]);
        let b = BroadcastInDim(v, out_dim_size = [3, 10], broadcast_dimensions = [1]);
        Max(r, b) - Min(r, b)
    }
}

// Sizes above the rayon threshold (`PAR_MIN_ELEMENTS` = 32768 elements).
xla_aot::xla! {
    /// The benchmark's `tanh(2x + 1)`, on 33 * 1000 = 33000 elements.
    pub fn tanh_affine(x: f32[33, 1000]) -> f32[33, 1000] {
        Tanh(2.0 * x + 1.0)
    }

    pub fn row_sum(x: f32[40, 1000]) -> f32[40] {
        Reduce(x, 0.0, dimensions = [1], |a, b| a + b)
    }

    pub fn col_sum(x: f32[40, 1000]) -> f32[1000] {
        Reduce(x, 0.0, dimensions = [0], |a, b| a + b)
    }

    pub fn big_int_add(x: s64[200, 200], y: s64[200]) -> s64[200, 200] {
        Add(x, y, broadcast_dimensions = [0])
    }
}

/// A case on integer values in [-r, r] (exact for dots and sums) and one on random reals in
/// [lo, hi] (forward-error bound).
fn dot_like(v: &mut Vec<Case>, g: common::Gen, r: f64, lo: f64, hi: f64) {
    let args = args_with(g, |i, s| int_valued(s.ty, &s.dims, 70 + i as u64, r));
    v.push(Case::new(g, "int-valued", args, Tol::Exact));
    let args = args_with(g, |i, s| {
        random_literal(s, 71 + i as u64, Dist::Range(lo, hi))
    });
    v.push(Case::new(g, "reals", args, reduce_tol(F32)));
}

fn tol(op: &str, ty: ElementType) -> Tol {
    gen_bound(op, ty)
}

#[test]
fn generated_programs_match_xla() {
    let mut v = Vec::new();
    v.push(Case::random(
        gen!("add_rows", add_rows),
        &[Dist::Special],
        1,
        Tol::Exact,
    ));
    // Reals in [0, 1): no cancellation, so a relative tolerance is meaningful (with signed
    // inputs, sums near zero have any relative error in any order).
    let dense = [
        gen!("dense_relu/batch1", dense_relu_1),
        gen!("dense_relu/batch8", dense_relu_8),
    ];
    for g in dense {
        dot_like(&mut v, g, 2.0, 0.0, 1.0);
    }
    // Softmax of values in [-10, 10] (exp in range); the rows' sums of 1000 positive terms are in
    // another order than XLA's: a sum of n positive terms in any order is within a relative
    // (n - 1) u of the exact sum (u = eps / 2), exp within 1 ulp, the division within u, so two
    // orders agree within about (n + 2) eps.
    v.push(Case::random(
        gen!("row_softmax", row_softmax),
        &[Dist::Any],
        2,
        Tol::Rel(1002.0 * f64::from(f32::EPSILON)),
    ));
    v.push(Case::random(
        gen!("calls", calls),
        &[Dist::Special],
        3,
        Tol::Exact,
    ));
    v.push(Case::random(
        gen!("tuple_param", tuple_param),
        &[Dist::Special],
        4,
        Tol::Exact,
    ));
    v.push(Case::random(
        gen!("layouts", layouts),
        &[Dist::Special],
        5,
        Tol::Exact,
    ));
    v.push(Case::random(
        gen!("layout_transpose", layout_transpose),
        &[Dist::Range(-5.0, 5.0)],
        6,
        tol("exp", ElementType::F64),
    ));
    v.push(Case::random(
        gen!("int_sugar", int_sugar),
        &[Dist::Special],
        7,
        Tol::Exact,
    ));
    v.push(Case::random(
        gen!("uint_sugar", uint_sugar),
        &[Dist::Any],
        8,
        Tol::Exact,
    ));
    v.push(Case::random(
        gen!("fused_chain", fused_chain),
        &[Dist::Special, Dist::Range(-20.0, 20.0), Dist::Any],
        9,
        // Exp in f32 is within 1 ulp (`xla_oracle::bounds::ULP_BOUNDS`), i.e. a relative 2^-23, which the exact
        // conversion to f64 and the halving keep (in f64 ulps it would be 2^29 of them).
        Tol::Rel(f64::from(f32::EPSILON)),
    ));
    v.push(Case::random(
        gen!("reshape_fused", reshape_fused),
        &[Dist::Special],
        10,
        Tol::Exact,
    ));
    v.push(Case::random(
        gen!("tanh_affine", tanh_affine),
        &[Dist::Any],
        11,
        tol("tanh", F32),
    ));
    dot_like(&mut v, gen!("row_sum", row_sum), 2.0, 0.0, 1.0);
    dot_like(&mut v, gen!("col_sum", col_sum), 2.0, 0.0, 1.0);
    v.push(Case::random(
        gen!("big_int_add", big_int_add),
        &[Dist::Special],
        12,
        Tol::Exact,
    ));
    check_all("generated programs", v);
}

/// The allocating fn, the allocation-free `into` and `run_literals` are the same code: equal bits.
/// The CustomCall target: `out = softplus(x + b)` (rows of `x` plus `b`), written as the
/// stable form `max(z, 0) + ln(1 + e^-|z|)`, in f32 like the ops XLA runs.
fn softplus_shift(
    x: xla_aot::TensorView<'_, f32, D2<16, 33>>,
    b: xla_aot::TensorView<'_, f32, D1<33>>,
    mut out: xla_aot::TensorViewMut<'_, f32, D2<16, 33>>,
) {
    let (x, b) = (x.as_slice(), b.as_slice());
    for (i, o) in out.as_mut_slice().iter_mut().enumerate() {
        let z = x[i] + b[i % 33];
        *o = z.max(0.0) + (-z.abs()).exp().ln_1p();
    }
}

/// The tuple-result CustomCall target: `sq = x^2 + 1` and `n[i] = k[i] + #{j : x[i][j] > 0}`.
fn square_and_count(
    x: xla_aot::TensorView<'_, f32, D2<8, 5>>,
    k: xla_aot::TensorView<'_, i32, D1<8>>,
    mut sq: xla_aot::TensorViewMut<'_, f32, D2<8, 5>>,
    mut n: xla_aot::TensorViewMut<'_, i32, D1<8>>,
) {
    let x = x.as_slice();
    for (o, &v) in sq.as_mut_slice().iter_mut().zip(x) {
        *o = v * v + 1.0;
    }
    for (i, (o, &k)) in n.as_mut_slice().iter_mut().zip(k.as_slice()).enumerate() {
        *o = k + x[i * 5..][..5].iter().filter(|&&v| v > 0.0).count() as i32;
    }
}

/// A CustomCall with a tuple result against XLA running the ops program, as below.
#[test]
fn custom_call_tuple_program_matches_xla() {
    let g = common::Gen {
        name: "custom_call/tuple",
        run: custom_tuple::run_literals,
        computation: custom_tuple_ops::computation,
        stablehlo: custom_tuple_ops::stablehlo,
    };
    let cases = (0..3u64)
        .map(|seed| {
            Case::random(
                g,
                &[Dist::Range(-4.0, 4.0), Dist::Range(-100.0, 100.0)],
                seed,
                // XLA:CPU fuses `x * x + 1` into one FMA (one rounding, ours two): 1 ulp.
                Tol::Ulp(1),
            )
        })
        .collect();
    check_all("custom call, tuple result", cases);
    // The generated code's own evaluator entry cannot run the target: an Err naming it.
    let x = Tensor::<f32, D2<8, 5>>::from_fn(|i| i[0] as f32 - i[1] as f32);
    let k = Tensor::<i32, D1<8>>::from_fn(|i| i[0] as i32);
    let e = xla_aot::core::eval::evaluate(
        &custom_tuple::computation(),
        &[x.to_literal(), k.to_literal()],
    )
    .unwrap_err();
    assert!(e.to_string().contains("square_and_count"), "{e}");
    let (sq, n) = custom_tuple(&x, &k);
    assert_eq!(sq.get(&[1, 4]), Some(10.0f32.sqrt()));
    assert_eq!(n.as_slice()[3], 2 * (3 + 3));
}

/// A program calling a user's Rust fn through CustomCall against XLA running the same program
/// with the fn's maths as ops (XLA cannot run Rust code): ours runs the CustomCall program, the
/// evaluator and XLA the ops program.
#[test]
fn custom_call_program_matches_xla() {
    let g = common::Gen {
        name: "custom_call/softplus",
        run: custom_softplus::run_literals,
        computation: custom_softplus_ops::computation,
        stablehlo: custom_softplus_ops::stablehlo,
    };
    let cases = (0..3u64)
        .map(|seed| {
            Case::random(
                g,
                &[Dist::Range(-6.0, 6.0), Dist::Range(-3.0, 3.0)],
                seed,
                Tol::Normwise(1e-5),
            )
        })
        .collect();
    check_all("custom call", cases);
}

#[test]
fn the_three_entry_points_agree() {
    let x = Tensor::<f32, D2<2, 3>>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .unwrap_or_else(|e| panic!("{e}"));
    let v = Tensor::<f32, D1<3>>::from_vec(vec![7.0, 8.0, 9.0]).unwrap_or_else(|e| panic!("{e}"));
    let r = add_rows(&x, &v);
    assert_eq!(r.as_slice(), &[8.0, 10.0, 12.0, 11.0, 13.0, 15.0]);
    let mut out = Tensor::<f32, D2<2, 3>>::zeros();
    let mut scratch = add_rows::Scratch::new();
    add_rows::into(&x, &v, &mut out, &mut scratch);
    assert_eq!(out.as_slice(), r.as_slice());
    let lit =
        add_rows::run_literals(&[x.to_literal(), v.to_literal()]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lit, r.to_literal());
    // A wrong argument is an Err, not a panic.
    let wrong = Literal::from_vec(&[3], vec![1.0f32, 2.0, 3.0]).unwrap_or_else(|e| panic!("{e}"));
    assert!(add_rows::run_literals(&[wrong.clone(), wrong]).is_err());
}

/// `into` writes every output element (outputs filled with NaN first) and a reused `Scratch`
/// carries nothing from one call to the next: the second call of a shared scratch gives the
/// bits of a fresh `run_literals`.
#[test]
fn into_writes_every_element_and_scratch_is_reusable() {
    type X = Tensor<f32, D2<8, 784>>;
    type W = Tensor<f32, D2<784, 128>>;
    type B = Tensor<f32, D1<128>>;
    let lit = |l: &Literal| X::from_literal(l).unwrap_or_else(|e| panic!("{e}"));
    let x1 = lit(&int_valued(F32, &[8, 784], 1, 2.0));
    let x2 = lit(&int_valued(F32, &[8, 784], 2, 2.0));
    let w =
        W::from_literal(&int_valued(F32, &[784, 128], 3, 2.0)).unwrap_or_else(|e| panic!("{e}"));
    let b = B::from_literal(&int_valued(F32, &[128], 4, 2.0)).unwrap_or_else(|e| panic!("{e}"));
    let mut scratch = dense_relu_8::Scratch::new();
    let mut out = Tensor::<f32, D2<8, 128>>::from_vec(vec![f32::NAN; 8 * 128])
        .unwrap_or_else(|e| panic!("{e}"));
    dense_relu_8::into(&x1, &w, &b, &mut out, &mut scratch);
    let want1 = dense_relu_8::run_literals(&[x1.to_literal(), w.to_literal(), b.to_literal()])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.to_literal(),
        want1,
        "dense_relu_8 into vs run_literals (first call)"
    );
    out = Tensor::from_vec(vec![f32::NAN; 8 * 128]).unwrap_or_else(|e| panic!("{e}"));
    dense_relu_8::into(&x2, &w, &b, &mut out, &mut scratch);
    let want2 = dense_relu_8::run_literals(&[x2.to_literal(), w.to_literal(), b.to_literal()])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.to_literal(),
        want2,
        "dense_relu_8 into with a reused scratch"
    );
    assert_ne!(want1, want2, "the two inputs must give different results");

    let s1 = Tensor::<f32, D2<32, 1000>>::from_literal(&random_literal(
        &xla_aot::core::ArrayShape::new(F32, &[32, 1000]),
        5,
        Dist::Any,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let mut scratch = row_softmax::Scratch::new();
    let mut out = Tensor::<f32, D2<32, 1000>>::from_vec(vec![f32::NAN; 32_000])
        .unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..2 {
        row_softmax::into(&s1, &mut out, &mut scratch);
        let want = row_softmax::run_literals(&[s1.to_literal()]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.to_literal(), want, "row_softmax into vs run_literals");
    }
}
