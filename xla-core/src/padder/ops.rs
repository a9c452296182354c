//! The padder's rule per op: how each op runs on padded arrays and where its result's sizes
//! come from (XLA's DynamicDimensionInference and DynamicPadder, for the ops we support).

use crate::builder::XlaOp;
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::ir::{
    BinaryOp, ComparisonDirection, Computation, GatherDimensionNumbers, Instruction, Op, PadDim,
};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

use super::{bound_shape, shape_dynamic, Padder, Sizes};

/// How an op treats dynamic dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Computes on the padding too; result dimension `d` has the size of operand dimension `d`.
    Elementwise,
    /// BroadcastInDim: operand dimension `i` carries its size to `broadcast_dimensions[i]`.
    Broadcast,
    /// Transpose: sizes permuted.
    Transpose,
    /// Reduce: padding replaced by the init first.
    Reduce,
    /// DotGeneral: contracted padding replaced by zero first.
    Dot,
    /// Slice, Pad, ConcatInDim, Rev: the valid region moved where XLA puts it.
    Slice,
    Pad,
    Concat,
    Rev,
    /// Tuple, GetTupleElement, OptimizationBarrier: sizes travel with the values.
    Tuple,
    GetTupleElement,
    Barrier,
    /// The three ops of dynamic dimensions.
    GetDimensionSize,
    SetDimensionSize,
    DynamicReshape,
    /// Static operands and result only.
    StaticOnly,
}

/// The rule of `op` (exhaustive: a new op must say how it meets dynamic dimensions).
pub(crate) fn rule(op: &Op) -> Rule {
    match op {
        Op::Unary(_)
        | Op::Binary(_)
        | Op::Compare { .. }
        | Op::Select
        | Op::Clamp
        | Op::ConvertElementType
        | Op::BitcastConvertType
        | Op::ReducePrecision { .. }
        | Op::Map { .. } => Rule::Elementwise,
        Op::BroadcastInDim { .. } => Rule::Broadcast,
        Op::Transpose { .. } => Rule::Transpose,
        Op::Reduce { .. } => Rule::Reduce,
        Op::DotGeneral { .. } => Rule::Dot,
        Op::Slice { .. } => Rule::Slice,
        Op::Pad { .. } => Rule::Pad,
        Op::Concatenate { .. } => Rule::Concat,
        Op::Rev { .. } => Rule::Rev,
        Op::Tuple => Rule::Tuple,
        Op::GetTupleElement { .. } => Rule::GetTupleElement,
        Op::OptimizationBarrier => Rule::Barrier,
        Op::GetDimensionSize { .. } => Rule::GetDimensionSize,
        Op::SetDimensionSize { .. } => Rule::SetDimensionSize,
        Op::DynamicReshape => Rule::DynamicReshape,
        Op::Collective(_)
        | Op::Parameter { .. }
        | Op::Constant(_)
        | Op::Iota { .. }
        | Op::Reshape
        | Op::ReduceWindow { .. }
        | Op::SelectAndScatter { .. }
        | Op::Scan { .. }
        | Op::Sort { .. }
        | Op::TopK { .. }
        | Op::Cholesky { .. }
        | Op::TriangularSolve { .. }
        | Op::Fft { .. }
        | Op::Convolution { .. }
        | Op::While { .. }
        | Op::Conditional { .. }
        | Op::Gather { .. }
        | Op::Scatter { .. }
        | Op::BatchNorm { .. }
        | Op::DynamicSlice { .. }
        | Op::DynamicUpdateSlice
        | Op::RaggedDot { .. }
        | Op::ScaledDot { .. }
        | Op::AfterAll
        | Op::CustomCall { .. }
        | Op::RngBitGenerator { .. }
        | Op::Rng { .. }
        | Op::HostIo(_)
        | Op::Call { .. } => Rule::StaticOnly,
    }
}

