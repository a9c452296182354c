//! Data-movement ops that only change dimensions: Broadcast, BroadcastInDim, Reshape, Collapse,
//! Transpose, and Iota (which makes an array of a given shape).

use super::{check_dims, expect_array, list};
use crate::broadcast::check_broadcast_in_dim;
use crate::error::{Blame, Error, Result};
use crate::shape::{ArrayShape, Shape};

/// Every size in `sizes` (attribute `attr` of `op` on `operand`) is >= 0.
fn check_sizes(op: &str, attr: &'static str, sizes: &[i64], operand: &ArrayShape) -> Result<()> {
    match sizes.iter().find(|&&d| d < 0) {
        Some(d) => Err(Error::new(
            op,
            format!(
                "{attr} {} has negative size {d} (operand {operand})",
                list(sizes)
            ),
        )
        .blame(Blame::Attribute(attr))),
        None => Ok(()),
    }
}

/// `Broadcast(operand, broadcast_sizes)`: result dims `broadcast_sizes ++ operand dims`. Also
/// returns the equivalent `BroadcastInDim` dimensions `[n, n+1, ...]` (n = sizes given).
pub fn broadcast(operand: &Shape, broadcast_sizes: &[i64]) -> Result<(ArrayShape, Vec<i64>)> {
    let op = "Broadcast";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    check_sizes(op, "broadcast_sizes", broadcast_sizes, a)?;
    let n = broadcast_sizes.len();
    let mut out = ArrayShape::new(a.ty, broadcast_sizes);
    out.dims.extend_from_slice(&a.dims);
    out.dynamic.extend_from_slice(&a.dynamic);
    Ok((out, (n as i64..(n + a.rank()) as i64).collect()))
}

/// `BroadcastInDim(operand, out_dim_size, broadcast_dimensions)`: operand dim `i` goes to output
/// dim `broadcast_dimensions[i]` (strictly increasing, size equal or 1).
pub fn broadcast_in_dim(
    operand: &Shape,
    out_dim_size: &[i64],
    broadcast_dimensions: &[i64],
) -> Result<ArrayShape> {
    let op = "BroadcastInDim";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    check_broadcast_in_dim(op, a, out_dim_size, broadcast_dimensions)?;
    let mut out = ArrayShape::new(a.ty, out_dim_size);
    for (i, &d) in broadcast_dimensions.iter().enumerate() {
        // A dynamic operand dimension stays dynamic where it is not expanded from size 1.
        out.dynamic[d as usize] = a.dynamic[i] && a.dims[i] == out_dim_size[d as usize];
    }
    Ok(out)
}

/// `Reshape(operand, new_sizes)`: same element count, row-major order kept.
pub fn reshape(operand: &Shape, new_sizes: &[i64]) -> Result<ArrayShape> {
    let op = "Reshape";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    check_sizes(op, "new_sizes", new_sizes, a)?;
    if a.is_dynamic() {
        return Err(
            Error::new(op, format!("cannot reshape the dynamic array {a}"))
                .blame(Blame::Operand(0)),
        );
    }
    let out = ArrayShape::new(a.ty, new_sizes);
    let count = new_sizes
        .iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d));
    if count != Some(a.element_count()) {
        return Err(Error::new(
            op,
            format!(
                "cannot reshape {} into {} ({a} vs {out})",
                crate::error::count(a.element_count() as usize, "element", "elements"),
                count.map_or("too many elements".into(), |c| crate::error::count(
                    c as usize, "element", "elements"
                ))
            ),
        )
        .blame(Blame::Attribute("new_sizes")));
    }
    Ok(out)
}

/// `Collapse(operand, dimensions)`: consecutive ascending dimensions replaced by one of their
/// product, in their place. Zero or one dimension changes nothing.
pub fn collapse(operand: &Shape, dimensions: &[i64]) -> Result<ArrayShape> {
    let op = "Collapse";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    check_dims(op, "dimensions", dimensions, a)?;
    if dimensions.windows(2).any(|w| w[1] != w[0] + 1) {
        return Err(Error::new(
            op,
            format!(
                "dimensions {} must be consecutive and in increasing order (operand {a})",
                list(dimensions)
            ),
        )
        .blame(Blame::Attribute("dimensions")));
    }
    if a.is_dynamic() && dimensions.len() > 1 {
        return Err(
            Error::new(op, format!("cannot collapse the dynamic array {a}"))
                .blame(Blame::Operand(0)),
        );
    }
    let Some(&first) = dimensions.first() else {
        return Ok(a.with_type(a.ty));
    };
    let (first, last) = (first as usize, first as usize + dimensions.len());
    let mut out = a.with_type(a.ty);
    let merged: i64 = a.dims[first..last].iter().product();
    out.dims.splice(first..last, [merged]);
    out.dynamic
        .splice(first..last, [a.dynamic[first..last].iter().any(|&d| d)]);
    Ok(out)
}

/// `Transpose(operand, permutation)`: output dim `d` is operand dim `permutation[d]`.
pub fn transpose(operand: &Shape, permutation: &[i64]) -> Result<ArrayShape> {
    transpose_named("Transpose", "permutation", operand, permutation)
}

