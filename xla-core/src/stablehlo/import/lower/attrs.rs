//! StableHLO attributes as the registry's [`Attrs`]: each attribute of the op's schema is
//! taken from the StableHLO attribute of the same name (the fields of `#stablehlo.dot`,
//! `#stablehlo.gather` and `#stablehlo.scatter` are read as attributes of their own), or
//! derived where StableHLO says it otherwise: the result type gives `new_element_type`,
//! `out_dim_size` and `new_sizes`, `comparison_direction` is `direction`, the three padding
//! lists make `padding_config`, the result types give all_gather's and reduce_scatter's
//! `shard_count` (XLA's group size, which StableHLO leaves to the types). An attribute left over that is not known to be without effect
//! (precision, sharding, frontend attributes) is unsupported.

use std::cell::Cell;

use super::super::ast::{Attr, Operation};
use super::super::attrs::ints_of;
use super::super::{ImportError, Result};
use crate::builder::{Builder, XlaOp};
use crate::ir::{
    ComparisonDirection, ComparisonType, FftType, PadDim, RandomAlgorithm, TransposeA,
};
use crate::registry::{AttrKind, AttrSpec, AttrValue, Attrs, OpSpec};

/// Attributes with no effect on the computation on CPU.
pub(super) fn ignorable(name: &str) -> bool {
    matches!(name, "precision_config" | "algorithm" | "result_accuracy")
        || ["mhlo.", "jax.", "sdy.", "tf.", "xla.", "_"]
            .iter()
            .any(|p| name.starts_with(p))
}

/// The op's attributes, flattened, each marked when used.
struct Source<'a> {
    attrs: Vec<(String, &'a Attr, Cell<bool>)>,
}

impl<'a> Source<'a> {
    fn new(op: &'a Operation) -> Self {
        let mut attrs = Vec::new();
        for (name, a) in &op.attrs {
            match a {
                Attr::Struct(s, fields)
                    if matches!(
                        s.as_str(),
                        "stablehlo.dot"
                            | "stablehlo.gather"
                            | "stablehlo.scatter"
                            | "chlo.ragged_dot"
                    ) =>
                {
                    // Gather's and scatter's fields are the registry's names; the dots'
                    // `lhs_batching_dimensions` is `lhs_batch_dimensions` there.
                    for (f, v) in fields {
                        let f = f.replace("_batching_dimensions", "_batch_dimensions");
                        attrs.push((f, v, Cell::new(false)));
                    }
                }
                _ => attrs.push((name.clone(), a, Cell::new(false))),
            }
        }
        Source { attrs }
    }

    /// The attribute `name`, marked used.
    fn take(&self, name: &str) -> Option<&'a Attr> {
        let (_, a, used) = self.attrs.iter().find(|(n, _, _)| n == name)?;
        used.set(true);
        Some(a)
    }

    /// The first attribute neither used nor ignorable.
    fn leftover(&self) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _, used)| !used.get() && !ignorable(n))
            .map(|(n, _, _)| n.as_str())
    }
}

fn enum_value(a: &Attr) -> Option<&str> {
    match a {
        Attr::Enum(_, v) => Some(v),
        Attr::Str(s) => Some(s),
        _ => None,
    }
}

fn direction(name: &str) -> Option<ComparisonDirection> {
    ComparisonDirection::ALL
        .into_iter()
        .find(|d| format!("{d:?}").eq_ignore_ascii_case(name))
}

/// `[[l, h], ...]` from a dense `Nx2` tensor or nested lists.
fn pairs(a: &Attr) -> Option<Vec<(i64, i64)>> {
    let flat = match a {
        Attr::List(items) if items.iter().all(|i| matches!(i, Attr::List(_))) => {
            let rows: Option<Vec<Vec<i64>>> = items.iter().map(ints_of).collect();
            let rows = rows?;
            if rows.iter().any(|r| r.len() != 2) {
                return None;
            }
            rows.concat()
        }
        other => ints_of(other)?,
    };
    (flat.len() % 2 == 0).then(|| flat.chunks(2).map(|p| (p[0], p[1])).collect())
}

