//! The back end: turn each checked fn of an `xla!` block into Rust items.
//!
//! Pipeline per fn: [`graph`] (inline calls, resolve tuples) -> [`fuse`] (materialise only
//! what must be, affine index maps) -> [`plan`] (buffers, reuse by liveness) -> `codegen_*`
//! (one loop nest per kernel: SIMD loops with `wide`, reductions, GEMM calls, rayon above a
//! size threshold) -> the items of the fn's companion module.

mod fuse;
mod graph;
mod plan;
mod codegen_expr;
mod codegen_rt;

use proc_macro2::TokenStream;

use crate::model;

/// Expand a checked program into the fns and companion modules it declares.
pub fn expand(program: &model::Program) -> TokenStream {
    let mut out = TokenStream::new();
    for f in &program.fns {
        match graph::Graph::from_computation(&f.computation).and_then(|g| fuse::fuse(g, &f.result)) {
            Ok(_fused) => {}
            Err(e) => {
                let msg = format!("xla!: fn `{}`: {e}", f.name);
                out.extend(quote::quote!(compile_error!(#msg);));
            }
        }
    }
    out
}
