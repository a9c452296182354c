//! Borrowed, shape-typed views over the caller's memory: [`TensorView`] (`&[T]`) and
//! [`TensorViewMut`] (`&mut [T]`), with the same static dimensions `D` and layout `L` as
//! [`Tensor`], and the traits generated code takes its arguments through ([`AsView`],
//! [`AsViewMut`]).
//!
//! A view is built from a slice with a length check (`Err`, never a panic) and costs nothing
//! to make from a [`Tensor`] (`tensor.view()`, `&tensor` where an [`AsView`] is expected). Its
//! data need not be aligned beyond `T`'s own alignment: every kernel and every generated loop
//! reads and writes through slices with unaligned vector loads and stores, so alignment only
//! changes speed (see the README's "Views over your own memory").

use std::fmt;
use std::marker::PhantomData;

use xla_core::{ArrayElement, ArrayShape, Shape};

use super::{
    for_each_index, is_row_major, physical_strides, Dims, LayoutSpec, RowMajor, Tensor,
    TensorError, BUF_ALIGN, MAX_RANK,
};

/// A read-only view of `D::SIZE` elements of type `T` in the caller's memory, with the
/// compile-time dimensions `D` and layout `L` of a [`Tensor<T, D, L>`]: elements in the
/// layout's physical order (row-major for [`RowMajor`]).
///
/// `Copy`, so one view can be passed to any number of calls.
///
/// ```
/// use xla_kernels::tensor::{TensorView, D2};
///
/// let data = vec![0.0f32, 1., 2., 3., 4., 5., 6.];
/// // Any slice of the right length, at any offset: here, not 64-byte aligned.
/// let v = TensorView::<f32, D2<2, 3>>::new(&data[1..])?;
/// assert_eq!(v.get(&[1, 2]), Some(6.0));
/// let err = TensorView::<f32, D2<2, 3>>::new(&data).unwrap_err();
/// assert_eq!(err.to_string(), "tensor f32[2,3] holds 6 elements, but 7 were given");
/// # Ok::<(), xla_kernels::tensor::TensorError>(())
/// ```
pub struct TensorView<'a, T: ArrayElement, D: Dims, L: LayoutSpec = RowMajor> {
    data: &'a [T],
    _shape: PhantomData<(D, L)>,
}

/// A mutable view of `D::SIZE` elements of type `T` in the caller's memory, with the
/// compile-time dimensions `D` and layout `L` of a [`Tensor<T, D, L>`] (the output of a
/// generated `into`, for example).
///
/// ```
/// use xla_kernels::tensor::{TensorViewMut, D1};
///
/// let mut data = vec![0i32; 5];
/// let mut v = TensorViewMut::<i32, D1<4>>::new(&mut data[1..])?;
/// *v.get_mut(&[3]).unwrap() = 7;
/// assert_eq!(data, [0, 0, 0, 0, 7]);
/// # Ok::<(), xla_kernels::tensor::TensorError>(())
/// ```
pub struct TensorViewMut<'a, T: ArrayElement, D: Dims, L: LayoutSpec = RowMajor> {
    data: &'a mut [T],
    _shape: PhantomData<(D, L)>,
}

/// Something that can be read as a [`TensorView<T, D, L>`]: `&Tensor`, `&mut Tensor`, a
/// [`TensorView`], a [`TensorViewMut`], or a reference to a view. Every generated fn and
/// `into` takes its inputs as `impl AsView<..>`, so `&tensor` and a view over your own data
/// both work. Implement it for a reference to your own buffer type to pass that directly.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor or view of element type `{T}`, dims `{D}`, layout `{L}`",
    label = "expected `&Tensor<{T}, {D}, {L}>` or `TensorView<{T}, {D}, {L}>`",
    note = "the shape is part of the type: element type, dims and layout must match the declared parameter"
)]
pub trait AsView<T: ArrayElement, D: Dims, L: LayoutSpec = RowMajor> {
    /// The elements, as a view (no copy).
    fn view(&self) -> TensorView<'_, T, D, L>;
}

