//! The evaluator-vs-XLA harness of the oracle tests: a test builds [`EvalCase`]s (a computation,
//! its arguments and how the results must agree) and [`check_shared`] runs every case through our
//! reference evaluator (`xla_core::eval::evaluate`) and through XLA:CPU, a chunk of cases per XLA
//! compilation ([`merge`]), and panics listing every failure.
//!
//! Each test binary links its own copy of this crate, so [`shared`] is one oracle process per
//! test binary. If XLA cannot be started, every check FAILS ([`started`]), saying why: an oracle
//! test never passes by skipping.

use std::sync::{Mutex, MutexGuard, OnceLock};

use xla_core::eval::evaluate;
use xla_core::scalar::Scalar;
use xla_core::{with_array_data, Computation, InstrId, Instruction, Literal, Op, Shape};

use crate::{check_close, check_forward, max_ulps, Forward, Oracle, Tolerance};

/// How our result and XLA's must agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Within a [`Tolerance`]: [`check_close`], or [`check_forward`] for
    /// [`Tolerance::Forward`] (any NaN matches any NaN; XLA's flushed subnormals are accepted).
    Close(Tolerance),
    /// Same shape and every element's storage bits equal (complex: both parts), NaN payloads and
    /// the sign of zero included: for results that compute nothing (data movement, sorting).
    Bits,
}

/// One comparison: a computation, its arguments and how the results must agree.
#[derive(Clone, Debug)]
pub struct EvalCase {
    /// Names the case in failure messages (`op/type/inputs`).
    pub name: String,
    /// The computation run by both sides.
    pub comp: Computation,
    /// Its arguments.
    pub args: Vec<Literal>,
    /// How our result and XLA's must agree.
    pub check: Check,
}

/// The oracle process of this test binary, started on first use; `Err` says why it could not
/// start. A panicking test does not poison it for the others.
pub fn shared() -> MutexGuard<'static, Result<Oracle, String>> {
    static ORACLE: OnceLock<Mutex<Result<Oracle, String>>> = OnceLock::new();
    let m = ORACLE.get_or_init(|| Mutex::new(Oracle::start()));
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The started oracle (e.g. in the guard of [`shared`]); panics naming `suite` and the reason
/// when it could not start, so that the test fails rather than skips.
#[track_caller]
pub fn started<'a>(oracle: &'a mut Result<Oracle, String>, suite: &str) -> &'a mut Oracle {
    match oracle {
        Ok(o) => o,
        Err(e) => panic!(
            "{suite}: the XLA oracle cannot start, so nothing can be checked against XLA:\n{e}"
        ),
    }
}

/// [`check_eval_cases`] on the [`shared`] oracle; panics if it cannot start.
#[track_caller]
pub fn check_shared(suite: &str, cases: Vec<EvalCase>, chunk: usize) {
    let mut guard = shared();
    check_eval_cases(started(&mut guard, suite), suite, cases, chunk);
}

/// Runs every case through our evaluator and through XLA, `chunk` cases per XLA compilation
/// (compiling dominates the run time; see [`merge`]), and compares the results as each case's
/// [`Check`] says; panics listing every failure, naming the oracle's platform. If XLA rejects a
/// merged chunk, its cases run one by one so that the failure names the case at fault. With
/// `XLA_ORACLE_MEASURE` set, prints the largest ulp distance of each case (how the bounds of
/// [`crate::bounds`] were measured).
#[track_caller]
pub fn check_eval_cases(oracle: &mut Oracle, suite: &str, cases: Vec<EvalCase>, chunk: usize) {
    let measure = std::env::var_os("XLA_ORACLE_MEASURE").is_some();
    let mut failures = Vec::new();
    let n = cases.len();
    for chunk in cases.chunks(chunk.max(1)) {
        let (comp, args) = merge(chunk);
        let xla: Vec<Result<Literal, String>> = match oracle.run_computation(&comp, &args) {
            Ok(Literal::Tuple(parts)) if parts.len() == chunk.len() => {
                parts.into_iter().map(Ok).collect()
            }
            Ok(_) | Err(_) => chunk
                .iter()
                .map(|c| oracle.run_computation(&c.comp, &c.args))
                .collect(),
        };
        for (c, xla) in chunk.iter().zip(xla) {
            let ours = match evaluate(&c.comp, &c.args) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{}: our evaluator failed: {e}", c.name));
                    continue;
                }
            };
            let xla = match xla {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{}: XLA failed: {e}", c.name));
                    continue;
                }
            };
            if measure {
                match (&ours, &xla) {
                    (Literal::Array { .. }, Literal::Array { .. }) => {
                        eprintln!("MEASURE {} max_ulps={:?}", c.name, max_ulps(&ours, &xla))
                    }
                    _ => eprintln!("MEASURE {} (tuple)", c.name),
                }
            }
            let checked = match c.check {
                Check::Bits => same_bits(&c.name, &ours, &xla),
                Check::Close(Tolerance::Forward) => Forward::of(&c.comp, &c.args)
                    .and_then(|f| check_forward(&c.name, &ours, &xla, &f)),
                Check::Close(tol) => check_close(&c.name, &ours, &xla, tol),
            };
            if let Err(e) = checked {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{suite}: {} of {n} cases differ from XLA (XLA:CPU on {}):\n{}",
        failures.len(),
        oracle.platform,
        failures.join("\n")
    );
}

