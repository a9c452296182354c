//! Fusion: decide which values live in buffers ("materialised") and turn everything else into
//! per-element expressions inside the loop of the kernel that consumes it.
//!
//! Every kernel iterates over an index space (its output's dims; for a reduce, its operands'
//! dims). A value reached from a kernel is read through an affine map `node_idx = M · i`:
//! broadcasts zero or select rows, transposes permute rows, reshapes re-derive rows when the
//! row-major linear index splits without carries. A leaf (parameter, constant, buffer) turns
//! that into a physical offset `Σ coef[d] · i[d]` using its storage strides, so broadcasts read
//! through stride 0 and transposes through permuted strides; nothing is copied unless a map
//! cannot be expressed, in which case the offending operand is materialised and fusion runs
//! again (a fixpoint: the materialised set only grows).

use std::collections::{BTreeSet, HashMap, HashSet};

use xla_core::{ArrayShape, ElementType, Literal, Shape};

use super::graph::{layout_strides, row_major_strides, storage_strides, Graph, Kind, Tree, Value};

/// Affine map from a kernel's iteration index to a node's index: one row per node dim, one
/// coefficient per iteration dim and a constant last (`node_idx[r] = Σ m[r][d]·i[d] + m[r][n]`).
pub(crate) type Map = Vec<Vec<i64>>;

/// A range test on an affine function of the iteration index: `lo <= Σ coef[d]·i[d] + off < hi`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Cond {
    pub coef: Vec<i64>,
    pub off: i64,
    pub lo: i64,
    pub hi: i64,
}

/// Index of an expression in its kernel's arena.
pub(crate) type ExprId = usize;

/// Where a leaf's elements are stored.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Src {
    /// Array leaf `path` of parameter `index`, stored with the parameter's layout.
    Param { index: usize, path: Vec<usize> },
    /// The constant of this node, stored row-major in a `static`.
    Const(usize),
    /// A materialised value: a scratch buffer (row-major) or an output (its layout).
    Buf(Value),
}

/// One expression node of a kernel.
#[derive(Clone, Debug)]
pub(crate) enum Expr {
    /// Element at physical offset `Σ coef[d]·i[d] + off` of `src`. A `guarded` leaf is read
    /// under a [`Expr::Guard`] and may point outside `src` where the guard fails: it reads the
    /// element type's zero there instead of indexing out of bounds.
    Leaf {
        src: Src,
        ty: ElementType,
        coef: Vec<i64>,
        off: i64,
        guarded: bool,
    },
    /// `Σ coef[d]·i[d] + off` converted to `ty` (iota).
    Index {
        coef: Vec<i64>,
        off: i64,
        ty: ElementType,
    },
    /// `value` where every cond holds, else `fill` (Pad's padding, ConcatInDim's pieces).
    Guard {
        conds: Vec<Cond>,
        value: ExprId,
        fill: ExprId,
        ty: ElementType,
    },
    /// A scalar constant.
    Scalar(Literal),
    /// An elementwise op (a graph `Kind` for which `is_elementwise`), `tys` the operand types.
    Op {
        kind: Kind,
        args: Vec<ExprId>,
        tys: Vec<ElementType>,
        ty: ElementType,
    },
}

/// A GEMM operand: a leaf with one stride per collapsed group of dims.
#[derive(Clone, Debug)]
pub(crate) struct GemmOperand {
    pub src: Src,
    /// Offset of element `[0, 0, 0]` in `src`.
    pub off: i64,
    /// Strides of the [batch, row, col] groups (0 for a group of extent 1).
    pub strides: [i64; 3],
}

/// What a kernel does.
#[derive(Clone, Debug)]
pub(crate) enum KernelKind {
    /// One loop nest over the output's dims evaluating `root` per element.
    Loop { root: ExprId },
    /// Reduce: `operands` over the operand dims, `inits` over no dims (scalars). `stores`:
    /// values the reduce loop also writes, each an expression over the operand dims stored
    /// row-major (a producer shared with later kernels, computed once, in the same pass).
    Reduce {
        operands: Vec<ExprId>,
        inits: Vec<ExprId>,
        stores: Vec<(ExprId, Value)>,
    },
    /// GEMM `C[b] = A[b]·B[b]` with sizes `[batch, m, n, k]`.
    Dot {
        lhs: GemmOperand,
        rhs: GemmOperand,
        sizes: [i64; 4],
    },
    /// Width-changing bitcast reading `src` (a leaf over the operand's dims).
    BitcastResize { src: ExprId },
    /// A call of a library kernel or of nested programs (Sort, TopK, Conv, While,
    /// Conditional; the node's kind says which): every input a dense row-major leaf, read
    /// whole. See `calls.rs` for what each declares and emits.
    Call { inputs: Vec<ExprId> },
}

