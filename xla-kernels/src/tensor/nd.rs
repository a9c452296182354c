//! Conversions between tensors and [`ndarray`] arrays (feature `ndarray`).
//!
//! | from | to | how |
//! |---|---|---|
//! | [`TensorView`] | `ArrayView` | `From`, zero-copy (the layout becomes the array's strides) |
//! | [`TensorViewMut`] | `ArrayViewMut` | `From`, zero-copy |
//! | `&`[`Tensor`] | `Array` | `From`, a copy in the same memory order |
//! | `ArrayView` | [`TensorView`] | `TryFrom`, zero-copy; `Err` if the shape or the strides differ from the tensor type's |
//! | `ArrayViewMut` | [`TensorViewMut`] | `TryFrom`, zero-copy; `Err` as above |
//! | `&ArrayBase` (`Array`, `ArrayView`, ...), `Array` | [`Tensor`] | `TryFrom`, a copy from any strides; `Err` if the shape differs |
//!
//! The array's dimension type follows the rank: `Ix0`..`Ix6` for [`D0`]..
//! [`D6`], `IxDyn` for `D7` and `D8` ([`NdDims`]). A standard (row-major,
//! contiguous) array matches a [`RowMajor`](super::RowMajor) tensor, a Fortran-order one a
//! column-major layout such as `Mtm2<0, 1>`; strides of axes of length 1 do not matter.
//!
//! ```
//! use xla_kernels::tensor::nd::ndarray::{array, ArrayView2};
//! use xla_kernels::tensor::{Tensor, TensorView, D2};
//!
//! let a = array![[1.0f32, 2., 3.], [4., 5., 6.]];
//! // An ndarray view as a tensor view (no copy) and back.
//! let v = TensorView::<f32, D2<2, 3>>::try_from(a.view())?;
//! assert_eq!(v.as_slice().as_ptr(), a.as_ptr());
//! assert_eq!(ArrayView2::from(v), a);
//! // A transposed array is not row-major: a view is refused, an owned tensor copies.
//! let t = a.t();
//! let err = TensorView::<f32, D2<3, 2>>::try_from(t).unwrap_err();
//! assert!(err.to_string().contains("strides [1, 3]"), "{err}");
//! let owned = Tensor::<f32, D2<3, 2>>::try_from(&t)?;
//! assert_eq!(owned.as_slice(), &[1., 4., 2., 5., 3., 6.]);
//! // A shape mismatch names both shapes.
//! let err = Tensor::<f32, D2<3, 3>>::try_from(&a).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "ndarray of shape [2, 3] does not fit tensor f32[3,3] (shape [3, 3])"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

pub use ndarray;
use ndarray::{
    Array, ArrayBase, ArrayView, ArrayViewMut, Data, Dimension, IntoDimension, Ix0, Ix1, Ix2, Ix3,
    Ix4, Ix5, Ix6, IxDyn, ShapeBuilder,
};
use xla_core::ArrayElement;

use super::{
    Dims, LayoutSpec, Tensor, TensorView, TensorViewMut, D0, D1, D2, D3, D4, D5, D6, D7, D8,
};

/// A [`Dims`] marker's `ndarray` dimension type.
pub trait NdDims: Dims {
    /// `Ix0`..`Ix6` for ranks 0 to 6, `IxDyn` for ranks 7 and 8.
    type Nd: Dimension;

    /// The `ndarray` dimension holding `values` (one per axis: `Self::RANK` of them).
    fn nd(values: &[usize]) -> Self::Nd;
}

impl NdDims for D0 {
    type Nd = Ix0;
    fn nd(_: &[usize]) -> Ix0 {
        ndarray::Ix0()
    }
}

macro_rules! nd_dims {
    ($($name:ident<$($p:ident),*> => $nd:ident, $n:literal;)*) => {$(
        impl<$(const $p: usize),*> NdDims for $name<$($p),*> {
            type Nd = $nd;
            fn nd(values: &[usize]) -> $nd {
                let mut a = [0usize; $n];
                a.iter_mut().zip(values).for_each(|(x, &v)| *x = v);
                a.into_dimension()
            }
        }
    )*};
}

nd_dims! {
    D1<A> => Ix1, 1;
    D2<A, B> => Ix2, 2;
    D3<A, B, C> => Ix3, 3;
    D4<A, B, C, E> => Ix4, 4;
    D5<A, B, C, E, F> => Ix5, 5;
    D6<A, B, C, E, F, G> => Ix6, 6;
}

impl<
        const A: usize,
        const B: usize,
        const C: usize,
        const E: usize,
        const F: usize,
        const G: usize,
        const H: usize,
    > NdDims for D7<A, B, C, E, F, G, H>
{
    type Nd = IxDyn;
    fn nd(values: &[usize]) -> IxDyn {
        IxDyn(values)
    }
}

impl<
        const A: usize,
        const B: usize,
        const C: usize,
        const E: usize,
        const F: usize,
        const G: usize,
        const H: usize,
        const I: usize,
    > NdDims for D8<A, B, C, E, F, G, H, I>
{
    type Nd = IxDyn;
    fn nd(values: &[usize]) -> IxDyn {
        IxDyn(values)
    }
}