/// `replica_groups`: `dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>` (rows of the 2-D type; -1
/// pads a short group, as XLA writes groups of unequal sizes) or nested lists.
pub(super) fn groups(a: &Attr) -> Option<Vec<Vec<i64>>> {
    let rows: Vec<Vec<i64>> = match a {
        Attr::Dense(_, Some(t)) => {
            let flat = ints_of(a)?;
            let dims = t.tensor()?.dims.clone();
            match dims.as_slice() {
                [g, n] if *g * *n == flat.len() as i64 => flat
                    .chunks((*n).max(1) as usize)
                    .map(<[i64]>::to_vec)
                    .collect(),
                [0, _] | [_, 0] => Vec::new(),
                _ => return None,
            }
        }
        Attr::List(items) => items.iter().map(ints_of).collect::<Option<_>>()?,
        _ => return None,
    };
    Some(
        rows.into_iter()
            .map(|r| r.into_iter().filter(|&i| i >= 0).collect())
            .collect(),
    )
}

fn bools(a: &Attr) -> Option<Vec<bool>> {
    match a {
        Attr::List(items) => items
            .iter()
            .map(|i| match i {
                Attr::Bool(b) => Some(*b),
                Attr::Int(v) => Some(*v != 0),
                _ => None,
            })
            .collect(),
        other => ints_of(other).map(|v| v.into_iter().map(|x| x != 0).collect()),
    }
}

/// The value of a plain attribute of kind `kind`.
fn plain(kind: AttrKind, a: &Attr) -> Option<AttrValue> {
    Some(match kind {
        AttrKind::Int => match a {
            Attr::Int(v) => AttrValue::Int(i64::try_from(*v).ok()?),
            _ => return None,
        },
        AttrKind::Ints => AttrValue::Ints(ints_of(a)?),
        AttrKind::Bool => match a {
            Attr::Bool(b) => AttrValue::Bool(*b),
            Attr::Unit => AttrValue::Bool(true),
            _ => return None,
        },
        AttrKind::Bools => AttrValue::Bools(bools(a)?),
        AttrKind::Shape => match a {
            Attr::Type(t) => AttrValue::Shape(t.shape()),
            _ => return None,
        },
        AttrKind::Str => match a {
            Attr::Str(s) => AttrValue::Str(s.clone()),
            _ => return None,
        },
        AttrKind::Type => match a {
            Attr::Type(t) => AttrValue::Type(t.tensor()?.ty),
            _ => return None,
        },
        AttrKind::Direction => AttrValue::Direction(direction(enum_value(a)?)?),
        AttrKind::ComparisonType => {
            AttrValue::ComparisonType(ComparisonType::from_name(enum_value(a)?)?)
        }
        AttrKind::Pairs => AttrValue::Pairs(pairs(a)?),
        AttrKind::ConvDims => match a {
            Attr::Conv(d) => AttrValue::ConvDims(d.clone()),
            _ => return None,
        },
        AttrKind::Precision => AttrValue::Precision,
        AttrKind::Float => match a {
            Attr::Float(f) => AttrValue::Float(*f),
            Attr::Int(v) => AttrValue::Float(*v as f64),
            _ => return None,
        },
        AttrKind::WindowPadding => AttrValue::Pairs(pairs(a)?),
        AttrKind::Transpose => AttrValue::Transpose(TransposeA::from_name(enum_value(a)?)?),
        AttrKind::RngAlgorithm => {
            AttrValue::RngAlgorithm(RandomAlgorithm::from_name(enum_value(a)?)?)
        }
        AttrKind::FftType => AttrValue::FftType(FftType::from_name(enum_value(a)?)?),
        AttrKind::Groups => AttrValue::Groups(groups(a)?),
        AttrKind::PaddingConfig | AttrKind::PaddingKind => return None,
    })
}

