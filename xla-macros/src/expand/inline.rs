//! The one computation inliner: a scalar computation (a reducer, a sort comparator, a Scatter
//! update; next ReduceWindow bodies) applied to scalar Rust values becomes straight-line scalar
//! statements with fresh variable names, every op through `xla_core::scalar` (the evaluator's
//! semantics exactly). Map's computation is lifted to arrays instead ([`lift_to_arrays`]) and
//! inlined into the graph, so it fuses into vector loops.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{Computation, ElementType, Op, Shape};

use super::codegen_expr::scalar_op;
use super::graph::Kind;

/// Statements computing `c(args...)` and the result's scalar values (one, or one per element of
/// a tuple result).
pub(crate) fn scalar_call(
    c: &Computation,
    args: &[(TokenStream, ElementType)],
) -> Result<(TokenStream, Vec<TokenStream>), String> {
    let mut inl = Inliner {
        next: 0,
        stmts: TokenStream::new(),
    };
    let args: Vec<Val> = args
        .iter()
        .map(|(t, ty)| Val::Leaf(t.clone(), *ty))
        .collect();
    let outs = match inl.inline(c, &args)? {
        Val::Leaf(t, _) => vec![t],
        Val::Tuple(v) => v
            .into_iter()
            .map(|x| match x {
                Val::Leaf(t, _) => Ok(t),
                Val::Tuple(_) => Err("computation: nested tuple result".to_string()),
            })
            .collect::<Result<_, _>>()?,
    };
    Ok((inl.stmts, outs))
}

