//! The syntax tree of a module: functions, operations in MLIR's generic shape (name, results,
//! operands, attributes, regions, types), whichever form the text used.

use super::dense::Dense;
use super::Pos;
use crate::ir::ConvDimensionNumbers;
use crate::shape::{ArrayShape, Shape};

/// A type as the text spells it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Type {
    /// `tensor<2x3xf32>`.
    Tensor(ArrayShape),
    /// `tuple<...>`.
    Tuple(Vec<Type>),
    /// `!stablehlo.token`.
    Token,
}

impl Type {
    /// The xla-core shape of this type.
    pub fn shape(&self) -> Shape {
        match self {
            Type::Tensor(a) => Shape::Array(a.clone()),
            Type::Tuple(ts) => Shape::Tuple(ts.iter().map(Type::shape).collect()),
            Type::Token => Shape::Token,
        }
    }

    /// The array shape of a tensor type.
    pub fn tensor(&self) -> Option<&ArrayShape> {
        match self {
            Type::Tensor(a) => Some(a),
            Type::Tuple(_) | Type::Token => None,
        }
    }
}

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Attr {
    /// `1`, `-3 : i64`.
    Int(i128),
    /// `0.1`, `1.0 : f64`.
    Float(f64),
    /// `true`, `false`.
    Bool(bool),
    /// `"text"`.
    Str(String),
    /// `@symbol`.
    Symbol(String),
    /// `dense<...>` with the type written after it, if any.
    Dense(Dense, Option<Type>),
    /// `array<i64: 1, 2>` (booleans of `array<i1: ...>` as 0 and 1).
    Array(Vec<i64>),
    /// `[a, b]`.
    List(Vec<Attr>),
    /// `{name = value, ...}`.
    Dict(Vec<(String, Attr)>),
    /// `#stablehlo<comparison_direction GT>` (kind, value) or a bare keyword such as `GT`
    /// (empty kind).
    Enum(String, String),
    /// `#stablehlo.dot<name = value, ...>` and the like: the attribute's name and fields.
    Struct(String, Vec<(String, Attr)>),
    /// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` or `dim_numbers = ...`.
    Conv(ConvDimensionNumbers),
    /// A type used as an attribute.
    Type(Type),
    /// A name without a value (`{foo}`).
    Unit,
    /// Anything else, kept as text for messages.
    Opaque(String),
}

/// One operation, in MLIR's generic shape.
#[derive(Clone, Debug)]
pub(super) struct Operation {
    /// Full name: `stablehlo.add`, `func.return`, `check.expect_eq_const`.
    pub name: String,
    /// The SSA names of its results in order (`%0`; `%r#0`, `%r#1` for `%r:2`).
    pub results: Vec<String>,
    /// Its operands' SSA names (`%x`, `%r#1`).
    pub operands: Vec<String>,
    /// Its attributes and properties, by name.
    pub attrs: Vec<(String, Attr)>,
    /// Its regions.
    pub regions: Vec<Region>,
    /// The result types the text declares.
    pub result_types: Vec<Type>,
    /// The callee of `func.call`.
    pub callee: Option<String>,
    /// Where the operation starts (its first result, or its name).
    pub pos: Pos,
}

impl Operation {
    /// An operation called `name` at `pos` with nothing else yet.
    pub fn new(name: impl Into<String>, pos: Pos) -> Self {
        Operation {
            name: name.into(),
            results: Vec::new(),
            operands: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            result_types: Vec::new(),
            callee: None,
            pos,
        }
    }

    /// The attribute called `name`.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }
}

/// A region of one block: its arguments and operations (the last one its terminator).
#[derive(Clone, Debug, Default)]
pub(super) struct Region {
    /// `^bb0(%a: tensor<f32>, ...)`.
    pub args: Vec<(String, Type)>,
    /// The operations in order.
    pub ops: Vec<Operation>,
}

/// One `func.func`.
#[derive(Clone, Debug)]
pub(super) struct Func {
    /// Its symbol.
    pub name: String,
    /// Not `private`.
    pub public: bool,
    /// Its body; the region's arguments are the function's.
    pub body: Region,
    /// Its declared result types.
    pub results: Vec<Type>,
    /// Where `func.func` is.
    pub pos: Pos,
}