/// The schema attribute `spec` for `op`: taken from `src` or derived.
fn value(
    spec: &AttrSpec,
    op: &Operation,
    src: &Source<'_>,
    b: &Builder,
    operands: &[XlaOp],
) -> Result<Option<AttrValue>> {
    let result = op.result_types.first().and_then(|t| t.tensor());
    let spatial = || match src.attrs.iter().find(|(n, _, _)| n == "dimension_numbers") {
        Some((_, Attr::Conv(d), _)) => d.input_spatial_dimensions.len(),
        _ => 0,
    };
    let bad = |name: &str| ImportError::Invalid {
        message: format!(
            "attribute `{name}` of {} has the wrong kind of value",
            op.name
        ),
        pos: op.pos,
    };
    let from = |name: &str, kind: AttrKind| -> Result<Option<AttrValue>> {
        match src.take(name) {
            Some(a) => plain(kind, a).map(Some).ok_or_else(|| bad(name)),
            None => Ok(None),
        }
    };
    Ok(match spec.name {
        "new_element_type" => result.map(|r| AttrValue::Type(r.ty)),
        "out_dim_size" | "new_sizes" => result.map(|r| AttrValue::Ints(r.dims.clone())),
        "direction" => from("comparison_direction", AttrKind::Direction)?,
        // `#stablehlo.channel_handle<handle = 1, type = 1>`: the handle is the id.
        "channel_id" => match src.take("channel_handle") {
            None => None,
            Some(Attr::Struct(_, fields)) => match fields.iter().find(|(f, _)| f == "handle") {
                Some((_, Attr::Int(v))) => Some(AttrValue::Int(
                    i64::try_from(*v).map_err(|_| bad("channel_handle"))?,
                )),
                _ => return Err(bad("channel_handle")),
            },
            Some(_) => return Err(bad("channel_handle")),
        },
        // Infeed's and Recv's data type: every result but the token (several: a tuple).
        "shape" if matches!(op.name.as_str(), "stablehlo.infeed" | "stablehlo.recv") => {
            // Row-major is the only layout arrays have here; XLA's default.
            src.take("layout");
            let data: Vec<crate::shape::Shape> = op
                .result_types
                .iter()
                .take(op.result_types.len().saturating_sub(1))
                .map(|t| t.shape())
                .collect();
            Some(AttrValue::Shape(match <[_; 1]>::try_from(data) {
                Ok([one]) => one,
                Err(many) => crate::shape::Shape::Tuple(many),
            }))
        }
        "config" if op.name == "stablehlo.infeed" => from("infeed_config", AttrKind::Str)?,
        "shard_count" => shard_count(op, src, b, operands)?.map(AttrValue::Int),
        // chlo.scan's `dimension`; its input/init split is read by the lowering.
        "scan_dimension" => {
            src.take("operandSegmentSizes");
            src.take("resultSegmentSizes");
            from("dimension", AttrKind::Int)?
        }
        "algorithm" if spec.kind == AttrKind::RngAlgorithm => {
            from("rng_algorithm", AttrKind::RngAlgorithm)?
        }
        "comparison_type" => match src.take("compare_type").and_then(enum_value) {
            Some("NOTYPE") | None => None,
            Some(_) => from("compare_type", AttrKind::ComparisonType)?,
        },
        "padding_config" => {
            let lists = ["edge_padding_low", "edge_padding_high", "interior_padding"].map(|n| {
                src.take(n)
                    .map(|a| ints_of(a).ok_or_else(|| bad(n)))
                    .transpose()
            });
            let [lo, hi, inner] = lists;
            let (lo, hi, inner) = (
                lo?.unwrap_or_default(),
                hi?.unwrap_or_default(),
                inner?.unwrap_or_default(),
            );
            if lo.len() != hi.len() || lo.len() != inner.len() {
                return Err(bad("edge_padding_low"));
            }
            let config = (0..lo.len()).map(|i| PadDim {
                low: lo[i],
                high: hi[i],
                interior: inner[i],
            });
            Some(AttrValue::PaddingConfig(config.collect()))
        }
        "padding" if spec.kind == AttrKind::Pairs => Some(
            from("padding", AttrKind::Pairs)?
                .unwrap_or_else(|| AttrValue::Pairs(vec![(0, 0); spatial()])),
        ),
        // ReduceWindow's strides default to 1 per operand dimension in the builder.
        "window_strides"
            if op.name == "stablehlo.reduce_window"
                || op.name == "stablehlo.select_and_scatter" =>
        {
            from("window_strides", AttrKind::Ints)?
        }
        "window_strides" => Some(
            from("window_strides", AttrKind::Ints)?
                .unwrap_or_else(|| AttrValue::Ints(vec![1; spatial()])),
        ),
        "preferred_element_type" => {
            let operand = operands.first().and_then(|&o| b.element_type(o));
            result
                .filter(|r| Some(r.ty) != operand)
                .map(|r| AttrValue::Type(r.ty))
        }
        "precision_config" => {
            src.take("precision_config");
            None
        }
        name => from(name, spec.kind)?,
    })
}

