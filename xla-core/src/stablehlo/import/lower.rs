//! Lowering the syntax tree through the [`Builder`]: one computation per function (callees
//! first), one registry op per StableHLO op. The op is found by its StableHLO name in the
//! registry (the one table of names; where several surface forms share a name, the most
//! general, the one with the most attributes, is taken), its attributes are translated
//! (`lower/attrs.rs`) and [`registry::build`] applies it, so the builder's inference checks
//! every rule; each declared result type is then compared with the inferred one.

mod attrs;
mod chlo;
mod chlo_complex;
mod composite;
mod control;
mod custom;
mod dims;
mod lapack;
mod parallel;
mod ragged;

use std::collections::HashMap;
use std::sync::Arc;

use super::ast::{Attr, Func, Operation, Region, Type};
use super::dense::to_literal;
use super::{Check, CheckKind, Function, ImportError, Module, Pos, Result};
use crate::builder::{Builder, XlaOp};
use crate::error::Error;
use crate::ir::Computation;
use crate::registry::{self, Applied, Form, OpSpec};
use crate::shape::Shape;

/// The registry op a StableHLO (or CHLO) op name denotes.
pub(super) fn spec_for(name: &str) -> Option<&'static OpSpec> {
    let (dialect, short) = name.split_once('.')?;
    if dialect != "stablehlo" && dialect != "chlo" {
        return None;
    }
    // CHLO's legalization rewrites `chlo.tan` into `stablehlo.tan` unchanged.
    let name = if name == "chlo.tan" {
        "stablehlo.tan"
    } else {
        name
    };
    let best = registry::specs()
        .filter(|s| s.stablehlo == name)
        .max_by_key(|s| s.attrs.len());
    // CHLO spells some names otherwise (`top_k`): the registry's aliases know them.
    best.or_else(|| {
        (dialect == "chlo")
            .then(|| registry::alias(short).and_then(registry::lookup))
            .flatten()
    })
}

/// Ops the lowering handles itself rather than through the registry.
const STRUCTURAL: &[&str] = &["stablehlo.while", "stablehlo.if", "stablehlo.case"];

/// Whether lowering knows the op called `name`.
pub(super) fn is_known(name: &str) -> bool {
    STRUCTURAL.contains(&name)
        || name == "chlo.square"
        || chlo::OPS.contains(&name)
        || spec_for(name).is_some()
}

/// The values of one computation being built.
pub(super) struct Scope {
    pub b: Builder,
    vals: HashMap<String, XlaOp>,
    /// Checks of a function body (`None` inside regions, where they are not allowed).
    checks: Option<Vec<(Check, Vec<XlaOp>)>>,
    /// The `interpreter.run_parallel`s met so far in a function body, each with the stage
    /// before it (`lower/parallel.rs`).
    stages: Vec<super::Parallel>,
}

impl Scope {
    pub fn new(name: &str) -> Self {
        Scope {
            b: Builder::new(name),
            vals: HashMap::new(),
            checks: None,
            stages: Vec::new(),
        }
    }

    /// The value called `name`.
    pub fn get(&self, name: &str, pos: Pos) -> Result<XlaOp> {
        self.vals
            .get(name)
            .copied()
            .ok_or_else(|| ImportError::Invalid {
                message: format!("use of undefined value {name}"),
                pos,
            })
    }

    pub fn bind(&mut self, name: &str, v: XlaOp) {
        self.vals.insert(name.to_string(), v);
    }

    /// Parameter `index` of type `ty`, bound to `name`.
    pub fn param(&mut self, index: usize, name: &str, ty: &Type, pos: Pos) -> Result<XlaOp> {
        let p = self
            .b
            .parameter(index, ty.shape(), name.trim_start_matches('%'))
            .map_err(|e| shape_err("parameter", e, pos))?;
        self.bind(name, p);
        Ok(p)
    }
}

/// A builder error at `pos`, for op `op`.
pub(super) fn shape_err(op: &str, error: Error, pos: Pos) -> ImportError {
    ImportError::Shape {
        op: op.to_string(),
        error: Box::new(error),
        pos,
    }
}

/// Two shapes equal in element types and dimensions (layouts and dynamic flags ignored).
fn same_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.ty == y.ty && x.dims == y.dims,
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(p, q))
        }
        (Shape::Token, Shape::Token) => true,
        _ => false,
    }
}

