//! Forward-error bounds for sums and dot products: what a float reduction promises whatever its
//! summation order, instead of ulps of one order.
//!
//! A sum of `n` terms computed in any order (sequential, pairwise, vectorised lanes, with or
//! without FMA contraction) in a type with unit roundoff `u = eps/2` satisfies
//! `|computed - exact| <= gamma(n) * sum|term|`, `gamma(n) = n u / (1 - n u)` (Higham, *Accuracy
//! and Stability of Numerical Algorithms*, 2nd ed., section 4.2 and 3.1 for products). XLA:CPU picks
//! a different order on AVX2 and AVX-512 (and the evaluator and the generated code pick theirs),
//! so results of different orders are compared against that bound, per element:
//!
//! `|x - reference| <= (sum_i terms_i * eps_i + rounds * eps_out) * scale + terms * min_normal`
//!
//! where `reference` is the program evaluated in f64 (c128), `scale` the program evaluated in f64
//! on the magnitudes of the inputs (for a dot `sum_k |a_ik| |b_kj|`, for a sum `sum |x|`),
//! `eps_i` the epsilon each instruction's terms are rounded in, `eps_out` that of the result type (one
//! rounding per instruction that stores a float), and the last term absorbs XLA:CPU's
//! flush-to-zero of subnormal partial sums. Dots of f16/bf16 accumulate in f32 (ours and XLA's);
//! f16/bf16 Reduce rounds every step to its own type (XLA:CPU and ours, see
//! `xla_core::reduce_order`), but folds in a tree of windows of 32, so a term meets at most the
//! sum of the window sizes of the levels in roundings: that depth, not `n`, is `terms` there.
//! `terms * eps` is twice `gamma(terms)` for the sizes tested (a margin for the programs'
//! elementwise steps, not a measured fudge). Ours and XLA's must each be within the bound of the
//! reference, and within twice the bound of each other.

use std::sync::Arc;

use num_complex::Complex;
use xla_core::eval::evaluate;
use xla_core::{ArrayData, ArrayShape, Computation, ElementType, Instruction, Literal, Op, Shape};

/// What a result of a sum-like program is checked against.
#[derive(Clone, Debug)]
pub struct Forward {
    /// Rounded operations on the longest path to a result: summed terms of every Reduce and
    /// DotGeneral plus one per other instruction (see [`count_terms`]).
    pub terms: u64,
    /// The terms weighed by the epsilon of the type each is rounded in.
    pub relative: f64,
    /// Instructions that store a float (each may round to the result type).
    pub rounds: u64,
    /// The program evaluated in f64 / c128.
    pub reference: Literal,
    /// The program evaluated in f64 / c128 on the magnitudes of the inputs.
    pub scale: Literal,
}

impl Forward {
    /// The bound of `comp` on `args`: the program widened to f64 evaluated on the arguments and
    /// on their magnitudes. Meaningful for programs that are sums of products (Reduce with Add,
    /// DotGeneral, Add, Mul, Max with constants, conversions); `Err` when the program cannot be
    /// widened (a BitcastConvertType) or evaluated.
    pub fn of(comp: &Computation, args: &[Literal]) -> Result<Forward, String> {
        let wide = widen(comp)?;
        let wide_args: Vec<Literal> = args.iter().map(widen_literal).collect::<Result<_, _>>()?;
        let abs_args: Vec<Literal> = wide_args.iter().map(magnitude).collect();
        let reference = evaluate(&wide, &wide_args).map_err(|e| format!("f64 reference: {e}"))?;
        let scale = evaluate(&wide, &abs_args).map_err(|e| format!("f64 scale: {e}"))?;
        let (terms, relative, rounds) = count_terms(comp);
        Ok(Forward {
            terms,
            relative,
            rounds,
            reference,
            scale,
        })
    }
}

