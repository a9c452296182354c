//! `Scan` on the builder, and its expansion into a `While` over the scan dimension
//! ([`expand_scan`]): how a Scan runs as primitive ops, which the macro inlines for a general
//! `to_apply`. (The export writes CHLO's `chlo.scan`, which XLA legalises to its own while
//! loop: the oracle does not run this expansion.)

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::infer::{self, scan::insert_dim, scan::remove_dim};
use crate::ir::{BinaryOp, ComparisonDirection, Computation, Op};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

impl Builder {
    /// `Scan(inputs..., inits..., to_apply, scan_dimension, is_reverse, is_associative)`: the
    /// tuple `(outputs.., final carries..)`, step `i` running
    /// `(y.., c..) = to_apply(x[i].., c..)` from the inits, `i = 0..N` (reversed when
    /// `is_reverse`), `y` stored at index `i` of the scan dimension.
    pub fn scan(
        &mut self,
        inputs: &[XlaOp],
        inits: &[XlaOp],
        to_apply: &Arc<Computation>,
        scan_dimension: i64,
        is_reverse: bool,
        is_associative: Option<bool>,
    ) -> Result<XlaOp> {
        let (xs, cs) = (self.shape_list(inputs)?, self.shape_list(inits)?);
        let out = infer::scan(&xs, &cs, to_apply, scan_dimension)?;
        let op = Op::Scan {
            scan_dimension,
            is_reverse,
            is_associative,
            num_carries: inits.len(),
            to_apply: Arc::clone(to_apply),
        };
        let ids = inputs.iter().chain(inits).map(|o| o.0).collect();
        Ok(self.push(op, ids, out))
    }
}

/// A Scan as a `While` whose state is `(i: s32[], inputs.., outputs.., carries..)`: each step
/// slices index `j` (`i`, or `N-1-i` when reversed) of every input with `DynamicSlice`, calls
/// `to_apply`, and writes each output at `j` with `DynamicUpdateSlice` (outputs start at
/// zero; every index is written once). `shapes` are the Scan's operands (inputs then the
/// `num_carries` inits); the result is the Scan's tuple.
pub fn expand_scan(
    to_apply: &Arc<Computation>,
    scan_dimension: i64,
    is_reverse: bool,
    num_carries: usize,
    shapes: &[&Shape],
) -> Result<Computation> {
    let m = shapes
        .len()
        .checked_sub(num_carries)
        .ok_or_else(|| Error::new("Scan", "fewer operands than carries"))?;
    let out = infer::scan(&shapes[..m], &shapes[m..], to_apply, scan_dimension)?;
    let outs: Vec<Shape> = out.as_tuple().unwrap_or_default().to_vec();
    let d = scan_dimension as usize;
    // State: the counter, the inputs, the outputs so far, the carries.
    let mut state: Vec<Shape> = vec![Shape::scalar(ElementType::S32)];
    state.extend(shapes[..m].iter().map(|s| (*s).clone()));
    state.extend(outs.iter().cloned());
    let loop_ = ScanLoop {
        inputs: &shapes[..m],
        n_out: outs.len() - num_carries,
        k: num_carries,
        d,
        steps: shapes[0].as_array().map_or(0, |a| a.dims[d]),
        is_reverse,
        state: Shape::Tuple(state),
    };
    let (condition, body) = (loop_.condition()?, loop_.body(to_apply)?);

    let mut b = Builder::new("scan");
    let params = shapes
        .iter()
        .enumerate()
        .map(|(k, s)| b.parameter(k, (*s).clone(), "operand"))
        .collect::<Result<Vec<XlaOp>>>()?;
    let mut init = vec![b.constant(Literal::scalar(0i32))];
    init.extend_from_slice(&params[..m]);
    for y in &outs[..loop_.n_out] {
        let a = array_of(y)?;
        let z = b.constant(Literal::zeros(&ArrayShape::scalar(a.ty)));
        init.push(b.broadcast(z, &a.dims)?);
    }
    init.extend_from_slice(&params[m..]);
    let init = b.tuple(&init)?;
    let w = b.while_loop(&condition, &body, init)?;
    let mut results = Vec::with_capacity(outs.len());
    for e in 0..outs.len() {
        results.push(b.get_tuple_element(w, (1 + m + e) as i64)?);
    }
    let t = b.tuple(&results)?;
    b.build(t)
}