/// A kernel: computes `outputs` (all outputs of `node`, or output 0 of a loop kernel).
#[derive(Clone, Debug)]
pub(crate) struct Kernel {
    pub node: usize,
    pub outputs: Vec<Value>,
    pub exprs: Vec<Expr>,
    pub kind: KernelKind,
}

/// The fused program: graph (with inserted copies), output slots, buffers and kernels.
#[derive(Clone, Debug)]
pub(crate) struct Fused {
    pub graph: Graph,
    /// The value written to each output slot (the flattened result tree, left to right).
    pub outputs: Vec<Value>,
    /// Kernels in execution order.
    pub kernels: Vec<Kernel>,
}

impl Fused {
    /// The output slot a value is written to, if any.
    pub fn output_slot(&self, v: Value) -> Option<usize> {
        self.outputs.iter().position(|&o| o == v)
    }
}

fn src_strides(g: &Graph, src: &Src) -> Vec<i64> {
    match src {
        Src::Buf(v) => storage_strides(g, *v),
        Src::Const(n) => row_major_strides(&g.nodes[*n].shapes[0].dims),
        // Parameter leaves keep their node's shape, layout included.
        Src::Param { index, path } => g
            .nodes
            .iter()
            .find(
                |n| matches!(&n.kind, Kind::Param { index: i, path: p } if i == index && p == path),
            )
            .map(|n| layout_strides(&n.shapes[0]))
            .unwrap_or_default(),
    }
}

/// Flatten the declared result shape into one array shape per output slot.
fn flatten_shape(s: &Shape, out: &mut Vec<ArrayShape>) -> Result<(), String> {
    match s {
        Shape::Array(a) => out.push(a.clone()),
        Shape::Tuple(ts) => {
            for t in ts {
                flatten_shape(t, out)?;
            }
        }
        Shape::Token => return Err("result: token results have no code generation".into()),
    }
    Ok(())
}

/// Fuse `graph` whose declared result type is `result`.
pub(crate) fn fuse(mut graph: Graph, result: &Shape) -> Result<Fused, String> {
    let mut declared = Vec::new();
    flatten_shape(result, &mut declared)?;
    let slots = graph.result.leaves();
    if slots.len() != declared.len() {
        return Err(format!(
            "result: {} values for declared type {result}",
            slots.len()
        ));
    }
    // Each output slot gets a value of its own that some kernel writes in the slot's layout.
    let mut outputs = Vec::with_capacity(slots.len());
    for (v, decl) in slots.into_iter().zip(&declared) {
        let kind = &graph.nodes[v.node].kind;
        let has_layout = decl.layout.as_ref().is_some_and(|l| !l.is_row_major());
        let needs_copy = matches!(kind, Kind::Param { .. } | Kind::Constant(_))
            || outputs.contains(&v)
            || (kind.is_kernel_root() && has_layout);
        let v = if needs_copy {
            let shape = graph.shape(v).clone();
            graph.push(Kind::Copy, vec![v], vec![shape])
        } else {
            v
        };
        graph.nodes[v.node].shapes[v.out].layout = if has_layout {
            decl.layout.clone()
        } else {
            None
        };
        outputs.push(v);
    }
    graph.result = Tree::Tuple(outputs.iter().map(|&v| Tree::Leaf(v)).collect());
    // Only parameters and outputs have a storage layout; every other materialised value lives
    // row-major in scratch, whatever layout the IR carried for it.
    for (i, node) in graph.nodes.iter_mut().enumerate() {
        if matches!(node.kind, Kind::Param { .. }) {
            continue;
        }
        for (out, s) in node.shapes.iter_mut().enumerate() {
            if !outputs.contains(&Value { node: i, out }) {
                s.layout = None;
            }
        }
    }

    let mut mat: BTreeSet<Value> = outputs.iter().copied().collect();
    for (i, node) in graph.nodes.iter().enumerate() {
        if node.kind.is_kernel_root() {
            mat.extend((0..node.shapes.len()).map(|out| Value { node: i, out }));
        }
    }
    // Fixpoint: each round builds every kernel, collecting values that must be materialised.
    for _round in 0..=graph.nodes.len() + 1 {
        let mut requests = BTreeSet::new();
        let kernels = build_kernels(&graph, &mat, &mut requests)?;
        let new: Vec<Value> = requests.difference(&mat).copied().collect();
        if new.is_empty() {
            let kernels = fold_into_reductions(&graph, &mat, kernels)?;
            return Ok(Fused {
                graph,
                outputs,
                kernels,
            });
        }
        mat.extend(new);
    }
    Err("fusion did not converge".into())
}

