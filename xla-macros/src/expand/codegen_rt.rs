//! The vocabulary of generated code, in one place: every path it uses to reach the runtime
//! (`::xla_aot::...`, the facade, and `::xla_aot::__rt::...`, internals), Rust types and
//! literals of element types, the names of slices, and index arithmetic.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{ComparisonDirection, ElementType, Literal};

use super::fuse::Src;
use super::plan::{Plan, Storage};

/// The `Scalar` trait, imported by every companion module (see [`module_imports`]).
pub(crate) fn scalar_trait() -> TokenStream {
    quote!(Scalar)
}

/// The imports at the top of every companion module, so kernels can name the element and
/// vector traits briefly. Nothing of the user's scope is imported.
pub(crate) fn module_imports() -> TokenStream {
    quote! {
        // The items around the `xla!` block (CustomCall targets name the user's fns as the
        // user sees them); the generated items below shadow any of the same name.
        #[allow(unused_imports)]
        use super::*;
        #[allow(unused_imports)]
        use ::xla_aot::__rt::xla_core::scalar::Scalar;
        #[allow(unused_imports)]
        use ::xla_aot::__rt::xla_kernels::simd::{run_window, window, VFloat, F32V, F64V};
        #[allow(unused_imports)]
        use ::xla_aot::__rt::xla_kernels::fused;
        /// Lanes of the f32 and f64 vectors of this target (short names keep loops short).
        const L32: usize = <F32V as VFloat>::LANES;
        const L64: usize = <F64V as VFloat>::LANES;
    }
}

/// The Rust type of an element type, as tokens.
pub(crate) fn rust_type(t: ElementType) -> TokenStream {
    match t {
        ElementType::Pred => quote!(bool),
        ElementType::S8 => quote!(i8),
        ElementType::S16 => quote!(i16),
        ElementType::S32 => quote!(i32),
        ElementType::S64 => quote!(i64),
        ElementType::U8 => quote!(u8),
        ElementType::U16 => quote!(u16),
        ElementType::U32 => quote!(u32),
        ElementType::U64 => quote!(u64),
        ElementType::F16 => quote!(::xla_aot::__rt::half::f16),
        ElementType::Bf16 => quote!(::xla_aot::__rt::half::bf16),
        ElementType::F32 => quote!(f32),
        ElementType::F64 => quote!(f64),
        ElementType::C64 => quote!(::xla_aot::__rt::num_complex::Complex<f32>),
        ElementType::C128 => quote!(::xla_aot::__rt::num_complex::Complex<f64>),
    }
}

