//! Index maps between a logical multi-index and a linear offset into an array's buffer, as XLA's
//! `IndexUtil`, honouring `minor_to_major` and `padded_dimensions` (shapes-and-layout.es.md).
//!
//! The buffer of a shape holds `physical_len` elements: every dimension `d` occupies its padded
//! size `P[d]` (or its size when unpadded), dimensions laid out from most minor to most major.

use crate::error::{Error, Result};
use crate::shape::ArrayShape;

/// The size each dimension occupies in memory: `padded_dimensions` if present, else the dims.
pub fn physical_dims(shape: &ArrayShape) -> Vec<i64> {
    match shape
        .layout
        .as_ref()
        .and_then(|l| l.padded_dimensions.as_ref())
    {
        Some(p) => p.clone(),
        None => shape.dims.clone(),
    }
}

/// Physical stride of each logical dimension, in elements:
/// `stride[m2m[0]] = 1`, `stride[m2m[k+1]] = stride[m2m[k]] * P[m2m[k]]`.
pub fn strides(shape: &ArrayShape) -> Result<Vec<i64>> {
    shape.validate()?;
    let layout = shape.layout_or_default();
    let phys = physical_dims(shape);
    let mut strides = vec![0; shape.rank()];
    let mut stride = 1i64;
    for &d in &layout.minor_to_major {
        strides[d as usize] = stride;
        stride = stride
            .checked_mul(phys[d as usize])
            .ok_or_else(|| Error::new("IndexUtil", format!("buffer of {shape} overflows i64")))?;
    }
    Ok(strides)
}

/// Number of elements in the buffer, padding included: `prod(P[d])`.
pub fn physical_len(shape: &ArrayShape) -> Result<i64> {
    shape.validate()?;
    physical_dims(shape)
        .iter()
        .try_fold(1i64, |acc, &p| acc.checked_mul(p))
        .ok_or_else(|| Error::new("IndexUtil", format!("buffer of {shape} overflows i64")))
}

/// Linear buffer offset of `multi`: `sum_d multi[d] * stride[d]`; `Err` if `multi` has the
/// wrong length or an index outside `[0, dims[d])`.
pub fn linear_index(shape: &ArrayShape, multi: &[i64]) -> Result<i64> {
    let strides = strides(shape)?;
    if multi.len() != shape.rank() {
        return Err(Error::new(
            "IndexUtil",
            format!(
                "index {multi:?} has {} entries for rank-{} shape {shape}",
                multi.len(),
                shape.rank()
            ),
        ));
    }
    let mut linear = 0;
    for (d, (&i, &s)) in multi.iter().zip(&strides).enumerate() {
        if i < 0 || i >= shape.dims[d] {
            return Err(Error::new(
                "IndexUtil",
                format!("index {multi:?} is out of bounds in dimension {d} of {shape}"),
            ));
        }
        linear += i * s;
    }
    Ok(linear)
}

