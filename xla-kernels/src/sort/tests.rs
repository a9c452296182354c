use super::*;
use half::{bf16, f16};
use std::cmp::Ordering;

/// A deterministic pseudo-random stream (xorshift).
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// f32 values heavy in special cases: ±NaN with payloads, ±Inf, ±0, subnormals, duplicates.
fn nasty_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut r = rng(seed);
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc0_1234),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
    ];
    (0..n)
        .map(|_| match r() % 4 {
            0 => specials[(r() % specials.len() as u64) as usize],
            1 => ((r() % 20) as f32 - 10.0) * 0.5,
            _ => f32::from_bits(r() as u32),
        })
        .collect()
}

fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Sorts each row along `dimension` with std's stable `sort_by` under `cmp` (the definition).
fn naive_sort<T: Copy>(
    data: &[T],
    dims: &[usize],
    dimension: usize,
    cmp: impl Fn(&T, &T) -> Ordering,
) -> Vec<T> {
    let n = dims[dimension];
    let inner: usize = dims[dimension + 1..].iter().product();
    let mut out = data.to_vec();
    if n == 0 {
        return out;
    }
    for slab in out.chunks_mut(n * inner) {
        for i in 0..inner {
            let mut row: Vec<T> = (0..n).map(|k| slab[i + k * inner]).collect();
            row.sort_by(&cmp);
            (0..n).for_each(|k| slab[i + k * inner] = row[k]);
        }
    }
    out
}

#[test]
fn f32_rows_in_total_order_for_every_size() {
    for &n in &[0usize, 1, 2, 3, 17, 255, 256, 257, 1000, 4099] {
        let v = nasty_f32(n, n as u64 + 1);
        for order in [Order::Ascending, Order::Descending] {
            let mut got = v.clone();
            sort(&mut got, &[n], 0, order).unwrap();
            let want = match order {
                Order::Ascending => naive_sort(&v, &[n], 0, |a, b| a.total_cmp(b)),
                Order::Descending => naive_sort(&v, &[n], 0, |a, b| b.total_cmp(a)),
            };
            assert_eq!(bits32(&got), bits32(&want), "n={n} {order:?}");
        }
    }
}

#[test]
fn any_dimension_of_rank_3() {
    let dims = [5usize, 300, 3];
    let v = nasty_f32(dims.iter().product(), 7);
    for d in 0..3 {
        let mut got = v.clone();
        sort(&mut got, &dims, d, Order::Ascending).unwrap();
        assert_eq!(
            bits32(&got),
            bits32(&naive_sort(&v, &dims, d, |a, b| a.total_cmp(b))),
            "dim {d}"
        );
        sort::<f32>(&mut [], &[3, 0, 4], d, Order::Ascending).unwrap();
    }
    let w: Vec<f64> = nasty_f32(4 * 9 * 600, 3)
        .iter()
        .map(|&x| x as f64)
        .collect();
    for d in 0..3 {
        let mut got = w.clone();
        sort(&mut got, &[4, 9, 600], d, Order::Descending).unwrap();
        let want = naive_sort(&w, &[4, 9, 600], d, |a, b| b.total_cmp(a));
        assert!(
            got.iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "f64 dim {d}"
        );
    }
}

fn check_ints<T: SortKey + Ord + std::fmt::Debug>(make: impl Fn(u64) -> T) {
    let mut r = rng(99);
    for &n in &[0usize, 1, 5, 300, 2000] {
        let v: Vec<T> = (0..n).map(|_| make(r())).collect();
        let mut got = v.clone();
        sort(&mut got, &[n], 0, Order::Ascending).unwrap();
        let mut want = v.clone();
        want.sort();
        assert_eq!(got, want, "n={n}");
    }
}

#[test]
fn integers_and_bool() {
    check_ints(|x| x as i8);
    check_ints(|x| x as u8);
    check_ints(|x| x as i16);
    check_ints(|x| (x as i16 % 5) as u16);
    check_ints(|x| x as i32);
    check_ints(|x| x as u32);
    check_ints(|x| x as i64);
    check_ints(|x| x);
    check_ints(|x| x % 3 == 0);
}