/// The group size all_gather's and reduce_scatter's declared types imply, XLA's
/// `shard_count`: `result / operand` (all_gather) or `operand / result` (reduce_scatter) along
/// the op's dimension, the same for every operand. `None` where the types cannot tell (a zero
/// or dynamic dimension, no result types); the builder's inference then checks it against the
/// groups, and drops it where the groups tell the size themselves.
fn shard_count(
    op: &Operation,
    src: &Source<'_>,
    b: &Builder,
    operands: &[XlaOp],
) -> Result<Option<i64>> {
    let (dim_name, gather) = match op.name.as_str() {
        "stablehlo.all_gather" => ("all_gather_dim", true),
        "stablehlo.reduce_scatter" => ("scatter_dimension", false),
        _ => return Ok(None),
    };
    let Some(d) = src.take(dim_name).and_then(|a| match a {
        Attr::Int(v) => usize::try_from(*v).ok(),
        _ => None,
    }) else {
        // Missing or out of range: the registry's own reading of it reports that.
        return Ok(None);
    };
    let invalid = |message: String| ImportError::Invalid {
        message,
        pos: op.pos,
    };
    let mut found: Option<(usize, i64)> = None;
    for (i, (&x, result)) in operands.iter().zip(&op.result_types).enumerate() {
        let (Some(a), Some(r)) = (
            b.try_shape(x).ok().and_then(|s| s.as_array()),
            result.tensor(),
        ) else {
            continue;
        };
        let (Some(&from), Some(&to)) = (a.dims.get(d), r.dims.get(d)) else {
            continue;
        };
        if a.dynamic.get(d) == Some(&true) || r.dynamic.get(d) == Some(&true) {
            continue;
        }
        let (num, den) = if gather { (to, from) } else { (from, to) };
        if den <= 0 || num < 0 {
            continue;
        }
        if num % den != 0 {
            let (bigger, smaller) = if gather {
                ("result", "operand")
            } else {
                ("operand", "result")
            };
            return Err(invalid(format!(
                "{}: dimension {d} ({dim_name}) of {bigger} {i}, {num}, is not a multiple of \
                 the {smaller}'s, {den}: the group size (XLA's shard_count) it implies is not a \
                 whole number",
                op.name
            )));
        }
        let n = num / den;
        match found {
            Some((j, m)) if m != n => {
                return Err(invalid(format!(
                    "{}: the types of operand {j} imply a group size (shard_count) of {m}, those \
                     of operand {i} of {n}",
                    op.name
                )))
            }
            Some(_) => {}
            None => found = Some((i, n)),
        }
    }
    Ok(found.map(|(_, n)| n))
}

/// The registry attributes of `op` under `spec`; `Err` for an attribute that cannot be read
/// or is not understood.
pub(super) fn attributes(
    spec: &OpSpec,
    op: &Operation,
    b: &Builder,
    operands: &[XlaOp],
) -> Result<Attrs> {
    let src = Source::new(op);
    src.take("value");
    let mut attrs = Attrs::default();
    for a in spec.attrs {
        if let Some(v) = value(a, op, &src, b, operands)? {
            attrs.set(a.name, v);
        }
    }
    if let Some(name) = src.leftover() {
        return Err(ImportError::Unsupported {
            feature: format!("attribute `{name}` of {}", op.name),
            pos: op.pos,
        });
    }
    Ok(attrs)
}
