//! How one application of a registered op is checked: its form and attributes against the op's
//! entry in `xla_core::registry`, its operands evaluated with the literal typing the registry
//! names, its computations built with the parameters the registry gives, then
//! `xla_core::registry::build`. Which shapes are valid is decided by the Builder, never here; no
//! op is named in this module except the surface's special forms (Constant, Iota, Call).

use std::sync::Arc;

use xla_core::builder::XlaOp;
use xla_core::registry::{self, Applied, Form, OpKind, OpSpec, Typing};
use xla_core::{Composite, Computation, ElementType, Shape};

use super::{Checker, Cx, Hint, Site};
use crate::parse::{Arg, Expr, ExprKind, Sp};

mod attrs;
mod constant;
mod form;
mod operands;

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
