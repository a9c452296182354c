//! Elementwise ops: unary, binary (with broadcasting), comparisons, Select, Clamp, and the
//! element-type changing ops ConvertElementType, BitcastConvertType, ReducePrecision.
//!
//! Element-type rules are XLA's (`shape_inference.cc`), tightened to StableHLO's where XLA's
//! inference is looser than what its backends run: Atan2 takes floats/complex, shifts take
//! integers, binary operands must have the same element type, and complex numbers only compare
//! for (in)equality (JAX rejects ordered comparisons of complex too).

use super::{array_like, expect_array};
use crate::broadcast::{broadcast_binary, BroadcastPlan};
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::ir::{BinaryOp, ComparisonDirection, ComparisonType, UnaryOp};
use crate::shape::{ArrayShape, Shape};

impl UnaryOp {
    /// The user-facing op name (`Abs`, `PopulationCount`...).
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Abs => "Abs",
            UnaryOp::Cbrt => "Cbrt",
            UnaryOp::Ceil => "Ceil",
            UnaryOp::Clz => "Clz",
            UnaryOp::Cos => "Cos",
            UnaryOp::Cosh => "Cosh",
            UnaryOp::Erf => "Erf",
            UnaryOp::Exp => "Exp",
            UnaryOp::Expm1 => "Expm1",
            UnaryOp::Floor => "Floor",
            UnaryOp::Imag => "Imag",
            UnaryOp::IsFinite => "IsFinite",
            UnaryOp::Log => "Log",
            UnaryOp::Log1p => "Log1p",
            UnaryOp::Logistic => "Logistic",
            UnaryOp::Neg => "Neg",
            UnaryOp::Not => "Not",
            UnaryOp::PopulationCount => "PopulationCount",
            UnaryOp::Real => "Real",
            UnaryOp::RoundNearestAfz => "RoundNearestAfz",
            UnaryOp::RoundNearestEven => "RoundNearestEven",
            UnaryOp::Rsqrt => "Rsqrt",
            UnaryOp::Sign => "Sign",
            UnaryOp::Sin => "Sin",
            UnaryOp::Sqrt => "Sqrt",
            UnaryOp::Tan => "Tan",
            UnaryOp::Tanh => "Tanh",
        }
    }
}

impl BinaryOp {
    /// The user-facing op name (`Add`, `ShiftLeft`...).
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "Add",
            BinaryOp::Sub => "Sub",
            BinaryOp::Mul => "Mul",
            BinaryOp::Div => "Div",
            BinaryOp::Rem => "Rem",
            BinaryOp::Max => "Max",
            BinaryOp::Min => "Min",
            BinaryOp::Pow => "Pow",
            BinaryOp::Atan2 => "Atan2",
            BinaryOp::And => "And",
            BinaryOp::Or => "Or",
            BinaryOp::Xor => "Xor",
            BinaryOp::ShiftLeft => "ShiftLeft",
            BinaryOp::ShiftRightArithmetic => "ShiftRightArithmetic",
            BinaryOp::ShiftRightLogical => "ShiftRightLogical",
            BinaryOp::Complex => "Complex",
        }
    }
}

/// The user-facing name of a comparison: `Eq`, ..., `LtTotalOrder`.
pub fn compare_name(direction: ComparisonDirection, total_order: bool) -> &'static str {
    match (direction, total_order) {
        (ComparisonDirection::Eq, false) => "Eq",
        (ComparisonDirection::Ne, false) => "Ne",
        (ComparisonDirection::Ge, false) => "Ge",
        (ComparisonDirection::Gt, false) => "Gt",
        (ComparisonDirection::Le, false) => "Le",
        (ComparisonDirection::Lt, false) => "Lt",
        (ComparisonDirection::Eq, true) => "EqTotalOrder",
        (ComparisonDirection::Ne, true) => "NeTotalOrder",
        (ComparisonDirection::Ge, true) => "GeTotalOrder",
        (ComparisonDirection::Gt, true) => "GtTotalOrder",
        (ComparisonDirection::Le, true) => "LeTotalOrder",
        (ComparisonDirection::Lt, true) => "LtTotalOrder",
    }
}

