//! The `xla!` proc-macro. Entry point only: parsing, checking and expansion live in modules.

use proc_macro::TokenStream;

/// Compile a block of XLA functions into shape-specialised Rust.
#[proc_macro]
pub fn xla(input: TokenStream) -> TokenStream {
    let _ = input;
    quote::quote!(compile_error!("xla!: not implemented yet");).into()
}