/// `Err` when `ins` (of op `name`, operands of shapes `operands`) meets dynamic dimensions
/// the padder cannot run: an op that takes static arrays only, or a nested computation with
/// dynamic dimensions inside. The builder's callers (the registry) call it per op, so `xla!`
/// reports it at the op.
pub fn check_supported(name: &str, ins: &Instruction, operands: &[&Shape]) -> Result<()> {
    let comps = ins.op.computations();
    if let Some(k) = comps.iter().position(|c| super::is_dynamic(c)) {
        let blame = if comps.len() > 1 {
            Blame::ComputationAt(k)
        } else {
            Blame::Computation
        };
        return Err(Error::new(
            name,
            "dynamic dimensions inside its computation are not supported (only the outer \
             computation may have `<=N` dimensions)",
        )
        .blame(blame));
    }
    if rule(&ins.op) != Rule::StaticOnly {
        return Ok(());
    }
    if let Some((i, s)) = operands.iter().enumerate().find(|(_, s)| shape_dynamic(s)) {
        return Err(Error::new(
            name,
            format!("does not take dynamic dimensions yet: operand {i} is {s}"),
        )
        .blame(Blame::Operand(i))
        .help("make the dimension static first: pad it to its bound and carry the size yourself"));
    }
    if shape_dynamic(&ins.shape) {
        return Err(Error::new(
            name,
            format!("cannot produce the dynamic shape {}", ins.shape),
        ));
    }
    Ok(())
}

impl Padder {
    /// Appends the padded form of `ins` (not a parameter); its value and sizes.
    pub(super) fn instruction(
        &mut self,
        c: &Computation,
        ins: &Instruction,
    ) -> Result<(XlaOp, Sizes)> {
        let (v, s) = self.rewrite(c, ins)?;
        Ok((v, normalise(s, &ins.shape, self)))
    }

    fn rewrite(&mut self, c: &Computation, ins: &Instruction) -> Result<(XlaOp, Sizes)> {
        let ops: Vec<XlaOp> = ins.operands.iter().map(|o| self.values[o].0).collect();
        let sizes: Vec<Sizes> = ins
            .operands
            .iter()
            .map(|o| self.values[o].1.clone())
            .collect();
        let r = rule(&ins.op);
        // The three ops of dynamic dimensions are rewritten even on static shapes (a constant
        // size, a Gather): left in place, the padded program would need padding again.
        let dynamic = sizes.iter().any(Sizes::any)
            || shape_dynamic(&ins.shape)
            || matches!(
                r,
                Rule::GetDimensionSize | Rule::SetDimensionSize | Rule::DynamicReshape
            );
        if !dynamic || r == Rule::StaticOnly {
            if dynamic {
                let shapes: Vec<&Shape> = ins.operands.iter().map(|&o| &c.instr(o).shape).collect();
                check_supported(ins.op.opcode(), ins, &shapes)?;
            }
            let v = self.b.append(ins.op.clone(), &ops, ins.shape.clone())?;
            return Ok((v, Sizes::static_of(&ins.shape)));
        }
        let out = match &ins.shape {
            Shape::Array(a) => a.clone(),
            _ => ArrayShape::scalar(ElementType::Pred),
        };
        match r {
            Rule::Elementwise => {
                let v = self
                    .b
                    .append(ins.op.clone(), &ops, bound_shape(&ins.shape))?;
                let mut d = vec![None; out.rank()];
                for (k, slot) in d.iter_mut().enumerate() {
                    if out.dynamic[k] {
                        *slot = sizes
                            .iter()
                            .find_map(|s| s.dims().get(k).copied().flatten());
                    }
                }
                Ok((v, Sizes::Array(d)))
            }
            Rule::Broadcast => {
                let Op::BroadcastInDim {
                    broadcast_dimensions,
                } = &ins.op
                else {
                    unreachable!("rule(BroadcastInDim)")
                };
                let v = self
                    .b
                    .append(ins.op.clone(), &ops, bound_shape(&ins.shape))?;
                let mut d = vec![None; out.rank()];
                for (i, &o) in broadcast_dimensions.iter().enumerate() {
                    if out.dynamic[o as usize] {
                        d[o as usize] = sizes[0].dims()[i];
                    }
                }
                Ok((v, Sizes::Array(d)))
            }
            Rule::Transpose => {
                let Op::Transpose { permutation } = &ins.op else {
                    unreachable!("rule(Transpose)")
                };
                let v = self
                    .b
                    .append(ins.op.clone(), &ops, bound_shape(&ins.shape))?;
                let d = permutation
                    .iter()
                    .map(|&p| sizes[0].dims()[p as usize])
                    .collect();
                Ok((v, Sizes::Array(d)))
            }
            Rule::Reduce => self.reduce(ins, &ops, &sizes),
            Rule::Dot => self.dot(ins, &ops, &sizes),
            Rule::Slice => self.slice(ins, ops[0], &sizes[0], &out),
            Rule::Pad => self.pad_op(ins, &ops, &sizes[0], &out),
            Rule::Concat => self.concat(ins, &ops, &sizes, &out),
            Rule::Rev => self.rev(ins, ops[0], &sizes[0]),
            Rule::Tuple => {
                let v = self.b.tuple(&ops)?;
                Ok((v, Sizes::Tuple(sizes)))
            }
            Rule::GetTupleElement => {
                let Op::GetTupleElement { index } = &ins.op else {
                    unreachable!("rule(GetTupleElement)")
                };
                let v = self.b.get_tuple_element(ops[0], *index as i64)?;
                let s = match &sizes[0] {
                    Sizes::Tuple(t) => t[*index].clone(),
                    other => other.clone(),
                };
                Ok((v, s))
            }
            Rule::Barrier => {
                let v = self.b.optimization_barrier(&ops)?;
                let s = if ops.len() == 1 {
                    sizes[0].clone()
                } else {
                    Sizes::Tuple(sizes)
                };
                Ok((v, s))
            }
            Rule::GetDimensionSize => {
                let Op::GetDimensionSize { dimension } = &ins.op else {
                    unreachable!("rule(GetDimensionSize)")
                };
                let d = *dimension as usize;
                let v = match sizes[0].dims()[d] {
                    Some(s) => s,
                    None => {
                        let bound = self.b.shape(ops[0]).as_array().map_or(0, |a| a.dims[d]);
                        self.s32(bound)
                    }
                };
                Ok((v, Sizes::Array(Vec::new())))
            }
            Rule::SetDimensionSize => {
                let Op::SetDimensionSize { dimension } = &ins.op else {
                    unreachable!("rule(SetDimensionSize)")
                };
                let d = *dimension as usize;
                let size = self.clamped_size(ops[1], out.dims[d])?;
                let mut dims = sizes[0].dims().to_vec();
                dims[d] = Some(size);
                Ok((ops[0], Sizes::Array(dims)))
            }
            Rule::DynamicReshape => self.dynamic_reshape(&ops, &sizes[0], &out),
            Rule::StaticOnly => unreachable!("handled above"),
        }
    }

