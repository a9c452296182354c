//! The positional form of an application: arguments split into positional and attribute
//! ones and validated against the op's form (attribute names, repeats, required ones, the
//! arity and its message), positionals sorted into values and computations, type arguments.

use xla_core::registry::{Form, OpSpec};
use xla_core::Shape;

use super::super::closest;
use super::{Args, Checker, Parts};
use crate::parse::{Arg, Expr, ExprKind, Sp};

impl Checker<'_> {
    /// Split and validate arguments: attribute names known and not repeated, required ones
    /// present, positional count right for the op's form.
    pub(super) fn split_args<'e>(
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

    /// Sort positional arguments into values and computations by the op's form.
    pub(super) fn parts<'e>(&mut self, spec: &OpSpec, a: &Args<'e>, sp: Sp) -> Option<Parts<'e>> {
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

    /// A shape argument (`Iota(s32[4], ...)`, `Constant(f32[2], ...)`).
    pub(super) fn type_arg(&mut self, op: &str, e: &Expr, example: &str) -> Option<Shape> {
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
    pub(super) fn last_type_arg(&mut self, spec: &OpSpec, e: &Expr) -> Option<Shape> {
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