fn build_kernels(
    g: &Graph,
    mat: &BTreeSet<Value>,
    requests: &mut BTreeSet<Value>,
) -> Result<Vec<Kernel>, String> {
    let mut kernels = Vec::new();
    let mut expansions: HashMap<Value, HashSet<(usize, Map)>> = HashMap::new();
    let mut cheap: HashMap<Value, bool> = HashMap::new();
    let mut expanding: BTreeSet<Value> = BTreeSet::new();
    let mut done_nodes = HashSet::new();
    for &v in mat {
        if !done_nodes.insert(v.node) && g.nodes[v.node].shapes.len() > 1 {
            continue; // one kernel computes all outputs of a variadic reduce
        }
        let node = &g.nodes[v.node];
        let k = kernels.len();
        let mut b = ExprBuilder {
            g,
            mat,
            inline: None,
            exprs: Vec::new(),
            guards: 0,
            memo: HashMap::new(),
            extents: Vec::new(),
            error: None,
            kernel: k,
            requests: &mut *requests,
            expansions: &mut expansions,
            cheap: &mut cheap,
            expanding: &mut expanding,
        };
        let kind = match &node.kind {
            Kind::Reduce { .. } => {
                let n = node.shapes.len();
                let op_dims = g.shape(node.inputs[0]).dims.clone();
                let id = identity(op_dims.len());
                b.extents = op_dims;
                let mut operands = Vec::new();
                let mut inits = Vec::new();
                let mut ok = true;
                for i in 0..n {
                    match b.expr(node.inputs[i], &id, false) {
                        Some(e) => operands.push(e),
                        None => ok = false,
                    }
                }
                b.extents = Vec::new();
                for i in 0..n {
                    match b.expr(node.inputs[n + i], &Vec::new(), false) {
                        Some(e) => inits.push(e),
                        None => ok = false,
                    }
                }
                if !ok {
                    b.finish()?;
                    continue;
                }
                KernelKind::Reduce {
                    operands,
                    inits,
                    stores: Vec::new(),
                }
            }
            Kind::Dot { batch, contract } => {
                match b.dot(node.inputs[0], node.inputs[1], *batch, *contract) {
                    Some(kind) => kind,
                    None => {
                        b.finish()?;
                        continue;
                    }
                }
            }
            Kind::BitcastResize => {
                let input = node.inputs[0];
                let dims = g.shape(input).dims.clone();
                let id = identity(dims.len());
                b.extents = dims;
                match b.expr(input, &id, false) {
                    Some(e) if matches!(b.exprs[e], Expr::Leaf { .. }) => {
                        KernelKind::BitcastResize { src: e }
                    }
                    Some(_) | None => {
                        b.need(input);
                        b.finish()?;
                        continue;
                    }
                }
            }
            Kind::Sort { .. }
            | Kind::TopK { .. }
            | Kind::Conv { .. }
            | Kind::While { .. }
            | Kind::Conditional { .. } => match b.dense_inputs(&node.inputs) {
                Some(inputs) => KernelKind::Call { inputs },
                None => {
                    b.finish()?;
                    continue;
                }
            },
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
            | Kind::BroadcastInDim { .. }
            | Kind::Reshape
            | Kind::Transpose { .. }
            | Kind::Rev { .. }
            | Kind::Slice { .. }
            | Kind::Pad { .. }
            | Kind::Concat { .. }
            | Kind::Copy => {
                let dims = g.shape(v).dims.clone();
                let id = identity(dims.len());
                b.extents = dims;
                match b.expr(v, &id, true) {
                    Some(root) => KernelKind::Loop { root },
                    None => {
                        b.finish()?;
                        continue;
                    }
                }
            }
        };
        let exprs = b.finish()?;
        let outputs = (0..node.shapes.len())
            .map(|out| Value { node: v.node, out })
            .collect();
        kernels.push(Kernel {
            node: v.node,
            outputs,
            exprs,
            kind,
        });
    }
    // Compute values evaluated by several kernels (or at several maps), or recomputed per
    // element of a broadcast, are materialised unless they are one cheap op over leaves.
    for (v, uses) in &expansions {
        if (uses.len() > 1 || expanding.contains(v)) && !cheap.get(v).copied().unwrap_or(false) {
            requests.insert(*v);
        }
    }
    Ok(kernels)
}