/// `(terms, relative, rounds)` of [`Forward`]: each Reduce adds the number of elements reduced
/// into one output (plus its init; for an f16/bf16 Reduce the depth of its tree of windows),
/// each DotGeneral its contracted size (plus 2 for complex products), every other float
/// instruction 1; `relative` weighs each count by the epsilon its roundings happen in (a dot of
/// f16/bf16 accumulates in f32); nested computations count at each use.
pub fn count_terms(comp: &Computation) -> (u64, f64, u64) {
    let (mut terms, mut relative, mut rounds) = (0u64, 0f64, 0u64);
    for ins in &comp.instrs {
        let types: Vec<ElementType> = leaf_types(&ins.shape).collect();
        let Some(&ty) = types.iter().find(|t| t.is_float_or_complex()) else {
            continue;
        };
        rounds += 1;
        let own_eps = epsilons(ty).1;
        let (n, eps) = match &ins.op {
            Op::Reduce { dimensions, .. } => {
                let dims = operand_dims(comp, ins, 0);
                let reduced: Vec<usize> = dimensions
                    .iter()
                    .map(|&d| dims.get(d as usize).copied().unwrap_or(1).max(1) as usize)
                    .collect();
                if xla_core::reduce_order::follows_tree(&types) {
                    // Every level folds a window from init: a term meets at most the sum of
                    // the window sizes in roundings.
                    let depth: usize = xla_core::reduce_order::levels(&reduced)
                        .iter()
                        .map(|l| l.window.iter().product::<usize>() + 1)
                        .sum();
                    (depth.max(1) as u64 + 1, own_eps)
                } else {
                    (1 + reduced.iter().product::<usize>() as u64, own_eps)
                }
            }
            // Each output folds at most one window's taps.
            Op::ReduceWindow { window, .. } => (
                1 + window.dimensions.iter().product::<i64>().max(1) as u64,
                own_eps,
            ),
            Op::DotGeneral {
                dimension_numbers, ..
            } => {
                let dims = operand_dims(comp, ins, 0);
                let k: u64 = dimension_numbers
                    .lhs_contracting_dimensions
                    .iter()
                    .map(|&d| dims.get(d as usize).copied().unwrap_or(1).max(1) as u64)
                    .product();
                let complex = ty.is_complex();
                (k + if complex { 2 } else { 0 }, epsilons(ty).0)
            }
            Op::Convolution {
                dimension_numbers: dn,
                ..
            } => {
                // Each output sums kernel taps x input features per group: the kernel's spatial
                // sizes and its input-feature size.
                let dims = operand_dims(comp, ins, 1);
                let size = |d: i64| dims.get(d as usize).copied().unwrap_or(1).max(1) as u64;
                let k: u64 = dn
                    .kernel_spatial_dimensions
                    .iter()
                    .map(|&d| size(d))
                    .product::<u64>()
                    * size(dn.kernel_input_feature_dimension);
                let complex = ty.is_complex();
                (k + if complex { 2 } else { 0 }, epsilons(ty).0)
            }
            // Their expansions' terms (RaggedDot's DotGeneral contracts `g * k`, all but `k`
            // zeros). A checked instruction always expands.
            Op::RaggedDot { .. } | Op::ScaledDot { .. } => {
                let shapes: Vec<&Shape> = ins
                    .operands
                    .iter()
                    .map(|&id| &comp.instr(id).shape)
                    .collect();
                let c = match &ins.op {
                    Op::ScaledDot {
                        dimension_numbers,
                        preferred_element_type,
                    } => xla_core::builder::expand_scaled_dot(
                        &shapes,
                        dimension_numbers,
                        *preferred_element_type,
                    ),
                    Op::RaggedDot {
                        dimension_numbers,
                        preferred_element_type,
                    } => xla_core::builder::expand_ragged_dot(
                        &shapes,
                        dimension_numbers,
                        *preferred_element_type,
                    ),
                    _ => continue,
                };
                let Ok(c) = c else { continue };
                let (t, r, _) = count_terms(&c);
                terms += t;
                relative += r;
                continue;
            }
            Op::Call { computation, .. } => {
                let (t, r, _) = count_terms(computation);
                terms += t;
                relative += r;
                continue;
            }
            _ => (1, own_eps),
        };
        terms += n;
        relative += n as f64 * eps;
    }
    (terms, relative, rounds)
}

fn operand_dims(comp: &Computation, ins: &Instruction, k: usize) -> Vec<i64> {
    ins.operands
        .get(k)
        .and_then(|&id| comp.instr(id).shape.as_array().map(|a| a.dims.clone()))
        .unwrap_or_default()
}

fn leaf_types(s: &Shape) -> Box<dyn Iterator<Item = ElementType> + '_> {
    match s {
        Shape::Array(a) => Box::new(std::iter::once(a.ty)),
        Shape::Tuple(ts) => Box::new(ts.iter().flat_map(leaf_types)),
        Shape::Token => Box::new(std::iter::empty()),
    }
}

/// f16, bf16, f32 -> f64; c64 -> c128; everything else unchanged.
fn wide_type(t: ElementType) -> ElementType {
    match t {
        ElementType::F16 | ElementType::Bf16 | ElementType::F32 => ElementType::F64,
        ElementType::C64 => ElementType::C128,
        t => t,
    }
}

