//! The `stablehlo!` front end on files and inline text: what it expands to, and each error's
//! message (file, line:column, what is wrong).

use proc_macro2::TokenStream;
use quote::quote;

use super::run;

/// The expansion of `input` as text.
fn expand(input: TokenStream) -> String {
    run(input).to_string()
}

/// The one compile error of `input`'s expansion.
fn error(input: TokenStream) -> String {
    let out = expand(input);
    assert!(
        out.contains("compile_error"),
        "expected an error, got: {out}"
    );
    out
}

#[test]
fn a_file_becomes_a_fn_with_its_companion_module_and_is_tracked() {
    // CARGO_MANIFEST_DIR is xla-macros when cargo runs these tests.
    let out = expand(quote!(pub fn mlp = "../tests/stablehlo/mlp.mlir"));
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("pub fn mlp (arg0 :"), "{out}");
    assert!(out.contains("pub mod mlp"), "{out}");
    assert!(out.contains("include_bytes !"), "{out}");
    assert!(out.contains("tests/stablehlo/mlp.mlir"), "{out}");
}

#[test]
fn a_mod_item_holds_every_public_function_by_its_name() {
    let out = expand(quote!(pub mod m = mlir r#"
        func.func public @double(%x: tensor<3xf32>) -> tensor<3xf32> {
          %0 = stablehlo.add %x, %x : tensor<3xf32>
          return %0 : tensor<3xf32>
        }
        func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
          %0 = call @double(%x) : (tensor<3xf32>) -> tensor<3xf32>
          return %0 : tensor<3xf32>
        }
        func.func private @hidden(%x: tensor<3xf32>) -> tensor<3xf32> {
          return %x : tensor<3xf32>
        }"#));
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("pub mod m"), "{out}");
    assert!(out.contains("pub fn double (x :"), "{out}");
    assert!(out.contains("pub fn main (x :"), "{out}");
    assert!(!out.contains("fn hidden"), "{out}");
}

#[test]
fn a_symbol_picks_the_function() {
    let text = r#"
        func.func public @a(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
        func.func public @b(%x: tensor<2xf32>) -> tensor<2xf32> {
          %0 = stablehlo.negate %x : tensor<2xf32>
          return %0 : tensor<2xf32>
        }"#;
    let out = expand(quote!(fn neg = mlir #text @b));
    assert!(out.contains("`@b` of `<inline MLIR>`"), "{out}");
    let e = error(quote!(fn neg = mlir #text));
    assert!(
        e.contains("has no @main and several public functions (@a, @b)"),
        "{e}"
    );
    let e = error(quote!(fn neg = mlir #text @c));
    assert!(
        e.contains("has no function @c; its public functions: @a, @b"),
        "{e}"
    );
}

#[test]
fn an_unreadable_file_names_the_path() {
    let e = error(quote!(fn f = "no/such/model.mlir"));
    assert!(
        e.contains("stablehlo!: cannot read `no/such/model.mlir` (relative to the crate's manifest directory)"),
        "{e}"
    );
}

#[test]
fn import_errors_name_the_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("stablehlo-macro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("bad.mlir");
    let text = "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n  %0 = chlo.lgamma %x : tensor<3xf32> -> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n";
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    // An absolute path is taken as it is (Path::join).
    let p = path.to_string_lossy().to_string();
    let e = error(quote!(fn f = #p));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        e.contains(&format!("{p}:2:8: unsupported: chlo.lgamma")),
        "{e}"
    );
}

#[test]
fn shape_and_syntax_errors_carry_their_position() {
    let e = error(
        quote!(fn f = mlir "func.func @main(%x: tensor<3xf32>, %y: tensor<4xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %y : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}"),
    );
    assert!(e.contains("<inline MLIR>:2:3: stablehlo.add:"), "{e}");
    assert!(e.contains("f32[3] vs f32[4]"), "{e}");
    let e = error(
        quote!(fn f = mlir "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n  %0 = stablehlo.add %x %x : tensor<3xf32>\n}"),
    );
    assert!(e.contains("<inline MLIR>:2:"), "{e}");
    assert!(e.contains("syntax"), "{e}");
}

#[test]
fn malformed_items_are_errors_not_panics() {
    for input in [
        quote!(),
        quote!(fn),
        quote!(fn f),
        quote!(fn f = 3),
        quote!(fn f = text "x"),
        quote!(mod m = "x.mlir" @main),
        quote!(struct S = "x"),
    ] {
        let out = expand(input.clone());
        assert!(out.contains("compile_error"), "{input}: {out}");
    }
}