/// Multi-output fusion: a stored elementwise value `u` whose first reader is a single-operand
/// reduction over trailing dims, reading `u` exactly at its own index (row-major), is computed
/// and stored by that reduction instead of by a loop of its own (row_softmax's `exp(x - m)`
/// feeds the sum and the division: one pass computes, stores and sums it). Later readers read
/// the stored value as before.
fn fold_into_reductions(
    g: &Graph,
    mat: &BTreeSet<Value>,
    mut kernels: Vec<Kernel>,
) -> Result<Vec<Kernel>, String> {
    let mut r = 0;
    while r < kernels.len() {
        let candidate = fold_candidate(g, &kernels, r);
        if let Some((ku, u)) = candidate {
            if let Some(k) = reduce_storing(g, mat, kernels[r].node, u)? {
                kernels[r] = k;
                kernels.remove(ku);
                continue; // `r` now names the kernel after the folded one's successor
            }
        }
        r += 1;
    }
    Ok(kernels)
}

/// The loop kernel (index, value) that reduction kernel `r` can absorb, if any.
fn fold_candidate(g: &Graph, kernels: &[Kernel], r: usize) -> Option<(usize, Value)> {
    let k = &kernels[r];
    let KernelKind::Reduce { stores, .. } = &k.kind else {
        return None;
    };
    let node = &g.nodes[k.node];
    let Kind::Reduce { dims, .. } = &node.kind else {
        return None;
    };
    if node.inputs.len() != 2 || !stores.is_empty() {
        return None;
    }
    let op_dims = &g.shape(node.inputs[0]).dims;
    let rank = op_dims.len();
    if op_dims.contains(&0) {
        return None;
    }
    // Reduced dims must be the trailing ones, so each output's elements of `u` are contiguous.
    let mut sorted = dims.clone();
    sorted.sort_unstable();
    if sorted.iter().copied().ne(rank - dims.len()..rank) {
        return None;
    }
    let rm = row_major_strides(op_dims);
    for (ku, ker) in kernels[..r].iter().enumerate() {
        let KernelKind::Loop { .. } = ker.kind else {
            continue;
        };
        let u = ker.outputs[0];
        let su = g.shape(u);
        if su.dims != *op_dims || su.layout.is_some() {
            continue;
        }
        let mut reads_u = k.exprs.iter().filter_map(|e| {
            if let Expr::Leaf {
                src: Src::Buf(v),
                coef,
                off,
                guarded,
                ..
            } = e
            {
                // Read at its own index only: no offset, no guard.
                (*v == u).then_some(if *off == 0 && !*guarded {
                    coef.clone()
                } else {
                    Vec::new()
                })
            } else {
                None
            }
        });
        let first = reads_u.next();
        if first.is_none() || first.as_ref() != Some(&rm) || !reads_u.all(|c| c == rm) {
            continue;
        }
        let read_between = kernels[ku + 1..r]
            .iter()
            .any(|x| super::plan::kernel_reads(x).contains(&u));
        if !read_between {
            return Some((ku, u));
        }
    }
    None
}

