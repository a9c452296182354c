//! The kernels against textbook substitution in f64 on random well-conditioned systems.

use num_complex::Complex;

use super::*;

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

/// `m m^T + n I` for a random `m`: symmetric positive definite, condition number small.
fn spd(n: usize, seed: u64) -> Vec<f64> {
    let m = values(n * n, seed);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = (0..n).map(|k| m[i * n + k] * m[j * n + k]).sum::<f64>();
        }
        a[i * n + i] += n as f64;
    }
    a
}

fn max_diff(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

#[test]
fn cholesky_reconstructs_a_and_zeroes_the_other_triangle() {
    for n in [1, 5, 63, 64, 65, 150] {
        for lower in [true, false] {
            let a = spd(n, n as u64);
            let mut l = vec![0.0; n * n];
            cholesky(&a, &mut l, 1, n, lower, &mut LinalgScratch::new()).unwrap();
            let mut r = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    r[i * n + j] = (0..n)
                        .map(|k| {
                            if lower {
                                l[i * n + k] * l[j * n + k]
                            } else {
                                l[k * n + i] * l[k * n + j]
                            }
                        })
                        .sum();
                    let zero = if lower { j > i } else { j < i };
                    assert!(
                        !zero || l[i * n + j] == 0.0,
                        "n {n} lower {lower}: ({i}, {j})"
                    );
                }
            }
            assert!(max_diff(&r, &a) < 1e-10 * n as f64, "n {n} lower {lower}");
        }
    }
}

#[test]
fn cholesky_of_a_non_positive_definite_matrix_is_nan_alone_in_its_batch() {
    let n = 70;
    let mut a = spd(n, 1);
    a.extend(spd(n, 2));
    a[n * n + 69 * n + 69] = -1e6;
    let mut l = vec![0.0; 2 * n * n];
    cholesky(&a, &mut l, 2, n, true, &mut LinalgScratch::new()).unwrap();
    assert!(l[..n * n].iter().all(|x| x.is_finite()));
    assert!(l[n * n..].iter().all(|x| x.is_nan()));
}

/// `op(a) x` (left) or `x op(a)` (right) for the triangle of `a` the solve reads.
fn apply(a: &[f64], x: &[f64], m: usize, k: usize, flags: (bool, bool, bool), t: bool) -> Vec<f64> {
    let (left, lower, unit) = flags;
    let op = |i: usize, j: usize| {
        let (r, c) = if t { (j, i) } else { (i, j) };
        if r == c && unit {
            1.0
        } else if (lower && r >= c) || (!lower && r <= c) {
            a[r * m + c]
        } else {
            0.0
        }
    };
    let mut out = vec![0.0; m * k];
    for i in 0..if left { m } else { k } {
        for j in 0..if left { k } else { m } {
            out[i * if left { k } else { m } + j] = if left {
                (0..m).map(|p| op(i, p) * x[p * k + j]).sum()
            } else {
                (0..m).map(|p| x[i * m + p] * op(p, j)).sum()
            };
        }
    }
    out
}

#[test]
fn triangular_solve_every_form() {
    for (m, k) in [(1, 1), (7, 3), (64, 5), (130, 9)] {
        let mut a = values(m * m, 3);
        for i in 0..m {
            a[i * m + i] = 2.0 + a[i * m + i].abs();
        }
        for v in a.iter_mut() {
            *v /= 1.0 + (m as f64).sqrt();
        }
        let b = values(m * k, 4);
        for flags in (0..8).map(|f| (f & 1 != 0, f & 2 != 0, f & 4 != 0)) {
            for t in [Transpose::No, Transpose::Transpose, Transpose::Adjoint] {
                let mut x = vec![0.0; m * k];
                let s = &mut LinalgScratch::new();
                triangular_solve(&a, &b, &mut x, (1, m, k), flags, t, s).unwrap();
                let back = apply(&a, &x, m, k, flags, t != Transpose::No);
                assert!(max_diff(&back, &b) < 1e-12, "{m}x{k} {flags:?} {t:?}");
            }
        }
    }
}

#[test]
fn complex_adjoint_solve_conjugates() {
    let m = 3;
    // a = [[2, 0, 0], [i, 2, 0], [1, 1 - i, 2]] lower; a^H x = b.
    let c = |re, im| Complex::new(re, im);
    let a = vec![
        c(2., 0.),
        c(9., 9.),
        c(9., 9.),
        c(0., 1.),
        c(2., 0.),
        c(9., 9.),
        c(1., 0.),
        c(1., -1.),
        c(2., 0.),
    ];
    let x = vec![c(1., 2.), c(-1., 0.5), c(0.25, -1.)];
    // b = a^H x.
    let b: Vec<Complex<f64>> = (0..m)
        .map(|i| (i..m).map(|p| a[p * m + i].conj() * x[p]).sum())
        .collect();
    let mut got = vec![c(0., 0.); m];
    let s = &mut LinalgScratch::new();
    triangular_solve(
        &a,
        &b,
        &mut got,
        (1, m, 1),
        (true, true, false),
        Transpose::Adjoint,
        s,
    )
    .unwrap();
    for (g, w) in got.iter().zip(&x) {
        assert!((g - w).norm() < 1e-14, "{got:?}");
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let (batch, n, k) = (3, 150, 40);
    let a: Vec<f32> = (0..batch)
        .flat_map(|b| spd(n, 10 + b as u64))
        .map(|x| x as f32)
        .collect();
    let b: Vec<f32> = values(batch * n * k, 5)
        .into_iter()
        .map(|x| x as f32)
        .collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut l = vec![0f32; a.len()];
            let mut x = vec![0f32; b.len()];
            let s = &mut LinalgScratch::new();
            cholesky(&a, &mut l, batch, n, true, s).unwrap();
            let flags = (true, true, false);
            triangular_solve(&l, &b, &mut x, (batch, n, k), flags, Transpose::Adjoint, s).unwrap();
            (l, x)
        })
    };
    let (l1, x1) = run(1);
    for threads in [2, 3, 4] {
        let (l, x) = run(threads);
        assert!(
            l.iter().zip(&l1).all(|(p, q)| p.to_bits() == q.to_bits()),
            "{threads} threads"
        );
        assert!(
            x.iter().zip(&x1).all(|(p, q)| p.to_bits() == q.to_bits()),
            "{threads} threads"
        );
    }
}