#[test]
fn half_keys_are_the_total_order_on_every_bit_pattern() {
    // Every f16 / bf16: the key round-trips, and the sorted sequence is ordered by the f32 total
    // order of the widened values (widening keeps the sign and the NaN payload order).
    let all: Vec<u16> = (0..=u16::MAX).collect();
    for &b in &all {
        assert_eq!(f16::from_key(f16::from_bits(b).to_key()).to_bits(), b);
        assert_eq!(bf16::from_key(bf16::from_bits(b).to_key()).to_bits(), b);
    }
    // The reference order: the signed integer `bits ^ ((bits as i16 >> 15) as u16 >> 1)`
    // (XLA's total-order key), and for non-NaNs also the widened f32 values.
    let total = |b: u16| (b ^ (((b as i16) >> 15) as u16 >> 1)) as i16;
    let mut want = all.clone();
    want.sort_by_key(|&b| total(b));
    let mut f: Vec<f16> = all.iter().map(|&b| f16::from_bits(b)).collect();
    sort(&mut f, &[65536], 0, Order::Ascending).unwrap();
    assert_eq!(f.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), want);
    let nn: Vec<f32> = f
        .iter()
        .filter(|x| !x.is_nan())
        .map(|x| x.to_f32())
        .collect();
    assert!(nn
        .windows(2)
        .all(|w| w[0].total_cmp(&w[1]) == Ordering::Less));
    let mut g: Vec<bf16> = all.iter().map(|&b| bf16::from_bits(b)).collect();
    sort(&mut g, &[65536], 0, Order::Descending).unwrap();
    want.reverse();
    assert_eq!(g.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), want);
    assert_eq!(g.len(), 65536);
}

#[test]
fn f32_and_f64_keys_round_trip_and_preserve_total_order() {
    let v = nasty_f32(20_000, 5);
    for w in v.windows(2) {
        assert_eq!(f32::from_key(w[0].to_key()).to_bits(), w[0].to_bits());
        assert_eq!(w[0].to_key().cmp(&w[1].to_key()), w[0].total_cmp(&w[1]));
        let (a, b) = (w[0] as f64, w[1] as f64);
        assert_eq!(f64::from_key(a.to_key()).to_bits(), a.to_bits());
        assert_eq!(a.to_key().cmp(&b.to_key()), a.total_cmp(&b));
    }
}

#[test]
fn permutation_is_stable_and_carries_payloads() {
    let mut r = rng(11);
    for &(dims, d) in &[
        (&[1000usize][..], 0usize),
        (&[3, 700, 2][..], 1),
        (&[40, 9][..], 1),
        (&[9, 40][..], 0),
        (&[0, 5][..], 1),
    ] {
        let total: usize = dims.iter().product();
        // Few distinct keys: many ties to test stability.
        let keys: Vec<f32> = (0..total)
            .map(|_| [0.0, -0.0, 1.0, f32::NAN][(r() % 4) as usize])
            .collect();
        let payload: Vec<u64> = (0..total as u64).map(|i| i * 3 + 1).collect();
        for order in [Order::Ascending, Order::Descending] {
            let mut perm = vec![u32::MAX; total];
            sort_permutation(&keys, dims, d, order, &mut perm).unwrap();
            let (mut sk, mut sp) = (vec![f32::NAN; total], vec![0u64; total]);
            apply_permutation(&keys, dims, d, &perm, &mut sk).unwrap();
            apply_permutation(&payload, dims, d, &perm, &mut sp).unwrap();
            // The definition: stable sort of (key, payload) pairs by key.
            let pairs: Vec<(f32, u64)> =
                keys.iter().copied().zip(payload.iter().copied()).collect();
            let want = naive_sort(&pairs, dims, d, |a, b| match order {
                Order::Ascending => a.0.total_cmp(&b.0),
                Order::Descending => b.0.total_cmp(&a.0),
            });
            assert_eq!(
                bits32(&sk),
                want.iter().map(|p| p.0.to_bits()).collect::<Vec<_>>(),
                "{dims:?} {order:?}"
            );
            assert_eq!(
                sp,
                want.iter().map(|p| p.1).collect::<Vec<_>>(),
                "{dims:?} {order:?}"
            );
        }
    }
}

#[test]
fn comparator_sort_over_two_operands() {
    let mut r = rng(21);
    for &(n, rows) in &[
        (0usize, 3usize),
        (1, 2),
        (15, 3),
        (16, 1),
        (17, 2),
        (100, 4),
        (1000, 40),
    ] {
        let a: Vec<i32> = (0..n * rows).map(|_| (r() % 5) as i32).collect();
        let b: Vec<f32> = (0..n * rows).map(|_| (r() % 7) as f32 - 3.0).collect();
        // Lexicographic: a ascending, then b descending; ties stay in order.
        let less = |x: usize, y: usize| a[x] < a[y] || (a[x] == a[y] && b[x] > b[y]);
        let mut perm = vec![u32::MAX; n * rows];
        sort_permutation_by(&[rows, n], 1, true, less, &mut perm).unwrap();
        for row in 0..rows {
            let mut want: Vec<u32> = (0..n as u32).collect();
            let f = |j: u32| row * n + j as usize;
            want.sort_by(|&x, &y| a[f(x)].cmp(&a[f(y)]).then(b[f(y)].total_cmp(&b[f(x)])));
            assert_eq!(&perm[row * n..(row + 1) * n], &want[..], "n={n} row={row}");
        }
    }
}

