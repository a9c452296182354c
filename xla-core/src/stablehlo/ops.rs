//! One StableHLO operation (or none, for tuples) per IR instruction.
//!
//! Elementwise ops use the pretty form with a functional type, `stablehlo.abs %x :
//! (tensor<2xcomplex<f32>>) -> tensor<2xf32>`, which is valid whether or not the result type
//! equals the operand type; ops whose pretty form is unusual (select, clamp, reduce_precision,
//! reduce) use MLIR's generic form.

use std::fmt::Write;

use super::text::{dense, i64_array, tensor_type};
use super::{tree, Body, Val};
use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::ir::{ComparisonDirection, ComparisonType, Instruction, Op};
use crate::literal::Literal;
use crate::registry;
use crate::shape::Shape;

mod collective;
mod conv;
mod dims;
mod host_io;
mod indexing;
mod rng;
mod sort;
mod window;

/// The error of an op the registry has no StableHLO name for (a registry test rules it out).
fn unnamed(opcode: &str) -> Error {
    Error::new(
        opcode,
        "StableHLO export: no StableHLO name in the registry",
    )
}

fn direction(d: ComparisonDirection) -> &'static str {
    match d {
        ComparisonDirection::Eq => "EQ",
        ComparisonDirection::Ne => "NE",
        ComparisonDirection::Ge => "GE",
        ComparisonDirection::Gt => "GT",
        ComparisonDirection::Le => "LE",
        ComparisonDirection::Lt => "LT",
    }
}

/// `compare_type` as XLA's builders pick it: a `*TotalOrder` comparison is TOTALORDER on floats
/// and the element type's default elsewhere (`ComparisonType::total_order_for`), any other the
/// default: FLOAT for floats and complex, SIGNED for signed integers, UNSIGNED for unsigned
/// integers and pred. `Compare(.., comparison_type = ..)` was checked against the operands when
/// built, so its `total_order` flag says all the type did.
fn compare_type(ty: ElementType, total_order: bool) -> &'static str {
    if total_order {
        ComparisonType::total_order_for(ty).name()
    } else {
        ComparisonType::default_for(ty).name()
    }
}

fn dims_list(d: &[i64]) -> String {
    let v: Vec<String> = d.iter().map(i64::to_string).collect();
    format!("[{}]", v.join(", "))
}

fn array_result(ins: &Instruction, op: &str) -> Result<String> {
    match &ins.shape {
        Shape::Array(a) => Ok(tensor_type(a)),
        Shape::Tuple(_) | Shape::Token => Err(Error::new(
            op,
            format!(
                "StableHLO export: result shape {} is not an array",
                ins.shape
            ),
        )),
    }
}

