use super::*;

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Values with occasional NaN, ±0, ±inf when `specials`.
fn data(n: usize, seed: u64, specials: bool) -> Vec<f32> {
    let mut r = rng(seed);
    (0..n)
        .map(|_| {
            let k = r() % 64;
            if specials && k == 0 {
                [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY][(r() % 5) as usize]
            } else {
                ((r() % 2001) as f32 - 1000.0) / 64.0
            }
        })
        .collect()
}

/// XLA max/min written out: NaN propagates, otherwise the larger (smaller), +0 > -0.
fn max_ref(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b || (a == b && b.is_sign_negative()) {
        a
    } else {
        b
    }
}
fn min_ref(a: f64, b: f64) -> f64 {
    -max_ref(-a, -b)
}

/// For each output, the reduced elements (flat indices in row-major order): the definition.
fn groups(dims: &[usize], reduce_dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    let out_n: usize = (0..dims.len())
        .filter(|d| !reduce_dims.contains(d))
        .map(|d| dims[d])
        .product();
    let mut g = vec![vec![]; out_n];
    for flat in 0..n {
        let (mut rest, mut o) = (flat, 0);
        let mut idx = vec![0; dims.len()];
        for d in (0..dims.len()).rev() {
            idx[d] = rest % dims[d];
            rest /= dims[d];
        }
        for d in 0..dims.len() {
            if !reduce_dims.contains(&d) {
                o = o * dims[d] + idx[d];
            }
        }
        g[o].push(flat);
    }
    g
}

fn check_fast(dims: &[usize], reduce_dims: &[usize], seed: u64) {
    let n: usize = dims.iter().product();
    let x = data(n, seed, true);
    let g = groups(dims, reduce_dims);
    for (op, init) in [
        (ReduceOp::Sum, 0.5f32),
        (ReduceOp::Max, f32::NEG_INFINITY),
        (ReduceOp::Min, 3.0),
    ] {
        let mut out = vec![f32::NAN; g.len()];
        reduce_fast(&x, dims, reduce_dims, op, init, &mut out).unwrap();
        let mut out64 = vec![f64::NAN; g.len()];
        let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        reduce_fast(&x64, dims, reduce_dims, op, init as f64, &mut out64).unwrap();
        for (o, members) in g.iter().enumerate() {
            let vals = members.iter().map(|&i| x[i] as f64);
            let (want, tol) = match op {
                ReduceOp::Sum => {
                    let s = vals.clone().fold(init as f64, |a, b| a + b);
                    let mag: f64 = vals.map(f64::abs).sum::<f64>() + init.abs() as f64;
                    (s, mag * 1e-6)
                }
                ReduceOp::Max => (vals.fold(init as f64, max_ref), 0.0),
                ReduceOp::Min => (vals.fold(init as f64, min_ref), 0.0),
            };
            for (got, name) in [(out[o] as f64, "f32"), (out64[o], "f64")] {
                let ok = if want.is_nan() {
                    got.is_nan()
                } else if tol == 0.0 {
                    got.to_bits() == want.to_bits() || (got == want && op == ReduceOp::Sum)
                } else {
                    (got - want).abs() <= tol || got == want
                };
                assert!(ok, "{name} {op:?} dims {dims:?} reduce {reduce_dims:?} out {o}: got {got} want {want}");
            }
        }
    }
}

fn subsets(rank: usize) -> Vec<Vec<usize>> {
    (0..1u32 << rank)
        .map(|m| (0..rank).filter(|&d| m >> d & 1 == 1).collect())
        .collect()
}

#[test]
fn every_subset_of_dims_for_small_shapes() {
    for dims in [
        vec![],
        vec![0],
        vec![1],
        vec![7],
        vec![3, 5],
        vec![1, 9],
        vec![4, 0, 3],
        vec![3, 4, 5],
        vec![2, 1, 3, 5],
        vec![3, 2, 4, 6],
    ] {
        for rd in subsets(dims.len()) {
            check_fast(&dims, &rd, dims.len() as u64 * 31 + rd.len() as u64);
        }
    }
}

#[test]
fn sizes_around_the_blocks() {
    for cols in [8191usize, 8192, 8193, 3 * 8192 + 5] {
        check_fast(&[3, cols], &[1], cols as u64);
        check_fast(&[cols], &[0], cols as u64 + 1);
    }
    for cols in [1usize, 7, 1023, 1024, 1025, 2047, 2048, 2049, 4097] {
        check_fast(&[37, cols], &[0], cols as u64);
        check_fast(&[2, 9, cols], &[1], cols as u64);
    }
    for rows in [255usize, 256, 257, 3 * 256 + 1] {
        check_fast(&[rows, 19], &[0], rows as u64);
        check_fast(&[2, rows, 9], &[1], rows as u64);
    }
    // Not rows nor columns: transposed first.
    check_fast(&[5, 6, 7, 8], &[0, 2], 1);
    check_fast(&[5, 6, 7, 8], &[1, 3], 2);
}