/// Statements applying reducer `c` to `(accs..., xs...)`, assigning the results back to `accs`.
pub(crate) fn reducer_update(
    c: &Computation,
    accs: &[Ident],
    xs: &[Ident],
    tys: &[ElementType],
) -> Result<TokenStream, String> {
    let args: Vec<(TokenStream, ElementType)> = accs
        .iter()
        .chain(xs)
        .zip(tys.iter().chain(tys))
        .map(|(v, &t)| (quote!(#v), t))
        .collect();
    let (stmts, outs) = scalar_call(c, &args)?;
    if outs.len() != accs.len() {
        return Err("reducer: result arity differs from the operand count".into());
    }
    let tmp: Vec<Ident> = (0..accs.len()).map(|i| format_ident!("rn{}", i)).collect();
    Ok(quote! {
        let (#(#tmp,)*) = { #stmts (#(#outs,)*) };
        #(#accs = #tmp;)*
    })
}

/// A reducer value while inlining: one scalar variable, or a tuple of values.
#[derive(Clone)]
enum Val {
    Leaf(TokenStream, ElementType),
    Tuple(Vec<Val>),
}

/// Inlines reducer computations as scalar statements with fresh variable names.
struct Inliner {
    next: usize,
    stmts: TokenStream,
}

impl Inliner {
    fn fresh(&mut self) -> Ident {
        self.next += 1;
        format_ident!("rv{}", self.next)
    }

    fn bind(&mut self, value: TokenStream, ty: ElementType) -> Val {
        let v = self.fresh();
        self.stmts.extend(quote!(let #v = #value;));
        Val::Leaf(quote!(#v), ty)
    }

    fn inline(&mut self, c: &Computation, args: &[Val]) -> Result<Val, String> {
        let mut env: Vec<Val> = Vec::with_capacity(c.instrs.len());
        for instr in &c.instrs {
            let get = |i: usize| -> Result<Val, String> {
                let id = instr
                    .operands
                    .get(i)
                    .ok_or("computation: missing operand")?;
                env.get(id.0 as usize)
                    .cloned()
                    .ok_or_else(|| "computation: operand defined after use".to_string())
            };
            let leaf = |i: usize| -> Result<(TokenStream, ElementType), String> {
                match get(i)? {
                    Val::Leaf(t, ty) => Ok((t, ty)),
                    Val::Tuple(_) => Err("computation: tuple where a scalar is required".into()),
                }
            };
            let ty = match &instr.shape {
                Shape::Array(a) if a.rank() == 0 => Some(a.ty),
                Shape::Array(a) => {
                    return Err(format!(
                        "computation: {} produces a non-scalar {a}",
                        instr.op.opcode()
                    ))
                }
                Shape::Tuple(_) => None,
                Shape::Token => return Err("computation: tokens have no code generation".into()),
            };
            let elementwise = |kind: Kind, me: &mut Inliner| -> Result<Val, String> {
                let mut a = Vec::new();
                let mut tys = Vec::new();
                for i in 0..instr.operands.len() {
                    let (t, ty) = leaf(i)?;
                    a.push(t);
                    tys.push(ty);
                }
                let out = ty.ok_or("computation: elementwise op with a tuple result")?;
                Ok(me.bind(scalar_op(&kind, &tys, out, &a), out))
            };
            let val = match &instr.op {
                Op::Parameter { index, .. } => args
                    .get(*index)
                    .cloned()
                    .ok_or_else(|| format!("computation: parameter {index} has no argument"))?,
                Op::Constant(lit) => {
                    let out = ty.ok_or("computation: tuple constants have no code generation")?;
                    let e = super::codegen_rt::element(lit, 0);
                    self.bind(e, out)
                }
                Op::Unary(u) => elementwise(Kind::Unary(*u), self)?,
                Op::Binary(b) => elementwise(Kind::Binary(*b), self)?,
                Op::Compare {
                    direction,
                    total_order,
                } => elementwise(
                    Kind::Compare {
                        direction: *direction,
                        total_order: *total_order,
                    },
                    self,
                )?,
                Op::Select => elementwise(Kind::Select, self)?,
                Op::Clamp => elementwise(Kind::Clamp, self)?,
                Op::ConvertElementType => elementwise(Kind::Convert, self)?,
                Op::BitcastConvertType => elementwise(Kind::Bitcast, self)?,
                Op::ReducePrecision {
                    exponent_bits,
                    mantissa_bits,
                } => elementwise(
                    Kind::ReducePrecision {
                        exponent_bits: *exponent_bits,
                        mantissa_bits: *mantissa_bits,
                    },
                    self,
                )?,
                // Scalar to scalar: the value itself.
                Op::BroadcastInDim { .. } | Op::Reshape | Op::Transpose { .. } => get(0)?,
                Op::Tuple => Val::Tuple(
                    (0..instr.operands.len())
                        .map(get)
                        .collect::<Result<_, _>>()?,
                ),
                Op::GetTupleElement { index } => match get(0)? {
                    Val::Tuple(v) => v
                        .get(*index)
                        .cloned()
                        .ok_or("computation: tuple index out of range")?,
                    Val::Leaf(..) => {
                        return Err("computation: get-tuple-element of a scalar".into())
                    }
                },
                Op::Call { computation, .. } => {
                    let a: Vec<Val> = (0..instr.operands.len())
                        .map(get)
                        .collect::<Result<_, _>>()?;
                    self.inline(computation, &a)?
                }
                // Scalars computed in program order: the barrier passes them through.
                Op::OptimizationBarrier => match instr.operands.len() {
                    1 => get(0)?,
                    n => Val::Tuple((0..n).map(get).collect::<Result<_, _>>()?),
                },
                Op::AfterAll
                | Op::CustomCall { .. }
                | Op::RaggedDot { .. }
                | Op::ScaledDot { .. }
                | Op::Iota { .. }
                | Op::Reduce { .. }
                | Op::DotGeneral { .. }
                | Op::Rev { .. }
                | Op::Slice { .. }
                | Op::Pad { .. }
                | Op::Concatenate { .. }
                | Op::Sort { .. }
                | Op::TopK { .. }
                | Op::Cholesky { .. }
                | Op::TriangularSolve { .. }
                | Op::RngBitGenerator { .. }
                | Op::Rng { .. }
                | Op::Fft { .. }
                | Op::Collective(_)
                | Op::HostIo(_)
                | Op::Convolution { .. }
                | Op::While { .. }
                | Op::Conditional { .. }
                | Op::Gather { .. }
                | Op::Scatter { .. }
                | Op::BatchNorm { .. }
                | Op::Map { .. }
                | Op::DynamicSlice { .. }
                | Op::DynamicUpdateSlice
                | Op::GetDimensionSize { .. }
                | Op::SetDimensionSize { .. }
                | Op::DynamicReshape
                | Op::ReduceWindow { .. }
                | Op::SelectAndScatter { .. }
                | Op::Scan { .. } => {
                    return Err(format!(
                        "computation: {} inside a reducer has no code generation",
                        instr.op.opcode()
                    ))
                }
            };
            env.push(val);
        }
        env.get(c.root.0 as usize)
            .cloned()
            .ok_or_else(|| "computation: root out of range".to_string())
    }
}

/// Map's computation lifted to arrays of `dims`: each scalar parameter becomes an array of its
/// type, each scalar constant a broadcast, each elementwise op the same op on arrays (a call is
/// lifted with its callee). Inlined into the graph, the lifted computation fuses into its
/// consumer's loop like any elementwise chain, and computes at every index what the scalar
/// computation computes on that index's elements. Ops that are not elementwise (a Reduce, a
/// While inside the computation) have no lifted form: `Err` naming the op.
pub(crate) fn lift_to_arrays(c: &Computation, dims: &[i64]) -> Result<Computation, String> {
    use xla_core::builder::{Builder, XlaOp};
    let mut b = Builder::new(format!("{}_lifted", c.name));
    let mut env: Vec<XlaOp> = Vec::with_capacity(c.instrs.len());
    let err = |e: xla_core::Error| e.to_string();
    for instr in &c.instrs {
        let arg = |i: usize| -> Result<XlaOp, String> {
            instr
                .operands
                .get(i)
                .and_then(|id| env.get(id.0 as usize))
                .copied()
                .ok_or_else(|| format!("Map: {} is missing operand {i}", instr.op.opcode()))
        };
        let ty = match &instr.shape {
            Shape::Array(a) if a.rank() == 0 => Some(a.ty),
            Shape::Tuple(_) => None,
            Shape::Array(_) | Shape::Token => {
                return Err(format!(
                    "Map: the computation's {} makes the non-scalar {}; only scalar \
                     computations have code generation",
                    instr.op.opcode(),
                    instr.shape
                ))
            }
        };
        let elem = || ty.ok_or_else(|| format!("Map: {} returns a tuple", instr.op.opcode()));
        let v = match &instr.op {
            Op::Parameter { index, name } => b
                .parameter(*index, Shape::array(elem()?, dims), name)
                .map_err(err)?,
            Op::Constant(lit) => {
                let k = b.constant(lit.clone());
                b.broadcast_in_dim(k, dims, &[]).map_err(err)?
            }
            Op::Unary(u) => b.unary(*u, arg(0)?).map_err(err)?,
            Op::Binary(o) => b.binary(*o, arg(0)?, arg(1)?, None).map_err(err)?,
            Op::Compare {
                direction,
                total_order,
            } => b
                .compare(*direction, *total_order, arg(0)?, arg(1)?, None)
                .map_err(err)?,
            Op::Select => b.select(arg(0)?, arg(1)?, arg(2)?).map_err(err)?,
            Op::Clamp => b.clamp(arg(0)?, arg(1)?, arg(2)?).map_err(err)?,
            Op::ConvertElementType => b.convert(arg(0)?, elem()?).map_err(err)?,
            Op::BitcastConvertType => b.bitcast_convert(arg(0)?, elem()?).map_err(err)?,
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => b
                .reduce_precision(
                    arg(0)?,
                    i64::from(*exponent_bits),
                    i64::from(*mantissa_bits),
                )
                .map_err(err)?,
            // Scalar to scalar: the value itself.
            Op::BroadcastInDim { .. } | Op::Reshape | Op::Transpose { .. } => arg(0)?,
            Op::Tuple => {
                let xs = (0..instr.operands.len())
                    .map(arg)
                    .collect::<Result<Vec<_>, _>>()?;
                b.tuple(&xs).map_err(err)?
            }
            Op::GetTupleElement { index } => {
                b.get_tuple_element(arg(0)?, *index as i64).map_err(err)?
            }
            Op::OptimizationBarrier => {
                let xs = (0..instr.operands.len())
                    .map(arg)
                    .collect::<Result<Vec<_>, _>>()?;
                b.optimization_barrier(&xs).map_err(err)?
            }
            Op::Call { computation, .. } | Op::Map { computation, .. } => {
                let callee = std::sync::Arc::new(lift_to_arrays(computation, dims)?);
                let xs = (0..instr.operands.len())
                    .map(arg)
                    .collect::<Result<Vec<_>, _>>()?;
                b.call(&callee, &xs).map_err(err)?
            }
            Op::AfterAll
            | Op::CustomCall { .. }
            | Op::RaggedDot { .. }
            | Op::ScaledDot { .. }
            | Op::Iota { .. }
            | Op::Reduce { .. }
            | Op::DotGeneral { .. }
            | Op::Rev { .. }
            | Op::Slice { .. }
            | Op::Pad { .. }
            | Op::Concatenate { .. }
            | Op::Sort { .. }
            | Op::TopK { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve { .. }
            | Op::RngBitGenerator { .. }
            | Op::Rng { .. }
            | Op::Fft { .. }
            | Op::Collective(_)
            | Op::HostIo(_)
            | Op::Convolution { .. }
            | Op::While { .. }
            | Op::Conditional { .. }
            | Op::Gather { .. }
            | Op::Scatter { .. }
            | Op::BatchNorm { .. }
            | Op::DynamicSlice { .. }
            | Op::DynamicUpdateSlice
            | Op::GetDimensionSize { .. }
            | Op::SetDimensionSize { .. }
            | Op::DynamicReshape
            | Op::ReduceWindow { .. }
            | Op::SelectAndScatter { .. }
            | Op::Scan { .. } => {
                return Err(format!(
                    "Map: a computation with {} has no code generation (elementwise ops, \
                     constants, tuples and calls do)",
                    instr.op.opcode()
                ))
            }
        };
        env.push(v);
    }
    let root = env
        .get(c.root.0 as usize)
        .copied()
        .ok_or("Map: the computation's root is out of range")?;
    b.build(root).map_err(err)
}
