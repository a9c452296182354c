//! One application of a registered op, turned into Builder calls: typed attribute values,
//! defaults, and the parameters each computation argument must take.

use std::sync::Arc;

use super::{AttrKind, OpKind, OpSpec};
use crate::builder::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::infer::{Padding, WindowPadding, WindowSpec};
use crate::ir::{
    ComparisonDirection, ComparisonType, Computation, ConvDimensionNumbers, DotDimensionNumbers,
    FftType, GatherDimensionNumbers, PadDim, RaggedDotDimensionNumbers, RandomAlgorithm,
    ScatterDimensionNumbers, TransposeA,
};
use crate::literal::Literal;
use crate::shape::Shape;

/// A parsed attribute value (one variant per [`AttrKind`]).
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// [`AttrKind::Int`].
    Int(i64),
    /// [`AttrKind::Ints`].
    Ints(Vec<i64>),
    /// [`AttrKind::Bool`].
    Bool(bool),
    /// [`AttrKind::Bools`].
    Bools(Vec<bool>),
    /// [`AttrKind::Type`].
    Type(ElementType),
    /// [`AttrKind::Direction`].
    Direction(ComparisonDirection),
    /// [`AttrKind::ComparisonType`]: FLOAT, TOTALORDER, SIGNED or UNSIGNED; the builder checks
    /// it against the operands' element type.
    ComparisonType(ComparisonType),
    /// [`AttrKind::PaddingConfig`].
    PaddingConfig(Vec<PadDim>),
    /// [`AttrKind::Pairs`].
    Pairs(Vec<(i64, i64)>),
    /// [`AttrKind::PaddingKind`]: true for SAME, false for VALID.
    Same(bool),
    /// [`AttrKind::ConvDims`].
    ConvDims(ConvDimensionNumbers),
    /// [`AttrKind::Precision`] (no effect on CPU).
    Precision,
    /// [`AttrKind::Float`].
    Float(f64),
    /// [`AttrKind::Str`].
    Str(String),
    /// [`AttrKind::Shape`].
    Shape(Shape),
    /// [`AttrKind::Transpose`].
    Transpose(TransposeA),
    /// [`AttrKind::RngAlgorithm`].
    RngAlgorithm(RandomAlgorithm),
    /// [`AttrKind::FftType`].
    FftType(FftType),
    /// [`AttrKind::Groups`].
    Groups(Vec<Vec<i64>>),
}

impl AttrValue {
    /// The kind this value is of.
    pub fn kind(&self) -> AttrKind {
        match self {
            AttrValue::Int(_) => AttrKind::Int,
            AttrValue::Ints(_) => AttrKind::Ints,
            AttrValue::Bool(_) => AttrKind::Bool,
            AttrValue::Bools(_) => AttrKind::Bools,
            AttrValue::Type(_) => AttrKind::Type,
            AttrValue::Direction(_) => AttrKind::Direction,
            AttrValue::ComparisonType(_) => AttrKind::ComparisonType,
            AttrValue::PaddingConfig(_) => AttrKind::PaddingConfig,
            AttrValue::Pairs(_) => AttrKind::Pairs,
            AttrValue::Same(_) => AttrKind::PaddingKind,
            AttrValue::ConvDims(_) => AttrKind::ConvDims,
            AttrValue::Precision => AttrKind::Precision,
            AttrValue::Float(_) => AttrKind::Float,
            AttrValue::Str(_) => AttrKind::Str,
            AttrValue::Shape(_) => AttrKind::Shape,
            AttrValue::Transpose(_) => AttrKind::Transpose,
            AttrValue::RngAlgorithm(_) => AttrKind::RngAlgorithm,
            AttrValue::FftType(_) => AttrKind::FftType,
            AttrValue::Groups(_) => AttrKind::Groups,
        }
    }
}

