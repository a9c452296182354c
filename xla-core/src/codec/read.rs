//! Decoding: the `Reader` that checks and rebuilds a computation from bytes (see the parent
//! module).

use std::sync::Arc;

use num_complex::Complex;

use crate::element::ElementType;
use crate::error::Result;
use crate::ir::{
    BatchNormKind, Computation, ConvDimensionNumbers, ConvWindow, DotDimensionNumbers, InstrId,
    Instruction, Op, PadDim, RaggedDotDimensionNumbers, RandomAlgorithm, RngDistribution,
    TransposeA,
};
use crate::layout::Layout;
use crate::literal::{ArrayData, Literal};
use crate::shape::{ArrayShape, Shape};

use super::codes::{code_binary, code_direction, code_fft_type, code_unary};
use super::{collective, err, host_io, Reader};

/// How deeply computations may nest in encoded bytes (a reducer inside a called fn inside ...):
/// far beyond any program, and a bound on the decoder's recursion for foreign bytes.
pub(super) const MAX_NESTING: usize = 64;

impl Reader<'_> {
    pub(super) fn u8(&mut self) -> Result<u8> {
        let v = *self
            .b
            .get(self.at)
            .ok_or_else(|| err(format!("truncated at byte {}", self.at)))?;
        self.at += 1;
        Ok(v)
    }
    pub(super) fn u(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(err(format!("varint too long at byte {}", self.at)))
    }
    pub(super) fn usize(&mut self) -> Result<usize> {
        usize::try_from(self.u()?).map_err(|_| err("count does not fit in usize".into()))
    }
    /// A count of items each at least one byte long: more than the bytes left is corrupt.
    pub(super) fn count(&mut self) -> Result<usize> {
        let n = self.usize()?;
        if n > self.b.len() - self.at {
            return Err(err(format!("count {n} exceeds the bytes left")));
        }
        Ok(n)
    }
    pub(super) fn i(&mut self) -> Result<i64> {
        let z = self.u()?;
        Ok((z >> 1) as i64 ^ -((z & 1) as i64))
    }
    pub(super) fn ints(&mut self) -> Result<Vec<i64>> {
        let n = self.count()?;
        (0..n).map(|_| self.i()).collect()
    }
    pub(super) fn bytes(&mut self, n: usize) -> Result<&[u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| err(format!("truncated: {n} bytes wanted at byte {}", self.at)))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    pub(super) fn str(&mut self) -> Result<String> {
        let n = self.count()?;
        String::from_utf8(self.bytes(n)?.to_vec()).map_err(|_| err("a name is not UTF-8".into()))
    }
    pub(super) fn bool(&mut self) -> Result<bool> {
        match self.u()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(err(format!("bool {v}"))),
        }
    }
    pub(super) fn ty(&mut self) -> Result<ElementType> {
        let i = self.usize()?;
        ElementType::ALL
            .get(i)
            .copied()
            .ok_or_else(|| err(format!("element type code {i}")))
    }

    pub(super) fn shape(&mut self, depth: usize) -> Result<Shape> {
        if depth > MAX_NESTING {
            return Err(err("tuples nested too deeply".into()));
        }
        match self.u()? {
            0 => Ok(Shape::Array(self.array_shape()?)),
            1 => {
                let n = self.count()?;
                let ts = (0..n)
                    .map(|_| self.shape(depth + 1))
                    .collect::<Result<_>>()?;
                Ok(Shape::Tuple(ts))
            }
            2 => Ok(Shape::Token),
            t => Err(err(format!("shape tag {t}"))),
        }
    }

    pub(super) fn array_shape(&mut self) -> Result<ArrayShape> {
        let ty = self.ty()?;
        let dims = self.ints()?;
        let n = self.count()?;
        let dynamic = (0..n).map(|_| self.bool()).collect::<Result<_>>()?;
        let layout = if self.bool()? {
            let minor_to_major = self.ints()?;
            let padded_dimensions = if self.bool()? {
                Some(self.ints()?)
            } else {
                None
            };
            Some(Layout {
                minor_to_major,
                padded_dimensions,
            })
        } else {
            None
        };
        let a = ArrayShape {
            ty,
            dims,
            dynamic,
            layout,
        };
        a.validate()?;
        Ok(a)
    }

    pub(super) fn literal(&mut self, depth: usize) -> Result<Literal> {
        if depth > MAX_NESTING {
            return Err(err("tuples nested too deeply".into()));
        }
        match self.u()? {
            0 => {
                let shape = self.array_shape()?;
                let n = usize::try_from(shape.element_count())
                    .map_err(|_| err("element count".into()))?;
                let len = self.usize()?;
                let data = data_from_bytes(shape.ty, n, self.bytes(len)?)?;
                Ok(Literal::Array { shape, data })
            }
            1 => {
                let n = self.count()?;
                let ls = (0..n)
                    .map(|_| self.literal(depth + 1))
                    .collect::<Result<_>>()?;
                Ok(Literal::Tuple(ls))
            }
            2 => Ok(Literal::Token),
            t => Err(err(format!("literal tag {t}"))),
        }
    }

    pub(super) fn computation(&mut self, depth: usize) -> Result<Computation> {
        if depth > MAX_NESTING {
            return Err(err("computations nested too deeply".into()));
        }
        let name = self.str()?;
        let np = self.count()?;
        let params = (0..np).map(|_| self.shape(0)).collect::<Result<_>>()?;
        let ni = self.count()?;
        let mut instrs = Vec::with_capacity(ni);
        for k in 0..ni {
            let op = self.op(depth)?;
            let no = self.count()?;
            let operands = (0..no)
                .map(|_| {
                    let o = self.u()?;
                    // Operands come before their users (the IR's invariant).
                    u32::try_from(o)
                        .ok()
                        .filter(|&o| (o as usize) < k)
                        .map(InstrId)
                        .ok_or_else(|| err(format!("instruction {k} reads instruction {o}")))
                })
                .collect::<Result<_>>()?;
            let shape = self.shape(0)?;
            instrs.push(Instruction {
                op,
                operands,
                shape,
            });
        }
        let root = u32::try_from(self.u()?)
            .ok()
            .filter(|&r| (r as usize) < instrs.len())
            .map(InstrId)
            .ok_or_else(|| err(format!("root out of range in `{name}`")))?;
        Ok(Computation {
            name,
            params,
            instrs,
            root,
        })
    }

    pub(super) fn opt_ty(&mut self) -> Result<Option<ElementType>> {
        Ok(if self.bool()? { Some(self.ty()?) } else { None })
    }

    pub(super) fn convolution(&mut self) -> Result<Op> {
        let strides = self.ints()?;
        let np = self.count()?;
        let padding = (0..np)
            .map(|_| Ok((self.i()?, self.i()?)))
            .collect::<Result<_>>()?;
        let lhs_dilation = self.ints()?;
        let rhs_dilation = self.ints()?;
        let nr = self.count()?;
        let window_reversal = (0..nr).map(|_| self.bool()).collect::<Result<_>>()?;
        let window = ConvWindow {
            strides,
            padding,
            lhs_dilation,
            rhs_dilation,
            window_reversal,
        };
        let mut d = ConvDimensionNumbers {
            input_batch_dimension: self.i()?,
            input_feature_dimension: self.i()?,
            kernel_input_feature_dimension: self.i()?,
            kernel_output_feature_dimension: self.i()?,
            output_batch_dimension: self.i()?,
            output_feature_dimension: self.i()?,
            ..ConvDimensionNumbers::default()
        };
        d.input_spatial_dimensions = self.ints()?;
        d.kernel_spatial_dimensions = self.ints()?;
        d.output_spatial_dimensions = self.ints()?;
        Ok(Op::Convolution {
            window,
            dimension_numbers: d,
            feature_group_count: self.i()?,
            batch_group_count: self.i()?,
            preferred_element_type: self.opt_ty()?,
        })
    }

    pub(super) fn op(&mut self, depth: usize) -> Result<Op> {
        Ok(match self.u()? {
            0 => Op::Parameter {
                index: self.usize()?,
                name: self.str()?,
            },
            1 => Op::Constant(self.literal(0)?),
            2 => Op::Iota {
                dimension: self.usize()?,
            },
            3 => Op::Unary(code_unary(self.u()?)?),
            4 => Op::Binary(code_binary(self.u()?)?),
            5 => Op::Compare {
                direction: code_direction(self.u()?)?,
                total_order: self.bool()?,
            },
            6 => Op::Select,
            7 => Op::Clamp,
            8 => Op::ConvertElementType,
            9 => Op::BitcastConvertType,
            10 => Op::ReducePrecision {
                exponent_bits: u32::try_from(self.u()?).map_err(|_| err("bits".into()))?,
                mantissa_bits: u32::try_from(self.u()?).map_err(|_| err("bits".into()))?,
            },
            11 => Op::BroadcastInDim {
                broadcast_dimensions: self.ints()?,
            },
            12 => Op::Reshape,
            13 => Op::Transpose {
                permutation: self.ints()?,
            },
            14 => Op::Reduce {
                dimensions: self.ints()?,
                computation: Arc::new(self.computation(depth + 1)?),
            },
            code @ (15 | 45) => {
                let dimension_numbers = DotDimensionNumbers {
                    lhs_contracting_dimensions: self.ints()?,
                    rhs_contracting_dimensions: self.ints()?,
                    lhs_batch_dimensions: self.ints()?,
                    rhs_batch_dimensions: self.ints()?,
                };
                let preferred_element_type = self.opt_ty()?;
                if code == 45 {
                    Op::ScaledDot {
                        dimension_numbers,
                        preferred_element_type,
                    }
                } else {
                    Op::DotGeneral {
                        dimension_numbers,
                        preferred_element_type,
                    }
                }
            }
            16 => Op::Tuple,
            17 => Op::GetTupleElement {
                index: self.usize()?,
            },
            18 => Op::Call {
                computation: Arc::new(self.computation(depth + 1)?),
                composite: None,
            },
            47 => Op::Call {
                computation: Arc::new(self.computation(depth + 1)?),
                composite: Some(Box::new(crate::ir::Composite {
                    name: self.str()?,
                    attributes: self.str()?,
                    version: self.i()?,
                })),
            },
            19 => Op::Rev {
                dimensions: self.ints()?,
            },
            20 => Op::Slice {
                start_indices: self.ints()?,
                limit_indices: self.ints()?,
                strides: self.ints()?,
            },
            21 => {
                let n = self.count()?;
                let config = (0..n)
                    .map(|_| {
                        Ok(PadDim {
                            low: self.i()?,
                            high: self.i()?,
                            interior: self.i()?,
                        })
                    })
                    .collect::<Result<_>>()?;
                Op::Pad { config }
            }
            22 => Op::Concatenate {
                dimension: self.i()?,
            },
            23 => Op::Sort {
                dimension: self.i()?,
                is_stable: self.bool()?,
                comparator: Arc::new(self.computation(depth + 1)?),
            },
            24 => Op::TopK {
                k: self.i()?,
                largest: self.bool()?,
            },
            25 => self.convolution()?,
            40 => Op::Fft {
                fft_type: code_fft_type(self.u()?)?,
                fft_length: self.ints()?,
            },
            26 => Op::While {
                condition: Arc::new(self.computation(depth + 1)?),
                body: Arc::new(self.computation(depth + 1)?),
            },
            27 => {
                let n = self.count()?;
                let branches = (0..n)
                    .map(|_| self.computation(depth + 1).map(Arc::new))
                    .collect::<Result<_>>()?;
                Op::Conditional { branches }
            }
            28 => {
                let (dimension_numbers, slice_sizes, indices_are_sorted) = self.gather()?;
                Op::Gather {
                    dimension_numbers,
                    slice_sizes,
                    indices_are_sorted,
                }
            }
            29 => {
                let (dimension_numbers, indices_are_sorted, unique_indices) = self.scatter()?;
                Op::Scatter {
                    dimension_numbers,
                    indices_are_sorted,
                    unique_indices,
                    update_computation: Arc::new(self.computation(depth + 1)?),
                }
            }
            30 => Op::BatchNorm {
                kind: match self.u()? {
                    0 => BatchNormKind::Training,
                    1 => BatchNormKind::Inference,
                    2 => BatchNormKind::Grad,
                    k => return Err(err(format!("batch-norm kind {k}"))),
                },
                feature_index: self.i()?,
                epsilon: f32::from_bits(
                    u32::try_from(self.u()?).map_err(|_| err("epsilon bits".into()))?,
                ),
            },
            31 => Op::Map {
                dimensions: self.ints()?,
                computation: Arc::new(self.computation(depth + 1)?),
            },
            32 => Op::DynamicSlice {
                slice_sizes: self.ints()?,
            },
            33 => Op::DynamicUpdateSlice,
            71 => Op::GetDimensionSize {
                dimension: self.i()?,
            },
            72 => Op::SetDimensionSize {
                dimension: self.i()?,
            },
            73 => Op::DynamicReshape,
            43 => Op::OptimizationBarrier,
            44 => Op::AfterAll,
            48 => Op::CustomCall {
                target: self.str()?,
                opaque: self.str()?,
                has_side_effect: self.bool()?,
            },
            46 => Op::RaggedDot {
                dimension_numbers: RaggedDotDimensionNumbers {
                    dot: DotDimensionNumbers {
                        lhs_contracting_dimensions: self.ints()?,
                        rhs_contracting_dimensions: self.ints()?,
                        lhs_batch_dimensions: self.ints()?,
                        rhs_batch_dimensions: self.ints()?,
                    },
                    lhs_ragged_dimensions: self.ints()?,
                    rhs_group_dimensions: self.ints()?,
                },
                preferred_element_type: self.opt_ty()?,
            },
            34 => Op::ReduceWindow {
                window: self.window()?,
                computation: Arc::new(self.computation(depth + 1)?),
            },
            41 => Op::SelectAndScatter {
                window: self.window()?,
                select: Arc::new(self.computation(depth + 1)?),
                scatter: Arc::new(self.computation(depth + 1)?),
            },
            42 => Op::Scan {
                scan_dimension: self.i()?,
                is_reverse: self.bool()?,
                is_associative: match self.u()? {
                    0 => None,
                    1 => Some(false),
                    2 => Some(true),
                    v => return Err(err(format!("is_associative {v}"))),
                },
                num_carries: self.count()?,
                to_apply: Arc::new(self.computation(depth + 1)?),
            },
            38 => Op::Cholesky {
                lower: self.bool()?,
            },
            39 => Op::TriangularSolve {
                left_side: self.bool()?,
                lower: self.bool()?,
                unit_diagonal: self.bool()?,
                transpose_a: match self.u()? {
                    0 => TransposeA::NoTranspose,
                    1 => TransposeA::Transpose,
                    2 => TransposeA::Adjoint,
                    k => return Err(err(format!("transpose_a {k}"))),
                },
            },
            35 => Op::Rng {
                distribution: RngDistribution::Uniform,
                seed: self.u()?,
            },
            36 => Op::Rng {
                distribution: RngDistribution::Normal,
                seed: self.u()?,
            },
            37 => Op::RngBitGenerator {
                algorithm: match self.u()? {
                    0 => RandomAlgorithm::Default,
                    1 => RandomAlgorithm::ThreeFry,
                    2 => RandomAlgorithm::Philox,
                    a => return Err(err(format!("random algorithm code {a}"))),
                },
            },
            t if collective::is_collective_code(t) => self.collective(t, depth)?,
            t if host_io::is_host_io_code(t) => self.host_io(t)?,
            t => return Err(err(format!("op code {t}"))),
        })
    }
}