/// [`transpose`] reporting as `op` (Reshape's `dimensions` are a transpose too).
pub(crate) fn transpose_named(
    op: &str,
    attr: &'static str,
    operand: &Shape,
    permutation: &[i64],
) -> Result<ArrayShape> {
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    if permutation.len() != a.rank() {
        return Err(Error::new(
            op,
            format!(
                "{attr} {} must be a permutation of the {} dimensions of {a}",
                list(permutation),
                a.rank()
            ),
        )
        .blame(Blame::Attribute(attr)));
    }
    check_dims(op, attr, permutation, a)?;
    let mut out = a.with_type(a.ty);
    for (d, &p) in permutation.iter().enumerate() {
        out.dims[d] = a.dims[p as usize];
        out.dynamic[d] = a.dynamic[p as usize];
    }
    Ok(out)
}

/// `Iota(shape, iota_dimension)`: a numeric array counting along `iota_dimension`.
pub fn iota(shape: &Shape, iota_dimension: i64) -> Result<ArrayShape> {
    let op = "Iota";
    let a = expect_array(op, "the shape", shape, Blame::Result)?;
    a.validate()
        .map_err(|e| Error::new(op, e.message).blame(Blame::Result))?;
    if a.ty.is_pred() {
        return Err(
            Error::new(op, format!("needs a numeric element type, got {a}")).blame(Blame::Result),
        );
    }
    if iota_dimension < 0 || iota_dimension >= a.rank() as i64 {
        return Err(Error::new(
            op,
            format!(
                "iota_dimension {iota_dimension} is out of range for the rank-{} shape {a}",
                a.rank()
            ),
        )
        .blame(Blame::Attribute("iota_dimension")));
    }
    Ok(a.with_type(a.ty))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Shape {
        crate::shape::parse_shape(text).unwrap()
    }

    #[test]
    fn broadcast_puts_new_dims_in_front() {
        let (out, bd) = broadcast(&s("f32[]"), &[2, 3]).unwrap();
        assert_eq!((out.to_string(), bd), ("f32[2,3]".to_string(), vec![]));
        let (out, bd) = broadcast(&s("s32[4,5]"), &[2]).unwrap();
        assert_eq!(
            (out.to_string(), bd),
            ("s32[2,4,5]".to_string(), vec![1, 2])
        );
        assert!(broadcast(&s("s32[4]"), &[-2]).is_err());
    }

    #[test]
    fn broadcast_in_dim_shapes() {
        assert_eq!(
            broadcast_in_dim(&s("f32[3]"), &[2, 3], &[1])
                .unwrap()
                .to_string(),
            "f32[2,3]"
        );
        assert_eq!(
            broadcast_in_dim(&s("f32[1,3]"), &[4, 3], &[0, 1])
                .unwrap()
                .to_string(),
            "f32[4,3]"
        );
        assert!(broadcast_in_dim(&s("f32[3]"), &[2, 3], &[0]).is_err());
    }

    #[test]
    fn seed_reshape_examples() {
        let v = s("f32[4,2,3]");
        assert_eq!(reshape(&v, &[24]).unwrap().to_string(), "f32[24]");
        assert_eq!(reshape(&v, &[8, 3]).unwrap().to_string(), "f32[8,3]");
        assert_eq!(reshape(&s("f32[1,1]"), &[]).unwrap().to_string(), "f32[]");
        assert_eq!(
            reshape(&s("f32[]"), &[1, 1]).unwrap().to_string(),
            "f32[1,1]"
        );
        let e = reshape(&v, &[5, 5]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Reshape: cannot reshape 24 elements into 25 elements (f32[4,2,3] vs f32[5,5])"
        );
    }

    #[test]
    fn seed_collapse_examples() {
        let v = s("f32[4,2,3]");
        assert_eq!(collapse(&v, &[0, 1, 2]).unwrap().to_string(), "f32[24]");
        assert_eq!(collapse(&v, &[0, 1]).unwrap().to_string(), "f32[8,3]");
        assert_eq!(collapse(&v, &[1, 2]).unwrap().to_string(), "f32[4,6]");
        assert!(collapse(&v, &[1, 0])
            .unwrap_err()
            .message
            .contains("consecutive"));
        assert!(collapse(&v, &[0, 2])
            .unwrap_err()
            .message
            .contains("consecutive"));
        assert!(collapse(&v, &[2, 3])
            .unwrap_err()
            .message
            .contains("out of range"));
        assert_eq!(collapse(&v, &[1]).unwrap().to_string(), "f32[4,2,3]");
    }

    #[test]
    fn transpose_shapes() {
        assert_eq!(
            transpose(&s("f32[2,3,4]"), &[2, 0, 1]).unwrap().to_string(),
            "f32[4,2,3]"
        );
        assert!(transpose(&s("f32[2,3]"), &[0, 0])
            .unwrap_err()
            .message
            .contains("repeats"));
        assert!(transpose(&s("f32[2,3]"), &[0]).is_err());
    }

    #[test]
    fn iota_shapes() {
        assert_eq!(iota(&s("s32[4,8]"), 1).unwrap().to_string(), "s32[4,8]");
        assert!(iota(&s("s32[4,8]"), 2).is_err());
        assert!(iota(&s("s32[]"), 0).is_err());
        assert!(iota(&s("pred[3]"), 0).is_err());
        assert!(iota(&Shape::array(crate::ElementType::F32, &[-1]), 0).is_err());
    }
}