impl ComparisonType {
    /// The spelling in HLO and StableHLO (`FLOAT`, `TOTALORDER`, `SIGNED`, `UNSIGNED`).
    pub fn name(self) -> &'static str {
        match self {
            ComparisonType::Float => "FLOAT",
            ComparisonType::TotalOrder => "TOTALORDER",
            ComparisonType::Signed => "SIGNED",
            ComparisonType::Unsigned => "UNSIGNED",
        }
    }

    /// The type spelled `name` (exactly as [`name`](Self::name) prints it).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "FLOAT" => Some(ComparisonType::Float),
            "TOTALORDER" => Some(ComparisonType::TotalOrder),
            "SIGNED" => Some(ComparisonType::Signed),
            "UNSIGNED" => Some(ComparisonType::Unsigned),
            _ => None,
        }
    }

    /// XLA's `Comparison::DefaultComparisonType`: FLOAT for floats and complex, SIGNED for
    /// signed integers, UNSIGNED for unsigned integers and pred.
    pub fn default_for(ty: ElementType) -> Self {
        match ty {
            ElementType::F16
            | ElementType::Bf16
            | ElementType::F32
            | ElementType::F64
            | ElementType::C64
            | ElementType::C128 => ComparisonType::Float,
            ElementType::S8 | ElementType::S16 | ElementType::S32 | ElementType::S64 => {
                ComparisonType::Signed
            }
            ElementType::Pred
            | ElementType::U8
            | ElementType::U16
            | ElementType::U32
            | ElementType::U64 => ComparisonType::Unsigned,
        }
    }

    /// The type XLA's `*TotalOrder` builders (`LtTotalOrder`...) pick: TOTALORDER for floats,
    /// otherwise [`default_for`](Self::default_for) (integers are totally ordered already).
    pub fn total_order_for(ty: ElementType) -> Self {
        if ty.is_float() {
            ComparisonType::TotalOrder
        } else {
            Self::default_for(ty)
        }
    }

    /// True when XLA's HLO verifier accepts this type on operands of `ty`: FLOAT or TOTALORDER
    /// for floats, otherwise only [`default_for`](Self::default_for) (so TOTALORDER is refused
    /// on integers, pred and complex).
    pub fn admits(self, ty: ElementType) -> bool {
        self == Self::default_for(ty) || (self == ComparisonType::TotalOrder && ty.is_float())
    }

    /// The operands this type is for, as [`admits`](Self::admits) has it.
    fn operands(self) -> &'static str {
        match self {
            ComparisonType::Float => "floating-point or complex",
            ComparisonType::TotalOrder => "floating-point (f16, bf16, f32, f64)",
            ComparisonType::Signed => "signed integer",
            ComparisonType::Unsigned => "unsigned integer or pred",
        }
    }
}

/// Sets of element types an op accepts.
#[derive(Clone, Copy)]
enum Accepts {
    Float,
    FloatOrComplex,
    Integer,
    PredOrInteger,
    SignedOrFloatOrComplex,
    NotPred,
    Any,
    F32OrF64,
}

impl Accepts {
    fn admits(self, t: ElementType) -> bool {
        match self {
            Accepts::Float => t.is_float(),
            Accepts::FloatOrComplex => t.is_float_or_complex(),
            Accepts::Integer => t.is_integral(),
            Accepts::PredOrInteger => t.is_pred() || t.is_integral(),
            Accepts::SignedOrFloatOrComplex => t.is_signed_int() || t.is_float_or_complex(),
            Accepts::NotPred => !t.is_pred(),
            Accepts::Any => true,
            Accepts::F32OrF64 => matches!(t, ElementType::F32 | ElementType::F64),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Accepts::Float => "a floating-point",
            Accepts::FloatOrComplex => "a floating-point or complex",
            Accepts::Integer => "an integer",
            Accepts::PredOrInteger => "a pred or integer",
            Accepts::SignedOrFloatOrComplex => "a signed integer, floating-point or complex",
            Accepts::NotPred => "a numeric (not pred)",
            Accepts::Any => "any",
            Accepts::F32OrF64 => "an f32 or f64",
        }
    }
}

fn check_type(op: &str, accepts: Accepts, shape: &ArrayShape, blame: Blame) -> Result<()> {
    if accepts.admits(shape.ty) {
        Ok(())
    } else {
        Err(Error::new(
            op,
            format!("expects {} element type, got {shape}", accepts.describe()),
        )
        .blame(blame))
    }
}

