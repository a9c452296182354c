//! Every example of the seed documents (broadcasting.es.md, shapes-and-layout.es.md and the
//! operation-semantics.es.md sections of the core ops) as a test: shapes through the builder's
//! inference, values through the reference evaluator, errors where the seed says "invalid".

use std::sync::Arc;

use xla_core::builder::{Builder, XlaOp};
use xla_core::eval::evaluate;
use xla_core::{
    index, parse_shape, ArrayElement, ArrayShape, BinaryOp, ComparisonDirection,
    DotDimensionNumbers, ElementType, Layout, Literal, Result, Shape,
};

fn s(text: &str) -> Shape {
    parse_shape(text).unwrap()
}

fn lit<T: ArrayElement>(dims: &[i64], v: Vec<T>) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}

/// Build a computation over `params` (one parameter per literal, shapes from the literals) with
/// `f`, evaluate it on those literals, and return the result.
fn run(
    params: &[Literal],
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Result<Literal> {
    let mut b = Builder::new("seed");
    let ps: Vec<XlaOp> = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.parameter(i, p.shape(), &format!("p{i}")).unwrap())
        .collect();
    let root = f(&mut b, &ps)?;
    let c = b.build(root)?;
    evaluate(&c, params)
}

fn values<T: ArrayElement>(l: &Literal) -> Vec<T> {
    l.as_slice::<T>().unwrap().to_vec()
}

fn add(bd: Option<&'static [i64]>) -> impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp> {
    move |b, p| b.binary(BinaryOp::Add, p[0], p[1], bd)
}

/// Shape of `Add(zeros(l), zeros(r), bd)`, or the error.
fn add_shape(l: &str, r: &str, bd: Option<&[i64]>) -> Result<String> {
    let mut b = Builder::new("shape");
    let x = b.parameter(0, s(l), "x")?;
    let y = b.parameter(1, s(r), "y")?;
    let z = b.binary(BinaryOp::Add, x, y, bd)?;
    Ok(b.shape(z).to_string())
}

fn scalar_fn(ty: ElementType, op: BinaryOp) -> Arc<xla_core::Computation> {
    let mut b = Builder::new("f");
    let x = b.parameter(0, Shape::scalar(ty), "a").unwrap();
    let y = b.parameter(1, Shape::scalar(ty), "b").unwrap();
    let r = b.binary(op, x, y, None).unwrap();
    Arc::new(b.build(r).unwrap())
}

// ---------------------------------------------------------------- broadcasting.es.md

#[test]
fn broadcasting_matrix_plus_vector() {
    let x = lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let v = lit(&[3], vec![7f32, 8., 9.]);
    let r = run(&[x.clone(), v.clone()], add(Some(&[1]))).unwrap();
    assert_eq!(values::<f32>(&r), vec![8., 10., 12., 11., 13., 15.]);
    // "Without specifying the broadcast, this operation is invalid."
    let e = run(&[x, v], add(None)).unwrap_err();
    assert_eq!(e.to_string(), "Add: operands of rank 2 and 1 need broadcast_dimensions (f32[2,3] vs f32[3]); help: broadcast_dimensions = [1]");
}

