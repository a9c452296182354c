//! CHLO's elementwise functions on complex numbers (`chlo.acos`, `asin`, `atan`, `acosh`,
//! `asinh`, `atanh`, `sinh` of c64 and c128) as `Map` of the scalar function XLA
//! compiles for them: CHLO's legalization to StableHLO followed by StableHLO's complex math
//! expander (Kahan-style `asin`/`acos` of Hull et al., `log1p` forms, `exp(z + log(1/2))` for
//! `cosh`/`sinh`, ...). `chlo_complex/export.py` wrote each one from jaxlib (the text XLA itself
//! produces), so branch cuts, signed zeros and overflow guards are XLA's by construction; the
//! importer reads the text like any other module. `chlo.cosh` is not among them: it is our
//! `Cosh` op, which the export writes as `chlo.cosh`, so it imports back as itself (the round
//! trip gives the same IR).

use std::sync::Arc;

use super::super::ast::Operation;
use super::super::{parse_module, ImportError, Result};
use super::{bind_results, shape_err, Scope};
use crate::element::ElementType;
use crate::ir::Computation;
use crate::shape::Shape;

/// `(op, c64 text, c128 text)`.
const FUNCTIONS: [(&str, &str, &str); 7] = [
    (
        "chlo.acos",
        include_str!("chlo_complex/acos_c64.mlir"),
        include_str!("chlo_complex/acos_c128.mlir"),
    ),
    (
        "chlo.asin",
        include_str!("chlo_complex/asin_c64.mlir"),
        include_str!("chlo_complex/asin_c128.mlir"),
    ),
    (
        "chlo.atan",
        include_str!("chlo_complex/atan_c64.mlir"),
        include_str!("chlo_complex/atan_c128.mlir"),
    ),
    (
        "chlo.acosh",
        include_str!("chlo_complex/acosh_c64.mlir"),
        include_str!("chlo_complex/acosh_c128.mlir"),
    ),
    (
        "chlo.asinh",
        include_str!("chlo_complex/asinh_c64.mlir"),
        include_str!("chlo_complex/asinh_c128.mlir"),
    ),
    (
        "chlo.atanh",
        include_str!("chlo_complex/atanh_c64.mlir"),
        include_str!("chlo_complex/atanh_c128.mlir"),
    ),
    (
        "chlo.sinh",
        include_str!("chlo_complex/sinh_c64.mlir"),
        include_str!("chlo_complex/sinh_c128.mlir"),
    ),
];

/// The scalar function text for `op` on a complex tensor `x`, if this module decomposes it.
pub(super) fn text_for(s: &Scope, op: &Operation) -> Option<&'static str> {
    let (_, c64, c128) = FUNCTIONS.iter().find(|(n, _, _)| *n == op.name)?;
    let [x] = &op.operands[..] else {
        return None;
    };
    let x = s.get(x, op.pos).ok()?;
    match s.b.shape(x).as_array()?.ty {
        ElementType::C64 => Some(c64),
        ElementType::C128 => Some(c128),
        _ => None,
    }
}

/// Lowers `op` (one complex operand, `text_for` gave `text`) as `Map(x, function)`.
pub(super) fn lower(s: &mut Scope, op: &Operation, text: &str) -> Result<()> {
    if let Some((name, _)) = op.attrs.first() {
        return Err(ImportError::Unsupported {
            feature: format!("attribute `{name}` of {}", op.name),
            pos: op.pos,
        });
    }
    let f = function(text).map_err(|e| ImportError::Invalid {
        message: format!(
            "{}: its complex decomposition does not import: {e}",
            op.name
        ),
        pos: op.pos,
    })?;
    let x = s.get(&op.operands[0], op.pos)?;
    let rank = match s.b.shape(x) {
        Shape::Array(a) => a.dims.len() as i64,
        Shape::Tuple(_) | Shape::Token => 0,
    };
    let dims: Vec<i64> = (0..rank).collect();
    let r =
        s.b.map(&[x], &f, &dims)
            .map_err(|e| shape_err(&op.name, e, op.pos))?;
    bind_results(s, op, r, false)
}

/// The scalar function of `text` (`@main`).
fn function(text: &str) -> Result<Arc<Computation>> {
    let m = parse_module(text)?;
    let f = m.function("main").ok_or_else(|| ImportError::Invalid {
        message: "no @main".into(),
        pos: super::super::Pos::default(),
    })?;
    Ok(Arc::clone(&f.computation))
}
