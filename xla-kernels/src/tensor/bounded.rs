//! Bounded dynamic tensors: `f32[<=8, 3]` is `DynTensor<f32, D2<8, 3>, 0b01>`, its bounds the
//! dims `D`, bit `d` of `DYNAMIC` set when dimension `d` is dynamic. The elements live padded
//! to the bounds, as XLA keeps them (the buffer of a `Tensor<T, D>`, row-major), with one
//! runtime size per dimension; the padding is zero when built here and unspecified when a
//! program wrote it (it never reads it).

use std::fmt;

use xla_core::{ArrayElement, ArrayShape, Literal};

use super::{Dims, Tensor, TensorError, MAX_RANK};

/// A tensor whose dynamic dimensions (bits of `DYNAMIC`) have runtime sizes up to their bounds
/// `D` (see the module docs). Sizes are checked when it is built, so a generated fn that takes
/// one needs no check: a size beyond its bound is an `Err` here.
#[derive(Clone, PartialEq)]
pub struct DynTensor<T: ArrayElement, D: Dims, const DYNAMIC: u8> {
    padded: Tensor<T, D>,
    sizes: [usize; MAX_RANK],
}

impl<T: ArrayElement, D: Dims, const DYNAMIC: u8> DynTensor<T, D, DYNAMIC> {
    /// True when dimension `d` is dynamic.
    pub const fn is_dynamic(d: usize) -> bool {
        d < 8 && DYNAMIC & (1 << d) != 0
    }

    /// The shape, HLO text style: `f32[<=8,3]`.
    pub fn array_shape() -> ArrayShape {
        let mut a = Tensor::<T, D>::array_shape();
        for (d, dy) in a.dynamic.iter_mut().enumerate() {
            *dy = Self::is_dynamic(d);
        }
        a
    }

    fn check_sizes(sizes: &[usize]) -> Result<[usize; MAX_RANK], TensorError> {
        let ok = sizes.len() == D::RANK
            && u16::from(DYNAMIC) >> D::RANK == 0
            && sizes.iter().zip(D::DIMS).enumerate().all(|(d, (&s, &b))| {
                if Self::is_dynamic(d) {
                    s <= b
                } else {
                    s == b
                }
            });
        if !ok {
            return Err(TensorError::Sizes {
                shape: Self::array_shape().to_string(),
                sizes: sizes.to_vec(),
            });
        }
        let mut out = [0; MAX_RANK];
        out[..sizes.len()].copy_from_slice(sizes);
        Ok(out)
    }

    /// The tensor of runtime `sizes` holding `data`, its valid elements in row-major order
    /// over `sizes`; `Err` when a size does not fit (see [`TensorError::Sizes`]) or `data`
    /// does not hold their product.
    pub fn new(sizes: &[usize], data: &[T]) -> Result<Self, TensorError> {
        let sizes = Self::check_sizes(sizes)?;
        let n: usize = sizes[..D::RANK].iter().product();
        if data.len() != n {
            return Err(TensorError::Length {
                shape: format!("{} at sizes {:?}", Self::array_shape(), &sizes[..D::RANK]),
                expected: n,
                actual: data.len(),
            });
        }
        let mut it = data.iter();
        let padded = Tensor::from_fn(|idx| {
            if idx.iter().zip(&sizes).all(|(i, s)| i < s) {
                it.next().copied().unwrap_or_default()
            } else {
                T::default()
            }
        });
        Ok(DynTensor { padded, sizes })
    }

    /// The tensor whose elements are `padded` (at the bounds) and runtime sizes `sizes`;
    /// `Err` when a size does not fit.
    pub fn from_padded(padded: Tensor<T, D>, sizes: &[usize]) -> Result<Self, TensorError> {
        let sizes = Self::check_sizes(sizes)?;
        Ok(DynTensor { padded, sizes })
    }

    /// What generated code returns: `padded` and the sizes a program computed, each clamped
    /// into its dimension's range (a static dimension takes its size), so no check can fail.
    #[doc(hidden)]
    pub fn from_program(padded: Tensor<T, D>, sizes: &[usize]) -> Self {
        let mut out = [0; MAX_RANK];
        for (d, &b) in D::DIMS.iter().enumerate() {
            let s = sizes.get(d).copied().unwrap_or(b);
            out[d] = if Self::is_dynamic(d) { s.min(b) } else { b };
        }
        DynTensor { padded, sizes: out }
    }

