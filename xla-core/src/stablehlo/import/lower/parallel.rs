//! `"interpreter.run_parallel"(%inputs...) {programs = [[@f, ...], ...]}`: the function body
//! is cut there. The computation built so far becomes the stage before the op (returning the
//! programs' inputs, then every bound value and check value), and lowering goes on in a fresh
//! builder whose parameters are those values again, then the programs' results
//! (`import/parallel.rs` runs the stages).

use std::sync::Arc;

use super::super::ast::{Attr, Operation};
use super::super::{ImportError, Parallel, Program, Result};
use super::{bind_all, shape_err, Lowerer, Scope};
use crate::builder::{Builder, XlaOp};
use crate::shape::Shape;

impl Lowerer<'_> {
    /// Ends the current stage of `s` at `op` and starts the next one.
    pub(super) fn run_parallel(&mut self, s: &mut Scope, op: &Operation) -> Result<()> {
        let invalid = |message: String| ImportError::Invalid {
            message: format!("{}: {message}", op.name),
            pos: op.pos,
        };
        if s.checks.is_none() {
            return Err(ImportError::Unsupported {
                feature: format!("{} inside a region", op.name),
                pos: op.pos,
            });
        }
        let symbols = program_symbols(op).ok_or_else(|| {
            invalid(
                "needs `programs = [[@f, ...], ...]`, one list per replica, of one length".into(),
            )
        })?;
        let mut programs = Vec::with_capacity(symbols.len());
        let mut result_shapes = Vec::new();
        let mut params = 0;
        for row in &symbols {
            let mut progs = Vec::with_capacity(row.len());
            for name in row {
                let f = self.function(name, op.pos)?;
                if !f.stages.is_empty() {
                    return Err(ImportError::Unsupported {
                        feature: format!("{} of @{name}, which runs programs itself", op.name),
                        pos: op.pos,
                    });
                }
                let root = f.computation.instr(f.computation.root).shape.clone();
                match (&root, f.tupled()) {
                    (Shape::Tuple(t), true) => {
                        result_shapes.extend(t.iter().take(f.results).cloned())
                    }
                    (_, false) => result_shapes.push(root.clone()),
                    (_, true) => return Err(invalid(format!("@{name} does not return a tuple"))),
                }
                params += f.computation.params.len();
                progs.push(Program {
                    name: name.clone(),
                    computation: Arc::clone(&f.computation),
                    results: f.results,
                    tupled: f.tupled(),
                });
            }
            programs.push(progs);
        }
        let mut infeed = Vec::new();
        match op.attr("infeed") {
            None => {}
            Some(Attr::List(items)) => {
                for a in items {
                    let Attr::Symbol(name) = a else {
                        return Err(invalid("`infeed` must list functions `[@f, ...]`".into()));
                    };
                    let f = self.function(name, op.pos)?;
                    if !f.computation.params.is_empty() || !f.stages.is_empty() {
                        return Err(invalid(format!(
                            "infeed function @{name} must take no parameters and run no programs"
                        )));
                    }
                    infeed.push(Arc::clone(&f.computation));
                }
            }
            Some(_) => return Err(invalid("`infeed` must list functions `[@f, ...]`".into())),
        }
        let inputs = op
            .operands
            .iter()
            .map(|n| s.get(n, op.pos))
            .collect::<Result<Vec<_>>>()?;
        if inputs.len() != params {
            return Err(invalid(format!(
                "{} inputs for programs taking {params} parameters",
                inputs.len()
            )));
        }
        if result_shapes.len() != op.results.len() {
            return Err(invalid(format!(
                "the programs give {} results, {} named",
                result_shapes.len(),
                op.results.len()
            )));
        }
        let before = cut(s, &inputs, op)?;
        let carried = before.params.len();
        let mut results = Vec::with_capacity(result_shapes.len());
        for (i, shape) in result_shapes.into_iter().enumerate() {
            let p =
                s.b.parameter(carried + i, shape, &format!("run_parallel_{i}"))
                    .map_err(|e| shape_err(&op.name, e, op.pos))?;
            results.push(p);
        }
        bind_all(s, op, &results)?;
        s.stages.push(Parallel {
            before: Arc::new(before.computation),
            inputs: inputs.len(),
            programs,
            infeed,
            pos: op.pos,
        });
        Ok(())
    }
}

/// The stage ended by a cut, and how many parameters of the next stage carry its values.
struct Cut {
    computation: crate::ir::Computation,
    params: Vec<Shape>,
}

/// Builds the stage so far (root: `inputs`, then every bound value, then every check value)
/// and rebinds those values to the first parameters of a fresh builder in `s`.
fn cut(s: &mut Scope, inputs: &[XlaOp], op: &Operation) -> Result<Cut> {
    let mut names: Vec<String> = s.vals.keys().cloned().collect();
    names.sort();
    let mut kept: Vec<XlaOp> = names.iter().map(|n| s.vals[n]).collect();
    let checks = s.checks.take().unwrap_or_default();
    kept.extend(checks.iter().flat_map(|(_, v)| v.iter().copied()));
    let params: Vec<Shape> = kept.iter().map(|&v| s.b.shape(v).clone()).collect();
    let mut root_vals = inputs.to_vec();
    root_vals.extend(&kept);
    let root =
        s.b.tuple(&root_vals)
            .map_err(|e| shape_err(&op.name, e, op.pos))?;
    let name = format!("{}_stage{}", s.b.name(), s.stages.len());
    let old = std::mem::replace(&mut s.b, Builder::new(name));
    let computation = old
        .build(root)
        .map_err(|e| shape_err(&op.name, e, op.pos))?;
    s.vals.clear();
    let mut fresh = Vec::with_capacity(params.len());
    for (i, shape) in params.iter().enumerate() {
        let p =
            s.b.parameter(i, shape.clone(), &format!("carried_{i}"))
                .map_err(|e| shape_err(&op.name, e, op.pos))?;
        fresh.push(p);
    }
    for (name, &p) in names.iter().zip(&fresh) {
        s.bind(name, p);
    }
    let mut rest = fresh[names.len()..].iter().copied();
    let checks = checks
        .into_iter()
        .map(|(c, v)| (c, rest.by_ref().take(v.len()).collect()))
        .collect();
    s.checks = Some(checks);
    Ok(Cut {
        computation,
        params,
    })
}

/// `programs = [[@a, @b], [@c, @d]]` as symbols per replica, when every list has one length.
fn program_symbols(op: &Operation) -> Option<Vec<Vec<String>>> {
    let Some(Attr::List(rows)) = op.attr("programs") else {
        return None;
    };
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| match r {
            Attr::List(items) => items
                .iter()
                .map(|a| match a {
                    Attr::Symbol(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let width = rows.first()?.len();
    (width > 0 && rows.iter().all(|r| r.len() == width)).then_some(rows)
}