#[test]
fn broadcasting_scalar_plus_matrix() {
    let x = lit(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let r = run(&[x, Literal::scalar(7i32)], add(None)).unwrap();
    assert_eq!(values::<i32>(&r), vec![8, 9, 10, 11, 12, 13]);
}

#[test]
fn broadcasting_3x3_both_ways() {
    let z = lit(&[3, 3], vec![0i32; 9]);
    let v = lit(&[3], vec![7i32, 8, 9]);
    let rows = run(&[z.clone(), v.clone()], add(Some(&[1]))).unwrap();
    assert_eq!(values::<i32>(&rows), vec![7, 8, 9, 7, 8, 9, 7, 8, 9]);
    let cols = run(&[z, v], add(Some(&[0]))).unwrap();
    assert_eq!(values::<i32>(&cols), vec![7, 7, 7, 8, 8, 8, 9, 9, 9]);
}

#[test]
fn broadcasting_note_2x3_plus_3_with_dimension_0_is_invalid() {
    let e = add_shape("f32[2,3]", "f32[3]", Some(&[0])).unwrap_err();
    assert!(
        e.message
            .contains("maps dimension 0 (size 3) to dimension 0 (size 2)"),
        "{e}"
    );
}

#[test]
fn broadcasting_cuboid_and_matrix() {
    assert_eq!(
        add_shape("f32[2,3,4]", "f32[3,4]", Some(&[1, 2])).unwrap(),
        "f32[2,3,4]"
    );
}

#[test]
fn broadcasting_formal_definition_vector_and_matrix() {
    // MxNxPxQ = 2x3x4x5; a vector T matches any one dimension of its size.
    for (d, t) in [(0, 2), (1, 3), (2, 4), (3, 5)] {
        assert_eq!(
            add_shape("f32[2,3,4,5]", &format!("f32[{t}]"), Some(&[d])).unwrap(),
            "f32[2,3,4,5]"
        );
    }
    // A TxV matrix: dims 2,3 / 1,2 / 0,3.
    assert_eq!(
        add_shape("f32[2,3,4,5]", "f32[4,5]", Some(&[2, 3])).unwrap(),
        "f32[2,3,4,5]"
    );
    assert_eq!(
        add_shape("f32[2,3,4,5]", "f32[3,4]", Some(&[1, 2])).unwrap(),
        "f32[2,3,4,5]"
    );
    assert_eq!(
        add_shape("f32[2,3,4,5]", "f32[2,5]", Some(&[0, 3])).unwrap(),
        "f32[2,3,4,5]"
    );
    // "V cannot match N and T match P": the dimensions must be strictly increasing.
    let e = add_shape("f32[2,3,4,5]", "f32[4,3]", Some(&[2, 1])).unwrap_err();
    assert!(e.message.contains("strictly increasing"), "{e}");
}

#[test]
fn broadcasting_degenerate_dimensions() {
    assert_eq!(add_shape("f32[2,1]", "f32[2,3]", None).unwrap(), "f32[2,3]");
    assert_eq!(
        add_shape("f32[1,2,5]", "f32[7,2,5]", None).unwrap(),
        "f32[7,2,5]"
    );
    assert_eq!(
        add_shape("f32[7,2,5]", "f32[7,1,5]", None).unwrap(),
        "f32[7,2,5]"
    );
    let e = add_shape("f32[7,2,5]", "f32[7,2,6]", None).unwrap_err();
    assert_eq!(e.to_string(), "Add: dimension 2 has sizes 5 and 6, which are neither equal nor 1 (f32[7,2,5] vs f32[7,2,6])");
    // The outer operation (2,1) and (1,3).
    let r = run(
        &[
            lit(&[2, 1], vec![1i32, 2]),
            lit(&[1, 3], vec![10i32, 20, 30]),
        ],
        add(None),
    )
    .unwrap();
    assert_eq!(r.shape(), s("s32[2,3]"));
    assert_eq!(values::<i32>(&r), vec![11, 21, 31, 12, 22, 32]);
}

#[test]
fn broadcasting_composition() {
    let r = run(
        &[lit(&[4], vec![1i32, 2, 3, 4]), lit(&[1, 2], vec![5i32, 6])],
        add(Some(&[0])),
    )
    .unwrap();
    assert_eq!(r.shape(), s("s32[4,2]"));
    assert_eq!(values::<i32>(&r), vec![6, 7, 7, 8, 8, 9, 9, 10]);
    assert_eq!(
        add_shape("f32[1,2]", "f32[4,3,1]", Some(&[1, 2])).unwrap(),
        "f32[4,3,2]"
    );
}

// ---------------------------------------------------------------- shapes-and-layout.es.md

#[test]
fn layouts_and_padding() {
    let place = |shape: &ArrayShape| {
        let mut buf = vec!['0'; index::physical_len(shape).unwrap() as usize];
        for (y, row) in [['a', 'b', 'c'], ['d', 'e', 'f']].iter().enumerate() {
            for (x, &c) in row.iter().enumerate() {
                buf[index::linear_index(shape, &[y as i64, x as i64]).unwrap() as usize] = c;
            }
        }
        buf.into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let col: ArrayShape = "f32[2,3]{0,1}".parse().unwrap();
    assert_eq!(place(&col), "a d b e c f");
    let row: ArrayShape = "f32[2,3]{1,0}".parse().unwrap();
    assert_eq!(place(&row), "a b c d e f");
    let mut padded = col.clone();
    padded.layout = Some(Layout {
        minor_to_major: vec![0, 1],
        padded_dimensions: Some(vec![3, 5]),
    });
    assert_eq!(place(&padded), "a d 0 b e 0 c f 0 0 0 0 0 0 0");
}

// ---------------------------------------------------------------- operation-semantics.es.md

#[test]
fn broadcast_scalar_to_2x3() {
    let r = run(&[Literal::scalar(2.0f32)], |b, p| {
        b.broadcast(p[0], &[2, 3])
    })
    .unwrap();
    assert_eq!(r.shape(), s("f32[2,3]"));
    assert_eq!(values::<f32>(&r), vec![2.0; 6]);
}

#[test]
fn bitcast_convert_width_changes() {
    let mut b = Builder::new("f");
    for (from, to, want) in [
        ("f32[10]{0}", ElementType::F16, "f16[10,2]"),
        ("f32[]", ElementType::F16, "f16[2]"),
        ("f16[10,2]{1,0}", ElementType::F32, "f32[10]"),
    ] {
        let x = b.parameter(b.len(), s(from), "x").unwrap();
        let y = b.bitcast_convert(x, to).unwrap();
        assert_eq!(b.shape(y).to_string(), want);
    }
}

#[test]
fn clamp_with_scalar_bounds() {
    let r = run(
        &[
            lit(&[3], vec![-1i32, 5, 9]),
            Literal::scalar(0i32),
            Literal::scalar(6i32),
        ],
        |b, p| b.clamp(p[1], p[0], p[2]),
    )
    .unwrap();
    assert_eq!(values::<i32>(&r), vec![0, 5, 6]);
}

fn v_4x2x3() -> Literal {
    let v: Vec<f32> = [
        10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46,
        47,
    ]
    .iter()
    .map(|&x| x as f32)
    .collect();
    lit(&[4, 2, 3], v)
}

#[test]
fn collapse_examples() {
    let v = v_4x2x3();
    let all: Vec<f32> = values(&v);
    for (dims, want) in [
        (&[0i64, 1, 2][..], "f32[24]"),
        (&[0, 1], "f32[8,3]"),
        (&[1, 2], "f32[4,6]"),
    ] {
        let r = run(std::slice::from_ref(&v), |b, p| b.collapse(p[0], dims)).unwrap();
        assert_eq!(r.shape().to_string(), want);
        assert_eq!(values::<f32>(&r), all, "collapse keeps row-major order");
    }
    assert!(run(std::slice::from_ref(&v), |b, p| b.collapse(p[0], &[1, 0])).is_err());
    assert!(run(&[v], |b, p| b.collapse(p[0], &[0, 2])).is_err());
}

#[test]
fn reshape_examples() {
    let v = v_4x2x3();
    let r = run(std::slice::from_ref(&v), |b, p| {
        b.reshape(p[0], None, &[24])
    })
    .unwrap();
    assert_eq!(values::<f32>(&r), values::<f32>(&v));
    let r = run(std::slice::from_ref(&v), |b, p| {
        b.reshape(p[0], None, &[8, 3])
    })
    .unwrap();
    assert_eq!(r.shape(), s("f32[8,3]"));
    let r = run(&[lit(&[1, 1], vec![5f32])], |b, p| {
        b.reshape(p[0], None, &[])
    })
    .unwrap();
    assert_eq!(r, Literal::scalar(5f32));
    let r = run(&[Literal::scalar(5f32)], |b, p| {
        b.reshape(p[0], None, &[1, 1])
    })
    .unwrap();
    assert_eq!(r, lit(&[1, 1], vec![5f32]));
}

#[test]
fn convert_s32_to_f32() {
    let r = run(&[lit(&[3], vec![0i32, 1, 2])], |b, p| {
        b.convert(p[0], ElementType::F32)
    })
    .unwrap();
    assert_eq!(r, lit(&[3], vec![0f32, 1., 2.]));
}

#[test]
fn dot_table() {
    let mut b = Builder::new("f");
    for (l, r, want) in [
        ("f32[5]", "f32[5]", "f32[]"),
        ("f32[4,5]", "f32[5]", "f32[4]"),
        ("f32[4,5]", "f32[5,6]", "f32[4,6]"),
    ] {
        let x = b.parameter(b.len(), s(l), "x").unwrap();
        let y = b.parameter(b.len(), s(r), "y").unwrap();
        let d = b.dot(x, y, None).unwrap();
        assert_eq!(b.shape(d).to_string(), want);
    }
}

fn dn(lc: &[i64], rc: &[i64], lb: &[i64], rb: &[i64]) -> DotDimensionNumbers {
    DotDimensionNumbers {
        lhs_contracting_dimensions: lc.to_vec(),
        rhs_contracting_dimensions: rc.to_vec(),
        lhs_batch_dimensions: lb.to_vec(),
        rhs_batch_dimensions: rb.to_vec(),
    }
}

#[test]
fn dot_general_examples() {
    let lhs = lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let rhs = lit(&[2, 3], vec![1f32, 1., 1., 2., 2., 2.]);
    let r = run(&[lhs, rhs], |b, p| {
        b.dot_general(p[0], p[1], &dn(&[1], &[1], &[], &[]), None)
    })
    .unwrap();
    assert_eq!(r, lit(&[2, 2], vec![6f32, 12., 15., 30.]));

    let lhs = lit(&[2, 2, 2], vec![1f32, 2., 3., 4., 5., 6., 7., 8.]);
    let rhs = lit(&[2, 2, 2], vec![1f32, 0., 0., 1., 1., 0., 0., 1.]);
    let r = run(&[lhs.clone(), rhs], |b, p| {
        b.dot_general(p[0], p[1], &dn(&[2], &[1], &[0], &[0]), None)
    })
    .unwrap();
    assert_eq!(r, lhs);

    let mut b = Builder::new("f");
    for (l, r, want) in [
        ("f32[6,4,5]", "f32[6,5,7]", "f32[6,4,7]"),
        ("f32[6,2,4,5]", "f32[6,2,5,7]", "f32[6,2,4,7]"),
    ] {
        let x = b.parameter(b.len(), s(l), "x").unwrap();
        let y = b.parameter(b.len(), s(r), "y").unwrap();
        let k = s(l).as_array().unwrap().rank() as i64;
        let batch: Vec<i64> = (0..k - 2).collect();
        let d = b
            .dot_general(x, y, &dn(&[k - 1], &[k - 2], &batch, &batch), None)
            .unwrap();
        assert_eq!(b.shape(d).to_string(), want);
    }
}

#[test]
fn tuple_and_get_tuple_element() {
    let v = lit(&[10], (0..10).map(|x| x as f32).collect());
    let r = run(&[v, Literal::scalar(5i32)], |b, p| {
        let t = b.tuple(&[p[0], p[1]])?;
        assert_eq!(b.shape(t).to_string(), "(f32[10], s32[])");
        b.get_tuple_element(t, 1)
    })
    .unwrap();
    assert_eq!(r, Literal::scalar(5i32));
}

#[test]
fn iota_examples() {
    let r = run(&[], |b, _| b.iota(s("s32[4,8]"), 0)).unwrap();
    assert_eq!(
        values::<i32>(&r),
        (0..4).flat_map(|i| [i; 8]).collect::<Vec<_>>()
    );
    let r = run(&[], |b, _| b.iota(s("s32[4,8]"), 1)).unwrap();
    assert_eq!(
        values::<i32>(&r),
        (0..4).flat_map(|_| 0..8).collect::<Vec<_>>()
    );
}

#[test]
fn reduce_examples() {
    let sum = scalar_fn(ElementType::F32, BinaryOp::Add);
    let m = lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let red = |x: &Literal, dims: &'static [i64]| {
        let sum = sum.clone();
        run(&[x.clone(), Literal::scalar(0f32)], move |b, p| {
            b.reduce(&[p[0]], &[p[1]], &sum, dims)
        })
        .unwrap()
    };
    assert_eq!(red(&m, &[0]), lit(&[3], vec![5f32, 7., 9.]));
    assert_eq!(red(&m, &[1]), lit(&[2], vec![6f32, 15.]));
    // The 4x2x3 array with 1..6 replicated along dimension 0.
    let c = lit(
        &[4, 2, 3],
        (0..4).flat_map(|_| 1..=6).map(|x| x as f32).collect(),
    );
    assert_eq!(
        red(&c, &[0]),
        lit(&[2, 3], vec![4f32, 8., 12., 16., 20., 24.])
    );
    assert_eq!(
        red(&c, &[2]),
        lit(&[4, 2], vec![6f32, 15., 6., 15., 6., 15., 6., 15.])
    );
    assert_eq!(red(&c, &[0, 1]), lit(&[3], vec![20f32, 28., 36.]));
    assert_eq!(red(&c, &[0, 1, 2]), Literal::scalar(84f32));
}

#[test]
fn variadic_reduce_max_argmax() {
    let mut r = Builder::new("argmax");
    let m = r.parameter(0, s("f32[]"), "max").unwrap();
    let k = r.parameter(1, s("s32[]"), "argmax").unwrap();
    let v = r.parameter(2, s("f32[]"), "value").unwrap();
    let i = r.parameter(3, s("s32[]"), "index").unwrap();
    let ge = r
        .compare(ComparisonDirection::Ge, false, v, m, None)
        .unwrap();
    let nm = r.select(ge, v, m).unwrap();
    let nk = r.select(ge, i, k).unwrap();
    let t = r.tuple(&[nm, nk]).unwrap();
    let f = Arc::new(r.build(t).unwrap());
    let values = lit(&[5], vec![3f32, 9., 1., 9.5, 2.]);
    let out = run(
        &[
            values,
            Literal::scalar(f32::NEG_INFINITY),
            Literal::scalar(0i32),
        ],
        |b, p| {
            let idx = b.iota(s("s32[5]"), 0)?;
            b.reduce(&[p[0], idx], &[p[1], p[2]], &f, &[0])
        },
    )
    .unwrap();
    assert_eq!(
        out,
        Literal::Tuple(vec![Literal::scalar(9.5f32), Literal::scalar(3i32)])
    );
}

#[test]
fn select_examples() {
    let v1 = lit(&[4], vec![1i32, 2, 3, 4]);
    let v2 = lit(&[4], vec![100i32, 200, 300, 400]);
    let pred = lit(&[4], vec![true, false, false, true]);
    let r = run(&[pred, v1.clone(), v2.clone()], |b, p| {
        b.select(p[0], p[1], p[2])
    })
    .unwrap();
    assert_eq!(values::<i32>(&r), vec![1, 200, 300, 4]);
    let r = run(&[Literal::scalar(true), v1, v2], |b, p| {
        b.select(p[0], p[1], p[2])
    })
    .unwrap();
    assert_eq!(values::<i32>(&r), vec![1, 2, 3, 4]);
}

// ---------------------------------------------------------------- DynamicSlice, DynamicUpdateSlice

fn b_4x3() -> Literal {
    lit(&[4, 3], (0..12).map(|x| x as f32).collect())
}

#[test]
fn dynamic_slice_examples() {
    let a = lit(&[5], vec![0.0f32, 1.0, 2.0, 3.0, 4.0]);
    let r = run(&[a, Literal::scalar(2i32)], |b, p| {
        b.dynamic_slice(p[0], &p[1..], &[2])
    })
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![2.0, 3.0]);
    let starts = [Literal::scalar(2i32), Literal::scalar(1i32)];
    let r = run(&[b_4x3(), starts[0].clone(), starts[1].clone()], |b, p| {
        b.dynamic_slice(p[0], &p[1..], &[2, 2])
    })
    .unwrap();
    assert_eq!(r.shape(), s("f32[2,2]"));
    assert_eq!(values::<f32>(&r), vec![7.0, 8.0, 10.0, 11.0]);
}

