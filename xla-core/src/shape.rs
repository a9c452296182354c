//! Shapes: arrays (element type, dimensions, optional dynamic bounds and layout), tuples, tokens.

use crate::element::ElementType;
use crate::layout::Layout;

/// The shape of an array: `f32[2,3]`, `s32[]`, `f32[<=8,3]{0,1}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayShape {
    /// Element type.
    pub ty: ElementType,
    /// Dimension sizes; for a dynamic dimension this is its upper bound.
    pub dims: Vec<i64>,
    /// `dynamic[i]` is true when dimension `i` is dynamic (`<=N` in HLO text); same length as
    /// `dims`.
    pub dynamic: Vec<bool>,
    /// Physical layout; `None` means the default (major-to-minor, i.e. row-major).
    pub layout: Option<Layout>,
}

/// Any XLA shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A dense array.
    Array(ArrayShape),
    /// A tuple of shapes, possibly nested or empty.
    Tuple(Vec<Shape>),
    /// A token, for ordering side effects.
    Token,
}

impl ArrayShape {
    /// Static array shape with the default layout.
    pub fn new(ty: ElementType, dims: &[i64]) -> Self {
        ArrayShape { ty, dims: dims.to_vec(), dynamic: vec![false; dims.len()], layout: None }
    }

    /// Scalar shape `ty[]`.
    pub fn scalar(ty: ElementType) -> Self {
        Self::new(ty, &[])
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Number of elements: the product of the dimension sizes (bounds for dynamic dims).
    pub fn element_count(&self) -> i64 {
        self.dims.iter().product()
    }

    /// True for rank 0.
    pub fn is_scalar(&self) -> bool {
        self.dims.is_empty()
    }

    /// True when any dimension is dynamic.
    pub fn is_dynamic(&self) -> bool {
        self.dynamic.iter().any(|&d| d)
    }

    /// Same element type and dimensions, default layout.
    pub fn with_type(&self, ty: ElementType) -> Self {
        ArrayShape { ty, dims: self.dims.clone(), dynamic: self.dynamic.clone(), layout: None }
    }

    /// The layout in force: the explicit one, or the default major-to-minor one.
    pub fn layout_or_default(&self) -> Layout {
        self.layout.clone().unwrap_or_else(|| Layout::row_major(self.rank()))
    }

    /// True when dims and dynamic flags agree (layouts are ignored), as XLA's
    /// `ShapeUtil::Compatible`.
    pub fn same_dims(&self, other: &ArrayShape) -> bool {
        self.dims == other.dims && self.dynamic == other.dynamic
    }
}

impl Shape {
    /// Static array shape with the default layout.
    pub fn array(ty: ElementType, dims: &[i64]) -> Self {
        Shape::Array(ArrayShape::new(ty, dims))
    }

    /// Scalar shape `ty[]`.
    pub fn scalar(ty: ElementType) -> Self {
        Shape::Array(ArrayShape::scalar(ty))
    }

    /// The array shape, or `None` for tuples and tokens.
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            Shape::Tuple(_) | Shape::Token => None,
        }
    }

    /// The tuple elements, or `None` for arrays and tokens.
    pub fn as_tuple(&self) -> Option<&[Shape]> {
        match self {
            Shape::Tuple(t) => Some(t),
            Shape::Array(_) | Shape::Token => None,
        }
    }

    /// True for an array shape.
    pub fn is_array(&self) -> bool {
        matches!(self, Shape::Array(_))
    }
}

impl std::fmt::Display for ArrayShape {
    /// HLO text: `f32[2,<=3]{0,1}`; the layout is printed only when one was given.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[", self.ty)?;
        for (i, (d, dy)) in self.dims.iter().zip(&self.dynamic).enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if *dy {
                f.write_str("<=")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")?;
        if let Some(l) = &self.layout {
            f.write_str("{")?;
            for (i, m) in l.minor_to_major.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{m}")?;
            }
            f.write_str("}")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Shape {
    /// HLO text: arrays as `f32[2,3]`, tuples as `(f32[2], s32[])`, tokens as `token[]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shape::Array(a) => write!(f, "{a}"),
            Shape::Tuple(elems) => {
                f.write_str("(")?;
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str(")")
            }
            Shape::Token => f.write_str("token[]"),
        }
    }
}
