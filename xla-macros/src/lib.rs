//! The `xla!` proc-macro. Entry point only: parsing, checking and expansion live in modules.
//!
//! Pipeline: `parse` (syntax tree with spans) -> `check` (builds every fn through xla-core's
//! Builder, mapping each rule violation to the user's token) -> `expand` (the back end).

// Every public item states what it is (its maths, where it has some) in its first line.
#![deny(missing_docs)]

mod check;
mod expand;
mod model;
mod parse;

use proc_macro::TokenStream;

/// Compile a block of XLA functions into shape-specialised Rust.
///
/// `xla! { [pub] fn name(x: f32[2, 3], ...) -> f32[2, 3] { ... } ... }`: each fn becomes a Rust
/// fn over `Tensor`s plus a companion `mod name` (`Scratch`, `into`, `computation`,
/// `stablehlo`, `run_literals`). The language, the op table and examples are on the `xla-aot`
/// crate page; use the macro through `xla_aot::xla`, since generated code names
/// `::xla_aot::...` paths.
#[proc_macro]
pub fn xla(input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    // Last line of defence: a bug of ours becomes a compile error, never an ICE-like panic.
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(input)));
    match out {
        Ok(ts) => ts.into(),
        Err(_) => quote::quote!(compile_error!(
            "xla!: internal error (the macro panicked); please report this program"
        );)
        .into(),
    }
}

/// Parse, check and expand; on errors, emit the errors only.
fn run(input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let block = match parse::parse_block(input) {
        Ok(b) => b,
        Err(e) => return e.to_compile_error(),
    };
    match check::check(&block) {
        Ok(program) => expand::expand(&program),
        Err(errors) => errors.iter().map(syn::Error::to_compile_error).collect(),
    }
}
