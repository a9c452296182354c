//! A compact binary form of a [`Computation`], so that a generated module carries its checked
//! IR as one byte-string constant (decoded on first use) instead of Rust code that rebuilds it:
//! the builder code was nearly half of a generated fn's expansion, and rustc compiles a byte
//! string in no time. Not a stable exchange format (StableHLO is that): the macro and the
//! runtime are the same `xla-core`, and a version byte refuses anything else.
//!
//! Layout: unsigned LEB128 varints for counts, indices and enum codes; zigzag varints for
//! signed integers; strings as a length and UTF-8 bytes; literals as their shape and their
//! elements' little-endian bytes (pred as one byte).

use std::sync::Arc;

use num_complex::Complex;

use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::ir::{
    BatchNormKind, BinaryOp, ComparisonDirection, Computation, ConvDimensionNumbers, ConvWindow,
    DotDimensionNumbers, FftType, InstrId, Instruction, Op, PadDim, RaggedDotDimensionNumbers,
    RandomAlgorithm, RngDistribution, TransposeA, UnaryOp,
};
use crate::layout::Layout;
use crate::literal::{ArrayData, Literal};
use crate::shape::{ArrayShape, Shape};

/// Bumped whenever the layout changes.
const VERSION: u8 = 1;

/// `comp` as bytes (see the module docs).
pub fn encode(comp: &Computation) -> Vec<u8> {
    let mut w = Writer(vec![VERSION]);
    w.computation(comp);
    w.0
}

/// The computation [`encode`] wrote; `Err` on bytes it did not write (truncated, another
/// version, an unknown code), never a panic.
pub fn decode(bytes: &[u8]) -> Result<Computation> {
    let mut r = Reader { b: bytes, at: 0 };
    let v = r.u8()?;
    if v != VERSION {
        return Err(err(format!(
            "encoded by format version {v}, this xla-core reads version {VERSION} (the xla! \
             macro and the runtime must be the same xla-core)"
        )));
    }
    let c = r.computation(0)?;
    if r.at != bytes.len() {
        return Err(err(format!("{} trailing bytes", bytes.len() - r.at)));
    }
    Ok(c)
}

fn err(m: String) -> Error {
    Error::new("IR decode", m)
}

struct Writer(Vec<u8>);

