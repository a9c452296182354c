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

mod multi_output;
mod operands;
mod views;

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
    /// A DynamicSlice of a stored source: its elements are those of the base from an offset
    /// read when the kernel starts (see [`DynBox`]).
    Dyn(Box<DynBox>),
}

/// The box a DynamicSlice reads: element `o` of it is element `off + o` of `base`, with
/// `off = Σ strides[d]·clamp(start_d, 0, max[d])` computed once when the kernel starts, so the
/// per-element maps stay affine and static (offsets relative to the box's origin).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DynBox {
    /// The DynamicSlice node (names the kernel's binding of the box).
    pub node: usize,
    /// Where the operand is stored.
    pub base: Src,
    /// Each start's source (a scalar) and integer type.
    pub starts: Vec<(Src, ElementType)>,
    /// The base's storage strides.
    pub strides: Vec<i64>,
    /// `dims[d] - sizes[d]`: the largest start.
    pub max: Vec<i64>,
}

impl Src {
    /// The stored sources this one reads: itself, or a box's base and starts.
    pub fn parts(&self) -> Vec<&Src> {
        match self {
            Src::Param { .. } | Src::Const(_) | Src::Buf(_) => vec![self],
            Src::Dyn(d) => std::iter::once(&d.base)
                .chain(d.starts.iter().map(|(s, _)| s))
                .collect(),
        }
    }
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
        Src::Dyn(d) => d.strides.clone(),
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
        // A token result has no storage: the fn returns `xla_aot::Token`.
        Shape::Token => {}
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
        let new = outermost(&graph, &mat, requests.difference(&mat).copied().collect());
        if new.is_empty() {
            let kernels = multi_output::fold_into_reductions(&graph, &mat, kernels)?;
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

/// The requested values worth storing this round: a value with a single reader node that some
/// other requested value computes inside its own expression waits for the next round, since
/// once the outer value is stored it may be computed in one place only (`t` in
/// `y = Tanh(x·w) + x`, with `y` read by two kernels, is requested only because `y` is
/// computed in both).
fn outermost(g: &Graph, mat: &BTreeSet<Value>, new: BTreeSet<Value>) -> Vec<Value> {
    let mut readers: HashMap<Value, usize> = HashMap::new();
    for node in &g.nodes {
        for &w in &node.inputs {
            *readers.entry(w).or_default() += 1;
        }
    }
    let mut inside: HashSet<Value> = HashSet::new();
    let mut stack: Vec<Value> = new
        .iter()
        .flat_map(|u| g.nodes[u.node].inputs.iter().copied())
        .collect();
    while let Some(w) = stack.pop() {
        if mat.contains(&w) || !inside.insert(w) {
            continue;
        }
        stack.extend(g.nodes[w.node].inputs.iter().copied());
    }
    new.into_iter()
        .filter(|v| !(inside.contains(v) && readers.get(v) == Some(&1)))
        .collect()
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
            | Kind::CumScan { .. } => match b.dense_inputs(&node.inputs) {
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
            | Kind::DynamicSlice { .. }
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

pub(super) fn identity(rank: usize) -> Map {
    (0..rank)
        .map(|r| (0..=rank).map(|c| i64::from(r == c)).collect())
        .collect()
}

pub(super) struct ExprBuilder<'a> {
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
            Kind::BroadcastInDim { .. }
            | Kind::Transpose { .. }
            | Kind::Rev { .. }
            | Kind::Slice { .. }
            | Kind::DynamicSlice { .. }
            | Kind::Pad { .. }
            | Kind::Concat { .. }
            | Kind::Reshape => self.view(v, m),
            Kind::BitcastResize
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
        | Kind::DynamicSlice { .. }
        | Kind::Pad { .. }
        | Kind::Concat { .. }
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
        | Kind::CumScan { .. } => false,
    }
}

/// The materialised values a source reads.
fn buffers_of(src: &Src) -> Vec<Value> {
    src.parts()
        .into_iter()
        .filter_map(|s| match s {
            Src::Buf(v) => Some(*v),
            Src::Param { .. } | Src::Const(_) | Src::Dyn(_) => None,
        })
        .collect()
}

/// Values a kernel reads from buffers (materialised values only, not params/constants).
pub(crate) fn kernel_reads(k: &Kernel) -> Vec<Value> {
    let mut reads: Vec<Value> = k
        .exprs
        .iter()
        .flat_map(|e| match e {
            Expr::Leaf { src, .. } => buffers_of(src),
            Expr::Index { .. } | Expr::Scalar(_) | Expr::Op { .. } | Expr::Guard { .. } => {
                Vec::new()
            }
        })
        .collect();
    match &k.kind {
        KernelKind::Dot { lhs, rhs, .. } => {
            reads.extend(buffers_of(&lhs.src));
            reads.extend(buffers_of(&rhs.src));
        }
        KernelKind::Loop { .. }
        | KernelKind::Reduce { .. }
        | KernelKind::BitcastResize { .. }
        | KernelKind::Call { .. } => {}
    }
    reads.sort();
    reads.dedup();
    reads
}
