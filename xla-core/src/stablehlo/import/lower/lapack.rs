//! The LAPACK custom calls JAX emits on CPU (jaxlib's typed FFI kernels), as our ops:
//!
//! - `lapack_{s,d,c,z}potrf_ffi(a) -> (l, info)` (`jnp.linalg.cholesky`, `lax.linalg.cholesky`):
//!   `l = select(tri, Cholesky(a, lower), a)`, the `uplo` triangle factored and the other one
//!   left as it was (LAPACK factors in place); `info[batch] = 0` when every pivot `l_jj` is
//!   positive, else the first `j` (1-based) where it is not, as LAPACK defines it. Where a
//!   pivot is zero or not a number our Cholesky makes the whole matrix NaN, so `info` is then
//!   1, where LAPACK names the failing minor; JAX reads only `info == 0` (it selects NaN for
//!   the whole matrix otherwise), so the other values do not reach its results.
//! - `lapack_{s,d,c,z}trsm_ffi(a, b) -> x` (`jax.scipy.linalg.solve_triangular`,
//!   `lax.linalg.triangular_solve`): `TriangularSolve(a, b, left_side = side == 'L', lower =
//!   uplo == 'L', unit_diagonal = diag == 'U', transpose_a = trans_x N/T/C)`.
//!
//! The options are `mhlo.backend_config` entries, LAPACK's characters as `ui8` codes (`uplo =
//! 76 : ui8` is 'L'). Batches are the leading dimensions (`num_batch_dims`), as for our ops.
//! The layouts JAX declares are column-major per matrix (`{r-2, r-1, r-3, ..., 0}`): they fix
//! how the kernel sees its buffers, not the values, which are those of the logical arrays, so
//! no transpose is needed; any other layout would make LAPACK solve another problem and is an
//! error.

use super::super::ast::{Attr, Operation};
use super::super::{ImportError, Result};
use super::attrs::ignorable;
use super::custom::{attr_text, check_layouts, rank};
use super::{bind_all, shape_err, Scope};
use crate::builder::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::Result as BResult;
use crate::ir::{BinaryOp, ComparisonDirection, Computation, TransposeA, UnaryOp};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

/// A LAPACK target JAX emits.
#[derive(Clone, Copy, Debug)]
pub(super) enum Call {
    /// `?potrf`: Cholesky factorisation.
    Potrf,
    /// `?trsm`: triangular solve.
    Trsm,
}

impl Call {
    /// The call `target` names, with the element type its prefix letter means.
    pub fn of(target: &str) -> Option<(Call, ElementType)> {
        let rest = target.strip_prefix("lapack_")?.strip_suffix("_ffi")?;
        let ty = match rest.as_bytes().first()? {
            b's' => ElementType::F32,
            b'd' => ElementType::F64,
            b'c' => ElementType::C64,
            b'z' => ElementType::C128,
            _ => return None,
        };
        let call = match &rest[1..] {
            "potrf" => Call::Potrf,
            "trsm" => Call::Trsm,
            _ => return None,
        };
        Some((call, ty))
    }
}

/// The column-major layout of a batch of matrices of rank `r`: `{r-2, r-1, r-3, ..., 0}`.
fn column_major(r: usize) -> Vec<i64> {
    if r < 2 {
        return (0..r as i64).rev().collect();
    }
    let r = r as i64;
    [r - 2, r - 1].into_iter().chain((0..r - 2).rev()).collect()
}

