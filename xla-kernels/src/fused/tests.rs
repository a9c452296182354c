//! The drivers against plain loops: odd sizes around the vector width and the parallel block
//! sizes, outputs prefilled with NaN so an element never written shows.

use super::*;
use crate::simd::{F32V, F64V};

/// The vector of `h(p), h(p+1), ...` for element positions `p`.
fn at<V: VFloat>(p: usize, h: impl Fn(usize) -> V::Elem) -> V {
    V::from_fn(|l| h(p + l))
}

fn h32(p: usize) -> f32 {
    (p % 1013) as f32 * 0.25 - 7.0
}

fn row_sizes() -> Vec<usize> {
    let l = F32V::LANES;
    vec![l, l + 1, 2 * l - 1, 4 * l, 4 * l + 3, 9 * l + 5, 1000]
}

#[test]
fn map_rows_writes_every_element_once_per_position() {
    for row in row_sizes() {
        for rows in [1, 3, PAR_MIN_ELEMENTS / row + 7] {
            let mut out = vec![f32::NAN; rows * row];
            map_rows::<F32V>(&mut out, row, |g, j| at::<F32V>(g * row + j, h32));
            for (p, &x) in out.iter().enumerate() {
                assert_eq!(x, h32(p), "row {row}, rows {rows}, element {p}");
            }
        }
    }
}

#[test]
fn in_place_updates_read_the_old_values() {
    for row in row_sizes() {
        for rows in [1, 2, PAR_MIN_ELEMENTS / row + 5] {
            let old: Vec<f64> = (0..rows * row).map(|p| p as f64 * 1.5).collect();
            let mut out = old.clone();
            map_rows_in_place::<F64V>(&mut out, row, |g, j, cur| {
                cur * F64V::splat(2.0) + at::<F64V>(g * row + j, |p| p as f64)
            });
            for (p, &x) in out.iter().enumerate() {
                assert_eq!(
                    x,
                    old[p] * 2.0 + p as f64,
                    "row {row}, rows {rows}, element {p}"
                );
            }
        }
    }
}

#[test]
fn flat_maps_cover_block_boundaries() {
    let l = F32V::LANES;
    let b = PAR_BLOCK_ELEMENTS;
    for n in [
        l,
        l + 3,
        5 * l - 1,
        PAR_MIN_ELEMENTS + 1,
        2 * b + l - 1,
        3 * b + 1,
        4 * b,
    ] {
        let mut out = vec![f32::NAN; n];
        map_flat::<F32V>(&mut out, |g| at::<F32V>(g, h32));
        assert!(
            out.iter().enumerate().all(|(p, &x)| x == h32(p)),
            "map_flat of {n}"
        );
        let old: Vec<f32> = (0..n).map(h32).collect();
        let mut inplace = old.clone();
        map_flat_in_place::<F32V>(&mut inplace, |g, cur| cur * cur + at::<F32V>(g, h32));
        for (p, &x) in inplace.iter().enumerate() {
            assert_eq!(
                x,
                old[p] * old[p] + h32(p),
                "in place, {n} elements, element {p}"
            );
        }
    }
}

#[test]
fn row_reductions_fold_every_element_once_and_store_it() {
    for row in row_sizes() {
        for rows in [1, 3, PAR_MIN_ELEMENTS / row + 3] {
            // Integer-valued sums are exact in any order: a wrong count of any element shows.
            let mut sums = vec![f32::NAN; rows];
            let mut stored = vec![f32::NAN; rows * row];
            let add = Combine {
                id: -0.0f32,
                v: |a: F32V, b: F32V| a + b,
                lanes: <F32V as VFloat>::reduce_add,
                s: |a: f32, b: f32| a + b,
            };
            let v = |p: usize| (p % 7) as f32;
            reduce_rows_storing(&mut sums, &mut stored, row, 5, 10.0, add, |g, j| {
                let x = at::<F32V>(g * row + j, v);
                (x, x)
            });
            for (g, &got) in sums.iter().enumerate() {
                let want: f32 = 10.0 + (0..row).map(|j| v(g * row + j)).sum::<f32>();
                assert_eq!(got, want, "row {row}, output {g}");
            }
            assert!(
                stored.iter().enumerate().all(|(p, &x)| x == v(p)),
                "stored, row {row}"
            );
            // Storing a value other than the one reduced (x - 1 while summing its square),
            // as a variance stores the centred values: every element, the last window too.
            stored.fill(f32::NAN);
            reduce_rows_storing(&mut sums, &mut stored, row, 5, 0.0, add, |g, j| {
                let d = at::<F32V>(g * row + j, v) - F32V::splat(1.0);
                (d * d, d)
            });
            for (g, &got) in sums.iter().enumerate() {
                let want: f32 = (0..row)
                    .map(|j| (v(g * row + j) - 1.0).powi(2))
                    .sum::<f32>();
                assert_eq!(got, want, "squares, row {row}, output {g}");
            }
            assert!(
                stored.iter().enumerate().all(|(p, &x)| x == v(p) - 1.0),
                "centred values stored, row {row}"
            );
            let mut maxes = vec![f32::NAN; rows];
            let max = Combine {
                id: f32::NEG_INFINITY,
                v: <F32V as VFloat>::max_xla,
                lanes: <F32V as VFloat>::reduce_max_xla,
                s: f32::max,
            };
            reduce_rows(&mut maxes, row, 5, -1e9, max, |g, j| {
                at::<F32V>(g * row + j, h32)
            });
            for (g, &got) in maxes.iter().enumerate() {
                let want = (0..row).map(|j| h32(g * row + j)).fold(-1e9f32, f32::max);
                assert_eq!(got, want, "max, row {row}, output {g}");
            }
        }
    }
}

