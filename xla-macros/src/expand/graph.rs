//! The back end's own flat dataflow graph: one `xla!` fn with every `Call` inlined, tuples
//! resolved (`GetTupleElement(Tuple(..))` is the element itself), unreachable instructions
//! dropped, and tuple-typed parameters split into one array leaf per tuple element.
//!
//! Why a separate graph: fusion wants array values only, with explicit multi-output nodes for
//! the variadic `Reduce`, and it inserts nodes of its own (copies, canonicalising transposes for
//! GEMM operands, conversions to a dot's preferred type) without touching the checked IR.

use xla_core::{ArrayShape, Computation, ElementType, InstrId, Literal, Op, Shape};

mod dead;
mod dot;
mod kind;
mod pad;
mod shapes;
mod strides;

pub(crate) use kind::Kind;
use shapes::{check_static, flat_arrays, to_usize, tree_of};
pub(crate) use strides::{layout_strides, row_major_strides, storage_strides};

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
            Op::CustomCall {
                target,
                has_side_effect,
                ..
            } => {
                let inputs = (0..n_ops)
                    .map(|i| operand(i).map(Tree::leaves))
                    .collect::<Result<Vec<_>, _>>()?
                    .concat();
                let kind = Kind::CustomCall {
                    target: target.clone(),
                    has_side_effect: *has_side_effect,
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
            // The padder (`expand/dynamic.rs`) replaces these in a fn's computation; inside a
            // nested computation they are not replaced.
            Op::GetDimensionSize { .. } | Op::SetDimensionSize { .. } | Op::DynamicReshape => {
                Err(format!(
                    "{} inside a While, Conditional or called computation has no code \
                     generation (use it in the fn's own body)",
                    instr.op.opcode()
                ))
            }
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
}

/// True when the element type is a real float with a `wide` vector type.
pub(crate) fn is_vector_float(t: ElementType) -> bool {
    matches!(t, ElementType::F32 | ElementType::F64)
}
