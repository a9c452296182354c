//! Compile-fail cases: one rule per file in `tests/ui/`, each with the `.stderr` rustc prints.
//! Regenerate with `TRYBUILD=overwrite cargo test -p ui-tests`, then read every `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
