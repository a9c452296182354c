//! How one application of a registered op is checked: its form and attributes against the op's
//! entry in `xla_core::registry`, its operands evaluated with the literal typing the registry
//! names, its computations built with the parameters the registry gives, then
//! `xla_core::registry::build`. Which shapes are valid is decided by the Builder, never here; no
//! op is named in this module except the surface's special forms (Constant, Iota, Call).

use std::sync::Arc;

use xla_core::builder::XlaOp;
use xla_core::ir::{ComparisonType, TransposeA};
use xla_core::registry::{self, Applied, AttrKind, AttrValue, Attrs, Form, OpKind, OpSpec, Typing};
use xla_core::{ComparisonDirection, Composite, Computation, ElementType, FftType, PadDim, Shape};

use super::{closest, hint_from, lit, Checker, Cx, Hint, Site};
use crate::parse::{Arg, Expr, ExprKind, Scalar, Sp};

/// The op called `name`.
pub fn lookup(name: &str) -> Option<&'static OpSpec> {
    registry::lookup(name)
}

/// Every op name, for suggestions.
pub fn names() -> impl Iterator<Item = &'static str> {
    registry::specs().map(|s| s.name)
}

/// True when a literal operand of this call takes the call's expected type: the op's result
/// has the element type of its (first) operands.
pub fn forwards_type(spec: &OpSpec) -> bool {
    match spec.typing {
        Typing::First | Typing::Same { with_result: true } => true,
        Typing::Unary => {
            if let registry::OpKind::Unary(u) = spec.kind {
                xla_core::scalar::unary_result_type(u, ElementType::F32) == ElementType::F32
            } else {
                false
            }
        }
        Typing::Free
        | Typing::Same { with_result: false }
        | Typing::Select
        | Typing::Clamp
        | Typing::Reduce => false,
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

/// The positional arguments of one application sorted into values and computations, in the
/// order `registry::build` takes them.
struct Parts<'e> {
    values: Vec<&'e Expr>,
    computations: Vec<&'e Expr>,
    /// `Conditional(index, [computations...], [operands...])`.
    indexed: bool,
    /// `Scan`: how many values are inputs (the rest are inits).
    num_inputs: Option<usize>,
}

impl Checker<'_> {
    /// Apply the op `spec` written as `name(args)`.
    pub(super) fn apply_op(
        &mut self,
        cx: &mut Cx,
        spec: &'static OpSpec,
        name: &syn::Ident,
        args: &[Arg],
        sp: Sp,
        hint: Option<Hint>,
    ) -> Option<XlaOp> {
        let op = spec.name;
        let op_sp = Sp::one(name.span());
        let a = self.split_args(spec, op_sp, args, sp)?;
        if spec.form == Form::Call {
            let f = a.pos.first()?;
            let fitem = match &f.kind {
                ExprKind::Var(n) => self.fn_item(&n.to_string()),
                _ => None,
            };
            let Some(fitem) = fitem else {
                self.error(
                    f.sp,
                    format!(
                        "{op}: the first argument is the name of a fn of this block: `{op}(f, x, y{})`",
                        if spec.kind == OpKind::CompositeCall { ", name = \"my_lib.f\"" } else { "" }
                    ),
                );
                return None;
            };
            // CompositeCall: the call, with its composite's name, attributes and version.
            let composite = if spec.kind == OpKind::CompositeCall {
                let attrs = self.attr_values(spec, &a)?;
                let spans = a.attrs.iter().map(|(n, _, s)| (n.clone(), *s)).collect();
                Some((
                    Composite {
                        name: attrs.str("name").unwrap_or_default(),
                        attributes: attrs.str("attributes").unwrap_or_default(),
                        version: attrs.int("version").unwrap_or(0),
                    },
                    spans,
                ))
            } else {
                None
            };
            return self.call_fn(cx, fitem, args.get(1..)?, f.sp, composite);
        }
        if spec.form == Form::Constant {
            return self.constant(cx, &a);
        }
        let attrs = self.attr_values(spec, &a);
        let parts = self.parts(spec, &a, sp)?;
        let shape = match spec.form {
            Form::Type => {
                Some(self.type_arg(op, a.pos.first()?, "Iota(s32[4, 8], iota_dimension = 1)")?)
            }
            Form::OperandsAndType(k) => Some(self.last_type_arg(spec, a.pos.get(k)?)?),
            Form::Operands(_)
            | Form::Variadic(_)
            | Form::Reduce
            | Form::Sort
            | Form::Map
            | Form::Scatter
            | Form::While
            | Form::Conditional
            | Form::SelectAndScatter
            | Form::Scan
            | Form::Constant
            | Form::Call => None,
        };
        // RngUniform(0.0, 1.0, f32[4]): the type argument types literal parameters.
        let hint = match (spec.form, shape.as_ref().and_then(Shape::as_array)) {
            (Form::OperandsAndType(_), Some(arr)) => Some(Hint {
                ty: arr.ty,
                why: format!("the result type of {op} is {arr}"),
            }),
            _ => hint,
        };
        let values = self.eval_operands(cx, spec, &parts.values, hint)?;
        let attrs = attrs?;
        let shapes: Vec<Shape> = values.iter().map(|v| cx.b.shape(*v).clone()).collect();
        let shape_refs: Vec<&Shape> = shapes.iter().collect();
        let params = match (spec.kind, parts.num_inputs) {
            // The slices to_apply takes depend on scan_dimension, an attribute.
            (xla_core::registry::OpKind::Scan, Some(m)) if m <= shape_refs.len() => {
                let d = attrs.int("scan_dimension").unwrap_or(0);
                let (xs, cs) = shape_refs.split_at(m);
                vec![xla_core::infer::scan::scan_params(xs, cs, d)]
            }
            _ => registry::computation_params(spec, &shape_refs),
        };
        let mut computations = Vec::new();
        let mut failed = false;
        let n_comps = parts.computations.len();
        for (i, (e, p)) in parts.computations.iter().zip(&params).enumerate() {
            let role = computation_role(spec, i, n_comps, parts.indexed);
            match self.computation_arg(cx, e, p, op, &role) {
                Some(c) => computations.push(c),
                None => failed = true,
            }
        }
        if failed || computations.len() != parts.computations.len() {
            return None;
        }
        // The type argument of OperandsAndType forms is blamed as the operand after the values.
        let type_sp = match spec.form {
            Form::OperandsAndType(k) => a.pos.get(k).map(|e| e.sp),
            _ => None,
        };
        let site = Site {
            op: op_sp,
            operands: parts.values.iter().map(|e| e.sp).chain(type_sp).collect(),
            attrs: a.attrs.iter().map(|(n, _, s)| (n.clone(), *s)).collect(),
            computations: parts.computations.iter().map(|e| e.sp).collect(),
        };
        let applied = Applied {
            operands: &values,
            computations: &computations,
            attrs,
            shape,
            literal: None,
            indexed: parts.indexed,
            num_inputs: parts.num_inputs,
        };
        let r = registry::build(&mut cx.b, spec, &applied);
        self.done(r, &site)
    }

    /// Sort positional arguments into values and computations by the op's form.
    fn parts<'e>(&mut self, spec: &OpSpec, a: &Args<'e>, sp: Sp) -> Option<Parts<'e>> {
        let pos = &a.pos;
        let plain = |values: Vec<&'e Expr>, computations: Vec<&'e Expr>| Parts {
            values,
            computations,
            indexed: false,
            num_inputs: None,
        };
        Some(match spec.form {
            Form::Operands(_) | Form::Variadic(_) => plain(pos.clone(), Vec::new()),
            Form::OperandsAndType(k) => plain(pos.get(..k)?.to_vec(), Vec::new()),
            Form::Type | Form::Constant | Form::Call => plain(Vec::new(), Vec::new()),
            Form::Reduce | Form::Sort | Form::Map | Form::Scatter => {
                let (last, init) = pos.split_last()?;
                plain(init.to_vec(), vec![*last])
            }
            Form::While => plain(vec![*pos.get(2)?], vec![*pos.first()?, *pos.get(1)?]),
            Form::SelectAndScatter => plain(
                vec![*pos.first()?, *pos.get(2)?, *pos.get(3)?],
                vec![*pos.get(1)?, *pos.get(4)?],
            ),
            Form::Scan => {
                // `[a, b]` is a list of values; anything else is one value.
                let items = |e: &'e Expr| -> Vec<&'e Expr> {
                    match &e.kind {
                        ExprKind::List(xs) => xs.iter().collect(),
                        _ => vec![e],
                    }
                };
                let inputs = items(pos.first()?);
                let m = inputs.len();
                Parts {
                    values: inputs.into_iter().chain(items(pos.get(1)?)).collect(),
                    computations: vec![*pos.get(2)?],
                    indexed: false,
                    num_inputs: Some(m),
                }
            }
            Form::Conditional if pos.len() == 5 => {
                plain(vec![pos[0], pos[1], pos[3]], vec![pos[2], pos[4]])
            }
            Form::Conditional => {
                let (ExprKind::List(comps), ExprKind::List(ops)) = (&pos[1].kind, &pos[2].kind)
                else {
                    self.error(sp, format!(
                        "{}: the indexed form is `Conditional(branch_index, [computations...], [operands...])`: \
                         two lists", spec.name));
                    return None;
                };
                if comps.is_empty() {
                    self.error(
                        pos[1].sp,
                        format!("{}: the indexed form takes at least one branch", spec.name),
                    );
                    return None;
                }
                if comps.len() != ops.len() {
                    self.error(
                        pos[2].sp,
                        format!(
                            "{}: {} but {}: one operand per branch",
                            spec.name,
                            xla_core::error::count(
                                comps.len(),
                                "branch computation",
                                "branch computations"
                            ),
                            xla_core::error::count(ops.len(), "operand", "operands"),
                        ),
                    );
                    return None;
                }
                Parts {
                    values: std::iter::once(pos[0]).chain(ops.iter()).collect(),
                    computations: comps.iter().collect(),
                    indexed: true,
                    num_inputs: None,
                }
            }
        })
    }

    /// Evaluate the value operands, typing literals by the op's rule.
    fn eval_operands(
        &mut self,
        cx: &mut Cx,
        spec: &OpSpec,
        exprs: &[&Expr],
        hint: Option<Hint>,
    ) -> Option<Vec<XlaOp>> {
        let op = spec.name;
        let forwarded = hint.clone().filter(|_| forwards_type(spec));
        match spec.typing {
            Typing::Free => self.eval_each(cx, exprs, |_| None),
            Typing::First | Typing::Unary => {
                let f = forwarded.clone();
                self.eval_each(cx, exprs, move |i| if i == 0 { f.clone() } else { None })
            }
            Typing::Same { with_result } => {
                let outer = if with_result { forwarded } else { None };
                self.eval_group(cx, exprs, op, outer)
            }
            Typing::Select => {
                let pred_hint = Hint {
                    ty: ElementType::Pred,
                    why: format!("the predicate of {op} is pred"),
                };
                let p = self.eval(cx, exprs.first()?, Some(pred_hint));
                let v = self.eval_group(cx, exprs.get(1..)?, op, hint)?;
                Some(vec![p?, *v.first()?, *v.get(1)?])
            }
            Typing::Clamp => {
                // The operand (middle) fixes the type of literal bounds.
                let order = [*exprs.get(1)?, *exprs.first()?, *exprs.get(2)?];
                let v = self.eval_group(cx, &order, op, hint)?;
                Some(vec![*v.get(1)?, *v.first()?, *v.get(2)?])
            }
            Typing::Reduce => self.eval_reduce_operands(cx, exprs),
        }
    }

    /// Each operand on its own, with the hint `hint_of(i)`; every failure reported.
    fn eval_each(
        &mut self,
        cx: &mut Cx,
        exprs: &[&Expr],
        hint_of: impl Fn(usize) -> Option<Hint>,
    ) -> Option<Vec<XlaOp>> {
        let mut v = Vec::with_capacity(exprs.len());
        let mut failed = false;
        for (i, e) in exprs.iter().enumerate() {
            match self.eval(cx, e, hint_of(i)) {
                Some(x) => v.push(x),
                None => failed = true,
            }
        }
        (!failed).then_some(v)
    }

    /// `Reduce`'s operands then init values: init `i` takes operand `i`'s element type.
    fn eval_reduce_operands(&mut self, cx: &mut Cx, exprs: &[&Expr]) -> Option<Vec<XlaOp>> {
        let n = exprs.len() / 2;
        let mut vals = Vec::new();
        let mut failed = false;
        for e in exprs.iter().take(n) {
            let v = self.eval(cx, e, None);
            failed |= v.is_none();
            vals.push(v);
        }
        for (i, e) in exprs.iter().skip(n).take(n).enumerate() {
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
        if failed {
            return None;
        }
        Some(vals.into_iter().flatten().collect())
    }

    /// Split and validate arguments: attribute names known and not repeated, required ones
    /// present, positional count right for the op's form.
    fn split_args<'e>(
        &mut self,
        spec: &OpSpec,
        op_sp: Sp,
        args: &'e [Arg],
        sp: Sp,
    ) -> Option<Args<'e>> {
        let op = spec.name;
        let attr_names: Vec<&str> = spec.attrs.iter().map(|a| a.name).collect();
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
                    if !attr_names.contains(&n.as_str()) {
                        let valid = if attr_names.is_empty() {
                            format!("{op} takes no attributes")
                        } else {
                            format!("{op} takes: {}", attr_names.join(", "))
                        };
                        let help = match closest(&n, attr_names.iter().copied()) {
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
        if let Some(m) = arity_error(spec, out.pos.len()) {
            let help = if attr_names.is_empty() {
                String::new()
            } else {
                format!(
                    "\nhelp: attributes are written `name = value`; {op} takes: {}",
                    attr_names.join(", ")
                )
            };
            self.error(sp, format!("{m}{help}"));
            ok = false;
        }
        for r in spec.attrs.iter().filter(|a| a.required) {
            if ok && out.get(r.name).is_none() {
                self.error(op_sp, format!("{op}: missing attribute `{} = ...`", r.name));
                ok = false;
            }
        }
        ok.then_some(out)
    }

    /// Every given attribute parsed by its kind; `None` after reporting any that is malformed.
    fn attr_values(&mut self, spec: &OpSpec, a: &Args) -> Option<Attrs> {
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

    /// The result type written last (`RngUniform(a, b, f32[4])`).
    fn last_type_arg(&mut self, spec: &OpSpec, e: &Expr) -> Option<Shape> {
        if let ExprKind::Type(t) = &e.kind {
            return Some(t.shape.clone());
        }
        self.error(
            e.sp,
            format!(
                "{}: the last argument is the result type, e.g. `{}`",
                spec.name,
                form_example(spec)
            ),
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

    /// A computation argument: a closure built with `params`, or the name of a fn.
    fn computation_arg(
        &mut self,
        cx: &Cx,
        e: &Expr,
        params: &[Shape],
        op: &str,
        role: &str,
    ) -> Option<Arc<Computation>> {
        match &e.kind {
            ExprKind::Closure { params: ps, .. } => {
                if ps.len() != params.len() {
                    let list: Vec<String> = params.iter().map(Shape::to_string).collect();
                    self.error(
                        e.sp,
                        format!(
                            "{op}: the {role} takes {}: {}; this closure has {}",
                            xla_core::error::count(params.len(), "parameter", "parameters"),
                            list.join(", "),
                            ps.len()
                        ),
                    );
                    return None;
                }
                let what = format!("{}_{}", op.to_lowercase(), role.replace(' ', "_"));
                self.closure(cx, e, params, &what)
            }
            ExprKind::Var(name) if self.fn_item(&name.to_string()).is_some() => {
                self.built.get(&name.to_string()).cloned().flatten()
            }
            _ => {
                self.error(e.sp, format!("{op}: expected a computation (the {role}): a closure `|a, b| a + b` or the name of a fn of this block"));
                None
            }
        }
    }
}

/// What computation `i` of `n` is for, in messages and in the names of closures.
fn computation_role(spec: &OpSpec, i: usize, n: usize, indexed: bool) -> String {
    match spec.form {
        Form::Reduce => "reducer".into(),
        Form::Sort => "comparator".into(),
        Form::Scatter => "update_computation".into(),
        Form::While if i == 0 => "condition".into(),
        Form::While => "body".into(),
        Form::SelectAndScatter if i == 0 => "select".into(),
        Form::SelectAndScatter => "scatter".into(),
        Form::Scan => "to_apply".into(),
        Form::Conditional if !indexed && i == 0 => "true branch".into(),
        Form::Conditional if !indexed => "false branch".into(),
        Form::Operands(_)
        | Form::Variadic(_)
        | Form::Map
        | Form::Conditional
        | Form::Type
        | Form::OperandsAndType(_)
        | Form::Constant
        | Form::Call => {
            if n > 1 {
                format!("branch {i}")
            } else {
                "computation".into()
            }
        }
    }
}

/// The message for `n` positional arguments where the form wants otherwise.
fn arity_error(spec: &OpSpec, n: usize) -> Option<String> {
    let op = spec.name;
    let form = spec.signature;
    let count = |k: usize| xla_core::error::count(k, "operand", "operands");
    match spec.form {
        Form::Operands(k) if n != k => Some(format!("{op} takes {} {form}, got {n}", count(k))),
        Form::Variadic(k) if n < k => {
            Some(format!("{op} takes at least {} {form}, got {n}", count(k)))
        }
        Form::Type if n != 1 => Some(format!("{op} takes 1 argument {form}, got {n}")),
        Form::OperandsAndType(k) if n != k + 1 => Some(format!(
            "{op} takes {} arguments {form}, got {n}: `{}`",
            k + 1,
            form_example(spec)
        )),
        Form::Constant if n != 2 => Some(format!("{op} takes 2 arguments {form}, got {n}")),
        Form::Call if n < 1 => Some(format!("{op} takes {form}, got {n} arguments")),
        Form::Reduce if n < 3 || n % 2 != 1 => Some(format!(
            "Reduce takes N operands, N init values and a computation (an odd count, at least 3), got {n} \
             positional arguments: `Reduce(x, 0.0, dimensions = [1], |a, b| a + b)`"
        )),
        Form::Sort if n < 2 => Some(format!(
            "{op} takes {form}: at least one operand and a comparator, got {}: \
             `Sort(x, |a, b| Lt(a, b), dimension = 0)`",
            xla_core::error::count(n, "positional argument", "positional arguments")
        )),
        Form::Map if n < 2 => Some(format!(
            "{op} takes {form}: at least one operand and a computation, got {}: \
             `Map(x, y, |a, b| Max(a, b))`",
            xla_core::error::count(n, "positional argument", "positional arguments")
        )),
        Form::Scatter if n < 4 || !n.is_multiple_of(2) => Some(format!(
            "{op} takes N operands, the scatter_indices, N update arrays and the \
             update_computation (an even count, at least 4), got {}: \
             `Scatter(x, indices, updates, |a, b| a + b, update_window_dims = [1], \
             inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1)`",
            xla_core::error::count(n, "positional argument", "positional arguments")
        )),
        Form::While if n != 3 => Some(format!(
            "{op} takes 3 arguments {form}, got {n}: `While(|s| Lt(s.0, 10i32), |s| Tuple(Add(s.0, 1i32), s.1), init)`"
        )),
        Form::SelectAndScatter if n != 5 => Some(format!(
            "{op} takes 5 arguments {form}, got {n}: `SelectAndScatter(x, |a, b| Ge(a, b), \
             grad, 0.0f32, |a, b| a + b, window_dimensions = [2, 2], window_strides = [2, 2])`"
        )),
        Form::Scan if n != 3 => Some(format!(
            "{op} takes 3 arguments {form}, got {n}: `Scan([x], [0.0f32], |x, c| \
             Tuple(Add(c, x), Add(c, x)), scan_dimension = 0)`"
        )),
        Form::Conditional if n != 3 && n != 5 => Some(format!(
            "{op} takes 5 arguments (pred, true_operand, true_computation, false_operand, \
             false_computation) or 3 (branch_index, [computations...], [operands...]), got {n}"
        )),
        Form::Operands(_)
        | Form::Variadic(_)
        | Form::Type
        | Form::OperandsAndType(_)
        | Form::Constant
        | Form::Call
        | Form::Reduce
        | Form::Sort
        | Form::Map
        | Form::Scatter
        | Form::While
        | Form::SelectAndScatter
        | Form::Scan
        | Form::Conditional => None,
    }
}

/// An application of an op whose result type is written last.
fn form_example(spec: &OpSpec) -> &'static str {
    match spec.name {
        "RngBitGenerator" => "RngBitGenerator(state, u32[4, 4], algorithm = THREE_FRY)",
        "RngNormal" => "RngNormal(0.0, 1.0, f32[4, 4])",
        _ => "RngUniform(0.0, 1.0, f32[4, 4])",
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
