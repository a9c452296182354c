//! CHLO's elementwise functions on complex numbers, as JAX emits them (`lax.acos`, `asin`,
//! `atan`, `acosh`, `asinh`, `atanh`, `cosh`, `sinh` of c64 and c128: one `chlo.<op>`), imported
//! as `Map` of the function XLA compiles for them (`xla-core/src/stablehlo/import/lower/
//! chlo_complex/`; `chlo.cosh` as our own `Cosh` op, which the export writes as it), compiled by `stablehlo!` and run by the evaluator, against XLA:CPU running the
//! same text, on random values in [-3, 3]^2 and on the branch cuts (both signs of zero on each
//! axis beyond +-1), tiny and huge magnitudes and infinities.
//!
//! Bound: `Tol::Ulp(ULPS)` per component: the same formulas on both sides, so only the real
//! primitives (`log`, `log1p`, `atan2`, `exp`, `sin`, `cos`) differ, by their own ulp. Measured
//! (AMD EPYC, XLA on AVX-512 and with `XLA_ORACLE_MAX_ISA=AVX2`): 1 ulp fails (cosh, 2 ulps:
//! `exp` times `cos` rounds twice), 2 passes; special points, zeros' signs and infinities
//! agree exactly.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_chlo_complex`.

#![deny(warnings)]

mod common;

use common::{compare_case, oracle, Gen, Tol};
use num_complex::Complex;
use xla_aot::core::eval::evaluate;
use xla_aot::core::{ElementType, Literal};

/// The per-component bound, in ulps.
const ULPS: u64 = 2;

xla_aot::stablehlo! {
    pub fn acos_c64 = mlir "func.func public @main(%x: tensor<96xcomplex<f32>>) -> tensor<96xcomplex<f32>> {
  %0 = chlo.acos %x : tensor<96xcomplex<f32>> -> tensor<96xcomplex<f32>>
  return %0 : tensor<96xcomplex<f32>>
}";
    pub fn acos_c128 = mlir "func.func public @main(%x: tensor<96xcomplex<f64>>) -> tensor<96xcomplex<f64>> {
  %0 = chlo.acos %x : tensor<96xcomplex<f64>> -> tensor<96xcomplex<f64>>
  return %0 : tensor<96xcomplex<f64>>
}";
    pub fn asin_c64 = mlir "func.func public @main(%x: tensor<96xcomplex<f32>>) -> tensor<96xcomplex<f32>> {
  %0 = chlo.asin %x : tensor<96xcomplex<f32>> -> tensor<96xcomplex<f32>>
  return %0 : tensor<96xcomplex<f32>>
}";
    pub fn asin_c128 = mlir "func.func public @main(%x: tensor<96xcomplex<f64>>) -> tensor<96xcomplex<f64>> {
  %0 = chlo.asin %x : tensor<96xcomplex<f64>> -> tensor<96xcomplex<f64>>
  return %0 : tensor<96xcomplex<f64>>
}";
    pub fn atan_c64 = mlir "func.func public @main(%x: tensor<96xcomplex<f32>>) -> tensor<96xcomplex<f32>> {
  %0 = chlo.atan %x : tensor<96xcomplex<f32>> -> tensor<96xcomplex<f32>>
  return %0 : tensor<96xcomplex<f32>>
}";
    pub fn atan_c128 = mlir "func.func public @main(%x: tensor<96xcomplex<f64>>) -> tensor<96xcomplex<f64>> {
  %0 = chlo.atan %x : tensor<96xcomplex<f64>> -> tensor<96xcomplex<f64>>
  return %0 : tensor<96xcomplex<f64>>
}";
    pub fn acosh_c64 = mlir "func.func public @main(%x: tensor<96xcomplex<f32>>) -> tensor<96xcomplex<f32>> {
  %0 = chlo.acosh %x : tensor<96xcomplex<f32>> -> tensor<96xcomplex<f32>>
  return %0 : tensor<96xcomplex<f32>>
}";
    pub fn acosh_c128 = mlir "func.func public @main(%x: tensor<96xcomplex<f64>>) -> tensor<96xcomplex<f64>> {
  %0 = chlo.acosh %x : tensor<96xcomplex<f64>> -> tensor<96xcomplex<f64>>
  return %0 : tensor<96xcomplex<f64>>
}";
    pub fn asinh_c64 = mlir "func.func public @main(%x: tensor<96xcomplex<f32>>) -> tensor<96xcomplex<f32>> {
  %0 = chlo.asinh %x : tensor<96xcomplex<f32>> -> tensor<96xcomplex<f32>>
  return %0 : tensor<96xcomplex<f32>>
}";
    pub fn asinh_c128 = mlir "func.func public @main(%x: tensor<96xcomplex<f64>>) -> tensor<96xcomplex<f64>> {
  %0 = chlo.asinh %x : tensor<96xcomplex<f64>> -> tensor<96xcomplex<f64>>
  return %0 : tensor<96xcomplex<f64>>
}";
    pub fn atanh_c64 = mlir "func.func public @main(%x: tensor<96xcomplex<f32>>) -> tensor<96xcomplex<f32>> {
  %0 = chlo.atanh %x : tensor<96xcomplex<f32>> -> tensor<96xcomplex<f32>>
  return %0 : tensor<96xcomplex<f32>>
}";
    pub fn atanh_c128 = mlir "func.func public @main(%x: tensor<96xcomplex<f64>>) -> tensor<96xcomplex<f64>> {
  %0 = chlo.atanh %x : tensor<96xcomplex<f64>> -> tensor<96xcomplex<f64>>
  return %0 : tensor<96xcomplex<f64>>
}";
    pub fn cosh_c64 = mlir "func.func public @main(%x: tensor<96xcomplex<f32>>) -> tensor<96xcomplex<f32>> {
  %0 = chlo.cosh %x : tensor<96xcomplex<f32>> -> tensor<96xcomplex<f32>>
  return %0 : tensor<96xcomplex<f32>>
}";
    pub fn cosh_c128 = mlir "func.func public @main(%x: tensor<96xcomplex<f64>>) -> tensor<96xcomplex<f64>> {
  %0 = chlo.cosh %x : tensor<96xcomplex<f64>> -> tensor<96xcomplex<f64>>
  return %0 : tensor<96xcomplex<f64>>
}";
    pub fn sinh_c64 = mlir "func.func public @main(%x: tensor<96xcomplex<f32>>) -> tensor<96xcomplex<f32>> {
  %0 = chlo.sinh %x : tensor<96xcomplex<f32>> -> tensor<96xcomplex<f32>>
  return %0 : tensor<96xcomplex<f32>>
}";
    pub fn sinh_c128 = mlir "func.func public @main(%x: tensor<96xcomplex<f64>>) -> tensor<96xcomplex<f64>> {
  %0 = chlo.sinh %x : tensor<96xcomplex<f64>> -> tensor<96xcomplex<f64>>
  return %0 : tensor<96xcomplex<f64>>
}";
}

