//! The ops the surface knows, their operands and attributes, and how one application becomes a
//! Builder call. Which shapes are valid is decided by the Builder, never here; this module only
//! checks the call's form (arity, attribute names and value kinds).

use std::sync::Arc;

use xla_core::builder::XlaOp;
use xla_core::{
    BinaryOp, ComparisonDirection, Computation, DotDimensionNumbers, ElementType, Shape, UnaryOp,
};

use super::{closest, hint_from, lit, Checker, Cx, Hint, Site};
use crate::parse::{Arg, Expr, ExprKind, Scalar, Sp};

/// Every op of the surface, grouped by how it is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Unary(UnaryOp),
    Binary(BinaryOp),
    /// `Eq`..`Lt` and the `*TotalOrder` variants.
    Compare {
        direction: ComparisonDirection,
        total_order: bool,
    },
    /// `Compare(a, b, direction = GT, comparison_type = TOTALORDER)`.
    CompareWith,
    Select,
    Clamp,
    ConvertElementType,
    BitcastConvertType,
    ReducePrecision,
    Broadcast,
    BroadcastInDim,
    Reshape,
    Collapse,
    Transpose,
    Iota,
    Constant,
    Reduce,
    Dot,
    DotGeneral,
    Tuple,
    GetTupleElement,
    Call,
}

const fn cmp(direction: ComparisonDirection, total_order: bool) -> OpKind {
    OpKind::Compare {
        direction,
        total_order,
    }
}

