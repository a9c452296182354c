//! Encoding: the `Writer` that turns a computation into bytes (see the parent module).

use crate::element::ElementType;
use crate::ir::{BatchNormKind, Computation, Op, RandomAlgorithm, RngDistribution, TransposeA};
use crate::literal::{ArrayData, Literal};
use crate::shape::{ArrayShape, Shape};

use super::codes::{binary_code, direction_code, fft_type_code, unary_code};
use super::Writer;

impl Writer {
    pub(super) fn u(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }
    pub(super) fn i(&mut self, v: i64) {
        self.u(((v << 1) ^ (v >> 63)) as u64);
    }
    pub(super) fn ints(&mut self, v: &[i64]) {
        self.u(v.len() as u64);
        v.iter().for_each(|&x| self.i(x));
    }
    pub(super) fn str(&mut self, s: &str) {
        self.u(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    pub(super) fn opt_ty(&mut self, t: Option<ElementType>) {
        match t {
            None => self.u(0),
            Some(t) => {
                self.u(1);
                self.ty(t);
            }
        }
    }

    pub(super) fn ty(&mut self, t: ElementType) {
        self.u(ElementType::ALL.iter().position(|&x| x == t).unwrap_or(0) as u64);
    }

    pub(super) fn shape(&mut self, s: &Shape) {
        match s {
            Shape::Array(a) => {
                self.u(0);
                self.array_shape(a);
            }
            Shape::Tuple(ts) => {
                self.u(1);
                self.u(ts.len() as u64);
                ts.iter().for_each(|t| self.shape(t));
            }
            Shape::Token => self.u(2),
        }
    }

    pub(super) fn array_shape(&mut self, a: &ArrayShape) {
        self.ty(a.ty);
        self.ints(&a.dims);
        self.u(a.dynamic.len() as u64);
        a.dynamic.iter().for_each(|&d| self.u(u64::from(d)));
        match &a.layout {
            None => self.u(0),
            Some(l) => {
                self.u(1);
                self.ints(&l.minor_to_major);
                match &l.padded_dimensions {
                    None => self.u(0),
                    Some(p) => {
                        self.u(1);
                        self.ints(p);
                    }
                }
            }
        }
    }

    pub(super) fn literal(&mut self, l: &Literal) {
        match l {
            Literal::Array { shape, data } => {
                self.u(0);
                self.array_shape(shape);
                let bytes = data_bytes(data);
                self.u(bytes.len() as u64);
                self.0.extend_from_slice(&bytes);
            }
            Literal::Tuple(ls) => {
                self.u(1);
                self.u(ls.len() as u64);
                ls.iter().for_each(|x| self.literal(x));
            }
            Literal::Token => self.u(2),
        }
    }

    pub(super) fn computation(&mut self, c: &Computation) {
        self.str(&c.name);
        self.u(c.params.len() as u64);
        c.params.iter().for_each(|p| self.shape(p));
        self.u(c.instrs.len() as u64);
        for ins in &c.instrs {
            self.op(&ins.op);
            self.u(ins.operands.len() as u64);
            ins.operands.iter().for_each(|o| self.u(u64::from(o.0)));
            self.shape(&ins.shape);
        }
        self.u(u64::from(c.root.0));
    }

    pub(super) fn op(&mut self, op: &Op) {
        match op {
            Op::Parameter { index, name } => {
                self.u(0);
                self.u(*index as u64);
                self.str(name);
            }
            Op::Constant(l) => {
                self.u(1);
                self.literal(l);
            }
            Op::Iota { dimension } => {
                self.u(2);
                self.u(*dimension as u64);
            }
            Op::Unary(u) => {
                self.u(3);
                self.u(unary_code(*u));
            }
            Op::Binary(b) => {
                self.u(4);
                self.u(binary_code(*b));
            }
            Op::Compare {
                direction,
                total_order,
            } => {
                self.u(5);
                self.u(direction_code(*direction));
                self.u(u64::from(*total_order));
            }
            Op::Select => self.u(6),
            Op::Clamp => self.u(7),
            Op::ConvertElementType => self.u(8),
            Op::BitcastConvertType => self.u(9),
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                self.u(10);
                self.u(u64::from(*exponent_bits));
                self.u(u64::from(*mantissa_bits));
            }
            Op::BroadcastInDim {
                broadcast_dimensions,
            } => {
                self.u(11);
                self.ints(broadcast_dimensions);
            }
            Op::Reshape => self.u(12),
            Op::Transpose { permutation } => {
                self.u(13);
                self.ints(permutation);
            }
            Op::Reduce {
                dimensions,
                computation,
            } => {
                self.u(14);
                self.ints(dimensions);
                self.computation(computation);
            }
            Op::DotGeneral {
                dimension_numbers: d,
                preferred_element_type,
            }
            | Op::ScaledDot {
                dimension_numbers: d,
                preferred_element_type,
            } => {
                self.u(if matches!(op, Op::ScaledDot { .. }) {
                    45
                } else {
                    15
                });
                self.ints(&d.lhs_contracting_dimensions);
                self.ints(&d.rhs_contracting_dimensions);
                self.ints(&d.lhs_batch_dimensions);
                self.ints(&d.rhs_batch_dimensions);
                self.opt_ty(*preferred_element_type);
            }
            Op::Tuple => self.u(16),
            Op::GetTupleElement { index } => {
                self.u(17);
                self.u(*index as u64);
            }
            Op::Call {
                computation,
                composite: None,
            } => {
                self.u(18);
                self.computation(computation);
            }
            Op::Call {
                computation,
                composite: Some(c),
            } => {
                self.u(47);
                self.computation(computation);
                self.str(&c.name);
                self.str(&c.attributes);
                self.i(c.version);
            }
            Op::Rev { dimensions } => {
                self.u(19);
                self.ints(dimensions);
            }
            Op::Slice {
                start_indices,
                limit_indices,
                strides,
            } => {
                self.u(20);
                self.ints(start_indices);
                self.ints(limit_indices);
                self.ints(strides);
            }
            Op::Pad { config } => {
                self.u(21);
                self.u(config.len() as u64);
                for p in config {
                    self.i(p.low);
                    self.i(p.high);
                    self.i(p.interior);
                }
            }
            Op::Concatenate { dimension } => {
                self.u(22);
                self.i(*dimension);
            }
            Op::Sort {
                dimension,
                is_stable,
                comparator,
            } => {
                self.u(23);
                self.i(*dimension);
                self.u(u64::from(*is_stable));
                self.computation(comparator);
            }
            Op::Cholesky { lower } => {
                self.u(38);
                self.u(u64::from(*lower));
            }
            Op::TriangularSolve {
                left_side,
                lower,
                unit_diagonal,
                transpose_a,
            } => {
                self.u(39);
                for flag in [left_side, lower, unit_diagonal] {
                    self.u(u64::from(*flag));
                }
                self.u(match transpose_a {
                    TransposeA::NoTranspose => 0,
                    TransposeA::Transpose => 1,
                    TransposeA::Adjoint => 2,
                });
            }
            Op::TopK { k, largest } => {
                self.u(24);
                self.i(*k);
                self.u(u64::from(*largest));
            }
            Op::Collective(c) => self.collective(c),
            Op::HostIo(h) => self.host_io(h),
            Op::Fft {
                fft_type,
                fft_length,
            } => {
                self.u(40);
                self.u(fft_type_code(*fft_type));
                self.ints(fft_length);
            }
            Op::Convolution {
                window: w,
                dimension_numbers: d,
                feature_group_count,
                batch_group_count,
                preferred_element_type,
            } => {
                self.u(25);
                self.ints(&w.strides);
                self.u(w.padding.len() as u64);
                for &(lo, hi) in &w.padding {
                    self.i(lo);
                    self.i(hi);
                }
                self.ints(&w.lhs_dilation);
                self.ints(&w.rhs_dilation);
                self.u(w.window_reversal.len() as u64);
                w.window_reversal.iter().for_each(|&r| self.u(u64::from(r)));
                for v in [
                    d.input_batch_dimension,
                    d.input_feature_dimension,
                    d.kernel_input_feature_dimension,
                    d.kernel_output_feature_dimension,
                    d.output_batch_dimension,
                    d.output_feature_dimension,
                ] {
                    self.i(v);
                }
                self.ints(&d.input_spatial_dimensions);
                self.ints(&d.kernel_spatial_dimensions);
                self.ints(&d.output_spatial_dimensions);
                self.i(*feature_group_count);
                self.i(*batch_group_count);
                self.opt_ty(*preferred_element_type);
            }
            Op::While { condition, body } => {
                self.u(26);
                self.computation(condition);
                self.computation(body);
            }
            Op::Conditional { branches } => {
                self.u(27);
                self.u(branches.len() as u64);
                branches.iter().for_each(|b| self.computation(b));
            }
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                indices_are_sorted,
            } => {
                self.u(28);
                self.gather(dimension_numbers, slice_sizes, *indices_are_sorted);
            }
            Op::Scatter {
                dimension_numbers,
                indices_are_sorted,
                unique_indices,
                update_computation,
            } => {
                self.u(29);
                self.scatter(dimension_numbers, *indices_are_sorted, *unique_indices);
                self.computation(update_computation);
            }
            Op::BatchNorm {
                kind,
                feature_index,
                epsilon,
            } => {
                self.u(30);
                self.u(match kind {
                    BatchNormKind::Training => 0,
                    BatchNormKind::Inference => 1,
                    BatchNormKind::Grad => 2,
                });
                self.i(*feature_index);
                self.u(u64::from(epsilon.to_bits()));
            }
            Op::Map {
                dimensions,
                computation,
            } => {
                self.u(31);
                self.ints(dimensions);
                self.computation(computation);
            }
            Op::DynamicSlice { slice_sizes } => {
                self.u(32);
                self.ints(slice_sizes);
            }
            Op::DynamicUpdateSlice => self.u(33),
            Op::GetDimensionSize { dimension } => {
                self.u(71);
                self.i(*dimension);
            }
            Op::SetDimensionSize { dimension } => {
                self.u(72);
                self.i(*dimension);
            }
            Op::DynamicReshape => self.u(73),
            Op::OptimizationBarrier => self.u(43),
            Op::AfterAll => self.u(44),
            Op::CustomCall {
                target,
                opaque,
                has_side_effect,
            } => {
                self.u(48);
                self.str(target);
                self.str(opaque);
                self.u(u64::from(*has_side_effect));
            }
            Op::RaggedDot {
                dimension_numbers: d,
                preferred_element_type,
            } => {
                self.u(46);
                self.ints(&d.dot.lhs_contracting_dimensions);
                self.ints(&d.dot.rhs_contracting_dimensions);
                self.ints(&d.dot.lhs_batch_dimensions);
                self.ints(&d.dot.rhs_batch_dimensions);
                self.ints(&d.lhs_ragged_dimensions);
                self.ints(&d.rhs_group_dimensions);
                self.opt_ty(*preferred_element_type);
            }
            Op::ReduceWindow {
                window,
                computation,
            } => {
                self.u(34);
                self.window(window);
                self.computation(computation);
            }
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            } => {
                self.u(41);
                self.window(window);
                self.computation(select);
                self.computation(scatter);
            }
            Op::Scan {
                scan_dimension,
                is_reverse,
                is_associative,
                num_carries,
                to_apply,
            } => {
                self.u(42);
                self.i(*scan_dimension);
                self.u(u64::from(*is_reverse));
                // XLA's tri-state: 0 unknown, 1 false, 2 true.
                self.u(is_associative.map_or(0, |a| 1 + u64::from(a)));
                self.u(*num_carries as u64);
                self.computation(to_apply);
            }
            Op::Rng { distribution, seed } => {
                self.u(match distribution {
                    RngDistribution::Uniform => 35,
                    RngDistribution::Normal => 36,
                });
                self.u(*seed);
            }
            Op::RngBitGenerator { algorithm } => {
                self.u(37);
                self.u(match algorithm {
                    RandomAlgorithm::Default => 0,
                    RandomAlgorithm::ThreeFry => 1,
                    RandomAlgorithm::Philox => 2,
                });
            }
        }
    }
}

