//! `stablehlo!` on JAX's linear algebra (`tests/stablehlo/export_linalg.py` wrote the `.mlir`
//! files): on CPU JAX lowers `jnp.linalg.cholesky`, `lax.linalg.cholesky`,
//! `jax.scipy.linalg.solve_triangular` and `lax.linalg.triangular_solve` to LAPACK custom calls
//! (`lapack_{s,d,c,z}potrf_ffi`, `lapack_{s,d,c,z}trsm_ffi`), which the importer maps to our
//! Cholesky and TriangularSolve (plus LAPACK's `info`, which JAX turns into NaNs). The generated
//! code and the evaluator on the imported IR are compared with XLA:CPU running JAX's own text
//! (LAPACK itself) on random Hermitian positive-definite matrices, on batches holding a matrix
//! that is not positive definite (NaN where JAX gives NaN), and on random triangular systems.
//! A `stablehlo!` module also calls a Rust fn of this crate through `stablehlo.custom_call`.
//!
//! Bounds: `Tol::Normwise(2 n eps)` of the type, as `tests/oracle_linalg.rs` measured for the
//! ops themselves (well-conditioned matrices: `m m^H + n I`, dominant triangular diagonals).
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! stablehlo_linalg`.

#![deny(warnings)]

mod common;

use common::{compare_case, oracle, rebuild, Gen, Tol};
use num_complex::Complex;
use xla_aot::core::eval::evaluate;
use xla_aot::core::{ElementType, Literal};
use xla_aot::{Tensor, TensorView, TensorViewMut, D1, D2};

xla_aot::stablehlo! {
    pub fn chol_f32 = "tests/stablehlo/linalg_chol_f32.mlir";
    pub fn chol_f64 = "tests/stablehlo/linalg_chol_f64.mlir";
    pub fn chol_c64 = "tests/stablehlo/linalg_chol_c64.mlir";
    pub fn chol_c128 = "tests/stablehlo/linalg_chol_c128.mlir";
    pub fn solve_f32 = "tests/stablehlo/linalg_solve_f32.mlir";
    pub fn solve_f64 = "tests/stablehlo/linalg_solve_f64.mlir";
    pub fn solve_c64 = "tests/stablehlo/linalg_solve_c64.mlir";
    pub fn solve_c128 = "tests/stablehlo/linalg_solve_c128.mlir";
    pub fn cho_solve_f32 = "tests/stablehlo/linalg_cho_solve_f32.mlir";
}

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 52) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// Random values of `ty` (complex ones with an imaginary part).
fn random(ty: ElementType, len: usize, seed: u64) -> Vec<Complex<f64>> {
    let (re, im) = (values(len, seed), values(len, seed + 7777));
    (0..len)
        .map(|i| Complex::new(re[i], if ty.is_complex() { im[i] } else { 0.0 }))
        .collect()
}

/// A literal of `ty` (f32, f64, c64, c128) from complex values (the real part for reals).
fn literal(ty: ElementType, dims: &[i64], v: &[Complex<f64>]) -> Literal {
    match ty {
        ElementType::F32 => Literal::from_vec(dims, v.iter().map(|x| x.re as f32).collect()),
        ElementType::F64 => Literal::from_vec(dims, v.iter().map(|x| x.re).collect()),
        ElementType::C64 => Literal::from_vec(
            dims,
            v.iter()
                .map(|x| Complex::new(x.re as f32, x.im as f32))
                .collect(),
        ),
        _ => Literal::from_vec(dims, v.to_vec()),
    }
    .expect("dims match the values")
}

/// `batch` Hermitian `n x n` matrices `m m^H + shift I`: positive definite for `shift = n`; for
/// a negative shift below `-|m|^2` not (JAX symmetrizes its input, so both triangles are read).
fn hermitian(ty: ElementType, n: usize, shifts: &[f64], seed: u64) -> Vec<Complex<f64>> {
    let mut out = Vec::new();
    for (b, &shift) in shifts.iter().enumerate() {
        let m = random(ty, n * n, seed + b as u64);
        for i in 0..n {
            for j in 0..n {
                let s: Complex<f64> = (0..n).map(|k| m[i * n + k] * m[j * n + k].conj()).sum();
                out.push(s + if i == j { shift } else { 0.0 });
            }
        }
    }
    out
}

/// `batch` triangular `n x n` matrices (`lower`): a dominant diagonal, the other triangle garbage
/// LAPACK does not read.
fn triangular(
    ty: ElementType,
    batch: usize,
    n: usize,
    lower: bool,
    seed: u64,
) -> Vec<Complex<f64>> {
    let v = random(ty, batch * n * n, seed);
    (0..batch * n * n)
        .map(|p| {
            let (i, j) = ((p / n) % n, p % n);
            let read = if lower { i >= j } else { i <= j };
            if i == j {
                v[p] * 0.5 + 2.0
            } else if read {
                v[p] / (n as f64).sqrt()
            } else {
                v[p] * 1e3
            }
        })
        .collect()
}

/// `2 n eps` of `ty`, normwise.
fn tol(ty: ElementType, n: usize) -> Tol {
    let eps = match ty {
        ElementType::F32 | ElementType::C64 => f64::from(f32::EPSILON),
        _ => f64::EPSILON,
    };
    Tol::Normwise(2.0 * n as f64 * eps)
}

/// One program on its arguments: generated code and evaluator against XLA on JAX's text.
struct Case {
    gen: Gen,
    text: &'static str,
    args: Vec<Literal>,
    tol: Tol,
}

/// A triangular-solve program: entry points, JAX's text, type, a and b dims, lower.
type Solve = (
    Gen,
    &'static str,
    ElementType,
    &'static [i64],
    &'static [i64],
    bool,
);

fn cases() -> Vec<Case> {
    use ElementType::*;
    let mut v = Vec::new();
    let chol: [(Gen, &str, ElementType, &[i64]); 4] = [
        (
            gen!("chol_f32", chol_f32),
            include_str!("stablehlo/linalg_chol_f32.mlir"),
            F32,
            &[5, 5],
        ),
        (
            gen!("chol_f64", chol_f64),
            include_str!("stablehlo/linalg_chol_f64.mlir"),
            F64,
            &[3, 4, 4],
        ),
        (
            gen!("chol_c64", chol_c64),
            include_str!("stablehlo/linalg_chol_c64.mlir"),
            C64,
            &[4, 4],
        ),
        (
            gen!("chol_c128", chol_c128),
            include_str!("stablehlo/linalg_chol_c128.mlir"),
            C128,
            &[2, 3, 3],
        ),
    ];
    for (gen, text, ty, dims) in chol {
        let n = dims[dims.len() - 1] as usize;
        let batch: usize = dims[..dims.len() - 2].iter().product::<i64>() as usize;
        for seed in 0..3u64 {
            let spd = vec![n as f64; batch];
            let a = literal(ty, dims, &hermitian(ty, n, &spd, 10 * seed));
            v.push(Case {
                gen,
                text,
                args: vec![a],
                tol: tol(ty, n),
            });
        }
        // Not positive definite: the last matrix of the batch (or the only one) is shifted
        // by -2n, below its smallest eigenvalue; JAX gives NaN for it, its neighbours intact.
        let mut shifts = vec![n as f64; batch];
        shifts[batch - 1] = -2.0 * n as f64;
        let a = literal(ty, dims, &hermitian(ty, n, &shifts, 99));
        v.push(Case {
            gen,
            text,
            args: vec![a],
            tol: tol(ty, n),
        });
    }
    let solve: [Solve; 4] = [
        (
            gen!("solve_f32", solve_f32),
            include_str!("stablehlo/linalg_solve_f32.mlir"),
            F32,
            &[5, 5],
            &[5, 3],
            true,
        ),
        (
            gen!("solve_f64", solve_f64),
            include_str!("stablehlo/linalg_solve_f64.mlir"),
            F64,
            &[4, 4],
            &[4],
            false,
        ),
        (
            gen!("solve_c64", solve_c64),
            include_str!("stablehlo/linalg_solve_c64.mlir"),
            C64,
            &[2, 4, 4],
            &[2, 3, 4],
            false,
        ),
        (
            gen!("solve_c128", solve_c128),
            include_str!("stablehlo/linalg_solve_c128.mlir"),
            C128,
            &[4, 4],
            &[4, 2],
            true,
        ),
    ];
    for (gen, text, ty, ad, bd, lower) in solve {
        let n = ad[ad.len() - 1] as usize;
        let batch = ad[..ad.len() - 2].iter().product::<i64>() as usize;
        let nb = bd.iter().product::<i64>() as usize;
        for seed in 0..3u64 {
            let a = literal(ty, ad, &triangular(ty, batch, n, lower, 20 + seed));
            let b = literal(ty, bd, &random(ty, nb, 30 + seed));
            v.push(Case {
                gen,
                text,
                args: vec![a, b],
                tol: tol(ty, n),
            });
        }
    }
    for seed in 0..3u64 {
        let a = literal(F32, &[6, 6], &hermitian(F32, 6, &[6.0], 40 + seed));
        let b = literal(F32, &[6, 2], &random(F32, 12, 50 + seed));
        let gen = gen!("cho_solve_f32", cho_solve_f32);
        let text = include_str!("stablehlo/linalg_cho_solve_f32.mlir");
        // Two solves after the factorisation: a few times the factor's bound.
        v.push(Case {
            gen,
            text,
            args: vec![a, b],
            tol: Tol::Normwise(2e-5),
        });
    }
    v
}

/// Whether any float of `l` is NaN.
fn has_nan(l: &Literal) -> bool {
    match l {
        Literal::Tuple(ts) => ts.iter().any(has_nan),
        _ => l
            .as_slice::<f32>()
            .map(|s| s.iter().any(|x| x.is_nan()))
            .or_else(|| l.as_slice::<f64>().map(|s| s.iter().any(|x| x.is_nan())))
            .or_else(|| {
                l.as_slice::<Complex<f32>>()
                    .map(|s| s.iter().any(|x| x.re.is_nan()))
            })
            .or_else(|| {
                l.as_slice::<Complex<f64>>()
                    .map(|s| s.iter().any(|x| x.re.is_nan()))
            })
            .unwrap_or(false),
    }
}

#[test]
fn jax_linalg_agrees_with_xla_running_jax_text() {
    let mut guard = oracle();
    let o = match guard.as_mut() {
        Ok(o) => o,
        Err(e) => panic!("the XLA oracle cannot start, so the programs cannot be checked: {e}"),
    };
    let (mut failures, mut n, mut nans) = (Vec::new(), 0, 0);
    for (i, c) in cases().into_iter().enumerate() {
        let comp = (c.gen.computation)();
        let name = format!("{} case {i}", c.gen.name);
        let flat = match o.run(c.text, &c.args) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}: XLA failed on JAX's text: {e}"));
                continue;
            }
        };
        let Some(xla) = rebuild(comp.result_shape(), &mut flat.into_iter()) else {
            failures.push(format!("{name}: XLA returned too few results"));
            continue;
        };
        nans += usize::from(has_nan(&xla));
        let gen = (c.gen.run)(&c.args).map_err(|e| e.to_string());
        let ev = evaluate(&comp, &c.args).map_err(|e| e.to_string());
        for (what, ours) in [("generated", gen), ("evaluator", ev)] {
            n += 1;
            let r = ours.and_then(|l| {
                compare_case(&format!("{name} [{what}]"), &l, &xla, c.tol, &comp, &c.args)
            });
            if let Err(e) = r {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} comparisons fail (XLA:CPU on {}):\n{}",
        failures.len(),
        o.platform,
        failures.join("\n")
    );
    // The four non-positive-definite cases reached JAX's NaN select.
    assert_eq!(nans, 4, "cases where JAX gives NaN");
}

xla_aot::stablehlo! {
    /// A custom call of a Rust fn of this crate (`scale_and_sum` below), tuple result.
    fn scaled = mlir r#"
func.func public @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %0:2 = stablehlo.custom_call @scale_and_sum(%x) {api_version = 4 : i32, backend_config = {factor = 3 : i64}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  %1 = stablehlo.negate %0#1 : tensor<2xf32>
  return %0#0, %1 : tensor<2x3xf32>, tensor<2xf32>
}"#;
}

/// The custom call's target: `y = 3 x`, `s[i] = sum_j y[i][j]`.
fn scale_and_sum(
    x: TensorView<'_, f32, D2<2, 3>>,
    mut y: TensorViewMut<'_, f32, D2<2, 3>>,
    mut s: TensorViewMut<'_, f32, D1<2>>,
) {
    for (o, &v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *o = 3.0 * v;
    }
    let y = y.as_mut_slice();
    for (i, o) in s.as_mut_slice().iter_mut().enumerate() {
        *o = y[3 * i..3 * i + 3].iter().sum();
    }
}

#[test]
fn stablehlo_custom_call_runs_a_rust_fn() {
    let x = Tensor::<f32, D2<2, 3>>::from_fn(|i| (i[0] * 3 + i[1]) as f32);
    let (y, s) = scaled(&x);
    assert_eq!(y.as_slice(), &[0.0, 3.0, 6.0, 9.0, 12.0, 15.0]);
    assert_eq!(s.as_slice(), &[-9.0, -36.0]);
    // The evaluator cannot run the target: an Err naming it.
    let e = evaluate(&scaled::computation(), &[x.to_literal()]).unwrap_err();
    assert!(e.to_string().contains("scale_and_sum"), "{e}");
}