/// The reduction of node `n` computing (and storing) `u` itself; `None` if it cannot.
fn reduce_storing(
    g: &Graph,
    mat: &BTreeSet<Value>,
    n: usize,
    u: Value,
) -> Result<Option<Kernel>, String> {
    let node = &g.nodes[n];
    let (mut requests, mut expansions, mut cheap, mut expanding) = (
        BTreeSet::new(),
        HashMap::new(),
        HashMap::new(),
        BTreeSet::new(),
    );
    let mut b = ExprBuilder {
        g,
        mat,
        inline: Some(u),
        exprs: Vec::new(),
        guards: 0,
        memo: HashMap::new(),
        extents: Vec::new(),
        error: None,
        kernel: usize::MAX,
        requests: &mut requests,
        expansions: &mut expansions,
        cheap: &mut cheap,
        expanding: &mut expanding,
    };
    let op_dims = g.shape(node.inputs[0]).dims.clone();
    let id = identity(op_dims.len());
    b.extents = op_dims;
    let Some(operand) = b.expr(node.inputs[0], &id, false) else {
        return Ok(None);
    };
    let Some(&store) = b.memo.get(&(u, id, false)) else {
        return Ok(None);
    };
    b.extents = Vec::new();
    let Some(init) = b.expr(node.inputs[1], &Vec::new(), false) else {
        return Ok(None);
    };
    let exprs = b.finish()?;
    if !requests.is_empty() {
        return Ok(None);
    }
    let kind = KernelKind::Reduce {
        operands: vec![operand],
        inits: vec![init],
        stores: vec![(store, u)],
    };
    Ok(Some(Kernel {
        node: n,
        outputs: vec![Value::of(n), u],
        exprs,
        kind,
    }))
}

/// `node_idx = i` (with the constant column).
fn identity(rank: usize) -> Map {
    (0..rank)
        .map(|r| (0..=rank).map(|c| i64::from(r == c)).collect())
        .collect()
}

struct ExprBuilder<'a> {
    g: &'a Graph,
    mat: &'a BTreeSet<Value>,
    /// A materialised value this kernel computes itself (and stores) instead of reading.
    inline: Option<Value>,
    exprs: Vec<Expr>,
    /// Nesting depth of guards around the expression being built (leaves read under a guard
    /// are `guarded`).
    guards: usize,
    /// Values read at map keys inside a guard, memoised apart from unguarded reads.
    memo: HashMap<(Value, Map, bool), ExprId>,
    /// Extents of the iteration space.
    extents: Vec<i64>,
    /// A map no materialisation can fix (reported as a compile error).
    error: Option<String>,
    kernel: usize,
    requests: &'a mut BTreeSet<Value>,
    expansions: &'a mut HashMap<Value, HashSet<(usize, Map)>>,
    cheap: &'a mut HashMap<Value, bool>,
    expanding: &'a mut BTreeSet<Value>,
}