#[test]
fn inconsistent_comparators_give_a_permutation_without_panicking() {
    let mut r = rng(5);
    let noise: Vec<bool> = (0..4096).map(|_| r() & 1 == 0).collect();
    for n in [1usize, 16, 33, 1000] {
        let mut perm = vec![0u32; n];
        for less in [
            &(|_: usize, _: usize| true) as &(dyn Fn(usize, usize) -> bool + Sync),
            &|a, b| noise[(a * 31 + b) % 4096],
            &|a, b| a <= b,
        ] {
            sort_permutation_by(&[n], 0, false, less, &mut perm).unwrap();
            let mut seen = perm.clone();
            seen.sort();
            assert_eq!(seen, (0..n as u32).collect::<Vec<_>>());
        }
    }
}

#[test]
fn top_k_matches_a_stable_sort() {
    let mut r = rng(8);
    for &(rows, n) in &[(1usize, 1usize), (3, 10), (2, 257), (50, 500), (4, 0)] {
        let v: Vec<f32> = nasty_f32(rows * n, r())
            .iter()
            .map(|x| if r() % 3 < 1 { 1.5 } else { *x })
            .collect();
        for k in [0, 1, 7, TOPK_INSERT_MAX, TOPK_INSERT_MAX + 1, n / 2, n]
            .into_iter()
            .filter(|&k| k <= n)
        {
            for largest in [true, false] {
                let (mut vals, mut idx) = (vec![f32::NAN; rows * k], vec![-1i32; rows * k]);
                top_k(&v, &[rows, n], k, largest, &mut vals, &mut idx).unwrap();
                for row in 0..rows {
                    let mut order: Vec<usize> = (0..n).collect();
                    let x = &v[row * n..][..n];
                    order.sort_by(|&a, &b| {
                        if largest {
                            x[b].total_cmp(&x[a])
                        } else {
                            x[a].total_cmp(&x[b])
                        }
                    });
                    let want_i: Vec<i32> = order[..k].iter().map(|&j| j as i32).collect();
                    let want_v: Vec<u32> = order[..k].iter().map(|&j| x[j].to_bits()).collect();
                    assert_eq!(
                        &idx[row * k..][..k],
                        &want_i[..],
                        "rows={rows} n={n} k={k} largest={largest}"
                    );
                    assert_eq!(bits32(&vals[row * k..][..k]), want_v);
                }
            }
        }
    }
}

/// The skip test of the one-pass TopK on f32 and f64: sizes around SKIP_CHUNK, rows of mostly
/// equal values, signed zeros (-0 < +0 although IEEE says equal) and NaN, against a stable
/// sort in the total order.
#[test]
fn top_k_chunk_skips_follow_the_total_order() {
    fn check<T: SortKey + std::fmt::Debug>(
        x: &[T],
        n: usize,
        k: usize,
        cmp: impl Fn(&T, &T) -> Ordering,
        bits: impl Fn(&T) -> u64,
    ) {
        let rows = x.len() / n;
        for largest in [true, false] {
            let (mut vals, mut idx) = (vec![x[0]; rows * k], vec![-1i32; rows * k]);
            top_k(x, &[rows, n], k, largest, &mut vals, &mut idx).unwrap();
            for r in 0..rows {
                let row = &x[r * n..][..n];
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by(|&a, &b| {
                    if largest {
                        cmp(&row[b], &row[a])
                    } else {
                        cmp(&row[a], &row[b])
                    }
                });
                let want: Vec<(i32, u64)> = order[..k]
                    .iter()
                    .map(|&j| (j as i32, bits(&row[j])))
                    .collect();
                let got: Vec<(i32, u64)> = (0..k)
                    .map(|q| (idx[r * k + q], bits(&vals[r * k + q])))
                    .collect();
                assert_eq!(got, want, "n={n} k={k} largest={largest} row {r}");
            }
        }
    }
    let mut r = rng(21);
    for n in [5usize, 7, 8, 9, 15, 16, 17, 23, 24, 25, 64, 1000] {
        for k in [1usize, 2, 5, 8, 9].into_iter().filter(|&k| k < n) {
            let pools: [&[f32]; 4] = [
                &[0.0, -0.0],
                &[1.0, 1.0, 1.0, 2.0, -0.0, 0.0],
                &[f32::NAN, -f32::NAN, 3.0, -3.0, 0.0, -0.0],
                &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0],
            ];
            for pool in pools {
                let x: Vec<f32> = (0..3 * n)
                    .map(|_| pool[(r() % pool.len() as u64) as usize])
                    .collect();
                check(&x, n, k, |a, b| a.total_cmp(b), |v| v.to_bits() as u64);
                let y: Vec<f64> = x.iter().map(|&v| v as f64).collect();
                check(&y, n, k, |a, b| a.total_cmp(b), |v| v.to_bits());
            }
            // Ascending and descending runs: the threshold moves on every chunk.
            let up: Vec<f32> = (0..2 * n).map(|i| (i % n) as f32).collect();
            check(&up, n, k, |a, b| a.total_cmp(b), |v| v.to_bits() as u64);
            let down: Vec<f32> = (0..2 * n).map(|i| -((i % n) as f32)).collect();
            check(&down, n, k, |a, b| a.total_cmp(b), |v| v.to_bits() as u64);
        }
    }
}