/// Result shape of a one-operand elementwise op: the operand's dims; element type the operand's,
/// except `IsFinite` -> pred and `Abs`/`Real`/`Imag` of cN -> the component float.
pub fn unary(op: UnaryOp, operand: &Shape) -> Result<ArrayShape> {
    let name = op.name();
    let a = expect_array(name, "the operand", operand, Blame::Operand(0))?;
    let accepts = match op {
        UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::RoundNearestAfz
        | UnaryOp::RoundNearestEven
        | UnaryOp::Erf => Accepts::Float,
        // XLA rejects complex operands for both ("Expected element type in shape to be
        // floating for cbrt operation; got C64").
        UnaryOp::IsFinite | UnaryOp::Cbrt => Accepts::Float,
        UnaryOp::Cos
        | UnaryOp::Cosh
        | UnaryOp::Exp
        | UnaryOp::Expm1
        | UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Logistic
        | UnaryOp::Rsqrt
        | UnaryOp::Sin
        | UnaryOp::Sqrt
        | UnaryOp::Tan
        | UnaryOp::Tanh
        | UnaryOp::Real
        | UnaryOp::Imag => Accepts::FloatOrComplex,
        UnaryOp::Abs | UnaryOp::Sign => Accepts::SignedOrFloatOrComplex,
        UnaryOp::Clz | UnaryOp::PopulationCount => Accepts::Integer,
        UnaryOp::Not => Accepts::PredOrInteger,
        UnaryOp::Neg => Accepts::NotPred,
    };
    check_type(name, accepts, a, Blame::Operand(0))?;
    // The result type's rule is the evaluator's too: one function for both.
    let ty = crate::scalar::unary_result_type(op, a.ty);
    Ok(array_like(ty, a))
}

/// The shape of a two-operand elementwise op and how its operands are broadcast to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryPlan {
    /// The result shape (its element type is the op's result type, e.g. pred for comparisons).
    pub shape: ArrayShape,
    /// The operands' element type (equal for both).
    pub operand_type: ElementType,
    /// The common dimensions and the `BroadcastInDim` each operand needs to reach them.
    pub broadcast: BroadcastPlan,
}

/// Shapes of two operands of the elementwise op `op_name`: both arrays of one element type,
/// broadcast by broadcasting.es.md; the plan's result type is the operand type.
pub fn binary(
    op_name: &str,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: Option<&[i64]>,
) -> Result<BinaryPlan> {
    let l = expect_array(op_name, "lhs", lhs, Blame::Operand(0))?;
    let r = expect_array(op_name, "rhs", rhs, Blame::Operand(1))?;
    if l.ty != r.ty {
        return Err(Error::new(
            op_name,
            format!("operands must have the same element type ({l} vs {r})"),
        )
        .blame(Blame::Operand(1))
        .help(format!(
            "convert one operand with ConvertElementType(_, new_element_type = {})",
            l.ty
        )));
    }
    let broadcast = broadcast_binary(op_name, l, r, broadcast_dimensions)?;
    let shape = ArrayShape {
        ty: l.ty,
        dims: broadcast.dims.clone(),
        dynamic: broadcast.dynamic.clone(),
        layout: None,
    };
    Ok(BinaryPlan {
        shape,
        operand_type: l.ty,
        broadcast,
    })
}

/// Two-operand arithmetic/logical op: [`binary`] plus the op's element-type rule; `Complex`
/// makes f32 (f64) into c64 (c128).
pub fn binary_op(
    op: BinaryOp,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: Option<&[i64]>,
) -> Result<BinaryPlan> {
    let name = op.name();
    let accepts = match op {
        BinaryOp::Add | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min => Accepts::Any,
        BinaryOp::Sub | BinaryOp::Div | BinaryOp::Rem | BinaryOp::Pow => Accepts::NotPred,
        BinaryOp::Atan2 => Accepts::FloatOrComplex,
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => Accepts::PredOrInteger,
        BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical => {
            Accepts::Integer
        }
        BinaryOp::Complex => Accepts::F32OrF64,
    };
    if let Shape::Array(l) = lhs {
        check_type(name, accepts, l, Blame::Operand(0))?;
    }
    let mut plan = binary(name, lhs, rhs, broadcast_dimensions)?;
    if op == BinaryOp::Complex {
        // F32OrF64 was checked above, so complex_of is defined.
        plan.shape.ty = plan.operand_type.complex_of().unwrap_or(plan.operand_type);
    }
    Ok(plan)
}

