//! Statically shaped tensors: `Tensor<T, D, L>` is an array of element type `T`, dimensions `D`
//! (a [`Dims`] marker such as `D2<2, 3>`) and physical layout `L` (a [`LayoutSpec`] marker,
//! [`RowMajor`] by default), stored in one 64-byte-aligned buffer ([`AlignedBuf`]).
//!
//! Shapes are types, so generated code indexes with constant strides: logical element
//! `idx` lives at physical offset `sum(idx[d] * STRIDES[d])`, where the strides come from
//! `L::MINOR_TO_MAJOR` exactly as XLA's dense layouts (no padding).
//!
//! `f32[2,3]` is `Tensor<f32, D2<2, 3>>`; `f32[2,3]{0,1}` is `Tensor<f32, D2<2, 3>, Mtm2<0, 1>>`;
//! `f32[]` is `Tensor<f32, D0>`.
//!
//! [`TensorView`] / [`TensorViewMut`] are the same shapes borrowed from the caller's memory
//! (any alignment), and [`AsView`] / [`AsViewMut`] what generated code takes its arguments as.
//! With the feature `ndarray`, the module `nd` converts tensors and views to and from
//! `ndarray` arrays.

use std::fmt;
use std::marker::PhantomData;

use xla_core::layout::Layout;
use xla_core::{ArrayElement, ArrayShape, ElementType, Literal, Shape};

pub use crate::aligned::{AlignedBuf, BUF_ALIGN};
pub use bounded::DynTensor;
#[cfg(feature = "ndarray")]
pub use nd::{NdDims, NdarrayError};
pub use view::{AsView, AsViewMut, TensorView, TensorViewMut};

mod bounded;
#[cfg(feature = "ndarray")]
pub mod nd;
mod view;

/// The largest rank a [`Tensor`] supports (`D8`): xla-core's, which the macro checks.
pub const MAX_RANK: usize = xla_core::shape::MAX_RANK;

/// Compile-time dimensions of a tensor.
pub trait Dims: Copy + Default + Send + Sync + 'static {
    /// Number of dimensions.
    const RANK: usize;
    /// Dimension sizes, major (first index) to minor (last index) in logical order.
    const DIMS: &'static [usize];
    /// Number of elements: the product of `DIMS` (1 for rank 0).
    const SIZE: usize;
}

/// Rank 0: a scalar.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct D0;

impl Dims for D0 {
    const RANK: usize = 0;
    const DIMS: &'static [usize] = &[];
    const SIZE: usize = 1;
}

macro_rules! dims_marker {
    ($(#[$doc:meta] $name:ident, $rank:expr, [$($p:ident),*];)*) => {$(
        #[$doc]
        #[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
        pub struct $name<$(const $p: usize),*>;

        impl<$(const $p: usize),*> Dims for $name<$($p),*> {
            const RANK: usize = $rank;
            const DIMS: &'static [usize] = &[$($p),*];
            const SIZE: usize = 1 $(* $p)*;
        }
    )*};
}

dims_marker! {
    /// Rank 1: `[A]`.
    D1, 1, [A];
    /// Rank 2: `[A, B]`.
    D2, 2, [A, B];
    /// Rank 3: `[A, B, C]`.
    D3, 3, [A, B, C];
    /// Rank 4: `[A, B, C, E]`.
    D4, 4, [A, B, C, E];
    /// Rank 5: `[A, B, C, E, F]`.
    D5, 5, [A, B, C, E, F];
    /// Rank 6: `[A, B, C, E, F, G]`.
    D6, 6, [A, B, C, E, F, G];
    /// Rank 7: `[A, B, C, E, F, G, H]`.
    D7, 7, [A, B, C, E, F, G, H];
    /// Rank 8: `[A, B, C, E, F, G, H, I]`, the largest.
    D8, 8, [A, B, C, E, F, G, H, I];
}

