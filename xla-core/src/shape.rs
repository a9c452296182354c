//! Shapes: arrays (element type, dimensions, optional dynamic bounds and layout), tuples, tokens.

use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::layout::Layout;

/// The largest rank the generated code supports: its tensor types go up to eight dimensions
/// (`xla_kernels::tensor::D8`), and the macro refuses higher ranks at their span.
pub const MAX_RANK: usize = 8;

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
        ArrayShape {
            ty,
            dims: dims.to_vec(),
            dynamic: vec![false; dims.len()],
            layout: None,
        }
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
        ArrayShape {
            ty,
            dims: self.dims.clone(),
            dynamic: self.dynamic.clone(),
            layout: None,
        }
    }

    /// The layout in force: the explicit one, or the default major-to-minor one.
    pub fn layout_or_default(&self) -> Layout {
        self.layout
            .clone()
            .unwrap_or_else(|| Layout::row_major(self.rank()))
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

// ---------------------------------------------------------------------------------------------
// Validation: a shape built by hand or parsed from text must describe a real array before any
// rule is applied to it, so every later computation (element counts, strides) is well defined.

impl ArrayShape {
    /// `Ok` when every dimension is >= 0, `dynamic` has one flag per dimension and the layout (if
    /// any) is valid for this rank (see [`Layout::validate`]).
    pub fn validate(&self) -> Result<()> {
        if let Some((i, d)) = self.dims.iter().enumerate().find(|(_, &d)| d < 0) {
            return Err(Error::new(
                "Shape",
                format!("dimension {i} has negative size {d} in {self}"),
            ));
        }
        // As XLA's ShapeUtil::ValidateShape: the array's size in bytes must fit in an i64 (so
        // every element count, offset and allocation later is well defined).
        let bytes = self
            .dims
            .iter()
            .try_fold(self.ty.byte_width() as i64, |acc, &d| acc.checked_mul(d));
        if bytes.is_none() {
            return Err(Error::new(
                "Shape",
                format!(
                    "{self} has more than 2^63 - 1 bytes ({} bytes per element)",
                    self.ty.byte_width()
                ),
            ));
        }
        if self.dynamic.len() != self.dims.len() {
            return Err(Error::new(
                "Shape",
                format!(
                    "{} dynamic flags for {} dimensions in {self}",
                    self.dynamic.len(),
                    self.dims.len()
                ),
            ));
        }
        if let Some(l) = &self.layout {
            l.validate(&self.dims)
                .map_err(|e| Error::new("Shape", format!("{} in {self}", e.message)))?;
        }
        Ok(())
    }
}

impl Shape {
    /// Validate every array inside the shape (see [`ArrayShape::validate`]).
    pub fn validate(&self) -> Result<()> {
        match self {
            Shape::Array(a) => a.validate(),
            Shape::Tuple(elems) => elems.iter().try_for_each(Shape::validate),
            Shape::Token => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// HLO-text parsing, the inverse of `Display`: `f32[2,3]{0,1}`, `f32[<=5,3]`, `(f32[2], s32[])`,
// `token[]`. A recursive-descent parser over bytes; every failure names the byte offset.

/// Parse a shape in HLO text (`f32[2,3]{0,1}`, `(f32[2], s32[])`, `token[]`, `f32[<=5,3]`); the
/// result is validated.
pub fn parse_shape(text: &str) -> Result<Shape> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        text,
    };
    let shape = p.shape()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.err("unexpected text after the shape"));
    }
    shape.validate()?;
    Ok(shape)
}

impl std::str::FromStr for Shape {
    type Err = Error;
    fn from_str(s: &str) -> Result<Shape> {
        parse_shape(s)
    }
}