fn widen_shape(s: &Shape) -> Shape {
    match s {
        Shape::Array(a) => Shape::Array(a.with_type(wide_type(a.ty))),
        Shape::Tuple(ts) => Shape::Tuple(ts.iter().map(widen_shape).collect()),
        Shape::Token => Shape::Token,
    }
}

/// A collective with its reducer (if any) widened.
fn widen_collective(c: &xla_core::Collective) -> Result<xla_core::Collective, String> {
    use xla_core::CollectiveKind as K;
    let kind = match &c.kind {
        K::AllReduce { computation } => K::AllReduce {
            computation: Arc::new(widen(computation)?),
        },
        K::ReduceScatter {
            dimension,
            computation,
            shard_count,
        } => K::ReduceScatter {
            dimension: *dimension,
            computation: Arc::new(widen(computation)?),
            shard_count: *shard_count,
        },
        other => other.clone(),
    };
    Ok(xla_core::Collective { kind, ..c.clone() })
}

/// `comp` with every float type widened to f64 and complex to c128 (constants converted,
/// preferred element types widened, nested computations widened).
pub fn widen(comp: &Computation) -> Result<Computation, String> {
    let mut instrs = Vec::with_capacity(comp.instrs.len());
    for ins in &comp.instrs {
        let op = match &ins.op {
            Op::Constant(l) => Op::Constant(widen_literal(l)?),
            Op::DotGeneral {
                dimension_numbers,
                preferred_element_type,
            } => Op::DotGeneral {
                dimension_numbers: dimension_numbers.clone(),
                preferred_element_type: preferred_element_type.map(wide_type),
            },
            Op::ScaledDot {
                dimension_numbers,
                preferred_element_type,
            } => Op::ScaledDot {
                dimension_numbers: dimension_numbers.clone(),
                preferred_element_type: preferred_element_type.map(wide_type),
            },
            Op::RaggedDot {
                dimension_numbers,
                preferred_element_type,
            } => Op::RaggedDot {
                dimension_numbers: dimension_numbers.clone(),
                preferred_element_type: preferred_element_type.map(wide_type),
            },
            Op::Collective(c) => Op::Collective(widen_collective(c)?),
            Op::Reduce {
                dimensions,
                computation,
            } => Op::Reduce {
                dimensions: dimensions.clone(),
                computation: Arc::new(widen(computation)?),
            },
            Op::ReduceWindow {
                window,
                computation,
            } => Op::ReduceWindow {
                window: window.clone(),
                computation: Arc::new(widen(computation)?),
            },
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            } => Op::SelectAndScatter {
                window: window.clone(),
                select: Arc::new(widen(select)?),
                scatter: Arc::new(widen(scatter)?),
            },
            Op::Scan {
                scan_dimension,
                is_reverse,
                is_associative,
                num_carries,
                to_apply,
            } => Op::Scan {
                scan_dimension: *scan_dimension,
                is_reverse: *is_reverse,
                is_associative: *is_associative,
                num_carries: *num_carries,
                to_apply: Arc::new(widen(to_apply)?),
            },
            Op::Call {
                computation,
                composite,
            } => Op::Call {
                computation: Arc::new(widen(computation)?),
                composite: composite.clone(),
            },
            Op::Map {
                dimensions,
                computation,
            } => Op::Map {
                dimensions: dimensions.clone(),
                computation: Arc::new(widen(computation)?),
            },
            Op::Sort {
                dimension,
                is_stable,
                comparator,
            } => Op::Sort {
                dimension: *dimension,
                is_stable: *is_stable,
                comparator: Arc::new(widen(comparator)?),
            },
            Op::Convolution {
                window,
                dimension_numbers,
                feature_group_count,
                batch_group_count,
                preferred_element_type,
            } => Op::Convolution {
                window: window.clone(),
                dimension_numbers: dimension_numbers.clone(),
                feature_group_count: *feature_group_count,
                batch_group_count: *batch_group_count,
                preferred_element_type: preferred_element_type.map(wide_type),
            },
            Op::Scatter {
                dimension_numbers,
                indices_are_sorted,
                unique_indices,
                update_computation,
            } => Op::Scatter {
                dimension_numbers: dimension_numbers.clone(),
                indices_are_sorted: *indices_are_sorted,
                unique_indices: *unique_indices,
                update_computation: Arc::new(widen(update_computation)?),
            },
            Op::While { condition, body } => Op::While {
                condition: Arc::new(widen(condition)?),
                body: Arc::new(widen(body)?),
            },
            Op::Conditional { branches } => Op::Conditional {
                branches: branches
                    .iter()
                    .map(|b| widen(b).map(Arc::new))
                    .collect::<Result<_, _>>()?,
            },
            Op::BitcastConvertType => {
                return Err(format!(
                    "{}: a bitcast cannot be evaluated in a wider type",
                    comp.name
                ))
            }
            // Their bits and draws depend on the element width.
            Op::RngBitGenerator { .. } | Op::Rng { .. } => {
                return Err(format!(
                    "{}: random numbers cannot be evaluated in a wider type",
                    comp.name
                ))
            }
            // Ops whose meaning does not depend on the float width they run at.
            op @ (Op::Parameter { .. }
            | Op::Iota { .. }
            | Op::Unary(_)
            | Op::Binary(_)
            | Op::Compare { .. }
            | Op::Select
            | Op::Clamp
            | Op::ConvertElementType
            | Op::ReducePrecision { .. }
            | Op::BroadcastInDim { .. }
            | Op::Reshape
            | Op::Transpose { .. }
            | Op::Rev { .. }
            | Op::Slice { .. }
            | Op::Pad { .. }
            | Op::Concatenate { .. }
            | Op::TopK { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve { .. }
            | Op::Fft { .. }
            | Op::Gather { .. }
            | Op::BatchNorm { .. }
            | Op::DynamicSlice { .. }
            | Op::DynamicUpdateSlice
            | Op::GetDimensionSize { .. }
            | Op::SetDimensionSize { .. }
            | Op::DynamicReshape
            | Op::OptimizationBarrier
            | Op::AfterAll
            | Op::HostIo(_)
            | Op::CustomCall { .. }
            | Op::Tuple
            | Op::GetTupleElement { .. }) => op.clone(),
        };
        instrs.push(Instruction {
            op,
            operands: ins.operands.clone(),
            shape: widen_shape(&ins.shape),
        });
    }
    Ok(Computation {
        name: format!("{}_f64", comp.name),
        params: comp.params.iter().map(widen_shape).collect(),
        instrs,
        root: comp.root,
    })
}