#[test]
fn one_and_two_threads_agree() {
    let pool = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
    };
    let dims = [64usize, 1024];
    let v = nasty_f32(64 * 1024, 77);
    let run = |t| {
        pool(t).install(|| {
            let mut s = v.clone();
            sort(&mut s, &dims, 1, Order::Ascending).unwrap();
            let mut p = vec![0u32; v.len()];
            sort_permutation(&v, &dims, 0, Order::Descending, &mut p).unwrap();
            let (mut tv, mut ti) = (vec![0f32; 64 * 5], vec![0i32; 64 * 5]);
            top_k(&v, &dims, 5, true, &mut tv, &mut ti).unwrap();
            (bits32(&s), p, bits32(&tv), ti)
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(
        one.0,
        bits32(&naive_sort(&v, &dims, 1, |a, b| a.total_cmp(b)))
    );
}

#[test]
fn bad_arguments_are_errors() {
    let mut v = vec![1.0f32; 6];
    let e = sort(&mut v, &[2, 3], 2, Order::Ascending).unwrap_err();
    assert_eq!(
        e.to_string(),
        "sort: dimension 2 is out of range for dims [2, 3] (rank 2)"
    );
    let e = sort(&mut v, &[2, 4], 1, Order::Ascending).unwrap_err();
    assert_eq!(
        e,
        KernelError::BufferLength {
            op: "sort",
            operand: "data",
            expected: 8,
            actual: 6
        }
    );
    let mut p = vec![0u32; 6];
    assert!(sort_permutation(&v, &[6], 0, Order::Ascending, &mut p[..5]).is_err());
    assert!(sort_permutation_by(&[], 0, true, |_, _| false, &mut p).is_err());
    p[3] = 6;
    let mut d = vec![0f32; 6];
    let e = apply_permutation(&v, &[6], 0, &p, &mut d).unwrap_err();
    assert!(e.to_string().contains("perm[3] = 6 is out of range"), "{e}");
    let (mut tv, mut ti) = (vec![0f32; 8], vec![0i32; 8]);
    let e = top_k(&v, &[2, 3], 4, true, &mut tv, &mut ti).unwrap_err();
    assert!(e.to_string().contains("k = 4 must be at most"), "{e}");
    assert!(top_k(&v, &[], 0, true, &mut tv, &mut ti).is_err());
    assert!(top_k(&v, &[2, 3], 2, true, &mut tv[..3], &mut ti[..4]).is_err());
}

/// Rows long enough to take the bucketed parallel path (odd lengths, all 256 top-byte buckets
/// in use with the random bit patterns, and skewed buckets from the repeated specials).
#[test]
fn long_single_rows_split_and_merge() {
    let pool = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
    };
    for n in [PAR_SPLIT_MIN, PAR_SPLIT_MIN + 3, 300_001] {
        let v = nasty_f32(n, n as u64);
        for order in [Order::Ascending, Order::Descending] {
            let want = match order {
                Order::Ascending => naive_sort(&v, &[n], 0, |a, b| a.total_cmp(b)),
                Order::Descending => naive_sort(&v, &[n], 0, |a, b| b.total_cmp(a)),
            };
            for t in [1, 2] {
                let mut got = v.clone();
                pool(t)
                    .install(|| sort(&mut got, &[1, n], 1, order))
                    .unwrap();
                assert!(bits32(&got) == bits32(&want), "n={n} {order:?} threads {t}");
            }
        }
        let w: Vec<i64> = v.iter().map(|x| x.to_bits() as i32 as i64 * 3).collect();
        let mut got = w.clone();
        sort(&mut got, &[n], 0, Order::Ascending).unwrap();
        let mut want = w;
        want.sort();
        assert!(got == want, "i64 n={n}");
    }
}
