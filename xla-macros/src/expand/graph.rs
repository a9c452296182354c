//! The back end's own flat dataflow graph: one `xla!` fn with every `Call` inlined, tuples
//! resolved (`GetTupleElement(Tuple(..))` is the element itself), unreachable instructions
//! dropped, and tuple-typed parameters split into one array leaf per tuple element.
//!
//! Why a separate graph: fusion wants array values only, with explicit multi-output nodes for
//! the variadic `Reduce`, and it inserts nodes of its own (copies, canonicalising transposes for
//! GEMM operands, conversions to a dot's preferred type) without touching the checked IR.

use std::collections::HashMap;
use std::sync::Arc;

use xla_core::{
    ArrayShape, Computation, DotDimensionNumbers, ElementType, InstrId, Literal, Op, Shape,
};

/// One array result of a node: `out` is 0 except for the outputs of a variadic `Reduce`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Value {
    pub node: usize,
    pub out: usize,
}

impl Value {
    /// Output 0 of `node`.
    pub fn of(node: usize) -> Self {
        Value { node, out: 0 }
    }
}

/// What a node computes. Elementwise kinds read operands of their own dimensions.
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    /// Array leaf `path` (tuple indices) of fn parameter `index`.
    Param {
        index: usize,
        path: Vec<usize>,
    },
    /// An array constant.
    Constant(Literal),
    /// Values counting along `dimension`.
    Iota {
        dimension: usize,
    },
    Unary(xla_core::UnaryOp),
    Binary(xla_core::BinaryOp),
    Compare {
        direction: xla_core::ComparisonDirection,
        total_order: bool,
    },
    Select,
    Clamp,
    Convert,
    /// Bitcast between types of equal width: elementwise.
    Bitcast,
    ReducePrecision {
        exponent_bits: u32,
        mantissa_bits: u32,
    },
    /// Operand dim `i` is output dim `dims[i]`.
    BroadcastInDim {
        dims: Vec<usize>,
    },
    /// Row-major reinterpretation.
    Reshape,
    /// Output dim `d` is operand dim `perm[d]`.
    Transpose {
        perm: Vec<usize>,
    },
    /// `operand[d] = n[d] - 1 - out[d]` on `dims`.
    Rev {
        dims: Vec<usize>,
    },
    /// `operand[d] = start[d] + strides[d]·out[d]`.
    Slice {
        start: Vec<i64>,
        strides: Vec<i64>,
    },
    /// Edge padding (no interior): `out[d] = operand[d - low[d]]` inside the operand, else the
    /// scalar second input.
    Pad {
        low: Vec<i64>,
    },
    /// The inputs laid end to end along `dim`.
    Concat {
        dim: usize,
    },
    /// Identity; inserted where a value must be written to a second place (outputs).
    Copy,
    /// Variadic sort along `dim`: N inputs, N outputs, permuted together by `comparator`.
    Sort {
        dim: usize,
        stable: bool,
        comparator: Arc<Computation>,
    },
    /// The `k` largest (or smallest) along the last dim: outputs (values, s32 indices).
    TopK {
        k: usize,
        largest: bool,
    },
    /// Cholesky factor of input 0's matrices (`xla_kernels::linalg::cholesky`).
    Cholesky {
        lower: bool,
    },
    /// RaggedDot of inputs (lhs, rhs, group_sizes) in modes 1 and 2, one GEMM per group
    /// (`xla_kernels::gemm::ragged`); any other form is inlined as its expansion.
    RaggedDot(super::calls::ragged::RaggedPlan),
    /// Triangular solve of inputs (a, b) (`xla_kernels::linalg::triangular_solve`).
    TriangularSolve {
        left_side: bool,
        lower: bool,
        unit_diagonal: bool,
        transpose_a: xla_core::ir::TransposeA,
    },
    /// A collective (or ReplicaId/PartitionId) of an SPMD program: a call of
    /// `xla_kernels::collectives` with the fn's `ctx`.
    Collective(xla_core::Collective),
    /// Infeed, Outfeed, Send or Recv through the fn's `ctx`: inputs the data operands'
    /// leaves (Outfeed, Send), outputs the data read (Infeed, Recv), `data_outputs` of them;
    /// a node with none has one `u8[0]` output so that it is a kernel. Never dead.
    HostIo {
        op: xla_core::HostIo,
        data_outputs: usize,
    },
    /// FFT, IFFT, RFFT or IRFFT over the `fft_length.len()` innermost dims of its input.
    Fft {
        fft_type: xla_core::FftType,
        fft_length: Vec<i64>,
    },
    /// Convolution of inputs (lhs, rhs), both already of the result's element type.
    Conv {
        window: xla_core::ConvWindow,
        dn: xla_core::ConvDimensionNumbers,
        feature_group_count: i64,
        batch_group_count: i64,
    },
    /// Loop: inputs are the initial state's leaves, outputs the final state's.
    While {
        condition: Arc<Computation>,
        body: Arc<Computation>,
    },
    /// Input 0 is the selector (pred or s32 scalar); then the leaves of each branch's operand
    /// in turn (`arity[b]` of them); outputs are the result's leaves.
    Conditional {
        branches: Vec<Arc<Computation>>,
        arity: Vec<usize>,
    },
    /// A call of the user's Rust fn `target` on the inputs' views, writing the outputs' views.
    CustomCall {
        target: String,
    },
    /// Gather of input 0 at the start vectors of input 1, starts clamped into the operand.
    Gather {
        dn: xla_core::GatherDimensionNumbers,
        slice_sizes: Vec<i64>,
    },
    /// Scatter: inputs are N operands, the indices, N updates; N outputs.
    Scatter {
        dn: xla_core::ScatterDimensionNumbers,
        computation: Arc<Computation>,
    },
    /// `operand[d] = clamp(start_d, 0, n[d] - sizes[d]) + out[d]`: input 0 the operand, then
    /// one scalar start per operand dim (a view whose offset is read when its kernel starts).
    DynamicSlice {
        sizes: Vec<i64>,
    },
    /// The operand (input 0) with the update (input 1) written at the clamped starts (inputs
    /// 2..): a kernel, in place when the operand dies there.
    DynamicUpdateSlice,
    /// ReduceWindow: inputs are N operands then N scalar inits; N outputs.
    ReduceWindow {
        window: xla_core::Window,
        computation: Arc<Computation>,
    },
    /// SelectAndScatter: inputs operand, source, scalar init; one output of the operand's
    /// shape.
    SelectAndScatter {
        window: xla_core::Window,
        select: Arc<Computation>,
        scatter: Arc<Computation>,
    },
    /// A Scan that is a cumulative `op` (`|x, c| (c op x, c op x)`): inputs x and the init
    /// carry (x without `dim`); outputs y (x's shape) and the final carry.
    CumScan {
        op: xla_core::BinaryOp,
        /// `c op x` rather than `x op c`.
        carry_first: bool,
        dim: usize,
        reverse: bool,
    },
    /// RngBitGenerator: input the state; outputs the new state and the bits.
    RngBitGenerator {
        algorithm: xla_core::RandomAlgorithm,
    },
    /// RngUniform / RngNormal: inputs the two scalar parameters.
    Rng {
        distribution: xla_core::RngDistribution,
        seed: u64,
    },
    /// Bitcast between types of different widths: the minor dim appears or disappears.
    BitcastResize,
    /// Variadic reduce: inputs are N operands then N scalar inits; N outputs.
    Reduce {
        dims: Vec<usize>,
        computation: Arc<Computation>,
    },
    /// DotGeneral in canonical form: operands of the result element type, lhs dims
    /// [batch.., m.., contract..], rhs dims [batch.., contract.., n..], result [batch.., m.., n..].
    Dot {
        batch: usize,
        contract: usize,
    },
}