/// `Err` unless the values' shapes are the declared types (when the text declares them).
pub(super) fn check_types(
    s: &Scope,
    op: &str,
    vals: &[XlaOp],
    declared: &[Type],
    pos: Pos,
) -> Result<()> {
    if declared.is_empty() {
        return Ok(());
    }
    let inferred: Vec<Shape> = vals.iter().map(|&v| s.b.shape(v).clone()).collect();
    let declared: Vec<Shape> = declared.iter().map(Type::shape).collect();
    if inferred.len() == declared.len()
        && inferred
            .iter()
            .zip(&declared)
            .all(|(a, b)| same_shape(a, b))
    {
        return Ok(());
    }
    let list = |v: &[Shape]| {
        v.iter()
            .map(Shape::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(ImportError::TypeMismatch {
        op: op.to_string(),
        declared: list(&declared),
        inferred: list(&inferred),
        pos,
    })
}

/// Binds `op`'s results to `r` (its elements when the op has several results), checking the
/// declared types.
pub(super) fn bind_results(s: &mut Scope, op: &Operation, r: XlaOp, tupled: bool) -> Result<()> {
    let vals = if tupled || op.results.len() > 1 {
        let n = match s.b.shape(r) {
            Shape::Tuple(t) => t.len(),
            Shape::Array(_) | Shape::Token => 1,
        };
        if n < op.results.len() {
            return Err(ImportError::Invalid {
                message: format!("{} gives {n} results, {} named", op.name, op.results.len()),
                pos: op.pos,
            });
        }
        (0..op.results.len())
            .map(|i| s.b.get_tuple_element(r, i as i64))
            .collect::<crate::error::Result<Vec<_>>>()
            .map_err(|e| shape_err(&op.name, e, op.pos))?
    } else {
        vec![r]
    };
    bind_all(s, op, &vals)
}

/// Binds `op`'s result names to `vals` after checking the declared types.
pub(super) fn bind_all(s: &mut Scope, op: &Operation, vals: &[XlaOp]) -> Result<()> {
    if vals.len() < op.results.len() {
        return Err(ImportError::Invalid {
            message: format!(
                "{} gives {} results, {} named",
                op.name,
                vals.len(),
                op.results.len()
            ),
            pos: op.pos,
        });
    }
    check_types(s, &op.name, vals, &op.result_types, op.pos)?;
    for (name, &v) in op.results.iter().zip(vals) {
        s.bind(name, v);
    }
    Ok(())
}

/// The lowering of one module.
pub(super) struct Lowerer<'f> {
    funcs: &'f [Func],
    done: HashMap<String, Function>,
    active: Vec<String>,
}

/// Lowers every function of the module.
pub(super) fn lower_module(funcs: &[Func]) -> Result<Module> {
    for (i, f) in funcs.iter().enumerate() {
        if funcs[..i].iter().any(|g| g.name == f.name) {
            return Err(ImportError::Invalid {
                message: format!("function @{} defined twice", f.name),
                pos: f.pos,
            });
        }
    }
    let mut l = Lowerer {
        funcs,
        done: HashMap::new(),
        active: Vec::new(),
    };
    let mut functions = Vec::with_capacity(funcs.len());
    for f in funcs {
        functions.push(l.function(&f.name, f.pos)?.clone());
    }
    Ok(Module { functions })
}

impl Lowerer<'_> {
    /// The lowered function `name` (lowered on first use); `at` is where it is needed.
    pub fn function(&mut self, name: &str, at: Pos) -> Result<&Function> {
        if !self.done.contains_key(name) {
            let f =
                self.funcs
                    .iter()
                    .find(|f| f.name == name)
                    .ok_or_else(|| ImportError::Invalid {
                        message: format!("call of undefined function @{name}"),
                        pos: at,
                    })?;
            if self.active.iter().any(|a| a == name) {
                return Err(ImportError::Unsupported {
                    feature: format!("recursive call of @{name}"),
                    pos: at,
                });
            }
            self.active.push(name.to_string());
            let lowered = self.lower_func(f);
            self.active.pop();
            self.done.insert(name.to_string(), lowered?);
        }
        Ok(&self.done[name])
    }

    fn lower_func(&mut self, f: &Func) -> Result<Function> {
        let mut s = Scope::new(&f.name);
        s.checks = Some(Vec::new());
        for (i, (name, ty)) in f.body.args.iter().enumerate() {
            s.param(i, name, ty, f.pos)?;
        }
        let (vals, ret_pos) = self.block(&mut s, &f.body.ops, f.pos)?;
        check_types(&s, "func.return", &vals, &f.results, ret_pos)?;
        if vals.len() != f.results.len() {
            return Err(ImportError::Invalid {
                message: format!(
                    "@{} declares {} results but returns {}",
                    f.name,
                    f.results.len(),
                    vals.len()
                ),
                pos: ret_pos,
            });
        }
        let checks = s.checks.take().unwrap_or_default();
        let mut root_vals = vals.clone();
        root_vals.extend(checks.iter().flat_map(|(_, v)| v.iter().copied()));
        let tupled = vals.len() != 1 || !checks.is_empty();
        let root = if tupled {
            s.b.tuple(&root_vals)
                .map_err(|e| shape_err("func.return", e, ret_pos))?
        } else {
            vals[0]
        };
        let computation =
            s.b.build(root)
                .map_err(|e| shape_err("func.func", e, f.pos))?;
        Ok(Function {
            name: f.name.clone(),
            public: f.public,
            computation: Arc::new(computation),
            results: vals.len(),
            checks: checks.into_iter().map(|(c, _)| c).collect(),
            stages: s.stages,
            pos: f.pos,
        })
    }

    /// Lowers `ops` (a block ending in a return) into `s`: the returned values and where the
    /// return is.
    pub fn block(
        &mut self,
        s: &mut Scope,
        ops: &[Operation],
        pos: Pos,
    ) -> Result<(Vec<XlaOp>, Pos)> {
        for (i, op) in ops.iter().enumerate() {
            if matches!(
                op.name.as_str(),
                "func.return" | "return" | "stablehlo.return"
            ) {
                if i + 1 != ops.len() {
                    return Err(ImportError::Invalid {
                        message: format!("{} is not the last op of its block", op.name),
                        pos: op.pos,
                    });
                }
                let vals = op
                    .operands
                    .iter()
                    .map(|n| s.get(n, op.pos))
                    .collect::<Result<_>>()?;
                return Ok((vals, op.pos));
            }
            self.op(s, op)?;
        }
        Err(ImportError::Invalid {
            message: "a block without a return".into(),
            pos: ops.last().map_or(pos, |o| o.pos),
        })
    }

    /// Lowers one op into `s`.
    fn op(&mut self, s: &mut Scope, op: &Operation) -> Result<()> {
        match op.name.as_str() {
            "func.call" | "call" => self.call(s, op),
            "stablehlo.composite" => self.composite(s, op),
            "interpreter.run_parallel" => self.run_parallel(s, op),
            "stablehlo.while" => self.while_loop(s, op),
            "stablehlo.if" | "stablehlo.case" => self.conditional(s, op),
            "chlo.square" => square(s, op),
            _ if chlo_complex::text_for(s, op).is_some() => {
                let text = chlo_complex::text_for(s, op).unwrap_or_default();
                chlo_complex::lower(s, op, text)
            }
            "stablehlo.rng" => rng(s, op),
            "stablehlo.dynamic_reshape" => dims::dynamic_reshape(s, op),
            "stablehlo.custom_call" => custom::lower(s, op),
            name if chlo::OPS.contains(&name) => chlo::lower(s, op),
            name if name.starts_with("check.") => check(s, op),
            _ => self.registry_op(s, op),
        }
    }

    /// `func.call @f(...)`.
    fn call(&mut self, s: &mut Scope, op: &Operation) -> Result<()> {
        let callee = op.callee.clone().unwrap_or_default();
        let f = self.function(&callee, op.pos)?;
        let (comp, tupled) = (Arc::clone(&f.computation), f.tupled());
        let args = op
            .operands
            .iter()
            .map(|n| s.get(n, op.pos))
            .collect::<Result<Vec<_>>>()?;
        let r =
            s.b.call(&comp, &args)
                .map_err(|e| shape_err(&op.name, e, op.pos))?;
        bind_results(s, op, r, tupled)
    }

    /// A region as a computation of its block arguments; it may not use outer values.
    pub fn closed_region(&mut self, r: &Region, op: &Operation) -> Result<Arc<Computation>> {
        if let Some(v) = control::free_values(std::slice::from_ref(r)).first() {
            return Err(ImportError::Unsupported {
                feature: format!("a {} region using the outer value {v}", op.name),
                pos: op.pos,
            });
        }
        let mut s = Scope::new(&format!(
            "{}_region",
            op.name.rsplit('.').next().unwrap_or("op")
        ));
        for (i, (name, ty)) in r.args.iter().enumerate() {
            s.param(i, name, ty, op.pos)?;
        }
        let (vals, pos) = self.block(&mut s, &r.ops, op.pos)?;
        let root = match vals[..] {
            [v] => v,
            _ => {
                s.b.tuple(&vals)
                    .map_err(|e| shape_err("stablehlo.return", e, pos))?
            }
        };
        let c =
            s.b.build(root)
                .map_err(|e| shape_err(&op.name, e, op.pos))?;
        Ok(Arc::new(c))
    }

    /// An op of the registry, applied through [`registry::build`].
    fn registry_op(&mut self, s: &mut Scope, op: &Operation) -> Result<()> {
        let spec = spec_for(&op.name).ok_or_else(|| ImportError::Unsupported {
            feature: op.name.clone(),
            pos: op.pos,
        })?;
        let operands = op
            .operands
            .iter()
            .map(|n| s.get(n, op.pos))
            .collect::<Result<Vec<_>>>()?;
        let computations = op
            .regions
            .iter()
            .map(|r| self.closed_region(r, op))
            .collect::<Result<Vec<_>>>()?;
        let result = op.result_types.first();
        let mut applied = Applied {
            operands: &operands,
            computations: &computations,
            attrs: attrs::attributes(spec, op, &s.b, &operands)?,
            ..Applied::default()
        };
        if spec.form == Form::Type {
            applied.shape = result.map(Type::shape);
        }
        if let Form::OperandsAndType(_) = spec.form {
            // The generated shape is the last result (RngBitGenerator's bits).
            applied.shape = op.result_types.last().map(Type::shape);
        }
        if spec.form == Form::Constant {
            applied.literal = Some(constant(op)?);
        }
        if spec.form == Form::Scan {
            // chlo.scan's inputs then inits (`operandSegmentSizes`, the pretty form's too).
            applied.num_inputs = op.attrs.iter().find_map(|(n, a)| match (n.as_str(), a) {
                ("operandSegmentSizes", Attr::Array(v)) => v.first().map(|&m| m as usize),
                _ => None,
            });
        }
        let r = registry::build(&mut s.b, spec, &applied)
            .map_err(|e| shape_err(&op.name, e, op.pos))?;
        if matches!(op.name.as_str(), "stablehlo.infeed" | "stablehlo.recv")
            && op.results.len() != 2
        {
            // `(T, token)` with T a tuple: StableHLO lists T's elements, then the token.
            let gte = |s: &mut Scope, v: XlaOp, i: usize| {
                s.b.get_tuple_element(v, i as i64)
                    .map_err(|e| shape_err(&op.name, e, op.pos))
            };
            let data = gte(s, r, 0)?;
            let mut vals = (0..op.results.len().saturating_sub(1))
                .map(|i| gte(s, data, i))
                .collect::<Result<Vec<_>>>()?;
            vals.push(gte(s, r, 1)?);
            return bind_all(s, op, &vals);
        }
        bind_results(s, op, r, false)
    }
}

