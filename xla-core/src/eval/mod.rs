//! The reference evaluator: interprets a [`Computation`] on [`Literal`]s, one instruction at a
//! time, with the element semantics of [`crate::scalar`]. It is the oracle the generated SIMD
//! code is tested against, so it favours obvious correctness over speed.
//!
//! Literals hold row-major logical data whatever the layout in their shape, so every op works on
//! logical indices; layouts only matter for physical storage elsewhere. Bad input (wrong
//! argument count or shapes, or an IR whose instructions disagree with their operands) gives an
//! `Err` naming the op, never a panic.
//!
//! One file per op family: `elementwise` (unary, binary, compare, select, clamp, conversions,
//! iota), `data_movement` (broadcast, reshape, transpose), `reduce`, `dot`.

mod collective;
mod control;
mod conv;
mod data_movement;
mod dot;
mod dynamic;
mod elementwise;
mod fft;
mod host_io;
mod indexing;
mod linalg;
mod movement;
mod reduce;
mod rng;
mod scan;
mod select_scatter;
mod sort;
mod window;

#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::ir::{Computation, Instruction, Op};
use crate::literal::{ArrayData, Literal};
use crate::shape::{ArrayShape, Shape};

/// Evaluate `computation` on `args` (one literal per parameter, of the parameter's shape; layouts
/// are ignored): `result = root(instrs(args))`.
///
/// A program with collectives needs a device to run on: this gives an `Err` naming the op;
/// run it with [`evaluate_on`].
pub fn evaluate(computation: &Computation, args: &[Literal]) -> Result<Literal> {
    evaluate_in(computation, args, None)
}

/// [`evaluate`] as one device of an SPMD run: ReplicaId, PartitionId and the collectives
/// exchange through `device` (a thread of [`crate::spmd::threads`], an MPI rank...). Every
/// device of the run calls it on the same computation.
pub fn evaluate_on(
    computation: &Computation,
    args: &[Literal],
    device: &dyn crate::spmd::Collectives,
) -> Result<Literal> {
    evaluate_in(computation, args, Some(device))
}

pub use collective::run_replicas;

/// [`evaluate`] with the device of an SPMD run, if any (nested computations get the same).
fn evaluate_in(
    computation: &Computation,
    args: &[Literal],
    device: Option<&dyn crate::spmd::Collectives>,
) -> Result<Literal> {
    // Bounded dynamic dimensions run as XLA runs them: padded to their bounds, the sizes
    // beside (`crate::padder`); the padded computation is static, so this recursion ends.
    if crate::padder::needs_padding(computation) {
        return crate::padder::run_padded(computation, args, |c, a| evaluate_in(c, a, device));
    }
    if args.len() != computation.params.len() {
        return Err(Error::new(
            "evaluate",
            format!(
                "computation `{}` takes {} parameters but {} arguments were given",
                computation.name,
                computation.params.len(),
                args.len()
            ),
        ));
    }
    for (i, (arg, param)) in args.iter().zip(&computation.params).enumerate() {
        let got = arg.shape();
        if !same_shape(&got, param) {
            return Err(Error::new(
                "evaluate",
                format!(
                    "argument {i} of computation `{}` has shape {got} but the parameter is {param}",
                    computation.name
                ),
            ));
        }
    }
    let mut values: Vec<Literal> = Vec::with_capacity(computation.instrs.len());
    for (i, instr) in computation.instrs.iter().enumerate() {
        let ctx = Ctx {
            index: i,
            instr,
            device,
        };
        let mut operands = Vec::with_capacity(instr.operands.len());
        for id in &instr.operands {
            let k = id.0 as usize;
            match values.get(k) {
                Some(v) => operands.push(v),
                None => return Err(ctx.err(format!("operand %{k} is not defined before its use"))),
            }
        }
        let value = eval_instr(&ctx, &operands, args)?;
        let got = value.shape();
        if !same_shape(&got, &instr.shape) {
            return Err(ctx.err(format!(
                "evaluates to shape {got} but the instruction's shape is {}",
                instr.shape
            )));
        }
        values.push(value);
    }
    let root = computation.root.0 as usize;
    if root >= values.len() {
        return Err(Error::new(
            "evaluate",
            format!(
                "root %{root} of computation `{}` is not an instruction",
                computation.name
            ),
        ));
    }
    Ok(values.swap_remove(root))
}

