//! Cholesky and TriangularSolve against XLA:CPU: the generated code (`xla_kernels::linalg`,
//! blocked on our GEMM) and the evaluator (substitution in f64), on f32, f64, c64 and c128.
//!
//! Inputs: Hermitian positive-definite `a = m m^H + n I` (condition number about 2) with
//! garbage in the triangle the op must not read; triangular matrices with a dominant diagonal
//! (solves of condition number below 10); the edge cases: 1x1, a matrix that is not positive
//! definite in a batch with one that is (XLA: that matrix all NaN, its neighbour untouched), a
//! complex diagonal with an imaginary part, `unit_diagonal` with a garbage diagonal, every
//! `transpose_a`, left and right, lower and upper, batch dims, sizes past the block sizes.
//! Proof program: least squares through the normal equations `a^T a x = a^T b`: one Cholesky
//! and two TriangularSolves.
//!
//! Tolerance: both algorithms are backward stable (Cholesky: `l l^H = a + e`, `|e| <= (n + 1)
//! eps |l| |l^H|`; substitution likewise), so for these inputs of condition number below 10
//! every result is within a small multiple of `n eps` of the exact one, normwise:
//! `Tol::Normwise(c n eps)` with `c` = [`SLACK`]. Measured (`SLACK` lowered until every case
//! fails): at most 3.4 eps on the 130 x 130 f32 factor, about 1 eps on the small ones, 9 eps on
//! the f32 least squares, so `2 n eps` holds with room and still catches a wrong element.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_linalg`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Gen, Tol};
use num_complex::Complex;
use xla_aot::core::{ElementType, Literal};

/// The multiple of `n eps` results may differ from XLA's by, normwise.
const SLACK: f64 = 2.0;

xla_aot::xla! {
    pub fn chol_f32(a: f32[5, 5]) -> f32[5, 5] { Cholesky(a, lower = true) }
    pub fn chol_f32_upper(a: f32[5, 5]) -> f32[5, 5] { Cholesky(a, lower = false) }
    pub fn chol_f32_1(a: f32[1, 1]) -> f32[1, 1] { Cholesky(a, lower = true) }
    pub fn chol_f32_big(a: f32[130, 130]) -> f32[130, 130] { Cholesky(a, lower = true) }
    pub fn chol_f32_big_upper(a: f32[130, 130]) -> f32[130, 130] { Cholesky(a, lower = false) }
    pub fn chol_f32_batch(a: f32[2, 4, 4]) -> f32[2, 4, 4] { Cholesky(a, lower = true) }
    pub fn chol_f64(a: f64[33, 33]) -> f64[33, 33] { Cholesky(a, lower = true) }
    pub fn chol_f64_upper(a: f64[2, 3, 9, 9]) -> f64[2, 3, 9, 9] { Cholesky(a, lower = false) }
    pub fn chol_c64(a: c64[2, 3, 4, 4]) -> c64[2, 3, 4, 4] { Cholesky(a, lower = true) }
    pub fn chol_c64_upper(a: c64[3, 3]) -> c64[3, 3] { Cholesky(a, lower = false) }
    pub fn chol_c64_big(a: c64[70, 70]) -> c64[70, 70] { Cholesky(a, lower = true) }
    pub fn chol_c128(a: c128[7, 7]) -> c128[7, 7] { Cholesky(a, lower = true) }
    pub fn chol_c128_upper(a: c128[2, 7, 7]) -> c128[2, 7, 7] { Cholesky(a, lower = false) }
}

/// A module of TriangularSolve fns on `$t`, batch [2], `a` 4 x 4, `b` `[2, $bd..]` (4 x 3
/// on the left, 3 x 4 on the right), and `gens()` listing them.
macro_rules! solves {
    ($m:ident, $t:ident, [$($f:ident: $left:literal $lower:literal $unit:literal $tr:ident [$($bd:literal),*]),* $(,)?]) => {
        pub mod $m {
            xla_aot::xla! {
                $(
                    pub fn $f(a: $t[2, 4, 4], b: $t[2, $($bd),*]) -> $t[2, $($bd),*] {
                        TriangularSolve(a, b, left_side = $left, lower = $lower,
                            unit_diagonal = $unit, transpose_a = $tr)
                    }
                )*
            }
            pub fn gens() -> Vec<$crate::common::Gen> {
                vec![$(crate::gen!(concat!(stringify!($m), "/", stringify!($f)), $f)),*]
            }
        }
    };
}

