//! StableHLO's own interpreter test suite through the importer and the evaluator.
//!
//! The suite lives outside the repository, in `../shared/stablehlo-interpret/` beside the
//! workspace (its README describes the format). Every test (a `// -----` section of a file) is
//! imported with `xla_core::stablehlo::import`, its entry function run by the evaluator, and
//! each `check.*` assertion compared with what it expects. A test is *passed* when every check
//! holds, *unsupported* when the importer reports an op, type or attribute it does not handle
//! (listed by name), and *failed* otherwise: a wrong value, or an import or evaluation error on
//! a valid program. The test fails if anything fails or fewer tests pass than the floor.
//!
//! Tests of collectives run their programs through `"interpreter.run_parallel"`, which the
//! importer runs as the devices of one SPMD run on threads (`xla_core::spmd::threads`).
//!
//! `cargo test -p xla-core --test stablehlo_interpret -- --nocapture` prints the table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use xla_core::stablehlo::import::{parse_module, Check, CheckKind, ImportError, Module};
use xla_core::{ArrayData, Literal};

/// Tests passing when this floor was set (measured, not hoped for): a regression shows.
const PASS_FLOOR: usize = 430;

/// Tests where the StableHLO interpreter and XLA (which the evaluator follows, checked by the
/// oracle tests) disagree: (file, test number from 1, why). Each must still differ, so a stale
/// entry shows.
const KNOWN_DIFFERENCES: &[(&str, usize, &str)] = &[
    (
        "all_gather.mlir",
        3,
        "cross_replica_and_partition group order: the interpreter (the spec) is partition-major, \
         XLA replica-major",
    ),
    (
        "reduce_precision.mlir",
        2,
        "ReducePrecision with 0 mantissa bits: the interpreter turns NaN into inf, XLA keeps NaN",
    ),
];

/// How one test ended.
enum Outcome {
    Passed,
    Failed(String),
    Unsupported(String),
}

/// The suite's directory, or a panic saying where it was looked for.
fn suite_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xla-core sits in the workspace");
    let dir = workspace.join("../shared/stablehlo-interpret");
    assert!(
        dir.join("README.md").is_file(),
        "the StableHLO interpreter suite is missing: expected it in {} (the workspace's \
         ../shared/stablehlo-interpret); it is test data kept outside the repository",
        dir.display()
    );
    dir
}

/// Every `.mlir` file of the suite (the `chlo/` directory included), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in [dir.to_path_buf(), dir.join("chlo")] {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "mlir") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The sections of a file: its tests.
fn sections(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for line in text.lines() {
        if line.trim_start().starts_with("// -----") {
            out.push(String::new());
        } else {
            let cur = out.last_mut().expect("one section at least");
            cur.push_str(line);
            cur.push('\n');
        }
    }
    out.retain(|s| s.contains("func.func"));
    out
}

/// The test's entry: `@main` if there is one, else the last function taking no arguments.
fn entry(m: &Module) -> Option<&xla_core::stablehlo::import::Function> {
    m.function("main").or_else(|| {
        m.functions
            .iter()
            .rev()
            .find(|f| f.computation.params.is_empty())
    })
}

fn run_test(text: &str) -> Outcome {
    let module = match parse_module(text) {
        Ok(m) => m,
        Err(ImportError::Unsupported { feature, .. }) => return Outcome::Unsupported(feature),
        // Valid StableHLO that XLA's stricter rules (which xla-core's inference follows)
        // reject: complex -> real converts, pred bitcasts, cbrt of complex.
        Err(ImportError::Shape { op, .. }) => {
            return Outcome::Unsupported(format!("{op} rejected by XLA's shape rules"))
        }
        Err(e) => return Outcome::Failed(format!("import: {e}")),
    };
    let Some(f) = entry(&module) else {
        return Outcome::Failed("no argument-less entry function".into());
    };
    // A test whose programs' effects are its point (outfeed.mlir: its program runs, no value
    // comes back) passes when it runs; one checked by FileCheck (`// CHECK`) cannot be judged.
    if f.checks.is_empty() && (f.stages.is_empty() || text.contains("CHECK")) {
        return Outcome::Unsupported("a test without checks".into());
    }
    let (_, values) = match f.run_checked(&[]) {
        Ok(v) => v,
        Err(e) => return Outcome::Failed(format!("run: {e}")),
    };
    for (check, vals) in f.checks.iter().zip(&values) {
        if let Err(why) = verify(check, vals) {
            return Outcome::Failed(format!("{}: {why}", check.pos));
        }
    }
    Outcome::Passed
}