/// Op names as in the seed's operation semantics.
const TABLE: &[(&str, OpKind)] = &[
    ("Abs", OpKind::Unary(UnaryOp::Abs)),
    ("Cbrt", OpKind::Unary(UnaryOp::Cbrt)),
    ("Ceil", OpKind::Unary(UnaryOp::Ceil)),
    ("Clz", OpKind::Unary(UnaryOp::Clz)),
    ("Cos", OpKind::Unary(UnaryOp::Cos)),
    ("Cosh", OpKind::Unary(UnaryOp::Cosh)),
    ("Erf", OpKind::Unary(UnaryOp::Erf)),
    ("Exp", OpKind::Unary(UnaryOp::Exp)),
    ("Expm1", OpKind::Unary(UnaryOp::Expm1)),
    ("Floor", OpKind::Unary(UnaryOp::Floor)),
    ("Imag", OpKind::Unary(UnaryOp::Imag)),
    ("IsFinite", OpKind::Unary(UnaryOp::IsFinite)),
    ("Log", OpKind::Unary(UnaryOp::Log)),
    ("Log1p", OpKind::Unary(UnaryOp::Log1p)),
    ("Logistic", OpKind::Unary(UnaryOp::Logistic)),
    ("Neg", OpKind::Unary(UnaryOp::Neg)),
    ("Not", OpKind::Unary(UnaryOp::Not)),
    ("PopulationCount", OpKind::Unary(UnaryOp::PopulationCount)),
    ("Real", OpKind::Unary(UnaryOp::Real)),
    ("Round", OpKind::Unary(UnaryOp::RoundNearestAfz)),
    ("RoundNearestAfz", OpKind::Unary(UnaryOp::RoundNearestAfz)),
    ("RoundNearestEven", OpKind::Unary(UnaryOp::RoundNearestEven)),
    ("Rsqrt", OpKind::Unary(UnaryOp::Rsqrt)),
    ("Sign", OpKind::Unary(UnaryOp::Sign)),
    ("Sin", OpKind::Unary(UnaryOp::Sin)),
    ("Sqrt", OpKind::Unary(UnaryOp::Sqrt)),
    ("Tan", OpKind::Unary(UnaryOp::Tan)),
    ("Tanh", OpKind::Unary(UnaryOp::Tanh)),
    ("Add", OpKind::Binary(BinaryOp::Add)),
    ("Sub", OpKind::Binary(BinaryOp::Sub)),
    ("Mul", OpKind::Binary(BinaryOp::Mul)),
    ("Div", OpKind::Binary(BinaryOp::Div)),
    ("Rem", OpKind::Binary(BinaryOp::Rem)),
    ("Max", OpKind::Binary(BinaryOp::Max)),
    ("Min", OpKind::Binary(BinaryOp::Min)),
    ("Pow", OpKind::Binary(BinaryOp::Pow)),
    ("Atan2", OpKind::Binary(BinaryOp::Atan2)),
    ("And", OpKind::Binary(BinaryOp::And)),
    ("Or", OpKind::Binary(BinaryOp::Or)),
    ("Xor", OpKind::Binary(BinaryOp::Xor)),
    ("ShiftLeft", OpKind::Binary(BinaryOp::ShiftLeft)),
    (
        "ShiftRightArithmetic",
        OpKind::Binary(BinaryOp::ShiftRightArithmetic),
    ),
    (
        "ShiftRightLogical",
        OpKind::Binary(BinaryOp::ShiftRightLogical),
    ),
    ("Complex", OpKind::Binary(BinaryOp::Complex)),
    ("Eq", cmp(ComparisonDirection::Eq, false)),
    ("Ne", cmp(ComparisonDirection::Ne, false)),
    ("Ge", cmp(ComparisonDirection::Ge, false)),
    ("Gt", cmp(ComparisonDirection::Gt, false)),
    ("Le", cmp(ComparisonDirection::Le, false)),
    ("Lt", cmp(ComparisonDirection::Lt, false)),
    ("EqTotalOrder", cmp(ComparisonDirection::Eq, true)),
    ("NeTotalOrder", cmp(ComparisonDirection::Ne, true)),
    ("GeTotalOrder", cmp(ComparisonDirection::Ge, true)),
    ("GtTotalOrder", cmp(ComparisonDirection::Gt, true)),
    ("LeTotalOrder", cmp(ComparisonDirection::Le, true)),
    ("LtTotalOrder", cmp(ComparisonDirection::Lt, true)),
    ("Compare", OpKind::CompareWith),
    ("Select", OpKind::Select),
    ("Clamp", OpKind::Clamp),
    ("ConvertElementType", OpKind::ConvertElementType),
    ("BitcastConvertType", OpKind::BitcastConvertType),
    ("ReducePrecision", OpKind::ReducePrecision),
    ("Broadcast", OpKind::Broadcast),
    ("BroadcastInDim", OpKind::BroadcastInDim),
    ("Reshape", OpKind::Reshape),
    ("Collapse", OpKind::Collapse),
    ("Transpose", OpKind::Transpose),
    ("Iota", OpKind::Iota),
    ("Constant", OpKind::Constant),
    ("Reduce", OpKind::Reduce),
    ("Dot", OpKind::Dot),
    ("DotGeneral", OpKind::DotGeneral),
    ("Tuple", OpKind::Tuple),
    ("GetTupleElement", OpKind::GetTupleElement),
    ("Call", OpKind::Call),
];

/// The op called `name`.
pub fn lookup(name: &str) -> Option<OpKind> {
    TABLE.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
}

/// Every op name, for suggestions.
pub fn names() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|(n, _)| *n)
}

/// How many positional arguments an op takes.
enum Arity {
    Exactly(usize, &'static str),
    AtLeast(usize, &'static str),
    /// N operands, N inits, one computation.
    Reduce,
}

/// The form of an op's call: positional arguments, accepted and required attributes.
struct Sig {
    arity: Arity,
    attrs: &'static [&'static str],
    required: &'static [&'static str],
}

const BD: &[&str] = &["broadcast_dimensions"];
const NET: &[&str] = &["new_element_type"];
const DOT_GENERAL: &[&str] = &[
    "lhs_contracting_dimensions",
    "rhs_contracting_dimensions",
    "lhs_batch_dimensions",
    "rhs_batch_dimensions",
    "preferred_element_type",
];