/// Elements as little-endian bytes (pred: one byte, complex: re then im).
pub(super) fn data_bytes(d: &ArrayData) -> Vec<u8> {
    macro_rules! le {
        ($v:expr) => {
            $v.iter().flat_map(|x| x.to_le_bytes()).collect()
        };
    }
    match d {
        ArrayData::Pred(v) => v.iter().map(|&b| u8::from(b)).collect(),
        ArrayData::S8(v) => le!(v),
        ArrayData::S16(v) => le!(v),
        ArrayData::S32(v) => le!(v),
        ArrayData::S64(v) => le!(v),
        ArrayData::U8(v) => v.clone(),
        ArrayData::U16(v) => le!(v),
        ArrayData::U32(v) => le!(v),
        ArrayData::U64(v) => le!(v),
        ArrayData::F16(v) => le!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
        ArrayData::Bf16(v) => le!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
        ArrayData::F32(v) => le!(v),
        ArrayData::F64(v) => le!(v),
        ArrayData::C64(v) => v
            .iter()
            .flat_map(|c| [c.re.to_le_bytes(), c.im.to_le_bytes()].concat())
            .collect(),
        ArrayData::C128(v) => v
            .iter()
            .flat_map(|c| [c.re.to_le_bytes(), c.im.to_le_bytes()].concat())
            .collect(),
    }
}