/// Comparison into pred (`Eq`...`Lt`, `EqTotalOrder`...`LtTotalOrder`): operands as
/// [`binary`]; complex operands only for `Eq`/`Ne`. The `*TotalOrder` forms take any element
/// type, as XLA's builders do (their comparison type is
/// [`ComparisonType::total_order_for`] the operands).
pub fn compare(
    direction: ComparisonDirection,
    total_order: bool,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: Option<&[i64]>,
) -> Result<BinaryPlan> {
    let name = compare_name(direction, total_order);
    compare_named(name, direction, lhs, rhs, broadcast_dimensions)
}

/// `Compare(lhs, rhs, direction = .., comparison_type = ..)`: as [`compare`], and the
/// comparison type must fit the operands' element type as XLA's HLO verifier requires (FLOAT or
/// TOTALORDER for floats, FLOAT for complex, SIGNED for signed integers, UNSIGNED for unsigned
/// integers and pred); `None` is the operands' default type. Errors name `Compare`.
pub fn compare_with_type(
    direction: ComparisonDirection,
    comparison_type: Option<ComparisonType>,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: Option<&[i64]>,
) -> Result<BinaryPlan> {
    let name = "Compare";
    let plan = compare_named(name, direction, lhs, rhs, broadcast_dimensions)?;
    let ty = plan.operand_type;
    match comparison_type {
        Some(ct) if !ct.admits(ty) => {
            let fits = if ty.is_float() {
                format!(
                    "{} or {}",
                    ComparisonType::Float.name(),
                    ComparisonType::TotalOrder.name()
                )
            } else {
                ComparisonType::default_for(ty).name().to_string()
            };
            Err(Error::new(
                name,
                format!(
                    "comparison_type {} needs {} operands, got {lhs} vs {rhs}",
                    ct.name(),
                    ct.operands()
                ),
            )
            .blame(Blame::Attribute("comparison_type"))
            .help(format!(
                "{ty} operands compare with comparison_type = {fits} (or leave it out)"
            )))
        }
        Some(_) | None => Ok(plan),
    }
}

/// [`compare`] with its errors naming `name`.
fn compare_named(
    name: &str,
    direction: ComparisonDirection,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: Option<&[i64]>,
) -> Result<BinaryPlan> {
    let mut plan = binary(name, lhs, rhs, broadcast_dimensions)?;
    let ordered = match direction {
        ComparisonDirection::Eq | ComparisonDirection::Ne => false,
        ComparisonDirection::Ge
        | ComparisonDirection::Gt
        | ComparisonDirection::Le
        | ComparisonDirection::Lt => true,
    };
    if ordered && plan.operand_type.is_complex() {
        return Err(Error::new(
            name,
            format!("complex numbers have no order ({lhs} vs {rhs})"),
        )
        .blame(Blame::Op)
        .help("compare Real(x) or Abs(x) instead"));
    }
    plan.shape.ty = ElementType::Pred;
    Ok(plan)
}

/// `Select(pred, on_true, on_false)`: on_true and on_false of one shape (arrays or tuples), pred
/// a pred array of their dims or a pred scalar (the only choice for tuples). Result: on_true's
/// shape without layout.
pub fn select(pred: &Shape, on_true: &Shape, on_false: &Shape) -> Result<Shape> {
    let op = "Select";
    let p = expect_array(op, "pred", pred, Blame::Operand(0))?;
    if p.ty != ElementType::Pred {
        return Err(
            Error::new(op, format!("pred must have element type pred, got {p}"))
                .blame(Blame::Operand(0)),
        );
    }
    if !super::compatible(on_true, on_false) {
        return Err(Error::new(
            op,
            format!("on_true and on_false must have the same shape ({on_true} vs {on_false})"),
        )
        .blame(Blame::Operand(2)));
    }
    match on_true {
        Shape::Array(t) => {
            if !p.is_scalar() && !p.same_dims(t) {
                return Err(Error::new(
                    op,
                    format!("pred must be a scalar or have the dimensions of on_true ({p} vs {t})"),
                )
                .blame(Blame::Operand(0)));
            }
            Ok(Shape::Array(t.with_type(t.ty)))
        }
        Shape::Tuple(_) | Shape::Token => {
            if !p.is_scalar() {
                return Err(Error::new(
                    op,
                    format!("selecting between tuples needs a scalar pred, got {p}"),
                )
                .blame(Blame::Operand(0)));
            }
            Ok(on_true.clone())
        }
    }
}

