//! `Scan(inputs..., inits..., to_apply, scan_dimension, is_reverse, is_associative)`: m arrays
//! scanned along one dimension of size N with k carries; `to_apply` takes the m slices (the
//! inputs without the scan dimension) and the k carries and returns n outputs and the k new
//! carries. The result is the tuple of the n outputs with the scan dimension (size N) put back
//! at `scan_dimension`, then the k final carries.

use super::{compatible, expect_array};
use crate::error::{count, Blame, Error, Result};
use crate::ir::Computation;
use crate::shape::{ArrayShape, Shape};

/// `a` without dimension `d`.
pub fn remove_dim(a: &ArrayShape, d: usize) -> ArrayShape {
    let mut out = a.with_type(a.ty);
    out.dims.remove(d);
    out.dynamic.remove(d);
    out
}

/// `a` with a dimension of size `n` inserted at `d`.
pub fn insert_dim(a: &ArrayShape, d: usize, n: i64) -> ArrayShape {
    let mut out = a.with_type(a.ty);
    out.dims.insert(d, n);
    out.dynamic.insert(d, false);
    out
}

/// The shapes `to_apply` takes: each input without the scan dimension, then the inits.
/// Operands the rules reject give no parameters (the checker reports them first).
pub fn scan_params(inputs: &[&Shape], inits: &[&Shape], scan_dimension: i64) -> Vec<Shape> {
    let xs = inputs.iter().map(|s| match s {
        Shape::Array(a) if scan_dimension >= 0 && (scan_dimension as usize) < a.rank() => {
            Shape::Array(remove_dim(a, scan_dimension as usize))
        }
        other => (*other).clone(),
    });
    xs.chain(inits.iter().map(|s| (*s).clone())).collect()
}

/// The result of `Scan`: `(outputs with the scan dimension.., final carries..)`. Operands are
/// blamed in the order written (inputs, then inits).
pub fn scan(
    inputs: &[&Shape],
    inits: &[&Shape],
    to_apply: &Computation,
    scan_dimension: i64,
) -> Result<Shape> {
    let op = "Scan";
    let (m, k) = (inputs.len(), inits.len());
    if m == 0 {
        return Err(Error::new(
            op,
            "needs at least one input to scan (its scan dimension gives the number of steps)",
        ));
    }
    let arrays = inputs
        .iter()
        .enumerate()
        .map(|(i, s)| expect_array(op, "each input", s, Blame::Operand(i)))
        .collect::<Result<Vec<&ArrayShape>>>()?;
    let first = arrays[0];
    if scan_dimension < 0 || scan_dimension as usize >= first.rank() {
        return Err(Error::new(
            op,
            format!(
                "scan_dimension {scan_dimension} is out of range for the input {first} of rank {}",
                first.rank()
            ),
        )
        .blame(Blame::Attribute("scan_dimension")));
    }
    let d = scan_dimension as usize;
    let n = first.dims[d];
    for (i, a) in arrays.iter().enumerate().skip(1) {
        if a.rank() <= d || a.dims[d] != n {
            return Err(Error::new(
                op,
                format!(
                    "every input needs a scan dimension {d} of size {n} like input 0 {first}, \
                     input {i} is {a}"
                ),
            )
            .blame(Blame::Operand(i)));
        }
    }
    let params = scan_params(inputs, inits, scan_dimension);
    let sig = || {
        let p: Vec<String> = params.iter().map(|s| s.to_string()).collect();
        format!("({}) -> (outputs.., {})", p.join(", "), {
            let c: Vec<String> = inits.iter().map(|s| s.to_string()).collect();
            c.join(", ")
        })
    };
    let cblame = Blame::Computation;
    if to_apply.params.len() != m + k {
        return Err(Error::new(
            op,
            format!(
                "to_apply must take {} ({} then {}), {}, but takes {}",
                count(m + k, "parameter", "parameters"),
                count(m, "input slice", "input slices"),
                count(k, "carry", "carries"),
                sig(),
                to_apply.params.len()
            ),
        )
        .blame(cblame));
    }
    for (p, (got, want)) in to_apply.params.iter().zip(&params).enumerate() {
        if !compatible(got, want) {
            let what = if p < m { "an input slice" } else { "a carry" };
            return Err(Error::new(
                op,
                format!(
                    "parameter {p} of to_apply ({what}) must be {want}, got {got}; expected {}",
                    sig()
                ),
            )
            .blame(cblame));
        }
    }
    let results: Vec<&Shape> = match to_apply.result_shape() {
        Shape::Tuple(t) => t.iter().collect(),
        s => vec![s],
    };
    if results.len() < k {
        return Err(Error::new(
            op,
            format!(
                "to_apply must return its outputs then {}, returns {}",
                count(k, "new carry", "new carries"),
                to_apply.result_shape()
            ),
        )
        .blame(cblame));
    }
    let n_out = results.len() - k;
    for (j, (got, init)) in results[n_out..].iter().zip(inits).enumerate() {
        if !compatible(got, init) {
            return Err(Error::new(
                op,
                format!(
                    "to_apply's new carry {j} (result {}) must have the init's shape {init}, got {got}",
                    n_out + j
                ),
            )
            .blame(cblame));
        }
    }
    let mut out = Vec::with_capacity(results.len());
    for (i, y) in results[..n_out].iter().enumerate() {
        let y = match y {
            Shape::Array(a) if a.rank() >= d => a,
            _ => {
                return Err(Error::new(
                    op,
                    format!(
                        "to_apply's output {i} must be an array of rank at least {d} to take \
                         the scan dimension {d} back, got {y}"
                    ),
                )
                .blame(cblame))
            }
        };
        out.push(Shape::Array(insert_dim(y, d, n)));
    }
    out.extend(inits.iter().map(|s| logical(s)));
    Ok(Shape::Tuple(out))
}

/// `shape` without layouts.
fn logical(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(a.with_type(a.ty)),
        Shape::Tuple(e) => Shape::Tuple(e.iter().map(logical).collect()),
        Shape::Token => Shape::Token,
    }
}

#[cfg(test)]
mod tests;