solves!(ts_f64, f64, [
    ln_left: true true false NO_TRANSPOSE [4, 3],
    lt_left: true true false TRANSPOSE [4, 3],
    la_left: true true false ADJOINT [4, 3],
    un_left: true false false NO_TRANSPOSE [4, 3],
    ut_left: true false false TRANSPOSE [4, 3],
    ua_left: true false false ADJOINT [4, 3],
    ln_right: false true false NO_TRANSPOSE [3, 4],
    lt_right: false true false TRANSPOSE [3, 4],
    la_right: false true false ADJOINT [3, 4],
    un_right: false false false NO_TRANSPOSE [3, 4],
    ut_right: false false false TRANSPOSE [3, 4],
    ua_right: false false false ADJOINT [3, 4],
    unit_left: true true true TRANSPOSE [4, 3],
    unit_right: false false true NO_TRANSPOSE [3, 4],
]);

solves!(ts_c64, c64, [
    ln_left: true true false NO_TRANSPOSE [4, 3],
    lt_left: true true false TRANSPOSE [4, 3],
    la_left: true true false ADJOINT [4, 3],
    un_left: true false false NO_TRANSPOSE [4, 3],
    ut_left: true false false TRANSPOSE [4, 3],
    ua_left: true false false ADJOINT [4, 3],
    ln_right: false true false NO_TRANSPOSE [3, 4],
    lt_right: false true false TRANSPOSE [3, 4],
    la_right: false true false ADJOINT [3, 4],
    un_right: false false false NO_TRANSPOSE [3, 4],
    ut_right: false false false TRANSPOSE [3, 4],
    ua_right: false false false ADJOINT [3, 4],
    unit_left: true false true ADJOINT [4, 3],
    unit_right: false true true ADJOINT [3, 4],
]);

solves!(ts_f32, f32, [
    ln_left: true true false NO_TRANSPOSE [4, 3],
    ua_left: true false false ADJOINT [4, 3],
    lt_right: false true false TRANSPOSE [3, 4],
    un_right: false false false NO_TRANSPOSE [3, 4],
    unit_left: true true true NO_TRANSPOSE [4, 3],
]);

solves!(ts_c128, c128, [
    la_left: true true false ADJOINT [4, 3],
    ut_left: true false false TRANSPOSE [4, 3],
    ln_right: false true false NO_TRANSPOSE [3, 4],
    ua_right: false false false ADJOINT [3, 4],
    unit_right: false true true TRANSPOSE [3, 4],
]);

xla_aot::xla! {
    pub fn ts_f32_1(a: f32[1, 1], b: f32[1, 5]) -> f32[1, 5] {
        TriangularSolve(a, b, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = NO_TRANSPOSE)
    }
    pub fn ts_f32_big(a: f32[130, 130], b: f32[130, 20]) -> f32[130, 20] {
        TriangularSolve(a, b, left_side = true, lower = false, unit_diagonal = false,
            transpose_a = TRANSPOSE)
    }
    pub fn ts_c64_big(a: c64[3, 100, 100], b: c64[3, 7, 100]) -> c64[3, 7, 100] {
        TriangularSolve(a, b, left_side = false, lower = true, unit_diagonal = false,
            transpose_a = ADJOINT)
    }
    pub fn ts_f64_batch(a: f64[2, 3, 5, 5], b: f64[2, 3, 5, 2]) -> f64[2, 3, 5, 2] {
        TriangularSolve(a, b, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = ADJOINT)
    }
}

xla_aot::xla! {
    /// Least squares `min |a x - b|` through the normal equations: `g = a^T a = l l^T`,
    /// `l y = a^T b`, `l^T x = y`.
    pub fn lstsq_f64(a: f64[20, 5], b: f64[20, 2]) -> f64[5, 2] {
        let g = DotGeneral(a, a, lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]);
        let r = DotGeneral(a, b, lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]);
        let l = Cholesky(g, lower = true);
        let y = TriangularSolve(l, r, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = NO_TRANSPOSE);
        TriangularSolve(l, y, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = ADJOINT)
    }
    pub fn lstsq_f32(a: f32[64, 8], b: f32[64, 1]) -> f32[8, 1] {
        let g = DotGeneral(a, a, lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]);
        let r = DotGeneral(a, b, lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]);
        let l = Cholesky(g, lower = true);
        let y = TriangularSolve(l, r, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = NO_TRANSPOSE);
        TriangularSolve(l, y, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = TRANSPOSE)
    }
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