/// `stablehlo.rng %a, %b, %shape, distribution = D`: RngUniform or RngNormal of the result
/// type (the shape operand, a constant, says the same).
fn rng(s: &mut Scope, op: &Operation) -> Result<()> {
    let dist = op.attrs.iter().find(|(n, _)| n == "rng_distribution");
    let name = match dist.map(|(_, a)| a) {
        Some(Attr::Enum(_, v)) | Some(Attr::Str(v)) if v == "UNIFORM" => "RngUniform",
        Some(Attr::Enum(_, v)) | Some(Attr::Str(v)) if v == "NORMAL" => "RngNormal",
        _ => {
            return Err(ImportError::Invalid {
                message: "stablehlo.rng needs rng_distribution UNIFORM or NORMAL".into(),
                pos: op.pos,
            })
        }
    };
    if let Some((other, _)) = op.attrs.iter().find(|(n, _)| n != "rng_distribution") {
        return Err(ImportError::Unsupported {
            feature: format!("attribute `{other}` of stablehlo.rng"),
            pos: op.pos,
        });
    }
    let (Some(spec), [a, b, _]) = (registry::lookup(name), &op.operands[..]) else {
        return Err(ImportError::Invalid {
            message: format!(
                "stablehlo.rng takes 3 operands, {} given",
                op.operands.len()
            ),
            pos: op.pos,
        });
    };
    let operands = [s.get(a, op.pos)?, s.get(b, op.pos)?];
    let applied = Applied {
        operands: &operands,
        shape: op.result_types.first().map(Type::shape),
        ..Applied::default()
    };
    let r =
        registry::build(&mut s.b, spec, &applied).map_err(|e| shape_err(&op.name, e, op.pos))?;
    bind_results(s, op, r, false)
}