/// `l` converted (exactly) to its wide type.
pub fn widen_literal(l: &Literal) -> Result<Literal, String> {
    let (shape, data) = match l {
        Literal::Array { shape, data } => (shape, data),
        Literal::Tuple(ls) => {
            return Ok(Literal::Tuple(
                ls.iter().map(widen_literal).collect::<Result<_, _>>()?,
            ))
        }
        Literal::Token => return Ok(Literal::Token),
    };
    let data = match data {
        ArrayData::F16(v) => ArrayData::F64(v.iter().map(|x| x.to_f64()).collect()),
        ArrayData::Bf16(v) => ArrayData::F64(v.iter().map(|x| x.to_f64()).collect()),
        ArrayData::F32(v) => ArrayData::F64(v.iter().map(|&x| f64::from(x)).collect()),
        ArrayData::C64(v) => ArrayData::C128(
            v.iter()
                .map(|c| Complex::new(f64::from(c.re), f64::from(c.im)))
                .collect(),
        ),
        d => d.clone(),
    };
    Ok(Literal::Array {
        shape: ArrayShape {
            ty: data.element_type(),
            ..shape.clone()
        },
        data,
    })
}

/// `|x|` elementwise (complex: `|z| + 0i`, so that a product of magnitudes is `|a| |b|`).
fn magnitude(l: &Literal) -> Literal {
    match l {
        Literal::Array { shape, data } => {
            let data = match data {
                ArrayData::F64(v) => ArrayData::F64(v.iter().map(|x| x.abs()).collect()),
                ArrayData::C128(v) => {
                    ArrayData::C128(v.iter().map(|c| Complex::new(c.norm(), 0.0)).collect())
                }
                d => d.clone(),
            };
            Literal::Array {
                shape: shape.clone(),
                data,
            }
        }
        Literal::Tuple(ls) => Literal::Tuple(ls.iter().map(magnitude).collect()),
        Literal::Token => Literal::Token,
    }
}

/// Components of a float or complex array as `(re, im)` in f64; `None` for other types.
fn components(d: &ArrayData) -> Option<Vec<(f64, f64)>> {
    Some(match d {
        ArrayData::F16(v) => v.iter().map(|x| (x.to_f64(), 0.0)).collect(),
        ArrayData::Bf16(v) => v.iter().map(|x| (x.to_f64(), 0.0)).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| (f64::from(x), 0.0)).collect(),
        ArrayData::F64(v) => v.iter().map(|&x| (x, 0.0)).collect(),
        ArrayData::C64(v) => v
            .iter()
            .map(|c| (f64::from(c.re), f64::from(c.im)))
            .collect(),
        ArrayData::C128(v) => v.iter().map(|c| (c.re, c.im)).collect(),
        _ => return None,
    })
}