/// One element for comparing: integers exactly, floats by value and bits.
#[derive(Clone, Copy, Debug)]
enum El {
    Int(i128),
    Float { v: f64, bits: u64, width: u32 },
    Complex(f64, f64),
}

fn elements(l: &Literal) -> Option<(Vec<i64>, Vec<El>)> {
    let (shape, data) = l.as_array()?;
    let f = |v: f64, bits: u64, width: u32| El::Float { v, bits, width };
    let els: Vec<El> = match data {
        ArrayData::Pred(v) => v.iter().map(|&x| El::Int(i128::from(x))).collect(),
        ArrayData::S8(v) => v.iter().map(|&x| El::Int(x.into())).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| El::Int(x.into())).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| El::Int(x.into())).collect(),
        ArrayData::S64(v) => v.iter().map(|&x| El::Int(x.into())).collect(),
        ArrayData::U8(v) => v.iter().map(|&x| El::Int(x.into())).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| El::Int(x.into())).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| El::Int(x.into())).collect(),
        ArrayData::U64(v) => v.iter().map(|&x| El::Int(x.into())).collect(),
        ArrayData::F16(v) => v
            .iter()
            .map(|x| f(x.to_f64(), x.to_bits().into(), 16))
            .collect(),
        ArrayData::Bf16(v) => v
            .iter()
            .map(|x| f(x.to_f64(), x.to_bits().into(), 16))
            .collect(),
        ArrayData::F32(v) => v
            .iter()
            .map(|x| f(f64::from(*x), x.to_bits().into(), 32))
            .collect(),
        ArrayData::F64(v) => v.iter().map(|x| f(*x, x.to_bits(), 64)).collect(),
        ArrayData::C64(v) => v
            .iter()
            .map(|x| El::Complex(x.re.into(), x.im.into()))
            .collect(),
        ArrayData::C128(v) => v.iter().map(|x| El::Complex(x.re, x.im)).collect(),
    };
    Some((shape.dims.clone(), els))
}

/// Equal as `check.expect_eq` means it: exactly, NaN equal to NaN.
fn exact(a: El, b: El) -> bool {
    let same = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
    match (a, b) {
        (El::Int(x), El::Int(y)) => x == y,
        (El::Float { v: x, bits: bx, .. }, El::Float { v: y, bits: by, .. }) => {
            bx == by || (x.is_nan() && y.is_nan())
        }
        (El::Complex(a, b), El::Complex(c, d)) => same(a, c) && same(b, d),
        _ => false,
    }
}

