//! The ops of bounded dynamic dimensions (XLA's `InferGetDimensionSizeShape`,
//! `InferSetDimensionSizeShape`, `InferDynamicReshapeShape`):
//!
//! - `GetDimensionSize(operand, dimension)`: `s32[]`, the runtime size of that dimension (its
//!   bound's value for a static one);
//! - `SetDimensionSize(operand, size, dimension)`: the operand with `dimension` dynamic, bound
//!   unchanged, its runtime size the `s32[]` `size`;
//! - `DynamicReshape(operand, sizes..., new_size_bounds, dims_are_dynamic)`: the operand's
//!   valid elements in row-major order laid out over the runtime `sizes` (one `s32[]` per
//!   result dimension), the result `ty[new_size_bounds]` with `dims_are_dynamic` marking
//!   `<=`; the bounds hold as many elements as the operand's bounds.

use super::expect_array;
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::shape::{ArrayShape, Shape};

/// `dimension` names a dimension of `a` (of op `op`).
fn dimension_in_range(op: &str, a: &ArrayShape, dimension: i64) -> Result<usize> {
    if dimension < 0 || dimension as usize >= a.rank() {
        return Err(Error::new(
            op,
            format!(
                "dimension {dimension} is out of range for the rank-{} operand {a}",
                a.rank()
            ),
        )
        .blame(Blame::Attribute("dimension")));
    }
    Ok(dimension as usize)
}

/// `s` is an `s32[]` (operand `index` of `op`, described as `what`).
fn s32_scalar(op: &str, what: &str, s: &Shape, index: usize) -> Result<()> {
    let ok = matches!(s, Shape::Array(a) if a.is_scalar() && a.ty == ElementType::S32);
    if ok {
        Ok(())
    } else {
        Err(
            Error::new(op, format!("{what} must be an s32[] scalar, got {s}"))
                .blame(Blame::Operand(index))
                .help("convert it: ConvertElementType(x, new_element_type = s32)"),
        )
    }
}

/// `GetDimensionSize(operand, dimension)`: `s32[]`.
pub fn get_dimension_size(operand: &Shape, dimension: i64) -> Result<ArrayShape> {
    let op = "GetDimensionSize";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    let d = dimension_in_range(op, a, dimension)?;
    if a.dims[d] > i64::from(i32::MAX) {
        return Err(Error::new(
            op,
            format!(
                "dimension {d} of {a} exceeds the s32 limit {} its size is returned in",
                i32::MAX
            ),
        )
        .blame(Blame::Operand(0)));
    }
    Ok(ArrayShape::scalar(ElementType::S32))
}

/// `SetDimensionSize(operand, size, dimension)`: the operand's shape, `dimension` dynamic.
pub fn set_dimension_size(operand: &Shape, size: &Shape, dimension: i64) -> Result<ArrayShape> {
    let op = "SetDimensionSize";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    let d = dimension_in_range(op, a, dimension)?;
    s32_scalar(op, "the size", size, 1)?;
    let mut out = a.clone();
    out.dynamic[d] = true;
    out.layout = None;
    Ok(out)
}

/// `DynamicReshape(operand, sizes..., new_size_bounds, dims_are_dynamic)`.
pub fn dynamic_reshape(
    operand: &Shape,
    sizes: &[&Shape],
    new_size_bounds: &[i64],
    dims_are_dynamic: &[bool],
) -> Result<ArrayShape> {
    let op = "DynamicReshape";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    if new_size_bounds.len() != dims_are_dynamic.len() {
        return Err(Error::new(
            op,
            format!(
                "new_size_bounds has {} entries but dims_are_dynamic has {}: one flag per \
                 result dimension",
                new_size_bounds.len(),
                dims_are_dynamic.len()
            ),
        )
        .blame(Blame::Attribute("dims_are_dynamic")));
    }
    if sizes.len() != new_size_bounds.len() {
        return Err(Error::new(
            op,
            format!(
                "{} runtime sizes given for the {} result dimensions of new_size_bounds {:?}: \
                 one s32[] size per result dimension",
                sizes.len(),
                new_size_bounds.len(),
                new_size_bounds
            ),
        ));
    }
    for (i, s) in sizes.iter().enumerate() {
        s32_scalar(op, &format!("the size of result dimension {i}"), s, i + 1)?;
    }
    if let Some(b) = new_size_bounds.iter().find(|&&b| b < 0) {
        return Err(
            Error::new(op, format!("the bound {b} in new_size_bounds is negative"))
                .blame(Blame::Attribute("new_size_bounds")),
        );
    }
    let out = ArrayShape {
        ty: a.ty,
        dims: new_size_bounds.to_vec(),
        dynamic: dims_are_dynamic.to_vec(),
        layout: None,
    };
    out.validate()
        .map_err(|e| Error::new(op, e.message).blame(Blame::Attribute("new_size_bounds")))?;
    if out.element_count() != a.element_count() {
        return Err(Error::new(
            op,
            format!(
                "the result bounds {out} hold {} elements but the operand {a} holds {}: the \
                 bounds must hold as many elements as the operand's bounds",
                out.element_count(),
                a.element_count()
            ),
        )
        .blame(Blame::Attribute("new_size_bounds")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(dims: &[i64]) -> Shape {
        Shape::array(ElementType::F32, dims)
    }

    #[test]
    fn set_marks_the_dimension_dynamic_and_get_is_s32() {
        let n = Shape::scalar(ElementType::S32);
        let s = set_dimension_size(&f32s(&[8, 3]), &n, 0).unwrap();
        assert_eq!(s.to_string(), "f32[<=8,3]");
        let g = get_dimension_size(&Shape::Array(s), 0).unwrap();
        assert_eq!(g, ArrayShape::scalar(ElementType::S32));
    }

    #[test]
    fn rules_name_the_op_and_the_shapes() {
        let n = Shape::scalar(ElementType::S32);
        let e = get_dimension_size(&f32s(&[8, 3]), 2).unwrap_err();
        assert!(e
            .message
            .contains("dimension 2 is out of range for the rank-2 operand f32[8,3]"));
        let e = set_dimension_size(&f32s(&[8]), &Shape::scalar(ElementType::S64), 0).unwrap_err();
        assert_eq!(e.blame, Blame::Operand(1));
        assert!(
            e.message.contains("s32[] scalar, got s64[]"),
            "{}",
            e.message
        );
        let e = dynamic_reshape(&f32s(&[8, 3]), &[&n], &[4, 6], &[true, false]).unwrap_err();
        assert!(e
            .message
            .contains("1 runtime sizes given for the 2 result dimensions"));
        let e = dynamic_reshape(&f32s(&[8, 3]), &[&n, &n], &[4, 5], &[true, false]).unwrap_err();
        assert!(e
            .message
            .contains("hold 20 elements but the operand f32[8,3] holds 24"));
        let ok = dynamic_reshape(&f32s(&[8, 3]), &[&n, &n], &[4, 6], &[true, false]).unwrap();
        assert_eq!(ok.to_string(), "f32[<=4,6]");
    }
}