/// `(eps_acc, eps_out, min_normal_acc)` of a result type: a dot of f16/bf16 accumulates in
/// f32 (`eps_acc`); everything else rounds in its own type (`eps_out`).
fn epsilons(t: ElementType) -> (f64, f64, f64) {
    let f32s = (f64::from(f32::EPSILON), f64::from(f32::MIN_POSITIVE));
    match t {
        ElementType::F16 => (f32s.0, 2f64.powi(-10), f32s.1),
        ElementType::Bf16 => (f32s.0, 2f64.powi(-7), f32s.1),
        ElementType::F32 | ElementType::C64 => (f32s.0, f32s.0, f32s.1),
        _ => (f64::EPSILON, f64::EPSILON, f64::MIN_POSITIVE),
    }
}

/// Checks `ours` and `xla` against `f`: each within the forward bound of the f64 reference and
/// within twice the bound of each other, per element (tuples per leaf; integer and pred leaves
/// must be equal). The message names the case, the first bad index, the values and the bound.
pub fn check_forward(name: &str, ours: &Literal, xla: &Literal, f: &Forward) -> Result<(), String> {
    check_leaf(name, ours, xla, &f.reference, &f.scale, f)
}

fn check_leaf(
    name: &str,
    ours: &Literal,
    xla: &Literal,
    reference: &Literal,
    scale: &Literal,
    f: &Forward,
) -> Result<(), String> {
    match (ours, xla, reference, scale) {
        (Literal::Tuple(a), Literal::Tuple(b), Literal::Tuple(r), Literal::Tuple(s))
            if a.len() == b.len() && a.len() == r.len() && a.len() == s.len() =>
        {
            for k in 0..a.len() {
                check_leaf(&format!("{name}.{k}"), &a[k], &b[k], &r[k], &s[k], f)?;
            }
            return Ok(());
        }
        (Literal::Array { .. }, Literal::Array { .. }, _, _) => {}
        _ => return Err(format!("{name}: result structures differ")),
    }
    if ours.shape() != xla.shape() {
        return Err(format!(
            "{name}: shapes differ: ours {} vs XLA {}",
            ours.shape(),
            xla.shape()
        ));
    }
    let (Some((sa, a)), Some((_, b))) = (ours.as_array(), xla.as_array()) else {
        return Err(format!("{name}: not arrays"));
    };
    let (Some(x), Some(y)) = (components(a), components(b)) else {
        return if a == b {
            Ok(())
        } else {
            Err(format!("{name}: non-float results differ"))
        };
    };
    let (Some(r), Some(s)) = (
        reference.as_array().and_then(|(_, d)| components(d)),
        scale.as_array().and_then(|(_, d)| components(d)),
    ) else {
        return Err(format!("{name}: the reference is not a float array"));
    };
    if r.len() != x.len() || s.len() != x.len() || y.len() != x.len() {
        return Err(format!("{name}: the reference has another size"));
    }
    let (_, eps_out, tiny) = epsilons(sa.ty);
    let terms = f.terms;
    let mut bad = Vec::new();
    for i in 0..x.len() {
        let mag = s[i].0.abs() + s[i].1.abs();
        let bound = (f.relative + f.rounds as f64 * eps_out) * mag + terms as f64 * tiny;
        for (who, v, w, tol) in [
            ("ours vs XLA", x[i], y[i], 2.0 * bound),
            ("ours vs exact", x[i], r[i], bound),
            ("XLA vs exact", y[i], r[i], bound),
        ] {
            if !within(v, w, tol) {
                bad.push(format!(
                    "index {i}: {who}: {v:?} vs {w:?}, |diff| {:e} > bound {tol:e} \
                     ({terms} terms, scale {mag:e})",
                    ((v.0 - w.0).abs()).max((v.1 - w.1).abs())
                ));
            }
        }
    }
    match bad.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "{name} ({}): {} checks beyond the forward-error bound; first at {first}",
            ours.shape(),
            bad.len()
        )),
    }
}

/// Components within `tol` of each other; non-finite components must be identical (any NaN
/// matches any NaN).
fn within(v: (f64, f64), w: (f64, f64), tol: f64) -> bool {
    let comp = |a: f64, b: f64| {
        if a.is_finite() && b.is_finite() {
            (a - b).abs() <= tol
        } else {
            (a.is_nan() && b.is_nan()) || a == b
        }
    };
    comp(v.0, w.0) && comp(v.1, w.1)
}