/// The storage bits of every element, in order (complex: real part in the low half).
fn bits(l: &Literal) -> Option<(&xla_core::ArrayShape, Vec<u128>)> {
    let (shape, data) = l.as_array()?;
    let b: Vec<u128> =
        with_array_data!(data, v: T => v.iter().map(|&x| <T as Scalar>::to_bits(x)).collect());
    Some((shape, b))
}

/// `Ok` when the literals have the same shape and are equal bit for bit (NaN payloads and the
/// sign of zero included); otherwise how many elements differ and where the first one is.
fn same_bits(name: &str, ours: &Literal, xla: &Literal) -> Result<(), String> {
    match (ours, xla) {
        (Literal::Tuple(a), Literal::Tuple(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .try_for_each(|(k, (x, y))| same_bits(&format!("{name}.{k}"), x, y)),
        _ => match (bits(ours), bits(xla)) {
            (Some((s, a)), Some((t, b)))
                if s.ty == t.ty && s.dims == t.dims && a.len() == b.len() =>
            {
                match a.iter().zip(&b).position(|(x, y)| x != y) {
                    None => Ok(()),
                    Some(i) => {
                        let n = a.iter().zip(&b).filter(|(x, y)| x != y).count();
                        Err(format!(
                            "{name}: {n} of {} elements differ; first at linear index {i} of {s}: \
                             ours {:#x} vs XLA {:#x}",
                            a.len(),
                            a[i],
                            b[i]
                        ))
                    }
                }
            }
            _ => Err(format!(
                "{name}: ours is {} but XLA's is {}",
                ours.shape(),
                xla.shape()
            )),
        },
    }
}

/// The cases side by side in one computation: parameters concatenated, instructions renumbered,
/// the root a tuple of the cases' roots; returns it with the concatenated arguments.
pub fn merge(cases: &[EvalCase]) -> (Computation, Vec<Literal>) {
    let mut instrs = Vec::new();
    let mut params = Vec::new();
    let mut roots = Vec::new();
    let mut args = Vec::new();
    for c in cases {
        let base = instrs.len() as u32;
        let first_param = params.len();
        for ins in &c.comp.instrs {
            let op = match &ins.op {
                Op::Parameter { index, name } => Op::Parameter {
                    index: index + first_param,
                    name: name.clone(),
                },
                other => other.clone(),
            };
            let operands = ins.operands.iter().map(|o| InstrId(o.0 + base)).collect();
            instrs.push(Instruction {
                op,
                operands,
                shape: ins.shape.clone(),
            });
        }
        params.extend(c.comp.params.iter().cloned());
        roots.push(InstrId(c.comp.root.0 + base));
        args.extend(c.args.iter().cloned());
    }
    let shape = Shape::Tuple(
        roots
            .iter()
            .map(|r| instrs[r.0 as usize].shape.clone())
            .collect(),
    );
    instrs.push(Instruction {
        op: Op::Tuple,
        operands: roots,
        shape,
    });
    let root = InstrId(instrs.len() as u32 - 1);
    let comp = Computation {
        name: "cases".into(),
        params,
        instrs,
        root,
    };
    (comp, args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use xla_core::ElementType;

    fn f32s(v: &[f32]) -> Literal {
        Literal::from_vec(&[v.len() as i64], v.to_vec()).expect("f32 vector")
    }

    #[test]
    fn bits_are_strict_about_nan_payloads_and_the_sign_of_zero() {
        let q = f32::from_bits(0x7fc0_0001);
        assert!(same_bits("x", &f32s(&[1.0, f32::NAN]), &f32s(&[1.0, f32::NAN])).is_ok());
        assert!(same_bits("x", &f32s(&[f32::NAN]), &f32s(&[q])).is_err());
        assert!(same_bits("x", &f32s(&[0.0]), &f32s(&[-0.0])).is_err());
        let e = same_bits("x", &f32s(&[1.0]), &f32s(&[1.0, 2.0])).unwrap_err();
        assert!(e.contains("ours is f32[1]"), "{e}");
        let t = |l| Literal::Tuple(vec![f32s(&[1.0]), l]);
        let e = same_bits("x", &t(f32s(&[2.0])), &t(f32s(&[3.0]))).unwrap_err();
        assert!(e.starts_with("x.1: 1 of 1 elements differ"), "{e}");
    }

    #[test]
    fn merge_renumbers_parameters_and_operands() {
        let mut b = xla_core::builder::Builder::new("neg");
        let x = b
            .parameter(0, Shape::array(ElementType::F32, &[2]), "x")
            .expect("parameter");
        let r = b.unary(xla_core::UnaryOp::Neg, x).expect("neg");
        let comp = b.build(r).expect("build");
        let case = |v: f32| EvalCase {
            name: format!("neg{v}"),
            comp: comp.clone(),
            args: vec![f32s(&[v, v])],
            check: Check::Bits,
        };
        let (merged, args) = merge(&[case(1.0), case(2.0)]);
        assert_eq!(merged.params.len(), 2);
        assert_eq!(args.len(), 2);
        let out = evaluate(&merged, &args).expect("evaluate");
        let want = Literal::Tuple(vec![f32s(&[-1.0, -1.0]), f32s(&[-2.0, -2.0])]);
        assert_eq!(out, want);
    }
}