/// Within `tol` absolutely (equal infinities, NaN with NaN).
fn almost(a: El, b: El, tol: f64) -> bool {
    let near = |x: f64, y: f64| (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= tol;
    match (a, b) {
        (El::Float { v: x, .. }, El::Float { v: y, .. }) => near(x, y),
        (El::Complex(a, b), El::Complex(c, d)) => near(a, c) && near(b, d),
        _ => exact(a, b),
    }
}

/// Units in the last place between two floats of one width.
fn ulps(a: El, b: El) -> Option<u64> {
    let (
        El::Float {
            bits: x,
            width,
            v: vx,
        },
        El::Float { bits: y, v: vy, .. },
    ) = (a, b)
    else {
        return None;
    };
    if vx.is_nan() || vy.is_nan() {
        return (vx.is_nan() && vy.is_nan()).then_some(0);
    }
    let sign = 1u64 << (width - 1);
    let ordered = |b: u64| -> i128 {
        if b & sign != 0 {
            -i128::from(b & !sign)
        } else {
            i128::from(b)
        }
    };
    Some((ordered(x) - ordered(y)).unsigned_abs() as u64)
}

fn verify(check: &Check, vals: &[Literal]) -> Result<(), String> {
    let (actual, expected) = match (&check.expected, vals) {
        (Some(e), [a]) => (a, e),
        (None, [a, e]) => (a, e),
        _ => return Err("wrong number of checked values".into()),
    };
    let (Some((da, ea)), Some((de, ee))) = (elements(actual), elements(expected)) else {
        return Err("a checked value is not an array".into());
    };
    if da != de || ea.len() != ee.len() {
        return Err(format!("shape {da:?}, expected {de:?}"));
    }
    for (i, (&a, &e)) in ea.iter().zip(&ee).enumerate() {
        let ok = match check.kind {
            CheckKind::Eq => exact(a, e),
            CheckKind::AlmostEq => almost(a, e, check.tolerance.unwrap_or(1e-4)),
            CheckKind::Close => ulps(a, e).is_some_and(|u| u >= check.ulps.0 && u <= check.ulps.1),
        };
        if !ok {
            return Err(format!("element {i}: {a:?}, expected {e:?}"));
        }
    }
    Ok(())
}

#[derive(Default)]
struct Row {
    tests: usize,
    passed: usize,
    failed: Vec<String>,
    unsupported: BTreeMap<String, usize>,
}

#[test]
fn stablehlo_interpreter_suite() {
    let dir = suite_dir();
    let mut rows: Vec<(String, Row)> = Vec::new();
    for path in files(&dir) {
        let text = std::fs::read_to_string(&path).expect("a readable suite file");
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let mut row = Row::default();
        if std::env::var_os("SUITE_TRACE").is_some() {
            eprintln!("{name}");
        }
        for (i, section) in sections(&text).iter().enumerate() {
            row.tests += 1;
            let known = KNOWN_DIFFERENCES
                .iter()
                .find(|(f, t, _)| *f == name && *t == i + 1);
            match (run_test(section), known) {
                (Outcome::Failed(_), Some((_, _, why))) => {
                    *row.unsupported
                        .entry(format!("known difference: {why}"))
                        .or_default() += 1
                }
                (_, Some(k)) => row.failed.push(format!(
                    "test {}: listed as {k:?} but no longer differs",
                    i + 1
                )),
                (Outcome::Passed, None) => row.passed += 1,
                (Outcome::Failed(why), None) => row.failed.push(format!("test {}: {why}", i + 1)),
                (Outcome::Unsupported(f), None) => *row.unsupported.entry(f).or_default() += 1,
            }
        }
        rows.push((name, row));
    }
    let (mut tests, mut passed, mut failed, mut unsupported) = (0, 0, 0, 0);
    let mut features: BTreeMap<String, usize> = BTreeMap::new();
    println!(
        "{:<36} {:>5} {:>6} {:>6} {:>11}  unsupported features",
        "file", "tests", "passed", "failed", "unsupported"
    );
    for (name, r) in &rows {
        let uns: usize = r.unsupported.values().sum();
        let list: Vec<String> = r
            .unsupported
            .iter()
            .map(|(f, n)| format!("{f} ({n})"))
            .collect();
        println!(
            "{name:<36} {:>5} {:>6} {:>6} {uns:>11}  {}",
            r.tests,
            r.passed,
            r.failed.len(),
            list.join(", ")
        );
        for why in &r.failed {
            println!("    FAILED {name} {why}");
        }
        tests += r.tests;
        passed += r.passed;
        failed += r.failed.len();
        unsupported += uns;
        for (f, n) in &r.unsupported {
            *features.entry(f.clone()).or_default() += n;
        }
    }
    println!(
        "{:<36} {tests:>5} {passed:>6} {failed:>6} {unsupported:>11}",
        "total"
    );
    println!("unsupported, by feature:");
    for (f, n) in &features {
        println!("  {n:>4}  {f}");
    }
    assert_eq!(failed, 0, "{failed} tests failed (see FAILED lines above)");
    assert!(
        passed >= PASS_FLOOR,
        "{passed} tests passed, fewer than the floor of {PASS_FLOOR}"
    );
    assert!(tests > 500, "only {tests} tests found in {}", dir.display());
}