/// The instruction being evaluated, for error messages.
struct Ctx<'a> {
    index: usize,
    instr: &'a Instruction,
    /// The device of an SPMD run ([`evaluate_on`]), `None` for [`evaluate`].
    device: Option<&'a dyn crate::spmd::Collectives>,
}

impl Ctx<'_> {
    /// `computation` evaluated on `args` on this instruction's device (While, Conditional and
    /// Call bodies may hold collectives).
    fn nested(&self, computation: &Computation, args: &[Literal]) -> Result<Literal> {
        evaluate_in(computation, args, self.device)
    }

    /// An error naming this instruction's op and position.
    fn err(&self, message: impl std::fmt::Display) -> Error {
        Error::new(
            op_name(&self.instr.op),
            format!("instruction %{}: {message}", self.index),
        )
    }

    /// The instruction's array shape.
    fn out_array(&self) -> Result<&ArrayShape> {
        self.instr
            .shape
            .as_array()
            .ok_or_else(|| self.err(format!("expected an array shape, got {}", self.instr.shape)))
    }

    /// Exactly `n` operands.
    fn arity(&self, operands: &[&Literal], n: usize) -> Result<()> {
        if operands.len() == n {
            Ok(())
        } else {
            Err(self.err(format!("takes {n} operands but has {}", operands.len())))
        }
    }
}

/// The user-facing name of an op.
fn op_name(op: &Op) -> String {
    match op {
        Op::Parameter { .. } => "Parameter".into(),
        Op::Constant(_) => "Constant".into(),
        Op::Iota { .. } => "Iota".into(),
        Op::Unary(u) => format!("{u:?}"),
        Op::Binary(b) => format!("{b:?}"),
        Op::Compare { .. } => "Compare".into(),
        Op::Select => "Select".into(),
        Op::Clamp => "Clamp".into(),
        Op::ConvertElementType => "ConvertElementType".into(),
        Op::BitcastConvertType => "BitcastConvertType".into(),
        Op::ReducePrecision { .. } => "ReducePrecision".into(),
        Op::BroadcastInDim { .. } => "BroadcastInDim".into(),
        Op::Reshape => "Reshape".into(),
        Op::Transpose { .. } => "Transpose".into(),
        Op::Reduce { .. } => "Reduce".into(),
        Op::ReduceWindow { .. } => "ReduceWindow".into(),
        Op::SelectAndScatter { .. } => "SelectAndScatter".into(),
        Op::Scan { .. } => "Scan".into(),
        Op::DotGeneral { .. } => "DotGeneral".into(),
        Op::OptimizationBarrier => "OptimizationBarrier".into(),
        Op::AfterAll => "AfterAll".into(),
        Op::CustomCall { .. } => "CustomCall".into(),
        Op::RaggedDot { .. } => "RaggedDot".into(),
        Op::ScaledDot { .. } => "ScaledDot".into(),
        Op::Tuple => "Tuple".into(),
        Op::GetTupleElement { .. } => "GetTupleElement".into(),
        Op::Call {
            composite: None, ..
        } => "Call".into(),
        Op::Call {
            composite: Some(_), ..
        } => "CompositeCall".into(),
        Op::Rev { .. } => "Rev".into(),
        Op::Slice { .. } => "Slice".into(),
        Op::Pad { .. } => "Pad".into(),
        Op::Concatenate { .. } => "ConcatInDim".into(),
        Op::Sort { .. } => "Sort".into(),
        Op::TopK { .. } => "TopK".into(),
        Op::Fft { .. } => "Fft".into(),
        Op::Collective(c) => c.kind.name().into(),
        Op::HostIo(h) => h.name().into(),
        Op::Convolution { .. } => "ConvGeneralDilated".into(),
        Op::Cholesky { .. } => "Cholesky".into(),
        Op::TriangularSolve { .. } => "TriangularSolve".into(),
        Op::While { .. } => "While".into(),
        Op::Conditional { .. } => "Conditional".into(),
        Op::Gather { .. } => "Gather".into(),
        Op::Scatter { .. } => "Scatter".into(),
        Op::BatchNorm { kind, .. } => kind.name().into(),
        Op::Map { .. } => "Map".into(),
        Op::DynamicSlice { .. } => "DynamicSlice".into(),
        Op::DynamicUpdateSlice => "DynamicUpdateSlice".into(),
        Op::GetDimensionSize { .. } => "GetDimensionSize".into(),
        Op::SetDimensionSize { .. } => "SetDimensionSize".into(),
        Op::DynamicReshape => "DynamicReshape".into(),
        Op::RngBitGenerator { .. } => "RngBitGenerator".into(),
        Op::Rng { distribution, .. } => distribution.name().into(),
    }
}