fn sig(kind: OpKind) -> Sig {
    use Arity::{AtLeast, Exactly};
    let s = |arity, attrs, required| Sig {
        arity,
        attrs,
        required,
    };
    match kind {
        OpKind::Unary(_) => s(Exactly(1, "(operand)"), &[], &[]),
        OpKind::Binary(_) | OpKind::Compare { .. } => s(Exactly(2, "(lhs, rhs)"), BD, &[]),
        OpKind::CompareWith => s(
            Exactly(2, "(lhs, rhs)"),
            &["direction", "comparison_type", "broadcast_dimensions"],
            &["direction"],
        ),
        OpKind::Select => s(Exactly(3, "(pred, on_true, on_false)"), &[], &[]),
        OpKind::Clamp => s(Exactly(3, "(min, operand, max)"), &[], &[]),
        OpKind::ConvertElementType | OpKind::BitcastConvertType => {
            s(Exactly(1, "(operand)"), NET, NET)
        }
        OpKind::ReducePrecision => s(
            Exactly(1, "(operand)"),
            &["exponent_bits", "mantissa_bits"],
            &["exponent_bits", "mantissa_bits"],
        ),
        OpKind::Broadcast => s(
            Exactly(1, "(operand)"),
            &["broadcast_sizes"],
            &["broadcast_sizes"],
        ),
        OpKind::BroadcastInDim => s(
            Exactly(1, "(operand)"),
            &["out_dim_size", "broadcast_dimensions"],
            &["out_dim_size", "broadcast_dimensions"],
        ),
        OpKind::Reshape => s(
            Exactly(1, "(operand)"),
            &["dimensions", "new_sizes"],
            &["new_sizes"],
        ),
        OpKind::Collapse => s(Exactly(1, "(operand)"), &["dimensions"], &["dimensions"]),
        OpKind::Transpose => s(Exactly(1, "(operand)"), &["permutation"], &["permutation"]),
        OpKind::Iota => s(
            Exactly(1, "(shape)"),
            &["iota_dimension"],
            &["iota_dimension"],
        ),
        OpKind::Constant => s(Exactly(2, "(shape, value)"), &[], &[]),
        OpKind::Reduce => s(Arity::Reduce, &["dimensions"], &["dimensions"]),
        OpKind::Dot => s(Exactly(2, "(lhs, rhs)"), &["preferred_element_type"], &[]),
        OpKind::DotGeneral => s(
            Exactly(2, "(lhs, rhs)"),
            DOT_GENERAL,
            &["lhs_contracting_dimensions", "rhs_contracting_dimensions"],
        ),
        OpKind::Tuple => s(AtLeast(0, "(elements...)"), &[], &[]),
        OpKind::GetTupleElement => s(Exactly(1, "(tuple)"), &["index"], &["index"]),
        OpKind::Call => s(AtLeast(1, "(fn, operands...)"), &[], &[]),
    }
}

/// A call's arguments split by kind, validated against the op's form.
struct Args<'e> {
    pos: Vec<&'e Expr>,
    attrs: Vec<(String, &'e Expr, Sp)>,
}

impl<'e> Args<'e> {
    fn get(&self, name: &str) -> Option<&'e Expr> {
        self.attrs
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, e, _)| *e)
    }
}

