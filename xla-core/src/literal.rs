//! Runtime values: [`Literal`] is what the evaluator computes, what the dynamic entry of a
//! generated fn takes and returns, and what the oracle harness sends to XLA.

use num_complex::Complex;

use crate::element::{ElementType, NativeType};
use crate::error::{Error, Result};
use crate::shape::{ArrayShape, Shape};

/// Elements of an array in row-major (logical) order, one variant per element type.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayData {
    /// `pred` elements.
    Pred(Vec<bool>),
    /// `s8` elements: 8-bit two's-complement integers.
    S8(Vec<i8>),
    /// `s16` elements.
    S16(Vec<i16>),
    /// `s32` elements.
    S32(Vec<i32>),
    /// `s64` elements.
    S64(Vec<i64>),
    /// `u8` elements: 8-bit unsigned integers.
    U8(Vec<u8>),
    /// `u16` elements.
    U16(Vec<u16>),
    /// `u32` elements.
    U32(Vec<u32>),
    /// `u64` elements.
    U64(Vec<u64>),
    /// `f16` elements: IEEE binary16.
    F16(Vec<half::f16>),
    /// `bf16` elements: bfloat16 (f32's exponent, 8 significand bits).
    Bf16(Vec<half::bf16>),
    /// `f32` elements: IEEE binary32.
    F32(Vec<f32>),
    /// `f64` elements: IEEE binary64.
    F64(Vec<f64>),
    /// `c64` elements: complex numbers with f32 parts.
    C64(Vec<Complex<f32>>),
    /// `c128` elements: complex numbers with f64 parts.
    C128(Vec<Complex<f64>>),
}

/// A value of any shape. Array elements are always in row-major order; a layout in the shape is
/// informational only.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// A dense array.
    Array {
        /// Element type and dimensions (`data.len()` is their product).
        shape: ArrayShape,
        /// The elements, row-major.
        data: ArrayData,
    },
    /// A tuple.
    Tuple(Vec<Literal>),
    /// A token.
    Token,
}

/// Moves typed vectors in and out of [`ArrayData`]; implemented for every [`NativeType`].
pub trait ArrayElement: NativeType {
    /// Wrap a vector.
    fn wrap(v: Vec<Self>) -> ArrayData;
    /// Borrow the elements if `data` holds this type.
    fn unwrap(data: &ArrayData) -> Option<&[Self]>;
}

macro_rules! array_element {
    ($($t:ty => $v:ident),* $(,)?) => {
        $(impl ArrayElement for $t {
            fn wrap(v: Vec<Self>) -> ArrayData { ArrayData::$v(v) }
            fn unwrap(data: &ArrayData) -> Option<&[Self]> {
                match data { ArrayData::$v(v) => Some(v), _ => None }
            }
        })*
        impl ArrayData {
            /// The element type stored.
            pub fn element_type(&self) -> ElementType {
                match self { $(ArrayData::$v(_) => ElementType::$v,)* }
            }
            /// Number of elements stored.
            pub fn len(&self) -> usize {
                match self { $(ArrayData::$v(v) => v.len(),)* }
            }
            /// True when no element is stored.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
            /// `n` zero (false) elements of type `ty`.
            pub fn zeros(ty: ElementType, n: usize) -> ArrayData {
                match ty { $(ElementType::$v => ArrayData::$v(vec![<$t>::default(); n]),)* }
            }
        }
    };
}

array_element!(
    bool => Pred, i8 => S8, i16 => S16, i32 => S32, i64 => S64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    half::f16 => F16, half::bf16 => Bf16, f32 => F32, f64 => F64,
    Complex<f32> => C64, Complex<f64> => C128,
);

impl Literal {
    /// An array literal from row-major elements; `Err` if the length is not the product of
    /// `dims`.
    pub fn from_vec<T: ArrayElement>(dims: &[i64], values: Vec<T>) -> Result<Literal> {
        let shape = ArrayShape::new(T::TYPE, dims);
        if dims.iter().any(|&d| d < 0) || shape.element_count() as usize != values.len() {
            return Err(Error::new(
                "Literal",
                format!(
                    "{} elements given for shape {}",
                    values.len(),
                    Shape::Array(shape)
                ),
            ));
        }
        Ok(Literal::Array {
            shape,
            data: T::wrap(values),
        })
    }

    /// A scalar literal.
    pub fn scalar<T: ArrayElement>(value: T) -> Literal {
        Literal::Array {
            shape: ArrayShape::scalar(T::TYPE),
            data: T::wrap(vec![value]),
        }
    }

    /// A zero-filled array literal.
    pub fn zeros(shape: &ArrayShape) -> Literal {
        let data = ArrayData::zeros(shape.ty, shape.element_count() as usize);
        Literal::Array {
            shape: shape.clone(),
            data,
        }
    }

    /// The literal's shape.
    pub fn shape(&self) -> Shape {
        match self {
            Literal::Array { shape, .. } => Shape::Array(shape.clone()),
            Literal::Tuple(elems) => Shape::Tuple(elems.iter().map(Literal::shape).collect()),
            Literal::Token => Shape::Token,
        }
    }

    /// Row-major elements if this is an array of element type `T`.
    pub fn as_slice<T: ArrayElement>(&self) -> Option<&[T]> {
        match self {
            Literal::Array { data, .. } => T::unwrap(data),
            Literal::Tuple(_) | Literal::Token => None,
        }
    }

    /// The array shape and data, or `None` for tuples and tokens.
    pub fn as_array(&self) -> Option<(&ArrayShape, &ArrayData)> {
        match self {
            Literal::Array { shape, data } => Some((shape, data)),
            Literal::Tuple(_) | Literal::Token => None,
        }
    }
}
