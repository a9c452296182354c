//! The linalg rows of `benches/kernels.rs` (a module of it): Cholesky f32[1024,1024], batched Cholesky
//! f32[256,32,32], TriangularSolve f32[1024,1024] x f32[1024,256] (left, lower), each against
//! `stablehlo.cholesky` / `stablehlo.triangular_solve` compiled by XLA:CPU (its
//! CholeskyExpander and TriangularSolveExpander).

use super::{data, lit, Bench, Work};
use xla_aot::__rt::xla_kernels::gemm::{gemm, GemmDesc, GemmScratch};
use xla_aot::__rt::xla_kernels::linalg::{cholesky, triangular_solve, LinalgScratch, Transpose};

/// `batch` symmetric positive-definite `n x n` matrices `m m^T + n I` (condition about 2).
fn spd(batch: usize, n: usize, seed: u64) -> Vec<f32> {
    let m = data(seed, batch * n * n);
    let mut a = vec![0.0f32; batch * n * n];
    let nn = (n * n) as isize;
    let d = GemmDesc::from_strides(
        batch,
        n,
        n,
        n,
        [nn, n as isize, 1],
        [nn, 1, n as isize],
        [nn, n as isize, 1],
    );
    gemm(&d, &m, &m, &mut a, &mut GemmScratch::new()).expect("m m^T");
    for b in 0..batch {
        for i in 0..n {
            a[b * n * n + i * n + i] += n as f32;
        }
    }
    a
}

fn chol_mlir(dims: &str) -> String {
    let t = format!("tensor<{dims}xf32>");
    format!(
        "func.func public @main(%a: {t}) -> {t} {{\n  \
         %0 = \"stablehlo.cholesky\"(%a) {{lower = true}} : ({t}) -> {t}\n  \
         return %0 : {t}\n}}\n"
    )
}

pub(super) fn linalg_rows(b: &mut Bench) {
    // Both sides are backward stable on inputs of condition about 2: within 2 n eps.
    let tol = |n: usize| 2.0 * n as f64 * f64::from(f32::EPSILON);
    for (name, batch, n) in [
        ("cholesky", 1usize, 1024usize),
        ("cholesky batched", 256, 32),
    ] {
        if !b.wants(name) {
            continue;
        }
        let a = spd(batch, n, 61);
        let dims = if batch == 1 {
            vec![n, n]
        } else {
            vec![batch, n, n]
        };
        let shape = dims
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("x");
        let args = [lit(&dims, a.clone())];
        let mut out = vec![0.0f32; a.len()];
        let mut s = LinalgScratch::new();
        cholesky(&a, &mut out, batch, n, true, &mut s).expect("valid cholesky");
        let res: Vec<f64> = out.iter().map(|&v| v as f64).collect();
        let mut run = || cholesky(&a, &mut out, batch, n, true, &mut s).expect("valid cholesky");
        let label = format!("f32[{}]", shape.replace('x', ","));
        let flops = batch as f64 * (n as f64).powi(3) / 3.0;
        b.row(
            name,
            &label,
            "f32",
            &chol_mlir(&shape),
            &args,
            tol(n),
            &mut || res.clone(),
            &mut run,
            Work::Flops(flops),
        );
    }
    if b.wants("triangular_solve") {
        let (m, k) = (1024usize, 256usize);
        let r = data(62, m * m);
        let a: Vec<f32> = (0..m * m)
            .map(|p| {
                let (i, j) = (p / m, p % m);
                if i == j {
                    2.0 + r[p].abs()
                } else if i > j {
                    r[p] / m as f32
                } else {
                    1e3
                }
            })
            .collect();
        let x = data(63, m * k);
        let args = [lit(&[m, m], a.clone()), lit(&[m, k], x.clone())];
        let mut out = vec![0.0f32; m * k];
        let mut s = LinalgScratch::new();
        let flags = (true, true, false);
        triangular_solve(&a, &x, &mut out, (1, m, k), flags, Transpose::No, &mut s)
            .expect("valid solve");
        let res: Vec<f64> = out.iter().map(|&v| v as f64).collect();
        let mut run = || {
            triangular_solve(&a, &x, &mut out, (1, m, k), flags, Transpose::No, &mut s)
                .expect("valid solve")
        };
        let (ta, tb) = (
            format!("tensor<{m}x{m}xf32>"),
            format!("tensor<{m}x{k}xf32>"),
        );
        let mlir = format!(
            "func.func public @main(%a: {ta}, %b: {tb}) -> {tb} {{\n  \
             %0 = \"stablehlo.triangular_solve\"(%a, %b) {{left_side = true, lower = true, \
             transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}} : ({ta}, {tb}) -> {tb}\n  \
             return %0 : {tb}\n}}\n"
        );
        let flops = (m * m * k) as f64;
        b.row(
            "triangular_solve",
            "f32[1024,1024] x f32[1024,256] left lower",
            "f32",
            &mlir,
            &args,
            tol(m),
            &mut || res.clone(),
            &mut run,
            Work::Flops(flops),
        );
    }
}