/// A dense physical layout: the order in which dimensions vary in memory.
pub trait LayoutSpec: Copy + Default + Send + Sync + 'static {
    /// XLA's `minor_to_major`: dimension numbers from fastest- to slowest-varying. The empty
    /// slice means the default layout (row-major: `rank-1, ..., 0`).
    const MINOR_TO_MAJOR: &'static [usize];
}

/// The default layout: the last logical dimension is contiguous (XLA `{rank-1,...,1,0}`).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct RowMajor;

impl LayoutSpec for RowMajor {
    const MINOR_TO_MAJOR: &'static [usize] = &[];
}

macro_rules! layout_marker {
    ($(#[$doc:meta] $name:ident, [$($p:ident),*];)*) => {$(
        #[$doc]
        #[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
        pub struct $name<$(const $p: usize),*>;

        impl<$(const $p: usize),*> LayoutSpec for $name<$($p),*> {
            const MINOR_TO_MAJOR: &'static [usize] = &[$($p),*];
        }
    )*};
}

layout_marker! {
    /// Explicit rank-1 layout `{A}`.
    Mtm1, [A];
    /// Explicit rank-2 layout `{A,B}` (`{0,1}` is column-major).
    Mtm2, [A, B];
    /// Explicit rank-3 layout `{A,B,C}`.
    Mtm3, [A, B, C];
    /// Explicit rank-4 layout.
    Mtm4, [A, B, C, E];
    /// Explicit rank-5 layout.
    Mtm5, [A, B, C, E, F];
    /// Explicit rank-6 layout.
    Mtm6, [A, B, C, E, F, G];
    /// Explicit rank-7 layout.
    Mtm7, [A, B, C, E, F, G, H];
    /// Explicit rank-8 layout.
    Mtm8, [A, B, C, E, F, G, H, I];
}

/// True when `mtm` is empty (default layout) or a permutation of `0..rank`, and `rank` fits.
pub const fn layout_is_valid(rank: usize, mtm: &[usize]) -> bool {
    if rank > MAX_RANK {
        return false;
    }
    if mtm.is_empty() {
        return true;
    }
    if mtm.len() != rank {
        return false;
    }
    let mut seen = [false; MAX_RANK];
    let mut i = 0;
    while i < rank {
        let d = mtm[i];
        if d >= rank || seen[d] {
            return false;
        }
        seen[d] = true;
        i += 1;
    }
    true
}

/// Physical element stride of each logical dimension for `dims` laid out by `mtm` (empty =
/// row-major): `stride[mtm[0]] = 1`, `stride[mtm[i]] = stride[mtm[i-1]] * dims[mtm[i-1]]`.
/// Entries past the rank are 0. Assumes [`layout_is_valid`].
pub const fn physical_strides(dims: &[usize], mtm: &[usize]) -> [usize; MAX_RANK] {
    let mut strides = [0usize; MAX_RANK];
    let rank = dims.len();
    if rank > MAX_RANK || !(mtm.is_empty() || mtm.len() == rank) {
        return strides;
    }
    let mut acc = 1usize;
    let mut i = 0;
    while i < rank {
        // Most minor first.
        let d = if mtm.is_empty() { rank - 1 - i } else { mtm[i] };
        if d >= rank {
            return [0; MAX_RANK];
        }
        strides[d] = acc;
        acc = acc.saturating_mul(dims[d]);
        i += 1;
    }
    strides
}