/// A literal of `ty` (f32, f64, c64, c128) and `dims` from complex values (the real part for
/// real types).
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

/// Random values of `ty` (complex ones with an imaginary part).
fn random(ty: ElementType, len: usize, seed: u64) -> Vec<Complex<f64>> {
    let re = values(len, seed);
    let im = values(len, seed + 7777);
    (0..len)
        .map(|i| Complex::new(re[i], if ty.is_complex() { im[i] } else { 0.0 }))
        .collect()
}

/// `batch` Hermitian positive-definite `n x n` matrices `m m^H + n I`, the triangle the op does
/// not read (`lower`: the strict upper one) overwritten with garbage.
fn spd(ty: ElementType, batch: usize, n: usize, lower: bool, seed: u64) -> Vec<Complex<f64>> {
    let mut out = Vec::with_capacity(batch * n * n);
    for b in 0..batch {
        let m = random(ty, n * n, seed + b as u64);
        let garbage = random(ty, n * n, seed + 1000 + b as u64);
        for i in 0..n {
            for j in 0..n {
                let unread = if lower { j > i } else { j < i };
                let v = if unread {
                    garbage[i * n + j] * 1e3
                } else {
                    let s: Complex<f64> = (0..n).map(|k| m[i * n + k] * m[j * n + k].conj()).sum();
                    s + if i == j { n as f64 } else { 0.0 }
                };
                out.push(v);
            }
        }
    }
    out
}

/// `batch` triangular `n x n` matrices: the read triangle random over `sqrt(n)`, a dominant
/// diagonal (or garbage there when `unit`), garbage in the other triangle.
fn triangular(
    ty: ElementType,
    batch: usize,
    n: usize,
    (lower, unit): (bool, bool),
    seed: u64,
) -> Vec<Complex<f64>> {
    let v = random(ty, batch * n * n, seed);
    let scale = 1.0 / (n as f64).sqrt();
    (0..batch * n * n)
        .map(|p| {
            let (i, j) = ((p / n) % n, p % n);
            let read = if lower { i >= j } else { i <= j };
            if i == j {
                if unit {
                    v[p] * 1e4
                } else {
                    v[p] * 0.5 + 2.0
                }
            } else if read {
                v[p] * scale * if unit { 0.5 } else { 1.0 }
            } else {
                v[p] * 1e3
            }
        })
        .collect()
}

/// The `n eps` bound of an `n x n` problem on `ty`.
fn tol(ty: ElementType, n: usize) -> Tol {
    let eps = match ty {
        ElementType::F32 | ElementType::C64 => f64::from(f32::EPSILON),
        _ => f64::EPSILON,
    };
    Tol::Normwise(SLACK * n.max(2) as f64 * eps)
}

/// The parameter `i` of `g`'s fn: element type, dims.
fn param(g: &Gen, i: usize) -> (ElementType, Vec<i64>) {
    let s = (g.computation)().params[i]
        .as_array()
        .expect("an array")
        .clone();
    (s.ty, s.dims)
}

/// `(batch, n)` of a batch of square matrices.
fn square(dims: &[i64]) -> (usize, usize) {
    let r = dims.len();
    (
        dims[..r - 2].iter().product::<i64>() as usize,
        dims[r - 1] as usize,
    )
}

/// The op's flags, read from its IR: `(left_side, lower, unit_diagonal)` or Cholesky's lower.
fn flags(g: &Gen) -> (bool, bool, bool) {
    let c = (g.computation)();
    for ins in &c.instrs {
        match ins.op {
            xla_aot::core::Op::TriangularSolve {
                left_side,
                lower,
                unit_diagonal,
                ..
            } => return (left_side, lower, unit_diagonal),
            xla_aot::core::Op::Cholesky { lower } => return (true, lower, false),
            _ => {}
        }
    }
    panic!("{}: no linalg op", g.name)
}

fn chol_case(g: Gen, seed: u64) -> Case {
    let (ty, dims) = param(&g, 0);
    let (batch, n) = square(&dims);
    let a = spd(ty, batch, n, flags(&g).1, seed);
    Case::new(g, "spd", vec![literal(ty, &dims, &a)], tol(ty, n))
}

fn solve_case(g: Gen, seed: u64) -> Case {
    let (ty, adims) = param(&g, 0);
    let (_, bdims) = param(&g, 1);
    let (batch, n) = square(&adims);
    let (_, lower, unit) = flags(&g);
    let a = triangular(ty, batch, n, (lower, unit), seed);
    let len = bdims.iter().product::<i64>() as usize;
    let b = random(ty, len, seed + 99);
    let args = vec![literal(ty, &adims, &a), literal(ty, &bdims, &b)];
    Case::new(g, "tri", args, tol(ty, n))
}