/// The attributes given to one application, by name.
#[derive(Clone, Debug, Default)]
pub struct Attrs {
    values: Vec<(&'static str, AttrValue)>,
}

macro_rules! getter {
    ($name:ident, $variant:ident, $t:ty) => {
        /// The attribute's value, if given with this kind.
        pub fn $name(&self, name: &str) -> Option<$t> {
            match self.get(name)? {
                AttrValue::$variant(v) => Some(v.clone()),
                _ => None,
            }
        }
    };
}

impl Attrs {
    /// Set `name` (a name of the op's schema).
    pub fn set(&mut self, name: &'static str, value: AttrValue) {
        self.values.retain(|(n, _)| *n != name);
        self.values.push((name, value));
    }

    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&AttrValue> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    getter!(int, Int, i64);
    getter!(ints, Ints, Vec<i64>);
    getter!(bool, Bool, bool);
    getter!(bools, Bools, Vec<bool>);
    getter!(ty, Type, ElementType);
    getter!(direction, Direction, ComparisonDirection);
    getter!(comparison_type, ComparisonType, ComparisonType);
    getter!(padding_config, PaddingConfig, Vec<PadDim>);
    getter!(pairs, Pairs, Vec<(i64, i64)>);
    getter!(same, Same, bool);
    getter!(conv_dims, ConvDims, ConvDimensionNumbers);
    getter!(float, Float, f64);
    getter!(str, Str, String);
    getter!(shape, Shape, Shape);
    getter!(transpose, Transpose, TransposeA);
    getter!(rng_algorithm, RngAlgorithm, RandomAlgorithm);
    getter!(fft_type, FftType, FftType);
    getter!(groups, Groups, Vec<Vec<i64>>);
}

/// One application's checked pieces: the positional values in order (for `Reduce` operands
/// then inits; for `Conditional` the selector then one operand per branch; for `While` the
/// initial state), its computations in order, and its attributes.
#[derive(Clone, Debug, Default)]
pub struct Applied<'a> {
    /// Value operands.
    pub operands: &'a [XlaOp],
    /// Computation arguments (reducer, comparator, condition and body, branches, callee).
    pub computations: &'a [Arc<Computation>],
    /// Attributes by name.
    pub attrs: Attrs,
    /// The type argument of `Iota`, `RngBitGenerator`, `RngUniform`, `RngNormal`.
    pub shape: Option<Shape>,
    /// The value of `Constant`.
    pub literal: Option<Literal>,
    /// `Conditional` written `(branch_index, [computations...], [operands...])`.
    pub indexed: bool,
    /// `Scan`: how many of the operands are inputs (the rest are inits); `None` splits them
    /// in halves.
    pub num_inputs: Option<usize>,
}

fn missing(op: &str, what: &str) -> Error {
    Error::new(op, format!("missing {what}")).blame(Blame::Op)
}

/// A window's `padding`: VALID when absent, SAME/VALID or explicit pairs.
fn window_padding(attrs: &Attrs) -> Result<WindowPadding> {
    Ok(match attrs.get("padding") {
        None | Some(AttrValue::Same(false)) => WindowPadding::Kind(Padding::Valid),
        Some(AttrValue::Same(true)) => WindowPadding::Kind(Padding::Same),
        Some(AttrValue::Pairs(p)) => WindowPadding::Explicit(p.clone()),
        Some(_) => {
            return Err(Error::new("padding", "expected SAME, VALID or pairs")
                .blame(Blame::Attribute("padding")))
        }
    })
}

/// Builds one application through the [`Builder`] ([`build_op`]), then refuses dynamic
/// dimensions the padder cannot run ([`crate::padder::check_supported`]), so a front end
/// reports them at the op.
pub fn build(b: &mut Builder, spec: &OpSpec, a: &Applied<'_>) -> Result<XlaOp> {
    let first = b.len();
    let out = build_op(b, spec, a)?;
    let instrs = b.instructions();
    for ins in &instrs[first..] {
        let shapes: Vec<&Shape> = ins
            .operands
            .iter()
            .map(|o| &instrs[o.0 as usize].shape)
            .collect();
        crate::padder::check_supported(spec.name, ins, &shapes)?;
    }
    Ok(out)
}