#[test]
fn bits_do_not_depend_on_the_thread_count() {
    let pool = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
    };
    let cases: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![1 << 20], vec![0]),
        (vec![3, 100_000], vec![1]),
        (vec![300, 2500], vec![0]),
        (vec![400, 3, 50], vec![1]),
        (vec![20, 30, 60], vec![0, 2]),
        (vec![512, 512], vec![0, 1]),
    ];
    for (dims, rd) in cases {
        let x = data(dims.iter().product(), 5, false);
        let out_n: usize = (0..dims.len())
            .filter(|d| !rd.contains(d))
            .map(|d| dims[d])
            .product();
        let run = |t: usize| {
            pool(t).install(|| {
                let mut o = vec![f32::NAN; out_n];
                reduce_fast(&x, &dims, &rd, ReduceOp::Sum, 0.0, &mut o).unwrap();
                o.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            })
        };
        assert_eq!(run(1), run(2), "dims {dims:?} reduce {rd:?}");
    }
}

#[test]
fn generic_reduce_is_the_sequential_fold() {
    let mut r = rng(3);
    for (dims, rd) in [
        (vec![4usize, 5, 6], vec![1usize]),
        (vec![4, 5, 6], vec![0, 2]),
        (vec![300, 200], vec![1]),
        (vec![3, 0], vec![1]),
        (vec![], vec![]),
    ] {
        let n: usize = dims.iter().product();
        let xi: Vec<i32> = (0..n).map(|_| r() as i32).collect();
        let xh: Vec<half::f16> = (0..n)
            .map(|_| half::f16::from_f32((r() % 100) as f32 / 8.0))
            .collect();
        let g = groups(&dims, &rd);
        let mut oi = vec![0i32; g.len()];
        reduce(
            &xi,
            &dims,
            &rd,
            7,
            |a, b| a.wrapping_mul(3).wrapping_add(b),
            &mut oi,
        )
        .unwrap();
        let mut oh = vec![half::f16::NAN; g.len()];
        reduce(&xh, &dims, &rd, half::f16::ZERO, |a, b| a + b, &mut oh).unwrap();
        for (o, m) in g.iter().enumerate() {
            // A non-associative combiner: only the exact index order matches.
            assert_eq!(
                oi[o],
                m.iter()
                    .fold(7i32, |a, &i| a.wrapping_mul(3).wrapping_add(xi[i]))
            );
            assert_eq!(
                oh[o].to_bits(),
                m.iter().fold(half::f16::ZERO, |a, &i| a + xh[i]).to_bits()
            );
        }
    }
}

#[test]
fn variadic_argmax() {
    let (rows, n) = (500usize, 300usize);
    let x = data(rows * n, 9, true);
    // XLA-style argmax: larger value wins, NaN wins, ties to the lower index.
    let pick = |a: (f32, i32), b: (f32, i32)| {
        let b_wins = if a.0.is_nan() {
            false
        } else if b.0.is_nan() {
            true
        } else {
            b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
        };
        if b_wins {
            b
        } else {
            a
        }
    };
    let mut out = vec![(f32::NAN, -1); rows];
    reduce_indexed(
        &[rows, n],
        &[1],
        (f32::NEG_INFINITY, i32::MAX),
        |i| (x[i], (i % n) as i32),
        pick,
        &mut out,
    )
    .unwrap();
    for (r, &(v, i)) in out.iter().enumerate() {
        let row = &x[r * n..][..n];
        let want = row
            .iter()
            .enumerate()
            .fold((f32::NEG_INFINITY, i32::MAX), |a, (j, &y)| {
                pick(a, (y, j as i32))
            });
        assert_eq!((v.to_bits(), i), (want.0.to_bits(), want.1), "row {r}");
    }
}