    /// An `s32[]` constant.
    pub(super) fn s32(&mut self, v: i64) -> XlaOp {
        self.b.constant(Literal::scalar(v as i32))
    }

    /// A runtime size as `s32[]`, clamped into `[0, bound]` (a size beyond the bound would
    /// read outside the padded array; XLA leaves it undefined).
    fn clamped_size(&mut self, size: XlaOp, bound: i64) -> Result<XlaOp> {
        let s = if self.b.element_type(size) == Some(ElementType::S32) {
            size
        } else {
            self.b.convert(size, ElementType::S32)?
        };
        let lo = self.s32(0);
        let hi = self.s32(bound);
        self.b.clamp(lo, s, hi)
    }

    /// `x` with every element outside the valid region of `dims` (pairs of dimension and
    /// size) replaced by the scalar `fill`.
    pub(super) fn mask(&mut self, x: XlaOp, dims: &[(usize, XlaOp)], fill: XlaOp) -> Result<XlaOp> {
        if dims.is_empty() {
            return Ok(x);
        }
        let shape = self
            .b
            .shape(x)
            .as_array()
            .cloned()
            .ok_or_else(|| Error::new("padder", "internal: masking a non-array value"))?;
        let idx = Shape::array(ElementType::S32, &shape.dims);
        let mut keep: Option<XlaOp> = None;
        for &(d, size) in dims {
            let iota = self.b.iota(idx.clone(), d as i64)?;
            let n = self.b.broadcast_in_dim(size, &shape.dims, &[])?;
            let lt = self
                .b
                .compare(ComparisonDirection::Lt, false, iota, n, None)?;
            keep = Some(match keep {
                None => lt,
                Some(k) => self.b.binary(BinaryOp::And, k, lt, None)?,
            });
        }
        let fill = self.b.broadcast_in_dim(fill, &shape.dims, &[])?;
        self.b.select(keep.expect("dims is not empty"), x, fill)
    }

