//! RngBitGenerator, RngUniform and RngNormal as calls of `xla_kernels::rng`: the state read
//! into an array first (its new value may be written where it was stored), the dimensions and
//! the call site's seed literal.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use xla_core::{RandomAlgorithm, RngDistribution};

use super::super::codegen_rt::lit_usize;
use super::CallCode;

const FAIL: &str = "xla!: internal error: the rng kernel rejected its compile-time shapes";

/// `(w0, w1) = RngBitGenerator(state)`: `w0` the new state, `w1` the bits of `dims`;
/// `in_place` when the state is stored in `w0`.
pub(crate) fn bit_generator(
    algorithm: RandomAlgorithm,
    state: &Ident,
    state_len: i64,
    dims: &[i64],
    in_place: bool,
    ws: &[Ident],
) -> CallCode {
    let alg = match algorithm {
        RandomAlgorithm::Default => quote!(Default),
        RandomAlgorithm::ThreeFry => quote!(ThreeFry),
        RandomAlgorithm::Philox => quote!(Philox),
    };
    let (w0, w1) = (&ws[0], &ws[1]);
    let src = if in_place { w0 } else { state };
    let words = (0..state_len).map(|i| {
        let i = lit_usize(i);
        quote!(#src[#i])
    });
    let d: Vec<TokenStream> = dims.iter().map(|&x| lit_usize(x)).collect();
    CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote! {
            let state = [#(#words),*];
            if ::xla_aot::__rt::xla_kernels::rng::bit_generator(
                ::xla_aot::__rt::xla_core::RandomAlgorithm::#alg,
                &state, &[#(#d),*], #w0, #w1,
            ).is_err() {
                panic!(#FAIL);
            }
        },
    }
}

/// `w0 = RngUniform(a, b)` / `RngNormal(mu, sigma)`, keyed by the call site's `seed`.
pub(crate) fn rng(distribution: RngDistribution, seed: u64, ins: &[Ident], w: &Ident) -> CallCode {
    let dist = match distribution {
        RngDistribution::Uniform => quote!(Uniform),
        RngDistribution::Normal => quote!(Normal),
    };
    let (a, b) = (&ins[0], &ins[1]);
    let seed = proc_macro2::Literal::u64_suffixed(seed);
    CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote! {
            if ::xla_aot::__rt::xla_kernels::rng::rng(
                ::xla_aot::__rt::xla_core::RngDistribution::#dist, #seed, #a[0], #b[0], #w,
            ).is_err() {
                panic!(#FAIL);
            }
        },
    }
}
