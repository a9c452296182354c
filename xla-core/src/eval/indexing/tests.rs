//! Gather and Scatter on small hand-checked cases: clamping, dropped windows, the order of
//! duplicate updates, batching, several operands, and `Err` (not a panic) on a bad IR.

use std::sync::Arc;

use crate::builder::{Builder, XlaOp};
use crate::element::ElementType::{self, F32, S32, U8};
use crate::error::Result;
use crate::eval::evaluate;
use crate::ir::{BinaryOp, Computation, GatherDimensionNumbers, ScatterDimensionNumbers};
use crate::literal::{ArrayElement, Literal};
use crate::shape::Shape;

fn lit<T: ArrayElement>(dims: &[i64], v: Vec<T>) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}

/// `f(builder, params)` evaluated on `args`.
fn run(
    args: &[Literal],
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Result<Literal> {
    let mut b = Builder::new("t");
    let ps = args
        .iter()
        .enumerate()
        .map(|(i, a)| b.parameter(i, a.shape(), "p"))
        .collect::<Result<Vec<_>>>()?;
    let r = f(&mut b, &ps)?;
    evaluate(&b.build(r)?, args)
}

/// A scalar update computation of `ty` built by `body` from `(current, update)`.
fn comp(
    types: &[ElementType],
    body: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Arc<Computation> {
    let mut b = Builder::new("f");
    let ps: Vec<_> = types
        .iter()
        .chain(types)
        .enumerate()
        .map(|(i, &t)| b.parameter(i, Shape::scalar(t), "p").unwrap())
        .collect();
    let r = body(&mut b, &ps).unwrap();
    Arc::new(b.build(r).unwrap())
}

#[test]
fn gather_clamps_starts_into_the_operand() -> Result<()> {
    // Rows 2, -1 (-> 0), 7 (-> 2), 1 of a 3x2 table; u8 255 clamps to the last row too.
    let x = lit(&[3, 2], vec![0i32, 1, 2, 3, 4, 5]);
    let rows = GatherDimensionNumbers::new(&[1], &[0], &[0], 1);
    let out = run(&[x.clone(), lit(&[4], vec![2i32, -1, 7, 1])], |b, p| {
        b.gather(p[0], p[1], &rows, &[1, 2], false)
    })?;
    assert_eq!(out, lit(&[4, 2], vec![4, 5, 0, 1, 4, 5, 2, 3]));
    let out = run(&[x, lit(&[2], vec![255u8, 0])], |b, p| {
        b.gather(p[0], p[1], &rows, &[1, 2], true)
    })?;
    assert_eq!(out, lit(&[2, 2], vec![4, 5, 0, 1]));
    // A 2x2 window at (3, 3) of a 4x4 iota moves back to (2, 2); at (-5, 1) to (0, 1).
    let x = lit(&[4, 4], (0..16).collect::<Vec<i32>>());
    let win = GatherDimensionNumbers::new(&[1, 2], &[], &[0, 1], 1);
    let out = run(&[x, lit(&[2, 2], vec![3i64, 3, -5, 1])], |b, p| {
        b.gather(p[0], p[1], &win, &[2, 2], false)
    })?;
    assert_eq!(out, lit(&[2, 2, 2], vec![10, 11, 14, 15, 1, 2, 5, 6]));
    Ok(())
}

#[test]
fn gather_index_vector_dims_and_batching() -> Result<()> {
    // index_vector_dim = 0 with the map reversed: the vectors are the columns of the index
    // array, (col, row) = (2, 1) and (0, 1).
    let x = lit(&[2, 3], vec![0i32, 1, 2, 10, 11, 12]);
    let out = run(&[x.clone(), lit(&[2, 2], vec![2i32, 0, 1, 1])], |b, p| {
        b.gather(
            p[0],
            p[1],
            &GatherDimensionNumbers::new(&[], &[0, 1], &[1, 0], 0),
            &[1, 1],
            false,
        )
    })?;
    assert_eq!(out, lit(&[2], vec![12, 10]));
    // Batching: row b of the operand is indexed by row b of the indices.
    let mut d = GatherDimensionNumbers::new(&[], &[1], &[1], 2);
    d.operand_batching_dims = vec![0];
    d.start_indices_batching_dims = vec![0];
    let out = run(&[x, lit(&[2, 3], vec![0i32, 2, 2, 1, 0, 9])], |b, p| {
        b.gather(p[0], p[1], &d, &[1, 1], false)
    })?;
    assert_eq!(out, lit(&[2, 3], vec![0, 2, 2, 11, 10, 12]));
    Ok(())
}

#[test]
fn scatter_drops_windows_that_do_not_fit_and_the_last_update_wins() -> Result<()> {
    // XLA:CPU's result for these windows of two (checked against jaxlib 0.10.2): (1, 2) and
    // (2, -1) and (4, 0) are dropped whole, (0, 0) twice and (0, 1) overlap in index order.
    let x = lit(&[4, 3], vec![0f32; 12]);
    let i = lit(&[7, 2], vec![0i32, 0, 1, 2, 2, -1, 3, 1, 0, 0, 0, 1, 4, 0]);
    let u = lit(&[7, 2], (1..=14).map(|v| v as f32).collect::<Vec<_>>());
    let set = comp(&[F32], |_, p| Ok(p[1]));
    let out = run(&[x, i, u], |b, p| {
        b.scatter(
            &[p[0]],
            p[1],
            &[p[2]],
            &set,
            &ScatterDimensionNumbers::new(&[1], &[0], &[0, 1], 1),
            false,
            false,
        )
    })?;
    let want = vec![
        9.0f32, 11.0, 12.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 8.0,
    ];
    assert_eq!(out, lit(&[4, 3], want));
    Ok(())
}

#[test]
fn scatter_applies_duplicates_in_index_order() -> Result<()> {
    // f(a, b) = 2a + b from 0 with updates 1 then 2 then 3 at one element: ((1)*2 + 2)*2 + 3.
    let twice_plus = comp(&[S32], |b, p| {
        let t = b.binary(BinaryOp::Add, p[0], p[0], None)?;
        b.binary(BinaryOp::Add, t, p[1], None)
    });
    let args = [
        lit(&[3], vec![0i32, 5, 0]),
        lit(&[4], vec![1i32, 1, 3, 1]),
        lit(&[4], vec![1i32, 2, 100, 3]),
    ];
    let out = run(&args, |b, p| {
        b.scatter(
            &[p[0]],
            p[1],
            &[p[2]],
            &twice_plus,
            &ScatterDimensionNumbers::new(&[], &[0], &[0], 1),
            false,
            false,
        )
    })?;
    assert_eq!(out, lit(&[3], vec![0, ((5 * 2 + 1) * 2 + 2) * 2 + 3, 0]));
    Ok(())
}

#[test]
fn scatter_of_two_operands_and_batching() -> Result<()> {
    // (value, count): the update's value replaces, the counts add.
    let f = comp(&[F32, S32], |b, p| {
        let n = b.binary(BinaryOp::Add, p[1], p[3], None)?;
        b.tuple(&[p[2], n])
    });
    let args = [
        lit(&[3], vec![0f32; 3]),
        lit(&[3], vec![0i32; 3]),
        lit(&[4], vec![2u8, 0, 2, 3]),
        lit(&[4], vec![1f32, 2.0, 3.0, 4.0]),
        lit(&[4], vec![1i32; 4]),
    ];
    let out = run(&args, |b, p| {
        b.scatter(
            &[p[0], p[1]],
            p[2],
            &[p[3], p[4]],
            &f,
            &ScatterDimensionNumbers::new(&[], &[0], &[0], 1),
            false,
            false,
        )
    })?;
    let want = Literal::Tuple(vec![
        lit(&[3], vec![2f32, 0.0, 3.0]),
        lit(&[3], vec![1i32, 0, 2]),
    ]);
    assert_eq!(out, want);
    // Batching: row b of the operand gets row b of the updates at row b's indices.
    let add = comp(&[S32], |b, p| b.binary(BinaryOp::Add, p[0], p[1], None));
    let mut d = ScatterDimensionNumbers::new(&[], &[1], &[1], 2);
    d.input_batching_dims = vec![0];
    d.scatter_indices_batching_dims = vec![0];
    let args = [
        lit(&[2, 3], vec![0i32; 6]),
        lit(&[2, 2], vec![2i32, 2, 0, 3]),
        lit(&[2, 2], vec![1i32, 10, 100, 1000]),
    ];
    let out = run(&args, |b, p| {
        b.scatter(&[p[0]], p[1], &[p[2]], &add, &d, false, false)
    })?;
    assert_eq!(out, lit(&[2, 3], vec![0, 0, 11, 100, 0, 0]));
    Ok(())
}

#[test]
fn a_bad_ir_is_an_error_not_a_panic() -> Result<()> {
    let mut b = Builder::new("t");
    let x = b.parameter(0, Shape::array(F32, &[3, 2]), "x")?;
    let i = b.parameter(1, Shape::array(U8, &[4]), "i")?;
    let g = b.gather(
        x,
        i,
        &GatherDimensionNumbers::new(&[1], &[0], &[0], 1),
        &[1, 2],
        false,
    )?;
    let mut c = b.build(g)?;
    // An instruction whose shape disagrees with its operands.
    c.instrs[2].shape = Shape::array(F32, &[5, 2]);
    let args = [lit(&[3, 2], vec![0f32; 6]), lit(&[4], vec![0u8; 4])];
    assert!(evaluate(&c, &args).is_err());
    // Float indices.
    c.instrs[2].shape = Shape::array(F32, &[4, 2]);
    c.instrs[1].shape = Shape::array(F32, &[4]);
    c.params[1] = Shape::array(F32, &[4]);
    assert!(evaluate(&c, &[lit(&[3, 2], vec![0f32; 6]), lit(&[4], vec![0f32; 4])]).is_err());
    Ok(())
}