/// Why an `ndarray` array could not become a tensor or a tensor view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NdarrayError {
    /// The array's shape differs from the tensor's dimensions.
    Shape {
        /// The tensor type's shape (HLO text, `f32[2,3]`).
        tensor: String,
        /// The tensor's dimensions.
        expected: Vec<usize>,
        /// The array's shape.
        actual: Vec<usize>,
    },
    /// A view shares memory, so the array's strides must be the tensor layout's; these
    /// differ (an owned `Tensor` converts from any strides, by copying).
    Layout {
        /// The tensor type's shape (HLO text, with its layout when explicit).
        tensor: String,
        /// The tensor layout's strides, in elements.
        expected: Vec<isize>,
        /// The array's strides, in elements.
        actual: Vec<isize>,
    },
}

impl fmt::Display for NdarrayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NdarrayError::Shape {
                tensor,
                expected,
                actual,
            } => write!(
                f,
                "ndarray of shape {actual:?} does not fit tensor {tensor} (shape {expected:?})"
            ),
            NdarrayError::Layout {
                tensor,
                expected,
                actual,
            } => write!(
                f,
                "ndarray strides {actual:?} differ from the layout of tensor {tensor} (strides \
                 {expected:?}): a view shares memory, so they must agree; convert into an owned \
                 Tensor (a copy) instead"
            ),
        }
    }
}

impl std::error::Error for NdarrayError {}

impl From<NdarrayError> for xla_core::Error {
    fn from(e: NdarrayError) -> Self {
        xla_core::Error::new("ndarray", e.to_string())
    }
}

/// The tensor type's strides as an `ndarray` dimension (elements; all non-negative).
fn strides_of<T: ArrayElement, D: NdDims, L: LayoutSpec>() -> D::Nd {
    D::nd(&TensorView::<T, D, L>::STRIDES[..D::RANK])
}

/// `Err` unless `shape` is the tensor's dims.
fn check_shape<T: ArrayElement, D: NdDims, L: LayoutSpec>(
    shape: &[usize],
) -> Result<(), NdarrayError> {
    if shape == D::DIMS {
        return Ok(());
    }
    Err(NdarrayError::Shape {
        tensor: Tensor::<T, D, L>::array_shape().to_string(),
        expected: D::DIMS.to_vec(),
        actual: shape.to_vec(),
    })
}

/// True when strides `actual` address the elements exactly as the tensor layout does (axes
/// of length 1 may have any stride; an empty array matches any strides).
fn layout_matches<T: ArrayElement, D: NdDims, L: LayoutSpec>(actual: &[isize]) -> bool {
    let want = &TensorView::<T, D, L>::STRIDES[..D::RANK];
    D::SIZE == 0
        || (actual.len() == D::RANK
            && D::DIMS
                .iter()
                .zip(actual)
                .zip(want)
                .all(|((&n, &s), &w)| n <= 1 || s == w as isize))
}

fn layout_error<T: ArrayElement, D: NdDims, L: LayoutSpec>(actual: &[isize]) -> NdarrayError {
    NdarrayError::Layout {
        tensor: Tensor::<T, D, L>::array_shape().to_string(),
        expected: TensorView::<T, D, L>::STRIDES[..D::RANK]
            .iter()
            .map(|&s| s as isize)
            .collect(),
        actual: actual.to_vec(),
    }
}

/// A slice's length error as a shape error (a contiguous array of the right shape always
/// has `D::SIZE` elements, so this is only reached through a bug).
fn length_as_shape<T: ArrayElement, D: NdDims, L: LayoutSpec>(shape: &[usize]) -> NdarrayError {
    NdarrayError::Shape {
        tensor: Tensor::<T, D, L>::array_shape().to_string(),
        expected: D::DIMS.to_vec(),
        actual: shape.to_vec(),
    }
}

impl<'a, T: ArrayElement, D: NdDims, L: LayoutSpec> From<TensorView<'a, T, D, L>>
    for ArrayView<'a, T, D::Nd>
{
    /// The same elements (no copy), the tensor layout as the array's strides.
    fn from(v: TensorView<'a, T, D, L>) -> Self {
        // An empty array's strides are irrelevant, and ndarray bounds-checks custom strides
        // against the (empty) slice even then: give it the default ones.
        let r = if D::SIZE == 0 {
            ArrayView::from_shape(D::nd(D::DIMS), v.as_slice())
        } else {
            ArrayView::from_shape(
                D::nd(D::DIMS).strides(strides_of::<T, D, L>()),
                v.as_slice(),
            )
        };
        match r {
            Ok(a) => a,
            // The view holds exactly D::SIZE elements and a layout's strides are a dense
            // permutation of the dims, which ndarray accepts (tested for every rank).
            Err(e) => unreachable!("a tensor view's shape and strides fit ndarray: {e}"),
        }
    }
}

