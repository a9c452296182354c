//! Differential test of random valid programs against XLA:CPU (issue 8): the op mix of
//! elementwise ops with and without broadcast_dimensions, Select, Clamp, Compare, conversions,
//! BroadcastInDim, Reshape, Transpose, Reduce (sum, max, min, and/or, variadic argmax), Dot and
//! DotGeneral (batch and contracting dims in any order, preferred element types), Iota,
//! constants and tuples, on every element type, with zero-sized dims (see `random_prog`).
//!
//! - `built_programs_match_xla`: `RANDOM_PROGRAMS` programs (default 300) from seeds
//!   `RANDOM_SEED..` (default [`SEED`]), built through xla-core's Builder and run through our
//!   evaluator and XLA. `RANDOM_PROGRAMS=5000` checks thousands (a few minutes, mostly XLA's
//!   compile time; compiled programs are cached in target/oracle-cache).
//! - `generated_programs_match_xla`: the programs of `random_prog/programs.rs` (written by
//!   `write_generated_programs` from a stated seed) and `random_prog/regressions.rs` (issue 8's
//!   programs and every random program that ever failed), compiled by `xla!` with this file under
//!   `#![deny(warnings)]`, through the generated code, the evaluator and XLA.
//! - `dot_preferred_types_match_xla`: every operand/result type pair XLA's
//!   `preferred_element_type` rule allows, through the evaluator and XLA.
//!
//! A failure prints the program as `xla!` source, ready to be kept in `regressions.rs`.
//! Run: `cargo test -p xla-aot --test oracle_random_programs`.

#![deny(warnings)]

mod random_prog;

use random_prog::gen::{generate, Program};
use random_prog::run::{check_built, check_compiled, oracle, with_oracle};
use random_prog::{emit, programs, regressions};
use xla_aot::core::builder::Builder;
use xla_aot::core::{ArrayShape, DotDimensionNumbers, ElementType, Shape};

/// First seed of the run-time programs (`RANDOM_SEED` overrides).
const SEED: u64 = 1_000;
/// Number of run-time programs by default (`RANDOM_PROGRAMS` overrides).
const COUNT: usize = 300;
/// First seed and number of the programs written into `programs.rs` (the environment's
/// `RANDOM_GEN_SEED` and `RANDOM_GEN_PROGRAMS` override them when regenerating).
const GEN_SEED: u64 = 500_000;
const GEN_COUNT: usize = 60;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        Err(_) => default,
    }
}

/// Panics (listing every failure) unless `failures` is empty.
fn report(what: &str, n: usize, failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{what}: {} of {n} fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!("{what}: {n} agree with XLA");
}

#[test]
fn built_programs_match_xla() {
    let first = env_or("RANDOM_SEED", SEED);
    let n = env_or("RANDOM_PROGRAMS", COUNT);
    let mut guard = oracle();
    let mut failures = Vec::new();
    let mut ops = 0;
    for seed in first..first + n as u64 {
        match generate(seed) {
            Ok(p) => {
                ops += p.body.len();
                if let Err(e) = with_oracle(&mut guard, |o| check_built(o, &p)) {
                    // The fn and its table entry, ready for regressions.rs.
                    failures.push(format!("{e}\n{}{},", p.source(), emit::entry(&p)));
                }
            }
            Err(r) => failures.push(format!(
                "seed {seed}: xla-core refuses a valid program: {}\n{}",
                r.error, r.source
            )),
        }
    }
    eprintln!("built programs: {n} programs, {ops} ops");
    report("built programs (evaluator)", n, failures);
}

#[test]
fn generated_programs_match_xla() {
    let mut guard = oracle();
    let all: Vec<_> = programs::PROGRAMS
        .iter()
        .chain(regressions::REGRESSIONS)
        .collect();
    let failures: Vec<String> = all
        .iter()
        .filter_map(|c| with_oracle(&mut guard, |o| check_compiled(o, c)).err())
        .collect();
    report(
        "compiled programs (generated code and evaluator)",
        all.len(),
        failures,
    );
}

#[test]
fn dot_preferred_types_match_xla() {
    let mut guard = oracle();
    let mut failures = Vec::new();
    let mut n = 0;
    for from in ElementType::ALL {
        for to in random_prog::values::preferred_types(from) {
            n += 1;
            let p = match dot_program(from, to) {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{from} x {from} -> {to}: refused: {e}"));
                    continue;
                }
            };
            if let Err(e) = with_oracle(&mut guard, |o| check_built(o, &p)) {
                failures.push(format!("{from} x {from} -> {to}: {e}"));
            }
        }
    }
    report("dot type pairs (evaluator)", n, failures);
}

/// `DotGeneral(x: from[2, 3, 5], y: from[2, 5, 4], batch 0, contracting 2 x 1) -> to` on
/// small integers (exact in any type, any order).
fn dot_program(from: ElementType, to: ElementType) -> Result<Program, String> {
    let mut b = Builder::new(format!("dot_{from}_{to}"));
    let sx = ArrayShape::new(from, &[2, 3, 5]);
    let sy = ArrayShape::new(from, &[2, 5, 4]);
    let x = b
        .parameter(0, Shape::Array(sx.clone()), "x")
        .map_err(|e| e.to_string())?;
    let y = b
        .parameter(1, Shape::Array(sy.clone()), "y")
        .map_err(|e| e.to_string())?;
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![2],
        rhs_contracting_dimensions: vec![1],
        lhs_batch_dimensions: vec![0],
        rhs_batch_dimensions: vec![0],
    };
    let r = b
        .dot_general(x, y, &dn, Some(to))
        .map_err(|e| e.to_string())?;
    let computation = b.build(r).map_err(|e| e.to_string())?;
    // bf16 holds integers up to 256 exactly: 5 products of at most 3 x 3, or of 0/1 for pred.
    let data = random_prog::Data::S(3);
    Ok(Program {
        name: format!("dot_{from}_{to}"),
        seed: 7,
        params: vec![(sx, data), (sy, data)],
        body: vec![format!(
            "let r = DotGeneral(x, y, lhs_contracting_dimensions = [2], \
             rhs_contracting_dimensions = [1], lhs_batch_dimensions = [0], \
             rhs_batch_dimensions = [0], preferred_element_type = {to});"
        )],
        result: "r".into(),
        tol: vec![random_prog::Tol::Exact],
        computation,
    })
}

/// Rewrites `random_prog/programs.rs` with the programs of seeds `RANDOM_GEN_SEED..` (default
/// [`GEN_SEED`]), `RANDOM_GEN_PROGRAMS` of them (default [`GEN_COUNT`]). A seed whose program
/// xla-core refuses fails the run (that is a bug to fix first).
#[test]
#[ignore = "rewrites tests/random_prog/programs.rs"]
fn write_generated_programs() {
    let first = env_or("RANDOM_GEN_SEED", GEN_SEED);
    let n = env_or("RANDOM_GEN_PROGRAMS", GEN_COUNT);
    let progs: Vec<Program> = (first..first + n as u64)
        .map(|s| generate(s).unwrap_or_else(|r| panic!("seed {s}: {}\n{}", r.error, r.source)))
        .collect();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/random_prog/programs.rs");
    std::fs::write(&path, emit::file(&progs, first, n)).expect("write programs.rs");
    eprintln!("wrote {n} programs to {}", path.display());
}
