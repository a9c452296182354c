//! The back end: turn each checked fn of an `xla!` block into Rust items.
//!
//! Pipeline per fn: [`graph`] (inline calls, resolve tuples) -> [`fuse`] (materialise only
//! what must be, affine index maps) -> [`plan`] (buffers, reuse by liveness) -> `codegen_*`
//! (one loop nest per kernel: SIMD loops with `wide`, reductions, GEMM calls, rayon above a
//! size threshold) -> [`items`] (the fn and its companion module).

mod calls;
mod codegen_dot;
mod codegen_expr;
mod codegen_loops;
mod codegen_reduce;
mod codegen_rt;
mod codegen_tree;
mod dynamic;
mod fuse;
mod graph;
mod inline;
mod items;
mod nested;
mod plan;
mod program;
#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;
use quote::ToTokens;

use crate::model;

/// Expand a checked program into the fns and companion modules it declares. A fn the back end
/// cannot generate code for becomes a `compile_error!` naming the fn and the reason.
pub fn expand(program: &model::Program) -> TokenStream {
    calls::custom::set_target_spans(&program.targets);
    let mut out = TokenStream::new();
    for f in &program.fns {
        match expand_fn(f) {
            Ok(items) => out.extend(items),
            Err(e) => {
                let msg = format!("{}: fn `{}`: {e}", program.macro_name, f.name);
                let span = f.name.span();
                out.extend(quote::quote_spanned!(span=> compile_error!(#msg);));
            }
        }
    }
    out
}

/// The items of one fn.
pub(crate) fn expand_fn(f: &model::FnDef) -> Result<TokenStream, String> {
    if xla_core::padder::needs_padding(&f.computation) {
        return dynamic::expand_dynamic(f);
    }
    let g = graph::Graph::from_computation(&f.computation)?;
    let fused = fuse::fuse(g, &f.result)?;
    let plan = plan::plan(&fused);
    // The IR as one byte string (`xla_core::codec`): nearly half of the expansion was the
    // Rust code that rebuilt it.
    let bytes = xla_core::codec::encode(&f.computation);
    let computation = proc_macro2::Literal::byte_string(&bytes).into_token_stream();
    items::fn_items(f, &fused, &plan, computation)
}