/// Apply `spec` through `b`. Every shape rule is the builder's; this only routes values.
fn build_op(b: &mut Builder, spec: &OpSpec, a: &Applied<'_>) -> Result<XlaOp> {
    let name = spec.name;
    let op = |i: usize| {
        a.operands
            .get(i)
            .copied()
            .ok_or_else(|| missing(name, &format!("operand {i}")))
    };
    let comp = |i: usize| {
        a.computations
            .get(i)
            .ok_or_else(|| missing(name, "computation"))
    };
    let attr_missing = |attr: &'static str| {
        Error::new(name, format!("missing attribute `{attr} = ...`")).blame(Blame::Attribute(attr))
    };
    let ints = |attr: &'static str| a.attrs.ints(attr).ok_or_else(|| attr_missing(attr));
    let int = |attr: &'static str| a.attrs.int(attr).ok_or_else(|| attr_missing(attr));
    let ty = |attr: &'static str| a.attrs.ty(attr).ok_or_else(|| attr_missing(attr));
    let flag = |attr: &'static str| a.attrs.bool(attr).ok_or_else(|| attr_missing(attr));
    let bd = a.attrs.ints("broadcast_dimensions");
    let preferred = a.attrs.ty("preferred_element_type");
    match spec.kind {
        OpKind::Unary(u) => b.unary(u, op(0)?),
        OpKind::Binary(bo) => b.binary(bo, op(0)?, op(1)?, bd.as_deref()),
        OpKind::Compare {
            direction,
            total_order,
        } => b.compare(direction, total_order, op(0)?, op(1)?, bd.as_deref()),
        OpKind::CompareWith => {
            let direction = a
                .attrs
                .direction("direction")
                .ok_or_else(|| attr_missing("direction"))?;
            let ct = a.attrs.comparison_type("comparison_type");
            b.compare_with_type(direction, ct, op(0)?, op(1)?, bd.as_deref())
        }
        OpKind::Select => b.select(op(0)?, op(1)?, op(2)?),
        OpKind::Clamp => b.clamp(op(0)?, op(1)?, op(2)?),
        OpKind::ConvertElementType => b.convert(op(0)?, ty("new_element_type")?),
        OpKind::BitcastConvertType => b.bitcast_convert(op(0)?, ty("new_element_type")?),
        OpKind::ReducePrecision => {
            b.reduce_precision(op(0)?, int("exponent_bits")?, int("mantissa_bits")?)
        }
        OpKind::Broadcast => b.broadcast(op(0)?, &ints("broadcast_sizes")?),
        OpKind::BroadcastInDim => b.broadcast_in_dim(
            op(0)?,
            &ints("out_dim_size")?,
            &ints("broadcast_dimensions")?,
        ),
        OpKind::Reshape => b.reshape(
            op(0)?,
            a.attrs.ints("dimensions").as_deref(),
            &ints("new_sizes")?,
        ),
        OpKind::Collapse => b.collapse(op(0)?, &ints("dimensions")?),
        OpKind::Transpose => b.transpose(op(0)?, &ints("permutation")?),
        OpKind::Rev => b.rev(op(0)?, &ints("dimensions")?),
        OpKind::Slice => b.slice(
            op(0)?,
            &ints("start_indices")?,
            &ints("limit_indices")?,
            a.attrs.ints("strides").as_deref(),
        ),
        OpKind::Pad => {
            let config = a
                .attrs
                .padding_config("padding_config")
                .ok_or_else(|| attr_missing("padding_config"))?;
            b.pad(op(0)?, op(1)?, &config)
        }
        OpKind::ConcatInDim => b.concat_in_dim(a.operands, int("dimension")?),
        OpKind::Iota => {
            let shape = a.shape.clone().ok_or_else(|| missing(name, "shape"))?;
            b.iota(shape, int("iota_dimension")?)
        }
        OpKind::Constant => {
            let lit = a.literal.clone().ok_or_else(|| missing(name, "value"))?;
            b.try_constant(lit)
        }
        OpKind::Reduce => {
            let n = a.operands.len() / 2;
            b.reduce(
                &a.operands[..n],
                &a.operands[n..],
                comp(0)?,
                &ints("dimensions")?,
            )
        }
        OpKind::ReduceWindow => {
            let n = a.operands.len() / 2;
            let padding = window_padding(&a.attrs)?;
            let window = WindowSpec {
                dimensions: ints("window_dimensions")?,
                strides: a.attrs.ints("window_strides"),
                base_dilations: a.attrs.ints("base_dilations"),
                window_dilations: a.attrs.ints("window_dilations"),
                padding,
            };
            b.reduce_window(&a.operands[..n], &a.operands[n..], comp(0)?, &window)
        }
        OpKind::SelectAndScatter => {
            let [x, source, init] = a.operands else {
                return Err(missing(name, "operand, source and init_value"));
            };
            let window = WindowSpec {
                dimensions: ints("window_dimensions")?,
                strides: a.attrs.ints("window_strides"),
                base_dilations: None,
                window_dilations: None,
                padding: window_padding(&a.attrs)?,
            };
            b.select_and_scatter(*x, comp(0)?, &window, *source, *init, comp(1)?)
        }
        OpKind::Scan => {
            let m = a.num_inputs.unwrap_or(a.operands.len() / 2);
            if m > a.operands.len() {
                return Err(missing(name, "inputs"));
            }
            b.scan(
                &a.operands[..m],
                &a.operands[m..],
                comp(0)?,
                a.attrs
                    .int("scan_dimension")
                    .ok_or_else(|| attr_missing("scan_dimension"))?,
                a.attrs.bool("is_reverse").unwrap_or(false),
                a.attrs.bool("is_associative"),
            )
        }
        OpKind::Sort => b.sort(
            a.operands,
            comp(0)?,
            a.attrs.int("dimension").unwrap_or(-1),
            a.attrs.bool("is_stable").unwrap_or(false),
        ),
        OpKind::Gather => {
            let list = |attr: &str| a.attrs.ints(attr).unwrap_or_default();
            let dn = GatherDimensionNumbers {
                offset_dims: ints("offset_dims")?,
                collapsed_slice_dims: list("collapsed_slice_dims"),
                operand_batching_dims: list("operand_batching_dims"),
                start_indices_batching_dims: list("start_indices_batching_dims"),
                start_index_map: ints("start_index_map")?,
                index_vector_dim: int("index_vector_dim")?,
            };
            let sorted = a.attrs.bool("indices_are_sorted").unwrap_or(false);
            b.gather(op(0)?, op(1)?, &dn, &ints("slice_sizes")?, sorted)
        }
        OpKind::Scatter => {
            let list = |attr: &str| a.attrs.ints(attr).unwrap_or_default();
            let dn = ScatterDimensionNumbers {
                update_window_dims: ints("update_window_dims")?,
                inserted_window_dims: list("inserted_window_dims"),
                input_batching_dims: list("input_batching_dims"),
                scatter_indices_batching_dims: list("scatter_indices_batching_dims"),
                scatter_dims_to_operand_dims: ints("scatter_dims_to_operand_dims")?,
                index_vector_dim: int("index_vector_dim")?,
            };
            let n = a.operands.len() / 2;
            let flag = |attr: &str| a.attrs.bool(attr).unwrap_or(false);
            b.scatter(
                &a.operands[..n],
                op(n)?,
                &a.operands[(n + 1).min(a.operands.len())..],
                comp(0)?,
                &dn,
                flag("indices_are_sorted"),
                flag("unique_indices"),
            )
        }
        OpKind::Map => {
            // XLA's only form, every dimension in order, is the default.
            let dims = a.attrs.ints("dimensions").unwrap_or_else(|| {
                let rank = a
                    .operands
                    .first()
                    .and_then(|&o| b.try_shape(o).ok())
                    .and_then(Shape::as_array)
                    .map_or(0, |x| x.rank());
                (0..rank as i64).collect()
            });
            b.map(a.operands, comp(0)?, &dims)
        }
        OpKind::BatchNorm(kind) => {
            let epsilon = a
                .attrs
                .float("epsilon")
                .ok_or_else(|| attr_missing("epsilon"))?;
            b.batch_norm(kind, a.operands, epsilon as f32, int("feature_index")?)
        }
        OpKind::DynamicSlice => match a.operands.split_first() {
            Some((&x, starts)) => b.dynamic_slice(x, starts, &ints("slice_sizes")?),
            None => Err(missing(name, "operand 0")),
        },
        OpKind::DynamicUpdateSlice => {
            b.dynamic_update_slice(op(0)?, op(1)?, a.operands.get(2..).unwrap_or_default())
        }
        OpKind::GetDimensionSize => b.get_dimension_size(op(0)?, int("dimension")?),
        OpKind::SetDimensionSize => b.set_dimension_size(op(0)?, op(1)?, int("dimension")?),
        OpKind::DynamicReshape => {
            let bounds = ints("new_size_bounds")?;
            let flags = a
                .attrs
                .bools("dims_are_dynamic")
                .ok_or_else(|| attr_missing("dims_are_dynamic"))?;
            b.dynamic_reshape(
                op(0)?,
                a.operands.get(1..).unwrap_or_default(),
                &bounds,
                &flags,
            )
        }
        OpKind::Fft => match a.attrs.fft_type("fft_type") {
            Some(t) => b.fft(op(0)?, t, &ints("fft_length")?),
            None => Err(attr_missing("fft_type")),
        },
        OpKind::Collective(k) => super::collective::build(b, name, k, a),
        OpKind::HostIo(k) => super::host_io::build(b, k, a),
        OpKind::TopK => b.top_k(op(0)?, int("k")?, a.attrs.bool("largest").unwrap_or(true)),
        OpKind::Cholesky => b.cholesky(op(0)?, flag("lower")?),
        OpKind::TriangularSolve => {
            let t = a
                .attrs
                .transpose("transpose_a")
                .ok_or_else(|| attr_missing("transpose_a"))?;
            let (left, lower) = (flag("left_side")?, flag("lower")?);
            b.triangular_solve(op(0)?, op(1)?, left, lower, flag("unit_diagonal")?, t)
        }
        OpKind::Dot => b.dot(op(0)?, op(1)?, preferred),
        OpKind::RaggedDot => {
            // Each field not given takes jax.lax.ragged_dot's value.
            let d = RaggedDotDimensionNumbers::jax_default();
            let or = |name: &str, v: Vec<i64>| a.attrs.ints(name).unwrap_or(v);
            let dn = RaggedDotDimensionNumbers {
                dot: DotDimensionNumbers {
                    lhs_contracting_dimensions: or(
                        "lhs_contracting_dimensions",
                        d.dot.lhs_contracting_dimensions,
                    ),
                    rhs_contracting_dimensions: or(
                        "rhs_contracting_dimensions",
                        d.dot.rhs_contracting_dimensions,
                    ),
                    lhs_batch_dimensions: or("lhs_batch_dimensions", d.dot.lhs_batch_dimensions),
                    rhs_batch_dimensions: or("rhs_batch_dimensions", d.dot.rhs_batch_dimensions),
                },
                lhs_ragged_dimensions: or("lhs_ragged_dimensions", d.lhs_ragged_dimensions),
                rhs_group_dimensions: or("rhs_group_dimensions", d.rhs_group_dimensions),
            };
            b.ragged_dot([op(0)?, op(1)?, op(2)?], &dn, preferred)
        }
        OpKind::DotGeneral => {
            let dn = DotDimensionNumbers {
                lhs_contracting_dimensions: ints("lhs_contracting_dimensions")?,
                rhs_contracting_dimensions: ints("rhs_contracting_dimensions")?,
                lhs_batch_dimensions: a.attrs.ints("lhs_batch_dimensions").unwrap_or_default(),
                rhs_batch_dimensions: a.attrs.ints("rhs_batch_dimensions").unwrap_or_default(),
            };
            b.dot_general(op(0)?, op(1)?, &dn, preferred)
        }
        OpKind::ScaledDot => {
            let dn = DotDimensionNumbers {
                lhs_contracting_dimensions: ints("lhs_contracting_dimensions")?,
                rhs_contracting_dimensions: ints("rhs_contracting_dimensions")?,
                lhs_batch_dimensions: a.attrs.ints("lhs_batch_dimensions").unwrap_or_default(),
                rhs_batch_dimensions: a.attrs.ints("rhs_batch_dimensions").unwrap_or_default(),
            };
            b.scaled_dot([op(0)?, op(1)?, op(2)?, op(3)?], &dn, preferred)
        }
        OpKind::Conv
        | OpKind::ConvWithGeneralPadding
        | OpKind::ConvWithGeneralDimensions
        | OpKind::ConvGeneral
        | OpKind::ConvGeneralDilated => super::conv_dims::build_conv(b, spec, a, op(0)?, op(1)?),
        OpKind::While => b.while_loop(comp(0)?, comp(1)?, op(0)?),
        OpKind::Conditional => {
            if a.indexed {
                b.conditional_indexed(op(0)?, a.computations, &a.operands[1..])
            } else {
                b.conditional(op(0)?, op(1)?, comp(0)?, op(2)?, comp(1)?)
            }
        }
        OpKind::OptimizationBarrier => b.optimization_barrier(a.operands),
        OpKind::AfterAll => b.after_all(a.operands),
        OpKind::CustomCall => b.custom_call(
            &a.attrs
                .str("call_target_name")
                .ok_or_else(|| attr_missing("call_target_name"))?,
            a.operands,
            &a.attrs
                .shape("shape")
                .ok_or_else(|| attr_missing("shape"))?,
            &a.attrs.str("opaque").unwrap_or_default(),
            a.attrs.bool("has_side_effect").unwrap_or(false),
        ),
        OpKind::Tuple => b.tuple(a.operands),
        OpKind::GetTupleElement => b.get_tuple_element(op(0)?, int("index")?),
        OpKind::Call => b.call(comp(0)?, a.operands),
        OpKind::CompositeCall => b.composite_call(
            comp(0)?,
            a.operands,
            crate::ir::Composite {
                name: a.attrs.str("name").ok_or_else(|| attr_missing("name"))?,
                attributes: a.attrs.str("attributes").unwrap_or_default(),
                version: a.attrs.int("version").unwrap_or(0),
            },
        ),
        OpKind::RngBitGenerator => {
            let shape = a.shape.clone().ok_or_else(|| missing(name, "shape"))?;
            let algorithm = a
                .attrs
                .rng_algorithm("algorithm")
                .ok_or_else(|| attr_missing("algorithm"))?;
            b.rng_bit_generator(algorithm, op(0)?, &shape)
        }
        OpKind::Rng(d) => {
            let shape = a.shape.clone().ok_or_else(|| missing(name, "shape"))?;
            b.rng(d, op(0)?, op(1)?, &shape)
        }
    }
}

