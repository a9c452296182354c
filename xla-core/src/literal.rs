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
    /// A tuple: its element values in order, possibly nested or empty.
    Tuple(Vec<Literal>),
    /// A token: no data, only orders side effects.
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
            /// `out[i] = self[from[i]]`, zero (false) where `from[i]` is `None`; `from`'s
            /// indices are in range (the caller computed them from this array's shape).
            pub fn pick(&self, from: &[Option<usize>]) -> ArrayData {
                match self {
                    $(ArrayData::$v(v) => ArrayData::$v(
                        from.iter().map(|f| f.map_or(<$t>::default(), |j| v[j])).collect(),
                    ),)*
                }
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
        // Checked: a product of user-given dims can overflow, and must give an Err, not a panic.
        let count = dims.iter().try_fold(1usize, |n, &d| {
            usize::try_from(d).ok().and_then(|d| n.checked_mul(d))
        });
        if count != Some(values.len()) {
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

    /// `Ok` when the literal has `expected`'s structure, element types and dimensions (dynamic
    /// flags included) and each array holds as many elements as its dims multiply to. Layouts
    /// are not compared: a literal's elements are row-major whatever its layout says. The `Err`
    /// names both shapes and where they first differ.
    pub fn check_shape(&self, expected: &Shape) -> Result<()> {
        match first_mismatch(self, expected, &mut Vec::new()) {
            None => Ok(()),
            Some(why) => Err(Error::new(
                "Literal",
                format!("expected {expected}, given {}: {why}", self.shape()),
            )),
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

/// Where `lit` first departs from `expected` (depth first), described with its tuple path;
/// `None` when it conforms (see [`Literal::check_shape`]).
fn first_mismatch(lit: &Literal, expected: &Shape, path: &mut Vec<usize>) -> Option<String> {
    let at = |what: String, path: &[usize]| {
        if path.is_empty() {
            what
        } else {
            let p: Vec<String> = path.iter().map(usize::to_string).collect();
            format!("{what} at tuple index {{{}}}", p.join(", "))
        }
    };
    let kind = |s: &Shape| match s {
        Shape::Array(_) => "an array",
        Shape::Tuple(_) => "a tuple",
        Shape::Token => "a token",
    };
    let lit_kind = match lit {
        Literal::Array { .. } => "an array",
        Literal::Tuple(_) => "a tuple",
        Literal::Token => "a token",
    };
    match (lit, expected) {
        (Literal::Array { shape, data }, Shape::Array(want)) => {
            let why = if shape.ty != want.ty {
                format!("element type {} instead of {}", shape.ty, want.ty)
            } else if shape.dims.len() != want.dims.len() {
                format!("rank {} instead of {}", shape.dims.len(), want.dims.len())
            } else if shape.dims != want.dims || shape.dynamic != want.dynamic {
                format!("dimensions {shape} instead of {want}")
            } else if data.element_type() != shape.ty {
                format!(
                    "{} data in a literal of type {}",
                    data.element_type(),
                    shape.ty
                )
            } else {
                // Dims equal the expected ones here, whose product the caller can allocate;
                // still checked, so a hand-made shape cannot overflow.
                let count = shape.dims.iter().try_fold(1usize, |n, &d| {
                    usize::try_from(d).ok().and_then(|d| n.checked_mul(d))
                });
                if count == Some(data.len()) {
                    return None;
                }
                let want_count = count.map_or("too many".to_string(), |c| c.to_string());
                format!("{} elements instead of {want_count}", data.len())
            };
            Some(at(why, path))
        }
        (Literal::Tuple(elems), Shape::Tuple(want)) => {
            if elems.len() != want.len() {
                let noun = if elems.len() == 1 {
                    "element"
                } else {
                    "elements"
                };
                let why = format!(
                    "a tuple of {} {noun} instead of {}",
                    elems.len(),
                    want.len()
                );
                return Some(at(why, path));
            }
            for (i, (e, w)) in elems.iter().zip(want).enumerate() {
                path.push(i);
                let why = first_mismatch(e, w, path);
                path.pop();
                if why.is_some() {
                    return why;
                }
            }
            None
        }
        (Literal::Token, Shape::Token) => None,
        (Literal::Array { .. } | Literal::Tuple(_) | Literal::Token, _) => Some(at(
            format!("{lit_kind} instead of {}", kind(expected)),
            path,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::parse_shape;

    fn shape(text: &str) -> Shape {
        parse_shape(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn mismatch(lit: &Literal, expected: &str) -> String {
        match lit.check_shape(&shape(expected)) {
            Ok(()) => panic!("{:?} accepted as {expected}", lit.shape()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn from_vec_rejects_wrong_lengths_negative_and_overflowing_dims() {
        assert!(Literal::from_vec(&[2, 3], vec![0f32; 6]).is_ok());
        let e = Literal::from_vec(&[2, 3], vec![0f32; 5]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Literal: 5 elements given for shape f32[2,3]"
        );
        assert!(Literal::from_vec(&[-1, 3], Vec::<f32>::new()).is_err());
        // The product overflows usize (and i64): an Err, not an arithmetic-overflow panic.
        let e = Literal::from_vec(&[i64::MAX, 4], vec![0u8; 4]).unwrap_err();
        assert!(e.message.contains("4 elements given"), "{e}");
        assert!(Literal::from_vec(&[0, i64::MAX], Vec::<u8>::new()).is_ok());
    }

    #[test]
    fn check_shape_accepts_conforming_literals_whatever_their_layout() {
        let a = Literal::from_vec(&[2, 3], vec![1i32; 6]).unwrap();
        assert_eq!(a.check_shape(&shape("s32[2,3]")), Ok(()));
        assert_eq!(a.check_shape(&shape("s32[2,3]{0,1}")), Ok(()));
        let t = Literal::Tuple(vec![
            a.clone(),
            Literal::Tuple(vec![Literal::scalar(1.5f64)]),
        ]);
        assert_eq!(t.check_shape(&shape("(s32[2,3], (f64[]))")), Ok(()));
        assert_eq!(Literal::Token.check_shape(&Shape::Token), Ok(()));
    }

    #[test]
    fn check_shape_names_expected_given_and_the_first_difference() {
        let a = Literal::from_vec(&[2, 3], vec![1i32; 6]).unwrap();
        assert_eq!(
            mismatch(&a, "f32[2,3]"),
            "Literal: expected f32[2,3], given s32[2,3]: element type s32 instead of f32"
        );
        assert_eq!(
            mismatch(&a, "s32[6]"),
            "Literal: expected s32[6], given s32[2,3]: rank 2 instead of 1"
        );
        assert_eq!(
            mismatch(&a, "s32[3,2]"),
            "Literal: expected s32[3,2], given s32[2,3]: dimensions s32[2,3] instead of s32[3,2]"
        );
        assert!(mismatch(&a, "s32[<=2,3]").ends_with("dimensions s32[2,3] instead of s32[<=2,3]"));
        assert!(mismatch(&a, "(s32[2,3])").ends_with("an array instead of a tuple"));
        let t = Literal::Tuple(vec![a.clone(), Literal::Tuple(vec![Literal::scalar(1u8)])]);
        assert!(mismatch(&t, "s32[2,3]").ends_with("a tuple instead of an array"));
        assert!(mismatch(&t, "(s32[2,3])").ends_with("a tuple of 2 elements instead of 1"));
        assert!(mismatch(&t, "(s32[2,3], (u8[], u8[]))")
            .ends_with("a tuple of 1 element instead of 2 at tuple index {1}"));
        assert!(mismatch(&t, "(s32[2,3], (s8[]))")
            .ends_with("element type u8 instead of s8 at tuple index {1, 0}"));
        assert!(mismatch(&Literal::Token, "f32[]").ends_with("a token instead of an array"));
    }

    #[test]
    fn check_shape_rejects_literals_whose_data_disagrees_with_their_shape() {
        // Built by hand, bypassing `from_vec`'s check.
        let short = Literal::Array {
            shape: ArrayShape::new(ElementType::F32, &[2, 3]),
            data: ArrayData::F32(vec![0.0; 5]),
        };
        assert!(mismatch(&short, "f32[2,3]").ends_with("5 elements instead of 6"));
        let mistyped = Literal::Array {
            shape: ArrayShape::new(ElementType::F32, &[2]),
            data: ArrayData::S32(vec![0; 2]),
        };
        assert!(mismatch(&mistyped, "f32[2]").ends_with("s32 data in a literal of type f32"));
    }
}
