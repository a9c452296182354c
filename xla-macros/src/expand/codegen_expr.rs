//! Per-element code of a kernel's expressions: `let` bindings in arena order (operands first),
//! one per expression reachable from the roots, in scalar mode (every op through
//! `xla_core::scalar::Scalar`, so the semantics are the evaluator's exactly) or in vector mode
//! (`wide` vectors through `xla_kernels::simd`: [`vector_stmts`], used only when
//! [`vectorisable`] says every op has an exact vector counterpart).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use xla_core::{BinaryOp, ElementType, UnaryOp};

use super::codegen_rt::{
    direction, element, offset_tokens, rust_type, scalar_of, scalar_trait, signed_offset_tokens,
    vfloat_of,
};
use super::fuse::{Cond, Expr, ExprId, Src};
use super::graph::Kind;

/// How leaves are read at the current point of a loop nest.
pub(crate) struct Access<'a> {
    /// The slice variable holding a leaf source.
    pub slice: &'a dyn Fn(&Src) -> TokenStream,
    /// The index variable of each dim at the current element (lane 0 in vector mode).
    pub vars: &'a [TokenStream],
    /// Sources read in place from the kernel's own output at the current element, overriding
    /// `slice`.
    pub local: &'a dyn Fn(&Src) -> Option<Local>,
}

/// An in-place read of the kernel's own output at the element being written.
pub(crate) enum Local {
    /// Element `offset` of slice `.0`.
    At(TokenStream, TokenStream),
    /// Already loaded into this variable (scalar or vector) by the loop driver.
    Value(TokenStream),
}

/// No in-place sources.
pub(crate) fn no_local(_: &Src) -> Option<Local> {
    None
}

/// Expressions reachable from `roots`, as a mask over the arena.
pub(crate) fn reachable(exprs: &[Expr], roots: &[ExprId]) -> Vec<bool> {
    let mut live = vec![false; exprs.len()];
    let mut stack = roots.to_vec();
    while let Some(e) = stack.pop() {
        if !live[e] {
            live[e] = true;
            match &exprs[e] {
                Expr::Op { args, .. } => stack.extend(args),
                Expr::Guard { value, fill, .. } => stack.extend([*value, *fill]),
                Expr::Leaf { .. } | Expr::Index { .. } | Expr::Scalar(_) => {}
            }
        }
    }
    live
}