/// The parameters each computation argument of `spec` takes, given the shapes of the value
/// operands in [`Applied::operands`] order: one list per computation. Ops without computations
/// (and `Call`, whose callee is declared) give none.
pub fn computation_params(spec: &OpSpec, operands: &[&Shape]) -> Vec<Vec<Shape>> {
    let scalar = |s: &Shape| match s.as_array() {
        Some(a) => Shape::scalar(a.ty),
        None => s.clone(),
    };
    match spec.kind {
        // Accumulators then elements: scalars of the init values' types.
        OpKind::Reduce | OpKind::ReduceWindow => {
            let n = operands.len() / 2;
            let inits: Vec<Shape> = operands[n..].iter().map(|s| scalar(s)).collect();
            vec![inits.iter().chain(&inits).cloned().collect()]
        }
        // Current values then updates: two scalars of each operand's type.
        OpKind::Scatter => {
            let n = operands.len() / 2;
            let ts: Vec<Shape> = operands[..n].iter().map(|s| scalar(s)).collect();
            vec![ts.iter().chain(&ts).cloned().collect()]
        }
        // One scalar per operand, of its element type.
        OpKind::Map => vec![operands.iter().map(|s| scalar(s)).collect()],
        // (lhs_0, rhs_0, lhs_1, rhs_1, ...): two scalars per operand.
        OpKind::Sort => vec![operands
            .iter()
            .flat_map(|s| [scalar(s), scalar(s)])
            .collect()],
        // select (T, T) -> pred and scatter (T, T) -> T over the operand's type.
        OpKind::SelectAndScatter => {
            let t: Vec<Shape> = operands.iter().take(1).map(|s| scalar(s)).collect();
            let pair: Vec<Shape> = t.iter().chain(&t).cloned().collect();
            vec![pair.clone(), pair]
        }
        // The operands as given: the checker removes the scan dimension (an attribute) with
        // `infer::scan::scan_params`.
        OpKind::Scan => vec![operands.iter().map(|s| (*s).clone()).collect()],
        OpKind::While => {
            let state: Vec<Shape> = operands.iter().take(1).map(|s| (*s).clone()).collect();
            vec![state.clone(), state]
        }
        // One parameter per branch: its operand.
        OpKind::Conditional => operands
            .iter()
            .skip(1)
            .map(|s| vec![(*s).clone()])
            .collect(),
        OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::Compare { .. }
        | OpKind::CompareWith
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::ConvertElementType
        | OpKind::BitcastConvertType
        | OpKind::ReducePrecision
        | OpKind::Broadcast
        | OpKind::BroadcastInDim
        | OpKind::Reshape
        | OpKind::Collapse
        | OpKind::Transpose
        | OpKind::Rev
        | OpKind::Slice
        | OpKind::Pad
        | OpKind::ConcatInDim
        | OpKind::Iota
        | OpKind::Constant
        | OpKind::TopK
        | OpKind::Cholesky
        | OpKind::TriangularSolve
        | OpKind::Fft
        | OpKind::Gather
        | OpKind::BatchNorm(_)
        | OpKind::DynamicSlice
        | OpKind::DynamicUpdateSlice
        | OpKind::GetDimensionSize
        | OpKind::SetDimensionSize
        | OpKind::DynamicReshape
        | OpKind::Dot
        | OpKind::DotGeneral
        | OpKind::Conv
        | OpKind::ConvWithGeneralPadding
        | OpKind::ConvWithGeneralDimensions
        | OpKind::ConvGeneral
        | OpKind::ConvGeneralDilated
        | OpKind::OptimizationBarrier
        | OpKind::AfterAll
        | OpKind::CustomCall
        | OpKind::RaggedDot
        | OpKind::ScaledDot
        | OpKind::Tuple
        | OpKind::GetTupleElement
        | OpKind::Call
        | OpKind::CompositeCall => Vec::new(),
        OpKind::RngBitGenerator | OpKind::Rng(_) => Vec::new(),
        OpKind::Collective(k) => super::collective::computation_params(k, operands),
        OpKind::HostIo(_) => Vec::new(),
    }
}