impl<'a, T: ArrayElement, D: NdDims, L: LayoutSpec> From<TensorViewMut<'a, T, D, L>>
    for ArrayViewMut<'a, T, D::Nd>
{
    /// The same elements (no copy), the tensor layout as the array's strides.
    fn from(v: TensorViewMut<'a, T, D, L>) -> Self {
        let data = v.into_slice();
        // As for `ArrayView` above.
        let r = if D::SIZE == 0 {
            ArrayViewMut::from_shape(D::nd(D::DIMS), data)
        } else {
            ArrayViewMut::from_shape(D::nd(D::DIMS).strides(strides_of::<T, D, L>()), data)
        };
        match r {
            Ok(a) => a,
            // As for `ArrayView` above.
            Err(e) => unreachable!("a tensor view's shape and strides fit ndarray: {e}"),
        }
    }
}

impl<T: ArrayElement, D: NdDims, L: LayoutSpec> From<&Tensor<T, D, L>> for Array<T, D::Nd> {
    /// A copy, in the tensor's memory order (a column-major tensor gives a Fortran-order
    /// array).
    fn from(t: &Tensor<T, D, L>) -> Self {
        ArrayView::from(t.view()).to_owned()
    }
}

impl<'a, T: ArrayElement, D: NdDims, L: LayoutSpec> TryFrom<ArrayView<'a, T, D::Nd>>
    for TensorView<'a, T, D, L>
{
    type Error = NdarrayError;
    /// The same elements (no copy); `Err` if the array's shape differs from `D` or its
    /// strides from the layout `L`'s.
    fn try_from(a: ArrayView<'a, T, D::Nd>) -> Result<Self, NdarrayError> {
        check_shape::<T, D, L>(a.shape())?;
        if D::SIZE == 0 {
            // No elements: nothing to share (an empty array may have any strides).
            return TensorView::new(&[]).map_err(|_| length_as_shape::<T, D, L>(a.shape()));
        }
        if !layout_matches::<T, D, L>(a.strides()) {
            return Err(layout_error::<T, D, L>(a.strides()));
        }
        let shape = a.shape().to_vec();
        let strides = a.strides().to_vec();
        let data = a
            .to_slice_memory_order()
            .ok_or_else(|| layout_error::<T, D, L>(&strides))?;
        TensorView::new(data).map_err(|_| length_as_shape::<T, D, L>(&shape))
    }
}

impl<'a, T: ArrayElement, D: NdDims, L: LayoutSpec> TryFrom<ArrayViewMut<'a, T, D::Nd>>
    for TensorViewMut<'a, T, D, L>
{
    type Error = NdarrayError;
    /// The same elements (no copy); `Err` if the array's shape differs from `D` or its
    /// strides from the layout `L`'s.
    fn try_from(a: ArrayViewMut<'a, T, D::Nd>) -> Result<Self, NdarrayError> {
        check_shape::<T, D, L>(a.shape())?;
        if D::SIZE == 0 {
            // No elements: nothing to share (an empty array may have any strides).
            return TensorViewMut::new(&mut []).map_err(|_| length_as_shape::<T, D, L>(a.shape()));
        }
        if !layout_matches::<T, D, L>(a.strides()) {
            return Err(layout_error::<T, D, L>(a.strides()));
        }
        let shape = a.shape().to_vec();
        let strides = a.strides().to_vec();
        let data = a
            .into_slice_memory_order()
            .ok_or_else(|| layout_error::<T, D, L>(&strides))?;
        TensorViewMut::new(data).map_err(|_| length_as_shape::<T, D, L>(&shape))
    }
}

impl<T: ArrayElement, D: NdDims, L: LayoutSpec, S: Data<Elem = T>> TryFrom<&ArrayBase<S, D::Nd>>
    for Tensor<T, D, L>
{
    type Error = NdarrayError;
    /// A copy from any strides (one memory copy when they are the layout's); `Err` if the
    /// array's shape differs from `D`.
    fn try_from(a: &ArrayBase<S, D::Nd>) -> Result<Self, NdarrayError> {
        check_shape::<T, D, L>(a.shape())?;
        if layout_matches::<T, D, L>(a.strides()) {
            if let Some(s) = a.as_slice_memory_order() {
                return Tensor::from_slice(s).map_err(|_| length_as_shape::<T, D, L>(a.shape()));
            }
        }
        // Logical row-major order on both sides: `iter` walks the array that way whatever its
        // strides, and `from_fn` fills the tensor that way whatever its layout.
        let mut it = a.iter();
        Ok(Tensor::from_fn(|_| it.next().copied().unwrap_or_default()))
    }
}

impl<T: ArrayElement, D: NdDims, L: LayoutSpec> TryFrom<Array<T, D::Nd>> for Tensor<T, D, L> {
    type Error = NdarrayError;
    /// As `TryFrom<&Array>`: a copy into the tensor's aligned buffer.
    fn try_from(a: Array<T, D::Nd>) -> Result<Self, NdarrayError> {
        Tensor::try_from(&a)
    }
}