/// Evaluate one instruction on its operand values.
fn eval_instr(ctx: &Ctx<'_>, operands: &[&Literal], args: &[Literal]) -> Result<Literal> {
    match &ctx.instr.op {
        Op::Parameter { index, .. } => {
            ctx.arity(operands, 0)?;
            args.get(*index).cloned().ok_or_else(|| {
                ctx.err(format!(
                    "parameter {index} does not exist ({} arguments)",
                    args.len()
                ))
            })
        }
        Op::Constant(lit) => {
            ctx.arity(operands, 0)?;
            Ok(lit.clone())
        }
        Op::Iota { dimension } => {
            ctx.arity(operands, 0)?;
            elementwise::iota(ctx, *dimension)
        }
        Op::Unary(op) => {
            ctx.arity(operands, 1)?;
            elementwise::unary(ctx, *op, operands[0])
        }
        Op::Binary(op) => {
            ctx.arity(operands, 2)?;
            elementwise::binary(ctx, *op, operands[0], operands[1])
        }
        Op::Compare {
            direction,
            total_order,
        } => {
            ctx.arity(operands, 2)?;
            elementwise::compare(ctx, *direction, *total_order, operands[0], operands[1])
        }
        Op::Select => {
            ctx.arity(operands, 3)?;
            elementwise::select(ctx, operands[0], operands[1], operands[2])
        }
        Op::Clamp => {
            ctx.arity(operands, 3)?;
            elementwise::clamp(ctx, operands[0], operands[1], operands[2])
        }
        Op::ConvertElementType => {
            ctx.arity(operands, 1)?;
            let (shape, data) = array(ctx, operands[0])?;
            let ty = ctx.out_array()?.ty;
            Ok(Literal::Array {
                shape: shape.with_type(ty),
                data: elementwise::convert_data(data, ty),
            })
        }
        Op::BitcastConvertType => {
            ctx.arity(operands, 1)?;
            elementwise::bitcast_convert(ctx, operands[0])
        }
        Op::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => {
            ctx.arity(operands, 1)?;
            elementwise::reduce_precision(ctx, operands[0], *exponent_bits, *mantissa_bits)
        }
        Op::BroadcastInDim {
            broadcast_dimensions,
        } => {
            ctx.arity(operands, 1)?;
            data_movement::broadcast_in_dim(ctx, operands[0], broadcast_dimensions)
        }
        Op::Reshape => {
            ctx.arity(operands, 1)?;
            data_movement::reshape(ctx, operands[0])
        }
        Op::Transpose { permutation } => {
            ctx.arity(operands, 1)?;
            data_movement::transpose(ctx, operands[0], permutation)
        }
        Op::Reduce {
            dimensions,
            computation,
        } => reduce::reduce(ctx, operands, dimensions, computation),
        Op::SelectAndScatter {
            window,
            select,
            scatter,
        } => select_scatter::select_and_scatter(ctx, operands, window, select, scatter),
        Op::Scan {
            scan_dimension,
            is_reverse,
            is_associative: _,
            num_carries,
            to_apply,
        } => scan::scan(
            ctx,
            operands,
            to_apply,
            *scan_dimension,
            *is_reverse,
            *num_carries,
        ),
        Op::ReduceWindow {
            window,
            computation,
        } => window::reduce_window(ctx, operands, window, computation),
        Op::DotGeneral {
            dimension_numbers,
            preferred_element_type: _,
        } => {
            // The preferred type is the instruction's element type, which `dot` reads.
            ctx.arity(operands, 2)?;
            dot::dot_general(ctx, operands[0], operands[1], dimension_numbers)
        }
        // Sequential evaluation already orders every operand before every reader.
        Op::OptimizationBarrier => match operands {
            [one] => Ok((*one).clone()),
            _ => Ok(Literal::Tuple(
                operands.iter().map(|&l| l.clone()).collect(),
            )),
        },
        Op::AfterAll => Ok(Literal::Token),
        Op::CustomCall { target, .. } => Err(ctx.err(format!(
            "the target `{target}` is code of the program's crate, which the evaluator cannot \
             run (the generated fn calls it)"
        ))),
        Op::Tuple => Ok(Literal::Tuple(
            operands.iter().map(|&l| l.clone()).collect(),
        )),
        Op::GetTupleElement { index } => {
            ctx.arity(operands, 1)?;
            match operands[0] {
                Literal::Tuple(elems) => elems.get(*index).cloned().ok_or_else(|| {
                    ctx.err(format!(
                        "index {index} out of range for a tuple of {} elements",
                        elems.len()
                    ))
                }),
                other @ (Literal::Array { .. } | Literal::Token) => {
                    Err(ctx.err(format!("operand is {}, not a tuple", other.shape())))
                }
            }
        }
        // A CompositeCall runs its decomposition.
        Op::Call { computation, .. } => {
            let args: Vec<Literal> = operands.iter().map(|&l| l.clone()).collect();
            ctx.nested(computation, &args)
        }
        Op::Collective(c) => collective::collective(ctx, c, operands),
        Op::HostIo(h) => host_io::host_io(ctx, h, operands),
        Op::Map { computation, .. } => reduce::map(ctx, operands, computation),
        // The expansion XLA:CPU runs (BatchNormExpander), evaluated as a call.
        Op::BatchNorm {
            kind,
            feature_index,
            epsilon,
        } => {
            let shapes: Vec<Shape> = operands.iter().map(|l| l.shape()).collect();
            let refs: Vec<&Shape> = shapes.iter().collect();
            let c = crate::builder::expand_batch_norm(*kind, *feature_index, *epsilon, &refs)
                .map_err(|e| ctx.err(e.message))?;
            let args: Vec<Literal> = operands.iter().map(|&l| l.clone()).collect();
            evaluate(&c, &args)
        }
        // The mask-and-dot expansion (the same one the export writes).
        Op::RaggedDot {
            dimension_numbers,
            preferred_element_type,
        } => {
            let shapes: Vec<Shape> = operands.iter().map(|l| l.shape()).collect();
            let refs: Vec<&Shape> = shapes.iter().collect();
            let c = crate::builder::expand_ragged_dot(
                &refs,
                dimension_numbers,
                *preferred_element_type,
            )
            .map_err(|e| ctx.err(e.message))?;
            let args: Vec<Literal> = operands.iter().map(|&l| l.clone()).collect();
            evaluate(&c, &args)
        }
        // The dequantize-and-dot expansion (XLA's ScaledDotRewriter).
        Op::ScaledDot {
            dimension_numbers,
            preferred_element_type,
        } => {
            let shapes: Vec<Shape> = operands.iter().map(|l| l.shape()).collect();
            let refs: Vec<&Shape> = shapes.iter().collect();
            let c = crate::builder::expand_scaled_dot(
                &refs,
                dimension_numbers,
                *preferred_element_type,
            )
            .map_err(|e| ctx.err(e.message))?;
            let args: Vec<Literal> = operands.iter().map(|&l| l.clone()).collect();
            evaluate(&c, &args)
        }
        Op::While { condition, body } => control::while_loop(ctx, operands, condition, body),
        Op::Conditional { branches } => control::conditional(ctx, operands, branches),
        Op::Rev { dimensions } => {
            ctx.arity(operands, 1)?;
            movement::rev(ctx, operands[0], dimensions)
        }
        Op::Slice {
            start_indices,
            limit_indices,
            strides,
        } => {
            ctx.arity(operands, 1)?;
            movement::slice(ctx, operands[0], start_indices, limit_indices, strides)
        }
        Op::Pad { config } => {
            ctx.arity(operands, 2)?;
            movement::pad(ctx, operands[0], operands[1], config)
        }
        Op::Concatenate { dimension } => movement::concatenate(ctx, operands, *dimension),
        Op::Sort {
            dimension,
            is_stable: _,
            comparator,
        } => {
            // Always a stable sort: also a valid result of an unstable one (eval/sort.rs).
            sort::sort(ctx, operands, *dimension, comparator)
        }
        Op::Gather {
            dimension_numbers,
            slice_sizes,
            indices_are_sorted: _,
        } => {
            ctx.arity(operands, 2)?;
            indexing::gather(
                ctx,
                operands[0],
                operands[1],
                dimension_numbers,
                slice_sizes,
            )
        }
        Op::Scatter {
            dimension_numbers,
            indices_are_sorted: _,
            unique_indices: _,
            update_computation,
        } => indexing::scatter(ctx, operands, dimension_numbers, update_computation),
        Op::DynamicSlice { slice_sizes } => dynamic::dynamic_slice(ctx, operands, slice_sizes),
        Op::DynamicUpdateSlice => dynamic::dynamic_update_slice(ctx, operands),
        // A computation holding these is dynamic, and `evaluate_in` runs it padded: the padder
        // replaces each (by a size, the operand, or a Gather).
        Op::GetDimensionSize { .. } | Op::SetDimensionSize { .. } | Op::DynamicReshape => {
            Err(ctx.err("internal: an op of dynamic dimensions reached the static evaluator"))
        }
        Op::Cholesky { lower } => {
            ctx.arity(operands, 1)?;
            linalg::cholesky(ctx, operands[0], *lower)
        }
        Op::TriangularSolve {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        } => {
            ctx.arity(operands, 2)?;
            let flags = (*left_side, *lower, *unit_diagonal);
            linalg::triangular_solve(ctx, operands[0], operands[1], flags, *transpose_a)
        }
        Op::RngBitGenerator { algorithm } => {
            ctx.arity(operands, 1)?;
            rng::bit_generator(ctx, operands[0], *algorithm)
        }
        Op::Rng { distribution, seed } => {
            ctx.arity(operands, 2)?;
            rng::rng(ctx, *distribution, *seed, operands[0], operands[1])
        }
        Op::Fft {
            fft_type,
            fft_length,
        } => {
            ctx.arity(operands, 1)?;
            fft::fft(ctx, operands[0], *fft_type, fft_length)
        }
        Op::TopK { k, largest } => {
            ctx.arity(operands, 1)?;
            sort::top_k(ctx, operands[0], *k, *largest)
        }
        Op::Convolution {
            window,
            dimension_numbers,
            feature_group_count,
            batch_group_count,
            preferred_element_type,
        } => {
            ctx.arity(operands, 2)?;
            let groups = (*feature_group_count, *batch_group_count);
            conv::convolution(
                ctx,
                operands[0],
                operands[1],
                window,
                dimension_numbers,
                groups,
                *preferred_element_type,
            )
        }
    }
}

