//! Views: the movement ops fold into their consumer's loop as a change of index map. Each
//! takes the map at which its result is read and gives the map at which its operand is read
//! (rows of coefficients over the iteration index, the constant last): broadcasts drop rows,
//! transposes permute them, Rev negates and shifts, Slice scales and shifts, Pad shifts under a
//! guard, ConcatInDim picks its piece by guards, Reshape re-derives rows where the row-major
//! index splits without carries (else its operand is stored).

use super::{src_strides, Cond, DynBox, Expr, ExprBuilder, ExprId, Map, Src};
use crate::expand::graph::{row_major_strides, Kind, Value};

impl ExprBuilder<'_> {
    /// The expression of view node `v` read at `m`; `None` when a materialisation was
    /// requested instead.
    pub(super) fn view(&mut self, v: Value, m: &Map) -> Option<ExprId> {
        let g = self.g;
        let node = &g.nodes[v.node];
        let shape = g.shape(v);
        let ty = shape.ty;
        let cols = self.extents.len();
        match &node.kind {
            Kind::BroadcastInDim { dims } => {
                let input = node.inputs[0];
                let in_dims = &g.shape(input).dims;
                let rows: Map = dims
                    .iter()
                    .zip(in_dims)
                    .map(|(&d, &size)| {
                        if size == 1 {
                            vec![0; cols + 1]
                        } else {
                            m[d].clone()
                        }
                    })
                    .collect();
                self.expr(input, &rows, false)
            }
            Kind::Transpose { perm } => {
                let input = node.inputs[0];
                let mut rows: Map = vec![vec![0; cols + 1]; perm.len()];
                for (d, &p) in perm.iter().enumerate() {
                    rows[p] = m[d].clone();
                }
                self.expr(input, &rows, false)
            }
            Kind::Rev { dims } => {
                // operand[d] = n[d] - 1 - out[d] on the reversed dims.
                let mut rows = m.clone();
                for &d in dims {
                    let n = shape.dims[d];
                    for c in rows[d].iter_mut() {
                        *c = -*c;
                    }
                    rows[d][cols] += n - 1;
                }
                self.expr(node.inputs[0], &rows, false)
            }
            Kind::Slice { start, strides } => {
                // operand[d] = start[d] + stride[d] * out[d].
                let mut rows = m.clone();
                for (d, row) in rows.iter_mut().enumerate() {
                    for c in row.iter_mut() {
                        *c *= strides[d];
                    }
                    row[cols] += start[d];
                }
                self.expr(node.inputs[0], &rows, false)
            }
            Kind::DynamicSlice { sizes } => {
                // A box of a stored operand whose origin is read when the kernel starts: the
                // map is the same relative to the box (see `DynBox`). An operand or start that
                // is not stored yet is stored first.
                let input = node.inputs[0];
                let mut wanted = Vec::new();
                let base = self.stored(input, &mut wanted);
                let starts: Vec<_> = node.inputs[1..]
                    .iter()
                    .map(|&s| self.stored(s, &mut wanted).map(|src| (src, g.shape(s).ty)))
                    .collect();
                if !wanted.is_empty() {
                    wanted.into_iter().for_each(|w| self.need(w));
                    return None;
                }
                let base = base?;
                let strides = src_strides(g, &base);
                let max = g.shape(input).dims.iter().zip(sizes).map(|(n, s)| n - s);
                let dyn_box = DynBox {
                    node: v.node,
                    base,
                    starts: starts.into_iter().collect::<Option<_>>()?,
                    strides,
                    max: max.collect(),
                };
                Some(self.leaf(Src::Dyn(Box::new(dyn_box)), ty, m))
            }
            Kind::Pad { low } => {
                // operand[d] = out[d] - low[d], where that is inside the operand.
                let input = node.inputs[0];
                let in_dims = g.shape(input).dims.clone();
                let mut rows = m.clone();
                let mut conds = Vec::new();
                for (d, row) in rows.iter_mut().enumerate() {
                    row[cols] -= low[d];
                    let reach = range_of(row, &self.extents);
                    if reach.0 < 0 || reach.1 >= in_dims[d] {
                        conds.push(Cond {
                            coef: row[..cols].to_vec(),
                            off: row[cols],
                            lo: 0,
                            hi: in_dims[d],
                        });
                    }
                }
                if conds.is_empty() {
                    return self.expr(input, &rows, false);
                }
                self.guards += 1;
                let value = self.expr(input, &rows, false);
                self.guards -= 1;
                let fill = self.expr(node.inputs[1], &Vec::new(), false);
                Some(self.push(Expr::Guard {
                    conds,
                    value: value?,
                    fill: fill?,
                    ty,
                }))
            }
            Kind::Concat { dim } => {
                // Piece k covers out[dim] in [start_k, start_k + n_k); later pieces are the
                // fill of earlier ones.
                let mut pieces = Vec::new();
                let mut start = 0;
                for &input in &node.inputs {
                    let n = g.shape(input).dims[*dim];
                    if n > 0 {
                        pieces.push((input, start, n));
                    }
                    start += n;
                }
                let reach = range_of(&m[*dim], &self.extents);
                pieces.retain(|&(_, s, n)| s <= reach.1 && reach.0 < s + n);
                let Some(&(last, last_start, _)) = pieces.last() else {
                    self.error = Some("ConcatInDim: no piece covers the index space".into());
                    return None;
                };
                let guarded = pieces.len() > 1;
                self.guards += usize::from(guarded);
                let read = |b: &mut Self, input: Value, s: i64| {
                    let mut rows = m.clone();
                    rows[*dim][cols] -= s;
                    b.expr(input, &rows, false)
                };
                let mut acc = read(self, last, last_start);
                for &(input, s, n) in pieces[..pieces.len() - 1].iter().rev() {
                    let value = read(self, input, s);
                    let cond = Cond {
                        coef: m[*dim][..cols].to_vec(),
                        off: m[*dim][cols],
                        lo: s,
                        hi: s + n,
                    };
                    acc = match (value, acc) {
                        (Some(value), Some(fill)) => Some(self.push(Expr::Guard {
                            conds: vec![cond],
                            value,
                            fill,
                            ty,
                        })),
                        _ => None,
                    };
                }
                self.guards -= usize::from(guarded);
                acc
            }
            Kind::Reshape => {
                let input = node.inputs[0];
                let in_dims = g.shape(input).dims.clone();
                // Row-major linear index of this node as a function of the iteration index.
                let rs = row_major_strides(&shape.dims);
                let mut lin = vec![0i64; cols + 1];
                for (row, s) in m.iter().zip(&rs) {
                    for (l, r) in lin.iter_mut().zip(row) {
                        *l += s * r;
                    }
                }
                let src = if self.mat.contains(&input) {
                    Some(Src::Buf(input))
                } else {
                    let kind = &g.nodes[input.node].kind;
                    if let Kind::Param { index, path } = kind {
                        Some(Src::Param {
                            index: *index,
                            path: path.clone(),
                        })
                    } else if matches!(kind, Kind::Constant(_)) && !in_dims.is_empty() {
                        Some(Src::Const(input.node))
                    } else {
                        None
                    }
                };
                if let Some(src) = src {
                    if src_strides(g, &src) == row_major_strides(&in_dims) {
                        // Row-major storage: the physical offset is the linear index itself.
                        let ity = g.shape(input).ty;
                        let mut coef = lin;
                        let off = coef.pop().unwrap_or(0);
                        let guarded = self.guards > 0;
                        return Some(self.push(Expr::Leaf {
                            src,
                            ty: ity,
                            coef,
                            off,
                            guarded,
                        }));
                    }
                }
                match split_linear(&lin, &self.extents, &in_dims) {
                    Some(rows) => self.expr(input, &rows, false),
                    None => {
                        self.need(input);
                        None
                    }
                }
            }
            Kind::Param { .. }
            | Kind::Constant(_)
            | Kind::Iota { .. }
            | Kind::Unary(_)
            | Kind::Binary(_)
            | Kind::Compare { .. }
            | Kind::Select
            | Kind::Clamp
            | Kind::Convert
            | Kind::Bitcast
            | Kind::ReducePrecision { .. }
            | Kind::Copy
            | Kind::BitcastResize
            | Kind::Reduce { .. }
            | Kind::Dot { .. }
            | Kind::Sort { .. }
            | Kind::TopK { .. }
            | Kind::Cholesky { .. }
            | Kind::RaggedDot { .. }
            | Kind::TriangularSolve { .. }
            | Kind::RngBitGenerator { .. }
            | Kind::Rng { .. }
            | Kind::Fft { .. }
            | Kind::Collective(_)
            | Kind::HostIo { .. }
            | Kind::Conv { .. }
            | Kind::While { .. }
            | Kind::Conditional { .. }
            | Kind::CustomCall { .. }
            | Kind::Gather { .. }
            | Kind::Scatter { .. }
            | Kind::DynamicUpdateSlice
            | Kind::ReduceWindow { .. }
            | Kind::SelectAndScatter { .. }
            | Kind::CumScan { .. } => {
                self.error = Some(format!("internal: node {} is not a view", v.node));
                None
            }
        }
    }
}

