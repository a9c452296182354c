//! Run-time entries never panic on user data: a sweep of wrong lengths, element types, ranks,
//! dimensions, tuple arities and malformed literals through `Tensor::from_vec`/`from_slice`/
//! `from_literal`, `Literal::from_vec` and the `run_literals` of generated fns. Every call runs
//! under `catch_unwind`, so a panic is a test failure naming the input; every rejection must be
//! an `Err` whose message names what was expected and what was given.
//!
//! Run: `cargo test -p xla-aot --test runtime_errors`.

#![deny(warnings)]

use std::panic::{catch_unwind, AssertUnwindSafe};

use xla_aot::core::{ArrayData, ArrayShape, Error, Layout};
use xla_aot::{xla, ElementType, Literal, Mtm2, Shape, Tensor, TensorError, D0, D1, D2, D3};

xla! {
    pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [1])
    }

    /// A nested tuple parameter and a scalar.
    pub fn tuple_in(t: (f32[3], (s32[2], pred[2])), k: f64[]) -> (f64[3], s32[2]) {
        let inner = GetTupleElement(t, index = 1);
        let x = ConvertElementType(GetTupleElement(t, index = 0), new_element_type = f64) * k;
        let mask = ConvertElementType(GetTupleElement(inner, index = 1), new_element_type = s32);
        Tuple(x, GetTupleElement(inner, index = 0) * mask)
    }

    /// A column-major parameter (its literal is row-major whatever layout it carries).
    pub fn col_major(x: f32[3, 2]{0, 1}, y: u8[]) -> f32[2, 3] {
        Transpose(x, permutation = [1, 0]) * ConvertElementType(y, new_element_type = f32)
    }

    /// No parameters at all.
    pub fn no_params() -> s32[4] { Iota(s32[4], iota_dimension = 0) }

    /// A Dot, so the run allocates GEMM scratch.
    pub fn matvec(a: f32[2, 3], x: f32[3]) -> f32[2] { Dot(a, x) }
}

/// Runs `f`, failing the test (with `what`) if it panics.
fn no_panic<R>(what: &str, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => panic!("panicked instead of returning Err: {what}"),
    }
}

/// A well-formed array literal of zeros.
fn zeros(ty: ElementType, dims: &[i64]) -> Literal {
    Literal::zeros(&ArrayShape::new(ty, dims))
}