#[test]
fn cholesky_matches_xla() {
    let gens = [
        gen!("chol/f32", chol_f32),
        gen!("chol/f32_upper", chol_f32_upper),
        gen!("chol/f32_1x1", chol_f32_1),
        gen!("chol/f32_130", chol_f32_big),
        gen!("chol/f32_130_upper", chol_f32_big_upper),
        gen!("chol/f32_batch", chol_f32_batch),
        gen!("chol/f64", chol_f64),
        gen!("chol/f64_upper_batch", chol_f64_upper),
        gen!("chol/c64_batch", chol_c64),
        gen!("chol/c64_upper", chol_c64_upper),
        gen!("chol/c64_70", chol_c64_big),
        gen!("chol/c128", chol_c128),
        gen!("chol/c128_upper_batch", chol_c128_upper),
    ];
    let mut cases: Vec<Case> = gens
        .into_iter()
        .enumerate()
        .map(|(i, g)| chol_case(g, i as u64 + 1))
        .collect();
    // Not positive definite: matrix 1 of the batch has a negative pivot at (2, 2); XLA gives
    // NaN for that whole matrix and the factor of matrix 0.
    let g = gen!("chol/f32_batch", chol_f32_batch);
    let mut a = spd(ElementType::F32, 2, 4, true, 50);
    a[16 + 2 * 4 + 2] = Complex::new(-30.0, 0.0);
    cases.push(Case::new(
        g,
        "not_positive_definite",
        vec![literal(ElementType::F32, &[2, 4, 4], &a)],
        tol(ElementType::F32, 4),
    ));
    // A zero matrix: the first pivot is 0, then 0 / 0 spreads NaN (not a NaN pivot of its own
    // in the first column): XLA's result, whatever it is, is ours.
    let g = gen!("chol/f64", chol_f64);
    cases.push(Case::new(
        g,
        "zeros",
        vec![literal(
            ElementType::F64,
            &[33, 33],
            &vec![Complex::new(0.0, 0.0); 33 * 33],
        )],
        Tol::Exact,
    ));
    // A complex diagonal with an imaginary part (not Hermitian): XLA divides the whole column,
    // diagonal included, by the real pivot.
    let g = gen!("chol/c64_upper", chol_c64_upper);
    let mut a = spd(ElementType::C64, 1, 3, false, 60);
    for i in 0..3 {
        a[i * 4].im = 0.5 + i as f64;
    }
    cases.push(Case::new(
        g,
        "complex_diagonal",
        vec![literal(ElementType::C64, &[3, 3], &a)],
        tol(ElementType::C64, 3),
    ));
    check_all("oracle_linalg/cholesky", cases);
}

#[test]
fn triangular_solve_matches_xla() {
    let mut gens = ts_f64::gens();
    gens.extend(ts_c64::gens());
    gens.extend(ts_f32::gens());
    gens.extend(ts_c128::gens());
    gens.push(gen!("ts/f32_1x1", ts_f32_1));
    gens.push(gen!("ts/f32_130", ts_f32_big));
    gens.push(gen!("ts/c64_100_batch", ts_c64_big));
    gens.push(gen!("ts/f64_batch", ts_f64_batch));
    let cases = gens
        .into_iter()
        .enumerate()
        .map(|(i, g)| solve_case(g, 100 + i as u64))
        .collect();
    check_all("oracle_linalg/triangular_solve", cases);
}

#[test]
fn least_squares_matches_xla() {
    let mut cases = Vec::new();
    for (g, seed) in [
        (gen!("lstsq/f64", lstsq_f64), 1),
        (gen!("lstsq/f32", lstsq_f32), 2),
    ] {
        let (ty, ad) = param(&g, 0);
        let (_, bd) = param(&g, 1);
        let a = random(ty, (ad[0] * ad[1]) as usize, seed);
        let b = random(ty, (bd[0] * bd[1]) as usize, seed + 5);
        let n = ad[0] as usize;
        // The normal equations square the condition number of `a` (a tall random matrix:
        // about 2-3), so the bound is the product's.
        cases.push(Case::new(
            g,
            "random",
            vec![literal(ty, &ad, &a), literal(ty, &bd, &b)],
            tol(ty, 4 * n),
        ));
    }
    check_all("oracle_linalg/least_squares", cases);
}
