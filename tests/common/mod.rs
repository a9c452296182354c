//! Shared harness of the `oracle_gen_*` tests: every case is one `xla!` fn (its companion
//! module's `run_literals`, `computation` and `stablehlo`) run on deterministic inputs through
//! (a) the generated code, (b) the reference evaluator on the fn's own IR and (c) XLA:CPU on the
//! fn's exported StableHLO; (a) vs (c) and (b) vs (c) must agree within the case's tolerance.
//!
//! One oracle process per test binary; every failing case is listed at the end; if XLA cannot
//! be started the test FAILS saying why (never skips).

#![allow(dead_code)] // Each test binary uses a different part of the harness.

use num_complex::Complex;
use xla_aot::core::eval::evaluate;
use xla_aot::core::stablehlo::try_to_stablehlo;
use xla_aot::core::{ArrayData, ArrayShape, Computation, ElementType, Error, Literal, Shape};
use xla_oracle::{
    check_close, check_forward, max_ulps, random_literal, Dist, Forward, Oracle, Tolerance,
};

/// How close one result must be to XLA's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tol {
    /// Bit-exact (NaN matches any NaN; our subnormal matches XLA's flushed zero).
    Exact,
    /// Floats within `n` ulps (complex: per component); non-floats exact.
    Ulp(u64),
    /// Floats within a relative error (complex: per component); non-floats exact.
    Rel(f64),
    /// Sums and dot products: within the forward-error bound of the fn's computation evaluated
    /// in f64 on the same arguments (`xla_oracle::forward`), whatever the summation order, which
    /// differs between ours, the evaluator's and XLA's on AVX2 and on AVX-512.
    Forward,
    /// Whole models and normalisations: `|x - y| <= r * max |y|` for every float `x` of ours and
    /// `y` of XLA's (the maximum over the leaf's finite values; NaN only against NaN, an
    /// infinity only against the same one); non-floats exact. Catches a wrong value anywhere at
    /// the scale of the result, where per-element bounds of a long chain of ops are not known
    /// or results cancel to near zero.
    Normwise(f64),
}

/// The tolerance of a float reduction of type `ty`: the forward-error bound (exact for integers
/// and pred, whose sums wrap identically in any order).
pub fn reduce_tol(ty: ElementType) -> Tol {
    if ty.is_float_or_complex() {
        Tol::Forward
    } else {
        Tol::Exact
    }
}

/// The entry points of one generated fn.
#[derive(Clone, Copy)]
pub struct Gen {
    /// `op/type[/form]`, for messages.
    pub name: &'static str,
    /// `name::run_literals`: the generated code.
    pub run: fn(&[Literal]) -> Result<Literal, Error>,
    /// `name::computation`: the IR the macro checked.
    pub computation: fn() -> Computation,
    /// `name::stablehlo`: what XLA runs.
    pub stablehlo: fn() -> String,
}

/// One comparison: a generated fn, its arguments, and the tolerances of the generated code and
/// of the evaluator against XLA.
pub struct Case {
    pub name: String,
    pub gen: Gen,
    pub args: Vec<Literal>,
    pub gen_tol: Tol,
    pub eval_tol: Tol,
}

impl Case {
    /// A case with the same tolerance for the generated code and the evaluator.
    pub fn new(gen: Gen, label: &str, args: Vec<Literal>, tol: Tol) -> Case {
        Case {
            name: format!("{}/{label}", gen.name),
            gen,
            args,
            gen_tol: tol,
            eval_tol: tol,
        }
    }

    /// A random case of op `key` on input type `ty`: the evaluator within `ULP_BOUNDS`, the
    /// generated code within [`gen_bound`].
    pub fn op(gen: Gen, key: &str, ty: ElementType, dists: &[Dist], seed: u64) -> Case {
        let mut c = Case::random(gen, dists, seed, eval_bound(key, ty));
        c.gen_tol = gen_bound(key, ty);
        c
    }

    /// A case whose arguments are drawn for the fn's own parameter shapes: parameter `i` from
    /// `dists[i]` (the last one repeats), seeded from `seed`.
    pub fn random(gen: Gen, dists: &[Dist], seed: u64, tol: Tol) -> Case {
        let comp = (gen.computation)();
        let args = comp
            .params
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let d = dists.get(i).or(dists.last()).copied().unwrap_or(Dist::Any);
                random_arg(s, seed.wrapping_mul(31).wrapping_add(i as u64), d)
            })
            .collect();
        let label = dists[..dists.len().min(comp.params.len())]
            .iter()
            .map(|d| format!("{d:?}"))
            .collect::<Vec<_>>()
            .join(",");
        Case::new(gen, &label, args, tol)
    }
}

