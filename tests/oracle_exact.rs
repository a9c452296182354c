//! Accuracy against the exact value: every transcendental op on f32 and f64, through the
//! generated code (vector body and scalar tail: 1027 elements), the evaluator and XLA:CPU,
//! measured in ulps of the correctly rounded result (mpmath at 200 bits, in the oracle venv).
//!
//! Ours must be within `xla_oracle::bounds::EXACT_ULP_BOUNDS` on every path; XLA's distance is
//! printed beside it (with the CPU it ran on), which is where the ours-vs-XLA bounds of
//! `ULP_BOUNDS` come from: `|ours - xla| <= |ours - exact| + |xla - exact|`.
//!
//! Run: `cargo test -p xla-aot --test oracle_exact -- --nocapture` (prints the table).

// The allocating `fn name(&Tensor..)` wrappers are not called: cases run through `run_literals`.
#![allow(dead_code)]

#[macro_use]
mod common;

use xla_aot::core::eval::evaluate;
use xla_aot::core::{ElementType, Literal, Shape};
use xla_oracle::bounds::exact_bound;
use xla_oracle::{max_ulps, random_literal, Dist};

/// Stamps out `mod key { mod f32 { fn f(..) } mod f64 { fn f(..) } }` per op.
macro_rules! ops {
    ($( $key:ident $op:ident ($($p:ident),+) [$($d:expr),+] ; )*) => {
        $(
            mod $key {
                #[allow(unused_imports)]
                use super::{Dist, SPECIAL};
                pub const DISTS: &[&[Dist]] = &[$($d),+];
                pub mod f32 {
                    xla_aot::xla! { pub fn f($($p: f32[1027]),+) -> f32[1027] { $op($($p),+) } }
                }
                pub mod f64 {
                    xla_aot::xla! { pub fn f($($p: f64[1027]),+) -> f64[1027] { $op($($p),+) } }
                }
            }
        )*
        /// (op key, generated fn per type, input distributions per parameter).
        fn ops() -> Vec<(&'static str, [common::Gen; 2], &'static [&'static [Dist]])> {
            vec![$((
                stringify!($key),
                [gen!(concat!(stringify!($key), "/f32"), $key::f32::f),
                 gen!(concat!(stringify!($key), "/f64"), $key::f64::f)],
                $key::DISTS,
            )),*]
        }
    };
}

const SPECIAL: &[Dist] = &[Dist::Special];

ops! {
    exp Exp (x) [&[Dist::Range(-80.0, 80.0)], &[Dist::Range(-1.0, 1.0)], SPECIAL];
    expm1 Expm1 (x) [&[Dist::Range(-1.0, 1.0)], &[Dist::Range(-20.0, 20.0)], SPECIAL];
    log Log (x) [&[Dist::Range(1e-3, 1e3)], &[Dist::Range(0.5, 2.0)], SPECIAL];
    log1p Log1p (x) [&[Dist::Range(-0.9, 1.0)], &[Dist::Range(-1e-3, 1e-3)], SPECIAL];
    logistic Logistic (x) [&[Dist::Range(-20.0, 20.0)], SPECIAL];
    tanh Tanh (x) [&[Dist::Range(-1.0, 1.0)], &[Dist::Range(-10.0, 10.0)], SPECIAL];
    erf Erf (x) [&[Dist::Range(-1.0, 1.0)], &[Dist::Range(-5.0, 5.0)], SPECIAL];
    sin Sin (x) [&[Dist::Range(-10.0, 10.0)], &[Dist::Range(-100.0, 100.0)], SPECIAL];
    cos Cos (x) [&[Dist::Range(-10.0, 10.0)], &[Dist::Range(-100.0, 100.0)], SPECIAL];
    tan Tan (x) [&[Dist::Range(-1.5, 1.5)], &[Dist::Range(-100.0, 100.0)], SPECIAL];
    cosh Cosh (x) [&[Dist::Range(-10.0, 10.0)], SPECIAL];
    sqrt Sqrt (x) [&[Dist::Range(1e-3, 1e3)], SPECIAL];
    rsqrt Rsqrt (x) [&[Dist::Range(1e-3, 1e3)], SPECIAL];
    cbrt Cbrt (x) [&[Dist::Range(-1e3, 1e3)], SPECIAL];
    pow Pow (x, y) [&[Dist::Range(0.1, 10.0), Dist::Range(-5.0, 5.0)], &[Dist::Special]];
    atan2 Atan2 (y, x) [&[Dist::Range(-10.0, 10.0)], &[Dist::Special]];
}

fn param_ty(c: &xla_aot::core::Computation) -> ElementType {
    match c.params.first() {
        Some(Shape::Array(a)) => a.ty,
        other => panic!("unexpected parameter {other:?}"),
    }
}

/// Largest ulp distance of `got` to `exact` (XLA's flushed zero for an exact subnormal counts
/// as 0: `max_ulps` reads its second argument as XLA's).
fn ulps(exact: &Literal, got: &Literal) -> u64 {
    max_ulps(got, exact)
        .unwrap_or(u64::MAX)
        .min(max_ulps(exact, got).unwrap_or(u64::MAX))
}

#[test]
fn transcendental_ops_are_within_their_bounds_of_the_exact_value() {
    let mut guard = common::oracle();
    let oracle = guard
        .as_mut()
        .unwrap_or_else(|e| panic!("the XLA oracle (and mpmath) cannot start:\n{e}"));
    let mut failures = Vec::new();
    let mut table = vec![format!(
        "{:<10} {:<4} {:>8} {:>8} {:>8} {:>6}   (max ulp vs mpmath; XLA:CPU on {})",
        "op", "type", "gen", "eval", "XLA", "bound", oracle.platform
    )];
    for (key, gens, dists) in ops() {
        for g in gens {
            let comp = (g.computation)();
            let ty = param_ty(&comp);
            let hlo = (g.stablehlo)();
            let (mut worst_gen, mut worst_eval, mut worst_xla) = (0u64, 0u64, 0u64);
            for (j, d) in dists.iter().enumerate() {
                let args: Vec<Literal> = comp
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let a = s.as_array().expect("array parameter");
                        random_literal(a, 1000 + 17 * j as u64 + i as u64, d[i.min(d.len() - 1)])
                    })
                    .collect();
                let exact = oracle
                    .exact(key, &args, ty)
                    .unwrap_or_else(|e| panic!("{}: mpmath: {e}", g.name));
                let gen = (g.run)(&args).unwrap_or_else(|e| panic!("{}: {e}", g.name));
                let eval = evaluate(&comp, &args).unwrap_or_else(|e| panic!("{}: {e}", g.name));
                let xla = oracle
                    .run(&hlo, &args)
                    .unwrap_or_else(|e| panic!("{}: {e}", g.name))
                    .remove(0);
                let (ug, ue, ux) = (ulps(&exact, &gen), ulps(&exact, &eval), ulps(&exact, &xla));
                worst_gen = worst_gen.max(ug);
                worst_eval = worst_eval.max(ue);
                worst_xla = worst_xla.max(ux);
            }
            let bound = exact_bound(key, ty);
            table.push(format!(
                "{key:<10} {ty:<4} {worst_gen:>8} {worst_eval:>8} {worst_xla:>8} {bound:>6}"
            ));
            for (path, u) in [("generated code", worst_gen), ("evaluator", worst_eval)] {
                if u > bound {
                    failures.push(format!(
                        "{}: {path} is {u} ulp from the exact value, bound {bound}",
                        g.name
                    ));
                }
            }
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