/// The inverse of [`data_bytes`](super::write::data_bytes) for `n` elements of `ty`; `Err` when the length is wrong.
pub(super) fn data_from_bytes(ty: ElementType, n: usize, b: &[u8]) -> Result<ArrayData> {
    let w = ty.byte_width();
    if n.checked_mul(w) != Some(b.len()) {
        return Err(err(format!("{} bytes for {n} elements of {ty}", b.len())));
    }
    macro_rules! from_le {
        ($t:ty) => {
            b.chunks_exact(std::mem::size_of::<$t>())
                .map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect::<Vec<$t>>()
        };
    }
    Ok(match ty {
        ElementType::Pred => ArrayData::Pred(b.iter().map(|&x| x != 0).collect()),
        ElementType::S8 => ArrayData::S8(from_le!(i8)),
        ElementType::S16 => ArrayData::S16(from_le!(i16)),
        ElementType::S32 => ArrayData::S32(from_le!(i32)),
        ElementType::S64 => ArrayData::S64(from_le!(i64)),
        ElementType::U8 => ArrayData::U8(b.to_vec()),
        ElementType::U16 => ArrayData::U16(from_le!(u16)),
        ElementType::U32 => ArrayData::U32(from_le!(u32)),
        ElementType::U64 => ArrayData::U64(from_le!(u64)),
        ElementType::F16 => ArrayData::F16(
            from_le!(u16)
                .into_iter()
                .map(half::f16::from_bits)
                .collect(),
        ),
        ElementType::Bf16 => ArrayData::Bf16(
            from_le!(u16)
                .into_iter()
                .map(half::bf16::from_bits)
                .collect(),
        ),
        ElementType::F32 => ArrayData::F32(from_le!(f32)),
        ElementType::F64 => ArrayData::F64(from_le!(f64)),
        ElementType::C64 => {
            let p = from_le!(f32);
            ArrayData::C64(
                p.chunks_exact(2)
                    .map(|c| Complex::new(c[0], c[1]))
                    .collect(),
            )
        }
        ElementType::C128 => {
            let p = from_le!(f64);
            ArrayData::C128(
                p.chunks_exact(2)
                    .map(|c| Complex::new(c[0], c[1]))
                    .collect(),
            )
        }
    })
}