/// Something that can be written as a [`TensorViewMut<T, D, L>`]: `&mut Tensor`, a
/// [`TensorViewMut`], or `&mut` one (which leaves the view usable for the next call). Every
/// generated `into` takes its outputs as `impl AsViewMut<..>`, so `&mut tensor` and a view
/// over your own buffer both work.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a mutable tensor or view of element type `{T}`, dims `{D}`, layout `{L}`",
    label = "expected `&mut Tensor<{T}, {D}, {L}>` or `TensorViewMut<{T}, {D}, {L}>`",
    note = "the shape is part of the type: element type, dims and layout must match the declared result"
)]
pub trait AsViewMut<T: ArrayElement, D: Dims, L: LayoutSpec = RowMajor> {
    /// The elements, as a mutable view (no copy).
    fn view_mut(&mut self) -> TensorViewMut<'_, T, D, L>;
}

/// The length error of a view of `D` in layout `L` given `actual` elements.
fn length_error<T: ArrayElement, D: Dims, L: LayoutSpec>(actual: usize) -> TensorError {
    TensorError::Length {
        shape: Tensor::<T, D, L>::array_shape().to_string(),
        expected: D::SIZE,
        actual,
    }
}

/// Physical offset of logical index `idx` under `strides`, or `None` out of range.
fn offset_of<D: Dims>(strides: &[usize; MAX_RANK], idx: &[usize]) -> Option<usize> {
    if idx.len() != D::RANK {
        return None;
    }
    let mut off = 0;
    for (d, &i) in idx.iter().enumerate() {
        if i >= D::DIMS[d] {
            return None;
        }
        off += i * strides[d];
    }
    Some(off)
}

/// Elements of `data` (physical order under `strides`) in logical row-major order.
fn row_major_vec<T: Copy>(data: &[T], dims: &[usize], strides: &[usize], rm: bool) -> Vec<T> {
    if rm {
        return data.to_vec();
    }
    let mut out = Vec::with_capacity(data.len());
    for_each_index(dims, strides, |_, off| out.push(data[off]));
    out
}

impl<'a, T: ArrayElement, D: Dims, L: LayoutSpec> TensorView<'a, T, D, L> {
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

    /// A view of `data`, the elements in the layout's physical order (row-major for
    /// [`RowMajor`]); `Err` (naming the shape, the expected and the given length) if
    /// `data.len() != D::SIZE`. Any alignment works.
    pub fn new(data: &'a [T]) -> Result<Self, TensorError> {
        #[allow(clippy::let_unit_value)]
        let () = Tensor::<T, D, L>::LAYOUT_CHECK;
        if data.len() != D::SIZE {
            return Err(length_error::<T, D, L>(data.len()));
        }
        Ok(TensorView {
            data,
            _shape: PhantomData,
        })
    }

    /// The elements in physical order, borrowed for the view's whole lifetime.
    #[inline]
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }

    /// The element at logical index `idx`, or `None` when out of range.
    pub fn get(&self, idx: &[usize]) -> Option<T> {
        offset_of::<D>(&Self::STRIDES, idx).map(|o| self.data[o])
    }

    /// True when the data starts on a [`BUF_ALIGN`]-byte boundary, as a [`Tensor`]'s does.
    /// Results never depend on it; see the README for what misalignment costs.
    pub fn is_aligned(&self) -> bool {
        (self.data.as_ptr() as usize).is_multiple_of(BUF_ALIGN)
    }

    /// The elements in logical row-major order (a copy).
    pub fn to_row_major_vec(&self) -> Vec<T> {
        row_major_vec(self.data, D::DIMS, &Self::STRIDES, Self::IS_ROW_MAJOR)
    }

    /// An owned (aligned) copy.
    pub fn to_tensor(&self) -> Tensor<T, D, L> {
        Tensor::from_buf(crate::aligned::AlignedBuf::from_slice(self.data))
    }

    /// The XLA shape: `T[DIMS]`, with `{minor_to_major}` when the layout is explicit.
    pub fn array_shape() -> ArrayShape {
        Tensor::<T, D, L>::array_shape()
    }
}

impl<'a, T: ArrayElement, D: Dims, L: LayoutSpec> TensorViewMut<'a, T, D, L> {
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

    /// A mutable view of `data`, the elements in the layout's physical order; `Err` (naming
    /// the shape, the expected and the given length) if `data.len() != D::SIZE`. Any
    /// alignment works.
    pub fn new(data: &'a mut [T]) -> Result<Self, TensorError> {
        #[allow(clippy::let_unit_value)]
        let () = Tensor::<T, D, L>::LAYOUT_CHECK;
        if data.len() != D::SIZE {
            return Err(length_error::<T, D, L>(data.len()));
        }
        Ok(TensorViewMut {
            data,
            _shape: PhantomData,
        })
    }