impl Kind {
    /// Host I/O, or a While or Conditional whose computations hold host I/O or a collective:
    /// the node runs even when nothing reads its results.
    pub fn has_side_effect(&self) -> bool {
        match self {
            Kind::HostIo { .. } => true,
            Kind::While { condition, body } => {
                condition.uses_collectives() || body.uses_collectives()
            }
            Kind::Conditional { branches, .. } => branches.iter().any(|b| b.uses_collectives()),
            _ => false,
        }
    }

    /// True for nodes whose result always lives in a buffer (they are kernels of their own).
    pub fn is_kernel_root(&self) -> bool {
        match self {
            Kind::BitcastResize
            | Kind::Reduce { .. }
            | Kind::Dot { .. }
            | Kind::Sort { .. }
            | Kind::TopK { .. }
            | Kind::Cholesky { .. }
            | Kind::RaggedDot { .. }
            | Kind::TriangularSolve { .. }
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
            | Kind::RngBitGenerator { .. }
            | Kind::Rng { .. }
            | Kind::CumScan { .. } => true,
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
            | Kind::Copy => false,
        }
    }
}

/// A node: kind, input values, one array shape per output.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub kind: Kind,
    pub inputs: Vec<Value>,
    pub shapes: Vec<ArrayShape>,
}

/// A tree of values mirroring a (possibly tuple) shape.
#[derive(Clone, Debug)]
pub(crate) enum Tree {
    Leaf(Value),
    Tuple(Vec<Tree>),
    /// A token: ordering only, no data and no node (generated code passes `xla_aot::Token`).
    Token,
}

impl Tree {
    /// The leaves, left to right.
    pub fn leaves(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<Value>) {
        match self {
            Tree::Leaf(v) => out.push(*v),
            Tree::Tuple(ts) => ts.iter().for_each(|t| t.collect(out)),
            Tree::Token => {}
        }
    }
}