/// A random argument of `shape` (tuples element by element).
pub fn random_arg(shape: &Shape, seed: u64, d: Dist) -> Literal {
    match shape {
        Shape::Array(a) => random_literal(&ArrayShape::new(a.ty, &a.dims), seed, d),
        Shape::Tuple(ts) => Literal::Tuple(
            ts.iter()
                .enumerate()
                .map(|(i, s)| random_arg(s, seed.wrapping_add(1000 * (i as u64 + 1)), d))
                .collect(),
        ),
        Shape::Token => Literal::Token,
    }
}

/// The evaluator's ulp bound against XLA for `op` on `ty` (`xla_oracle::bounds`, the one table).
pub fn eval_bound(op: &str, ty: ElementType) -> Tol {
    tol_of(xla_oracle::bounds::eval_bound(op, ty))
}

/// The generated code's bound (`xla_oracle::bounds::gen_bound`).
pub fn gen_bound(op: &str, ty: ElementType) -> Tol {
    tol_of(xla_oracle::bounds::gen_bound(op, ty))
}

fn tol_of(t: Tolerance) -> Tol {
    match t {
        Tolerance::Exact => Tol::Exact,
        Tolerance::Ulp(n) => Tol::Ulp(n),
        Tolerance::Forward => Tol::Forward,
    }
}

/// The one oracle process of this test binary.
pub fn oracle() -> std::sync::MutexGuard<'static, Result<Oracle, String>> {
    static ORACLE: std::sync::OnceLock<std::sync::Mutex<Result<Oracle, String>>> =
        std::sync::OnceLock::new();
    ORACLE
        .get_or_init(|| std::sync::Mutex::new(Oracle::start()))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Rebuilds XLA's flat results in the result shape of the fn.
pub fn rebuild(shape: &Shape, it: &mut impl Iterator<Item = Literal>) -> Option<Literal> {
    match shape {
        Shape::Tuple(ts) => ts
            .iter()
            .map(|s| rebuild(s, it))
            .collect::<Option<Vec<_>>>()
            .map(Literal::Tuple),
        Shape::Array(_) | Shape::Token => it.next(),
    }
}

/// Runs every case through the generated code, the evaluator and XLA; panics listing every
/// failure (and, first, if the oracle cannot start). With `XLA_ORACLE_MEASURE=1` prints the
/// largest ulp distance of each case (how the bounds are measured).
pub fn check_all(suite: &str, cases: Vec<Case>) {
    let measure = std::env::var_os("XLA_ORACLE_MEASURE").is_some();
    let mut guard = oracle();
    let oracle = match guard.as_mut() {
        Ok(o) => o,
        Err(e) => panic!(
            "{suite}: the XLA oracle cannot start, so the generated code cannot be checked \
             against XLA:\n{e}"
        ),
    };
    let n = cases.len();
    let mut failures = Vec::new();
    for c in cases {
        if let Err(e) = check_one(oracle, &c, measure) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{suite}: {} of {n} cases fail (XLA:CPU on {}):\n{}",
        failures.len(),
        oracle.platform,
        failures.join("\n")
    );
    eprintln!("{suite}: {n} cases agree with XLA (generated code and evaluator)");
}

