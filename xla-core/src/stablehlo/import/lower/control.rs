//! `while`, `if` and `case`. Their regions may use values of the enclosing computation
//! (StableHLO's regions are not isolated from above); our computations take everything as
//! parameters, so those values are passed explicitly: appended to a while's state (and
//! returned unchanged by its body), or as one tuple operand every branch takes.

use std::collections::HashSet;
use std::sync::Arc;

use super::super::ast::{Operation, Region};
use super::super::{ImportError, Result};
use super::{bind_results, shape_err, Lowerer, Scope};
use crate::builder::XlaOp;
use crate::error::Error;
use crate::ir::Computation;
use crate::shape::Shape;

/// Values used in `regions` but defined outside them, in order of first use.
pub(in super::super) fn free_values(regions: &[Region]) -> Vec<String> {
    let mut out = Vec::new();
    for r in regions {
        collect(r, &HashSet::new(), &mut out);
    }
    out
}

fn collect(r: &Region, outer: &HashSet<String>, out: &mut Vec<String>) {
    let mut defined = outer.clone();
    defined.extend(r.args.iter().map(|(n, _)| n.clone()));
    for op in &r.ops {
        for o in &op.operands {
            if !defined.contains(o) && !out.contains(o) {
                out.push(o.clone());
            }
        }
        for inner in &op.regions {
            collect(inner, &defined, out);
        }
        defined.extend(op.results.iter().cloned());
    }
}

/// The elements of a state parameter: itself when `single`, else its `n` tuple elements.
fn unpack(s: &mut Scope, p: XlaOp, n: usize, single: bool, op: &Operation) -> Result<Vec<XlaOp>> {
    if single {
        return Ok(vec![p]);
    }
    (0..n)
        .map(|i| s.b.get_tuple_element(p, i as i64))
        .collect::<crate::error::Result<_>>()
        .map_err(|e| shape_err(&op.name, e, op.pos))
}

/// The single value a region returns.
fn one(vals: &[XlaOp]) -> crate::error::Result<XlaOp> {
    match vals {
        [v] => Ok(*v),
        _ => Err(Error::new(
            "stablehlo.return",
            format!("{} values returned where one is expected", vals.len()),
        )),
    }
}

/// How a region computation is entered: one parameter of shape `shape` whose elements (the
/// parameter itself when `single`) bind the region's block arguments, then `captured`.
struct Entry<'a> {
    shape: Shape,
    single: bool,
    captured: &'a [String],
}

impl Lowerer<'_> {
    /// `region` as a computation entered by `entry`; `finish` makes the root from the
    /// returned values and the captured parameters.
    fn entered(
        &mut self,
        region: &Region,
        op: &Operation,
        entry: &Entry<'_>,
        finish: impl FnOnce(&mut Scope, Vec<XlaOp>, &[XlaOp]) -> crate::error::Result<XlaOp>,
    ) -> Result<Arc<Computation>> {
        let name = format!("{}_region", op.name.rsplit('.').next().unwrap_or("op"));
        let mut s = Scope::new(&name);
        let p =
            s.b.parameter(0, entry.shape.clone(), "state")
                .map_err(|e| shape_err(&op.name, e, op.pos))?;
        let n = region.args.len() + entry.captured.len();
        let elems = unpack(&mut s, p, n, entry.single, op)?;
        let names = region.args.iter().map(|(n, _)| n).chain(entry.captured);
        for (name, &v) in names.zip(&elems) {
            s.bind(name, v);
        }
        let (vals, pos) = self.block(&mut s, &region.ops, op.pos)?;
        let root = finish(&mut s, vals, &elems[region.args.len()..])
            .map_err(|e| shape_err(&op.name, e, pos))?;
        let c =
            s.b.build(root)
                .map_err(|e| shape_err(&op.name, e, op.pos))?;
        Ok(Arc::new(c))
    }

    /// `stablehlo.while`: the state is the operands then the captured values.
    pub(super) fn while_loop(&mut self, s: &mut Scope, op: &Operation) -> Result<()> {
        let [cond, body] = &op.regions[..] else {
            return Err(ImportError::Invalid {
                message: "stablehlo.while takes two regions".into(),
                pos: op.pos,
            });
        };
        let n = op.operands.len();
        if cond.args.len() != n || body.args.len() != n {
            return Err(ImportError::Invalid {
                message: format!(
                    "stablehlo.while: {n} operands but regions of {} and {} arguments",
                    cond.args.len(),
                    body.args.len()
                ),
                pos: op.pos,
            });
        }
        let captured = free_values(&op.regions);
        let mut state = op
            .operands
            .iter()
            .chain(&captured)
            .map(|v| s.get(v, op.pos))
            .collect::<Result<Vec<_>>>()?;
        let single = state.len() == 1;
        let init = if single {
            state.remove(0)
        } else {
            s.b.tuple(&state)
                .map_err(|e| shape_err(&op.name, e, op.pos))?
        };
        let entry = Entry {
            shape: s.b.shape(init).clone(),
            single,
            captured: &captured,
        };
        let cond_c = self.entered(cond, op, &entry, |_, vals, _| one(&vals))?;
        let body_c = self.entered(body, op, &entry, |s, vals, passed| {
            if single {
                return one(&vals);
            }
            let all: Vec<XlaOp> = vals.into_iter().chain(passed.iter().copied()).collect();
            s.b.tuple(&all)
        })?;
        let w =
            s.b.while_loop(&cond_c, &body_c, init)
                .map_err(|e| shape_err(&op.name, e, op.pos))?;
        bind_results(s, op, w, !single)
    }

    /// `stablehlo.if` (pred) and `stablehlo.case` (s32 index): every branch takes the tuple
    /// of the values any branch captures.
    pub(super) fn conditional(&mut self, s: &mut Scope, op: &Operation) -> Result<()> {
        let [selector] = &op.operands[..] else {
            return Err(ImportError::Invalid {
                message: format!("{} takes one operand", op.name),
                pos: op.pos,
            });
        };
        if op.regions.is_empty() || op.regions.iter().any(|r| !r.args.is_empty()) {
            return Err(ImportError::Invalid {
                message: format!("{} branches take no arguments", op.name),
                pos: op.pos,
            });
        }
        let selector = s.get(selector, op.pos)?;
        let captured = free_values(&op.regions);
        let vals = captured
            .iter()
            .map(|v| s.get(v, op.pos))
            .collect::<Result<Vec<_>>>()?;
        let operand =
            s.b.tuple(&vals)
                .map_err(|e| shape_err(&op.name, e, op.pos))?;
        let entry = Entry {
            shape: s.b.shape(operand).clone(),
            single: false,
            captured: &captured,
        };
        let n_results = op.results.len();
        let mut branches = Vec::with_capacity(op.regions.len());
        for r in &op.regions {
            branches.push(self.entered(r, op, &entry, |s, vals, _| match vals[..] {
                [v] if n_results == 1 => Ok(v),
                _ => s.b.tuple(&vals),
            })?);
        }
        let r = if op.name == "stablehlo.if" {
            let [t, f] = &branches[..] else {
                return Err(ImportError::Invalid {
                    message: "stablehlo.if takes two regions".into(),
                    pos: op.pos,
                });
            };
            s.b.conditional(selector, operand, t, operand, f)
        } else {
            s.b.conditional_indexed(selector, &branches, &vec![operand; branches.len()])
        };
        let r = r.map_err(|e| shape_err(&op.name, e, op.pos))?;
        bind_results(s, op, r, n_results != 1)
    }
}
