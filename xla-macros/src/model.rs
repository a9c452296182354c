//! What the front end (parse + check) hands to the back end (optimise + expand): every fn of the
//! block with its checked IR. Spans are not needed past this point: all errors are reported
//! before expansion.

use std::sync::Arc;

use xla_core::{Computation, Shape};

/// A checked `xla! { ... }` block, or the functions `stablehlo!` imported.
pub struct Program {
    /// The fns in the order the user wrote them.
    pub fns: Vec<FnDef>,
    /// The macro that checked them (`xla!`, `stablehlo!`), for the back end's messages.
    pub macro_name: &'static str,
    /// Where each CustomCall target (a Rust path) was named, so that rustc's errors about the
    /// call (a missing fn, a wrong signature) point at the user's string.
    pub targets: Vec<(String, proc_macro2::Span)>,
}

/// One checked fn.
pub struct FnDef {
    /// Attributes kept on the generated fn (doc comments first of all).
    pub attrs: Vec<syn::Attribute>,
    /// Visibility, kept on every generated item.
    pub vis: syn::Visibility,
    /// The fn's name; also the name of the generated companion module.
    pub name: syn::Ident,
    /// Parameter names and declared types (layouts included).
    pub params: Vec<(syn::Ident, Shape)>,
    /// The declared (and checked equal to the inferred) result type.
    pub result: Shape,
    /// The fn's IR; calls to other fns of the block appear as `Op::Call` holding their
    /// computation.
    pub computation: Arc<Computation>,
}