/// The literals the sweep feeds: every element type at ranks 0 to 3 (including an empty
/// array), the same dims with a layout or a dynamic bound, malformed arrays (data length or
/// type disagreeing with the shape), tuples of 0 to 3 elements (nested too) and a token.
/// `well_formed` is false for the malformed ones, which no entry may accept.
fn candidates() -> Vec<(Literal, bool)> {
    let dims: [&[i64]; 9] = [
        &[],
        &[1],
        &[2],
        &[3],
        &[6],
        &[2, 3],
        &[3, 2],
        &[2, 3, 1],
        &[0],
    ];
    let mut out = Vec::new();
    for ty in ElementType::ALL {
        for d in dims {
            out.push((zeros(ty, d), true));
        }
    }
    let with_layout = |dims: &[i64], mtm: &[i64]| {
        let mut s = ArrayShape::new(ElementType::F32, dims);
        s.layout = Some(Layout::new(mtm));
        Literal::zeros(&s)
    };
    out.push((with_layout(&[3, 2], &[0, 1]), true));
    out.push((with_layout(&[2, 3], &[0, 1]), true));
    let mut dynamic = ArrayShape::new(ElementType::F32, &[3]);
    dynamic.dynamic = vec![true];
    out.push((Literal::zeros(&dynamic), true));
    let malformed = |ty: ElementType, dims: &[i64], data: ArrayData| Literal::Array {
        shape: ArrayShape::new(ty, dims),
        data,
    };
    for (ty, dims) in [
        (ElementType::F32, &[2i64, 3][..]),
        (ElementType::F32, &[3][..]),
    ] {
        let n = dims.iter().product::<i64>() as usize;
        for len in [0, n - 1, n + 1] {
            out.push((malformed(ty, dims, ArrayData::F32(vec![0.0; len])), false));
        }
        out.push((malformed(ty, dims, ArrayData::S32(vec![0; n])), false));
    }
    out.push((
        malformed(ElementType::F64, &[], ArrayData::F64(vec![])),
        false,
    ));
    out.push((
        malformed(ElementType::U8, &[], ArrayData::U8(vec![1, 2])),
        false,
    ));
    out.push((
        malformed(ElementType::F32, &[-3], ArrayData::F32(vec![])),
        false,
    ));
    let good_t = Literal::Tuple(vec![
        zeros(ElementType::F32, &[3]),
        Literal::Tuple(vec![
            zeros(ElementType::S32, &[2]),
            zeros(ElementType::Pred, &[2]),
        ]),
    ]);
    let tuples = [
        Literal::Tuple(vec![]),
        Literal::Tuple(vec![zeros(ElementType::F32, &[3])]),
        Literal::Tuple(vec![
            zeros(ElementType::F32, &[3]),
            zeros(ElementType::S32, &[2]),
        ]),
        good_t.clone(),
        // One element too many, at the top and inside.
        Literal::Tuple(vec![good_t.clone(), zeros(ElementType::F32, &[])]),
        Literal::Tuple(vec![
            zeros(ElementType::F32, &[3]),
            Literal::Tuple(vec![
                zeros(ElementType::S32, &[2]),
                zeros(ElementType::Pred, &[2]),
                zeros(ElementType::Pred, &[2]),
            ]),
        ]),
        // Elements swapped, a wrong leaf type, a wrong leaf length.
        Literal::Tuple(vec![
            Literal::Tuple(vec![
                zeros(ElementType::S32, &[2]),
                zeros(ElementType::Pred, &[2]),
            ]),
            zeros(ElementType::F32, &[3]),
        ]),
        Literal::Tuple(vec![
            zeros(ElementType::F32, &[3]),
            Literal::Tuple(vec![
                zeros(ElementType::S64, &[2]),
                zeros(ElementType::Pred, &[2]),
            ]),
        ]),
        Literal::Tuple(vec![
            zeros(ElementType::F32, &[4]),
            Literal::Tuple(vec![
                zeros(ElementType::S32, &[2]),
                zeros(ElementType::Pred, &[2]),
            ]),
        ]),
    ];
    out.extend(tuples.into_iter().map(|t| (t, true)));
    // A well-typed tuple whose leaf is malformed.
    out.push((
        Literal::Tuple(vec![
            malformed(ElementType::F32, &[3], ArrayData::F32(vec![0.0; 2])),
            Literal::Tuple(vec![
                zeros(ElementType::S32, &[2]),
                zeros(ElementType::Pred, &[2]),
            ]),
        ]),
        false,
    ));
    out.push((Literal::Token, true));
    out
}

/// Whether a literal of shape `given` fits a parameter declared `declared`: same structure,
/// element types, dims and dynamic flags; layouts are not compared (literals are row-major).
fn fits(given: &Shape, declared: &Shape) -> bool {
    match (given, declared) {
        (Shape::Array(g), Shape::Array(d)) => {
            g.ty == d.ty && g.dims == d.dims && g.dynamic == d.dynamic
        }
        (Shape::Tuple(g), Shape::Tuple(d)) => {
            g.len() == d.len() && g.iter().zip(d).all(|(g, d)| fits(g, d))
        }
        (Shape::Token, Shape::Token) => true,
        _ => false,
    }
}

/// A generated fn's dynamic entry, its name and parameter names.
struct Entry {
    name: &'static str,
    params: &'static [&'static str],
    declared: Vec<Shape>,
    run: fn(&[Literal]) -> Result<Literal, Error>,
}

