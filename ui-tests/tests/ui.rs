//! Compile-fail cases: one rule per file in `tests/ui/`, each with the `.stderr` rustc prints.
//! Regenerate with `TRYBUILD=overwrite cargo test -p ui-tests`, then read every `.stderr`.

#[test]
fn ui() {
    // Two runs, one after the other (one project directory, so never two at once): trybuild
    // checks a set of compile-fail cases alone in one `cargo check --keep-going` over all of
    // them, but a set that also holds a pass case as one `cargo build` per case, which took
    // minutes longer.
    {
        let t = trybuild::TestCases::new();
        t.compile_fail("tests/ui/*.rs");
    }
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
}