impl Checker<'_> {
    /// Apply op `kind` written as `name(args)`.
    pub(super) fn apply_op(
        &mut self,
        cx: &mut Cx,
        kind: OpKind,
        name: &syn::Ident,
        args: &[Arg],
        sp: Sp,
        hint: Option<Hint>,
    ) -> Option<XlaOp> {
        let op = name.to_string();
        let op_sp = Sp::one(name.span());
        let a = self.split_args(&op, kind, op_sp, args, sp)?;
        let site = Site {
            op: op_sp,
            operands: a.pos.iter().map(|e| e.sp).collect(),
            attrs: a.attrs.iter().map(|(n, _, s)| (n.clone(), *s)).collect(),
            computation: None,
        };
        let r = match kind {
            OpKind::Unary(u) => {
                // Only type-preserving ops pass the expected type on to a literal operand.
                let keeps_type = !matches!(u, UnaryOp::IsFinite | UnaryOp::Real | UnaryOp::Imag);
                let x = self.eval(cx, a.pos.first()?, hint.filter(|_| keeps_type))?;
                cx.b.unary(u, x)
            }
            OpKind::Binary(b) => {
                let bd = self.opt_ints(&a, "broadcast_dimensions")?;
                let outer = if b == BinaryOp::Complex { None } else { hint };
                let v = self.eval_group(cx, &a.pos, &op, outer)?;
                cx.b.binary(b, *v.first()?, *v.get(1)?, bd.as_deref())
            }
            OpKind::Compare {
                direction,
                total_order,
            } => {
                let bd = self.opt_ints(&a, "broadcast_dimensions")?;
                let v = self.eval_group(cx, &a.pos, &op, None)?;
                cx.b.compare(
                    direction,
                    total_order,
                    *v.first()?,
                    *v.get(1)?,
                    bd.as_deref(),
                )
            }
            OpKind::CompareWith => {
                let bd = self.opt_ints(&a, "broadcast_dimensions")?;
                let direction = self.direction(a.get("direction")?)?;
                let total_order = match a.get("comparison_type") {
                    Some(e) => self.comparison_type(e)?,
                    None => false,
                };
                let v = self.eval_group(cx, &a.pos, &op, None)?;
                cx.b.compare(
                    direction,
                    total_order,
                    *v.first()?,
                    *v.get(1)?,
                    bd.as_deref(),
                )
            }
            OpKind::Select => {
                let pred_hint = Hint {
                    ty: ElementType::Pred,
                    why: "the predicate of Select is pred".into(),
                };
                let p = self.eval(cx, a.pos.first()?, Some(pred_hint));
                let v = self.eval_group(cx, a.pos.get(1..)?, &op, hint)?;
                cx.b.select(p?, *v.first()?, *v.get(1)?)
            }
            OpKind::Clamp => {
                // The operand (middle) fixes the type of literal bounds.
                let order = [*a.pos.get(1)?, *a.pos.first()?, *a.pos.get(2)?];
                let v = self.eval_group(cx, &order, &op, hint)?;
                cx.b.clamp(*v.get(1)?, *v.first()?, *v.get(2)?)
            }
            OpKind::ConvertElementType | OpKind::BitcastConvertType => {
                let ty = self.element_type(a.get("new_element_type")?)?;
                let x = self.eval(cx, a.pos.first()?, None)?;
                if kind == OpKind::ConvertElementType {
                    cx.b.convert(x, ty)
                } else {
                    cx.b.bitcast_convert(x, ty)
                }
            }
            OpKind::ReducePrecision => {
                let e = self.int(a.get("exponent_bits")?);
                let m = self.int(a.get("mantissa_bits")?);
                let x = self.eval(cx, a.pos.first()?, hint)?;
                cx.b.reduce_precision(x, e?, m?)
            }
            OpKind::Broadcast => {
                let sizes = self.ints(a.get("broadcast_sizes")?)?;
                let x = self.eval(cx, a.pos.first()?, hint)?;
                cx.b.broadcast(x, &sizes)
            }
            OpKind::BroadcastInDim => {
                let out = self.ints(a.get("out_dim_size")?);
                let bd = self.ints(a.get("broadcast_dimensions")?);
                let x = self.eval(cx, a.pos.first()?, hint)?;
                cx.b.broadcast_in_dim(x, &out?, &bd?)
            }
            OpKind::Reshape => {
                let dims = self.opt_ints(&a, "dimensions")?;
                let sizes = self.ints(a.get("new_sizes")?)?;
                let x = self.eval(cx, a.pos.first()?, hint)?;
                cx.b.reshape(x, dims.as_deref(), &sizes)
            }
            OpKind::Collapse => {
                let dims = self.ints(a.get("dimensions")?)?;
                let x = self.eval(cx, a.pos.first()?, hint)?;
                cx.b.collapse(x, &dims)
            }
            OpKind::Transpose => {
                let perm = self.ints(a.get("permutation")?)?;
                let x = self.eval(cx, a.pos.first()?, hint)?;
                cx.b.transpose(x, &perm)
            }
            OpKind::Iota => {
                let shape =
                    self.type_arg(&op, a.pos.first()?, "Iota(s32[4, 8], iota_dimension = 1)")?;
                let dim = self.int(a.get("iota_dimension")?)?;
                cx.b.iota(shape, dim)
            }
            OpKind::Constant => return self.constant(cx, &a),
            OpKind::Reduce => return self.reduce(cx, &a, site),
            OpKind::Dot => {
                let pref = self.opt_type(&a, "preferred_element_type")?;
                let v = self.eval_group(cx, &a.pos, &op, None)?;
                cx.b.dot(*v.first()?, *v.get(1)?, pref)
            }
            OpKind::DotGeneral => {
                let pref = self.opt_type(&a, "preferred_element_type")?;
                let dn = DotDimensionNumbers {
                    lhs_contracting_dimensions: self.ints(a.get("lhs_contracting_dimensions")?)?,
                    rhs_contracting_dimensions: self.ints(a.get("rhs_contracting_dimensions")?)?,
                    lhs_batch_dimensions: self
                        .opt_ints(&a, "lhs_batch_dimensions")?
                        .unwrap_or_default(),
                    rhs_batch_dimensions: self
                        .opt_ints(&a, "rhs_batch_dimensions")?
                        .unwrap_or_default(),
                };
                let v = self.eval_group(cx, &a.pos, &op, None)?;
                cx.b.dot_general(*v.first()?, *v.get(1)?, &dn, pref)
            }
            OpKind::Tuple => {
                let mut v = Vec::new();
                let mut failed = false;
                for e in &a.pos {
                    match self.eval(cx, e, None) {
                        Some(x) => v.push(x),
                        None => failed = true,
                    }
                }
                if failed {
                    return None;
                }
                cx.b.tuple(&v)
            }
            OpKind::GetTupleElement => {
                let index = self.int(a.get("index")?)?;
                let t = self.eval(cx, a.pos.first()?, None)?;
                cx.b.get_tuple_element(t, index)
            }
            OpKind::Call => {
                let f = a.pos.first()?;
                let fname = match &f.kind {
                    ExprKind::Var(n) => self.fn_item(&n.to_string()),
                    _ => None,
                };
                let Some(fitem) = fname else {
                    self.error(f.sp, "Call: the first argument is the name of a fn of this block: `Call(f, x, y)`");
                    return None;
                };
                return self.call_fn(cx, fitem, args.get(1..)?, f.sp);
            }
        };
        self.done(r, &site)
    }

    /// Split and validate arguments: attribute names known and not repeated, required ones
    /// present, positional count right.
    fn split_args<'e>(
        &mut self,
        op: &str,
        kind: OpKind,
        op_sp: Sp,
        args: &'e [Arg],
        sp: Sp,
    ) -> Option<Args<'e>> {
        let sig = sig(kind);
        let mut out = Args {
            pos: Vec::new(),
            attrs: Vec::new(),
        };
        let mut ok = true;
        for a in args {
            match a {
                Arg::Pos(e) => out.pos.push(e),
                Arg::Attr { name, value, sp } => {
                    let n = name.to_string();
                    if !sig.attrs.contains(&n.as_str()) {
                        let valid = if sig.attrs.is_empty() {
                            format!("{op} takes no attributes")
                        } else {
                            format!("{op} takes: {}", sig.attrs.join(", "))
                        };
                        let help = match closest(&n, sig.attrs.iter().copied()) {
                            Some(c) => format!("\nhelp: did you mean `{c}`?"),
                            None => String::new(),
                        };
                        self.error(
                            Sp::one(name.span()),
                            format!("{op}: unknown attribute `{n}`; {valid}{help}"),
                        );
                        ok = false;
                    } else if out.attrs.iter().any(|(m, _, _)| *m == n) {
                        self.error(*sp, format!("{op}: attribute `{n}` is given twice"));
                        ok = false;
                    } else {
                        out.attrs.push((n, value, *sp));
                    }
                }
            }
        }
        let npos = out.pos.len();
        let arity_msg = match sig.arity {
            Arity::Exactly(n, form) if npos != n => Some(format!(
                "{op} takes {} {form}, got {npos}",
                xla_core::error::count(n, "operand", "operands")
            )),
            Arity::AtLeast(n, form) if npos < n => Some(format!(
                "{op} takes at least {} {form}, got {npos}",
                xla_core::error::count(n, "operand", "operands")
            )),
            Arity::Reduce if npos < 3 || npos % 2 != 1 => Some(format!(
                "Reduce takes N operands, N init values and a computation (an odd count, at least 3), got {npos} \
                 positional arguments: `Reduce(x, 0.0, dimensions = [1], |a, b| a + b)`"
            )),
            Arity::Exactly(..) | Arity::AtLeast(..) | Arity::Reduce => None,
        };
        if let Some(m) = arity_msg {
            let help = if sig.attrs.is_empty() {
                String::new()
            } else {
                format!(
                    "\nhelp: attributes are written `name = value`; {op} takes: {}",
                    sig.attrs.join(", ")
                )
            };
            self.error(sp, format!("{m}{help}"));
            ok = false;
        }
        for r in sig.required {
            if ok && out.get(r).is_none() {
                self.error(op_sp, format!("{op}: missing attribute `{r} = ...`"));
                ok = false;
            }
        }
        ok.then_some(out)
    }

    /// An integer attribute value.
    fn int(&mut self, e: &Expr) -> Option<i64> {
        match &e.kind {
            ExprKind::Lit(l) => match l.value {
                Scalar::Int(v) => match i64::try_from(v) {
                    Ok(v) => return Some(v),
                    Err(_) => {
                        self.error(e.sp, format!("{v} does not fit in an i64 attribute"));
                        return None;
                    }
                },
                Scalar::Float(_) | Scalar::Bool(_) => {}
            },
            ExprKind::Paren(x) => return self.int(x),
            _ => {}
        }
        self.error(e.sp, "expected an integer such as `1`");
        None
    }

    /// A list-of-integers attribute value such as `[1, 0]`.
    fn ints(&mut self, e: &Expr) -> Option<Vec<i64>> {
        let ExprKind::List(xs) = &e.kind else {
            self.error(e.sp, "expected a list of integers such as `[1, 0]`");
            return None;
        };
        let mut v = Vec::new();
        for x in xs {
            v.push(self.int(x)?);
        }
        Some(v)
    }

    fn opt_ints(&mut self, a: &Args, name: &str) -> Option<Option<Vec<i64>>> {
        match a.get(name) {
            Some(e) => self.ints(e).map(Some),
            None => Some(None),
        }
    }

    /// An element type attribute value such as `f32`.
    fn element_type(&mut self, e: &Expr) -> Option<ElementType> {
        if let ExprKind::Var(n) = &e.kind {
            let s = n.to_string();
            if let Some(t) = ElementType::from_name(&s) {
                return Some(t);
            }
            if let Some(t) = crate::parse::element_type_from_any(&s) {
                self.error(e.sp, format!("`{s}` is written `{}` in XLA", t.name()));
                return None;
            }
        }
        self.error(e.sp, "expected an element type: pred, s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128");
        None
    }

    fn opt_type(&mut self, a: &Args, name: &str) -> Option<Option<ElementType>> {
        match a.get(name) {
            Some(e) => self.element_type(e).map(Some),
            None => Some(None),
        }
    }

    /// `direction = GT` (also accepted in any case).
    fn direction(&mut self, e: &Expr) -> Option<ComparisonDirection> {
        let d = match &e.kind {
            ExprKind::Var(n) => match n.to_string().to_uppercase().as_str() {
                "EQ" => Some(ComparisonDirection::Eq),
                "NE" => Some(ComparisonDirection::Ne),
                "GE" => Some(ComparisonDirection::Ge),
                "GT" => Some(ComparisonDirection::Gt),
                "LE" => Some(ComparisonDirection::Le),
                "LT" => Some(ComparisonDirection::Lt),
                _ => None,
            },
            _ => None,
        };
        if d.is_none() {
            self.error(e.sp, "Compare: direction is one of EQ, NE, GE, GT, LE, LT");
        }
        d
    }

    /// `comparison_type = TOTALORDER` (total order) or `FLOAT` / `SIGNED` / `UNSIGNED` (the
    /// default order of the element type).
    fn comparison_type(&mut self, e: &Expr) -> Option<bool> {
        if let ExprKind::Var(n) = &e.kind {
            match n.to_string().to_uppercase().as_str() {
                "TOTALORDER" => return Some(true),
                "FLOAT" | "SIGNED" | "UNSIGNED" => return Some(false),
                _ => {}
            }
        }
        self.error(
            e.sp,
            "Compare: comparison_type is one of FLOAT, TOTALORDER, SIGNED, UNSIGNED",
        );
        None
    }

    /// A shape argument (`Iota(s32[4], ...)`, `Constant(f32[2], ...)`).
    fn type_arg(&mut self, op: &str, e: &Expr, example: &str) -> Option<Shape> {
        if let ExprKind::Type(t) = &e.kind {
            return Some(t.shape.clone());
        }
        self.error(
            e.sp,
            format!("{op}: the first argument is the result type, e.g. `{example}`"),
        );
        None
    }

    /// `Constant(f32[2, 2], [[1.0, 2.0], [3.0, 4.0]])` or `Constant(f32[], 2.5)`.
    fn constant(&mut self, cx: &mut Cx, a: &Args) -> Option<XlaOp> {
        let example = "Constant(f32[2], [1.0, 2.0])";
        let shape = self.type_arg("Constant", a.pos.first()?, example)?;
        let Some(arr) = shape.as_array() else {
            self.error(
                a.pos.first()?.sp,
                "Constant: the type must be an array type; build tuples with Tuple(...)",
            );
            return None;
        };
        let value = a.pos.get(1)?;
        let mut leaves = Vec::new();
        self.flatten(value, arr.ty, &arr.dims, &mut leaves)?;
        let vals: Vec<Scalar> = leaves.iter().map(|(s, _, _)| *s).collect();
        match lit::array_literal(&vals, arr.ty, &arr.dims) {
            Ok(l) => Some(cx.b.constant(l)),
            Err((i, m)) => {
                let (sp, text) = leaves
                    .get(i)
                    .map_or((value.sp, String::new()), |(_, sp, t)| (*sp, t.clone()));
                self.error(sp, format!("Constant: element `{text}` {m}"));
                None
            }
        }
    }

    /// Row-major leaves of a nested list whose nesting must match `dims`.
    fn flatten(
        &mut self,
        e: &Expr,
        ty: ElementType,
        dims: &[i64],
        out: &mut Vec<(Scalar, Sp, String)>,
    ) -> Option<()> {
        match (dims.split_first(), &e.kind) {
            (None, ExprKind::Lit(l)) => {
                if let Some(t) = l.ty {
                    if t != ty {
                        self.error(
                            e.sp,
                            format!(
                                "Constant: element `{}` has type {t} but the constant is {ty}",
                                l.text
                            ),
                        );
                        return None;
                    }
                }
                out.push((l.value, e.sp, l.text.clone()));
                Some(())
            }
            (None, _) => {
                self.error(e.sp, "Constant: expected a number or `true`/`false` here (the shape has no more dimensions)");
                None
            }
            (Some((&n, rest)), ExprKind::List(xs)) => {
                if xs.len() as i64 != n {
                    self.error(
                        e.sp,
                        format!(
                            "Constant: this list has {} but the dimension has size {n}",
                            xla_core::error::count(xs.len(), "element", "elements")
                        ),
                    );
                    return None;
                }
                for x in xs {
                    self.flatten(x, ty, rest, out)?;
                }
                Some(())
            }
            (Some((&n, _)), _) => {
                self.error(
                    e.sp,
                    format!("Constant: expected a list `[...]` of {n} elements here"),
                );
                None
            }
        }
    }

    /// `Reduce(operands..., inits..., dimensions = [...], computation)`.
    fn reduce(&mut self, cx: &mut Cx, a: &Args, mut site: Site) -> Option<XlaOp> {
        let n = a.pos.len() / 2;
        let comp_expr = *a.pos.last()?;
        site.computation = Some(comp_expr.sp);
        site.operands.truncate(2 * n);
        let dims = self.ints(a.get("dimensions")?);
        let mut vals = Vec::new();
        let mut failed = false;
        for e in a.pos.iter().take(n) {
            let v = self.eval(cx, e, None);
            failed |= v.is_none();
            vals.push(v);
        }
        for (i, e) in a.pos.iter().skip(n).take(n).enumerate() {
            let operand = vals.get(i).copied().flatten();
            // An init whose type would come from a failed operand: that operand's error says
            // it all (no "cannot infer the type of literal" after it).
            if operand.is_none() && super::needs_hint(e) {
                failed = true;
                continue;
            }
            let h = operand.and_then(|v| hint_from(cx, v, format!("operand {i} of Reduce is")));
            let v = self.eval(cx, e, h);
            failed |= v.is_none();
            vals.push(v);
        }
        let dims = dims?;
        if failed {
            return None;
        }
        let ops: Vec<XlaOp> = vals.into_iter().flatten().collect();
        // Computation parameters: N accumulators then N values, scalars of the inits' types.
        let scalar = |op: &XlaOp| -> Shape {
            match cx.b.shape(*op).as_array() {
                Some(arr) => Shape::scalar(arr.ty),
                None => cx.b.shape(*op).clone(),
            }
        };
        let inits: Vec<Shape> = ops.iter().skip(n).map(scalar).collect();
        let params: Vec<Shape> = inits.iter().chain(inits.iter()).cloned().collect();
        let comp = self.computation_arg(cx, comp_expr, &params, "Reduce")?;
        let r = cx.b.reduce(ops.get(..n)?, ops.get(n..)?, &comp, &dims);
        self.done(r, &site)
    }

    /// A computation argument: a closure built with `params`, or the name of a fn.
    fn computation_arg(
        &mut self,
        cx: &Cx,
        e: &Expr,
        params: &[Shape],
        op: &str,
    ) -> Option<Arc<Computation>> {
        match &e.kind {
            ExprKind::Closure { params: ps, .. } => {
                if ps.len() != params.len() {
                    let list: Vec<String> = params.iter().map(Shape::to_string).collect();
                    self.error(
                        e.sp,
                        format!(
                            "{op}: the computation takes {} ({}), this closure has {}",
                            xla_core::error::count(params.len(), "parameter", "parameters"),
                            list.join(", "),
                            ps.len()
                        ),
                    );
                    return None;
                }
                self.closure(cx, e, params, &op.to_lowercase())
            }
            ExprKind::Var(name) if self.fn_item(&name.to_string()).is_some() => {
                self.built.get(&name.to_string()).cloned().flatten()
            }
            _ => {
                self.error(e.sp, format!("{op}: expected a computation: a closure `|a, b| a + b` or the name of a fn of this block"));
                None
            }
        }
    }
}