/// The flat graph of one fn: nodes in definition order (inputs first) and the result tree.
#[derive(Clone, Debug)]
pub(crate) struct Graph {
    pub nodes: Vec<Node>,
    pub result: Tree,
}

impl Graph {
    /// The shape of a value.
    pub fn shape(&self, v: Value) -> &ArrayShape {
        &self.nodes[v.node].shapes[v.out]
    }

    /// Append a node; returns its output 0.
    pub fn push(&mut self, kind: Kind, inputs: Vec<Value>, shapes: Vec<ArrayShape>) -> Value {
        self.nodes.push(Node {
            kind,
            inputs,
            shapes,
        });
        Value::of(self.nodes.len() - 1)
    }

    /// Flatten `c` (the fn's computation) with every call inlined. `Err` names what codegen
    /// cannot handle (dynamic dims, tokens).
    pub fn from_computation(c: &Computation) -> Result<Graph, String> {
        let mut g = Graph {
            nodes: Vec::new(),
            result: Tree::Tuple(Vec::new()),
        };
        let mut args = Vec::with_capacity(c.params.len());
        for (index, shape) in c.params.iter().enumerate() {
            args.push(g.param_tree(index, shape, &mut Vec::new())?);
        }
        g.result = g.inline(c, &args)?;
        Ok(g.without_dead_nodes())
    }

    fn param_tree(
        &mut self,
        index: usize,
        shape: &Shape,
        path: &mut Vec<usize>,
    ) -> Result<Tree, String> {
        match shape {
            Shape::Array(a) => {
                check_static(a, "parameter")?;
                let kind = Kind::Param {
                    index,
                    path: path.clone(),
                };
                Ok(Tree::Leaf(self.push(kind, Vec::new(), vec![a.clone()])))
            }
            Shape::Tuple(elems) => {
                let mut out = Vec::with_capacity(elems.len());
                for (i, e) in elems.iter().enumerate() {
                    path.push(i);
                    out.push(self.param_tree(index, e, path)?);
                    path.pop();
                }
                Ok(Tree::Tuple(out))
            }
            Shape::Token => Ok(Tree::Token),
        }
    }

    /// Inline computation `c` applied to `args`; returns its result tree.
    fn inline(&mut self, c: &Computation, args: &[Tree]) -> Result<Tree, String> {
        let mut env: Vec<Tree> = Vec::with_capacity(c.instrs.len());
        for instr in &c.instrs {
            let tree = self.lower(c, instr, &env, args)?;
            env.push(tree);
        }
        env.get(c.root.0 as usize)
            .cloned()
            .ok_or_else(|| format!("{}: root out of range", c.name))
    }

