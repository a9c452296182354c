//! Literals and small computations the ops need: reducer identities and their source text,
//! constants, the reducers, and XLA's `preferred_element_type` rule as the generator knows it.

use std::sync::Arc;

use xla_aot::core::builder::Builder;
use xla_aot::core::{ArrayShape, BinaryOp, ComparisonDirection, Computation, ElementType, Shape};
use ElementType::*;

use super::gen::{int_max, is_floaty};

/// The source of an identity of `op` for `t` (0, the type's lowest or highest, pred bounds).
pub fn init_literal(op: BinaryOp, t: ElementType) -> String {
    match (op, t) {
        (BinaryOp::And, _) => "true".into(),
        (BinaryOp::Or, _) => "false".into(),
        (BinaryOp::Max, t) if t.is_float() => format!("{t}::NEG_INFINITY"),
        (BinaryOp::Min, t) if t.is_float() => format!("{t}::INFINITY"),
        (BinaryOp::Max, t) => format!("{t}::MIN"),
        (BinaryOp::Min, t) => format!("{t}::MAX"),
        _ => "0".into(),
    }
}

/// The identity of `op` for `t` as a scalar literal (the Builder's side of [`init_literal`]).
pub fn init_value(op: BinaryOp, t: ElementType) -> Option<xla_aot::core::Literal> {
    let v = match (op, t) {
        (BinaryOp::And, _) => 1.0,
        (BinaryOp::Or, _) => 0.0,
        (BinaryOp::Max, t) if t.is_float() => f64::NEG_INFINITY,
        (BinaryOp::Min, t) if t.is_float() => f64::INFINITY,
        (BinaryOp::Max, t) if t.is_signed_int() => -int_max(t) - 1.0,
        (BinaryOp::Max, _) => 0.0,
        (BinaryOp::Min, t) => int_max(t),
        _ => 0.0,
    };
    constant_literal(&ArrayShape::new(t, &[]), &[v]).map(|(l, _)| l)
}

/// A literal of `shape` from row-major `vals` (complex: real parts), and its source text.
pub fn constant_literal(
    shape: &ArrayShape,
    vals: &[f64],
) -> Option<(xla_aot::core::Literal, String)> {
    use xla_aot::core::{ArrayData, Literal};
    let t = shape.ty;
    let data = match t {
        Pred => ArrayData::Pred(vals.iter().map(|&v| v != 0.0).collect()),
        S8 => ArrayData::S8(vals.iter().map(|&v| v as i8).collect()),
        S16 => ArrayData::S16(vals.iter().map(|&v| v as i16).collect()),
        S32 => ArrayData::S32(vals.iter().map(|&v| v as i32).collect()),
        S64 => ArrayData::S64(vals.iter().map(|&v| v as i64).collect()),
        U8 => ArrayData::U8(vals.iter().map(|&v| v as u8).collect()),
        U16 => ArrayData::U16(vals.iter().map(|&v| v as u16).collect()),
        U32 => ArrayData::U32(vals.iter().map(|&v| v as u32).collect()),
        U64 => ArrayData::U64(vals.iter().map(|&v| v as u64).collect()),
        F16 => ArrayData::F16(vals.iter().map(|&v| half::f16::from_f64(v)).collect()),
        Bf16 => ArrayData::Bf16(vals.iter().map(|&v| half::bf16::from_f64(v)).collect()),
        F32 => ArrayData::F32(vals.iter().map(|&v| v as f32).collect()),
        F64 => ArrayData::F64(vals.to_vec()),
        C64 => ArrayData::C64(
            vals.iter()
                .map(|&v| num_complex::Complex::new(v as f32, 0.0))
                .collect(),
        ),
        C128 => ArrayData::C128(
            vals.iter()
                .map(|&v| num_complex::Complex::new(v, 0.0))
                .collect(),
        ),
    };
    let text_of = |v: f64| -> String {
        if t == Pred {
            (v != 0.0).to_string()
        } else if is_floaty(t) {
            format!("{v:?}")
        } else {
            format!("{}", v as i64)
        }
    };
    let text = nested(&shape.dims, vals, &text_of);
    Some((
        Literal::Array {
            shape: ArrayShape::new(t, &shape.dims),
            data,
        },
        text,
    ))
}

/// `[[a, b], [c, d]]` for dims `[2, 2]`; a scalar alone.
fn nested(dims: &[i64], vals: &[f64], f: &dyn Fn(f64) -> String) -> String {
    match dims.split_first() {
        None => f(vals[0]),
        Some((&n, rest)) => {
            let step = rest.iter().product::<i64>().max(0) as usize;
            let parts: Vec<String> = (0..n as usize)
                .map(|i| nested(rest, &vals[i * step..(i + 1) * step], f))
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// `|a, b| op(a, b)` on scalars of `t`.
pub fn reducer(op: BinaryOp, t: ElementType) -> Arc<Computation> {
    let mut b = Builder::new(format!("{op:?}_{t}"));
    let s = Shape::Array(ArrayShape::new(t, &[]));
    let x = b.parameter(0, s.clone(), "a").expect("scalar parameter");
    let y = b.parameter(1, s, "b").expect("scalar parameter");
    let r = b
        .binary(op, x, y, None)
        .expect("a reducer op of its own type");
    Arc::new(b.build(r).expect("reducer"))
}

/// The argmax step of [`G::argmax`] on values of `t` with s32 indices.
pub fn argmax_reducer(t: ElementType) -> Arc<Computation> {
    use ComparisonDirection::{Eq, Gt, Lt};
    let mut b = Builder::new(format!("argmax_{t}"));
    let v = Shape::Array(ArrayShape::new(t, &[]));
    let i = Shape::Array(ArrayShape::new(S32, &[]));
    let total = t.is_float();
    let step = (|| -> Result<_, xla_aot::core::Error> {
        let av = b.parameter(0, v.clone(), "av")?;
        let ai = b.parameter(1, i.clone(), "ai")?;
        let bv = b.parameter(2, v, "bv")?;
        let bi = b.parameter(3, i, "bi")?;
        let gt = b.compare(Gt, total, av, bv, None)?;
        let eq = b.compare(Eq, total, av, bv, None)?;
        let lt = b.compare(Lt, false, ai, bi, None)?;
        let tie = b.binary(BinaryOp::And, eq, lt, None)?;
        let take = b.binary(BinaryOp::Or, gt, tie, None)?;
        let sv = b.select(take, av, bv)?;
        let si = b.select(take, ai, bi)?;
        b.tuple(&[sv, si])
    })()
    .expect("argmax step");
    Arc::new(b.build(step).expect("argmax reducer"))
}

/// Types a dot of `from` operands may be asked to produce (XLA's rule; complex stays complex,
/// as ours requires).
pub fn preferred_types(from: ElementType) -> Vec<ElementType> {
    let width = |t: ElementType| if t == Pred { 1 } else { t.bit_width() };
    ElementType::ALL
        .into_iter()
        .filter(|&to| {
            (to.is_complex() || !from.is_complex()) && (from.is_float() || width(to) >= width(from))
        })
        .collect()
}
