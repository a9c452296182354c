//! Bounded dynamic dimensions, as XLA's DynamicPadder runs them: a computation whose arrays have
//! dimensions `<=N` becomes a static computation over arrays padded to their bounds, with one
//! `s32[]` value per dynamic dimension carrying its runtime size.
//!
//! Padding holds unspecified values (XLA's too: whatever the buffer held). An op reads it only
//! where the padder rewrote the op to ignore it: a Reduce or a DotGeneral over a dynamic
//! dimension first replaces the padding by the reduction's init (a dot by zero); Slice, Pad,
//! ConcatInDim, Rev and DynamicReshape move the valid region where XLA's semantics put it.
//! Elementwise ops, BroadcastInDim and Transpose compute on the padding too and carry the sizes
//! along. Every other op refuses dynamic operands ([`check_supported`], a compile error at
//! the op in `xla!`).
//!
//! The padded computation takes the original parameters at their bounds, then one `s32[]`
//! size per dynamic dimension of the parameters ([`Padded::param_sizes`], in order); when the
//! result has dynamic dimensions it returns `(result, sizes...)` ([`Padded::result_sizes`]).
//! [`evaluate`] runs a dynamic computation on literals whose arrays hold only their valid
//! elements (dims = runtime sizes), which is how the evaluator, `run_literals` and the oracle
//! see dynamic values.

use std::collections::HashMap;

use crate::builder::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::ir::{Computation, InstrId, Op};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

mod literals;
mod ops;
#[cfg(test)]
mod tests;

pub use literals::{compact, pad_to_bounds};
pub use ops::check_supported;

/// Where one runtime size lives: dimension `dim` of the array leaf at `path` of parameter
/// `param` (for result sizes, `param` is 0 and `path` is inside the result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeSlot {
    /// The parameter (0 for the result).
    pub param: usize,
    /// Tuple indices from the parameter (or result) to the array leaf.
    pub path: Vec<usize>,
    /// The dynamic dimension of that leaf.
    pub dim: usize,
}

/// A dynamic computation made static: see the module docs.
#[derive(Clone, Debug)]
pub struct Padded {
    /// The static computation.
    pub computation: Computation,
    /// The extra `s32[]` parameters, after the original ones, in this order.
    pub param_sizes: Vec<SizeSlot>,
    /// The sizes returned after the result (`(result, sizes...)`), empty when the result is
    /// static (the root is then the original result).
    pub result_sizes: Vec<SizeSlot>,
}

/// True when `c` runs through the padder: it has a dynamic dimension, or one of the ops of
/// dynamic dimensions (GetDimensionSize of a static dimension, a DynamicReshape to static
/// sizes), which the padder replaces by a constant or a Gather.
pub fn needs_padding(c: &Computation) -> bool {
    is_dynamic(c)
        || c.instrs.iter().any(|i| {
            matches!(
                i.op,
                Op::GetDimensionSize { .. } | Op::SetDimensionSize { .. } | Op::DynamicReshape
            )
        })
}

/// True when a shape (or a nested computation's instruction) has a dynamic dimension.
pub fn is_dynamic(c: &Computation) -> bool {
    c.params.iter().any(shape_dynamic)
        || c.instrs
            .iter()
            .any(|i| shape_dynamic(&i.shape) || i.op.computations().iter().any(|c| is_dynamic(c)))
}

/// True when an array leaf of `s` has a dynamic dimension.
pub fn shape_dynamic(s: &Shape) -> bool {
    match s {
        Shape::Array(a) => a.is_dynamic(),
        Shape::Tuple(t) => t.iter().any(shape_dynamic),
        Shape::Token => false,
    }
}

/// `s` with every dimension at its bound and no dynamic flag.
pub fn bound_shape(s: &Shape) -> Shape {
    match s {
        Shape::Array(a) => Shape::Array(ArrayShape {
            dynamic: vec![false; a.rank()],
            ..a.clone()
        }),
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(bound_shape).collect()),
        Shape::Token => Shape::Token,
    }
}

/// The runtime sizes of a value, shaped like it: per array dimension, the `s32[]` holding its
/// size when it is dynamic.
#[derive(Clone, Debug)]
enum Sizes {
    Array(Vec<Option<XlaOp>>),
    Tuple(Vec<Sizes>),
    Token,
}

impl Sizes {
    fn static_of(s: &Shape) -> Sizes {
        match s {
            Shape::Array(a) => Sizes::Array(vec![None; a.rank()]),
            Shape::Tuple(t) => Sizes::Tuple(t.iter().map(Sizes::static_of).collect()),
            Shape::Token => Sizes::Token,
        }
    }

    fn dims(&self) -> &[Option<XlaOp>] {
        match self {
            Sizes::Array(d) => d,
            Sizes::Tuple(_) | Sizes::Token => &[],
        }
    }

    fn any(&self) -> bool {
        match self {
            Sizes::Array(d) => d.iter().any(Option::is_some),
            Sizes::Tuple(t) => t.iter().any(Sizes::any),
            Sizes::Token => false,
        }
    }
}

