//! Running programs through ours and XLA, and comparing with [`super::compare`].

use std::sync::{Mutex, MutexGuard, OnceLock};

use xla_aot::core::eval::evaluate;
use xla_aot::core::stablehlo::try_to_stablehlo;
use xla_oracle::Oracle;

use super::gen::Program;
use super::{args, compare, Compiled};

/// The one oracle process of the test binary; `Err` says why XLA cannot start.
pub fn oracle() -> MutexGuard<'static, Result<Oracle, String>> {
    static ORACLE: OnceLock<Mutex<Result<Oracle, String>>> = OnceLock::new();
    ORACLE
        .get_or_init(|| Mutex::new(Oracle::start()))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Runs `check` with the oracle of `guard`; when XLA's process died on the program (XLA:CPU
/// itself crashed), starts a new one for the next program and says so in the error.
pub fn with_oracle(
    guard: &mut Result<Oracle, String>,
    check: impl FnOnce(&mut Oracle) -> Result<(), String>,
) -> Result<(), String> {
    let o = guard
        .as_mut()
        .unwrap_or_else(|e| panic!("the XLA oracle cannot start, so nothing is checked:\n{e}"));
    let r = check(o);
    if let Err(e) = &r {
        if e.contains("XLA oracle failed") {
            *guard = Oracle::start();
            return Err(format!("XLA:CPU's process died on this program: {e}"));
        }
    }
    r
}

/// A program built through the Builder: the evaluator against XLA.
pub fn check_built(o: &mut Oracle, p: &Program) -> Result<(), String> {
    let args = args(&p.shapes(), &p.data(), p.seed);
    let xla = o
        .run_computation(&p.computation, &args)
        .map_err(|e| format!("XLA failed: {e}"))?;
    let ev = evaluate(&p.computation, &args).map_err(|e| format!("evaluator failed: {e}"))?;
    compare(&format!("{} [evaluator]", p.name), &ev, &xla, &p.tol).map_err(|e| {
        match first_difference(o, &p.computation, &args) {
            Some(d) => format!("{e}\n{d}"),
            None => e,
        }
    })
}

/// A program compiled by `xla!`: its generated code and the evaluator (on the IR the macro
/// checked) against XLA (on the export of that IR, which must be the fn's `stablehlo()`).
pub fn check_compiled(o: &mut Oracle, c: &Compiled) -> Result<(), String> {
    let comp = (c.computation)();
    match try_to_stablehlo(&comp) {
        Ok(t) if t == (c.stablehlo)() => {}
        Ok(_) => {
            return Err(format!(
                "{}: stablehlo() is not the export of computation()",
                c.name
            ))
        }
        Err(e) => return Err(format!("{}: the export fails: {e}", c.name)),
    }
    let args = args(&comp.params, c.data, c.seed);
    let xla = o
        .run_computation(&comp, &args)
        .map_err(|e| format!("{}: XLA failed: {e}", c.name))?;
    let mut errs = Vec::new();
    match (c.run)(&args) {
        Ok(gen) => {
            errs.extend(compare(&format!("{} [generated]", c.name), &gen, &xla, c.tol).err())
        }
        Err(e) => errs.push(format!("{} [generated]: {e}", c.name)),
    }
    match evaluate(&comp, &args) {
        Ok(ev) => errs.extend(compare(&format!("{} [evaluator]", c.name), &ev, &xla, c.tol).err()),
        Err(e) => errs.push(format!("{} [evaluator]: {e}", c.name)),
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

/// The first instruction of `comp` whose value (made the root) differs from XLA's by more than
/// a few ulps, for the failure message: where ours and XLA part ways.
pub fn first_difference(
    o: &mut Oracle,
    comp: &xla_aot::core::Computation,
    args: &[xla_aot::core::Literal],
) -> Option<String> {
    use xla_aot::core::{Computation, InstrId, Shape};
    for i in 0..comp.instrs.len() {
        let ins = &comp.instrs[i];
        if !matches!(ins.shape, Shape::Array(_)) {
            continue;
        }
        let part = Computation {
            name: comp.name.clone(),
            params: comp.params.clone(),
            instrs: comp.instrs[..=i].to_vec(),
            root: InstrId(i as u32),
        };
        let (Ok(ev), Ok(xla)) = (evaluate(&part, args), o.run_computation(&part, args)) else {
            continue;
        };
        if let Err(e) = xla_oracle::check_close("", &ev, &xla, xla_oracle::Tolerance::Ulp(4)) {
            let op: String = format!("{:?}", ins.op).chars().take(120).collect();
            return Some(format!("first difference at instruction {i} ({op}): {e}"));
        }
    }
    None
}