impl ExprBuilder<'_> {
    /// Where `v` is stored, if it is (a parameter, a constant or a materialised value); else
    /// `v` is added to `wanted`.
    fn stored(&self, v: Value, wanted: &mut Vec<Value>) -> Option<Src> {
        if self.mat.contains(&v) {
            return Some(Src::Buf(v));
        }
        let kind = &self.g.nodes[v.node].kind;
        if let Kind::Param { index, path } = kind {
            return Some(Src::Param {
                index: *index,
                path: path.clone(),
            });
        }
        if matches!(kind, Kind::Constant(_)) {
            return Some(Src::Const(v.node));
        }
        wanted.push(v);
        None
    }
}

/// Split a row-major linear index `Σ lin[d]·i[d] + lin[n]` (`i[d] < extents[d]`, the constant
/// last) into the row-major multi-index of `dims` as an affine map, when no carry can occur:
/// each iteration dim lands in one target dim (its coefficient a multiple of that dim's stride,
/// below the next), the constant splits into row-major digits, and the largest sum per target
/// dim stays below its size. `None` otherwise.
pub(crate) fn split_linear(lin: &[i64], extents: &[i64], dims: &[i64]) -> Option<Map> {
    let rs = row_major_strides(dims);
    let cols = extents.len();
    let mut rows = vec![vec![0i64; cols + 1]; dims.len()];
    let mut max = vec![0i64; dims.len()];
    for (d, (&c, &n)) in lin.iter().zip(extents).enumerate() {
        if c == 0 || n <= 1 {
            continue;
        }
        if c < 0 {
            return None;
        }
        let k = (0..dims.len()).find(|&k| dims[k] > 1 && rs[k] <= c)?;
        if c % rs[k] != 0 {
            return None;
        }
        let q = c / rs[k];
        rows[k][d] = q;
        max[k] += q * (n - 1);
    }
    let mut rest = lin.get(cols).copied().unwrap_or(0);
    if rest < 0 {
        return None;
    }
    for k in 0..dims.len() {
        if rs[k] > 0 {
            let digit = rest / rs[k];
            rest -= digit * rs[k];
            rows[k][cols] = digit;
            max[k] += digit;
        }
    }
    if rest != 0 || max.iter().zip(dims).any(|(&m, &size)| m >= size.max(1)) {
        return None;
    }
    Some(rows)
}

/// The smallest and largest value of `Σ row[d]·i[d] + row[n]` over `0 <= i[d] < extents[d]`.
pub(super) fn range_of(row: &[i64], extents: &[i64]) -> (i64, i64) {
    let mut lo = row.get(extents.len()).copied().unwrap_or(0);
    let mut hi = lo;
    for (&c, &n) in row.iter().zip(extents) {
        let span = c * (n - 1).max(0);
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    (lo, hi)
}