    /// The zero of `ty` as a scalar constant.
    pub(super) fn zero(&mut self, ty: ElementType) -> XlaOp {
        self.b.constant(Literal::zeros(&ArrayShape::scalar(ty)))
    }

    /// `Reduce`: every reduced dynamic dimension of each operand masked with its init.
    fn reduce(
        &mut self,
        ins: &Instruction,
        ops: &[XlaOp],
        sizes: &[Sizes],
    ) -> Result<(XlaOp, Sizes)> {
        let Op::Reduce {
            dimensions,
            computation,
        } = &ins.op
        else {
            unreachable!("rule(Reduce)")
        };
        let n = ops.len() / 2;
        let mut masked = Vec::with_capacity(n);
        for k in 0..n {
            let dyn_dims: Vec<(usize, XlaOp)> = dimensions
                .iter()
                .filter_map(|&d| sizes[k].dims()[d as usize].map(|s| (d as usize, s)))
                .collect();
            masked.push(self.mask(ops[k], &dyn_dims, ops[n + k])?);
        }
        let v = self.b.reduce(&masked, &ops[n..], computation, dimensions)?;
        let kept: Vec<Option<XlaOp>> = sizes[0]
            .dims()
            .iter()
            .enumerate()
            .filter(|(d, _)| !dimensions.contains(&(*d as i64)))
            .map(|(_, s)| *s)
            .collect();
        let s = if n == 1 {
            Sizes::Array(kept)
        } else {
            Sizes::Tuple(vec![Sizes::Array(kept); n])
        };
        Ok((v, s))
    }

    /// `DotGeneral`: contracted dynamic dimensions masked with zero on both sides (a NaN in
    /// one side's padding must not meet the other's); batch and free dimensions keep sizes.
    fn dot(&mut self, ins: &Instruction, ops: &[XlaOp], sizes: &[Sizes]) -> Result<(XlaOp, Sizes)> {
        let Op::DotGeneral {
            dimension_numbers: dn,
            ..
        } = &ins.op
        else {
            unreachable!("rule(DotGeneral)")
        };
        let (ls, rs) = (sizes[0].dims(), sizes[1].dims());
        let mut lmask = Vec::new();
        let mut rmask = Vec::new();
        for (&l, &r) in dn
            .lhs_contracting_dimensions
            .iter()
            .zip(&dn.rhs_contracting_dimensions)
        {
            if let Some(s) = ls[l as usize].or(rs[r as usize]) {
                lmask.push((l as usize, s));
                rmask.push((r as usize, s));
            }
        }
        let lt = self.b.element_type(ops[0]).unwrap_or(ElementType::F32);
        let rt = self.b.element_type(ops[1]).unwrap_or(ElementType::F32);
        let (lz, rz) = (self.zero(lt), self.zero(rt));
        let l = self.mask(ops[0], &lmask, lz)?;
        let r = self.mask(ops[1], &rmask, rz)?;
        let v = self
            .b
            .append(ins.op.clone(), &[l, r], bound_shape(&ins.shape))?;
        let free = |s: &[Option<XlaOp>], used: &[&Vec<i64>]| -> Vec<Option<XlaOp>> {
            s.iter()
                .enumerate()
                .filter(|(d, _)| !used.iter().any(|u| u.contains(&(*d as i64))))
                .map(|(_, x)| *x)
                .collect()
        };
        let mut d: Vec<Option<XlaOp>> = dn
            .lhs_batch_dimensions
            .iter()
            .zip(&dn.rhs_batch_dimensions)
            .map(|(&l, &r)| ls[l as usize].or(rs[r as usize]))
            .collect();
        d.extend(free(
            ls,
            &[&dn.lhs_batch_dimensions, &dn.lhs_contracting_dimensions],
        ));
        d.extend(free(
            rs,
            &[&dn.rhs_batch_dimensions, &dn.rhs_contracting_dimensions],
        ));
        Ok((v, Sizes::Array(d)))
    }