    /// The runtime sizes, one per dimension (a static dimension's is its size).
    pub fn sizes(&self) -> &[usize] {
        &self.sizes[..D::RANK]
    }

    /// The runtime size of dimension `d`.
    pub fn size(&self, d: usize) -> usize {
        self.sizes[d]
    }

    /// The elements padded to the bounds (the padding unspecified, see the module docs).
    pub fn padded(&self) -> &Tensor<T, D> {
        &self.padded
    }

    /// The element at `idx` when `idx` is inside the runtime sizes.
    pub fn get(&self, idx: &[usize]) -> Option<T> {
        if idx.len() != D::RANK || idx.iter().zip(&self.sizes).any(|(i, s)| i >= s) {
            return None;
        }
        self.padded.get(idx)
    }

    /// The valid elements in row-major order over the runtime sizes.
    pub fn to_vec(&self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.sizes().iter().product());
        let strides = Tensor::<T, D>::STRIDES;
        super::for_each_index(self.sizes(), &strides, |_, off| {
            out.push(self.padded.as_slice()[off]);
        });
        out
    }

    /// The literal of the valid elements: dims the runtime sizes, dynamic flags as declared
    /// (how the evaluator and `run_literals` hold dynamic values).
    pub fn to_literal(&self) -> Literal {
        let mut shape = Self::array_shape();
        shape.dims = self.sizes().iter().map(|&s| s as i64).collect();
        Literal::Array {
            shape,
            data: T::wrap(self.to_vec()),
        }
    }

    /// The tensor of a literal of the valid elements (see [`DynTensor::to_literal`]); its dims
    /// are the runtime sizes. `Err` when the element type or rank differs or a size does not fit.
    pub fn from_literal(literal: &Literal) -> Result<Self, TensorError> {
        let shape_err = || TensorError::Shape {
            expected: Self::array_shape().to_string(),
            actual: literal.shape().to_string(),
        };
        let (shape, data) = literal.as_array().ok_or_else(shape_err)?;
        let values = T::unwrap(data).ok_or(TensorError::ElementType {
            expected: T::TYPE,
            actual: data.element_type(),
        })?;
        let sizes: Vec<usize> = shape
            .dims
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| shape_err()))
            .collect::<Result<_, _>>()?;
        Self::new(&sizes, values)
    }
}

impl<T: ArrayElement, D: Dims, const DYNAMIC: u8> fmt::Debug for DynTensor<T, D, DYNAMIC> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DynTensor {} sizes {:?} {:?}",
            Self::array_shape(),
            self.sizes(),
            self.to_vec()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{D0, D2};

    type Batch = DynTensor<f32, D2<4, 3>, 0b01>;

    #[test]
    fn sizes_are_checked_against_bounds_and_static_dims() {
        let t = Batch::new(&[2, 3], &[1., 2., 3., 4., 5., 6.]).unwrap();
        assert_eq!(t.sizes(), &[2, 3]);
        assert_eq!(t.padded().as_slice()[..6], [1., 2., 3., 4., 5., 6.]);
        assert!(t.padded().as_slice()[6..].iter().all(|&x| x == 0.0));
        assert_eq!(t.get(&[1, 2]), Some(6.0));
        assert_eq!(t.get(&[2, 0]), None);
        assert_eq!(Batch::array_shape().to_string(), "f32[<=4,3]");
        // Beyond the bound, a static dimension changed, a wrong rank: Err, not a panic.
        let e = Batch::new(&[5, 3], &[0.0; 15]).unwrap_err();
        assert!(e.to_string().contains("f32[<=4,3]"), "{e}");
        assert!(Batch::new(&[2, 2], &[0.0; 4]).is_err());
        assert!(Batch::new(&[2], &[0.0; 2]).is_err());
        assert!(Batch::new(&[2, 3], &[0.0; 5]).is_err());
        // Zero rows is a valid size.
        assert_eq!(
            Batch::new(&[0, 3], &[]).unwrap().to_vec(),
            Vec::<f32>::new()
        );
        // A mask naming a dimension past the rank is refused.
        assert!(DynTensor::<f32, D0, 0b1>::new(&[], &[1.0]).is_err());
    }

    #[test]
    fn literals_hold_the_valid_elements() {
        let t = Batch::new(&[1, 3], &[7., 8., 9.]).unwrap();
        let l = t.to_literal();
        assert_eq!(l.shape().to_string(), "f32[<=1,3]");
        assert_eq!(Batch::from_literal(&l).unwrap(), t);
    }
}
