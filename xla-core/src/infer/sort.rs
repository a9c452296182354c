//! Sort and TopK.
//!
//! `Sort(operands..., comparator, dimension, is_stable)`: N >= 1 arrays of equal dimensions
//! (element types may differ) permuted together along `dimension`; the comparator takes 2N
//! scalars `(lhs_0, rhs_0, lhs_1, rhs_1, ...)` (parameter `2k` is operand `k` at one position,
//! `2k + 1` operand `k` at the other) and returns `pred[]`. The result is the operand's shape
//! (N = 1) or the tuple of the operands' shapes. As XLA's builder, `dimension = -1` means the
//! last dimension; other negative values are refused.
//!
//! `TopK(operand, k, largest)`: the `k` largest (smallest) elements along the last dimension and
//! their indices, a tuple `(T[..., k], s32[..., k])`.

use super::expect_array;
use crate::element::ElementType;
use crate::error::{count, Blame, Error, Result};
use crate::ir::Computation;
use crate::shape::{ArrayShape, Shape};

/// The parameters a Sort comparator over operands of `operand_types` must take, in order:
/// `T_0[], T_0[], T_1[], T_1[], ...` (parameter `2k` is operand `k` at position `i`, `2k + 1`
/// operand `k` at position `j`).
pub fn comparator_params(operand_types: &[ElementType]) -> Vec<Shape> {
    operand_types
        .iter()
        .flat_map(|&t| [Shape::scalar(t), Shape::scalar(t)])
        .collect()
}

/// `(T_0[], T_0[], ...) -> pred[]`: the comparator signature, for messages.
fn signature(types: &[ElementType]) -> String {
    let params: Vec<String> = comparator_params(types)
        .iter()
        .map(Shape::to_string)
        .collect();
    format!("({}) -> pred[]", params.join(", "))
}

/// The operands of a Sort as arrays of one rank-R >= 1 set of dimensions, checked.
fn sort_operands<'a>(operands: &[&'a Shape]) -> Result<Vec<&'a ArrayShape>> {
    let op = "Sort";
    if operands.is_empty() {
        return Err(Error::new(op, "needs at least one operand"));
    }
    let arrays = operands
        .iter()
        .enumerate()
        .map(|(i, s)| expect_array(op, "each operand", s, Blame::Operand(i)))
        .collect::<Result<Vec<&ArrayShape>>>()?;
    let first = arrays[0];
    if first.is_scalar() {
        return Err(Error::new(
            op,
            format!("operand 0 is the scalar {first}: there is no dimension to sort along"),
        )
        .blame(Blame::Operand(0)));
    }
    for (i, a) in arrays.iter().enumerate().skip(1) {
        if !a.same_dims(first) {
            return Err(Error::new(
                op,
                format!(
                    "all operands must have the same dimensions: operand 0 is {first}, operand \
                     {i} is {a}"
                ),
            )
            .blame(Blame::Operand(i)));
        }
    }
    Ok(arrays)
}

/// The dimension a `Sort(operands..., dimension)` sorts along, as the IR stores it: `dimension`
/// itself when in `[0, rank)`, `rank - 1` for `-1` (XLA's builder reads -1 as the last
/// dimension); `Err` for anything else, or for operands [`sort`] refuses.
pub fn sort_dimension(operands: &[&Shape], dimension: i64) -> Result<i64> {
    let arrays = sort_operands(operands)?;
    let first = arrays[0];
    let rank = first.rank() as i64;
    if dimension == -1 {
        return Ok(rank - 1);
    }
    if dimension < 0 || dimension >= rank {
        return Err(Error::new(
            "Sort",
            format!(
                "dimension = {dimension} is out of range for the rank-{rank} operand {first} \
                 (0..{rank}, or -1 for the last)"
            ),
        )
        .blame(Blame::Attribute("dimension")));
    }
    Ok(dimension)
}