/// Why a tensor could not be built from the given data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensorError {
    /// The number of elements given differs from the tensor's size.
    Length {
        /// The tensor's shape (HLO text).
        shape: String,
        /// Elements the shape holds.
        expected: usize,
        /// Elements given.
        actual: usize,
    },
    /// A literal's element type differs from the tensor's.
    ElementType {
        /// The tensor's element type.
        expected: ElementType,
        /// The literal's element type.
        actual: ElementType,
    },
    /// A literal's shape (dims, or dynamic dims) differs from the tensor's.
    Shape {
        /// The tensor's shape (HLO text).
        expected: String,
        /// The literal's shape (HLO text).
        actual: String,
    },
    /// Runtime sizes a bounded dynamic tensor cannot take: a dynamic dimension beyond its
    /// bound, a static one different from its size, or a wrong count.
    Sizes {
        /// The tensor's shape (HLO text, `<=N` for the dynamic dimensions).
        shape: String,
        /// The sizes given.
        sizes: Vec<usize>,
    },
}

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorError::Length {
                shape,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "tensor {shape} holds {expected} elements, but {actual} were given"
                )
            }
            TensorError::ElementType { expected, actual } => {
                write!(
                    f,
                    "element type mismatch: tensor of {expected} vs literal of {actual}"
                )
            }
            TensorError::Shape { expected, actual } => {
                write!(f, "shape mismatch: tensor {expected} vs literal {actual}")
            }
            TensorError::Sizes { shape, sizes } => write!(
                f,
                "sizes {sizes:?} do not fit the tensor {shape}: one size per dimension, a \
                 dynamic one (`<=N`) at most its bound, a static one equal to its size"
            ),
        }
    }
}

impl std::error::Error for TensorError {}

impl From<TensorError> for xla_core::Error {
    fn from(e: TensorError) -> Self {
        xla_core::Error::new("Tensor", e.to_string())
    }
}

/// An array of `D::SIZE` elements of type `T` with compile-time dimensions `D` and layout `L`,
/// stored contiguously (physical order given by `L`) in a 64-byte-aligned buffer.
pub struct Tensor<T: ArrayElement, D: Dims, L: LayoutSpec = RowMajor> {
    buf: AlignedBuf<T>,
    _shape: PhantomData<(D, L)>,
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> Tensor<T, D, L> {
    /// Number of dimensions.
    pub const RANK: usize = D::RANK;
    /// Logical dimension sizes.
    pub const DIMS: &'static [usize] = D::DIMS;
    /// Number of elements.
    pub const SIZE: usize = D::SIZE;
    /// Physical stride (in elements) of each logical dimension; entries past `RANK` are 0.
    pub const STRIDES: [usize; MAX_RANK] = physical_strides(D::DIMS, L::MINOR_TO_MAJOR);
    /// True when the physical order is the logical row-major order.
    pub const IS_ROW_MAJOR: bool = is_row_major(D::RANK, L::MINOR_TO_MAJOR);

    /// Evaluated by every constructor: a layout that is not a permutation of the dimensions
    /// (or a rank above [`MAX_RANK`]) is a compile-time error, never a runtime one.
    const LAYOUT_CHECK: () = assert!(
        layout_is_valid(D::RANK, L::MINOR_TO_MAJOR),
        "Tensor: the layout's minor_to_major must be a permutation of 0..rank (rank <= 8)"
    );

    fn from_buf(buf: AlignedBuf<T>) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::LAYOUT_CHECK;
        debug_assert_eq!(buf.len(), D::SIZE);
        Tensor {
            buf,
            _shape: PhantomData,
        }
    }

    fn length_error(actual: usize) -> TensorError {
        TensorError::Length {
            shape: Self::array_shape().to_string(),
            expected: D::SIZE,
            actual,
        }
    }

    /// A tensor from elements in the layout's physical order (row-major for [`RowMajor`]);
    /// `Err` if `data.len() != D::SIZE`.
    pub fn from_vec(data: Vec<T>) -> Result<Self, TensorError> {
        Self::from_slice(&data)
    }

    /// A tensor from elements in the layout's physical order (row-major for [`RowMajor`]);
    /// `Err` if `data.len() != D::SIZE`.
    pub fn from_slice(data: &[T]) -> Result<Self, TensorError> {
        if data.len() != D::SIZE {
            return Err(Self::length_error(data.len()));
        }
        Ok(Self::from_buf(AlignedBuf::from_slice(data)))
    }