/// `N` inputs: the special points first (each with both signs of zero), then random ones.
fn inputs(ty: ElementType, seed: u64) -> Literal {
    let big = if ty == ElementType::C64 { 1e30 } else { 1e300 };
    let tiny = if ty == ElementType::C64 {
        1e-30
    } else {
        1e-300
    };
    let axis = [
        0.0,
        0.5,
        1.0,
        1.5,
        3.0,
        -1.0,
        -1.5,
        -3.0,
        tiny,
        big,
        -big,
        f64::INFINITY,
    ];
    let mut z: Vec<Complex<f64>> = Vec::new();
    for &a in &axis {
        for zero in [0.0, -0.0] {
            z.push(Complex::new(a, zero));
            z.push(Complex::new(zero, a));
        }
    }
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 52) as f64 * 6.0 - 3.0
    };
    while z.len() < NN {
        z.push(Complex::new(next(), next()));
    }
    match ty {
        ElementType::C64 => Literal::from_vec(
            &[NN as i64],
            z.iter()
                .map(|c| Complex::new(c.re as f32, c.im as f32))
                .collect(),
        ),
        _ => Literal::from_vec(&[NN as i64], z),
    }
    .expect("NN values")
}

#[test]
fn complex_chlo_functions_agree_with_xla() {
    let fns: Vec<(Gen, ElementType)> = vec![
        (gen!("chlo.acos c64", acos_c64), ElementType::C64),
        (gen!("chlo.acos c128", acos_c128), ElementType::C128),
        (gen!("chlo.asin c64", asin_c64), ElementType::C64),
        (gen!("chlo.asin c128", asin_c128), ElementType::C128),
        (gen!("chlo.atan c64", atan_c64), ElementType::C64),
        (gen!("chlo.atan c128", atan_c128), ElementType::C128),
        (gen!("chlo.acosh c64", acosh_c64), ElementType::C64),
        (gen!("chlo.acosh c128", acosh_c128), ElementType::C128),
        (gen!("chlo.asinh c64", asinh_c64), ElementType::C64),
        (gen!("chlo.asinh c128", asinh_c128), ElementType::C128),
        (gen!("chlo.atanh c64", atanh_c64), ElementType::C64),
        (gen!("chlo.atanh c128", atanh_c128), ElementType::C128),
        (gen!("chlo.cosh c64", cosh_c64), ElementType::C64),
        (gen!("chlo.cosh c128", cosh_c128), ElementType::C128),
        (gen!("chlo.sinh c64", sinh_c64), ElementType::C64),
        (gen!("chlo.sinh c128", sinh_c128), ElementType::C128),
    ];
    let mut guard = oracle();
    let o = match guard.as_mut() {
        Ok(o) => o,
        Err(e) => panic!("the XLA oracle cannot start, so the functions cannot be checked: {e}"),
    };
    let (mut failures, mut n) = (Vec::new(), 0);
    for (gen, ty) in fns {
        let comp = (gen.computation)();
        for seed in 0..2u64 {
            let args = vec![inputs(ty, seed)];
            let name = format!("{} seed {seed}", gen.name);
            let xla = match o.run(&jax_text(gen.name), &args) {
                Ok(mut v) if v.len() == 1 => v.remove(0),
                Ok(v) => panic!("{name}: XLA gave {} results", v.len()),
                Err(e) => panic!("{name}: XLA failed: {e}"),
            };
            let gen_out = (gen.run)(&args).map_err(|e| e.to_string());
            let ev = evaluate(&comp, &args).map_err(|e| e.to_string());
            for (what, ours) in [("generated", gen_out), ("evaluator", ev)] {
                n += 1;
                let r = ours.and_then(|l| {
                    compare_case(
                        &format!("{name} [{what}]"),
                        &l,
                        &xla,
                        Tol::Ulp(ULPS),
                        &comp,
                        &args,
                    )
                });
                if let Err(e) = r {
                    failures.push(e);
                }
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
}

/// JAX's text for `gen`'s name (`chlo.asin c64`): the one op on a vector of `NN`.
fn jax_text(name: &str) -> String {
    let (op, t) = name.split_once(' ').expect("op and type");
    let c = if t == "c64" {
        "complex<f32>"
    } else {
        "complex<f64>"
    };
    let ty = format!("tensor<{NN}x{c}>");
    format!(
        "func.func public @main(%x: {ty}) -> {ty} {{\n  %0 = {op} %x : {ty} -> {ty}\n  return %0 : {ty}\n}}\n"
    )
}

/// Elements per input.
const NN: usize = 96;