#[test]
fn dynamic_update_slice_examples() {
    let a = lit(&[5], vec![0.0f32, 1.0, 2.0, 3.0, 4.0]);
    let u = lit(&[2], vec![5.0f32, 6.0]);
    let r = run(&[a, u, Literal::scalar(2i32)], |b, p| {
        b.dynamic_update_slice(p[0], p[1], &p[2..])
    })
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![0.0, 1.0, 5.0, 6.0, 4.0]);
    let u = lit(&[3, 2], (12..18).map(|x| x as f32).collect());
    let starts = [Literal::scalar(1i32), Literal::scalar(1i32)];
    let r = run(
        &[b_4x3(), u, starts[0].clone(), starts[1].clone()],
        |b, p| b.dynamic_update_slice(p[0], p[1], &p[2..]),
    )
    .unwrap();
    let want = [0., 1., 2., 3., 12., 13., 6., 14., 15., 9., 16., 17.];
    assert_eq!(values::<f32>(&r), want.to_vec());
}

/// Starts are clamped into `[0, dim - size]`: negative ones to 0, too large ones to the last
/// position the slice fits at, whatever the integer type (u64 beyond i64::MAX included).
#[test]
fn dynamic_slice_clamps_starts() {
    let cases: Vec<(Literal, Literal, Vec<f32>)> = vec![
        (
            Literal::scalar(-5i8),
            Literal::scalar(7i8),
            vec![1., 2., 4., 5.],
        ),
        (
            Literal::scalar(i64::MIN),
            Literal::scalar(i64::MAX),
            vec![1., 2., 4., 5.],
        ),
        (
            Literal::scalar(u64::MAX),
            Literal::scalar(0u64),
            vec![6., 7., 9., 10.],
        ),
        (
            Literal::scalar(3u8),
            Literal::scalar(1u8),
            vec![7., 8., 10., 11.],
        ),
        (
            Literal::scalar(-1i16),
            Literal::scalar(-1i16),
            vec![0., 1., 3., 4.],
        ),
    ];
    for (i, j, want) in cases {
        let r = run(&[b_4x3(), i.clone(), j.clone()], |b, p| {
            b.dynamic_slice(p[0], &p[1..], &[2, 2])
        })
        .unwrap();
        assert_eq!(values::<f32>(&r), want, "starts {i:?} {j:?}");
        // The update lands where the slice is read.
        let u = lit(&[2, 2], vec![-1.0f32; 4]);
        let r = run(&[b_4x3(), u, i, j], |b, p| {
            let w = b.dynamic_update_slice(p[0], p[1], &p[2..])?;
            b.dynamic_slice(w, &p[2..], &[2, 2])
        })
        .unwrap();
        assert_eq!(values::<f32>(&r), vec![-1.0; 4]);
    }
}

