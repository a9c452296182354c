//! Host I/O as calls of `xla_kernels::collectives` (the typed ops of `xla_core::spmd::host`)
//! with the fn's `ctx`: one call per array, in order; the kernel returns
//! `Result<(), CollectiveError>` (program.rs adds the `?`).

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use xla_core::{ElementType, HostIo};

use super::CallCode;

fn element_type(ty: ElementType) -> TokenStream {
    let name = proc_macro2::Ident::new(&format!("{ty:?}"), proc_macro2::Span::call_site());
    quote!(::xla_aot::__rt::xla_core::ElementType::#name)
}

fn dims(d: &[i64]) -> TokenStream {
    let d = d.iter().map(|&x| proc_macro2::Literal::i64_suffixed(x));
    quote!(&[#(#d),*])
}

/// The calls of `h` on inputs `ins` (dims `in_dims`, types `in_tys`) writing the first
/// `data_outputs` of `ws` (dims `out_dims`, types `out_tys`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn call(
    h: &HostIo,
    data_outputs: usize,
    ins: &[Ident],
    in_dims: &[Vec<i64>],
    in_tys: &[ElementType],
    ws: &[Ident],
    out_dims: &[Vec<i64>],
    out_tys: &[ElementType],
) -> Result<CallCode, String> {
    let k = quote!(::xla_aot::__rt::xla_kernels::collectives);
    let mut body = TokenStream::new();
    match h {
        HostIo::Infeed { config } => {
            for i in 0..data_outputs {
                let (w, t, d) = (&ws[i], element_type(out_tys[i]), dims(&out_dims[i]));
                body.extend(quote!(#k::infeed(ctx, #config, #t, #d, #w)?;));
            }
        }
        HostIo::Recv { channel_id, .. } => {
            let c = proc_macro2::Literal::i64_suffixed(*channel_id);
            for w in &ws[..data_outputs] {
                body.extend(quote!(#k::recv(ctx, #c, #w)?;));
            }
        }
        HostIo::Outfeed { config } => {
            for ((x, ty), d) in ins.iter().zip(in_tys).zip(in_dims) {
                let (t, d) = (element_type(*ty), dims(d));
                body.extend(quote!(#k::outfeed(ctx, #config, #t, #d, #x)?;));
            }
        }
        HostIo::Send { channel_id, .. } => {
            let c = proc_macro2::Literal::i64_suffixed(*channel_id);
            for x in ins {
                body.extend(quote!(#k::send(ctx, #c, #x)?;));
            }
        }
    }
    Ok(CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote!(#body ::core::result::Result::Ok(())),
    })
}