    /// `(a - b)`, `min`, `max`... of `s32[]` values.
    pub(super) fn arith(&mut self, op: BinaryOp, a: XlaOp, b: XlaOp) -> Result<XlaOp> {
        self.b.binary(op, a, b, None)
    }

    /// `Slice`: the static slice of the padded operand; a sliced dynamic dimension of size
    /// `s` keeps `ceil((min(limit, s) - start) / stride)` elements (at least 0), XLA's rule.
    fn slice(
        &mut self,
        ins: &Instruction,
        x: XlaOp,
        sizes: &Sizes,
        out: &ArrayShape,
    ) -> Result<(XlaOp, Sizes)> {
        let Op::Slice {
            start_indices,
            limit_indices,
            strides,
        } = &ins.op
        else {
            unreachable!("rule(Slice)")
        };
        let v = self
            .b
            .append(ins.op.clone(), &[x], bound_shape(&ins.shape))?;
        let mut d = vec![None; out.rank()];
        for (k, slot) in d.iter_mut().enumerate() {
            let (Some(s), true) = (sizes.dims()[k], out.dynamic[k]) else {
                continue;
            };
            let limit = self.s32(limit_indices[k]);
            let end = self.arith(BinaryOp::Min, limit, s)?;
            let start = self.s32(start_indices[k]);
            let len = self.arith(BinaryOp::Sub, end, start)?;
            let zero = self.s32(0);
            let len = self.arith(BinaryOp::Max, len, zero)?;
            let up = self.s32(strides[k] - 1);
            let len = self.arith(BinaryOp::Add, len, up)?;
            let stride = self.s32(strides[k]);
            *slot = Some(self.arith(BinaryOp::Div, len, stride)?);
        }
        Ok((v, Sizes::Array(d)))
    }

    /// `Pad`: dynamic dimensions masked with the padding value, then the static pad; the
    /// valid data then already sit where XLA puts them (the masked tail reads as high
    /// padding), and size `s` becomes `low + s + high + interior * (s - 1)` (0 for `s = 0`
    /// beyond the edges), clamped into `[0, bound]`.
    fn pad_op(
        &mut self,
        ins: &Instruction,
        ops: &[XlaOp],
        sizes: &Sizes,
        out: &ArrayShape,
    ) -> Result<(XlaOp, Sizes)> {
        let Op::Pad { config } = &ins.op else {
            unreachable!("rule(Pad)")
        };
        let dyn_dims: Vec<(usize, XlaOp)> = sizes
            .dims()
            .iter()
            .enumerate()
            .filter_map(|(d, s)| s.map(|s| (d, s)))
            .collect();
        let x = self.mask(ops[0], &dyn_dims, ops[1])?;
        let v = self
            .b
            .append(ins.op.clone(), &[x, ops[1]], bound_shape(&ins.shape))?;
        let mut d = vec![None; out.rank()];
        for &(k, s) in &dyn_dims {
            let PadDim {
                low,
                high,
                interior,
            } = config[k];
            let one = self.s32(1);
            let zero = self.s32(0);
            let gaps = self.arith(BinaryOp::Sub, s, one)?;
            let gaps = self.arith(BinaryOp::Max, gaps, zero)?;
            let int = self.s32(interior);
            let gaps = self.arith(BinaryOp::Mul, gaps, int)?;
            let edges = self.s32(low + high);
            let n = self.arith(BinaryOp::Add, s, gaps)?;
            let n = self.arith(BinaryOp::Add, n, edges)?;
            d[k] = Some(self.clamped_size(n, out.dims[k])?);
        }
        Ok((v, Sizes::Array(d)))
    }