/// A read of `s` at the `isize` offset `o` that may fall outside it (a guarded leaf): the
/// element type's zero there, never an out-of-bounds index.
fn guarded_load(s: &TokenStream, o: &TokenStream) -> TokenStream {
    quote!(usize::try_from(#o).ok().and_then(|o| #s.get(o)).copied().unwrap_or_default())
}

/// `lo <= x && x < hi` for every cond, `x` its affine function of the index variables.
fn conds_tokens(conds: &[Cond], vars: &[TokenStream]) -> TokenStream {
    let tests: Vec<TokenStream> = conds
        .iter()
        .map(|c| {
            let x = signed_offset_tokens(&c.coef, c.off, vars);
            let lo = proc_macro2::Literal::isize_suffixed(c.lo as isize);
            let hi = proc_macro2::Literal::isize_suffixed(c.hi as isize);
            quote!((#lo..#hi).contains(&#x))
        })
        .collect();
    if tests.is_empty() {
        quote!(true)
    } else {
        quote!(#(#tests)&&*)
    }
}

/// The variable of expression `e`.
pub(crate) fn var(e: ExprId) -> proc_macro2::Ident {
    format_ident!("e{}", e)
}

/// Scalar-mode `let` bindings for everything reachable from `roots`; the roots' values are
/// `var(root)`.
pub(crate) fn scalar_stmts(exprs: &[Expr], roots: &[ExprId], acc: &Access<'_>) -> TokenStream {
    let live = reachable(exprs, roots);
    let mut out = TokenStream::new();
    for (id, e) in exprs.iter().enumerate() {
        if !live[id] {
            continue;
        }
        let v = var(id);
        let value = match e {
            Expr::Leaf {
                src,
                coef,
                off,
                guarded,
                ..
            } => {
                if let Some(l) = (acc.local)(src) {
                    match l {
                        Local::At(s, o) => quote!(#s[#o]),
                        Local::Value(x) => x,
                    }
                } else if *guarded {
                    let s = (acc.slice)(src);
                    let o = signed_offset_tokens(coef, *off, acc.vars);
                    guarded_load(&s, &o)
                } else {
                    let s = (acc.slice)(src);
                    let o = offset_tokens(coef, *off, acc.vars);
                    quote!(#s[#o])
                }
            }
            Expr::Index { coef, off, ty } => {
                let o = signed_offset_tokens(coef, *off, acc.vars);
                let i64s = scalar_of(ElementType::S64);
                let t = rust_type(*ty);
                quote!(#i64s::convert::<#t>((#o) as i64))
            }
            Expr::Guard {
                conds, value, fill, ..
            } => {
                let c = conds_tokens(conds, acc.vars);
                let (v, f) = (var(*value), var(*fill));
                quote!(if #c { #v } else { #f })
            }
            Expr::Scalar(lit) => element(lit, 0),
            Expr::Op {
                kind,
                args,
                tys,
                ty,
            } => {
                let a: Vec<TokenStream> =
                    args.iter().map(|&x| var(x).into_token_stream()).collect();
                scalar_op(kind, tys, *ty, &a)
            }
        };
        out.extend(quote!(let #v = #value;));
    }
    out
}

use quote::ToTokens;

/// The scalar code of one elementwise op over operand values `a` (types `tys`) giving `ty`.
pub(crate) fn scalar_op(
    kind: &Kind,
    tys: &[ElementType],
    ty: ElementType,
    a: &[TokenStream],
) -> TokenStream {
    let t0 = tys.first().copied().unwrap_or(ty);
    let s = scalar_of(t0);
    match kind {
        Kind::Unary(u) => {
            let m = unary_method(*u);
            let x = &a[0];
            quote!(#s::#m(#x))
        }
        Kind::Binary(BinaryOp::Complex) => {
            let (x, y) = (&a[0], &a[1]);
            quote!(::xla_aot::__rt::xla_core::scalar::make_complex(#x, #y))
        }
        Kind::Binary(b) => {
            let m = binary_method(*b);
            let (x, y) = (&a[0], &a[1]);
            quote!(#s::#m(#x, #y))
        }
        Kind::Compare {
            direction: d,
            total_order,
        } => {
            let dir = direction(*d);
            let (x, y) = (&a[0], &a[1]);
            if *total_order {
                quote!(#s::compare_total(#x, #y, #dir))
            } else {
                quote!(#s::compare(#x, #y, #dir))
            }
        }
        Kind::Select => {
            let st = scalar_of(ty);
            let (p, x, y) = (&a[0], &a[1], &a[2]);
            quote!(#st::select(#p, #x, #y))
        }
        Kind::Clamp => {
            let st = scalar_of(ty);
            let (lo, x, hi) = (&a[0], &a[1], &a[2]);
            quote!(#st::clamp(#lo, #x, #hi))
        }
        Kind::Convert => {
            let t = rust_type(ty);
            let x = &a[0];
            quote!(#s::convert::<#t>(#x))
        }
        Kind::Bitcast => {
            let t = rust_type(ty);
            let x = &a[0];
            quote!(#s::bitcast::<#t>(#x))
        }
        Kind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => {
            let x = &a[0];
            let (e, m) = (
                proc_macro2::Literal::u32_suffixed(*exponent_bits),
                proc_macro2::Literal::u32_suffixed(*mantissa_bits),
            );
            quote!(#s::reduce_precision(#x, #e, #m))
        }
        Kind::Copy => a[0].clone(),
        Kind::Param { .. }
        | Kind::Constant(_)
        | Kind::Iota { .. }
        | Kind::BroadcastInDim { .. }
        | Kind::Reshape
        | Kind::Transpose { .. }
        | Kind::Rev { .. }
        | Kind::Slice { .. }
        | Kind::DynamicSlice { .. }
        | Kind::Pad { .. }
        | Kind::Concat { .. }
        | Kind::BitcastResize
        | Kind::Reduce { .. }
        | Kind::Dot { .. }
        | Kind::Sort { .. }
        | Kind::TopK { .. }
        | Kind::Cholesky { .. }
        | Kind::RaggedDot { .. }
        | Kind::TriangularSolve { .. }
        | Kind::RngBitGenerator { .. }
        | Kind::Rng { .. }
        | Kind::Fft { .. }
        | Kind::Collective(_)
        | Kind::HostIo { .. }
        | Kind::Conv { .. }
        | Kind::While { .. }
        | Kind::Conditional { .. }
        | Kind::CustomCall { .. }
        | Kind::Gather { .. }
        | Kind::Scatter { .. }
        | Kind::DynamicUpdateSlice
        | Kind::ReduceWindow { .. }
        | Kind::SelectAndScatter { .. }
        | Kind::CumScan { .. } => {
            let _ = scalar_trait();
            quote!(compile_error!(
                "xla!: internal: non-elementwise op in an expression"
            ))
        }
    }
}

/// The `Scalar` method of a unary op.
pub(crate) fn unary_method(u: UnaryOp) -> proc_macro2::Ident {
    let name = match u {
        UnaryOp::Abs => "abs",
        UnaryOp::Cbrt => "cbrt",
        UnaryOp::Ceil => "ceil",
        UnaryOp::Clz => "clz",
        UnaryOp::Cos => "cos",
        UnaryOp::Cosh => "cosh",
        UnaryOp::Erf => "erf",
        UnaryOp::Exp => "exp",
        UnaryOp::Expm1 => "expm1",
        UnaryOp::Floor => "floor",
        UnaryOp::Imag => "imag",
        UnaryOp::IsFinite => "is_finite",
        UnaryOp::Log => "log",
        UnaryOp::Log1p => "log1p",
        UnaryOp::Logistic => "logistic",
        UnaryOp::Neg => "neg",
        UnaryOp::Not => "not",
        UnaryOp::PopulationCount => "popcnt",
        UnaryOp::Real => "real",
        UnaryOp::RoundNearestAfz => "round_afz",
        UnaryOp::RoundNearestEven => "round_even",
        UnaryOp::Rsqrt => "rsqrt",
        UnaryOp::Sign => "sign",
        UnaryOp::Sin => "sin",
        UnaryOp::Sqrt => "sqrt",
        UnaryOp::Tan => "tan",
        UnaryOp::Tanh => "tanh",
    };
    format_ident!("{}", name)
}

/// The `Scalar` method of a same-type binary op (`Complex` is a free function).
pub(crate) fn binary_method(b: BinaryOp) -> proc_macro2::Ident {
    let name = match b {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "sub",
        BinaryOp::Mul => "mul",
        BinaryOp::Div => "div",
        BinaryOp::Rem => "rem",
        BinaryOp::Max => "max",
        BinaryOp::Min => "min",
        BinaryOp::Pow => "pow",
        BinaryOp::Atan2 => "atan2",
        BinaryOp::And => "and",
        BinaryOp::Or => "or",
        BinaryOp::Xor => "xor",
        BinaryOp::ShiftLeft => "shl",
        BinaryOp::ShiftRightArithmetic => "shr_arithmetic",
        BinaryOp::ShiftRightLogical => "shr_logical",
        BinaryOp::Complex => "add",
    };
    format_ident!("{}", name)
}

/// True when every expression reachable from `roots` has a vector form over element type `t`
/// (f32/f64): values of type `t` only, except comparisons of `t` values whose only uses are the
/// predicate of a `Select`. Other kernels run in scalar mode.
pub(crate) fn vectorisable(exprs: &[Expr], roots: &[ExprId], t: ElementType) -> bool {
    if !super::graph::is_vector_float(t) {
        return false;
    }
    let live = reachable(exprs, roots);
    // Uses of each expression other than as a Select predicate.
    let mut non_pred_use = vec![false; exprs.len()];
    for &r in roots {
        non_pred_use[r] = true;
    }
    for (id, e) in exprs.iter().enumerate() {
        if !live[id] {
            continue;
        }
        if let Expr::Op { kind, args, .. } = e {
            for (i, &a) in args.iter().enumerate() {
                if !(matches!(kind, Kind::Select) && i == 0) {
                    non_pred_use[a] = true;
                }
            }
        }
    }
    exprs.iter().enumerate().all(|(id, e)| {
        if !live[id] {
            return true;
        }
        match e {
            Expr::Leaf { ty, .. } | Expr::Index { ty, .. } => *ty == t,
            // A guard picks whole vectors: only when it is the same for every lane (no cond
            // depends on the innermost dim).
            Expr::Guard { conds, ty, .. } => {
                *ty == t
                    && conds
                        .iter()
                        .all(|c| c.coef.last().copied().unwrap_or(0) == 0)
            }
            Expr::Scalar(lit) => lit.as_array().is_some_and(|(s, _)| s.ty == t),
            Expr::Op { kind, tys, ty, .. } => {
                let operands_t = tys.iter().all(|&x| x == t);
                match kind {
                    Kind::Compare { total_order, .. } => {
                        !*total_order && operands_t && *ty == ElementType::Pred && !non_pred_use[id]
                    }
                    Kind::Select => {
                        *ty == t
                            && tys.len() == 3
                            && tys[1] == t
                            && tys[2] == t
                            && matches!(
                                &e_arg(exprs, e, 0),
                                Some(Expr::Op {
                                    kind: Kind::Compare { .. },
                                    ..
                                })
                            )
                    }
                    Kind::Unary(u) => *ty == t && operands_t && vector_unary(*u).is_some(),
                    Kind::Binary(b) => *ty == t && operands_t && vector_binary(*b).is_some(),
                    Kind::Clamp | Kind::Copy => *ty == t && operands_t,
                    Kind::Convert | Kind::Bitcast => *ty == t && operands_t,
                    Kind::ReducePrecision { .. }
                    | Kind::Param { .. }
                    | Kind::Constant(_)
                    | Kind::Iota { .. }
                    | Kind::BroadcastInDim { .. }
                    | Kind::Reshape
                    | Kind::Transpose { .. }
                    | Kind::Rev { .. }
                    | Kind::Slice { .. }
                    | Kind::DynamicSlice { .. }
                    | Kind::Pad { .. }
                    | Kind::Concat { .. }
                    | Kind::BitcastResize
                    | Kind::Reduce { .. }
                    | Kind::Dot { .. }
                    | Kind::Sort { .. }
                    | Kind::TopK { .. }
                    | Kind::Cholesky { .. }
                    | Kind::RaggedDot { .. }
                    | Kind::TriangularSolve { .. }
                    | Kind::RngBitGenerator { .. }
                    | Kind::Rng { .. }
                    | Kind::Fft { .. }
                    | Kind::Collective(_)
                    | Kind::HostIo { .. }
                    | Kind::Conv { .. }
                    | Kind::While { .. }
                    | Kind::Conditional { .. }
                    | Kind::CustomCall { .. }
                    | Kind::Gather { .. }
                    | Kind::Scatter { .. }
                    | Kind::DynamicUpdateSlice
                    | Kind::ReduceWindow { .. }
                    | Kind::SelectAndScatter { .. }
                    | Kind::CumScan { .. } => false,
                }
            }
        }
    })
}

fn e_arg<'a>(exprs: &'a [Expr], e: &Expr, i: usize) -> Option<&'a Expr> {
    match e {
        Expr::Op { args, .. } => args.get(i).and_then(|&a| exprs.get(a)),
        Expr::Leaf { .. } | Expr::Index { .. } | Expr::Scalar(_) | Expr::Guard { .. } => None,
    }
}

/// How a unary op is written on a vector `x` (`VFloat` method), when it has an exact vector
/// counterpart of the scalar semantics.
fn vector_unary(u: UnaryOp) -> Option<&'static str> {
    match u {
        UnaryOp::Abs => Some("abs"),
        UnaryOp::Cbrt => Some("cbrt"),
        UnaryOp::Ceil => Some("ceil"),
        UnaryOp::Cos => Some("cos"),
        UnaryOp::Erf => Some("erf"),
        UnaryOp::Exp => Some("exp"),
        UnaryOp::Expm1 => Some("expm1"),
        UnaryOp::Floor => Some("floor"),
        UnaryOp::Log => Some("log"),
        UnaryOp::Log1p => Some("log1p"),
        UnaryOp::Logistic => Some("logistic"),
        UnaryOp::Neg => Some("neg"),
        UnaryOp::RoundNearestAfz => Some("round_afz"),
        UnaryOp::RoundNearestEven => Some("round_even"),
        UnaryOp::Rsqrt => Some("rsqrt"),
        UnaryOp::Sign => Some("sign"),
        UnaryOp::Sin => Some("sin"),
        UnaryOp::Sqrt => Some("sqrt"),
        UnaryOp::Tan => Some("tan"),
        UnaryOp::Tanh => Some("tanh"),
        UnaryOp::Clz
        | UnaryOp::Cosh
        | UnaryOp::Imag
        | UnaryOp::IsFinite
        | UnaryOp::Not
        | UnaryOp::PopulationCount
        | UnaryOp::Real => None,
    }
}

/// How a binary op is written on vectors: an operator or a `VFloat` method.
fn vector_binary(b: BinaryOp) -> Option<&'static str> {
    match b {
        BinaryOp::Add => Some("+"),
        BinaryOp::Sub => Some("-"),
        BinaryOp::Mul => Some("*"),
        BinaryOp::Div => Some("/"),
        BinaryOp::Max => Some("max_xla"),
        BinaryOp::Min => Some("min_xla"),
        BinaryOp::Pow => Some("pow"),
        BinaryOp::Atan2 => Some("atan2"),
        BinaryOp::Rem => Some("rem"),
        BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::ShiftLeft
        | BinaryOp::ShiftRightArithmetic
        | BinaryOp::ShiftRightLogical
        | BinaryOp::Complex => None,
    }
}

/// Vector-mode `let` bindings (vector type `v`) for everything reachable from `roots`; only
/// valid when [`vectorisable`] holds. `acc.offset` gives the offset of lane 0; `inner` is the
/// coefficient index of the vectorised (innermost) iteration dim: a leaf with coefficient 1
/// there is a contiguous load, 0 a splat, anything else a gather.
pub(crate) fn vector_stmts(
    exprs: &[Expr],
    roots: &[ExprId],
    acc: &Access<'_>,
    v: &TokenStream,
    inner: usize,
) -> TokenStream {
    vector_stmts_lanes(exprs, roots, acc, v, inner, None)
}

/// [`vector_stmts`] for a partial vector at the end of a row: only the first `rem` lanes
/// (a `usize` expression) are valid, and lanes at or past it read lane 0's elements (never
/// past the data). The tail thus runs the very code of the full vectors, so an element's bits
/// do not depend on its position (a scalar tail would take transcendental functions from
/// other code).
pub(crate) fn vector_tail_stmts(
    exprs: &[Expr],
    roots: &[ExprId],
    acc: &Access<'_>,
    v: &TokenStream,
    inner: usize,
    rem: &TokenStream,
) -> TokenStream {
    vector_stmts_lanes(exprs, roots, acc, v, inner, Some(rem))
}

fn vector_stmts_lanes(
    exprs: &[Expr],
    roots: &[ExprId],
    acc: &Access<'_>,
    v: &TokenStream,
    inner: usize,
    rem: Option<&TokenStream>,
) -> TokenStream {
    let live = reachable(exprs, roots);
    let vf = vfloat_of(v);
    let mut out = TokenStream::new();
    // The lane a lane reads: itself, or lane 0 past the valid ones of a partial vector.
    let lane = match rem {
        Some(r) => quote!(let l: usize = if l < #r { l } else { 0 };),
        None => quote!(),
    };
    for (id, e) in exprs.iter().enumerate() {
        if !live[id] {
            continue;
        }
        let x = var(id);
        let value = match e {
            Expr::Leaf {
                src,
                coef,
                off,
                guarded,
                ..
            } => {
                if let Some(l) = (acc.local)(src) {
                    let load = match (l, rem) {
                        (Local::Value(x), _) => x,
                        (Local::At(s, o), None) => quote!(#vf::load(&#s[#o..])),
                        (Local::At(s, o), Some(_)) => {
                            quote!(#vf::from_fn(|l: usize| { #lane #s[#o + l] }))
                        }
                    };
                    out.extend(quote!(let #x = #load;));
                    continue;
                }
                let s = (acc.slice)(src);
                let c = coef.get(inner).copied().unwrap_or(0);
                let cl = proc_macro2::Literal::isize_suffixed(c as isize);
                if *guarded {
                    let o = signed_offset_tokens(coef, *off, acc.vars);
                    let load = guarded_load(&s, &quote!((#o + (l as isize) * #cl)));
                    quote!(#vf::from_fn(|l: usize| { #lane #load }))
                } else {
                    let o = offset_tokens(coef, *off, acc.vars);
                    match (c, rem) {
                        (0, _) => quote!(#vf::splat(#s[#o])),
                        (1, None) => quote!(#vf::load(&#s[#o..])),
                        (c, _) if c > 0 => {
                            let c = super::codegen_rt::lit_usize(c);
                            quote!(#vf::from_fn(|l: usize| { #lane #s[#o + l * #c] }))
                        }
                        (c, _) => {
                            // Reversed along the vector: lane l reads `o - l·|c|`.
                            let c = super::codegen_rt::lit_usize(-c);
                            quote!(#vf::from_fn(|l: usize| { #lane #s[#o - l * #c] }))
                        }
                    }
                }
            }
            Expr::Index { coef, off, ty } => {
                let o = signed_offset_tokens(coef, *off, acc.vars);
                let c = proc_macro2::Literal::isize_suffixed(
                    coef.get(inner).copied().unwrap_or(0) as isize
                );
                let i64s = scalar_of(ElementType::S64);
                let t = rust_type(*ty);
                quote!(#vf::from_fn(|l: usize| #i64s::convert::<#t>((#o + (l as isize) * #c) as i64)))
            }
            Expr::Guard {
                conds, value, fill, ..
            } => {
                // Row-uniform (see `vectorisable`): lane 0's test holds for every lane.
                let c = conds_tokens(conds, acc.vars);
                let (v, f) = (var(*value), var(*fill));
                quote!(if #c { #v } else { #f })
            }
            Expr::Scalar(lit) => {
                let c = element(lit, 0);
                quote!(#vf::splat(#c))
            }
            Expr::Op { kind, args, .. } => {
                let a: Vec<proc_macro2::Ident> = args.iter().map(|&a| var(a)).collect();
                vector_op(kind, &a, &vf)
            }
        };
        out.extend(quote!(let #x = #value;));
    }
    out
}

fn vector_op(kind: &Kind, a: &[proc_macro2::Ident], vf: &TokenStream) -> TokenStream {
    match kind {
        Kind::Unary(UnaryOp::Neg) => {
            let x = &a[0];
            quote!(-#x)
        }
        // `vectorisable` admits only ops with a vector form; reaching one without is a bug of
        // ours, reported by the compiler rather than computed as some other op.
        Kind::Unary(u) => match vector_unary(*u) {
            Some(m) => {
                let m = format_ident!("{}", m);
                let x = &a[0];
                quote!(#vf::#m(#x))
            }
            None => quote!(compile_error!(
                "xla!: internal: unary op without a vector form"
            )),
        },
        Kind::Binary(b) => {
            let (x, y) = (&a[0], &a[1]);
            match vector_binary(*b) {
                Some("+") => quote!(#x + #y),
                Some("-") => quote!(#x - #y),
                Some("*") => quote!(#x * #y),
                Some("/") => quote!(#x / #y),
                Some(m) => {
                    let m = format_ident!("{}", m);
                    quote!(#vf::#m(#x, #y))
                }
                None => quote!(compile_error!(
                    "xla!: internal: binary op without a vector form"
                )),
            }
        }
        Kind::Compare { direction: d, .. } => {
            let m = format_ident!(
                "{}",
                match d {
                    xla_core::ComparisonDirection::Eq => "cmp_eq",
                    xla_core::ComparisonDirection::Ne => "cmp_ne",
                    xla_core::ComparisonDirection::Lt => "cmp_lt",
                    xla_core::ComparisonDirection::Le => "cmp_le",
                    xla_core::ComparisonDirection::Gt => "cmp_gt",
                    xla_core::ComparisonDirection::Ge => "cmp_ge",
                }
            );
            let (x, y) = (&a[0], &a[1]);
            quote!(#vf::#m(#x, #y))
        }
        Kind::Select => {
            let (p, x, y) = (&a[0], &a[1], &a[2]);
            quote!(#vf::select(#p, #x, #y))
        }
        Kind::Clamp => {
            let (lo, x, hi) = (&a[0], &a[1], &a[2]);
            quote!(#vf::min_xla(#vf::max_xla(#x, #lo), #hi))
        }
        Kind::Copy | Kind::Convert | Kind::Bitcast => {
            let x = &a[0];
            quote!(#x)
        }
        Kind::ReducePrecision { .. }
        | Kind::Param { .. }
        | Kind::Constant(_)
        | Kind::Iota { .. }
        | Kind::BroadcastInDim { .. }
        | Kind::Reshape
        | Kind::Transpose { .. }
        | Kind::Rev { .. }
        | Kind::Slice { .. }
        | Kind::DynamicSlice { .. }
        | Kind::Pad { .. }
        | Kind::Concat { .. }
        | Kind::BitcastResize
        | Kind::Reduce { .. }
        | Kind::Dot { .. }
        | Kind::Sort { .. }
        | Kind::TopK { .. }
        | Kind::Cholesky { .. }
        | Kind::RaggedDot { .. }
        | Kind::TriangularSolve { .. }
        | Kind::RngBitGenerator { .. }
        | Kind::Rng { .. }
        | Kind::Fft { .. }
        | Kind::Collective(_)
        | Kind::HostIo { .. }
        | Kind::Conv { .. }
        | Kind::While { .. }
        | Kind::Conditional { .. }
        | Kind::CustomCall { .. }
        | Kind::Gather { .. }
        | Kind::Scatter { .. }
        | Kind::DynamicUpdateSlice
        | Kind::ReduceWindow { .. }
        | Kind::SelectAndScatter { .. }
        | Kind::CumScan { .. } => {
            quote!(compile_error!("xla!: internal: op without a vector form"))
        }
    }
}