impl ExprBuilder<'_> {
    fn push(&mut self, e: Expr) -> ExprId {
        self.exprs.push(e);
        self.exprs.len() - 1
    }

    /// Storage strides of a materialised value or a parameter/constant leaf.
    fn leaf(&mut self, src: Src, ty: ElementType, m: &Map) -> ExprId {
        let strides = src_strides(self.g, &src);
        let cols = self.extents.len();
        let mut coef = vec![0i64; cols + 1];
        for (row, s) in m.iter().zip(&strides) {
            for (c, r) in coef.iter_mut().zip(row) {
                *c += s * r;
            }
        }
        let off = coef.pop().unwrap_or(0);
        let guarded = self.guards > 0;
        self.push(Expr::Leaf {
            src,
            ty,
            coef,
            off,
            guarded,
        })
    }

    /// Expression of `v` at map `m`; `None` when a materialisation was requested instead.
    fn expr(&mut self, v: Value, m: &Map, root: bool) -> Option<ExprId> {
        let key = (v, m.clone(), self.guards > 0);
        if let Some(&e) = self.memo.get(&key) {
            return Some(e);
        }
        let e = self.expr_uncached(v, m, root)?;
        self.memo.insert(key, e);
        Some(e)
    }

    fn expr_uncached(&mut self, v: Value, m: &Map, root: bool) -> Option<ExprId> {
        let g = self.g;
        let node = &g.nodes[v.node];
        let shape = g.shape(v);
        let ty = shape.ty;
        let cols = self.extents.len();
        if !root && self.mat.contains(&v) && self.inline != Some(v) {
            return Some(self.leaf(Src::Buf(v), ty, m));
        }
        match &node.kind {
            Kind::Param { index, path } => Some(self.leaf(
                Src::Param {
                    index: *index,
                    path: path.clone(),
                },
                ty,
                m,
            )),
            Kind::Constant(lit) => {
                if shape.rank() == 0 {
                    Some(self.push(Expr::Scalar(lit.clone())))
                } else {
                    Some(self.leaf(Src::Const(v.node), ty, m))
                }
            }
            Kind::Iota { dimension } => {
                let mut coef = m
                    .get(*dimension)
                    .cloned()
                    .unwrap_or_else(|| vec![0; cols + 1]);
                let off = coef.pop().unwrap_or(0);
                Some(self.push(Expr::Index { coef, off, ty }))
            }
            Kind::Unary(_)
            | Kind::Binary(_)
            | Kind::Compare { .. }
            | Kind::Select
            | Kind::Clamp
            | Kind::Convert
            | Kind::Bitcast
            | Kind::ReducePrecision { .. }
            | Kind::Copy => {
                let mut args = Vec::with_capacity(node.inputs.len());
                let mut tys = Vec::with_capacity(node.inputs.len());
                for &input in &node.inputs {
                    args.push(self.expr(input, m, false)?);
                    tys.push(g.shape(input).ty);
                }
                let identity_op = matches!(node.kind, Kind::Copy)
                    || (matches!(node.kind, Kind::Convert | Kind::Bitcast) && tys[0] == ty);
                if identity_op {
                    return Some(args[0]);
                }
                if !root {
                    self.expansions
                        .entry(v)
                        .or_default()
                        .insert((self.kernel, m.clone()));
                    if self.extents.iter().product::<i64>() > shape.element_count() {
                        self.expanding.insert(v);
                    }
                    let leafy = args
                        .iter()
                        .all(|&a| !matches!(self.exprs[a], Expr::Op { .. }));
                    self.cheap.insert(v, leafy && is_cheap(&node.kind));
                }
                Some(self.push(Expr::Op {
                    kind: node.kind.clone(),
                    args,
                    tys,
                    ty,
                }))
            }
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
            Kind::BitcastResize
            | Kind::Reduce { .. }
            | Kind::Dot { .. }
            | Kind::Sort { .. }
            | Kind::TopK { .. }
            | Kind::Conv { .. }
            | Kind::While { .. }
            | Kind::Conditional { .. } => {
                // Always materialised, so only reached as a leaf above.
                self.error = Some(format!(
                    "internal: kernel node {} reached as an expression",
                    v.node
                ));
                None
            }
        }
    }

    /// Request that `v` be materialised (row-major), or record why that cannot help.
    fn need(&mut self, v: Value) {
        if self.mat.contains(&v) {
            self.error = Some(format!(
                "an output stored with layout {} is read through a view its strides cannot express",
                self.g.shape(v)
            ));
        } else {
            self.requests.insert(v);
        }
    }

    /// The expressions built, or the error that stopped them.
    fn finish(self) -> Result<Vec<Expr>, String> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.exprs),
        }
    }

    /// Each input as a dense row-major leaf read at offset 0 (what a library call or a nested
    /// program reads); inputs that are not are materialised first.
    fn dense_inputs(&mut self, inputs: &[Value]) -> Option<Vec<ExprId>> {
        let mut out = Vec::with_capacity(inputs.len());
        let mut ok = true;
        for &v in inputs {
            let dims = self.g.shape(v).dims.clone();
            let id = identity(dims.len());
            self.extents = dims.clone();
            let Some(e) = self.expr(v, &id, false) else {
                ok = false;
                continue;
            };
            let dense = match &self.exprs[e] {
                Expr::Leaf {
                    coef,
                    off: 0,
                    guarded: false,
                    ..
                } => dims.contains(&0) || dense_strides(coef, &dims),
                Expr::Leaf { .. }
                | Expr::Index { .. }
                | Expr::Scalar(_)
                | Expr::Op { .. }
                | Expr::Guard { .. } => false,
            };
            if dense {
                out.push(e);
            } else {
                self.need(v);
                ok = false;
            }
        }
        ok.then_some(out)
    }

    /// GEMM kernel for canonical operands (lhs [b, m, k], rhs [b, k, n] groups of dims).
    fn dot(&mut self, lhs: Value, rhs: Value, batch: usize, contract: usize) -> Option<KernelKind> {
        let ld = self.g.shape(lhs).dims.clone();
        let rd = self.g.shape(rhs).dims.clone();
        let lfree = ld.len() - batch - contract;
        let a = self.gemm_operand(lhs, [batch, lfree, contract]);
        let b = self.gemm_operand(rhs, [batch, contract, rd.len() - batch - contract]);
        let (a, b) = (a?, b?);
        let prod = |d: &[i64]| d.iter().product::<i64>();
        let sizes = [
            prod(&ld[..batch]),
            prod(&ld[batch..batch + lfree]),
            prod(&rd[batch + contract..]),
            prod(&ld[batch + lfree..]),
        ];
        Some(KernelKind::Dot {
            lhs: a,
            rhs: b,
            sizes,
        })
    }

    /// `v` as a leaf whose dims collapse into three strided groups of the given lengths.
    fn gemm_operand(&mut self, v: Value, groups: [usize; 3]) -> Option<GemmOperand> {
        let dims = self.g.shape(v).dims.clone();
        let id = identity(dims.len());
        self.extents = dims.clone();
        let e = self.expr(v, &id, false)?;
        let (src, coef, off) = match &self.exprs[e] {
            Expr::Leaf {
                src,
                coef,
                off,
                guarded: false,
                ..
            } => (src.clone(), coef.clone(), *off),
            Expr::Leaf { .. }
            | Expr::Index { .. }
            | Expr::Scalar(_)
            | Expr::Op { .. }
            | Expr::Guard { .. } => {
                self.need(v);
                return None;
            }
        };
        let mut strides = [0i64; 3];
        if dims.contains(&0) {
            // No element is read (GEMM then writes zeros or nothing), so any strides do, even
            // those of a transposed view of a stored empty array that groups cannot express.
            return Some(GemmOperand { src, off, strides });
        }
        let mut start = 0;
        for (g, &len) in groups.iter().enumerate() {
            match collapse_group(&dims[start..start + len], &coef[start..start + len]) {
                Some(s) => strides[g] = s,
                None => {
                    self.need(v);
                    return None;
                }
            }
            start += len;
        }
        Some(GemmOperand { src, off, strides })
    }
}

