//! Attribute values parsed by their kind (`AttrKind`): integers, lists, booleans, floats,
//! element types, comparison words, padding and window pairs, conv dimension letters, enum
//! names.

use xla_core::ir::{ComparisonType, TransposeA};
use xla_core::registry::{self, AttrKind, AttrValue, Attrs, OpSpec};
use xla_core::{ComparisonDirection, ElementType, FftType, PadDim};

use super::{Args, Checker};
use crate::parse::{Expr, ExprKind, Scalar};

impl Checker<'_> {
    /// Every given attribute parsed by its kind; `None` after reporting any that is malformed.
    pub(super) fn attr_values(&mut self, spec: &OpSpec, a: &Args) -> Option<Attrs> {
        let mut attrs = Attrs::default();
        let mut ok = true;
        for s in spec.attrs {
            let Some(e) = a.get(s.name) else { continue };
            match self.attr_value(spec.name, s.name, s.kind, e) {
                Some(v) => attrs.set(s.name, v),
                None => ok = false,
            }
        }
        ok.then_some(attrs)
    }

    /// One attribute value of kind `kind`.
    fn attr_value(&mut self, op: &str, name: &str, kind: AttrKind, e: &Expr) -> Option<AttrValue> {
        Some(match kind {
            AttrKind::Int => AttrValue::Int(self.int(e)?),
            AttrKind::Ints => AttrValue::Ints(self.ints(e)?),
            AttrKind::Groups => {
                let rows = self.list(op, name, kind, e)?;
                let mut groups = Vec::with_capacity(rows.len());
                for r in rows {
                    if !matches!(r.kind, ExprKind::List(_)) {
                        self.error(r.sp, format!("{op}: `{name}` is {}", kind.example()));
                        return None;
                    }
                    groups.push(self.ints(r)?);
                }
                AttrValue::Groups(groups)
            }
            AttrKind::Bool => AttrValue::Bool(self.boolean(op, name, e)?),
            AttrKind::Bools => {
                let xs = self.list(op, name, kind, e)?;
                let mut v = Vec::with_capacity(xs.len());
                for x in xs {
                    v.push(self.boolean(op, name, x)?);
                }
                AttrValue::Bools(v)
            }
            AttrKind::Type => AttrValue::Type(self.element_type(e)?),
            AttrKind::Shape => match &e.kind {
                ExprKind::Type(t) => AttrValue::Shape(t.shape.clone()),
                _ => {
                    self.error(e.sp, format!("{op}: `{name}` is {}", kind.example()));
                    return None;
                }
            },
            AttrKind::Str => match &e.kind {
                ExprKind::Str(s) => {
                    if name == "call_target_name" {
                        self.targets.push((s.clone(), e.sp.start));
                    }
                    AttrValue::Str(s.clone())
                }
                _ => {
                    self.error(e.sp, format!("{op}: `{name}` is {}", kind.example()));
                    return None;
                }
            },
            AttrKind::RngAlgorithm => {
                let a = ident_upper(e).and_then(|n| xla_core::RandomAlgorithm::from_name(&n));
                let Some(a) = a else {
                    self.error(e.sp, format!("{op}: `{name}` is {}", kind.example()));
                    return None;
                };
                AttrValue::RngAlgorithm(a)
            }
            AttrKind::Direction => AttrValue::Direction(self.direction(e)?),
            AttrKind::ComparisonType => AttrValue::ComparisonType(self.comparison_type(e)?),
            AttrKind::PaddingConfig => {
                let rows = self.int_rows(op, name, kind, e, 3)?;
                AttrValue::PaddingConfig(
                    rows.iter()
                        .map(|r| PadDim {
                            low: r[0],
                            high: r[1],
                            interior: r[2],
                        })
                        .collect(),
                )
            }
            AttrKind::Pairs => {
                if matches!(ident_upper(e).as_deref(), Some("SAME" | "VALID")) {
                    self.error(
                        e.sp,
                        format!(
                            "{op}: `{name}` is {}; SAME and VALID are written with Conv or \
                             ConvWithGeneralDimensions",
                            kind.example()
                        ),
                    );
                    return None;
                }
                let rows = self.int_rows(op, name, kind, e, 2)?;
                AttrValue::Pairs(rows.iter().map(|r| (r[0], r[1])).collect())
            }
            AttrKind::PaddingKind => match ident_upper(e).as_deref() {
                Some("SAME") => AttrValue::Same(true),
                Some("VALID") => AttrValue::Same(false),
                _ => {
                    let more = if matches!(e.kind, ExprKind::List(_)) {
                        format!("; explicit (low, high) pairs are written with {op}'s general-padding forms (ConvWithGeneralPadding, ConvGeneral, ConvGeneralDilated)")
                    } else {
                        String::new()
                    };
                    self.error(e.sp, format!("{op}: `{name}` is {}{more}", kind.example()));
                    return None;
                }
            },
            AttrKind::WindowPadding => match ident_upper(e).as_deref() {
                Some("SAME") => AttrValue::Same(true),
                Some("VALID") => AttrValue::Same(false),
                _ => {
                    let rows = self.int_rows(op, name, kind, e, 2)?;
                    AttrValue::Pairs(rows.iter().map(|r| (r[0], r[1])).collect())
                }
            },
            AttrKind::ConvDims => {
                let specs: Option<Vec<String>> = match &e.kind {
                    ExprKind::List(xs) if xs.len() == 3 => xs.iter().map(ident_text).collect(),
                    _ => None,
                };
                let Some(specs) = specs else {
                    self.error(e.sp, format!("{op}: `{name}` is {}", kind.example()));
                    return None;
                };
                match registry::conv_dims_from_specs(&specs[0], &specs[1], &specs[2]) {
                    Ok(d) => AttrValue::ConvDims(d),
                    Err(m) => {
                        self.error(e.sp, format!("{op}: `{name}`: {m}"));
                        return None;
                    }
                }
            }
            AttrKind::Precision => {
                let words: Vec<&Expr> = match &e.kind {
                    ExprKind::List(xs) => xs.iter().collect(),
                    _ => vec![e],
                };
                for w in words {
                    if !matches!(
                        ident_upper(w).as_deref(),
                        Some("DEFAULT" | "HIGH" | "HIGHEST")
                    ) {
                        self.error(w.sp, format!("{op}: `{name}` is {}", kind.example()));
                        return None;
                    }
                }
                AttrValue::Precision
            }
            AttrKind::Float => AttrValue::Float(self.float(op, name, e)?),
            AttrKind::Transpose => {
                match ident_upper(e).as_deref().and_then(TransposeA::from_name) {
                    Some(t) => AttrValue::Transpose(t),
                    None => {
                        self.error(e.sp, format!("{op}: `{name}` is {}", kind.example()));
                        return None;
                    }
                }
            }
            AttrKind::FftType => match ident_text(e).as_deref().and_then(FftType::from_name) {
                Some(t) => AttrValue::FftType(t),
                None => {
                    self.error(
                        e.sp,
                        format!("{op}: `{name}` is {}", AttrKind::FftType.example()),
                    );
                    return None;
                }
            },
        })
    }

    /// A number: a float or integer literal, negated or parenthesised.
    fn float(&mut self, op: &str, name: &str, e: &Expr) -> Option<f64> {
        match &e.kind {
            ExprKind::Lit(l) => match l.value {
                Scalar::Float(f) => return Some(f),
                Scalar::Int(i) => return Some(i as f64),
                Scalar::Bool(_) => {}
            },
            ExprKind::Paren(x) => return self.float(op, name, x),
            _ => {}
        }
        self.error(
            e.sp,
            format!("{op}: `{name}` is {}", AttrKind::Float.example()),
        );
        None
    }

    /// `true` or `false`.
    fn boolean(&mut self, op: &str, name: &str, e: &Expr) -> Option<bool> {
        match &e.kind {
            ExprKind::Lit(l) => match l.value {
                Scalar::Bool(b) => return Some(b),
                Scalar::Int(_) | Scalar::Float(_) => {}
            },
            ExprKind::Paren(x) => return self.boolean(op, name, x),
            _ => {}
        }
        self.error(e.sp, format!("{op}: `{name}` is `true` or `false`"));
        None
    }

    /// The elements of a list value.
    fn list<'e>(
        &mut self,
        op: &str,
        name: &str,
        kind: AttrKind,
        e: &'e Expr,
    ) -> Option<&'e [Expr]> {
        match &e.kind {
            ExprKind::List(xs) => Some(xs),
            _ => {
                self.error(e.sp, format!("{op}: `{name}` is {}", kind.example()));
                None
            }
        }
    }

    /// A list of integer lists of length `width` each.
    fn int_rows(
        &mut self,
        op: &str,
        name: &str,
        kind: AttrKind,
        e: &Expr,
        width: usize,
    ) -> Option<Vec<Vec<i64>>> {
        let rows = self.list(op, name, kind, e)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let ok_shape = matches!(&r.kind, ExprKind::List(xs) if xs.len() == width);
            if !ok_shape {
                self.error(r.sp, format!("{op}: `{name}` is {}", kind.example()));
                return None;
            }
            out.push(self.ints(r)?);
        }
        Some(out)
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

    /// `comparison_type = FLOAT | TOTALORDER | SIGNED | UNSIGNED` (also accepted in any case);
    /// whether it fits the operands is the builder's rule.
    fn comparison_type(&mut self, e: &Expr) -> Option<ComparisonType> {
        if let ExprKind::Var(n) = &e.kind {
            if let Some(t) = ComparisonType::from_name(&n.to_string().to_uppercase()) {
                return Some(t);
            }
        }
        self.error(
            e.sp,
            "Compare: comparison_type is one of FLOAT, TOTALORDER, SIGNED, UNSIGNED",
        );
        None
    }
}

/// The text of an identifier value (`NHWC`).
fn ident_text(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Var(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An identifier value in upper case (`same` -> `SAME`).
fn ident_upper(e: &Expr) -> Option<String> {
    ident_text(e).map(|s| s.to_uppercase())
}