/// `<T as Scalar>`.
pub(crate) fn scalar_of(t: ElementType) -> TokenStream {
    let ty = rust_type(t);
    let s = scalar_trait();
    quote!(<#ty as #s>)
}

/// A comparison direction value.
pub(crate) fn direction(d: ComparisonDirection) -> TokenStream {
    let v = match d {
        ComparisonDirection::Eq => format_ident!("Eq"),
        ComparisonDirection::Ne => format_ident!("Ne"),
        ComparisonDirection::Ge => format_ident!("Ge"),
        ComparisonDirection::Gt => format_ident!("Gt"),
        ComparisonDirection::Le => format_ident!("Le"),
        ComparisonDirection::Lt => format_ident!("Lt"),
    };
    quote!(::xla_aot::__rt::xla_core::ComparisonDirection::#v)
}

/// The generic arguments of an array shape's tensor type: `f32, ::xla_aot::D2<2, 3>` (with a
/// layout marker when the shape has a non-default layout). `Err` above rank 8.
pub(crate) fn tensor_args(a: &xla_core::ArrayShape) -> Result<TokenStream, String> {
    if a.rank() > 8 {
        return Err(format!("{a}: tensors of rank above 8 have no Rust type"));
    }
    let ty = rust_type(a.ty);
    let dims_name = format_ident!("D{}", a.rank());
    let dims = a
        .dims
        .iter()
        .map(|&d| proc_macro2::Literal::usize_unsuffixed(d as usize));
    let d = if a.rank() == 0 {
        quote!(::xla_aot::D0)
    } else {
        quote!(::xla_aot::#dims_name<#(#dims),*>)
    };
    match &a.layout {
        Some(l) if !l.is_row_major() => {
            let name = format_ident!("Mtm{}", a.rank());
            let m = l
                .minor_to_major
                .iter()
                .map(|&d| proc_macro2::Literal::usize_unsuffixed(d as usize));
            Ok(quote!(#ty, #d, ::xla_aot::#name<#(#m),*>))
        }
        Some(_) | None => Ok(quote!(#ty, #d)),
    }
}

/// The tensor type of an array shape: `::xla_aot::Tensor<f32, ::xla_aot::D2<2, 3>>` (with a
/// layout marker when the shape has a non-default layout). `Err` above rank 8.
pub(crate) fn tensor_type(a: &xla_core::ArrayShape) -> Result<TokenStream, String> {
    let args = tensor_args(a)?;
    Ok(quote!(::xla_aot::Tensor<#args>))
}

/// A `usize` literal.
pub(crate) fn lit_usize(n: impl TryInto<usize>) -> TokenStream {
    match n.try_into() {
        Ok(n) => {
            let l = proc_macro2::Literal::usize_suffixed(n);
            quote!(#l)
        }
        // Sizes, strides and offsets reach here non-negative (negative coefficients are
        // subtracted by `offset_tokens`); anything else is a bug of ours, never a silent 0.
        Err(_) => quote!(compile_error!(
            "xla!: internal: a negative size, stride or offset reached code generation"
        )),
    }
}

/// Tokens for element `i` of an array literal's data, as a constant expression of its Rust
/// type (floats through their bits, so NaN payloads and -0 survive).
pub(crate) fn element(lit: &Literal, i: usize) -> TokenStream {
    use xla_core::ArrayData as A;
    let Some((_, data)) = lit.as_array() else {
        return quote!(compile_error!(
            "xla!: internal: tuple constant used as an array"
        ));
    };
    macro_rules! int {
        ($v:expr, $t:ident, $suffixed:ident) => {{
            let x = $v[i];
            if x == $t::MIN && $t::MIN != 0 {
                quote!($t::MIN)
            } else {
                let l = proc_macro2::Literal::$suffixed(x);
                quote!(#l)
            }
        }};
    }
    match data {
        A::Pred(v) => {
            if v[i] {
                quote!(true)
            } else {
                quote!(false)
            }
        }
        A::S8(v) => int!(v, i8, i8_suffixed),
        A::S16(v) => int!(v, i16, i16_suffixed),
        A::S32(v) => int!(v, i32, i32_suffixed),
        A::S64(v) => int!(v, i64, i64_suffixed),
        A::U8(v) => int!(v, u8, u8_suffixed),
        A::U16(v) => int!(v, u16, u16_suffixed),
        A::U32(v) => int!(v, u32, u32_suffixed),
        A::U64(v) => int!(v, u64, u64_suffixed),
        A::F16(v) => {
            let b = proc_macro2::Literal::u16_suffixed(v[i].to_bits());
            quote!(::xla_aot::__rt::half::f16::from_bits(#b))
        }
        A::Bf16(v) => {
            let b = proc_macro2::Literal::u16_suffixed(v[i].to_bits());
            quote!(::xla_aot::__rt::half::bf16::from_bits(#b))
        }
        A::F32(v) => f32_tokens(v[i]),
        A::F64(v) => f64_tokens(v[i]),
        A::C64(v) => {
            let (re, im) = (f32_tokens(v[i].re), f32_tokens(v[i].im));
            quote!(::xla_aot::__rt::num_complex::Complex::<f32> { re: #re, im: #im })
        }
        A::C128(v) => {
            let (re, im) = (f64_tokens(v[i].re), f64_tokens(v[i].im));
            quote!(::xla_aot::__rt::num_complex::Complex::<f64> { re: #re, im: #im })
        }
    }
}

/// An f32 constant: a plain literal when it round-trips exactly, else through its bits.
pub(crate) fn f32_tokens(x: f32) -> TokenStream {
    if x.is_finite() && !(x == 0.0 && x.is_sign_negative()) && x >= 0.0 {
        let l = proc_macro2::Literal::f32_suffixed(x);
        if l.to_string()
            .trim_end_matches("f32")
            .parse::<f32>()
            .ok()
            .map(f32::to_bits)
            == Some(x.to_bits())
        {
            return quote!(#l);
        }
    }
    let b = proc_macro2::Literal::u32_suffixed(x.to_bits());
    quote!(f32::from_bits(#b))
}

/// An f64 constant (see [`f32_tokens`]).
pub(crate) fn f64_tokens(x: f64) -> TokenStream {
    if x.is_finite() && !(x == 0.0 && x.is_sign_negative()) && x >= 0.0 {
        let l = proc_macro2::Literal::f64_suffixed(x);
        if l.to_string()
            .trim_end_matches("f64")
            .parse::<f64>()
            .ok()
            .map(f64::to_bits)
            == Some(x.to_bits())
        {
            return quote!(#l);
        }
    }
    let b = proc_macro2::Literal::u64_suffixed(x.to_bits());
    quote!(f64::from_bits(#b))
}

/// The `wide` vector type of a vector float element type (`F32V` / `F64V`), `None` otherwise.
pub(crate) fn vector_type(t: ElementType) -> Option<TokenStream> {
    match t {
        ElementType::F32 => Some(quote!(F32V)),
        ElementType::F64 => Some(quote!(F64V)),
        ElementType::Pred
        | ElementType::S8
        | ElementType::S16
        | ElementType::S32
        | ElementType::S64
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64
        | ElementType::F16
        | ElementType::Bf16
        | ElementType::C64
        | ElementType::C128 => None,
    }
}

/// `<V as VFloat>` for a vector type `V`.
pub(crate) fn vfloat_of(v: &TokenStream) -> TokenStream {
    quote!(<#v as VFloat>)
}

/// The most lanes `xla_kernels::simd`'s vector of `t` has on any target (f32x16 and f64x8
/// with AVX-512; tests/one_result_per_element.rs checks it): a row at least this long always
/// holds one full vector.
pub(crate) fn max_lanes(t: ElementType) -> i64 {
    match t {
        ElementType::F64 => 8,
        ElementType::Pred
        | ElementType::S8
        | ElementType::S16
        | ElementType::S32
        | ElementType::S64
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64
        | ElementType::F16
        | ElementType::Bf16
        | ElementType::F32
        | ElementType::C64
        | ElementType::C128 => 16,
    }
}

/// The number of lanes of vector type `V`: the constant `module_imports` declares for it.
pub(crate) fn lanes_of(v: &TokenStream) -> TokenStream {
    if v.to_string() == "F64V" {
        quote!(L64)
    } else {
        quote!(L32)
    }
}

/// The variable naming the slice of a leaf source inside a kernel.
pub(crate) fn src_ident(plan: &Plan, src: &Src) -> Ident {
    match src {
        Src::Param { index, path } => match plan.params_in_place.get(&(*index, path.clone())) {
            Some(slot) => format_ident!("r_out{}", slot),
            None => param_ident(*index, path),
        },
        Src::Const(n) => format_ident!("C{}", n),
        Src::Dyn(d) => format_ident!("ds{}", d.node),
        Src::Buf(v) => match plan.storage.get(v) {
            Some(Storage::Out(slot)) => format_ident!("r_out{}", slot),
            Some(Storage::Scratch(b)) => format_ident!("r_b{}", b),
            None => format_ident!("r_missing"),
        },
    }
}

/// The slice variable of array leaf `path` of parameter `index`.
pub(crate) fn param_ident(index: usize, path: &[usize]) -> Ident {
    let mut s = format!("p{index}");
    for p in path {
        s.push_str(&format!("_{p}"));
    }
    format_ident!("{}", s)
}

/// `Σ var[d]·coef[d] + off` as a `usize` (`0usize` when it is 0): the positive terms first,
/// then the negative ones subtracted, so a reversed or shifted view never underflows where its
/// value is an index (the caller's guarantee: unguarded leaves are always in range).
pub(crate) fn offset_tokens(coef: &[i64], off: i64, vars: &[TokenStream]) -> TokenStream {
    let term = |c: i64, v: &TokenStream| {
        if c == 1 {
            quote!(#v)
        } else {
            let c = lit_usize(c);
            quote!(#v * #c)
        }
    };
    let mut plus: Vec<TokenStream> = Vec::new();
    let mut minus: Vec<TokenStream> = Vec::new();
    for (&c, v) in coef.iter().zip(vars) {
        match c.cmp(&0) {
            std::cmp::Ordering::Greater => plus.push(term(c, v)),
            std::cmp::Ordering::Less => minus.push(term(-c, v)),
            std::cmp::Ordering::Equal => {}
        }
    }
    match off.cmp(&0) {
        std::cmp::Ordering::Greater => plus.push(lit_usize(off)),
        std::cmp::Ordering::Less => minus.push(lit_usize(-off)),
        std::cmp::Ordering::Equal => {}
    }
    match (plus.is_empty(), minus.is_empty()) {
        (true, _) => quote!(0usize),
        (false, true) => quote!((#(#plus)+*)),
        (false, false) => quote!(((#(#plus)+*) - (#(#minus)+*))),
    }
}

/// `Σ var[d]·coef[d] + off` as an `isize`, for guards and guarded leaves (which may fall
/// outside their source).
pub(crate) fn signed_offset_tokens(coef: &[i64], off: i64, vars: &[TokenStream]) -> TokenStream {
    let off_l = proc_macro2::Literal::isize_suffixed(off as isize);
    let mut out = quote!(#off_l);
    for (&c, v) in coef.iter().zip(vars) {
        let m = proc_macro2::Literal::isize_suffixed(c.unsigned_abs() as isize);
        let term = if c.unsigned_abs() == 1 {
            quote!((#v as isize))
        } else {
            quote!((#v as isize) * #m)
        };
        out = match c.cmp(&0) {
            std::cmp::Ordering::Greater => quote!(#out + #term),
            std::cmp::Ordering::Less => quote!(#out - #term),
            std::cmp::Ordering::Equal => out,
        };
    }
    quote!((#out))
}