/// True when `coef` are the row-major strides of `dims` (extent-1 dims ignored).
fn dense_strides(coef: &[i64], dims: &[i64]) -> bool {
    let rm = row_major_strides(dims);
    coef.iter()
        .zip(&rm)
        .zip(dims)
        .all(|((&c, &r), &n)| n == 1 || c == r)
}

/// One stride for a group of dims if they are nested (`s[j] == s[j+1]·n[j+1]`, ignoring
/// extent-1 dims); 0 for a group of extent 1.
fn collapse_group(dims: &[i64], coef: &[i64]) -> Option<i64> {
    let live: Vec<(i64, i64)> = dims
        .iter()
        .zip(coef)
        .filter(|(&d, _)| d != 1)
        .map(|(&d, &c)| (d, c))
        .collect();
    for w in live.windows(2) {
        if w[0].1 != w[1].1 * w[1].0 {
            return None;
        }
    }
    Some(live.last().map_or(0, |&(_, c)| c))
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
fn range_of(row: &[i64], extents: &[i64]) -> (i64, i64) {
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

/// Ops cheap enough to recompute instead of storing (one instruction on most targets).
fn is_cheap(kind: &Kind) -> bool {
    use xla_core::{BinaryOp as B, UnaryOp as U};
    match kind {
        Kind::Unary(u) => matches!(u, U::Neg | U::Abs | U::Not | U::Real | U::Imag),
        Kind::Binary(b) => matches!(
            b,
            B::Add | B::Sub | B::Mul | B::Max | B::Min | B::And | B::Or | B::Xor
        ),
        Kind::Compare { .. } | Kind::Select | Kind::Convert | Kind::Bitcast | Kind::Copy => true,
        Kind::Clamp | Kind::ReducePrecision { .. } => false,
        Kind::Param { .. }
        | Kind::Constant(_)
        | Kind::Iota { .. }
        | Kind::BroadcastInDim { .. }
        | Kind::Reshape
        | Kind::Transpose { .. }
        | Kind::Rev { .. }
        | Kind::Slice { .. }
        | Kind::Pad { .. }
        | Kind::Concat { .. }
        | Kind::BitcastResize
        | Kind::Reduce { .. }
        | Kind::Dot { .. }
        | Kind::Sort { .. }
        | Kind::TopK { .. }
        | Kind::Conv { .. }
        | Kind::While { .. }
        | Kind::Conditional { .. } => false,
    }
}