fn entries() -> Vec<Entry> {
    let declared = |c: xla_aot::core::Computation| c.params;
    vec![
        Entry {
            name: "add_rows",
            params: &["x", "v"],
            declared: declared(add_rows::computation()),
            run: add_rows::run_literals,
        },
        Entry {
            name: "tuple_in",
            params: &["t", "k"],
            declared: declared(tuple_in::computation()),
            run: tuple_in::run_literals,
        },
        Entry {
            name: "col_major",
            params: &["x", "y"],
            declared: declared(col_major::computation()),
            run: col_major::run_literals,
        },
        Entry {
            name: "no_params",
            params: &[],
            declared: declared(no_params::computation()),
            run: no_params::run_literals,
        },
        Entry {
            name: "matvec",
            params: &["a", "x"],
            declared: declared(matvec::computation()),
            run: matvec::run_literals,
        },
    ]
}

/// Correct arguments for an entry: zeros of each declared shape.
fn good_args(declared: &[Shape]) -> Vec<Literal> {
    fn lit(s: &Shape) -> Literal {
        match s {
            Shape::Array(a) => Literal::zeros(a),
            Shape::Tuple(ts) => Literal::Tuple(ts.iter().map(lit).collect()),
            Shape::Token => Literal::Token,
        }
    }
    declared.iter().map(lit).collect()
}

#[test]
fn run_literals_checks_every_argument_and_never_panics() {
    let cands = candidates();
    let mut accepted = 0;
    let mut rejected = 0;
    for e in entries() {
        assert_eq!(e.declared.len(), e.params.len(), "{}", e.name);
        let good = good_args(&e.declared);
        let ok = no_panic(e.name, || (e.run)(&good));
        assert!(ok.is_ok(), "{}: correct arguments rejected: {ok:?}", e.name);
        for i in 0..e.params.len() {
            for (lit, well_formed) in &cands {
                let mut args = good.clone();
                args[i] = lit.clone();
                let what = format!("{} argument {i} = {}", e.name, lit.shape());
                let r = no_panic(&what, || (e.run)(&args));
                if *well_formed && fits(&lit.shape(), &e.declared[i]) {
                    assert!(r.is_ok(), "{what}: rejected: {r:?}");
                    accepted += 1;
                    continue;
                }
                let err = match r {
                    Ok(v) => panic!("{what}: accepted, returned {:?}", v.shape()),
                    Err(err) => err,
                };
                rejected += 1;
                let msg = err.to_string();
                let head = format!(
                    "{}: argument {i} (`{}`): expected {}, given {}: ",
                    e.name,
                    e.params[i],
                    e.declared[i],
                    lit.shape()
                );
                assert!(msg.starts_with(&head), "{what}: message {msg:?}");
            }
        }
    }
    // The sweep did exercise both sides: the right literal in every position of every entry
    // (layout and all), and over a thousand wrong ones.
    assert!(accepted >= 8, "accepted {accepted}");
    assert!(rejected > 1000, "rejected {rejected}");
}

