use std::sync::Arc;

use crate::builder::Builder;
use crate::error::Result;
use crate::eval::evaluate;
use crate::infer::{Padding, WindowPadding, WindowSpec};
use crate::ir::{BinaryOp, Computation};
use crate::literal::{ArrayElement, Literal};
use crate::shape::Shape;

fn binary<T: ArrayElement>(op: BinaryOp) -> Result<Arc<Computation>> {
    let mut b = Builder::new("f");
    let x = b.parameter(0, Shape::scalar(T::TYPE), "a")?;
    let y = b.parameter(1, Shape::scalar(T::TYPE), "b")?;
    let r = b.binary(op, x, y, None)?;
    Ok(Arc::new(b.build(r)?))
}

fn run<T: ArrayElement>(
    dims: &[i64],
    x: Vec<T>,
    init: T,
    op: BinaryOp,
    w: &WindowSpec,
) -> Result<Literal> {
    let mut b = Builder::new("main");
    let p = b.parameter(0, Shape::array(T::TYPE, dims), "x")?;
    let i = b.constant(Literal::scalar(init));
    let r = b.reduce_window(&[p], &[i], &binary::<T>(op)?, w)?;
    evaluate(&b.build(r)?, &[Literal::from_vec(dims, x)?])
}

#[test]
fn seed_example_1_max_2x3() -> Result<()> {
    let x: Vec<f32> = (0..24).map(|v| ((v * 7) % 11) as f32).collect();
    let w = WindowSpec {
        strides: Some(vec![2, 3]),
        ..WindowSpec::new(&[2, 3])
    };
    let got = run(&[4, 6], x.clone(), f32::MIN, BinaryOp::Max, &w)?;
    let want: Vec<f32> = [(0, 0), (0, 3), (2, 0), (2, 3)]
        .iter()
        .map(|&(r, c)| {
            let mut m = f32::MIN;
            for i in r..r + 2 {
                for j in c..c + 3 {
                    m = m.max(x[i * 6 + j]);
                }
            }
            m
        })
        .collect();
    assert_eq!(got, Literal::from_vec(&[2, 2], want)?);
    Ok(())
}

#[test]
fn seed_min_valid_and_same() -> Result<()> {
    let x = vec![10000.0f32, 1000.0, 100.0, 10.0, 1.0];
    let valid = WindowSpec {
        strides: Some(vec![2]),
        ..WindowSpec::new(&[3])
    };
    let got = run(&[5], x.clone(), f32::MAX, BinaryOp::Min, &valid)?;
    assert_eq!(got, Literal::from_vec(&[2], vec![100.0f32, 1.0])?);
    let same = WindowSpec {
        padding: WindowPadding::Kind(Padding::Same),
        ..valid
    };
    let got = run(&[5], x, f32::MAX, BinaryOp::Min, &same)?;
    assert_eq!(got, Literal::from_vec(&[3], vec![1000.0f32, 10.0, 1.0])?);
    Ok(())
}

#[test]
fn seed_example_2_dilations() -> Result<()> {
    let w = WindowSpec {
        dimensions: vec![2, 1],
        strides: Some(vec![4, 1]),
        base_dilations: Some(vec![2, 1]),
        window_dilations: Some(vec![3, 1]),
        padding: WindowPadding::Explicit(vec![(2, 1), (0, 0)]),
    };
    let got = run(&[3, 2], vec![1i32, 2, 3, 4, 5, 6], 0, BinaryOp::Add, &w)?;
    assert_eq!(got, Literal::from_vec(&[2, 2], vec![0i32, 0, 3, 4])?);
    Ok(())
}

#[test]
fn cumsum_and_padding_skip_init() -> Result<()> {
    // cumsum as JAX lowers it: window n, padding (n - 1, 0).
    let w = WindowSpec {
        padding: WindowPadding::Explicit(vec![(3, 0)]),
        ..WindowSpec::new(&[4])
    };
    let got = run(&[4], vec![1i32, 2, 3, 4], 0, BinaryOp::Add, &w)?;
    assert_eq!(got, Literal::from_vec(&[4], vec![1i32, 3, 6, 10])?);
    // A non-identity init counts once per window; padded taps are skipped (XLA's behaviour).
    let got = run(&[4], vec![1i32, 2, 3, 4], 100, BinaryOp::Add, &w)?;
    assert_eq!(got, Literal::from_vec(&[4], vec![101i32, 103, 106, 110])?);
    Ok(())
}