/// `chlo.square` (what `jnp.square` and `x ** 2` export): `x * x`, a `stablehlo.multiply`
/// through the registry. Complex squares stay unsupported: CHLO does not define them as the
/// complex product.
fn square(s: &mut Scope, op: &Operation) -> Result<()> {
    let [x] = &op.operands[..] else {
        return Err(ImportError::Invalid {
            message: format!("chlo.square takes 1 operand, {} given", op.operands.len()),
            pos: op.pos,
        });
    };
    let x = s.get(x.as_str(), op.pos)?;
    if let Some((name, _)) = op.attrs.first() {
        return Err(ImportError::Unsupported {
            feature: format!("attribute `{name}` of chlo.square"),
            pos: op.pos,
        });
    }
    if s.b.shape(x).as_array().is_some_and(|a| a.ty.is_complex()) {
        return Err(ImportError::Unsupported {
            feature: "chlo.square of a complex tensor".into(),
            pos: op.pos,
        });
    }
    let spec = spec_for("stablehlo.multiply").ok_or_else(|| ImportError::Unsupported {
        feature: "stablehlo.multiply".into(),
        pos: op.pos,
    })?;
    let applied = Applied {
        operands: &[x, x],
        ..Applied::default()
    };
    let r =
        registry::build(&mut s.b, spec, &applied).map_err(|e| shape_err(&op.name, e, op.pos))?;
    bind_results(s, op, r, false)
}