/// Lowers a LAPACK call of JAX's to our ops.
pub(super) fn lower(s: &mut Scope, op: &Operation, (call, ty): (Call, ElementType)) -> Result<()> {
    let target = match op.attr("call_target_name") {
        Some(Attr::Str(t) | Attr::Symbol(t)) => t.as_str(),
        _ => "lapack",
    };
    let invalid = |message: String| ImportError::Invalid {
        message: format!("stablehlo.custom_call @{target}: {message}"),
        pos: op.pos,
    };
    let operands = checked_operands(s, op, call, ty).map_err(&invalid)?;
    let pick = |key: &str, default: u8, options: &str| option(op, key, default, options);
    let lower = pick("uplo", b'L', "LU").map_err(&invalid)? == 'L';
    let a_shape = s.b.shape(operands[0]).as_array().cloned();
    let b = &mut s.b;
    let built = match (call, a_shape) {
        (Call::Potrf, Some(shape)) if shape.dims.len() >= 2 => {
            potrf(b, operands[0], &shape, lower, info_type(op)?)
        }
        (Call::Potrf, shape) => {
            return Err(invalid(format!(
                "potrf factors matrices, not {}",
                shape.map_or("a non-array".into(), |a| a.to_string())
            )))
        }
        (Call::Trsm, _) => {
            let left = pick("side", b'L', "LR").map_err(&invalid)? == 'L';
            let unit = pick("diag", b'N', "NU").map_err(&invalid)? == 'U';
            let t = match pick("trans_x", b'N', "NTC").map_err(&invalid)? {
                'T' => TransposeA::Transpose,
                'C' => TransposeA::Adjoint,
                _ => TransposeA::NoTranspose,
            };
            b.triangular_solve(operands[0], operands[1], left, lower, unit, t)
                .map(|x| vec![x])
        }
    };
    let vals = built.map_err(|e| shape_err(&format!("{} @{target}", op.name), e, op.pos))?;
    bind_all(s, op, &vals)
}

/// The operands, checked: their number, element type, layouts (column-major matrices, `info`
/// row-major), and no attribute that would change the call.
fn checked_operands(
    s: &Scope,
    op: &Operation,
    call: Call,
    ty: ElementType,
) -> std::result::Result<Vec<XlaOp>, String> {
    for (name, a) in &op.attrs {
        match (name.as_str(), a) {
            ("call_target_name" | "api_version" | "output_operand_aliases", _)
            | ("operand_layouts" | "result_layouts" | "mhlo.backend_config", _) => {}
            ("backend_config", Attr::Str(t)) if t.is_empty() => {}
            ("has_side_effect", Attr::Bool(false)) => {}
            (n, _) if ignorable(n) => {}
            (n, a) => return Err(format!("attribute `{n} = {}` is not read", attr_text(a))),
        }
    }
    let operands = op
        .operands
        .iter()
        .map(|n| s.get(n, op.pos).map_err(|e| e.to_string()))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let arity = match call {
        Call::Potrf => 1,
        Call::Trsm => 2,
    };
    if operands.len() != arity {
        return Err(format!("takes {arity} operands, {} given", operands.len()));
    }
    let mut ranks = Vec::new();
    for &v in &operands {
        match s.b.shape(v).as_array() {
            Some(a) if a.ty == ty => ranks.push(a.dims.len()),
            _ => {
                return Err(format!(
                    "operands are {} arrays, not {}",
                    ty.name(),
                    s.b.shape(v)
                ))
            }
        }
    }
    check_layouts(op, "operand_layouts", &ranks, column_major)?;
    let ranks: Vec<usize> = op.result_types.iter().map(rank).collect();
    // `info` has the batch dimensions, row-major.
    let want = |r: usize| match call {
        Call::Potrf if r + 2 == ranks[0] => (0..r as i64).rev().collect(),
        Call::Potrf | Call::Trsm => column_major(r),
    };
    check_layouts(op, "result_layouts", &ranks, want)?;
    Ok(operands)
}

/// LAPACK's character option `key` of `mhlo.backend_config` (a `ui8` code), one of `options`;
/// `default` when absent.
fn option(
    op: &Operation,
    key: &str,
    default: u8,
    options: &str,
) -> std::result::Result<char, String> {
    let v = match op.attr("mhlo.backend_config") {
        Some(Attr::Dict(d)) => d.iter().find(|(n, _)| n == key).map(|(_, a)| a),
        _ => None,
    };
    let c = match v {
        None => char::from(default),
        Some(Attr::Int(c)) => u8::try_from(*c)
            .map(char::from)
            .map_err(|_| format!("{key} = {c} is not a character code"))?,
        Some(other) => {
            return Err(format!(
                "{key} = {} is not a ui8 character code",
                attr_text(other)
            ))
        }
    };
    if options.contains(c) {
        Ok(c)
    } else {
        Err(format!(
            "{key} = '{c}' ({}), LAPACK takes one of {options}",
            c as u32
        ))
    }
}