    /// A tensor whose element at logical index `idx` is `f(idx)`; `f` is called in logical
    /// row-major order.
    pub fn from_fn(mut f: impl FnMut(&[usize]) -> T) -> Self {
        let mut buf = AlignedBuf::filled(T::default(), D::SIZE);
        let slice = buf.as_mut_slice();
        for_each_index(D::DIMS, &Self::STRIDES, |idx, off| slice[off] = f(idx));
        Self::from_buf(buf)
    }

    /// Every element `T::default()` (0, false, +0.0).
    pub fn zeros() -> Self {
        Self::filled(T::default())
    }

    /// Every element `v`.
    pub fn filled(v: T) -> Self {
        Self::from_buf(AlignedBuf::filled(v, D::SIZE))
    }

    /// The elements in physical order.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        self.buf.as_slice()
    }

    /// The elements in physical order, mutably.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.buf.as_mut_slice()
    }

    /// Physical offset of logical index `idx`, or `None` if the rank or a coordinate is out of
    /// range.
    pub fn offset_of(idx: &[usize]) -> Option<usize> {
        if idx.len() != D::RANK {
            return None;
        }
        let mut off = 0;
        for (d, &i) in idx.iter().enumerate() {
            if i >= D::DIMS[d] {
                return None;
            }
            off += i * Self::STRIDES[d];
        }
        Some(off)
    }

    /// The element at logical index `idx`, or `None` when out of range.
    pub fn get(&self, idx: &[usize]) -> Option<T> {
        Self::offset_of(idx).map(|o| self.buf.as_slice()[o])
    }

    /// The element at logical index `idx`, mutably, or `None` when out of range.
    pub fn get_mut(&mut self, idx: &[usize]) -> Option<&mut T> {
        Self::offset_of(idx).map(move |o| &mut self.buf.as_mut_slice()[o])
    }

    /// The elements in logical row-major order (a copy; equal to `as_slice` for row-major).
    pub fn to_row_major_vec(&self) -> Vec<T> {
        if Self::IS_ROW_MAJOR {
            return self.as_slice().to_vec();
        }
        let src = self.as_slice();
        let mut out = Vec::with_capacity(D::SIZE);
        for_each_index(D::DIMS, &Self::STRIDES, |_, off| out.push(src[off]));
        out
    }

    /// The same logical array in another physical layout.
    pub fn relayout<L2: LayoutSpec>(&self) -> Tensor<T, D, L2> {
        let src = self.as_slice();
        Tensor::<T, D, L2>::from_fn(|idx| {
            let off: usize = idx
                .iter()
                .zip(Self::STRIDES.iter())
                .map(|(i, s)| i * s)
                .sum();
            src[off]
        })
    }

    /// The XLA shape: `T[DIMS]`, with `{minor_to_major}` when the layout is explicit.
    pub fn array_shape() -> ArrayShape {
        let dims: Vec<i64> = D::DIMS.iter().map(|&d| d as i64).collect();
        let mut shape = ArrayShape::new(T::TYPE, &dims);
        if !L::MINOR_TO_MAJOR.is_empty() {
            let mtm: Vec<i64> = L::MINOR_TO_MAJOR.iter().map(|&d| d as i64).collect();
            shape.layout = Some(Layout::new(&mtm));
        }
        shape
    }

    /// A literal holding the same array (literal elements are in row-major logical order; the
    /// shape carries the layout when it is explicit).
    pub fn to_literal(&self) -> Literal {
        Literal::Array {
            shape: Self::array_shape(),
            data: T::wrap(self.to_row_major_vec()),
        }
    }

    /// The tensor holding a literal's array. `Err` unless the literal is a static array of
    /// element type `T` and dimensions `D` (its layout, informational in literals, is ignored).
    pub fn from_literal(literal: &Literal) -> Result<Self, TensorError> {
        let shape_err = || TensorError::Shape {
            expected: Self::array_shape().to_string(),
            actual: literal.shape().to_string(),
        };
        let (shape, data) = literal.as_array().ok_or_else(shape_err)?;
        if shape.ty != T::TYPE {
            return Err(TensorError::ElementType {
                expected: T::TYPE,
                actual: shape.ty,
            });
        }
        let dims_match = shape.dims.len() == D::RANK
            && shape
                .dims
                .iter()
                .zip(D::DIMS)
                .all(|(&a, &b)| usize::try_from(a) == Ok(b));
        if !dims_match || shape.is_dynamic() {
            return Err(shape_err());
        }
        let values = T::unwrap(data).ok_or(TensorError::ElementType {
            expected: T::TYPE,
            actual: data.element_type(),
        })?;
        if values.len() != D::SIZE {
            return Err(Self::length_error(values.len()));
        }
        if Self::IS_ROW_MAJOR {
            return Self::from_slice(values);
        }
        let mut it = values.iter();
        // `from_fn` visits indices in row-major order: the literal's order.
        Ok(Self::from_fn(|_| it.next().copied().unwrap_or_default()))
    }
}