/// operation-semantics.es.md, Scan: m = n = k = 1, N = 3, init `i`, input `[a, b, c]`,
/// `f(x, c) -> (y, c')`: step 0 `f(a, i) -> (y0, c0)`, step 1 `f(b, c0)`, step 2 `f(c, c1)`;
/// the result is `([y0, y1, y2], c2)`. Here `f(x, c) = (10x + c, x + c)`, and reversed the
/// steps run `c`, `b`, `a`.
#[test]
fn scan_steps_through_the_dimension_with_a_carry() {
    let f = {
        let mut b = Builder::new("f");
        let x = b.parameter(0, s("s32[]"), "x").unwrap();
        let c = b.parameter(1, s("s32[]"), "c").unwrap();
        let ten = b.constant(Literal::scalar(10i32));
        let tx = b.binary(BinaryOp::Mul, ten, x, None).unwrap();
        let y = b.binary(BinaryOp::Add, tx, c, None).unwrap();
        let next = b.binary(BinaryOp::Add, x, c, None).unwrap();
        let t = b.tuple(&[y, next]).unwrap();
        Arc::new(b.build(t).unwrap())
    };
    let args = [lit(&[3], vec![2i32, 3, 4]), Literal::scalar(1i32)];
    for (reverse, ys, last) in [(false, [21, 33, 46], 10), (true, [28, 35, 41], 10)] {
        let r = run(&args, |b, p| b.scan(&[p[0]], &[p[1]], &f, 0, reverse, None)).unwrap();
        let Literal::Tuple(t) = r else {
            panic!("a tuple")
        };
        assert_eq!(values::<i32>(&t[0]), ys.to_vec(), "reverse = {reverse}");
        assert_eq!(values::<i32>(&t[1]), vec![last]);
    }
}

/// operation-semantics.es.md, SelectAndScatter: with overlapping windows one operand element
/// can be selected by several windows; the scatter (an add) then combines their sources: the
/// 9 selected by both windows receives 2 + 6 = 8.
#[test]
fn select_and_scatter_adds_the_sources_of_windows_sharing_a_maximum() {
    let ge = {
        let mut b = Builder::new("ge");
        let x = b.parameter(0, s("f32[]"), "a").unwrap();
        let y = b.parameter(1, s("f32[]"), "b").unwrap();
        let r = b
            .compare(ComparisonDirection::Ge, false, x, y, None)
            .unwrap();
        Arc::new(b.build(r).unwrap())
    };
    let add = scalar_fn(ElementType::F32, BinaryOp::Add);
    let args = [
        lit(&[3], vec![1.0f32, 9.0, 3.0]),
        lit(&[2], vec![2.0f32, 6.0]),
        Literal::scalar(0.0f32),
    ];
    let window = xla_core::infer::WindowSpec::new(&[2]);
    let r = run(&args, |b, p| {
        b.select_and_scatter(p[0], &ge, &window, p[1], p[2], &add)
    })
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![0.0, 8.0, 0.0]);
}