/// Shapes equal in element types and dimensions (layouts ignored: literals are logical).
pub(crate) fn same_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.ty == y.ty && x.dims == y.dims,
        (Shape::Tuple(xs), Shape::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_shape(x, y))
        }
        (Shape::Token, Shape::Token) => true,
        (Shape::Array(_) | Shape::Tuple(_) | Shape::Token, _) => false,
    }
}

/// The operand as an array whose data length matches its shape.
fn array<'a>(ctx: &Ctx<'_>, lit: &'a Literal) -> Result<(&'a ArrayShape, &'a ArrayData)> {
    match lit {
        Literal::Array { shape, data } => {
            let n = dims_usize(ctx, &shape.dims)?.iter().product::<usize>();
            if data.len() != n || data.element_type() != shape.ty {
                return Err(ctx.err(format!(
                    "operand literal of shape {shape} holds {} {} elements",
                    data.len(),
                    data.element_type()
                )));
            }
            Ok((shape, data))
        }
        Literal::Tuple(_) | Literal::Token => {
            Err(ctx.err(format!("expected an array operand, got {}", lit.shape())))
        }
    }
}

/// Dimension sizes as `usize`; `Err` for a negative size or an element count that overflows
/// `usize` (so every later `product()` of these sizes is safe).
fn dims_usize(ctx: &Ctx<'_>, dims: &[i64]) -> Result<Vec<usize>> {
    let sizes = dims
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .map_err(|_| ctx.err(format!("negative dimension size {d} in {dims:?}")))
        })
        .collect::<Result<Vec<usize>>>()?;
    sizes
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| ctx.err(format!("the element count of {dims:?} overflows")))?;
    Ok(sizes)
}

/// Row-major strides of `dims`: `stride[d] = prod(dims[d+1..])`.
fn row_major_strides(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    strides
}

/// The offsets `sum_d idx[d] * strides[d]` of every multi-index `idx` of `sizes`, in row-major
/// order (an odometer: no division per element). Empty when any size is 0; `[0]` for rank 0.
fn strided_offsets(sizes: &[usize], strides: &[usize]) -> Vec<usize> {
    let count: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(count);
    if count == 0 {
        return out;
    }
    let rank = sizes.len();
    let mut idx = vec![0usize; rank];
    let mut offset = 0usize;
    for _ in 0..count {
        out.push(offset);
        // Increment the most minor dimension, carrying into the major ones.
        for d in (0..rank).rev() {
            idx[d] += 1;
            offset += strides[d];
            if idx[d] < sizes[d] {
                break;
            }
            offset -= strides[d] * sizes[d];
            idx[d] = 0;
        }
    }
    out
}