impl std::str::FromStr for ArrayShape {
    type Err = Error;
    fn from_str(s: &str) -> Result<ArrayShape> {
        match parse_shape(s)? {
            Shape::Array(a) => Ok(a),
            other => Err(Error::new(
                "Shape",
                format!("expected an array shape, got {other}"),
            )),
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> Error {
        Error::new(
            "Shape",
            format!(
                "cannot parse `{}`: {what} at offset {}",
                self.text, self.pos
            ),
        )
    }

    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(&format!("expected `{}`", c as char)))
        }
    }

    fn expect_sep(&mut self, close: u8) -> Result<()> {
        if self.eat(b',') {
            Ok(())
        } else {
            Err(self.err(&format!("expected `,` or `{}`", close as char)))
        }
    }

    fn int(&mut self) -> Result<i64> {
        self.skip_ws();
        let start = self.pos;
        if self.s.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        match self.text[start..self.pos].parse::<i64>() {
            Ok(v) => Ok(v),
            Err(_) => {
                self.pos = start;
                Err(self.err("expected an integer"))
            }
        }
    }

    fn shape(&mut self) -> Result<Shape> {
        self.skip_ws();
        if self.eat(b'(') {
            let mut elems = Vec::new();
            if !self.eat(b')') {
                loop {
                    elems.push(self.shape()?);
                    if self.eat(b')') {
                        break;
                    }
                    self.expect_sep(b')')?;
                }
            }
            return Ok(Shape::Tuple(elems));
        }
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphanumeric() {
            self.pos += 1;
        }
        let name = &self.text[start..self.pos];
        if name == "token" {
            self.expect(b'[')?;
            self.expect(b']')?;
            return Ok(Shape::Token);
        }
        let Some(ty) = ElementType::from_name(name) else {
            self.pos = start;
            return Err(self.err(&format!("unknown element type `{name}`")));
        };
        self.expect(b'[')?;
        let (mut dims, mut dynamic) = (Vec::new(), Vec::new());
        if !self.eat(b']') {
            loop {
                let dy = self.eat(b'<');
                if dy {
                    self.expect(b'=')?;
                }
                dims.push(self.int()?);
                dynamic.push(dy);
                if self.eat(b']') {
                    break;
                }
                self.expect_sep(b']')?;
            }
        }
        let mut layout = None;
        if self.eat(b'{') {
            let mut m2m = Vec::new();
            if !self.eat(b'}') {
                loop {
                    m2m.push(self.int()?);
                    if self.eat(b'}') {
                        break;
                    }
                    self.expect_sep(b'}')?;
                }
            }
            layout = Some(Layout::new(&m2m));
        }
        Ok(Shape::Array(ArrayShape {
            ty,
            dims,
            dynamic,
            layout,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) {
        let s = parse_shape(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(s.to_string(), text);
    }

    #[test]
    fn parses_what_display_prints() {
        for t in [
            "f32[2,3]",
            "s32[]",
            "f32[2,3]{0,1}",
            "pred[1]{0}",
            "f32[<=5,3]",
            "(f32[2], s32[])",
            "()",
            "token[]",
        ] {
            round_trip(t);
        }
        round_trip("((f32[2], (c64[])), token[], bf16[1,2,3]{2,0,1})");
        for t in crate::element::ElementType::ALL {
            round_trip(&format!("{t}[4]"));
        }
    }

    #[test]
    fn parse_details() {
        let s: Shape = " f32 [ <=5 , 3 ] { 0 , 1 } ".parse().unwrap();
        let a = s.as_array().unwrap();
        assert_eq!(
            (a.ty, a.dims.clone(), a.dynamic.clone()),
            (ElementType::F32, vec![5, 3], vec![true, false])
        );
        assert_eq!(a.layout, Some(Layout::new(&[0, 1])));
        let a: ArrayShape = "u8[7]".parse().unwrap();
        assert_eq!(a, ArrayShape::new(ElementType::U8, &[7]));
        assert!("(f32[2])".parse::<ArrayShape>().is_err());
    }

    #[test]
    fn bad_text_is_an_error() {
        for (t, why) in [
            ("f8[2]", "unknown element type `f8`"),
            ("f32[2,3", "expected `,` or `]`"),
            ("f32[2,x]", "expected an integer"),
            ("f32[2] junk", "unexpected text"),
            ("f32[-2]", "negative size -2"),
            ("f32[4611686018427387904]", "more than 2^63 - 1 bytes"),
            ("c128[2,3,4611686018427387904]", "more than 2^63 - 1 bytes"),
            ("f32[2,3]{0,0}", "not a permutation"),
            ("f32[2,3]{0}", "not a permutation"),
            ("(f32[2]", "expected `,` or `)`"),
            ("token[1]", "expected `]`"),
            ("", "unknown element type"),
        ] {
            let e = parse_shape(t).unwrap_err();
            assert!(e.message.contains(why), "{t}: {e}");
        }
    }

    #[test]
    fn byte_sizes_up_to_i64_max_are_valid() {
        // 2^62 bytes fits; the same count of f32 (2^64 bytes) does not.
        assert!(parse_shape("u8[4611686018427387904]").is_ok());
        assert!(parse_shape("pred[2,2305843009213693952]").is_ok());
        assert!(parse_shape("s16[2,2305843009213693952]").is_err());
    }

    #[test]
    fn validate_hand_built_shapes() {
        let mut a = ArrayShape::new(ElementType::F32, &[2, 3]);
        assert!(a.validate().is_ok());
        a.layout = Some(Layout {
            minor_to_major: vec![0, 1],
            padded_dimensions: Some(vec![1, 5]),
        });
        assert!(a
            .validate()
            .unwrap_err()
            .message
            .contains("padded dimension 0 is 1"));
        a.layout = Some(Layout {
            minor_to_major: vec![0, 1],
            padded_dimensions: Some(vec![3]),
        });
        assert!(a.validate().is_err());
        a.layout = None;
        a.dynamic = vec![false];
        assert!(a.validate().is_err());
        assert!(Shape::Tuple(vec![Shape::array(ElementType::F32, &[-1])])
            .validate()
            .is_err());
    }
}
