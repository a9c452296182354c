//! The `xla!` and `stablehlo!` proc-macros. Entry points only: parsing, checking and expansion
//! live in modules.
//!
//! Pipeline: `parse` (syntax tree with spans) -> `check` (builds every fn through xla-core's
//! Builder, mapping each rule violation to the user's token) -> `expand` (the back end).
//! `stablehlo!` replaces the first two by xla-core's StableHLO importer (`stablehlo`), whose
//! lowering runs the same Builder, and shares the back end.

// Every public item states what it is (its maths, where it has some) in its first line.
#![deny(missing_docs)]

mod check;
mod expand;
mod model;
mod parse;
mod stablehlo;

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
    guarded("xla!", run, input)
}

/// Compile StableHLO text (as `jax.jit(f).lower(...).as_text()` or `jax.export` print it) into
/// the same Rust as `xla!`.
///
/// `stablehlo!(pub fn name = "models/model.mlir");` compiles the file's `@main` (or `@symbol`
/// after the path; or its only public function) into `fn name` over `Tensor`s plus the
/// companion `mod name`, exactly as an `xla!` fn. `pub mod name = "..."` compiles every public
/// function into a module (`@main` stays `name::main`); `fn name = mlir r#"..."#` takes the text
/// itself. Paths are relative to the crate's manifest directory, and editing the file rebuilds
/// the crate. Every op is checked by xla-core's shape inference; an unreadable file, a syntax
/// error, an unsupported op or a shape error is a compile error naming `file:line:column`. Use
/// it through `xla_aot::stablehlo`.
#[proc_macro]
pub fn stablehlo(input: TokenStream) -> TokenStream {
    guarded("stablehlo!", stablehlo::run, input)
}

/// Runs a macro body; a panic (a bug of ours) becomes one compile error, never an ICE-like
/// crash.
fn guarded(
    name: &str,
    body: fn(proc_macro2::TokenStream) -> proc_macro2::TokenStream,
    input: TokenStream,
) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(input)));
    match out {
        Ok(ts) => ts.into(),
        Err(_) => {
            let msg =
                format!("{name}: internal error (the macro panicked); please report this program");
            quote::quote!(compile_error!(#msg);).into()
        }
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