#[test]
#[should_panic(expected = "rows of 3")]
fn rows_shorter_than_a_vector_are_refused() {
    let mut out = vec![0.0f32; 9];
    map_rows::<F32V>(&mut out, 3, |_, _| F32V::splat(0.0));
}

#[test]
fn column_reductions_fold_every_row_once_at_any_run_cut() {
    let l = F32V::LANES;
    let v = |p: usize| (p % 11) as f32 - 3.0;
    // (output rows, row length k, outer reduced, inner reduced, run)
    for (g_n, k, outer, inner, run) in [
        (1, l, 1, 1, 7),
        (2, l + 3, 2, 5, 5),
        (3, 3 * l - 1, 1, 9, 2048),
        (2, 4 * l + 1, 3, 4, l + 2),
        (1, 300, 1, 200, 64),
        (8, 512, 1, 16, 2048),
    ] {
        let x = |g: usize, o: usize, i: usize, j: usize| ((g * outer + o) * inner + i) * k + j;
        let mut out = vec![f32::NAN; g_n * k];
        let add = Combine {
            id: -0.0f32,
            v: |a: F32V, b: F32V| a + b,
            lanes: <F32V as VFloat>::reduce_add,
            s: |a: f32, b: f32| a + b,
        };
        reduce_cols(&mut out, k, outer, inner, run, 0.5, add, |g, o, i, j| {
            at::<F32V>(x(g, o, i, j), v)
        });
        for (p, &got) in out.iter().enumerate() {
            let (g, j) = (p / k, p % k);
            let mut want = 0.0f32;
            for o in 0..outer {
                for i in 0..inner {
                    want += v(x(g, o, i, j));
                }
            }
            assert_eq!(got, 0.5 + want, "k {k}, run {run}, output {p}");
        }
    }
}

#[test]
fn long_rows_of_few_outputs_fold_as_a_tree_with_the_same_bits_on_any_thread_count() {
    let add = || Combine {
        id: -0.0f64,
        v: |a: F64V, b: F64V| a + b,
        lanes: <F64V as VFloat>::reduce_add,
        s: |a: f64, b: f64| a + b,
    };
    let h = |p: usize| ((p * 7919) % 1013) as f64 * 0.01 - 5.0 + 1.0 / (p + 1) as f64;
    for (outs, row) in [
        (1, 4 * ROW_LEAF),
        (1, 5 * ROW_LEAF + 3),
        (2, 3 * ROW_LEAF + 7),
    ] {
        let run = |threads: usize| {
            let mut out = vec![f64::NAN; outs];
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool")
                .install(|| {
                    reduce_rows(&mut out, row, outs, 1.0, add(), |g, j| {
                        at::<F64V>(g * row + j, h)
                    })
                });
            out
        };
        let one = run(1);
        assert_eq!(one, run(2), "{outs} x {row}");
        for (g, &got) in one.iter().enumerate() {
            let want: f64 = 1.0 + (0..row).map(|j| h(g * row + j)).sum::<f64>();
            assert!((got - want).abs() <= 1e-12 * row as f64, "{got} vs {want}");
        }
    }
}