    /// The elements in physical order.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        self.data
    }

    /// The elements in physical order, mutably.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }

    /// The underlying slice, for the view's whole lifetime.
    #[inline]
    pub fn into_slice(self) -> &'a mut [T] {
        self.data
    }

    /// A read-only view of the same elements.
    #[inline]
    pub fn view(&self) -> TensorView<'_, T, D, L> {
        TensorView {
            data: self.data,
            _shape: PhantomData,
        }
    }

    /// A shorter-lived mutable view of the same elements, leaving `self` usable afterwards.
    #[inline]
    pub fn reborrow(&mut self) -> TensorViewMut<'_, T, D, L> {
        TensorViewMut {
            data: self.data,
            _shape: PhantomData,
        }
    }

    /// The element at logical index `idx`, or `None` when out of range.
    pub fn get(&self, idx: &[usize]) -> Option<T> {
        offset_of::<D>(&Self::STRIDES, idx).map(|o| self.data[o])
    }

    /// The element at logical index `idx`, mutably, or `None` when out of range.
    pub fn get_mut(&mut self, idx: &[usize]) -> Option<&mut T> {
        offset_of::<D>(&Self::STRIDES, idx).map(move |o| &mut self.data[o])
    }

    /// True when the data starts on a [`BUF_ALIGN`]-byte boundary, as a [`Tensor`]'s does.
    pub fn is_aligned(&self) -> bool {
        (self.data.as_ptr() as usize).is_multiple_of(BUF_ALIGN)
    }

    /// The elements in logical row-major order (a copy).
    pub fn to_row_major_vec(&self) -> Vec<T> {
        self.view().to_row_major_vec()
    }

    /// An owned (aligned) copy.
    pub fn to_tensor(&self) -> Tensor<T, D, L> {
        self.view().to_tensor()
    }

    /// Copies `src` (any [`AsView`] of the same type and shape) into the view.
    pub fn copy_from(&mut self, src: impl AsView<T, D, L>) {
        self.data.copy_from_slice(src.view().as_slice());
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> Tensor<T, D, L> {
    /// A read-only view of the tensor (no copy).
    #[inline]
    pub fn view(&self) -> TensorView<'_, T, D, L> {
        TensorView {
            data: self.as_slice(),
            _shape: PhantomData,
        }
    }

    /// A mutable view of the tensor (no copy).
    #[inline]
    pub fn view_mut(&mut self) -> TensorViewMut<'_, T, D, L> {
        TensorViewMut {
            data: self.as_mut_slice(),
            _shape: PhantomData,
        }
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> Clone for TensorView<'_, T, D, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> Copy for TensorView<'_, T, D, L> {}

impl<'a, T: ArrayElement, D: Dims, L: LayoutSpec> TryFrom<&'a [T]> for TensorView<'a, T, D, L> {
    type Error = TensorError;
    /// [`TensorView::new`].
    fn try_from(data: &'a [T]) -> Result<Self, TensorError> {
        Self::new(data)
    }
}

impl<'a, T: ArrayElement, D: Dims, L: LayoutSpec> TryFrom<&'a mut [T]>
    for TensorViewMut<'a, T, D, L>
{
    type Error = TensorError;
    /// [`TensorViewMut::new`].
    fn try_from(data: &'a mut [T]) -> Result<Self, TensorError> {
        Self::new(data)
    }
}

impl<'a, T: ArrayElement, D: Dims, L: LayoutSpec> From<&'a Tensor<T, D, L>>
    for TensorView<'a, T, D, L>
{
    fn from(t: &'a Tensor<T, D, L>) -> Self {
        t.view()
    }
}

impl<'a, T: ArrayElement, D: Dims, L: LayoutSpec> From<&'a mut Tensor<T, D, L>>
    for TensorViewMut<'a, T, D, L>
{
    fn from(t: &'a mut Tensor<T, D, L>) -> Self {
        t.view_mut()
    }
}