/// The declared element type of potrf's `info` (JAX: i32).
fn info_type(op: &Operation) -> Result<ElementType> {
    match op.result_types.get(1).and_then(|t| t.tensor()) {
        Some(a) if a.ty.is_integral() => Ok(a.ty),
        _ => Err(ImportError::Invalid {
            message: format!(
                "{}: a LAPACK potrf call returns (factor, info: an integer array)",
                op.name
            ),
            pos: op.pos,
        }),
    }
}

/// `potrf(a)`: `(select(tri, Cholesky(a), a), info)`, as the module doc says.
fn potrf(
    b: &mut Builder,
    a: XlaOp,
    shape: &ArrayShape,
    lower: bool,
    info_ty: ElementType,
) -> BResult<Vec<XlaOp>> {
    let dims = shape.dims.clone();
    let r = dims.len();
    let n = dims.last().copied().unwrap_or(0);
    let l = b.cholesky(a, lower)?;
    // The factored triangle: row >= col (lower) or row <= col (upper).
    let idx = Shape::array(ElementType::S32, &dims);
    let row = b.iota(idx.clone(), r as i64 - 2)?;
    let col = b.iota(idx, r as i64 - 1)?;
    let dir = if lower {
        ComparisonDirection::Ge
    } else {
        ComparisonDirection::Le
    };
    let tri = b.compare(dir, false, row, col, None)?;
    let factor = b.select(tri, l, a)?;
    // The pivots' real parts, zero off the diagonal, summed along rows: [batch..., n].
    let diag = b.compare(ComparisonDirection::Eq, false, row, col, None)?;
    let re = b.unary(UnaryOp::Real, l)?;
    let real_ty = shape.ty.complex_component().unwrap_or(shape.ty);
    let zero = b.constant(Literal::zeros(&ArrayShape::new(real_ty, &[])));
    let zeros = b.broadcast_in_dim(zero, &dims, &[])?;
    let on_diag = b.select(diag, re, zeros)?;
    let add = reducer(real_ty, BinaryOp::Add)?;
    let pivots = b.reduce(&[on_diag], &[zero], &add, &[r as i64 - 1])?;
    // 1-based position of each pivot that is not positive (NaN included), else n + 1.
    let vdims = &dims[..r - 1];
    let zv = b.broadcast_in_dim(zero, vdims, &[])?;
    let ok = b.compare(ComparisonDirection::Gt, false, pivots, zv, None)?;
    let pos = b.iota(Shape::array(info_ty, vdims), r as i64 - 2)?;
    let one = int_scalar(b, info_ty, 1)?;
    let ones = b.broadcast_in_dim(one, vdims, &[])?;
    let pos = b.binary(BinaryOp::Add, pos, ones, None)?;
    let none = int_scalar(b, info_ty, n + 1)?;
    let nones = b.broadcast_in_dim(none, vdims, &[])?;
    let bad = b.select(ok, nones, pos)?;
    let min = reducer(info_ty, BinaryOp::Min)?;
    let first = b.reduce(&[bad], &[none], &min, &[r as i64 - 2])?;
    // n + 1 (no bad pivot) is LAPACK's success, 0.
    let batch = &dims[..r - 2];
    let izero = int_scalar(b, info_ty, 0)?;
    let izeros = b.broadcast_in_dim(izero, batch, &[])?;
    let nb = b.broadcast_in_dim(none, batch, &[])?;
    let success = b.compare(ComparisonDirection::Eq, false, first, nb, None)?;
    let info = b.select(success, izeros, first)?;
    Ok(vec![factor, info])
}

/// The scalar `v` of integer type `ty`.
fn int_scalar(b: &mut Builder, ty: ElementType, v: i64) -> BResult<XlaOp> {
    let c = b.constant(Literal::scalar(v));
    b.convert(c, ty)
}

/// `(x: T[], y: T[]) -> x op y`.
fn reducer(ty: ElementType, op: BinaryOp) -> BResult<std::sync::Arc<Computation>> {
    let mut b = Builder::new("lapack_reducer");
    let x = b.parameter(0, Shape::scalar(ty), "x")?;
    let y = b.parameter(1, Shape::scalar(ty), "y")?;
    let r = b.binary(op, x, y, None)?;
    Ok(std::sync::Arc::new(b.build(r)?))
}
