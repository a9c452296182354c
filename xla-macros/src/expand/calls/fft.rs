//! Fft as a call of `xla_kernels::fft`: the plan (rustfft/realfft plans, task scratch,
//! transposition buffer) is a field of the fn's `Scratch`, built once when the scratch is; a
//! call only transforms (no planning, no allocation).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{ElementType, FftType};

use super::super::codegen_rt::lit_usize;
use super::{CallCode, ScratchField};

/// `w = Fft(x, fft_type, fft_length)` on an operand of dims `dims` and type `ty`.
pub(crate) fn fft(
    x: &Ident,
    dims: &[i64],
    ty: ElementType,
    fft_type: FftType,
    fft_length: &[i64],
    w: &Ident,
) -> Result<CallCode, String> {
    let real = match ty {
        ElementType::C64 | ElementType::F32 => quote!(f32),
        ElementType::C128 | ElementType::F64 => quote!(f64),
        other => return Err(format!("Fft: no code generation for {other} operands")),
    };
    let k = quote!(::xla_aot::__rt::xla_kernels::fft);
    let t = format_ident!(
        "{}",
        match fft_type {
            FftType::Fft => "Fft",
            FftType::Ifft => "Ifft",
            FftType::Rfft => "Rfft",
            FftType::Irfft => "Irfft",
        }
    );
    let d: Vec<TokenStream> = dims.iter().map(|&v| lit_usize(v)).collect();
    let l: Vec<TokenStream> = fft_length.iter().map(|&v| lit_usize(v)).collect();
    let call = match fft_type {
        FftType::Fft | FftType::Ifft => quote!(fft.c2c(#x, #w)),
        FftType::Rfft => quote!(fft.r2c(#x, #w)),
        FftType::Irfft => quote!(fft.c2r(#x, #w)),
    };
    let plan = quote!(#k::FftPlan<#real>);
    Ok(CallCode {
        scratch: vec![ScratchField {
            name: format_ident!("fft"),
            ty: plan.clone(),
            init: quote!(match #k::FftPlan::<#real>::new(
                ::xla_aot::__rt::xla_core::FftType::#t,
                &[#(#d),*],
                &[#(#l),*],
            ) {
                ::std::result::Result::Ok(p) => p,
                // Shape inference checked these shapes; the library cannot reject them.
                ::std::result::Result::Err(e) => panic!("xla!: internal error: {e}"),
            }),
            shared: false,
        }],
        items: quote!(),
        body: quote! {
            if #call.is_err() {
                panic!("xla!: internal error: the fft kernel rejected its compile-time shapes");
            }
        },
    })
}