impl Writer {
    fn u(&mut self, mut v: u64) {
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
    fn i(&mut self, v: i64) {
        self.u(((v << 1) ^ (v >> 63)) as u64);
    }
    fn ints(&mut self, v: &[i64]) {
        self.u(v.len() as u64);
        v.iter().for_each(|&x| self.i(x));
    }
    fn str(&mut self, s: &str) {
        self.u(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_ty(&mut self, t: Option<ElementType>) {
        match t {
            None => self.u(0),
            Some(t) => {
                self.u(1);
                self.ty(t);
            }
        }
    }

    fn ty(&mut self, t: ElementType) {
        self.u(ElementType::ALL.iter().position(|&x| x == t).unwrap_or(0) as u64);
    }

    fn shape(&mut self, s: &Shape) {
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

    fn array_shape(&mut self, a: &ArrayShape) {
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

    fn literal(&mut self, l: &Literal) {
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

    fn computation(&mut self, c: &Computation) {
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

    fn op(&mut self, op: &Op) {
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
fn data_bytes(d: &ArrayData) -> Vec<u8> {
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

/// The inverse of [`data_bytes`] for `n` elements of `ty`; `Err` when the length is wrong.
fn data_from_bytes(ty: ElementType, n: usize, b: &[u8]) -> Result<ArrayData> {
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

/// How deeply computations may nest in encoded bytes (a reducer inside a called fn inside ...):
/// far beyond any program, and a bound on the decoder's recursion for foreign bytes.
const MAX_NESTING: usize = 64;

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> Result<u8> {
        let v = *self
            .b
            .get(self.at)
            .ok_or_else(|| err(format!("truncated at byte {}", self.at)))?;
        self.at += 1;
        Ok(v)
    }
    fn u(&mut self) -> Result<u64> {
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
    fn usize(&mut self) -> Result<usize> {
        usize::try_from(self.u()?).map_err(|_| err("count does not fit in usize".into()))
    }
    /// A count of items each at least one byte long: more than the bytes left is corrupt.
    fn count(&mut self) -> Result<usize> {
        let n = self.usize()?;
        if n > self.b.len() - self.at {
            return Err(err(format!("count {n} exceeds the bytes left")));
        }
        Ok(n)
    }
    fn i(&mut self) -> Result<i64> {
        let z = self.u()?;
        Ok((z >> 1) as i64 ^ -((z & 1) as i64))
    }
    fn ints(&mut self) -> Result<Vec<i64>> {
        let n = self.count()?;
        (0..n).map(|_| self.i()).collect()
    }
    fn bytes(&mut self, n: usize) -> Result<&[u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| err(format!("truncated: {n} bytes wanted at byte {}", self.at)))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn str(&mut self) -> Result<String> {
        let n = self.count()?;
        String::from_utf8(self.bytes(n)?.to_vec()).map_err(|_| err("a name is not UTF-8".into()))
    }
    fn bool(&mut self) -> Result<bool> {
        match self.u()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(err(format!("bool {v}"))),
        }
    }
    fn ty(&mut self) -> Result<ElementType> {
        let i = self.usize()?;
        ElementType::ALL
            .get(i)
            .copied()
            .ok_or_else(|| err(format!("element type code {i}")))
    }

    fn shape(&mut self, depth: usize) -> Result<Shape> {
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

    fn array_shape(&mut self) -> Result<ArrayShape> {
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

    fn literal(&mut self, depth: usize) -> Result<Literal> {
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

    fn computation(&mut self, depth: usize) -> Result<Computation> {
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

    fn opt_ty(&mut self) -> Result<Option<ElementType>> {
        Ok(if self.bool()? { Some(self.ty()?) } else { None })
    }

    fn convolution(&mut self) -> Result<Op> {
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

    fn op(&mut self, depth: usize) -> Result<Op> {
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
            t => return Err(err(format!("op code {t}"))),
        })
    }
}

/// The code of `u`, its position in `UnaryOp::ALL` (a test checks it): an exhaustive match, so
/// a new op cannot go without one.
fn unary_code(u: UnaryOp) -> u64 {
    match u {
        UnaryOp::Abs => 0,
        UnaryOp::Cbrt => 1,
        UnaryOp::Ceil => 2,
        UnaryOp::Clz => 3,
        UnaryOp::Cos => 4,
        UnaryOp::Cosh => 5,
        UnaryOp::Erf => 6,
        UnaryOp::Exp => 7,
        UnaryOp::Expm1 => 8,
        UnaryOp::Floor => 9,
        UnaryOp::Imag => 10,
        UnaryOp::IsFinite => 11,
        UnaryOp::Log => 12,
        UnaryOp::Log1p => 13,
        UnaryOp::Logistic => 14,
        UnaryOp::Neg => 15,
        UnaryOp::Not => 16,
        UnaryOp::PopulationCount => 17,
        UnaryOp::Real => 18,
        UnaryOp::RoundNearestAfz => 19,
        UnaryOp::RoundNearestEven => 20,
        UnaryOp::Rsqrt => 21,
        UnaryOp::Sign => 22,
        UnaryOp::Sin => 23,
        UnaryOp::Sqrt => 24,
        UnaryOp::Tan => 25,
        UnaryOp::Tanh => 26,
    }
}

fn code_unary(c: u64) -> Result<UnaryOp> {
    UnaryOp::ALL
        .get(c as usize)
        .copied()
        .ok_or_else(|| err(format!("unary op code {c}")))
}

/// The code of `b`, its position in `BinaryOp::ALL` (a test checks it): an exhaustive match, so
/// a new op cannot go without one.
fn binary_code(b: BinaryOp) -> u64 {
    match b {
        BinaryOp::Add => 0,
        BinaryOp::Sub => 1,
        BinaryOp::Mul => 2,
        BinaryOp::Div => 3,
        BinaryOp::Rem => 4,
        BinaryOp::Max => 5,
        BinaryOp::Min => 6,
        BinaryOp::Pow => 7,
        BinaryOp::Atan2 => 8,
        BinaryOp::And => 9,
        BinaryOp::Or => 10,
        BinaryOp::Xor => 11,
        BinaryOp::ShiftLeft => 12,
        BinaryOp::ShiftRightArithmetic => 13,
        BinaryOp::ShiftRightLogical => 14,
        BinaryOp::Complex => 15,
    }
}

fn code_binary(c: u64) -> Result<BinaryOp> {
    BinaryOp::ALL
        .get(c as usize)
        .copied()
        .ok_or_else(|| err(format!("binary op code {c}")))
}

fn direction_code(d: ComparisonDirection) -> u64 {
    match d {
        ComparisonDirection::Eq => 0,
        ComparisonDirection::Ne => 1,
        ComparisonDirection::Ge => 2,
        ComparisonDirection::Gt => 3,
        ComparisonDirection::Le => 4,
        ComparisonDirection::Lt => 5,
    }
}

/// FFT, IFFT, RFFT, IRFFT as 120..=123 (the fft range of the flat attribute numbering).
fn fft_type_code(t: FftType) -> u64 {
    match t {
        FftType::Fft => 120,
        FftType::Ifft => 121,
        FftType::Rfft => 122,
        FftType::Irfft => 123,
    }
}

fn code_fft_type(c: u64) -> Result<FftType> {
    FftType::ALL
        .into_iter()
        .find(|&t| fft_type_code(t) == c)
        .ok_or_else(|| err(format!("fft type code {c}")))
}

fn code_direction(c: u64) -> Result<ComparisonDirection> {
    ComparisonDirection::ALL
        .get(c as usize)
        .copied()
        .ok_or_else(|| err(format!("comparison direction code {c}")))
}

mod collective;
mod indexing;
#[cfg(test)]
mod tests;
mod window;
