//! `stablehlo.custom_call`: the LAPACK calls JAX emits on CPU become our ops (`lapack.rs`),
//! `@ragged_all_to_all` our RaggedAllToAll (`ragged.rs`); any other target is our `CustomCall`, a call of the Rust fn of that path in the crate that
//! imports the module (the evaluator cannot run it: an `Err` naming the target).
//!
//! Read: `call_target_name` (a `@symbol` in the pretty form), `api_version` (1 to 4),
//! `backend_config` (a string, or the dictionary of the typed FFI, kept as its text in
//! `opaque`; an empty one falls back to `mhlo.backend_config`), `has_side_effect`,
//! `operand_layouts`/`result_layouts` (row-major ones only: the Rust fn reads row-major
//! views), `output_operand_aliases` (a buffer-reuse hint, without effect on values).
//! `called_computations` and any other attribute not known to be without effect are an error.

use super::super::ast::{Attr, Operation, Type};
use super::super::attrs::ints_of;
use super::super::{ImportError, Result};
use super::{attrs::ignorable, bind_results, lapack, ragged, shape_err, Scope};
use crate::builder::XlaOp;
use crate::shape::Shape;

/// Lowers one `stablehlo.custom_call`.
pub(super) fn lower(s: &mut Scope, op: &Operation) -> Result<()> {
    let target = match op.attr("call_target_name") {
        Some(Attr::Str(t) | Attr::Symbol(t)) => t.clone(),
        _ => {
            return Err(ImportError::Invalid {
                message: "stablehlo.custom_call needs a call_target_name".into(),
                pos: op.pos,
            })
        }
    };
    if let Some(call) = lapack::Call::of(&target) {
        return lapack::lower(s, op, call);
    }
    if target == ragged::TARGET {
        return ragged::lower(s, op);
    }
    let unsupported = |feature: String| ImportError::Unsupported {
        feature: format!("stablehlo.custom_call @{target}: {feature}"),
        pos: op.pos,
    };
    if target.starts_with("lapack_") {
        return Err(unsupported(
            "a LAPACK routine the importer does not map (it maps JAX's ?potrf_ffi and \
             ?trsm_ffi)"
                .into(),
        ));
    }
    let mut opaque = String::new();
    let mut has_side_effect = false;
    for (name, a) in &op.attrs {
        match (name.as_str(), a) {
            ("call_target_name" | "output_operand_aliases", _) => {}
            ("api_version", Attr::Int(0..=4)) => {}
            ("api_version", Attr::Enum(_, v)) if v.starts_with("API_VERSION_") => {}
            ("backend_config", Attr::Str(t)) => opaque.clone_from(t),
            ("backend_config", d @ Attr::Dict(_)) => opaque = attr_text(d),
            ("has_side_effect", Attr::Bool(b)) => has_side_effect = *b,
            ("called_computations", Attr::List(l)) if l.is_empty() => {}
            ("custom_call_schedule", Attr::Enum(_, v)) if v == "SCHEDULE_NONE" => {}
            ("operand_layouts" | "result_layouts", _) => {}
            (n, _) if ignorable(n) => {}
            (n, a) => return Err(unsupported(format!("attribute `{n} = {}`", attr_text(a)))),
        }
    }
    if opaque.is_empty() {
        if let Some(d @ Attr::Dict(_)) = op.attr("mhlo.backend_config") {
            opaque = attr_text(d);
        }
    }
    let operands = row_major_operands(s, op, &unsupported)?;
    let shape = match &op.result_types[..] {
        [t] => t.shape(),
        ts => Shape::Tuple(ts.iter().map(Type::shape).collect()),
    };
    let r =
        s.b.custom_call(&target, &operands, &shape, &opaque, has_side_effect)
            .map_err(|e| shape_err(&op.name, e, op.pos))?;
    bind_results(s, op, r, op.result_types.len() != 1)
}

/// The call's operands, after checking that its `operand_layouts` and `result_layouts` (when
/// given) are row-major, the only layout read; `unsupported` makes the error of one that is not.
pub(super) fn row_major_operands(
    s: &Scope,
    op: &Operation,
    unsupported: &dyn Fn(String) -> ImportError,
) -> Result<Vec<XlaOp>> {
    let operands = op
        .operands
        .iter()
        .map(|n| s.get(n, op.pos))
        .collect::<Result<Vec<_>>>()?;
    let ranks: Vec<usize> = operands
        .iter()
        .map(|&v| s.b.shape(v).as_array().map_or(0, |a| a.dims.len()))
        .collect();
    check_layouts(op, "operand_layouts", &ranks, row_major).map_err(unsupported)?;
    let ranks: Vec<usize> = op.result_types.iter().map(rank).collect();
    check_layouts(op, "result_layouts", &ranks, row_major).map_err(unsupported)?;
    Ok(operands)
}

/// The rank of a tensor type (0 for others).
pub(super) fn rank(t: &Type) -> usize {
    t.tensor().map_or(0, |a| a.dims.len())
}

/// The row-major layout of rank `r`, minor to major: `[r-1, ..., 0]`.
pub(super) fn row_major(r: usize) -> Vec<i64> {
    (0..r as i64).rev().collect()
}

/// `Err` naming the first layout of `attr` (a list, one per value of rank `ranks[i]`) that is
/// not `want(rank)`.
pub(super) fn check_layouts(
    op: &Operation,
    attr: &str,
    ranks: &[usize],
    want: impl Fn(usize) -> Vec<i64>,
) -> std::result::Result<(), String> {
    let Some(a) = op.attr(attr) else {
        return Ok(());
    };
    let Attr::List(items) = a else {
        return Err(format!("`{attr}` is not a list of layouts"));
    };
    if items.len() != ranks.len() {
        return Err(format!(
            "`{attr}` has {} layouts for {} values",
            items.len(),
            ranks.len()
        ));
    }
    for (i, (item, &r)) in items.iter().zip(ranks).enumerate() {
        let got = ints_of(item).unwrap_or_default();
        if got != want(r) {
            return Err(format!(
                "{attr}[{i}] is {{{}}}, only {{{}}} is read",
                join(&got),
                join(&want(r))
            ));
        }
    }
    Ok(())
}

fn join(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// An attribute as MLIR text (for `opaque` and messages).
pub(super) fn attr_text(a: &Attr) -> String {
    match a {
        Attr::Int(v) => v.to_string(),
        Attr::Float(v) => format!("{v:?}"),
        Attr::Bool(v) => v.to_string(),
        Attr::Str(v) => format!("{v:?}"),
        Attr::Symbol(v) => format!("@{v}"),
        Attr::Array(v) => format!("array<i64: {}>", join(v)),
        Attr::List(v) => format!(
            "[{}]",
            v.iter().map(attr_text).collect::<Vec<_>>().join(", ")
        ),
        Attr::Dict(v) => format!(
            "{{{}}}",
            v.iter()
                .map(|(n, a)| format!("{n} = {}", attr_text(a)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Attr::Enum(k, v) if k.is_empty() => v.clone(),
        Attr::Enum(k, v) => format!("#{k}<{v}>"),
        Attr::Unit => "unit".into(),
        Attr::Opaque(t) => t.clone(),
        Attr::Dense(..) | Attr::Struct(..) | Attr::Conv(_) | Attr::Type(_) => format!("{a:?}"),
    }
}