#[test]
fn run_literals_rejects_a_wrong_argument_count_naming_the_signature() {
    for e in entries() {
        let good = good_args(&e.declared);
        for n in 0..=e.params.len() + 2 {
            if n == e.params.len() {
                continue;
            }
            let args: Vec<Literal> = (0..n)
                .map(|k| good.get(k).cloned().unwrap_or(Literal::Token))
                .collect();
            let what = format!("{} with {n} arguments", e.name);
            let err = no_panic(&what, || (e.run)(&args)).expect_err(&what);
            let sig: Vec<String> = e
                .params
                .iter()
                .zip(&e.declared)
                .map(|(p, s)| format!("{p}: {s}"))
                .collect();
            let want = format!(
                "{}: takes {} arguments ({}), {n} given",
                e.name,
                e.params.len(),
                sig.join(", ")
            );
            assert_eq!(err.to_string(), want, "{what}");
        }
    }
    // The layout is part of the declared type in the message.
    let err = col_major::run_literals(&[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "col_major: takes 2 arguments (x: f32[3,2]{0,1}, y: u8[]), 0 given"
    );
}

#[test]
fn run_literals_errors_say_where_a_tuple_argument_differs() {
    let t = |inner: Vec<Literal>| {
        Literal::Tuple(vec![zeros(ElementType::F32, &[3]), Literal::Tuple(inner)])
    };
    let k = Literal::scalar(2.0f64);
    let cases = [
        (
            t(vec![zeros(ElementType::S32, &[2])]),
            "a tuple of 1 element instead of 2 at tuple index {1}",
        ),
        (
            t(vec![
                zeros(ElementType::S32, &[2]),
                zeros(ElementType::Pred, &[2]),
                zeros(ElementType::Pred, &[2]),
            ]),
            "a tuple of 3 elements instead of 2 at tuple index {1}",
        ),
        (
            t(vec![
                zeros(ElementType::U32, &[2]),
                zeros(ElementType::Pred, &[2]),
            ]),
            "element type u32 instead of s32 at tuple index {1, 0}",
        ),
        (
            t(vec![
                zeros(ElementType::S32, &[2]),
                zeros(ElementType::Pred, &[2, 1]),
            ]),
            "rank 2 instead of 1 at tuple index {1, 1}",
        ),
        (
            t(vec![
                zeros(ElementType::S32, &[5]),
                zeros(ElementType::Pred, &[2]),
            ]),
            "dimensions s32[5] instead of s32[2] at tuple index {1, 0}",
        ),
        (
            Literal::Tuple(vec![zeros(ElementType::F32, &[3]), Literal::Token]),
            "a token instead of a tuple at tuple index {1}",
        ),
    ];
    for (arg, why) in cases {
        let err = tuple_in::run_literals(&[arg.clone(), k.clone()]).unwrap_err();
        let want = format!(
            "tuple_in: argument 0 (`t`): expected (f32[3], (s32[2], pred[2])), given {}: {why}",
            arg.shape()
        );
        assert_eq!(err.to_string(), want);
    }
    // And the right one runs: [1, 2, 3] * 2, and the s32s masked by the preds.
    let arg = Literal::Tuple(vec![
        Literal::from_vec(&[3], vec![1.0f32, 2.0, 3.0]).unwrap(),
        Literal::Tuple(vec![
            Literal::from_vec(&[2], vec![7i32, 8]).unwrap(),
            Literal::from_vec(&[2], vec![true, false]).unwrap(),
        ]),
    ]);
    let got = tuple_in::run_literals(&[arg, k]).unwrap();
    let want = Literal::Tuple(vec![
        Literal::from_vec(&[3], vec![2.0f64, 4.0, 6.0]).unwrap(),
        Literal::from_vec(&[2], vec![7i32, 0]).unwrap(),
    ]);
    assert_eq!(got, want);
}

/// `Tensor::<T, D>::from_vec` and `from_slice` at every length from 0 to twice the size plus
/// one: `Ok` at the size, else the `Length` error with the shape, the size and the length.
fn sweep_from_vec<T: xla_aot::core::ArrayElement, D: xla_aot::Dims>(shape: &str) {
    for len in 0..=2 * D::SIZE + 1 {
        let what = format!("{shape} from {len} elements");
        let r = no_panic(&what, || Tensor::<T, D>::from_vec(vec![T::default(); len]));
        let s = no_panic(&what, || {
            Tensor::<T, D>::from_slice(&vec![T::default(); len])
        });
        if len == D::SIZE {
            assert!(r.is_ok() && s.is_ok(), "{what}");
            continue;
        }
        let want = TensorError::Length {
            shape: shape.to_string(),
            expected: D::SIZE,
            actual: len,
        };
        assert_eq!(r.err(), Some(want.clone()), "{what}");
        assert_eq!(s.err(), Some(want.clone()), "{what}");
        assert_eq!(
            want.to_string(),
            format!(
                "tensor {shape} holds {} elements, but {len} were given",
                D::SIZE
            )
        );
    }
}

#[test]
fn tensor_from_vec_rejects_every_wrong_length() {
    sweep_from_vec::<f32, D2<2, 3>>("f32[2,3]");
    sweep_from_vec::<f32, D0>("f32[]");
    sweep_from_vec::<i8, D1<0>>("s8[0]");
    sweep_from_vec::<bool, D3<2, 1, 3>>("pred[2,1,3]");
    sweep_from_vec::<xla_aot::f16, D1<5>>("f16[5]");
    sweep_from_vec::<xla_aot::Complex<f64>, D2<1, 4>>("c128[1,4]");
    sweep_from_vec::<u64, D2<3, 2>>("u64[3,2]");
    // The layout is part of the tensor's shape in the message.
    let err = Tensor::<f32, D2<3, 2>, Mtm2<0, 1>>::from_vec(vec![0.0; 5]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor f32[3,2]{0,1} holds 6 elements, but 5 were given"
    );
}

/// `from_literal` of every candidate into `Tensor<T, D, L>`: `Ok` exactly for a well-formed
/// array of `T[dims]` (layout ignored, no dynamic dim), else an error naming both sides.
fn sweep_from_literal<T, D, L>(ty: ElementType, dims: &[i64])
where
    T: xla_aot::core::ArrayElement,
    D: xla_aot::Dims,
    L: xla_aot::LayoutSpec,
{
    let declared = Shape::Array(ArrayShape::new(ty, dims));
    for (lit, well_formed) in candidates() {
        let what = format!("{declared} from literal {}", lit.shape());
        let r = no_panic(&what, || Tensor::<T, D, L>::from_literal(&lit));
        if well_formed && fits(&lit.shape(), &declared) {
            assert!(r.is_ok(), "{what}: {r:?}");
            continue;
        }
        let err = match r {
            Ok(_) => panic!("{what}: accepted"),
            Err(err) => err,
        };
        let msg = err.to_string();
        let names_both = match &err {
            TensorError::Length {
                expected, actual, ..
            } => msg.contains(&expected.to_string()) && msg.contains(&actual.to_string()),
            TensorError::ElementType { expected, actual } => {
                msg.contains(&format!("tensor of {expected}"))
                    && msg.contains(&format!("literal of {actual}"))
            }
            TensorError::Shape { expected, actual } => {
                msg.contains(expected.as_str()) && msg.contains(actual.as_str())
            }
            TensorError::Sizes { shape, sizes } => {
                msg.contains(shape.as_str()) && msg.contains(&format!("{sizes:?}"))
            }
        };
        assert!(names_both, "{what}: {msg}");
    }
}

#[test]
fn tensor_from_literal_rejects_every_mismatch() {
    sweep_from_literal::<f32, D2<2, 3>, xla_aot::RowMajor>(ElementType::F32, &[2, 3]);
    sweep_from_literal::<f32, D2<3, 2>, Mtm2<0, 1>>(ElementType::F32, &[3, 2]);
    sweep_from_literal::<f32, D1<3>, xla_aot::RowMajor>(ElementType::F32, &[3]);
    sweep_from_literal::<u8, D0, xla_aot::RowMajor>(ElementType::U8, &[]);
    sweep_from_literal::<i32, D1<0>, xla_aot::RowMajor>(ElementType::S32, &[0]);
    sweep_from_literal::<xla_aot::Complex<f32>, D3<2, 3, 1>, xla_aot::RowMajor>(
        ElementType::C64,
        &[2, 3, 1],
    );
}

#[test]
fn literal_from_vec_rejects_lengths_negative_and_overflowing_dims() {
    let dims: [&[i64]; 8] = [
        &[],
        &[0],
        &[3],
        &[2, 3],
        &[-1],
        &[2, -3],
        &[i64::MAX, 2],
        &[1 << 40, 1 << 40],
    ];
    for d in dims {
        let valid = d.iter().all(|&x| x >= 0);
        let count = d.iter().try_fold(1usize, |n, &x| {
            usize::try_from(x).ok().and_then(|x| n.checked_mul(x))
        });
        for len in 0..=8usize {
            let what = format!("Literal {d:?} from {len} values");
            let r = no_panic(&what, || Literal::from_vec(d, vec![1.5f32; len]));
            if valid && count == Some(len) {
                let lit = r.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(lit.as_slice::<f32>().map(<[f32]>::len), Some(len));
                continue;
            }
            let err = r.expect_err(&what);
            let dims_text: Vec<String> = d.iter().map(i64::to_string).collect();
            let want = format!(
                "Literal: {len} elements given for shape f32[{}]",
                dims_text.join(",")
            );
            assert_eq!(err.to_string(), want, "{what}");
        }
    }
}
