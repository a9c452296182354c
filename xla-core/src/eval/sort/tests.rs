//! Sort and TopK in the evaluator: the spec's example, tie-breaking comparators, stability,
//! NaN and -0 under total-order comparators, inconsistent comparators (no panic), TopK ties.

use std::sync::Arc;

use crate::builder::{Builder, XlaOp};
use crate::element::ElementType::{self, F32, S32, U8};
use crate::error::Result;
use crate::eval::evaluate;
use crate::infer::sort::comparator_params;
use crate::ir::{BinaryOp, ComparisonDirection, Computation, InstrId, Instruction, Op};
use crate::literal::Literal;
use crate::shape::Shape;

use ComparisonDirection::{Eq, Gt, Lt, Ne};

/// A comparator over `types` whose body `f` builds the root from the parameters.
fn comparator(
    types: &[ElementType],
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Result<Arc<Computation>> {
    let mut b = Builder::new("cmp");
    let ps = comparator_params(types)
        .into_iter()
        .enumerate()
        .map(|(i, s)| b.parameter(i, s, "p"))
        .collect::<Result<Vec<_>>>()?;
    let root = f(&mut b, &ps)?;
    Ok(Arc::new(b.build(root)?))
}

/// `lhs_k R rhs_k` (a single comparison: the evaluator's direct path).
fn by(types: &[ElementType], k: usize, dir: ComparisonDirection, total: bool) -> Arc<Computation> {
    comparator(types, |b, p| {
        b.compare(dir, total, p[2 * k], p[2 * k + 1], None)
    })
    .unwrap()
}

/// The same as [`by`], written so the evaluator must evaluate the computation
/// (`(lhs R rhs) and true`).
fn by_general(
    types: &[ElementType],
    k: usize,
    dir: ComparisonDirection,
    total: bool,
) -> Arc<Computation> {
    comparator(types, |b, p| {
        let c = b.compare(dir, total, p[2 * k], p[2 * k + 1], None)?;
        let t = b.constant(Literal::scalar(true));
        b.binary(BinaryOp::And, c, t, None)
    })
    .unwrap()
}

/// `Sort(inputs..., comparator, dimension, is_stable)` built and evaluated.
fn run_sort(
    inputs: &[Literal],
    cmp: &Arc<Computation>,
    dimension: i64,
    is_stable: bool,
) -> Result<Literal> {
    let mut b = Builder::new("main");
    let ps = inputs
        .iter()
        .enumerate()
        .map(|(i, l)| b.parameter(i, l.shape(), "x"))
        .collect::<Result<Vec<_>>>()?;
    let s = b.sort(&ps, cmp, dimension, is_stable)?;
    evaluate(&b.build(s)?, inputs)
}

fn v<T: crate::literal::ArrayElement>(dims: &[i64], x: Vec<T>) -> Literal {
    Literal::from_vec(dims, x).unwrap()
}

fn bits(l: &Literal) -> Vec<u32> {
    l.as_slice::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

#[test]
fn the_seed_example() -> Result<()> {
    let inputs = [
        v(&[2], vec![3i32, 1]),
        v(&[2], vec![42i32, 50]),
        v(&[2], vec![-3.0f32, 1.1]),
    ];
    let types = [S32, S32, F32];
    let want = Literal::Tuple(vec![
        v(&[2], vec![1i32, 3]),
        v(&[2], vec![50i32, 42]),
        v(&[2], vec![1.1f32, -3.0]),
    ]);
    for cmp in [by(&types, 0, Lt, false), by_general(&types, 0, Lt, false)] {
        for stable in [false, true] {
            assert_eq!(run_sort(&inputs, &cmp, 0, stable)?, want);
        }
    }
    Ok(())
}

#[test]
fn multi_operand_with_a_tie_breaker() -> Result<()> {
    // Keys ascending, then payload descending among equal keys.
    let types = [S32, F32];
    let cmp = comparator(&types, |b, p| {
        let lt = b.compare(Lt, false, p[0], p[1], None)?;
        let eq = b.compare(Eq, false, p[0], p[1], None)?;
        let gt = b.compare(Gt, false, p[2], p[3], None)?;
        let tie = b.binary(BinaryOp::And, eq, gt, None)?;
        b.binary(BinaryOp::Or, lt, tie, None)
    })?;
    let inputs = [
        v(&[5], vec![2i32, 1, 2, 1, 0]),
        v(&[5], vec![0.5f32, -1.0, 1.5, 3.0, 9.0]),
    ];
    let out = run_sort(&inputs, &cmp, 0, false)?;
    let want = Literal::Tuple(vec![
        v(&[5], vec![0i32, 1, 1, 2, 2]),
        v(&[5], vec![9.0f32, 3.0, -1.0, 1.5, 0.5]),
    ]);
    assert_eq!(out, want);
    Ok(())
}

#[test]
fn equal_keys_keep_their_order() -> Result<()> {
    // 64 u8 keys with many duplicates, an s32 payload counting up: a stable sort by key.
    let keys: Vec<u8> = (0u32..64).map(|i| ((i * 37 + 11) % 7) as u8).collect();
    let payload: Vec<i32> = (0..64).collect();
    let mut want: Vec<(u8, i32)> = keys.iter().copied().zip(payload.iter().copied()).collect();
    want.sort_by_key(|&(k, _)| k);
    let want = Literal::Tuple(vec![
        v(&[64], want.iter().map(|p| p.0).collect()),
        v(&[64], want.iter().map(|p| p.1).collect()),
    ]);
    let inputs = [v(&[64], keys), v(&[64], payload)];
    let types = [U8, S32];
    for cmp in [by(&types, 0, Lt, false), by_general(&types, 0, Lt, false)] {
        for stable in [false, true] {
            assert_eq!(run_sort(&inputs, &cmp, 0, stable)?, want);
        }
    }
    // `rhs > lhs` is the same order with the parameters swapped.
    let swapped = comparator(&types, |b, p| b.compare(Gt, false, p[1], p[0], None))?;
    assert_eq!(run_sort(&inputs, &swapped, -1, true)?, want);
    Ok(())
}

#[test]
fn rows_and_columns_of_a_matrix() -> Result<()> {
    let x = v(&[3, 4], vec![5i32, 2, 8, 1, 0, 9, 3, 3, 7, 4, 6, 2]);
    let cmp = by(&[S32], 0, Lt, false);
    let rows = run_sort(std::slice::from_ref(&x), &cmp, 1, true)?;
    assert_eq!(rows, v(&[3, 4], vec![1, 2, 5, 8, 0, 3, 3, 9, 2, 4, 6, 7]));
    let last = run_sort(std::slice::from_ref(&x), &cmp, -1, true)?;
    assert_eq!(last, rows);
    let cols = run_sort(std::slice::from_ref(&x), &cmp, 0, true)?;
    assert_eq!(cols, v(&[3, 4], vec![0, 2, 3, 1, 5, 4, 6, 2, 7, 9, 8, 3]));
    // A zero-size dimension has nothing to sort.
    let empty = v::<i32>(&[2, 0], vec![]);
    assert_eq!(
        run_sort(std::slice::from_ref(&empty), &cmp, 0, true)?,
        empty
    );
    Ok(())
}

#[test]
fn nan_and_signed_zero_under_the_total_order() -> Result<()> {
    let nan = f32::from_bits(0x7fc0_0000);
    let neg_nan = f32::from_bits(0xffc0_0000);
    let x = vec![
        1.0f32,
        nan,
        -0.0,
        0.0,
        neg_nan,
        3.0,
        f32::NEG_INFINITY,
        f32::INFINITY,
        0.0,
        -0.0,
    ];
    let n = x.len() as i64;
    let inputs = [v(&[n], x), v(&[n], (0..n as i32).collect::<Vec<i32>>())];
    let types = [F32, S32];
    let asc_bits = vec![
        0xffc0_0000,
        0xff80_0000,
        0x8000_0000,
        0x8000_0000,
        0,
        0,
        0x3f80_0000,
        0x4040_0000,
        0x7f80_0000,
        0x7fc0_0000,
    ];
    let asc_idx = vec![4, 6, 2, 9, 3, 8, 0, 5, 7, 1];
    for cmp in [by(&types, 0, Lt, true), by_general(&types, 0, Lt, true)] {
        let Literal::Tuple(out) = run_sort(&inputs, &cmp, 0, true)? else {
            panic!("not a tuple")
        };
        assert_eq!(bits(&out[0]), asc_bits);
        assert_eq!(out[1].as_slice::<i32>().unwrap(), asc_idx.as_slice());
    }
    // Descending: -0 and +0 swap places, equal ones keep their order.
    let Literal::Tuple(out) = run_sort(&inputs, &by(&types, 0, Gt, true), 0, true)? else {
        panic!("not a tuple")
    };
    let mut desc_bits = asc_bits.clone();
    desc_bits.reverse();
    assert_eq!(bits(&out[0]), desc_bits);
    assert_eq!(
        out[1].as_slice::<i32>().unwrap(),
        &[1, 7, 5, 0, 3, 8, 2, 9, 6, 4]
    );
    Ok(())
}

#[test]
fn inconsistent_comparators_give_a_permutation() -> Result<()> {
    let x: Vec<f32> = (0..50)
        .map(|i| match i % 5 {
            0 => f32::NAN,
            1 => -0.0,
            _ => ((i * 13) % 17) as f32,
        })
        .collect();
    let input = v(&[50], x.clone());
    let mut want: Vec<u32> = x.iter().map(|f| f.to_bits()).collect();
    want.sort_unstable();
    let always = comparator(&[F32], |b, _| Ok(b.constant(Literal::scalar(true))))?;
    let never = comparator(&[F32], |b, _| Ok(b.constant(Literal::scalar(false))))?;
    for cmp in [
        by(&[F32], 0, Lt, false),
        by(&[F32], 0, Ne, false),
        by_general(&[F32], 0, Ne, false),
        always,
        never.clone(),
    ] {
        let out = run_sort(std::slice::from_ref(&input), &cmp, 0, false)?;
        let mut got = bits(&out);
        got.sort_unstable();
        assert_eq!(got, want);
    }
    // "Never before" leaves every row as it was.
    assert_eq!(
        run_sort(std::slice::from_ref(&input), &never, 0, true)?.shape(),
        input.shape()
    );
    assert_eq!(
        bits(&run_sort(std::slice::from_ref(&input), &never, 0, true)?),
        x.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
    );
    Ok(())
}

/// A hand-made `Sort` instruction over one parameter (the builder would refuse these).
fn raw_sort(x: Shape, dimension: i64, comparator: Computation) -> Computation {
    let instrs = vec![
        Instruction {
            op: Op::Parameter {
                index: 0,
                name: "x".into(),
            },
            operands: vec![],
            shape: x.clone(),
        },
        Instruction {
            op: Op::Sort {
                dimension,
                is_stable: true,
                comparator: Arc::new(comparator),
            },
            operands: vec![InstrId(0)],
            shape: x.clone(),
        },
    ];
    Computation {
        name: "raw".into(),
        params: vec![x],
        instrs,
        root: InstrId(1),
    }
}

#[test]
fn malformed_sorts_are_errors() -> Result<()> {
    let x = Shape::array(F32, &[3]);
    let arg = [v(&[3], vec![1.0f32, 0.0, 2.0])];
    let good = (*by(&[F32], 0, Lt, false)).clone();
    assert!(evaluate(&raw_sort(x.clone(), 0, good.clone()), &arg).is_ok());
    let e = evaluate(&raw_sort(x.clone(), 1, good.clone()), &arg).unwrap_err();
    assert!(
        e.to_string()
            .contains("dimension 1 is not a dimension of f32[3]"),
        "{e}"
    );
    let e = evaluate(&raw_sort(x.clone(), -1, good), &arg).unwrap_err();
    assert_eq!(e.op, "Sort");
    let wrong = (*by(&[S32], 0, Lt, false)).clone();
    let e = evaluate(&raw_sort(x.clone(), 0, wrong), &arg).unwrap_err();
    assert!(
        e.to_string()
            .contains("the comparator takes (s32[], s32[])"),
        "{e}"
    );
    // A comparator returning a non-pred value.
    let mut b = Builder::new("bad");
    let p = b.parameter(0, Shape::scalar(F32), "a")?;
    b.parameter(1, Shape::scalar(F32), "b")?;
    let bad = b.build(p)?;
    let e = evaluate(&raw_sort(x, 0, bad), &arg).unwrap_err();
    assert!(
        e.to_string()
            .contains("returned f32[] where pred[] was expected"),
        "{e}"
    );
    Ok(())
}

/// `TopK(x, k, largest)` built and evaluated: (values, indices).
fn run_top_k(x: &Literal, k: i64, largest: bool) -> Result<(Literal, Vec<i32>)> {
    let mut b = Builder::new("main");
    let p = b.parameter(0, x.shape(), "x")?;
    let t = b.top_k(p, k, largest)?;
    match evaluate(&b.build(t)?, std::slice::from_ref(x))? {
        Literal::Tuple(mut parts) if parts.len() == 2 => {
            let idx = parts[1].as_slice::<i32>().unwrap().to_vec();
            Ok((parts.swap_remove(0), idx))
        }
        other => panic!("TopK gave {}", other.shape()),
    }
}

#[test]
fn top_k_rows_with_ties() -> Result<()> {
    let x = v(&[2, 5], vec![3i32, 1, 3, 2, 3, 0, 0, -1, 5, 0]);
    let (vals, idx) = run_top_k(&x, 3, true)?;
    assert_eq!(vals, v(&[2, 3], vec![3i32, 3, 3, 5, 0, 0]));
    assert_eq!(idx, vec![0, 2, 4, 3, 0, 1]);
    let (vals, idx) = run_top_k(&x, 3, false)?;
    assert_eq!(vals, v(&[2, 3], vec![1i32, 2, 3, -1, 0, 0]));
    assert_eq!(idx, vec![1, 3, 0, 2, 0, 1]);
    let (vals, idx) = run_top_k(&x, 0, true)?;
    assert_eq!(vals, v::<i32>(&[2, 0], vec![]));
    assert!(idx.is_empty());
    let p = v(&[4], vec![false, true, false, true]);
    let (vals, idx) = run_top_k(&p, 3, true)?;
    assert_eq!(vals, v(&[3], vec![true, true, false]));
    assert_eq!(idx, vec![1, 3, 0]);
    let (vals, idx) = run_top_k(&p, 3, false)?;
    assert_eq!(vals, v(&[3], vec![false, false, true]));
    assert_eq!(idx, vec![0, 2, 1]);
    Ok(())
}

#[test]
fn top_k_orders_nan_and_zeros_as_xla() -> Result<()> {
    // XLA:CPU (jaxlib 0.10.2), chlo.top_k with k = 11.
    let x = v(
        &[11],
        vec![
            1.0f32,
            f32::from_bits(0x7fc0_0000),
            -0.0,
            0.0,
            f32::from_bits(0xffc0_0000),
            3.0,
            f32::NEG_INFINITY,
            f32::INFINITY,
            0.0,
            -0.0,
            3.0,
        ],
    );
    let (vals, idx) = run_top_k(&x, 11, true)?;
    assert_eq!(
        bits(&vals),
        vec![
            0x7fc0_0000,
            0x7f80_0000,
            0x4040_0000,
            0x4040_0000,
            0x3f80_0000,
            0,
            0,
            0x8000_0000,
            0x8000_0000,
            0xff80_0000,
            0xffc0_0000
        ]
    );
    assert_eq!(idx, vec![1, 7, 5, 10, 0, 3, 8, 2, 9, 6, 4]);
    // NaN payloads by their bits, and the smallest first (XLA's mhlo.topk, largest = false).
    let y = v(
        &[7],
        [
            0x7fc0_0001u32,
            0x7fc0_0000,
            0xffc0_0000,
            0xffc0_0001,
            0x7f80_0001,
            0x3f80_0000,
            0xff80_0001,
        ]
        .iter()
        .map(|&b| f32::from_bits(b))
        .collect::<Vec<_>>(),
    );
    let (vals, idx) = run_top_k(&y, 7, true)?;
    assert_eq!(
        bits(&vals),
        vec![
            0x7fc0_0001,
            0x7fc0_0000,
            0x7f80_0001,
            0x3f80_0000,
            0xff80_0001,
            0xffc0_0000,
            0xffc0_0001
        ]
    );
    assert_eq!(idx, vec![0, 1, 4, 5, 6, 2, 3]);
    let (vals, idx) = run_top_k(&y, 7, false)?;
    assert_eq!(
        bits(&vals),
        vec![
            0xffc0_0001,
            0xffc0_0000,
            0xff80_0001,
            0x3f80_0000,
            0x7f80_0001,
            0x7fc0_0000,
            0x7fc0_0001
        ]
    );
    assert_eq!(idx, vec![3, 2, 6, 5, 4, 1, 0]);
    Ok(())
}

#[test]
fn bf16_nans_are_canonical_as_on_xla_cpu() -> Result<()> {
    use half::bf16;
    let b = |v: &[u16]| v.iter().map(|&x| bf16::from_bits(x)).collect::<Vec<_>>();
    let raw = |l: &Literal| -> Vec<u16> {
        l.as_slice::<bf16>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect()
    };
    // XLA:CPU (jaxlib 0.10.2): the NaNs of one sign tie, and come back canonical.
    let x = v(
        &[7],
        b(&[0x7fc1, 0x7fc0, 0x7f81, 0xff81, 0xffc0, 0xffc1, 0x3f80]),
    );
    let inputs = [x, v(&[7], (0..7).collect::<Vec<i32>>())];
    let cmp = by(&[ElementType::Bf16, S32], 0, Lt, true);
    let Literal::Tuple(out) = run_sort(&inputs, &cmp, 0, true)? else {
        panic!("not a tuple")
    };
    assert_eq!(
        raw(&out[0]),
        vec![0xffc0, 0xffc0, 0xffc0, 0x3f80, 0x7fc0, 0x7fc0, 0x7fc0]
    );
    assert_eq!(out[1].as_slice::<i32>().unwrap(), &[3, 4, 5, 6, 0, 1, 2]);
    // A bf16 payload is canonical too, whatever the comparator looks at.
    let inputs = [
        v(&[3], vec![2i32, 1, 0]),
        v(&[3], b(&[0x7fc1, 0x7f81, 0xff81])),
    ];
    let cmp = by(&[S32, ElementType::Bf16], 0, Lt, false);
    let Literal::Tuple(out) = run_sort(&inputs, &cmp, 0, true)? else {
        panic!("not a tuple")
    };
    assert_eq!(raw(&out[1]), vec![0xffc0, 0x7fc0, 0x7fc0]);
    let x = v(&[5], b(&[0xffc0, 0xff81, 0x7f81, 0x7fc0, 0x7fc1]));
    let (vals, idx) = run_top_k(&x, 5, true)?;
    assert_eq!(raw(&vals), vec![0x7fc0, 0x7fc0, 0x7fc0, 0xffc0, 0xffc0]);
    assert_eq!(idx, vec![2, 3, 4, 0, 1]);
    Ok(())
}
