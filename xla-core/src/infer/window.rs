//! Windowed ops: `ReduceWindow` (variadic), `SelectAndScatter` and their window (XLA's `MakeWindow`,
//! `InferWindowOutputShape`, `InferReduceWindowShape`).

use super::conv::{padding_for, Padding};
use super::list;
use super::reduce::{check_reducer, reduce_operands};
use crate::error::{Blame, Error, Result};
use crate::ir::{Computation, Window};
use crate::shape::{ArrayShape, Shape};

/// How a window op's padding is given: XLA's `Padding::kSame` / `kValid`, or explicit pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WindowPadding {
    /// SAME or VALID, resolved against the (dilated) operand and window sizes.
    Kind(Padding),
    /// One `(low, high)` per operand dimension.
    Explicit(Vec<(i64, i64)>),
}

/// A window as an application gives it: only `dimensions` is required; strides and dilations
/// default to 1, padding to VALID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowSpec {
    /// Window size per dimension.
    pub dimensions: Vec<i64>,
    /// Step per dimension (`None`: all 1).
    pub strides: Option<Vec<i64>>,
    /// Base (operand) dilation per dimension (`None`: all 1).
    pub base_dilations: Option<Vec<i64>>,
    /// Window dilation per dimension (`None`: all 1).
    pub window_dilations: Option<Vec<i64>>,
    /// SAME, VALID or explicit pairs.
    pub padding: WindowPadding,
}

impl WindowSpec {
    /// A VALID window of `dimensions` with unit strides and dilations.
    pub fn new(dimensions: &[i64]) -> Self {
        WindowSpec {
            dimensions: dimensions.to_vec(),
            strides: None,
            base_dilations: None,
            window_dilations: None,
            padding: WindowPadding::Kind(Padding::Valid),
        }
    }
}

/// `(n - 1) * d + 1` (0 for `n = 0`): the extent of `n` elements with `d - 1` holes between.
pub fn dilated(n: i64, d: i64) -> i64 {
    if n <= 0 {
        0
    } else {
        (n - 1) * d + 1
    }
}

/// The window `spec` over `base`, every list checked against the rank and every entry against
/// its lower bound, SAME/VALID resolved (on the dilated sizes, which is XLA's `MakePadding`
/// when the dilations are 1).
pub fn make_window(op: &str, base: &ArrayShape, spec: &WindowSpec) -> Result<Window> {
    let rank = base.rank();
    let ones = vec![1; rank];
    let check = |attr: &'static str, v: &[i64], min: i64, what: &str| -> Result<()> {
        if v.len() != rank {
            return Err(Error::new(
                op,
                format!(
                    "{attr} {} has {} but the operand {base} has rank {rank}",
                    list(v),
                    crate::error::count(v.len(), "entry", "entries")
                ),
            )
            .blame(Blame::Attribute(attr)));
        }
        if let Some((i, x)) = v.iter().enumerate().find(|(_, &x)| x < min) {
            return Err(
                Error::new(op, format!("{attr}[{i}] = {x}: {what} (operand {base})"))
                    .blame(Blame::Attribute(attr)),
            );
        }
        Ok(())
    };
    let dims = &spec.dimensions;
    check(
        "window_dimensions",
        dims,
        1,
        "a window is at least 1 element wide",
    )?;
    let strides = spec.strides.as_deref().unwrap_or(&ones);
    check("window_strides", strides, 1, "a stride is at least 1")?;
    let base_d = spec.base_dilations.as_deref().unwrap_or(&ones);
    check("base_dilations", base_d, 1, "a dilation is at least 1")?;
    let win_d = spec.window_dilations.as_deref().unwrap_or(&ones);
    check("window_dilations", win_d, 1, "a dilation is at least 1")?;
    let padding = match &spec.padding {
        WindowPadding::Kind(kind) => {
            let sizes = |n: &[i64], d: &[i64]| -> Vec<i64> {
                n.iter().zip(d).map(|(&n, &d)| dilated(n, d)).collect()
            };
            padding_for(
                *kind,
                &sizes(&base.dims, base_d),
                &sizes(dims, win_d),
                strides,
            )
        }
        WindowPadding::Explicit(p) => {
            if p.len() != rank {
                return Err(Error::new(
                    op,
                    format!(
                        "padding has {} but the operand {base} has rank {rank}",
                        crate::error::count(p.len(), "(low, high) pair", "(low, high) pairs")
                    ),
                )
                .blame(Blame::Attribute("padding")));
            }
            p.clone()
        }
    };
    let window = Window {
        dimensions: dims.clone(),
        strides: strides.to_vec(),
        padding,
        base_dilations: base_d.to_vec(),
        window_dilations: win_d.to_vec(),
    };
    window_output_dims(op, base, &window)?;
    Ok(window)
}