impl<T: ArrayElement> Tensor<T, D0> {
    /// A rank-0 tensor holding `v`.
    pub fn scalar(v: T) -> Self {
        Self::filled(v)
    }

    /// The value of a rank-0 tensor.
    #[inline]
    pub fn value(&self) -> T {
        self.buf.as_slice()[0]
    }
}

const fn is_row_major(rank: usize, mtm: &[usize]) -> bool {
    if mtm.is_empty() {
        return true;
    }
    if mtm.len() != rank {
        return false;
    }
    let mut i = 0;
    while i < rank {
        if mtm[i] != rank - 1 - i {
            return false;
        }
        i += 1;
    }
    true
}

/// Calls `f(idx, offset)` for every logical index of `dims` in row-major order, with `offset`
/// the physical offset under `strides`. Nothing is called when an extent is 0.
pub fn for_each_index(dims: &[usize], strides: &[usize], mut f: impl FnMut(&[usize], usize)) {
    let rank = dims.len();
    if dims.contains(&0) {
        return;
    }
    let mut idx = [0usize; MAX_RANK];
    let idx = &mut idx[..rank];
    let mut off = 0usize;
    loop {
        f(idx, off);
        // Odometer increment, innermost dimension first.
        let mut d = rank;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            off += strides[d];
            if idx[d] < dims[d] {
                break;
            }
            off -= strides[d] * dims[d];
            idx[d] = 0;
        }
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> Clone for Tensor<T, D, L> {
    fn clone(&self) -> Self {
        Tensor {
            buf: self.buf.clone(),
            _shape: PhantomData,
        }
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> Default for Tensor<T, D, L> {
    fn default() -> Self {
        Self::zeros()
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> PartialEq for Tensor<T, D, L> {
    /// Elementwise `==` (so a tensor holding NaN is not equal to itself).
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsRef<[T]> for Tensor<T, D, L> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsMut<[T]> for Tensor<T, D, L> {
    fn as_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> fmt::Debug for Tensor<T, D, L> {
    /// `Tensor(f32[2,3] [[1. 2. 3.] [4. 5. 6.]])` style: the shape, then the numpy rendering.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({} ", Shape::Array(Self::array_shape()))?;
        fmt::Display::fmt(self, f)?;
        f.write_str(")")
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> fmt::Display for Tensor<T, D, L> {
    /// Like numpy's `str(array)`: `[[1. 2. 3.]\n [4. 5. 6.]]`, summarised with `...` above
    /// 1000 elements.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let data = T::wrap(self.to_row_major_vec());
        f.write_str(&crate::display::format_array(D::DIMS, &data))
    }
}

#[cfg(test)]
mod tests;