#[test]
fn bad_arguments_are_errors() {
    let x = vec![1.0f32; 6];
    let mut o = vec![0f32; 2];
    for rd in [vec![2usize], vec![1, 1]] {
        let e = reduce_fast(&x, &[2, 3], &rd, ReduceOp::Sum, 0.0, &mut o).unwrap_err();
        assert!(
            e.to_string().contains("must be distinct dims of [2, 3]"),
            "{e}"
        );
    }
    let e = reduce_fast(&x, &[2, 3], &[1], ReduceOp::Sum, 0.0, &mut o[..1]).unwrap_err();
    assert_eq!(
        e,
        KernelError::BufferLength {
            op: "reduce",
            operand: "dst",
            expected: 2,
            actual: 1
        }
    );
    let e = reduce(&x, &[2, 4], &[1], 0.0, |a, b| a + b, &mut o).unwrap_err();
    assert_eq!(
        e,
        KernelError::BufferLength {
            op: "reduce",
            operand: "src",
            expected: 8,
            actual: 6
        }
    );
    assert!(reduce_indexed(&[1; 9], &[], 0, |i| i, |a, b| a + b, &mut [0]).is_err());
}

/// The reference evaluator of xla-core (Reduce with add / max / min) agrees: exactly for max
/// and min, within rounding for sums (the association order differs).
#[test]
fn matches_the_xla_core_evaluator() {
    use std::sync::Arc;
    use xla_core::builder::Builder;
    use xla_core::{BinaryOp, ElementType, Literal, Shape};
    let reducer = |op: BinaryOp| {
        let mut b = Builder::new("r");
        let s = Shape::scalar(ElementType::F32);
        let x = b.parameter(0, s.clone(), "a").unwrap();
        let y = b.parameter(1, s, "b").unwrap();
        let r = b.binary(op, x, y, None).unwrap();
        Arc::new(b.build(r).unwrap())
    };
    for (dims, rd) in [
        (vec![6usize, 50], vec![1usize]),
        (vec![60, 5], vec![0]),
        (vec![3, 4, 5, 6], vec![0, 2]),
        (vec![3, 4, 5], vec![0, 1, 2]),
        (vec![7, 9], vec![]),
    ] {
        let n: usize = dims.iter().product();
        let x = data(n, n as u64, true);
        let d64: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let r64: Vec<i64> = rd.iter().map(|&d| d as i64).collect();
        let out_n: usize = (0..dims.len())
            .filter(|d| !rd.contains(d))
            .map(|d| dims[d])
            .product();
        for (op, bop, init) in [
            (ReduceOp::Sum, BinaryOp::Add, 0.0f32),
            (ReduceOp::Max, BinaryOp::Max, f32::NEG_INFINITY),
            (ReduceOp::Min, BinaryOp::Min, f32::INFINITY),
        ] {
            let mut b = Builder::new("t");
            let p = b
                .parameter(0, Shape::array(ElementType::F32, &d64), "x")
                .unwrap();
            let i = b
                .parameter(1, Shape::scalar(ElementType::F32), "init")
                .unwrap();
            let r = b.reduce(&[p], &[i], &reducer(bop), &r64).unwrap();
            let c = b.build(r).unwrap();
            let args = [
                Literal::from_vec(&d64, x.clone()).unwrap(),
                Literal::scalar(init),
            ];
            let want = xla_core::eval::evaluate(&c, &args).unwrap();
            let want = want.as_slice::<f32>().unwrap();
            let mut got = vec![f32::NAN; out_n];
            reduce_fast(&x, &dims, &rd, op, init, &mut got).unwrap();
            for (g, w) in got.iter().zip(want) {
                let ok = if w.is_nan() {
                    g.is_nan()
                } else if op == ReduceOp::Sum {
                    (g - w).abs() <= 1e-4 * w.abs().max(1.0) || g == w
                } else {
                    g.to_bits() == w.to_bits()
                };
                assert!(ok, "{op:?} dims {dims:?} reduce {rd:?}: got {g} want {w}");
            }
        }
    }
}

// ---- The 2-D entry points (reduce_rows / reduce_cols).

use xla_core::scalar::Scalar;

fn data2d(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 1013) as f32 * 0.01 - 5.0 + 1.0 / (i + 1) as f32)
        .collect()
}

fn with_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("pool")
        .install(f)
}