/// The number of window positions per dimension (XLA's `InferWindowOutputShape`):
/// `floor((padded - dilated_window) / stride) + 1`, 0 when the window does not fit, where
/// `padded = low + dilated(base, base_dilation) + high` must not be negative.
pub fn window_output_dims(op: &str, base: &ArrayShape, w: &Window) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(base.rank());
    for (i, &n) in base.dims.iter().enumerate() {
        let (lo, hi) = w.padding[i];
        let padded = lo + dilated(n, w.base_dilations[i]) + hi;
        if padded < 0 {
            return Err(Error::new(
                op,
                format!(
                    "padding ({lo}, {hi}) of dimension {i} cuts more than the {} elements of \
                     the dilated operand {base}",
                    dilated(n, w.base_dilations[i])
                ),
            )
            .blame(Blame::Attribute("padding")));
        }
        let span = dilated(w.dimensions[i], w.window_dilations[i]);
        out.push(if span > padded {
            0
        } else {
            (padded - span) / w.strides[i] + 1
        });
    }
    Ok(out)
}

/// The result of `ReduceWindow(operands..., init_values..., computation, window)` and the
/// resolved window: each operand's element type over the window positions; a tuple when N > 1.
pub fn reduce_window(
    operands: &[&Shape],
    init_values: &[&Shape],
    computation: &Computation,
    spec: &WindowSpec,
) -> Result<(Shape, Window)> {
    let op = "ReduceWindow";
    let arrays = reduce_operands(op, operands, init_values)?;
    let first = arrays[0];
    let window = make_window(op, first, spec)?;
    check_reducer(op, &arrays, computation)?;
    let dims = window_output_dims(op, first, &window)?;
    let each = |a: &ArrayShape| Shape::Array(ArrayShape::new(a.ty, &dims));
    let out = if arrays.len() == 1 {
        each(first)
    } else {
        Shape::Tuple(arrays.iter().map(|a| each(a)).collect())
    };
    Ok((out, window))
}

/// XLA's `InferSelectAndScatterShape`: `select: (T[], T[]) -> pred[]` over the operand's type
/// `T`, a window without dilations, `source` of the window's output dims and type `T`, a
/// scalar `init_value` of `T` and `scatter: (T[], T[]) -> T[]`; the result is the operand's
/// shape. Values are blamed as written: operand 0, source 1, init_value 2; computations
/// select 0, scatter 1.
pub fn select_and_scatter(
    operand: &Shape,
    select: &Computation,
    spec: &WindowSpec,
    source: &Shape,
    init_value: &Shape,
    scatter: &Computation,
) -> Result<(Shape, Window)> {
    let op = "SelectAndScatter";
    let x = super::expect_array(op, "the operand", operand, Blame::Operand(0))?;
    let t = x.ty;
    let scalar_of = |s: &Shape, ty| matches!(s, Shape::Array(a) if a.is_scalar() && a.ty == ty);
    let binary = |c: &Computation, result: crate::element::ElementType| {
        c.params.len() == 2
            && c.params.iter().all(|p| scalar_of(p, t))
            && scalar_of(c.result_shape(), result)
    };
    if !binary(select, crate::element::ElementType::Pred) {
        return Err(Error::new(
            op,
            format!(
                "select must be ({t}[], {t}[]) -> pred[] over the operand {x}, got ({}) -> {}",
                params_text(select),
                select.result_shape()
            ),
        )
        .blame(Blame::ComputationAt(0)));
    }
    if spec.base_dilations.is_some() || spec.window_dilations.is_some() {
        return Err(Error::new(
            op,
            "takes no dilations: its window is window_dimensions, window_strides and padding",
        )
        .blame(Blame::Op));
    }
    let window = make_window(op, x, spec)?;
    let dims = window_output_dims(op, x, &window)?;
    let want = ArrayShape::new(t, &dims);
    let src = super::expect_array(op, "the source", source, Blame::Operand(1))?;
    if src.ty != t || !src.same_dims(&want) {
        return Err(Error::new(
            op,
            format!(
                "source must have the shape of the window positions {want} (operand {x}, \
                 window {} strides {}), got {src}",
                list(&window.dimensions),
                list(&window.strides)
            ),
        )
        .blame(Blame::Operand(1)));
    }
    if !scalar_of(init_value, t) {
        return Err(Error::new(
            op,
            format!("init_value must be a scalar {t}[] like the operand {x}, got {init_value}"),
        )
        .blame(Blame::Operand(2)));
    }
    if !binary(scatter, t) {
        return Err(Error::new(
            op,
            format!(
                "scatter must be ({t}[], {t}[]) -> {t}[] over the operand {x}, got ({}) -> {}",
                params_text(scatter),
                scatter.result_shape()
            ),
        )
        .blame(Blame::ComputationAt(1)));
    }
    Ok((Shape::Array(x.with_type(t)), window))
}

/// `a, b` of a computation's parameter shapes, for messages.
fn params_text(c: &Computation) -> String {
    let v: Vec<String> = c.params.iter().map(|p| p.to_string()).collect();
    v.join(", ")
}

#[cfg(test)]
mod tests;