/// `Clamp(min, operand, max)`: one element type; min and max scalars or of the operand's dims.
pub fn clamp(min: &Shape, operand: &Shape, max: &Shape) -> Result<ArrayShape> {
    let op = "Clamp";
    let lo = expect_array(op, "min", min, Blame::Operand(0))?;
    let x = expect_array(op, "operand", operand, Blame::Operand(1))?;
    let hi = expect_array(op, "max", max, Blame::Operand(2))?;
    for (i, (what, b)) in [("min", lo), ("max", hi)].into_iter().enumerate() {
        let blame = Blame::Operand(i * 2);
        if b.ty != x.ty {
            return Err(Error::new(
                op,
                format!("{what} must have the operand's element type ({b} vs {x})"),
            )
            .blame(blame));
        }
        if !b.is_scalar() && !b.same_dims(x) {
            return Err(Error::new(
                op,
                format!("{what} must be a scalar or have the operand's dimensions ({b} vs {x})"),
            )
            .blame(blame));
        }
    }
    Ok(x.with_type(x.ty))
}

/// `ConvertElementType(operand, new_element_type)`: same dims, any type to any type except
/// complex to real (as XLA).
pub fn convert(operand: &Shape, new_element_type: ElementType) -> Result<ArrayShape> {
    let op = "ConvertElementType";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    if a.ty.is_complex() && !new_element_type.is_complex() {
        return Err(Error::new(
            op,
            format!("cannot convert complex {a} to the real type {new_element_type}"),
        )
        .blame(Blame::Attribute("new_element_type"))
        .help("take Real, Imag or Abs first"));
    }
    Ok(a.with_type(new_element_type))
}

/// `BitcastConvertType(operand, new_element_type)`: same bit width keeps the dims; a narrower
/// target adds a minor dimension of size B/B'; a wider one needs and removes a last dimension of
/// size B'/B. Complex and real types do not mix; pred is excluded (not every byte is a bool).
pub fn bitcast_convert(operand: &Shape, new_element_type: ElementType) -> Result<ArrayShape> {
    let op = "BitcastConvertType";
    let attr = Blame::Attribute("new_element_type");
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    let (from, to) = (a.ty, new_element_type);
    if from.is_pred() || to.is_pred() {
        return Err(Error::new(
            op,
            format!("cannot bitcast between pred and other types ({a} to {to})"),
        )
        .blame(attr));
    }
    if from.is_complex() != to.is_complex() {
        return Err(Error::new(
            op,
            format!("cannot bitcast between complex and real types ({a} to {to})"),
        )
        .blame(attr));
    }
    let (b, b2) = (from.bit_width() as i64, to.bit_width() as i64);
    let mut out = a.with_type(to);
    if b > b2 {
        out.dims.push(b / b2);
        out.dynamic.push(false);
    } else if b2 > b {
        let ratio = b2 / b;
        if a.dims.last() != Some(&ratio) || a.dynamic.last() == Some(&true) {
            return Err(Error::new(
                op,
                format!("bitcasting {from} to the wider {to} needs a last dimension of size {ratio}, got {a}"),
            )
            .blame(Blame::Operand(0)));
        }
        out.dims.pop();
        out.dynamic.pop();
    }
    Ok(out)
}

/// `ReducePrecision(operand, exponent_bits, mantissa_bits)`: a floating-point operand,
/// `exponent_bits >= 1`, `mantissa_bits >= 0`; the shape is unchanged.
pub fn reduce_precision(
    operand: &Shape,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<ArrayShape> {
    let op = "ReducePrecision";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    check_type(op, Accepts::Float, a, Blame::Operand(0))?;
    if !(1..=i64::from(u32::MAX)).contains(&exponent_bits) {
        return Err(Error::new(
            op,
            format!("exponent_bits must be at least 1, got {exponent_bits}"),
        )
        .blame(Blame::Attribute("exponent_bits")));
    }
    if !(0..=i64::from(u32::MAX)).contains(&mantissa_bits) {
        return Err(Error::new(
            op,
            format!("mantissa_bits must be non-negative, got {mantissa_bits}"),
        )
        .blame(Blame::Attribute("mantissa_bits")));
    }
    Ok(a.with_type(a.ty))
}

#[cfg(test)]
mod tests;