/// The literal of `stablehlo.constant`: its `value` for its result type.
fn constant(op: &Operation) -> Result<crate::literal::Literal> {
    let invalid = |message: String| ImportError::Invalid {
        message,
        pos: op.pos,
    };
    let Some(super::ast::Attr::Dense(d, own)) = op.attr("value") else {
        return Err(invalid(
            "stablehlo.constant needs a `dense<...>` value".into(),
        ));
    };
    let ty = op
        .result_types
        .first()
        .or(own.as_ref())
        .and_then(Type::tensor);
    let ty = ty.ok_or_else(|| invalid("stablehlo.constant needs a tensor type".into()))?;
    to_literal(d, ty).map_err(|m| invalid(format!("stablehlo.constant: {m}")))
}

/// A `check.*` assertion: recorded, its values kept for the function's results.
fn check(s: &mut Scope, op: &Operation) -> Result<()> {
    let unsupported = |feature: String| ImportError::Unsupported {
        feature,
        pos: op.pos,
    };
    let short = op.name.trim_start_matches("check.");
    let (kind, with_const) = match short {
        "expect_eq_const" => (CheckKind::Eq, true),
        "expect_almost_eq_const" => (CheckKind::AlmostEq, true),
        "expect_eq" => (CheckKind::Eq, false),
        "expect_almost_eq" => (CheckKind::AlmostEq, false),
        "expect_close" => (CheckKind::Close, false),
        _ => return Err(unsupported(op.name.clone())),
    };
    let vals = op
        .operands
        .iter()
        .map(|n| s.get(n, op.pos))
        .collect::<Result<Vec<_>>>()?;
    let arity = if with_const { 1 } else { 2 };
    if vals.len() != arity {
        return Err(ImportError::Invalid {
            message: format!("{} takes {arity} values", op.name),
            pos: op.pos,
        });
    }
    let expected = if with_const {
        let Some(super::ast::Attr::Dense(d, _)) = op.attr("value") else {
            return Err(ImportError::Invalid {
                message: format!("{} needs a dense value", op.name),
                pos: op.pos,
            });
        };
        let shape =
            s.b.shape(vals[0])
                .as_array()
                .cloned()
                .ok_or_else(|| unsupported("check of a tuple".into()))?;
        let lit = to_literal(d, &shape).map_err(|m| ImportError::Invalid {
            message: format!("{}: {m}", op.name),
            pos: op.pos,
        })?;
        Some(lit)
    } else {
        None
    };
    let num = |name: &str| match op.attr(name) {
        Some(super::ast::Attr::Float(f)) => Some(*f),
        Some(super::ast::Attr::Int(i)) => Some(*i as f64),
        _ => None,
    };
    let c = Check {
        kind,
        expected,
        tolerance: num("tolerance"),
        ulps: (
            num("min_ulp_difference").unwrap_or(0.0) as u64,
            num("max_ulp_difference").unwrap_or(4.0) as u64,
        ),
        pos: op.pos,
    };
    match s.checks.as_mut() {
        Some(list) => {
            list.push((c, vals));
            Ok(())
        }
        None => Err(unsupported(format!("{} inside a region", op.name))),
    }
}