    fn lower(
        &mut self,
        c: &Computation,
        instr: &xla_core::Instruction,
        env: &[Tree],
        args: &[Tree],
    ) -> Result<Tree, String> {
        let opname = instr.op.opcode();
        let operand = |i: usize| -> Result<&Tree, String> {
            let id: InstrId = *instr
                .operands
                .get(i)
                .ok_or_else(|| format!("{opname}: missing operand {i}"))?;
            env.get(id.0 as usize)
                .ok_or_else(|| format!("{opname}: operand defined after use"))
        };
        let leaf = |i: usize| -> Result<Value, String> {
            match operand(i)? {
                Tree::Leaf(v) => Ok(*v),
                Tree::Tuple(_) | Tree::Token => Err(format!(
                    "{opname}: tuple or token operand where an array is required"
                )),
            }
        };
        let array = |s: &Shape| -> Result<ArrayShape, String> {
            match s {
                Shape::Array(a) => {
                    check_static(a, opname)?;
                    Ok(a.clone())
                }
                Shape::Tuple(_) | Shape::Token => {
                    Err(format!("{opname}: expected an array result, got {s}"))
                }
            }
        };
        let leaves = |n: usize| -> Result<Vec<Value>, String> { (0..n).map(leaf).collect() };
        // Every operand as a tree (the arguments of an inlined computation).
        let trees = || -> Result<Vec<Tree>, String> {
            (0..instr.operands.len())
                .map(|i| operand(i).cloned())
                .collect()
        };
        // The operands' IR shapes, which an op defined by an expansion is expanded from.
        let operand_shapes = || -> Vec<&Shape> {
            instr
                .operands
                .iter()
                .map(|&id| &c.instr(id).shape)
                .collect()
        };
        let n_ops = instr.operands.len();
        let simple = |g: &mut Graph, kind: Kind| -> Result<Tree, String> {
            let shape = array(&instr.shape)?;
            let inputs = leaves(n_ops)?;
            Ok(Tree::Leaf(g.push(kind, inputs, vec![shape])))
        };
        match &instr.op {
            Op::Parameter { index, .. } => args
                .get(*index)
                .cloned()
                .ok_or_else(|| format!("{}: parameter {index} has no argument", c.name)),
            Op::Constant(lit) => match lit {
                Literal::Array { .. } => simple(self, Kind::Constant(lit.clone())),
                Literal::Tuple(_) | Literal::Token => Ok(self.constant_tree(lit)?),
            },
            Op::Iota { dimension } => simple(
                self,
                Kind::Iota {
                    dimension: *dimension,
                },
            ),
            Op::Unary(u) => simple(self, Kind::Unary(*u)),
            Op::Binary(b) => simple(self, Kind::Binary(*b)),
            Op::Compare {
                direction,
                total_order,
            } => simple(
                self,
                Kind::Compare {
                    direction: *direction,
                    total_order: *total_order,
                },
            ),
            Op::Select => simple(self, Kind::Select),
            Op::Clamp => simple(self, Kind::Clamp),
            Op::ConvertElementType => simple(self, Kind::Convert),
            Op::BitcastConvertType => {
                let out = array(&instr.shape)?;
                let input = leaf(0)?;
                if self.shape(input).ty.bit_width() == out.ty.bit_width() {
                    simple(self, Kind::Bitcast)
                } else {
                    simple(self, Kind::BitcastResize)
                }
            }
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => simple(
                self,
                Kind::ReducePrecision {
                    exponent_bits: *exponent_bits,
                    mantissa_bits: *mantissa_bits,
                },
            ),
            Op::BroadcastInDim {
                broadcast_dimensions,
            } => {
                let dims = to_usize(broadcast_dimensions, opname)?;
                simple(self, Kind::BroadcastInDim { dims })
            }
            Op::Reshape => simple(self, Kind::Reshape),
            Op::Transpose { permutation } => {
                let perm = to_usize(permutation, opname)?;
                simple(self, Kind::Transpose { perm })
            }
            Op::Reduce {
                dimensions,
                computation,
            } => {
                let dims = to_usize(dimensions, opname)?;
                let inputs = leaves(n_ops)?;
                let shapes = match &instr.shape {
                    Shape::Array(a) => vec![array(&Shape::Array(a.clone()))?],
                    Shape::Tuple(elems) => elems.iter().map(&array).collect::<Result<_, _>>()?,
                    Shape::Token => return Err(format!("{opname}: token result")),
                };
                let n = shapes.len();
                let tuple = matches!(instr.shape, Shape::Tuple(_));
                let v = self.push(
                    Kind::Reduce {
                        dims,
                        computation: computation.clone(),
                    },
                    inputs,
                    shapes,
                );
                if tuple {
                    Ok(Tree::Tuple(
                        (0..n)
                            .map(|out| Tree::Leaf(Value { node: v.node, out }))
                            .collect(),
                    ))
                } else {
                    Ok(Tree::Leaf(v))
                }
            }
            Op::DotGeneral {
                dimension_numbers, ..
            } => {
                let shape = array(&instr.shape)?;
                let (lhs, rhs) = (leaf(0)?, leaf(1)?);
                Ok(Tree::Leaf(self.lower_dot(
                    dimension_numbers,
                    lhs,
                    rhs,
                    shape,
                )?))
            }
            // Generated code runs its kernels in program order, so every operand is computed
            // before any reader of the barrier; the values pass through unchanged.
            Op::OptimizationBarrier => match n_ops {
                1 => operand(0).cloned(),
                _ => Ok(Tree::Tuple(trees()?)),
            },
            Op::AfterAll => Ok(Tree::Token),
            Op::CustomCall { target, .. } => {
                let inputs = (0..n_ops)
                    .map(|i| operand(i).map(Tree::leaves))
                    .collect::<Result<Vec<_>, _>>()?
                    .concat();
                let kind = Kind::CustomCall {
                    target: target.clone(),
                };
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::Tuple => Ok(Tree::Tuple(
                (0..n_ops)
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?,
            )),
            Op::GetTupleElement { index } => match operand(0)? {
                Tree::Tuple(elems) => elems
                    .get(*index)
                    .cloned()
                    .ok_or_else(|| format!("{opname}: index {index} out of range")),
                Tree::Leaf(_) | Tree::Token => Err(format!("{opname}: operand is not a tuple")),
            },
            Op::Rev { dimensions } => {
                let dims = to_usize(dimensions, opname)?;
                simple(self, Kind::Rev { dims })
            }
            Op::Slice {
                start_indices,
                strides,
                ..
            } => simple(
                self,
                Kind::Slice {
                    start: start_indices.clone(),
                    strides: strides.clone(),
                },
            ),
            Op::Pad { config } => {
                let low = config.iter().map(|p| p.low).collect();
                if config.iter().all(|p| p.interior == 0) {
                    return simple(self, Kind::Pad { low });
                }
                let shape = array(&instr.shape)?;
                let (x, value) = (leaf(0)?, leaf(1)?);
                let spread = self.interior_pad(x, value, config)?;
                Ok(Tree::Leaf(self.push(
                    Kind::Pad { low },
                    vec![spread, value],
                    vec![shape],
                )))
            }
            Op::Concatenate { dimension } => {
                let dim = usize::try_from(*dimension)
                    .map_err(|_| format!("{opname}: dimension {dimension}"))?;
                simple(self, Kind::Concat { dim })
            }
            Op::Sort {
                dimension,
                is_stable,
                comparator,
            } => {
                let dim = usize::try_from(*dimension)
                    .map_err(|_| format!("{opname}: dimension {dimension}"))?;
                let kind = Kind::Sort {
                    dim,
                    stable: *is_stable,
                    comparator: comparator.clone(),
                };
                let inputs = leaves(n_ops)?;
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::RngBitGenerator { algorithm } => {
                let kind = Kind::RngBitGenerator {
                    algorithm: *algorithm,
                };
                let inputs = leaves(1)?;
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::Rng { distribution, seed } => simple(
                self,
                Kind::Rng {
                    distribution: *distribution,
                    seed: *seed,
                },
            ),
            Op::TopK { k, largest } => {
                let k = usize::try_from(*k).map_err(|_| format!("{opname}: k = {k}"))?;
                let kind = Kind::TopK {
                    k,
                    largest: *largest,
                };
                let inputs = leaves(1)?;
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::Collective(c) => {
                let inputs = leaves(n_ops)?;
                self.multi(Kind::Collective(c.clone()), inputs, &instr.shape, opname)
            }
            // Tokens have no node: the data leaves go in and come out; kernels run in node
            // order, which is the IR's, so the effects keep the order the tokens give them.
            Op::HostIo(h) => {
                let inputs = (0..n_ops)
                    .map(|i| operand(i).map(Tree::leaves))
                    .collect::<Result<Vec<_>, _>>()?
                    .concat();
                let mut shapes = Vec::new();
                flat_arrays(&instr.shape, &mut shapes, opname)?;
                let data_outputs = shapes.len();
                if shapes.is_empty() {
                    shapes.push(ArrayShape::new(ElementType::U8, &[0]));
                }
                let kind = Kind::HostIo {
                    op: h.clone(),
                    data_outputs,
                };
                let v = self.push(kind, inputs, shapes);
                let mut next = 0;
                Ok(tree_of(&instr.shape, v.node, &mut next))
            }
            Op::Fft {
                fft_type,
                fft_length,
            } => {
                let kind = Kind::Fft {
                    fft_type: *fft_type,
                    fft_length: fft_length.clone(),
                };
                let inputs = leaves(1)?;
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::Convolution {
                window,
                dimension_numbers,
                feature_group_count,
                batch_group_count,
                ..
            } => {
                let shape = array(&instr.shape)?;
                let compute = xla_core::infer::dot_compute_type(self.shape(leaf(0)?).ty, shape.ty);
                let mut inputs = Vec::with_capacity(2);
                for i in 0..2 {
                    let mut v = leaf(i)?;
                    let s = self.shape(v).clone();
                    if s.ty != compute {
                        v = self.push(Kind::Convert, vec![v], vec![s.with_type(compute)]);
                    }
                    inputs.push(v);
                }
                let kind = Kind::Conv {
                    window: window.clone(),
                    dn: dimension_numbers.clone(),
                    feature_group_count: *feature_group_count,
                    batch_group_count: *batch_group_count,
                };
                let v = self.push(kind, inputs, vec![shape.with_type(compute)]);
                if compute == shape.ty {
                    Ok(Tree::Leaf(v))
                } else {
                    Ok(Tree::Leaf(self.push(Kind::Convert, vec![v], vec![shape])))
                }
            }
            Op::While { condition, body } => {
                let inputs = operand(0)?.leaves();
                let kind = Kind::While {
                    condition: condition.clone(),
                    body: body.clone(),
                };
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::Conditional { branches } => {
                let mut inputs = operand(0)?.leaves();
                let mut arity = Vec::with_capacity(branches.len());
                for b in 0..branches.len() {
                    let l = operand(b + 1)?.leaves();
                    arity.push(l.len());
                    inputs.extend(l);
                }
                let kind = Kind::Conditional {
                    branches: branches.clone(),
                    arity,
                };
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::Cholesky { lower } => simple(self, Kind::Cholesky { lower: *lower }),
            Op::TriangularSolve {
                left_side,
                lower,
                unit_diagonal,
                transpose_a,
            } => simple(
                self,
                Kind::TriangularSolve {
                    left_side: *left_side,
                    lower: *lower,
                    unit_diagonal: *unit_diagonal,
                    transpose_a: *transpose_a,
                },
            ),
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                ..
            } => simple(
                self,
                Kind::Gather {
                    dn: dimension_numbers.clone(),
                    slice_sizes: slice_sizes.clone(),
                },
            ),
            Op::Scatter {
                dimension_numbers,
                update_computation,
                ..
            } => {
                let kind = Kind::Scatter {
                    dn: dimension_numbers.clone(),
                    computation: update_computation.clone(),
                };
                let inputs = leaves(n_ops)?;
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::ReduceWindow {
                window,
                computation,
            } => {
                let kind = Kind::ReduceWindow {
                    window: window.clone(),
                    computation: computation.clone(),
                };
                let inputs = leaves(n_ops)?;
                self.multi(kind, inputs, &instr.shape, opname)
            }
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            } => simple(
                self,
                Kind::SelectAndScatter {
                    window: window.clone(),
                    select: select.clone(),
                    scatter: scatter.clone(),
                },
            ),
            // A cumulative sum/max/min runs as one kernel; any other to_apply as the While
            // of `expand_scan` (one DynamicUpdateSlice in place per step).
            Op::Scan {
                scan_dimension,
                is_reverse,
                num_carries,
                to_apply,
                ..
            } => match super::calls::scan::cumulative_op(
                to_apply,
                instr.operands.len(),
                *num_carries,
            ) {
                Some((op, carry_first)) => {
                    let kind = Kind::CumScan {
                        op,
                        carry_first,
                        dim: *scan_dimension as usize,
                        reverse: *is_reverse,
                    };
                    let inputs = leaves(n_ops)?;
                    self.multi(kind, inputs, &instr.shape, opname)
                }
                None => {
                    let shapes: Vec<&Shape> = instr
                        .operands
                        .iter()
                        .map(|&id| &c.instr(id).shape)
                        .collect();
                    let expansion = xla_core::builder::expand_scan(
                        to_apply,
                        *scan_dimension,
                        *is_reverse,
                        *num_carries,
                        &shapes,
                    )
                    .map_err(|e| e.to_string())?;
                    self.inline(&expansion, &trees()?)
                }
            },
            Op::DynamicSlice { slice_sizes } => simple(
                self,
                Kind::DynamicSlice {
                    sizes: slice_sizes.clone(),
                },
            ),
            Op::DynamicUpdateSlice => simple(self, Kind::DynamicUpdateSlice),
            // A CompositeCall runs its decomposition.
            Op::Call { computation, .. } => self.inline(computation, &trees()?),
            // The computation lifted to arrays, inlined: it fuses like any elementwise chain.
            Op::Map { computation, .. } => {
                let dims = array(&instr.shape)?.dims;
                let lifted = super::inline::lift_to_arrays(computation, &dims)?;
                self.inline(&lifted, &trees()?)
            }
            // One GEMM per group (modes 1 and 2 of plain layouts), else the expansion (masks
            // and one DotGeneral; mode 3 a DotGeneral), fused like any others.
            Op::RaggedDot {
                dimension_numbers,
                preferred_element_type,
            } => {
                let shapes = operand_shapes();
                let pet = *preferred_element_type;
                match super::calls::ragged::plan(&shapes, dimension_numbers, pet, &instr.shape) {
                    Some(p) => simple(self, Kind::RaggedDot(p)),
                    None => {
                        let expansion =
                            xla_core::builder::expand_ragged_dot(&shapes, dimension_numbers, pet)
                                .map_err(|e| e.to_string())?;
                        self.inline(&expansion, &trees()?)
                    }
                }
            }
            // Scales spread over blocks and multiplied in, then one DotGeneral.
            Op::ScaledDot {
                dimension_numbers,
                preferred_element_type,
            } => {
                let shapes = operand_shapes();
                let expansion = xla_core::builder::expand_scaled_dot(
                    &shapes,
                    dimension_numbers,
                    *preferred_element_type,
                )
                .map_err(|e| e.to_string())?;
                self.inline(&expansion, &trees()?)
            }
            // XLA's BatchNormExpander's reductions and elementwise ops, fused like any others.
            Op::BatchNorm {
                kind,
                feature_index,
                epsilon,
            } => {
                let shapes = operand_shapes();
                let expansion =
                    xla_core::builder::expand_batch_norm(*kind, *feature_index, *epsilon, &shapes)
                        .map_err(|e| e.to_string())?;
                self.inline(&expansion, &trees()?)
            }
        }
    }

    /// Interior padding as views: `x[n]` becomes `[n, 1]`, edge-padded to `[n, s]` (`s` =
    /// interior + 1, the value at `[j, 0]`), then `[n·s]` with the last `s - 1` padding
    /// elements cut: element `j` lands at `j·s`. The caller edge-pads the result. The `[n, s]`
    /// to `[n·s]` reshape has carries, so fusion stores the `[n, s]` array once (the only
    /// buffer) and reads it row-major.
    fn interior_pad(
        &mut self,
        x: Value,
        value: Value,
        config: &[xla_core::PadDim],
    ) -> Result<Value, String> {
        let xs = self.shape(x).clone();
        let mut split = Vec::new();
        let mut wide = Vec::new();
        let mut merged = Vec::new();
        for (p, &n) in config.iter().zip(&xs.dims) {
            let s = p.interior + 1;
            split.extend([n, 1]);
            wide.extend([n, s]);
            merged.push((n * s - p.interior).max(0));
        }
        let v = self.push(Kind::Reshape, vec![x], vec![ArrayShape::new(xs.ty, &split)]);
        let v = self.push(
            Kind::Pad {
                low: vec![0; wide.len()],
            },
            vec![v, value],
            vec![ArrayShape::new(xs.ty, &wide)],
        );
        let full: Vec<i64> = config
            .iter()
            .zip(&xs.dims)
            .map(|(p, &n)| n * (p.interior + 1))
            .collect();
        let v = self.push(Kind::Reshape, vec![v], vec![ArrayShape::new(xs.ty, &full)]);
        if full == merged {
            return Ok(v);
        }
        let start = vec![0; full.len()];
        let strides = vec![1; full.len()];
        Ok(self.push(
            Kind::Slice { start, strides },
            vec![v],
            vec![ArrayShape::new(xs.ty, &merged)],
        ))
    }

    /// A node with one output per array leaf of `shape`, and the tree of its outputs.
    fn multi(
        &mut self,
        kind: Kind,
        inputs: Vec<Value>,
        shape: &Shape,
        opname: &str,
    ) -> Result<Tree, String> {
        let mut shapes = Vec::new();
        flat_arrays(shape, &mut shapes, opname)?;
        let v = self.push(kind, inputs, shapes);
        let mut next = 0;
        Ok(tree_of(shape, v.node, &mut next))
    }

    /// DotGeneral in canonical form: operands converted to the compute type
    /// (`xla_core::infer::dot_compute_type`, the more precise of operand and result types; GEMM
    /// runs in it, as XLA does for preferred_element_type), lhs transposed to [batch, free,
    /// contracting] and rhs to [batch, contracting, free], the product converted to the result
    /// type when that is less precise. The transposes are views: fusion folds them into GEMM
    /// strides and copies only when strides cannot express them.
    fn lower_dot(
        &mut self,
        dn: &DotDimensionNumbers,
        lhs: Value,
        rhs: Value,
        shape: ArrayShape,
    ) -> Result<Value, String> {
        let lb = to_usize(&dn.lhs_batch_dimensions, "dot")?;
        let lc = to_usize(&dn.lhs_contracting_dimensions, "dot")?;
        let rb = to_usize(&dn.rhs_batch_dimensions, "dot")?;
        let rc = to_usize(&dn.rhs_contracting_dimensions, "dot")?;
        let lrank = self.shape(lhs).rank();
        let rrank = self.shape(rhs).rank();
        let lfree: Vec<usize> = (0..lrank)
            .filter(|d| !lb.contains(d) && !lc.contains(d))
            .collect();
        let rfree: Vec<usize> = (0..rrank)
            .filter(|d| !rb.contains(d) && !rc.contains(d))
            .collect();
        let lperm: Vec<usize> = lb.iter().chain(&lfree).chain(&lc).copied().collect();
        let rperm: Vec<usize> = rb.iter().chain(&rc).chain(&rfree).copied().collect();
        let compute = xla_core::infer::dot_compute_type(self.shape(lhs).ty, shape.ty);
        // s8 x s8 -> s32 keeps its s8 operands: the library's s8 GEMM multiplies bytes
        // (`gemm_s8_s32`, VNNI where the CPU has it) with the same wrapped sums.
        let s8_s32 = self.shape(lhs).ty == ElementType::S8
            && self.shape(rhs).ty == ElementType::S8
            && shape.ty == ElementType::S32;
        let operand_ty = if s8_s32 { ElementType::S8 } else { compute };
        let mut inputs = Vec::with_capacity(2);
        for (v, perm) in [(lhs, lperm), (rhs, rperm)] {
            let mut v = v;
            let s = self.shape(v).clone();
            if s.ty != operand_ty {
                v = self.push(Kind::Convert, vec![v], vec![s.with_type(operand_ty)]);
            }
            if perm.iter().enumerate().any(|(i, &p)| i != p) {
                let dims: Vec<i64> = perm.iter().map(|&p| s.dims[p]).collect();
                let t = ArrayShape::new(operand_ty, &dims);
                v = self.push(Kind::Transpose { perm }, vec![v], vec![t]);
            }
            inputs.push(v);
        }
        let kind = Kind::Dot {
            batch: lb.len(),
            contract: lc.len(),
        };
        let product = self.push(kind, inputs, vec![shape.with_type(compute)]);
        if compute == shape.ty {
            Ok(product)
        } else {
            Ok(self.push(Kind::Convert, vec![product], vec![shape]))
        }
    }

    /// A tuple constant becomes a tree of array constants.
    fn constant_tree(&mut self, lit: &Literal) -> Result<Tree, String> {
        match lit {
            Literal::Array { shape, .. } => {
                check_static(shape, "constant")?;
                Ok(Tree::Leaf(self.push(
                    Kind::Constant(lit.clone()),
                    Vec::new(),
                    vec![shape.clone()],
                )))
            }
            Literal::Tuple(elems) => Ok(Tree::Tuple(
                elems
                    .iter()
                    .map(|e| self.constant_tree(e))
                    .collect::<Result<_, _>>()?,
            )),
            Literal::Token => Ok(Tree::Token),
        }
    }

    /// Keep only nodes the result depends on (and renumber them, keeping their order).
    fn without_dead_nodes(self) -> Graph {
        let mut live = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = self.result.leaves().iter().map(|v| v.node).collect();
        // Side effects run whether or not their results are read: host I/O, and loops and
        // branches holding host I/O or collectives (peers wait for those).
        stack.extend(
            self.nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.kind.has_side_effect())
                .map(|(i, _)| i),
        );
        while let Some(n) = stack.pop() {
            if !live[n] {
                live[n] = true;
                stack.extend(self.nodes[n].inputs.iter().map(|v| v.node));
            }
        }
        let mut remap = HashMap::new();
        let mut nodes = Vec::new();
        for (i, node) in self.nodes.into_iter().enumerate() {
            if live[i] {
                remap.insert(i, nodes.len());
                nodes.push(node);
            }
        }
        let fix = |v: &Value| Value {
            node: remap[&v.node],
            out: v.out,
        };
        for node in &mut nodes {
            node.inputs = node.inputs.iter().map(fix).collect();
        }
        Graph {
            nodes,
            result: remap_tree(&self.result, &fix),
        }
    }
}

fn remap_tree(t: &Tree, f: &impl Fn(&Value) -> Value) -> Tree {
    match t {
        Tree::Leaf(v) => Tree::Leaf(f(v)),
        Tree::Tuple(ts) => Tree::Tuple(ts.iter().map(|t| remap_tree(t, f)).collect()),
        Tree::Token => Tree::Token,
    }
}

fn check_static(a: &ArrayShape, what: &str) -> Result<(), String> {
    if a.is_dynamic() {
        return Err(format!(
            "{what}: dynamic dimensions ({a}) have no code generation yet"
        ));
    }
    if a.dims.iter().any(|&d| d < 0) {
        return Err(format!("{what}: negative dimension in {a}"));
    }
    if let Some(l) = &a.layout {
        if l.padded_dimensions.is_some() {
            return Err(format!(
                "{what}: padded layouts ({a}) have no code generation"
            ));
        }
    }
    Ok(())
}

/// The array leaves of `s`, static dims only.
fn flat_arrays(s: &Shape, out: &mut Vec<ArrayShape>, opname: &str) -> Result<(), String> {
    match s {
        Shape::Array(a) => {
            check_static(a, opname)?;
            out.push(a.clone());
            Ok(())
        }
        Shape::Tuple(ts) => ts.iter().try_for_each(|t| flat_arrays(t, out, opname)),
        // A token has no data: no output of its own (see `tree_of`).
        Shape::Token => Ok(()),
    }
}

/// The outputs of `node` as a tree mirroring `s` (leaves numbered from `next`).
fn tree_of(s: &Shape, node: usize, next: &mut usize) -> Tree {
    match s {
        Shape::Tuple(ts) => Tree::Tuple(ts.iter().map(|t| tree_of(t, node, next)).collect()),
        Shape::Token => Tree::Token,
        Shape::Array(_) => {
            let v = Value { node, out: *next };
            *next += 1;
            Tree::Leaf(v)
        }
    }
}

fn to_usize(v: &[i64], what: &str) -> Result<Vec<usize>, String> {
    v.iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("{what}: negative dimension number {d}")))
        .collect()
}

/// Row-major element strides of `dims`.
pub(crate) fn row_major_strides(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1].max(1);
    }
    s
}

/// Element strides of an array stored with its layout (row-major when none).
pub(crate) fn layout_strides(a: &ArrayShape) -> Vec<i64> {
    // xla-core owns layouts; shapes reaching the back end were validated by the builder.
    xla_core::index::strides(a).unwrap_or_else(|_| row_major_strides(&a.dims))
}

/// True when the element type is a real float with a `wide` vector type.
pub(crate) fn is_vector_float(t: ElementType) -> bool {
    matches!(t, ElementType::F32 | ElementType::F64)
}

/// Element strides of a materialised value's storage: its layout for outputs, row-major for
/// scratch. A parameter materialised into scratch (a view its own layout cannot express) is a
/// row-major copy, whatever the parameter's layout.
pub(crate) fn storage_strides(g: &Graph, v: Value) -> Vec<i64> {
    let shape = g.shape(v);
    if matches!(g.nodes[v.node].kind, Kind::Param { .. }) {
        row_major_strides(&shape.dims)
    } else {
        layout_strides(shape)
    }
}