/// The multi-index stored at buffer offset `linear` (inverse of [`linear_index`]); `Err` if
/// `linear` is outside `[0, physical_len)` or falls on padding.
pub fn multi_index(shape: &ArrayShape, linear: i64) -> Result<Vec<i64>> {
    let len = physical_len(shape)?;
    if linear < 0 || linear >= len {
        return Err(Error::new(
            "IndexUtil",
            format!("linear index {linear} is outside the buffer of {len} elements of {shape}"),
        ));
    }
    let phys = physical_dims(shape);
    let mut multi = vec![0; shape.rank()];
    let mut rest = linear;
    for &d in &shape.layout_or_default().minor_to_major {
        let d = d as usize;
        multi[d] = rest % phys[d];
        rest /= phys[d];
        if multi[d] >= shape.dims[d] {
            return Err(Error::new(
                "IndexUtil",
                format!("linear index {linear} is padding of dimension {d} in {shape}"),
            ));
        }
    }
    Ok(multi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::ElementType::F32;
    use crate::layout::Layout;

    fn with_layout(dims: &[i64], m2m: &[i64], padded: Option<&[i64]>) -> ArrayShape {
        let mut s = ArrayShape::new(F32, dims);
        s.layout = Some(Layout {
            minor_to_major: m2m.to_vec(),
            padded_dimensions: padded.map(<[i64]>::to_vec),
        });
        s
    }

    /// Place the letters of the seed's 2x3 array `a b c / d e f` in a buffer through the layout.
    fn lay_out(shape: &ArrayShape) -> String {
        let letters = [['a', 'b', 'c'], ['d', 'e', 'f']];
        let mut buf = vec!['0'; physical_len(shape).unwrap() as usize];
        for (y, row) in letters.iter().enumerate() {
            for (x, &c) in row.iter().enumerate() {
                buf[linear_index(shape, &[y as i64, x as i64]).unwrap() as usize] = c;
            }
        }
        buf.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn seed_column_major_layout() {
        assert_eq!(lay_out(&with_layout(&[2, 3], &[0, 1], None)), "a d b e c f");
    }

    #[test]
    fn seed_row_major_layout() {
        assert_eq!(lay_out(&with_layout(&[2, 3], &[1, 0], None)), "a b c d e f");
        assert_eq!(lay_out(&ArrayShape::new(F32, &[2, 3])), "a b c d e f");
    }

    #[test]
    fn seed_padded_layout() {
        // 2x3 padded to 3x5, dimension 0 minor: 15 slots.
        let s = with_layout(&[2, 3], &[0, 1], Some(&[3, 5]));
        assert_eq!(physical_len(&s).unwrap(), 15);
        assert_eq!(lay_out(&s), "a d 0 b e 0 c f 0 0 0 0 0 0 0");
        assert_eq!(strides(&s).unwrap(), vec![1, 3]);
    }

    #[test]
    fn multi_index_inverts_linear_index() {
        let shapes = [
            with_layout(&[2, 3, 4], &[1, 2, 0], None),
            with_layout(&[3, 1, 5], &[0, 1, 2], Some(&[4, 2, 7])),
            ArrayShape::new(F32, &[4, 3]),
        ];
        for s in &shapes {
            let mut hit = 0;
            for lin in 0..physical_len(s).unwrap() {
                if let Ok(m) = multi_index(s, lin) {
                    assert_eq!(linear_index(s, &m).unwrap(), lin, "{s} {m:?}");
                    hit += 1;
                }
            }
            assert_eq!(hit, s.element_count(), "{s}");
        }
    }

    #[test]
    fn scalar_and_empty() {
        let s = ArrayShape::scalar(F32);
        assert_eq!(linear_index(&s, &[]).unwrap(), 0);
        assert_eq!(multi_index(&s, 0).unwrap(), Vec::<i64>::new());
        let e = ArrayShape::new(F32, &[0, 3]);
        assert_eq!(physical_len(&e).unwrap(), 0);
        assert!(multi_index(&e, 0).is_err());
    }

    #[test]
    fn bad_inputs_are_errors() {
        let s = ArrayShape::new(F32, &[2, 3]);
        assert!(linear_index(&s, &[2, 0])
            .unwrap_err()
            .message
            .contains("out of bounds in dimension 0"));
        assert!(linear_index(&s, &[0]).is_err());
        assert!(multi_index(&s, 6).is_err());
        assert!(multi_index(&s, -1).is_err());
        let padded = with_layout(&[2, 3], &[0, 1], Some(&[3, 5]));
        assert!(multi_index(&padded, 2)
            .unwrap_err()
            .message
            .contains("padding"));
        assert!(strides(&with_layout(&[2, 3], &[0, 0], None))
            .unwrap_err()
            .message
            .contains("permutation"));
        assert!(strides(&with_layout(&[2, 3], &[0, 1], Some(&[1, 3]))).is_err());
        assert!(physical_len(&ArrayShape::new(F32, &[2, -1])).is_err());
    }
}