impl<'a, T: ArrayElement, D: Dims, L: LayoutSpec> From<TensorViewMut<'a, T, D, L>>
    for TensorView<'a, T, D, L>
{
    fn from(v: TensorViewMut<'a, T, D, L>) -> Self {
        TensorView {
            data: v.data,
            _shape: PhantomData,
        }
    }
}

// `AsView` / `AsViewMut` are implemented for references to tensors, not for owned ones: a
// generated fn then takes `&tensor` (never the tensor by value, which would consume it), and
// clippy's `needless_borrows_for_generic_args` has nothing to suggest at the call.

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsView<T, D, L> for &Tensor<T, D, L> {
    #[inline]
    fn view(&self) -> TensorView<'_, T, D, L> {
        Tensor::view(self)
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsView<T, D, L> for &mut Tensor<T, D, L> {
    #[inline]
    fn view(&self) -> TensorView<'_, T, D, L> {
        Tensor::view(self)
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsView<T, D, L> for TensorView<'_, T, D, L> {
    #[inline]
    fn view(&self) -> TensorView<'_, T, D, L> {
        *self
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsView<T, D, L> for &TensorView<'_, T, D, L> {
    #[inline]
    fn view(&self) -> TensorView<'_, T, D, L> {
        **self
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsView<T, D, L> for TensorViewMut<'_, T, D, L> {
    #[inline]
    fn view(&self) -> TensorView<'_, T, D, L> {
        TensorViewMut::view(self)
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsView<T, D, L> for &TensorViewMut<'_, T, D, L> {
    #[inline]
    fn view(&self) -> TensorView<'_, T, D, L> {
        TensorViewMut::view(self)
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsView<T, D, L> for &mut TensorViewMut<'_, T, D, L> {
    #[inline]
    fn view(&self) -> TensorView<'_, T, D, L> {
        TensorViewMut::view(self)
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsViewMut<T, D, L> for &mut Tensor<T, D, L> {
    #[inline]
    fn view_mut(&mut self) -> TensorViewMut<'_, T, D, L> {
        Tensor::view_mut(self)
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsViewMut<T, D, L> for TensorViewMut<'_, T, D, L> {
    #[inline]
    fn view_mut(&mut self) -> TensorViewMut<'_, T, D, L> {
        self.reborrow()
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsViewMut<T, D, L>
    for &mut TensorViewMut<'_, T, D, L>
{
    #[inline]
    fn view_mut(&mut self) -> TensorViewMut<'_, T, D, L> {
        self.reborrow()
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> PartialEq for TensorView<'_, T, D, L> {
    /// Elementwise `==` (so a view holding NaN is not equal to itself).
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> PartialEq<Tensor<T, D, L>>
    for TensorView<'_, T, D, L>
{
    /// Elementwise `==`.
    fn eq(&self, other: &Tensor<T, D, L>) -> bool {
        self.data == other.as_slice()
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsRef<[T]> for TensorView<'_, T, D, L> {
    fn as_ref(&self) -> &[T] {
        self.data
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsRef<[T]> for TensorViewMut<'_, T, D, L> {
    fn as_ref(&self) -> &[T] {
        self.data
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> AsMut<[T]> for TensorViewMut<'_, T, D, L> {
    fn as_mut(&mut self) -> &mut [T] {
        self.data
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> fmt::Display for TensorView<'_, T, D, L> {
    /// Like numpy's `str(array)`, as [`Tensor`]'s `Display`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let data = T::wrap(self.to_row_major_vec());
        f.write_str(&crate::display::format_array(D::DIMS, &data))
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> fmt::Debug for TensorView<'_, T, D, L> {
    /// `TensorView(f32[2,3] [[1. 2. 3.] [4. 5. 6.]])` style.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TensorView({} ", Shape::Array(Self::array_shape()))?;
        fmt::Display::fmt(self, f)?;
        f.write_str(")")
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> fmt::Display for TensorViewMut<'_, T, D, L> {
    /// Like numpy's `str(array)`, as [`Tensor`]'s `Display`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.view(), f)
    }
}

impl<T: ArrayElement, D: Dims, L: LayoutSpec> fmt::Debug for TensorViewMut<'_, T, D, L> {
    /// `TensorViewMut(f32[2,3] [[1. 2. 3.] [4. 5. 6.]])` style.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TensorViewMut({} ",
            Shape::Array(TensorView::<T, D, L>::array_shape())
        )?;
        fmt::Display::fmt(self, f)?;
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests;