impl Body<'_> {
    /// A fresh single-result name `%n`.
    fn name(&mut self) -> String {
        format!("%{}", self.fresh())
    }

    /// Prints `%n = <rhs>` and returns the value `%n : ty`.
    fn single(&mut self, depth: usize, rhs: &str, ty: String) -> Val {
        let name = self.name();
        self.line(depth, &format!("{name} = {rhs}"));
        Val::Leaf { name, ty }
    }

    /// `"name"(%a, %b, ...) attrs : (A, B, ...) -> R`: an op of array operands in the generic
    /// form (DynamicSlice, DynamicUpdateSlice: the operand, the update, then scalar starts).
    fn positional(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        name: &str,
        attrs: &str,
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        let leaves = ops
            .iter()
            .map(|v| v.leaf(opcode))
            .collect::<Result<Vec<_>>>()?;
        let names: Vec<&str> = leaves.iter().map(|l| l.0).collect();
        let types: Vec<&str> = leaves.iter().map(|l| l.1).collect();
        let ty = array_result(ins, opcode)?;
        let rhs = format!(
            "\"{name}\"({}){attrs} : ({}) -> {ty}",
            names.join(", "),
            types.join(", ")
        );
        Ok(self.single(depth, &rhs, ty))
    }

    /// Prints `%n:k = <rhs>` (or `%n = ` when k = 1) for an op returning the leaves of `shape`,
    /// and returns the value tree.
    fn multi(&mut self, depth: usize, rhs: &str, shape: &Shape) -> Val {
        let mut types = Vec::new();
        super::text::flat_types(shape, &mut types);
        let n = self.fresh();
        let k = types.len();
        if k == 1 {
            self.line(depth, &format!("%{n} = {rhs}"));
            return tree(shape, &mut || format!("%{n}"));
        }
        self.line(depth, &format!("%{n}:{k} = {rhs}"));
        let mut i = 0;
        tree(shape, &mut || {
            i += 1;
            format!("%{n}#{}", i - 1)
        })
    }

    /// Prints the constant(s) of a literal: one `stablehlo.constant` per array leaf.
    fn constant(&mut self, lit: &Literal, depth: usize) -> Result<Val> {
        match lit {
            Literal::Array { shape, data } => {
                if data.len() as i64 != shape.element_count() || data.element_type() != shape.ty {
                    return Err(Error::new(
                        "constant",
                        format!(
                            "StableHLO export: {} {} elements do not fill shape {shape}",
                            data.len(),
                            data.element_type()
                        ),
                    ));
                }
                let ty = tensor_type(shape);
                let rhs = format!("stablehlo.constant {} : {ty}", dense(&shape.dims, data));
                Ok(self.single(depth, &rhs, ty))
            }
            Literal::Tuple(elems) => {
                let vals = elems
                    .iter()
                    .map(|e| self.constant(e, depth))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Val::Tuple(vals))
            }
            Literal::Token => Ok(self.single(
                depth,
                "stablehlo.create_token : !stablehlo.token",
                "!stablehlo.token".into(),
            )),
        }
    }

    /// `stablehlo.{name} %x : (xt) -> ty`: a one-operand op whose result type says everything
    /// (convert, bitcast_convert, reshape).
    fn retyped(&mut self, ins: &Instruction, ops: &[Val], name: &str, depth: usize) -> Result<Val> {
        let opcode = ins.op.opcode();
        let [op] = ops else {
            return Err(Error::new(
                opcode,
                format!("StableHLO export: {} operands, expected 1", ops.len()),
            ));
        };
        let (x, xt) = op.leaf(opcode)?;
        let ty = array_result(ins, opcode)?;
        let rhs = format!("stablehlo.{name} {x} : ({xt}) -> {ty}");
        Ok(self.single(depth, &rhs, ty))
    }

    /// Prints one instruction whose operand values are `ops` (of shapes `operand_shapes`);
    /// `args` are the values of the enclosing computation's parameters.
    pub(super) fn instruction(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        operand_shapes: &[&Shape],
        args: &[Val],
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        let arity = |n: usize| -> Result<()> {
            if ops.len() == n {
                Ok(())
            } else {
                Err(Error::new(
                    opcode,
                    format!("StableHLO export: {} operands, expected {n}", ops.len()),
                ))
            }
        };
        // Operand `i` as one SSA value: (name, type).
        let leaf = |i: usize| ops[i].leaf(opcode);
        match &ins.op {
            Op::Parameter { index, .. } => args.get(*index).cloned().ok_or_else(|| {
                Error::new(
                    opcode,
                    format!(
                        "StableHLO export: parameter {index} of {} parameters",
                        args.len()
                    ),
                )
            }),
            Op::Constant(lit) => self.constant(lit, depth),
            Op::Iota { dimension } => {
                let ty = array_result(ins, opcode)?;
                Ok(self.single(
                    depth,
                    &format!("stablehlo.iota dim = {dimension} : {ty}"),
                    ty,
                ))
            }
            Op::Unary(u) => {
                arity(1)?;
                let (x, xt) = leaf(0)?;
                let ty = array_result(ins, opcode)?;
                // The names are the registry's; CHLO ops print their type as `T -> R`.
                let name = registry::unary_name(*u).ok_or_else(|| unnamed(opcode))?;
                let rhs = if name.starts_with("chlo.") {
                    format!("{name} {x} : {xt} -> {ty}")
                } else {
                    format!("{name} {x} : ({xt}) -> {ty}")
                };
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Binary(b) => {
                arity(2)?;
                let ((x, xt), (y, yt)) = (leaf(0)?, leaf(1)?);
                let ty = array_result(ins, opcode)?;
                let name = registry::binary_name(*b).ok_or_else(|| unnamed(opcode))?;
                let rhs = format!("{name} {x}, {y} : ({xt}, {yt}) -> {ty}");
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Compare {
                direction: d,
                total_order,
            } => {
                arity(2)?;
                let ((x, xt), (y, yt)) = (leaf(0)?, leaf(1)?);
                let operand_ty = match operand_shapes.first() {
                    Some(Shape::Array(a)) => a.ty,
                    Some(Shape::Tuple(_) | Shape::Token) | None => {
                        return Err(Error::new(
                            opcode,
                            "StableHLO export: compare of a non-array",
                        ));
                    }
                };
                let ty = array_result(ins, opcode)?;
                let ct = compare_type(operand_ty, *total_order);
                let rhs = format!(
                    "stablehlo.compare {}, {x}, {y}, {ct} : ({xt}, {yt}) -> {ty}",
                    direction(*d)
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Select | Op::Clamp => {
                arity(3)?;
                let ((a, at), (b, bt), (c, ct)) = (leaf(0)?, leaf(1)?, leaf(2)?);
                let ty = array_result(ins, opcode)?;
                let name = if matches!(ins.op, Op::Select) {
                    "select"
                } else {
                    "clamp"
                };
                let rhs =
                    format!("\"stablehlo.{name}\"({a}, {b}, {c}) : ({at}, {bt}, {ct}) -> {ty}");
                Ok(self.single(depth, &rhs, ty))
            }
            Op::ConvertElementType => self.retyped(ins, ops, "convert", depth),
            Op::BitcastConvertType => self.retyped(ins, ops, "bitcast_convert", depth),
            Op::Reshape => self.retyped(ins, ops, "reshape", depth),
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                arity(1)?;
                let (x, xt) = leaf(0)?;
                let ty = array_result(ins, opcode)?;
                let rhs = format!(
                    "\"stablehlo.reduce_precision\"({x}) {{exponent_bits = {exponent_bits} : i32, mantissa_bits = \
                     {mantissa_bits} : i32}} : ({xt}) -> {ty}"
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::BroadcastInDim {
                broadcast_dimensions,
            } => {
                arity(1)?;
                let (x, xt) = leaf(0)?;
                let ty = array_result(ins, opcode)?;
                let rhs = format!(
                    "stablehlo.broadcast_in_dim {x}, dims = {} : ({xt}) -> {ty}",
                    dims_list(broadcast_dimensions)
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Transpose { permutation } => {
                arity(1)?;
                let (x, xt) = leaf(0)?;
                let ty = array_result(ins, opcode)?;
                let rhs = format!(
                    "stablehlo.transpose {x}, dims = {} : ({xt}) -> {ty}",
                    dims_list(permutation)
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Reduce {
                dimensions,
                computation,
            } => self.reduce(ins, ops, dimensions, computation, depth),
            Op::ReduceWindow {
                window,
                computation,
            } => self.reduce_window(ins, ops, window, computation, depth),
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            } => self.select_and_scatter(ins, ops, window, select, scatter, depth),
            // StableHLO has no scan; CHLO's `chlo.scan` is XLA's own, legalised to a while
            // loop by XLA, so the oracle runs XLA's lowering rather than `expand_scan`.
            Op::Scan {
                scan_dimension,
                is_reverse,
                is_associative,
                num_carries,
                to_apply,
            } => {
                let m = ops.len().saturating_sub(*num_carries);
                let n = ins.shape.as_tuple().map_or(0, |t| t.len()) - num_carries;
                let assoc =
                    is_associative.map_or(String::new(), |a| format!(", is_associative = {a}"));
                let attrs = format!(
                    "{{dimension = {scan_dimension} : i64, is_reverse = {is_reverse}{assoc}, \
                     operandSegmentSizes = array<i32: {m}, {num_carries}>, \
                     resultSegmentSizes = array<i32: {n}, {num_carries}>}}"
                );
                self.regions_op(ins, ops, "chlo.scan", &[to_apply], &attrs, depth)
            }
            Op::DotGeneral {
                dimension_numbers: dn,
                preferred_element_type: _,
            } => {
                arity(2)?;
                let ((x, xt), (y, yt)) = (leaf(0)?, leaf(1)?);
                // The preferred element type is the instruction's result element type already.
                let ty = array_result(ins, opcode)?;
                let mut rhs = format!("stablehlo.dot_general {x}, {y}, ");
                if !dn.lhs_batch_dimensions.is_empty() || !dn.rhs_batch_dimensions.is_empty() {
                    let _ = write!(
                        rhs,
                        "batching_dims = {} x {}, ",
                        dims_list(&dn.lhs_batch_dimensions),
                        dims_list(&dn.rhs_batch_dimensions)
                    );
                }
                // HIGHEST: XLA:CPU computes f32 dots in f32 at any precision, but other
                // backends would round operands to bf16 at DEFAULT; the oracle must not.
                let _ = write!(
                    rhs,
                    "contracting_dims = {} x {}, precision = [HIGHEST, HIGHEST] : ({xt}, {yt}) -> {ty}",
                    dims_list(&dn.lhs_contracting_dimensions),
                    dims_list(&dn.rhs_contracting_dimensions)
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::OptimizationBarrier => {
                let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
                let results = super::text::results_type(&ins.shape);
                let rhs =
                    format!("\"stablehlo.optimization_barrier\"({names}) : ({types}) -> {results}");
                Ok(self.multi(depth, &rhs, &ins.shape))
            }
            Op::CustomCall {
                target,
                opaque,
                has_side_effect,
            } => {
                let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
                let results = super::text::results_type(&ins.shape);
                let rhs = format!(
                    "\"stablehlo.custom_call\"({names}) {{backend_config = {opaque:?}, \
                     call_target_name = {target:?}, has_side_effect = {has_side_effect}}} : \
                     ({types}) -> {results}"
                );
                Ok(self.multi(depth, &rhs, &ins.shape))
            }
            Op::AfterAll => {
                let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
                let ty = "!stablehlo.token".to_string();
                let rhs = format!("\"stablehlo.after_all\"({names}) : ({types}) -> {ty}");
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Tuple => Ok(Val::Tuple(ops.to_vec())),
            Op::GetTupleElement { index } => {
                arity(1)?;
                match &ops[0] {
                    Val::Tuple(elems) => elems.get(*index).cloned().ok_or_else(|| {
                        Error::new(
                            opcode,
                            format!(
                                "StableHLO export: element {index} of a {}-tuple",
                                elems.len()
                            ),
                        )
                    }),
                    Val::Leaf { .. } => Err(Error::new(
                        opcode,
                        "StableHLO export: operand is not a tuple",
                    )),
                }
            }
            Op::Rev { dimensions } => {
                arity(1)?;
                let (x, _) = leaf(0)?;
                let ty = array_result(ins, opcode)?;
                let rhs = format!(
                    "stablehlo.reverse {x}, dims = {} : {ty}",
                    dims_list(dimensions)
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Slice {
                start_indices,
                limit_indices,
                strides,
            } => {
                arity(1)?;
                let (x, xt) = leaf(0)?;
                let ty = array_result(ins, opcode)?;
                if limit_indices.len() != start_indices.len()
                    || strides.len() != start_indices.len()
                {
                    return Err(Error::new(
                        opcode,
                        "StableHLO export: slice attributes of different lengths",
                    ));
                }
                let ranges: Vec<String> = (0..strides.len())
                    .map(|d| match strides[d] {
                        1 => format!("{}:{}", start_indices[d], limit_indices[d]),
                        s => format!("{}:{}:{s}", start_indices[d], limit_indices[d]),
                    })
                    .collect();
                let rhs = format!(
                    "stablehlo.slice {x} [{}] : ({xt}) -> {ty}",
                    ranges.join(", ")
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Pad { config } => {
                arity(2)?;
                let ((x, xt), (v, vt)) = (leaf(0)?, leaf(1)?);
                let ty = array_result(ins, opcode)?;
                let field = |f: fn(&crate::ir::PadDim) -> i64| {
                    dims_list(&config.iter().map(f).collect::<Vec<_>>())
                };
                let rhs = format!(
                    "stablehlo.pad {x}, {v}, low = {}, high = {}, interior = {} : ({xt}, {vt}) -> {ty}",
                    field(|p| p.low),
                    field(|p| p.high),
                    field(|p| p.interior)
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Concatenate { dimension } => {
                if ops.is_empty() {
                    return Err(Error::new(opcode, "StableHLO export: no operands"));
                }
                let leaves = (0..ops.len()).map(leaf).collect::<Result<Vec<_>>>()?;
                let names: Vec<&str> = leaves.iter().map(|l| l.0).collect();
                let types: Vec<&str> = leaves.iter().map(|l| l.1).collect();
                let ty = array_result(ins, opcode)?;
                let rhs = format!(
                    "stablehlo.concatenate {}, dim = {dimension} : ({}) -> {ty}",
                    names.join(", "),
                    types.join(", ")
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::Sort {
                dimension,
                is_stable,
                comparator,
            } => self.sort(ins, ops, *dimension, *is_stable, comparator, depth),
            Op::Collective(c) => self.collective(ins, ops, c, depth),
            Op::HostIo(h) => self.host_io(ins, ops, h, depth),
            Op::Fft {
                fft_type,
                fft_length,
            } => {
                arity(1)?;
                let (x, xt) = leaf(0)?;
                let ty = array_result(ins, opcode)?;
                let rhs = format!(
                    "stablehlo.fft {x}, type = {}, length = {} : ({xt}) -> {ty}",
                    fft_type.name(),
                    dims_list(fft_length)
                );
                Ok(self.single(depth, &rhs, ty))
            }
            Op::TopK { k, largest } => self.top_k(ins, ops, operand_shapes, *k, *largest, depth),
            Op::RngBitGenerator { algorithm } => {
                self.rng_bit_generator(ins, ops, *algorithm, depth)
            }
            Op::Rng { distribution, .. } => self.rng(ins, ops, *distribution, depth),
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                indices_are_sorted,
            } => self.gather(
                ins,
                ops,
                dimension_numbers,
                slice_sizes,
                *indices_are_sorted,
                depth,
            ),
            Op::Scatter {
                dimension_numbers,
                indices_are_sorted,
                unique_indices,
                update_computation,
            } => self.scatter(
                ins,
                ops,
                dimension_numbers,
                *indices_are_sorted,
                *unique_indices,
                update_computation,
                depth,
            ),
            Op::DynamicSlice { slice_sizes } => {
                let sizes = super::text::i64_array(slice_sizes);
                let attrs = format!(" {{slice_sizes = {sizes}}}");
                self.positional(ins, ops, "stablehlo.dynamic_slice", &attrs, depth)
            }
            Op::DynamicUpdateSlice => {
                self.positional(ins, ops, "stablehlo.dynamic_update_slice", "", depth)
            }
            Op::GetDimensionSize { dimension } => {
                let attrs = format!(" {{dimension = {dimension} : i64}}");
                self.positional(ins, ops, "stablehlo.get_dimension_size", &attrs, depth)
            }
            Op::SetDimensionSize { dimension } => {
                let attrs = format!(" {{dimension = {dimension} : i64}}");
                self.positional(ins, ops, "stablehlo.set_dimension_size", &attrs, depth)
            }
            Op::DynamicReshape => self.dynamic_reshape(ins, ops, depth),
            Op::Cholesky { lower } => {
                let attrs = format!(" {{lower = {lower}}}");
                self.positional(ins, ops, "stablehlo.cholesky", &attrs, depth)
            }
            Op::TriangularSolve {
                left_side,
                lower,
                unit_diagonal,
                transpose_a,
            } => {
                let attrs = format!(
                    " {{left_side = {left_side}, lower = {lower}, transpose_a = \
                     #stablehlo<transpose {}>, unit_diagonal = {unit_diagonal}}}",
                    transpose_a.name()
                );
                self.positional(ins, ops, "stablehlo.triangular_solve", &attrs, depth)
            }
            Op::Convolution {
                window: w,
                dimension_numbers: dn,
                feature_group_count,
                batch_group_count,
                preferred_element_type: _,
            } => {
                arity(2)?;
                self.convolution(
                    ins,
                    ops,
                    operand_shapes,
                    w,
                    dn,
                    *feature_group_count,
                    *batch_group_count,
                    depth,
                )
            }
            Op::While { condition, body } => self.while_loop(ins, ops, condition, body, depth),
            Op::Conditional { branches } => {
                self.conditional(ins, ops, operand_shapes, branches, depth)
            }
            Op::BatchNorm {
                kind,
                feature_index,
                epsilon,
            } => {
                arity(kind.operand_names().len())?;
                let name = crate::registry::batch_norm_name(*kind);
                // Nine significant digits: the f32 reads back exactly.
                let attrs = format!(
                    "{{epsilon = {epsilon:.8e} : f32, feature_index = {feature_index} : i64}}"
                );
                let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
                let results = super::text::results_type(&ins.shape);
                let rhs = format!("\"{name}\"({names}) {attrs} : ({types}) -> {results}");
                Ok(self.multi(depth, &rhs, &ins.shape))
            }
            // XLA:CPU has no ragged-dot emitter (modes 1 and 2: `UNIMPLEMENTED`): the
            // expansion's ops, written in place.
            Op::RaggedDot {
                dimension_numbers,
                preferred_element_type,
            } => {
                arity(3)?;
                let c = crate::builder::expand_ragged_dot(
                    operand_shapes,
                    dimension_numbers,
                    *preferred_element_type,
                )?;
                self.computation(&c, ops, depth)
            }
            // No scaled dot reaches XLA:CPU from StableHLO: the expansion, written in place.
            Op::ScaledDot {
                dimension_numbers,
                preferred_element_type,
            } => {
                arity(4)?;
                let c = crate::builder::expand_scaled_dot(
                    operand_shapes,
                    dimension_numbers,
                    *preferred_element_type,
                )?;
                self.computation(&c, ops, depth)
            }
            Op::Map {
                dimensions,
                computation,
            } => self.region_op(
                ins,
                ops,
                "stablehlo.map",
                computation,
                &format!("{{dimensions = {}}}", i64_array(dimensions)),
                depth,
            ),
            Op::Call {
                computation,
                composite,
            } => {
                let symbol = self.module.callee(computation)?;
                let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
                let results = super::text::results_type(&ins.shape);
                let rhs = match composite {
                    None => format!("func.call @{symbol}({names}) : ({types}) -> {results}"),
                    Some(c) => {
                        let attrs = match c.attributes.trim() {
                            "" => String::new(),
                            a => format!("composite_attributes = {a}, "),
                        };
                        format!(
                            "\"stablehlo.composite\"({names}) {{{attrs}decomposition = @{symbol}, \
                             name = {:?}, version = {} : i32}} : ({types}) -> {results}",
                            c.name, c.version
                        )
                    }
                };
                Ok(self.multi(depth, &rhs, &ins.shape))
            }
        }
    }

    /// `"stablehlo.reduce"(inputs..., inits...) ({ ^bb0(accs..., elems...): ... }) {dimensions}`.
    fn reduce(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        dimensions: &[i64],
        computation: &crate::ir::Computation,
        depth: usize,
    ) -> Result<Val> {
        self.region_op(
            ins,
            ops,
            "stablehlo.reduce",
            computation,
            &format!("{{dimensions = {}}}", i64_array(dimensions)),
            depth,
        )
    }

    /// `%r = "op"(operands...) ({ ^bb0(params...): <computation> stablehlo.return ... }) {attrs}
    /// : (operand types) -> result types`: an op with one region whose block arguments are the
    /// computation's parameters (Reduce's reducer, Sort's comparator); the op's results, as a
    /// tree of the instruction's shape.
    pub(super) fn region_op(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        opname: &str,
        computation: &crate::ir::Computation,
        attrs: &str,
        depth: usize,
    ) -> Result<Val> {
        self.regions_op(ins, ops, opname, &[computation], attrs, depth)
    }

    /// [`Body::region_op`] with one region per computation, in order (SelectAndScatter's
    /// select then scatter).
    pub(super) fn regions_op(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        opname: &str,
        computations: &[&crate::ir::Computation],
        attrs: &str,
        depth: usize,
    ) -> Result<Val> {
        let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
        let mut result_types = Vec::new();
        super::text::flat_types(&ins.shape, &mut result_types);
        let results = if result_types.len() == 1 {
            result_types[0].clone()
        } else {
            format!("({})", result_types.join(", "))
        };
        let mut regions = Vec::with_capacity(computations.len());
        for computation in computations {
            let mut block_args = Vec::new();
            let mut region_args = Vec::new();
            for p in &computation.params {
                let v = tree(p, &mut || format!("%{}", self.fresh()));
                let mut leaves = Vec::new();
                v.flatten(&mut leaves);
                for l in leaves {
                    if let Val::Leaf { name, ty } = l {
                        block_args.push(format!("{name}: {ty}"));
                    }
                }
                region_args.push(v);
            }
            regions.push((block_args, region_args));
        }
        let n = self.fresh();
        let k = result_types.len();
        let lhs = if k == 1 {
            format!("%{n}")
        } else {
            format!("%{n}:{k}")
        };
        self.line(depth, &format!("{lhs} = \"{opname}\"({names}) ({{"));
        for (r, (computation, (block_args, region_args))) in
            computations.iter().zip(regions).enumerate()
        {
            if r > 0 {
                self.line(depth, "}, {");
            }
            self.line(depth, &format!("^bb0({}):", block_args.join(", ")));
            let root = self.computation(computation, &region_args, depth + 1)?;
            let (rn, rt) = root.names_and_types();
            self.line(depth + 1, &format!("stablehlo.return {rn} : {rt}"));
        }
        self.line(depth, &format!("}}) {attrs} : ({types}) -> {results}"));
        let mut i = 0;
        Ok(tree(&ins.shape, &mut || {
            i += 1;
            if k == 1 {
                format!("%{n}")
            } else {
                format!("%{n}#{}", i - 1)
            }
        }))
    }
}
