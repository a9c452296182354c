//! DynamicUpdateSlice as a call of `xla_kernels::dynamic_slice::update_slice`: the operand
//! copied to the output unless it is stored there already (in place: `plan::in_place` and
//! `plan::plan` give the output the operand's storage when the operand dies here), the starts
//! read and clamped into `[0, dims - sizes]` as XLA does, then the update's rows written.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::super::codegen_rt::lit_usize;
use super::CallCode;

/// `w = DynamicUpdateSlice(x, u, starts..)`; `in_place` when `w` is `x`'s storage.
pub(crate) fn update_slice(
    ins: &[Ident],
    dims: &[Vec<i64>],
    in_place: bool,
    w: &Ident,
) -> CallCode {
    let k = quote!(::xla_aot::__rt::xla_kernels::dynamic_slice);
    let list = |v: &[i64]| {
        let v: Vec<TokenStream> = v.iter().map(|&x| lit_usize(x)).collect();
        quote!(&[#(#v),*])
    };
    let (x, u) = (&ins[0], &ins[1]);
    let copy = if in_place {
        quote!()
    } else {
        quote!(::xla_aot::__rt::xla_kernels::par::copy(#w, #x);)
    };
    let starts = ins[2..]
        .iter()
        .zip(dims[0].iter().zip(&dims[1]))
        .map(|(s, (&n, &m))| {
            let max = proc_macro2::Literal::i128_suffixed(i128::from(n - m));
            quote!(i128::from(#s[0]).clamp(0, #max) as usize)
        });
    let (od, ud) = (list(&dims[0]), list(&dims[1]));
    let rank = lit_usize(dims[0].len());
    CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote! {
            #copy
            let starts: [usize; #rank] = [#(#starts),*];
            // Shape inference checked the shapes and the starts are clamped: it cannot fail.
            if #k::update_slice(#w, #od, #u, #ud, &starts).is_err() {
                panic!("xla!: internal error: the update does not fit its operand");
            }
        },
    }
}