    /// `ConcatInDim` along a dynamic dimension: the first operand padded to the result's
    /// bound, each next one written (DynamicUpdateSlice) where the previous valid data end,
    /// so the valid parts are contiguous as in XLA; the size is their sum. Along a static
    /// dimension the static concatenation, other dimensions' sizes from the first operand
    /// that has one.
    fn concat(
        &mut self,
        ins: &Instruction,
        ops: &[XlaOp],
        sizes: &[Sizes],
        out: &ArrayShape,
    ) -> Result<(XlaOp, Sizes)> {
        let Op::Concatenate { dimension } = &ins.op else {
            unreachable!("rule(Concatenate)")
        };
        let cd = *dimension as usize;
        let mut d = vec![None; out.rank()];
        for (k, slot) in d.iter_mut().enumerate() {
            if k != cd && out.dynamic[k] {
                *slot = sizes.iter().find_map(|s| s.dims()[k]);
            }
        }
        if sizes.iter().all(|s| s.dims()[cd].is_none()) {
            let v = self
                .b
                .append(ins.op.clone(), ops, bound_shape(&ins.shape))?;
            return Ok((v, Sizes::Array(d)));
        }
        let bound0 = self.b.shape(ops[0]).as_array().map_or(0, |a| a.dims[cd]);
        let ty = out.ty;
        let zero = self.zero(ty);
        let config: Vec<PadDim> = (0..out.rank())
            .map(|k| PadDim {
                low: 0,
                high: if k == cd { out.dims[cd] - bound0 } else { 0 },
                interior: 0,
            })
            .collect();
        let mut acc = self.b.pad(ops[0], zero, &config)?;
        let mut offset = self.size_of(&sizes[0], ops[0], cd);
        for (k, &op) in ops.iter().enumerate().skip(1) {
            let z = self.s32(0);
            let starts: Vec<XlaOp> = (0..out.rank())
                .map(|j| if j == cd { offset } else { z })
                .collect();
            acc = self.b.dynamic_update_slice(acc, op, &starts)?;
            let n = self.size_of(&sizes[k], op, cd);
            offset = self.arith(BinaryOp::Add, offset, n)?;
        }
        d[cd] = Some(offset);
        Ok((acc, Sizes::Array(d)))
    }

    /// The size of dimension `d` of `x`: its runtime size, or its bound as a constant.
    fn size_of(&mut self, sizes: &Sizes, x: XlaOp, d: usize) -> XlaOp {
        match sizes.dims()[d] {
            Some(s) => s,
            None => {
                let bound = self.b.shape(x).as_array().map_or(0, |a| a.dims[d]);
                self.s32(bound)
            }
        }
    }

    /// `Rev` of a dynamic dimension: the static reverse leaves the valid data at the end
    /// (after `bound - s` padding elements); padding the bound on and slicing from
    /// `bound - s` brings them to the front.
    fn rev(&mut self, ins: &Instruction, x: XlaOp, sizes: &Sizes) -> Result<(XlaOp, Sizes)> {
        let Op::Rev { dimensions } = &ins.op else {
            unreachable!("rule(Rev)")
        };
        let mut v = self.b.rev(x, dimensions)?;
        let shape = self
            .b
            .shape(v)
            .as_array()
            .cloned()
            .expect("Rev of an array");
        for &d in dimensions {
            let d = d as usize;
            let Some(s) = sizes.dims()[d] else { continue };
            let bound = shape.dims[d];
            let zero = self.zero(shape.ty);
            let config: Vec<PadDim> = (0..shape.rank())
                .map(|k| PadDim {
                    low: 0,
                    high: if k == d { bound } else { 0 },
                    interior: 0,
                })
                .collect();
            let wide = self.b.pad(v, zero, &config)?;
            let b = self.s32(bound);
            let start = self.arith(BinaryOp::Sub, b, s)?;
            let z = self.s32(0);
            let starts: Vec<XlaOp> = (0..shape.rank())
                .map(|k| if k == d { start } else { z })
                .collect();
            v = self.b.dynamic_slice(wide, &starts, &shape.dims)?;
        }
        Ok((v, sizes.clone()))
    }