fn check_one(oracle: &mut Oracle, c: &Case, measure: bool) -> Result<(), String> {
    let comp = (c.gen.computation)();
    let hlo = (c.gen.stablehlo)();
    // `stablehlo()` must be the export of `computation()`, or (b) and (c) test different programs.
    match try_to_stablehlo(&comp) {
        Ok(t) if t == hlo => {}
        Ok(_) => {
            return Err(format!(
                "{}: stablehlo() is not the export of computation()",
                c.name
            ))
        }
        Err(e) => return Err(format!("{}: the export fails: {e}", c.name)),
    }
    // `run_computation` runs that same export (a program with dynamic dimensions through an
    // entry taking padded arrays and sizes: XLA takes no dynamic argument from the host).
    let xla = oracle
        .run_computation(&comp, &c.args)
        .map_err(|e| format!("{}: XLA failed: {e}", c.name))?;
    let mut errs = Vec::new();
    match (c.gen.run)(&c.args) {
        Ok(gen) => {
            if measure {
                eprintln!("MEASURE gen  {} {}", c.name, ulps_of(&gen, &xla));
            }
            if let Err(e) = compare_case(
                &format!("{} [generated]", c.name),
                &gen,
                &xla,
                c.gen_tol,
                &comp,
                &c.args,
            ) {
                errs.push(e);
            }
        }
        Err(e) => errs.push(format!("{} [generated]: run_literals failed: {e}", c.name)),
    }
    match evaluate(&comp, &c.args) {
        Ok(ev) => {
            if measure {
                eprintln!("MEASURE eval {} {}", c.name, ulps_of(&ev, &xla));
            }
            if let Err(e) = compare_case(
                &format!("{} [evaluator]", c.name),
                &ev,
                &xla,
                c.eval_tol,
                &comp,
                &c.args,
            ) {
                errs.push(e);
            }
        }
        Err(e) => errs.push(format!("{} [evaluator]: failed: {e}", c.name)),
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

/// `max_ulps` per tuple leaf, for measurements.
fn ulps_of(ours: &Literal, xla: &Literal) -> String {
    match (ours, xla) {
        (Literal::Tuple(a), Literal::Tuple(b)) => a
            .iter()
            .zip(b)
            .map(|(x, y)| ulps_of(x, y))
            .collect::<Vec<_>>()
            .join(" "),
        _ => format!("max_ulps={:?}", max_ulps(ours, xla)),
    }
}

/// [`compare`], and for [`Tol::Forward`] the forward-error check against `comp` evaluated in
/// f64 on `args`.
pub fn compare_case(
    name: &str,
    ours: &Literal,
    xla: &Literal,
    tol: Tol,
    comp: &Computation,
    args: &[Literal],
) -> Result<(), String> {
    match tol {
        Tol::Forward => Forward::of(comp, args)
            .map_err(|e| format!("{name}: {e}"))
            .and_then(|f| check_forward(name, ours, xla, &f)),
        tol => compare(name, ours, xla, tol),
    }
}

/// Compares `ours` with `xla` within `tol`; the message names the case, the first bad index and
/// both values. [`Tol::Forward`] needs the computation: see `compare_case`.
pub fn compare(name: &str, ours: &Literal, xla: &Literal, tol: Tol) -> Result<(), String> {
    match tol {
        Tol::Exact => check_close(name, ours, xla, Tolerance::Exact),
        Tol::Ulp(n) => check_close(name, ours, xla, Tolerance::Ulp(n)),
        Tol::Rel(r) => check_rel(name, ours, xla, r),
        Tol::Forward => check_close(name, ours, xla, Tolerance::Forward),
        Tol::Normwise(r) => check_normwise(name, ours, xla, r),
    }
}

/// A check of one leaf's float components: `(name, ours, xla)`.
type LeafCheck<'a> = dyn Fn(&str, &[f64], &[f64]) -> Result<(), String> + 'a;

/// Runs `leaf(name, ours, xla)` on the float components (complex per component) of each pair of
/// tuple leaves; non-float leaves must be exact, shapes equal.
fn per_float_leaf(
    name: &str,
    ours: &Literal,
    xla: &Literal,
    leaf: &LeafCheck,
) -> Result<(), String> {
    if let (Literal::Tuple(a), Literal::Tuple(b)) = (ours, xla) {
        if a.len() != b.len() {
            return Err(format!(
                "{name}: tuple of {} vs XLA tuple of {}",
                a.len(),
                b.len()
            ));
        }
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            per_float_leaf(&format!("{name}.{k}"), x, y, leaf)?;
        }
        return Ok(());
    }
    let (Some(a), Some(b)) = (floats(ours), floats(xla)) else {
        return check_close(name, ours, xla, Tolerance::Exact);
    };
    if ours.shape() != xla.shape() || a.len() != b.len() {
        return Err(format!(
            "{name}: shapes differ: ours {} vs XLA {}",
            ours.shape(),
            xla.shape()
        ));
    }
    leaf(&format!("{name} ({})", ours.shape()), &a, &b)
}

/// [`Tol::Normwise`]: non-finite values equal, and the largest difference within `r` of the
/// largest finite XLA magnitude.
fn check_normwise(name: &str, ours: &Literal, xla: &Literal, r: f64) -> Result<(), String> {
    per_float_leaf(name, ours, xla, &|name, a, b| {
        let same = |x: f64, y: f64| (x.is_nan() && y.is_nan()) || x == y;
        if let Some(i) =
            (0..a.len()).find(|&i| (!a[i].is_finite() || !b[i].is_finite()) && !same(a[i], b[i]))
        {
            return Err(format!(
                "{name}: component {i}: ours {} vs XLA {} (a non-finite value on one side)",
                a[i], b[i]
            ));
        }
        let finite = |x: &f64| x.is_finite();
        let scale = b
            .iter()
            .filter(|x| finite(x))
            .fold(0.0f64, |m, x| m.max(x.abs()));
        let (i, diff) = (0..a.len())
            .filter(|&i| a[i].is_finite())
            .map(|i| (i, (a[i] - b[i]).abs()))
            .fold((0, 0.0), |m, x| if x.1 > m.1 { x } else { m });
        if diff <= r * scale {
            return Ok(());
        }
        Err(format!(
            "{name}: max |ours - XLA| = {diff:e} > {r:e} * max |XLA| = {:e}; at component {i}: \
             ours {} vs XLA {}",
            r * scale,
            a[i],
            b[i]
        ))
    })
}

/// Floats (complex per component) within relative error `rel`; everything else exact.
fn check_rel(name: &str, ours: &Literal, xla: &Literal, rel: f64) -> Result<(), String> {
    per_float_leaf(name, ours, xla, &|name, a, b| {
        let bad: Vec<usize> = (0..a.len())
            .filter(|&i| {
                let (x, y) = (a[i], b[i]);
                let same = (x.is_nan() && y.is_nan()) || x == y;
                // False when exactly one is NaN or infinite (the difference is NaN or inf).
                let close = (x - y).abs() <= rel * y.abs().max(1e-30);
                !same && !close
            })
            .collect();
        match bad.first() {
            None => Ok(()),
            Some(&i) => Err(format!(
                "{name}: {} of {} components differ beyond a relative {rel:e}; first at \
                 component {i}: ours {:?} vs XLA {:?}",
                bad.len(),
                a.len(),
                a[i],
                b[i]
            )),
        }
    })
}

/// Float (or complex, as re, im pairs) elements as f64; `None` for other types.
fn floats(l: &Literal) -> Option<Vec<f64>> {
    let pairs = |v: &[Complex<f64>]| v.iter().flat_map(|c| [c.re, c.im]).collect();
    Some(match l.as_array()?.1 {
        ArrayData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::Bf16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::F64(v) => v.clone(),
        ArrayData::C64(v) => {
            let w: Vec<Complex<f64>> = v
                .iter()
                .map(|c| Complex::new(f64::from(c.re), f64::from(c.im)))
                .collect();
            pairs(&w)
        }
        ArrayData::C128(v) => pairs(v),
        ArrayData::Pred(_)
        | ArrayData::S8(_)
        | ArrayData::S16(_)
        | ArrayData::S32(_)
        | ArrayData::S64(_)
        | ArrayData::U8(_)
        | ArrayData::U16(_)
        | ArrayData::U32(_)
        | ArrayData::U64(_) => return None,
    })
}

/// Integer-valued floats (or ints) in [-r, r] of type `ty`: sums and products of them are exact
/// in any order, so dots and sums of them must be bit-exact whatever the summation order.
pub fn int_valued(ty: ElementType, dims: &[i64], seed: u64, r: f64) -> Literal {
    let ints = random_literal(
        &ArrayShape::new(ElementType::S32, dims),
        seed,
        Dist::Range(-r, r),
    );
    xla_oracle::ints_as(ty, &ints)
        .unwrap_or_else(|| random_literal(&ArrayShape::new(ty, dims), seed, Dist::Range(-r, r)))
}

/// Arguments of `gen` drawn by `f(param_index, shape)`.
pub fn args_with(gen: Gen, mut f: impl FnMut(usize, &ArrayShape) -> Literal) -> Vec<Literal> {
    (gen.computation)()
        .params
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Shape::Array(a) => f(i, a),
            other => panic!("{}: parameter {i} is {other}, not an array", gen.name),
        })
        .collect()
}