/// The result of `Sort(operands..., comparator, dimension)`: the operand's shape (N = 1) or the
/// tuple of the operands' shapes, without layouts. `Err` unless there is at least one operand,
/// all are arrays of rank >= 1 with equal dimensions, `dimension` is in `[0, rank)` or -1, and
/// the comparator takes exactly the scalars of [`comparator_params`] and returns `pred[]`.
pub fn sort(operands: &[&Shape], dimension: i64, comparator: &Computation) -> Result<Shape> {
    let op = "Sort";
    let arrays = sort_operands(operands)?;
    sort_dimension(operands, dimension)?;
    let n = arrays.len();
    let types: Vec<ElementType> = arrays.iter().map(|a| a.ty).collect();
    let cblame = Blame::Computation;
    let shown: Vec<String> = arrays.iter().map(|a| a.to_string()).collect();
    let shown = format!(
        "{} {}",
        if n == 1 { "operand" } else { "operands" },
        shown.join(", ")
    );
    if comparator.params.len() != 2 * n {
        return Err(Error::new(
            op,
            format!(
                "the comparator `{}` takes {} but sorting the {shown} needs {} (an lhs and an \
                 rhs scalar of each operand): {}",
                comparator.name,
                count(comparator.params.len(), "parameter", "parameters"),
                2 * n,
                signature(&types),
            ),
        )
        .blame(cblame));
    }
    for (p, param) in comparator.params.iter().enumerate() {
        let k = p / 2;
        let want = types[k];
        let ok = matches!(param, Shape::Array(x) if x.is_scalar() && x.ty == want);
        if !ok {
            return Err(Error::new(
                op,
                format!(
                    "comparator parameter {p} is {param} but operand {k} is {}; the comparator \
                     must be {}",
                    arrays[k],
                    signature(&types)
                ),
            )
            .blame(cblame));
        }
    }
    let result = comparator.result_shape();
    if !matches!(result, Shape::Array(x) if x.is_scalar() && x.ty == ElementType::Pred) {
        return Err(Error::new(
            op,
            format!(
                "the comparator `{}` returns {result} but must return pred[] (whether its lhs \
                 goes first): {} for the {shown}",
                comparator.name,
                signature(&types)
            ),
        )
        .blame(cblame)
        .help("compare the parameters, e.g. `|a, b| Lt(a, b)` for an ascending sort"));
    }
    let out = |a: &ArrayShape| Shape::Array(a.with_type(a.ty));
    Ok(if n == 1 {
        out(arrays[0])
    } else {
        Shape::Tuple(arrays.iter().map(|a| out(a)).collect())
    })
}

/// The result of `TopK(operand, k, largest)`: `(T[d_0, ..., d_{R-2}, k], s32[..., k])` for an
/// operand `T[d_0, ..., d_{R-1}]` (the last dimension static, the others keep their dynamic
/// flags). `Err` unless the operand is an array of rank >= 1 whose element type has an order
/// (pred, integers, floats: XLA rejects complex) and `0 <= k <= d_{R-1}`. `largest` does not
/// change the shape.
pub fn top_k(operand: &Shape, k: i64, largest: bool) -> Result<Shape> {
    let op = "TopK";
    let _ = largest;
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    if a.is_scalar() {
        return Err(Error::new(
            op,
            format!("the operand must have at least one dimension, got the scalar {a}"),
        )
        .blame(Blame::Operand(0)));
    }
    if a.ty.is_complex() {
        return Err(Error::new(
            op,
            format!(
                "{} elements have no order (operand {a}); TopK takes pred, integer or \
                 floating-point elements",
                a.ty
            ),
        )
        .blame(Blame::Operand(0)));
    }
    let last = a.rank() - 1;
    if k < 0 {
        return Err(
            Error::new(op, format!("k = {k} must not be negative (operand {a})"))
                .blame(Blame::Attribute("k")),
        );
    }
    if k > a.dims[last] {
        return Err(Error::new(
            op,
            format!(
                "k = {k} is larger than the last dimension (size {}) of the operand {a}",
                a.dims[last]
            ),
        )
        .blame(Blame::Attribute("k")));
    }
    let mut values = a.with_type(a.ty);
    values.dims[last] = k;
    values.dynamic[last] = false;
    let indices = values.with_type(ElementType::S32);
    Ok(Shape::Tuple(vec![
        Shape::Array(values),
        Shape::Array(indices),
    ]))
}

#[cfg(test)]
mod tests;
