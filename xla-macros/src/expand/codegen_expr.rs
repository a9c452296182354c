//! Per-element code of a kernel's expressions: `let` bindings in arena order (operands first),
//! one per expression reachable from the roots, in scalar mode (every op through
//! `xla_core::scalar::Scalar`, so the semantics are the evaluator's exactly) or in vector mode
//! (`wide` vectors through `xla_kernels::simd`, see `codegen_simd`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use xla_core::{BinaryOp, ElementType, UnaryOp};

use super::codegen_rt::{direction, element, rust_type, scalar_of, scalar_trait};
use super::fuse::{Expr, ExprId, Src};
use super::graph::Kind;

/// How leaves are read at the current point of a loop nest.
pub(crate) struct Access<'a> {
    /// The slice variable holding a leaf source.
    pub slice: &'a dyn Fn(&Src) -> TokenStream,
    /// The offset of the element (lane 0 in vector mode) for a coefficient vector.
    pub offset: &'a dyn Fn(&[i64]) -> TokenStream,
}

/// Expressions reachable from `roots`, as a mask over the arena.
pub(crate) fn reachable(exprs: &[Expr], roots: &[ExprId]) -> Vec<bool> {
    let mut live = vec![false; exprs.len()];
    let mut stack = roots.to_vec();
    while let Some(e) = stack.pop() {
        if !live[e] {
            live[e] = true;
            if let Expr::Op { args, .. } = &exprs[e] {
                stack.extend(args);
            }
        }
    }
    live
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
            Expr::Leaf { src, coef, .. } => {
                let s = (acc.slice)(src);
                let off = (acc.offset)(coef);
                quote!(#s[#off])
            }
            Expr::Index { coef, ty } => {
                let off = (acc.offset)(coef);
                let i64s = scalar_of(ElementType::S64);
                let t = rust_type(*ty);
                quote!(#i64s::convert::<#t>((#off) as i64))
            }
            Expr::Scalar(lit) => element(lit, 0),
            Expr::Op { kind, args, tys, ty } => {
                let a: Vec<TokenStream> = args.iter().map(|&x| var(x).into_token_stream()).collect();
                scalar_op(kind, tys, *ty, &a)
            }
        };
        out.extend(quote!(let #v = #value;));
    }
    out
}

use quote::ToTokens;

/// The scalar code of one elementwise op over operand values `a` (types `tys`) giving `ty`.
pub(crate) fn scalar_op(kind: &Kind, tys: &[ElementType], ty: ElementType, a: &[TokenStream]) -> TokenStream {
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
        Kind::Compare { direction: d, total_order } => {
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
        Kind::ReducePrecision { exponent_bits, mantissa_bits } => {
            let x = &a[0];
            let (e, m) = (proc_macro2::Literal::u32_suffixed(*exponent_bits), proc_macro2::Literal::u32_suffixed(*mantissa_bits));
            quote!(#s::reduce_precision(#x, #e, #m))
        }
        Kind::Copy => a[0].clone(),
        Kind::Param { .. }
        | Kind::Constant(_)
        | Kind::Iota { .. }
        | Kind::BroadcastInDim { .. }
        | Kind::Reshape
        | Kind::Transpose { .. }
        | Kind::BitcastResize
        | Kind::Reduce { .. }
        | Kind::Dot { .. } => {
            let _ = scalar_trait();
            quote!(compile_error!("xla!: internal: non-elementwise op in an expression"))
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