/// `Gen` for the xla! fn at `path` (a module path ending in the fn's companion module).
#[macro_export]
macro_rules! gen {
    ($name:expr, $($p:ident)::+) => {
        $crate::common::Gen {
            name: $name,
            run: $($p)::+::run_literals,
            computation: $($p)::+::computation,
            stablehlo: $($p)::+::stablehlo,
        }
    };
}

/// Which operands of a binary-op fn are parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Both (`ff`, `bd`, `bd0`).
    Pair,
    /// `Op(x, literal)`.
    LitRight,
    /// `Op(literal, x)`.
    LitLeft,
}

/// Stamps out, per `op_module Op "key" (literal) => type -> result_type, ...;`, one submodule
/// per input type holding the binary forms
/// - `ff`:  `Op(x, y)` on `T[3, 33]` x `T[3, 33]`;
/// - `bd`:  `Op(x, y, broadcast_dimensions = [1])` on `T[3, 33]` x `T[33]` (stride-0 reads);
/// - `bd0`: `Op(x, y, broadcast_dimensions = [0])` on `T[3]` x `T[3, 33]` (the lhs broadcast);
/// - `lr` / `ll`: a scalar literal on the right / left, typed from the other operand;
///
/// and `fn cases()` calling the caller's `push_cases(&mut Vec<Case>, key, Form, Gen)` for each.
#[macro_export]
macro_rules! binary_forms {
    ($( $m:ident $op:ident $key:literal ($lit:tt) => $( $t:ident -> $r:ident ),+ ; )*) => {
        $(
            mod $m {
                $(
                    #[allow(dead_code)]
                    pub mod $t {
                        xla_aot::xla! {
                            pub fn ff(x: $t[3, 33], y: $t[3, 33]) -> $r[3, 33] {
                                $op(x, y)
                            }
                            pub fn bd(x: $t[3, 33], y: $t[33]) -> $r[3, 33] {
                                $op(x, y, broadcast_dimensions = [1])
                            }
                            pub fn bd0(x: $t[3], y: $t[3, 33]) -> $r[3, 33] {
                                $op(x, y, broadcast_dimensions = [0])
                            }
                            pub fn lr(x: $t[3, 33]) -> $r[3, 33] {
                                $op(x, $lit)
                            }
                            pub fn ll(x: $t[3, 33]) -> $r[3, 33] {
                                $op($lit, x)
                            }
                        }
                    }
                )+
            }
        )*
        fn cases() -> Vec<$crate::common::Case> {
            use $crate::common::Form;
            let mut v = Vec::new();
            $( $(
                push_cases(&mut v, $key, Form::Pair,
                    $crate::gen!(concat!($key, "/", stringify!($t), "/ff"), $m::$t::ff));
                push_cases(&mut v, $key, Form::Pair,
                    $crate::gen!(concat!($key, "/", stringify!($t), "/bd"), $m::$t::bd));
                push_cases(&mut v, $key, Form::Pair,
                    $crate::gen!(concat!($key, "/", stringify!($t), "/bd0"), $m::$t::bd0));
                push_cases(&mut v, $key, Form::LitRight,
                    $crate::gen!(concat!($key, "/", stringify!($t), "/lr"), $m::$t::lr));
                push_cases(&mut v, $key, Form::LitLeft,
                    $crate::gen!(concat!($key, "/", stringify!($t), "/ll"), $m::$t::ll));
            )+ )*
            v
        }
    };
}

/// `l` with every third element replaced by `r`'s: equal pairs for EQ/GE/LE.
pub fn mix(l: &Literal, r: &Literal) -> Literal {
    macro_rules! m {
        ($($v:ident),*) => {
            match (l, r) {
                $(
                    (
                        Literal::Array { shape, data: ArrayData::$v(a) },
                        Literal::Array { data: ArrayData::$v(b), .. },
                    ) => Literal::Array {
                        shape: shape.clone(),
                        data: ArrayData::$v(
                            a.iter()
                                .zip(b)
                                .enumerate()
                                .map(|(i, (x, y))| if i % 3 == 0 { *y } else { *x })
                                .collect(),
                        ),
                    },
                )*
                _ => panic!("mix: {} vs {}", l.shape(), r.shape()),
            }
        };
    }
    m!(Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, Bf16, F32, F64, C64, C128)
}