/// Rewrites a dynamic computation as a static one over padded arrays (the module docs say
/// how); a static computation comes back unchanged with no size slots.
pub fn pad(c: &Computation) -> Result<Padded> {
    let mut p = Padder {
        b: Builder::new(c.name.clone()),
        values: HashMap::new(),
        param_sizes: Vec::new(),
        next_param: c.params.len(),
    };
    // Parameters first, in index order, so the size parameters follow the original ones in
    // the order of the parameters they belong to.
    let mut params: Vec<(usize, usize)> = c
        .instrs
        .iter()
        .enumerate()
        .filter_map(|(i, ins)| match ins.op {
            Op::Parameter { index, .. } => Some((index, i)),
            _ => None,
        })
        .collect();
    params.sort_unstable();
    for (index, i) in params {
        let ins = &c.instrs[i];
        let name = match &ins.op {
            Op::Parameter { name, .. } => name.as_str(),
            _ => "",
        };
        p.parameter(InstrId(i as u32), index, name, &ins.shape)?;
    }
    for (i, ins) in c.instrs.iter().enumerate() {
        if !matches!(ins.op, Op::Parameter { .. }) {
            let v = p.instruction(c, ins)?;
            p.values.insert(InstrId(i as u32), v);
        }
    }
    let (root, sizes) = p.values[&c.root].clone();
    let mut result_sizes = Vec::new();
    let mut size_ops = Vec::new();
    collect_sizes(&sizes, 0, &mut Vec::new(), &mut result_sizes, &mut size_ops);
    let root = if size_ops.is_empty() {
        root
    } else {
        let mut elems = vec![root];
        elems.extend(size_ops);
        p.b.tuple(&elems)?
    };
    Ok(Padded {
        computation: p.b.build(root)?,
        param_sizes: p.param_sizes,
        result_sizes,
    })
}

/// The slots and ops of every dynamic dimension of `s`, depth first.
fn collect_sizes(
    s: &Sizes,
    param: usize,
    path: &mut Vec<usize>,
    slots: &mut Vec<SizeSlot>,
    ops: &mut Vec<XlaOp>,
) {
    match s {
        Sizes::Array(d) => {
            for (dim, op) in d.iter().enumerate() {
                if let Some(op) = op {
                    slots.push(SizeSlot {
                        param,
                        path: path.clone(),
                        dim,
                    });
                    ops.push(*op);
                }
            }
        }
        Sizes::Tuple(t) => {
            for (i, e) in t.iter().enumerate() {
                path.push(i);
                collect_sizes(e, param, path, slots, ops);
                path.pop();
            }
        }
        Sizes::Token => {}
    }
}

struct Padder {
    b: Builder,
    values: HashMap<InstrId, (XlaOp, Sizes)>,
    param_sizes: Vec<SizeSlot>,
    next_param: usize,
}

impl Padder {
    /// Parameter `index` at its bounds, and one new `s32[]` parameter per dynamic dimension.
    fn parameter(&mut self, id: InstrId, index: usize, name: &str, shape: &Shape) -> Result<()> {
        let op = self.b.parameter(index, bound_shape(shape), name)?;
        let sizes = self.param_sizes_of(index, name, shape, &mut Vec::new())?;
        self.values.insert(id, (op, sizes));
        Ok(())
    }

    fn param_sizes_of(
        &mut self,
        param: usize,
        name: &str,
        shape: &Shape,
        path: &mut Vec<usize>,
    ) -> Result<Sizes> {
        Ok(match shape {
            Shape::Array(a) => {
                let mut d = Vec::with_capacity(a.rank());
                for (dim, &dy) in a.dynamic.iter().enumerate() {
                    d.push(if dy {
                        let n = self.next_param;
                        self.next_param += 1;
                        self.param_sizes.push(SizeSlot {
                            param,
                            path: path.clone(),
                            dim,
                        });
                        let size_name = format!("{name}_size{dim}");
                        Some(
                            self.b
                                .parameter(n, Shape::scalar(ElementType::S32), &size_name)?,
                        )
                    } else {
                        None
                    });
                }
                Sizes::Array(d)
            }
            Shape::Tuple(t) => {
                let mut e = Vec::with_capacity(t.len());
                for (i, s) in t.iter().enumerate() {
                    path.push(i);
                    e.push(self.param_sizes_of(param, name, s, path)?);
                    path.pop();
                }
                Sizes::Tuple(e)
            }
            Shape::Token => Sizes::Token,
        })
    }
}

/// Runs the dynamic computation `c` on `args` (arrays holding their valid elements, see the
/// module docs) by padding them, running the padded computation with `run`, and cutting the
/// result's valid region out.
pub fn run_padded(
    c: &Computation,
    args: &[Literal],
    run: impl FnOnce(&Computation, &[Literal]) -> Result<Literal>,
) -> Result<Literal> {
    if args.len() != c.params.len() {
        return Err(Error::new(
            "evaluate",
            format!(
                "computation `{}` takes {} parameters but {} arguments were given",
                c.name,
                c.params.len(),
                args.len()
            ),
        ));
    }
    let p = pad(c)?;
    let mut sizes = Vec::new();
    let mut padded = Vec::with_capacity(args.len() + p.param_sizes.len());
    for (a, s) in args.iter().zip(&c.params) {
        padded.push(pad_to_bounds(a, s, &mut sizes)?);
    }
    padded.extend(sizes.into_iter().map(Literal::scalar));
    let out = run(&p.computation, &padded)?;
    if p.result_sizes.is_empty() {
        return Ok(out);
    }
    let Literal::Tuple(mut parts) = out else {
        return Err(Error::new(
            "padder",
            "internal: the padded result is not a tuple",
        ));
    };
    let value = parts.remove(0);
    let mut sizes = parts.iter().map(|s| {
        s.as_slice::<i32>()
            .and_then(|v| v.first())
            .map_or(0, |&v| i64::from(v))
    });
    compact(&value, c.result_shape(), &mut sizes)
}