/// The While of one Scan: state `(i, inputs.., outputs.., carries..)`.
struct ScanLoop<'a> {
    inputs: &'a [&'a Shape],
    n_out: usize,
    k: usize,
    d: usize,
    steps: i64,
    is_reverse: bool,
    state: Shape,
}

impl ScanLoop<'_> {
    /// `i < N`.
    fn condition(&self) -> Result<Arc<Computation>> {
        let mut b = Builder::new("scan_condition");
        let s = b.parameter(0, self.state.clone(), "state")?;
        let i = b.get_tuple_element(s, 0)?;
        let n = b.constant(Literal::scalar(self.steps as i32));
        let lt = b.compare(ComparisonDirection::Lt, false, i, n, None)?;
        Ok(Arc::new(b.build(lt)?))
    }

    /// One step at `j = i` (or `N-1-i`): slice, call, write the outputs at `j`, `i + 1`.
    fn body(&self, to_apply: &Arc<Computation>) -> Result<Arc<Computation>> {
        let (m, d) = (self.inputs.len(), self.d);
        let mut b = Builder::new("scan_body");
        let s = b.parameter(0, self.state.clone(), "state")?;
        let i = b.get_tuple_element(s, 0)?;
        let j = if self.is_reverse {
            let last = b.constant(Literal::scalar(self.steps as i32 - 1));
            b.binary(BinaryOp::Sub, last, i, None)?
        } else {
            i
        };
        let zero = b.constant(Literal::scalar(0i32));
        // Starts of rank `r` with `j` at the scan dimension.
        let starts =
            |r: usize| -> Vec<XlaOp> { (0..r).map(|e| if e == d { j } else { zero }).collect() };
        let mut args = Vec::with_capacity(m + self.k);
        let mut xs = Vec::with_capacity(m);
        for (k, shape) in self.inputs.iter().enumerate() {
            let x = b.get_tuple_element(s, 1 + k as i64)?;
            xs.push(x);
            let a = array_of(shape)?;
            let mut sizes = a.dims.clone();
            sizes[d] = 1;
            let slice = b.dynamic_slice(x, &starts(a.rank()), &sizes)?;
            args.push(b.reshape(slice, None, &remove_dim(a, d).dims)?);
        }
        for c in 0..self.k {
            args.push(b.get_tuple_element(s, (1 + m + self.n_out + c) as i64)?);
        }
        let r = b.call(to_apply, &args)?;
        let results: Vec<XlaOp> = match b.shape(r) {
            Shape::Tuple(t) => {
                let len = t.len();
                (0..len)
                    .map(|e| b.get_tuple_element(r, e as i64))
                    .collect::<Result<_>>()?
            }
            _ => vec![r],
        };
        let one = b.constant(Literal::scalar(1i32));
        let mut next = vec![b.binary(BinaryOp::Add, i, one, None)?];
        next.extend(xs);
        for (e, &y) in results[..self.n_out].iter().enumerate() {
            let acc = b.get_tuple_element(s, (1 + m + e) as i64)?;
            let ya = array_of(b.shape(y))?.clone();
            let y1 = b.reshape(y, None, &insert_dim(&ya, d, 1).dims)?;
            next.push(b.dynamic_update_slice(acc, y1, &starts(ya.rank() + 1))?);
        }
        next.extend_from_slice(&results[self.n_out..]);
        let t = b.tuple(&next)?;
        Ok(Arc::new(b.build(t)?))
    }
}

/// The array of `s`, or an error (inference checked every operand first).
fn array_of(s: &Shape) -> Result<&ArrayShape> {
    s.as_array()
        .ok_or_else(|| Error::new("Scan", format!("expected an array, got {s}")))
}