#[test]
fn rows_and_cols_match_a_naive_loop() {
    for &(rows, cols) in &[
        (1usize, 1usize),
        (3, 7),
        (5, 31),
        (2, 33),
        (17, 64),
        (300, 129),
        (257, 2049),
        (1, 100_003),
        (40_000, 3),
    ] {
        let x = data2d(rows * cols);
        let mut r = vec![f32::NAN; rows];
        let mut c = vec![f32::NAN; cols];
        sum_rows_f32(&x, rows, cols, &mut r).unwrap();
        sum_cols_f32(&x, rows, cols, &mut c).unwrap();
        for (i, &got) in r.iter().enumerate() {
            let row = &x[i * cols..(i + 1) * cols];
            let want: f64 = row.iter().map(|&v| v as f64).sum();
            let mag: f64 = row.iter().map(|&v| v.abs() as f64).sum();
            assert!(
                (got as f64 - want).abs() <= 1e-6 * mag * (cols as f64).log2().max(1.0),
                "row {i}: {got} vs {want}"
            );
        }
        for (j, &got) in c.iter().enumerate() {
            // Any fixed order: within the forward-error bound of a sum of `rows` terms.
            let col = (0..rows).map(|i| x[i * cols + j]);
            let want: f64 = col.clone().map(|v| v as f64).sum();
            let mag: f64 = col.map(|v| v.abs() as f64).sum();
            assert!(
                (got as f64 - want).abs() <= 1e-6 * mag * (rows as f64).log2().max(1.0),
                "col {j} of {rows}x{cols}: {got} vs {want}"
            );
        }
        let mut mx = vec![0.0f32; rows];
        reduce_rows(ReduceOp::Max, &x, rows, cols, &mut mx).unwrap();
        let mut mn = vec![0.0f32; cols];
        reduce_cols(ReduceOp::Min, &x, rows, cols, &mut mn).unwrap();
        for (i, &got) in mx.iter().enumerate() {
            let want = x[i * cols..(i + 1) * cols]
                .iter()
                .fold(f32::NEG_INFINITY, |m, &v| <f32 as Scalar>::max(m, v));
            assert_eq!(got, want);
        }
        for (j, &got) in mn.iter().enumerate() {
            let want = (0..rows).fold(f32::INFINITY, |m, i| {
                <f32 as Scalar>::min(m, x[i * cols + j])
            });
            assert_eq!(got, want);
        }
    }
}

#[test]
fn nan_and_signed_zero_follow_xla() {
    let x = [1.0f64, f64::NAN, 3.0, -0.0, 0.0, -0.0, 2.0, -1.0, -0.0];
    let mut out = [0.0f64; 3];
    reduce_rows(ReduceOp::Max, &x, 3, 3, &mut out).unwrap();
    assert!(out[0].is_nan());
    assert_eq!(out[1].to_bits(), 0.0f64.to_bits());
    assert_eq!(out[2], 2.0);
    reduce_rows(ReduceOp::Min, &x, 3, 3, &mut out).unwrap();
    assert!(out[0].is_nan());
    assert_eq!(out[1].to_bits(), (-0.0f64).to_bits());
    let mut e = [7.0f64; 2];
    reduce_rows(ReduceOp::Max, &[], 2, 0, &mut e).unwrap();
    assert_eq!(e, [f64::NEG_INFINITY; 2]);
    reduce_cols(ReduceOp::Sum, &[], 0, 2, &mut e).unwrap();
    assert_eq!(e, [0.0; 2]);
}

#[test]
fn identical_bits_on_one_and_two_threads() {
    for &(rows, cols) in &[(1000usize, 1000usize), (3, 200_000), (200_000, 5)] {
        let x = data2d(rows * cols);
        let run = |t| {
            with_threads(t, || {
                let mut r = vec![0.0f32; rows];
                let mut c = vec![0.0f32; cols];
                sum_rows_f32(&x, rows, cols, &mut r).unwrap();
                sum_cols_f32(&x, rows, cols, &mut c).unwrap();
                (r, c)
            })
        };
        let (a, b) = (run(1), run(2));
        assert!(a
            .0
            .iter()
            .zip(&b.0)
            .all(|(p, q)| p.to_bits() == q.to_bits()));
        assert!(a
            .1
            .iter()
            .zip(&b.1)
            .all(|(p, q)| p.to_bits() == q.to_bits()));
    }
}

#[test]
fn bad_sizes_are_errors() {
    let x = data2d(24);
    let mut out = vec![0.0f32; 6];
    assert!(sum_rows_f32(&x, 6, 4, &mut out).is_ok());
    let e = sum_rows_f32(&x[..23], 6, 4, &mut out).unwrap_err();
    assert_eq!(
        e.to_string(),
        "reduce: buffer `src` has 23 elements but its shape holds 24"
    );
    assert!(sum_rows_f32(&x, 6, 4, &mut out[..5]).is_err());
    assert!(sum_cols_f32(&x, 6, 4, &mut out).is_err());
    assert!(sum_rows_f32(&x, usize::MAX, 2, &mut out).is_err());
}
