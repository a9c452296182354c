//! Programs with bounded dynamic dimensions on XLA. XLA:CPU takes no dynamic argument from
//! the host, so the oracle compiles an entry that takes each dynamic array at its bounds and
//! one `s32[]` per dynamic dimension, makes them dynamic with SetDimensionSize, calls the
//! program, and returns its results padded (as XLA holds them) with their sizes
//! (GetDimensionSize); the valid regions are cut out here. XLA runs the dynamic program
//! itself: nothing of our padder is involved.

use std::sync::Arc;

use xla_core::builder::{Builder, XlaOp};
use xla_core::padder::{bound_shape, compact, pad_to_bounds, shape_dynamic};
use xla_core::{Computation, ElementType, Literal, Shape};

use super::{rebuild, Oracle};

/// The entry described in the module docs, for `c`.
fn entry(c: &Computation) -> Result<Computation, String> {
    let e = |e: xla_core::Error| e.to_string();
    let mut b = Builder::new("main");
    let mut next = c.params.len();
    let mut args = Vec::with_capacity(c.params.len());
    let mut sized = Vec::new();
    for (i, s) in c.params.iter().enumerate() {
        let mut x = b
            .parameter(i, bound_shape(s), &format!("p{i}"))
            .map_err(e)?;
        match s {
            Shape::Array(a) => {
                for (d, &dy) in a.dynamic.iter().enumerate() {
                    if dy {
                        let n = b
                            .parameter(next, Shape::scalar(ElementType::S32), &format!("n{next}"))
                            .map_err(e)?;
                        next += 1;
                        sized.push((x, d, n));
                        x = b.set_dimension_size(x, n, d as i64).map_err(e)?;
                    }
                }
            }
            s if shape_dynamic(s) => {
                return Err(format!(
                    "the oracle takes no tuple parameter with dynamic dims ({s})"
                ))
            }
            _ => {}
        }
        args.push(x);
    }
    let callee = Arc::new(Computation {
        name: format!("{}_dynamic", c.name),
        ..c.clone()
    });
    let r = b.call(&callee, &args).map_err(e)?;
    let mut outs = vec![r];
    sizes_of(&mut b, r, c.result_shape(), &mut outs).map_err(e)?;
    let root = if outs.len() == 1 {
        r
    } else {
        b.tuple(&outs).map_err(e)?
    };
    b.build(root).map_err(e)
}

/// Appends the GetDimensionSize of every dynamic dimension of `v` (of shape `s`), leaves
/// depth first (the order `padder::compact` reads sizes in).
fn sizes_of(b: &mut Builder, v: XlaOp, s: &Shape, out: &mut Vec<XlaOp>) -> xla_core::Result<()> {
    match s {
        Shape::Array(a) => {
            for (d, &dy) in a.dynamic.iter().enumerate() {
                if dy {
                    out.push(b.get_dimension_size(v, d as i64)?);
                }
            }
            Ok(())
        }
        Shape::Tuple(ts) => {
            for (i, t) in ts.iter().enumerate() {
                let e = b.get_tuple_element(v, i as i64)?;
                sizes_of(b, e, t, out)?;
            }
            Ok(())
        }
        Shape::Token => Ok(()),
    }
}

impl Oracle {
    /// Runs `c`, a computation with dynamic dimensions, on XLA:CPU (see the module docs);
    /// `args` and the result hold valid elements only (`xla_core::padder`'s literals).
    pub fn run_dynamic(&mut self, c: &Computation, args: &[Literal]) -> Result<Literal, String> {
        let main = entry(c)?;
        let text = xla_core::stablehlo::try_to_stablehlo(&main).map_err(|e| e.to_string())?;
        if std::env::var_os("XLA_ORACLE_DUMP").is_some() {
            eprintln!("{text}");
        }
        let mut sizes = Vec::new();
        let mut padded = Vec::with_capacity(args.len());
        for (a, s) in args.iter().zip(&c.params) {
            padded.push(pad_to_bounds(a, s, &mut sizes).map_err(|e| e.to_string())?);
        }
        padded.extend(sizes.into_iter().map(Literal::scalar));
        let flat = self.run(&text, &padded)?;
        let mut it = flat.into_iter();
        let value = rebuild(&bound_shape(c.result_shape()), &mut it)
            .ok_or("XLA oracle: fewer results than the result shape has")?;
        let mut sizes = it.map(|l| {
            l.as_slice::<i32>()
                .and_then(|v| v.first())
                .map_or(-1, |&v| i64::from(v))
        });
        compact(&value, c.result_shape(), &mut sizes).map_err(|e| e.to_string())
    }
}