    /// `DynamicReshape(operand, sizes...)`: output element `i` (row-major over the runtime
    /// sizes) is operand element `i` (row-major over the operand's runtime sizes): the
    /// position computed with integer arithmetic, the element fetched by a one-element
    /// Gather from the flattened padded operand.
    fn dynamic_reshape(
        &mut self,
        ops: &[XlaOp],
        sizes: &Sizes,
        out: &ArrayShape,
    ) -> Result<(XlaOp, Sizes)> {
        let x = ops[0];
        let xs = self
            .b
            .shape(x)
            .as_array()
            .cloned()
            .expect("DynamicReshape of an array");
        let idx = Shape::array(ElementType::S32, &out.dims);
        // Output runtime sizes (clamped to their bounds) and the linear index over them.
        let mut out_sizes = Vec::with_capacity(out.rank());
        for (k, &size) in ops[1..].iter().enumerate() {
            out_sizes.push(self.clamped_size(size, out.dims[k])?);
        }
        let mut linear = None;
        for (k, &n) in out_sizes.iter().enumerate() {
            let i = self.b.iota(idx.clone(), k as i64)?;
            linear = Some(match linear {
                None => i,
                Some(l) => {
                    let nb = self.b.broadcast_in_dim(n, &out.dims, &[])?;
                    let l = self.arith(BinaryOp::Mul, l, nb)?;
                    self.arith(BinaryOp::Add, l, i)?
                }
            });
        }
        let mut rest = match linear {
            Some(l) => l,
            None => self.b.constant(Literal::scalar(0i32)),
        };
        // Operand position: digits of `linear` over the operand's runtime sizes (minor
        // first), weighted by the padded operand's row-major strides.
        let mut pos: Option<XlaOp> = None;
        let mut stride = 1i64;
        for d in (0..xs.rank()).rev() {
            let m = self.size_of(sizes, x, d);
            let one = self.s32(1);
            let m = self.arith(BinaryOp::Max, m, one)?;
            let mb = self.b.broadcast_in_dim(m, &out.dims, &[])?;
            let digit = self.arith(BinaryOp::Rem, rest, mb)?;
            rest = self.arith(BinaryOp::Div, rest, mb)?;
            let w = self.s32(stride);
            let wb = self.b.broadcast_in_dim(w, &out.dims, &[])?;
            let term = self.arith(BinaryOp::Mul, digit, wb)?;
            pos = Some(match pos {
                None => term,
                Some(p) => self.arith(BinaryOp::Add, p, term)?,
            });
            stride *= xs.dims[d];
        }
        let total: i64 = xs.dims.iter().product();
        let flat = self.b.reshape(x, None, &[total])?;
        let pos = match pos {
            Some(p) => p,
            None => self.b.broadcast_in_dim(rest, &out.dims, &[])?,
        };
        let mut with_vec = out.dims.clone();
        with_vec.push(1);
        let starts = self.b.reshape(pos, None, &with_vec)?;
        let dn = GatherDimensionNumbers {
            offset_dims: vec![],
            collapsed_slice_dims: vec![0],
            operand_batching_dims: vec![],
            start_indices_batching_dims: vec![],
            start_index_map: vec![0],
            index_vector_dim: out.rank() as i64,
        };
        let v = self.b.gather(flat, starts, &dn, &[1], false)?;
        let d = out
            .dynamic
            .iter()
            .zip(out_sizes)
            .map(|(&dy, s)| dy.then_some(s))
            .collect();
        Ok((v, Sizes::Array(d)))
    }
}

/// Sizes exactly where `shape` is dynamic: none for a static dimension (an op may have
/// carried one there, e.g. a dot's free dimension XLA makes static), and the bound as a
/// constant for a dynamic dimension no operand gave a size.
fn normalise(s: Sizes, shape: &Shape, p: &mut Padder) -> Sizes {
    match (s, shape) {
        (Sizes::Array(d), Shape::Array(a)) => Sizes::Array(
            (0..a.rank())
                .map(|k| {
                    if !a.dynamic[k] {
                        None
                    } else {
                        Some(
                            d.get(k)
                                .copied()
                                .flatten()
                                .unwrap_or_else(|| p.s32(a.dims[k])),
                        )
                    }
                })
                .collect(),
        ),
        (Sizes::Tuple(t), Shape::Tuple(ts)) => Sizes::Tuple(
            t.into_iter()
                .zip(ts)
                .map(|(e, s)| normalise(e, s, p))
                .collect(),
        ),
        (_, s) => Sizes::static_of(s),
    }
}
