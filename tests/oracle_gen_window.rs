//! Oracle test of ReduceWindow, generated code (calls of `xla_kernels::window`: the SIMD
//! pooling and cumulative paths, the inlined-computation paths) and evaluator against XLA:CPU
//! on every element type: max pooling 3x3 stride 2 with padding (NCHW), a dilated strided sum
//! over NHWC with uneven padding, the seed's base-dilated example, a cumulative sum (JAX's
//! lowering of cumsum), SAME padding, a window wider than its stride's reach, window 1, and a
//! variadic argmax. The init is a runtime argument, so a non-identity init shows that padded
//! taps are skipped, not read as the init.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_window`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::{ElementType, Literal, Shape};
use xla_oracle::Dist;

macro_rules! per_type {
    ($(($t:ident, $max:ident, $add:ident, $zero:expr)),+) => {
        mod typed {
            $(
                pub mod $t {
                    xla_aot::xla! {
                        pub fn max_pool(x: $t[2, 3, 9, 11], i: $t[]) -> $t[2, 3, 5, 6] {
                            ReduceWindow(x, i, |a, b| $max(a, b), window_dimensions = [1, 1, 3, 3],
                                window_strides = [1, 1, 2, 2],
                                padding = [[0, 0], [0, 0], [1, 1], [1, 1]])
                        }
                        pub fn sum_nhwc(x: $t[2, 7, 8, 5], i: $t[]) -> $t[2, 3, 3, 5] {
                            ReduceWindow(x, i, |a, b| $add(a, b), window_dimensions = [1, 2, 2, 1],
                                window_strides = [1, 3, 3, 1], window_dilations = [1, 2, 2, 1],
                                padding = [[0, 0], [1, 2], [0, 1], [0, 0]])
                        }
                        pub fn dilated(x: $t[3, 2], i: $t[]) -> $t[2, 2] {
                            ReduceWindow(x, i, |a, b| $add(a, b), window_dimensions = [2, 1],
                                window_strides = [4, 1], base_dilations = [2, 1],
                                window_dilations = [3, 1], padding = [[2, 1], [0, 0]])
                        }
                        pub fn cumulative(x: $t[3, 20]) -> $t[3, 20] {
                            ReduceWindow(x, $zero, |a, b| $add(a, b), window_dimensions = [1, 20],
                                padding = [[0, 0], [19, 0]])
                        }
                        pub fn same(x: $t[5, 6], i: $t[]) -> $t[3, 3] {
                            ReduceWindow(x, i, |a, b| $max(a, b), window_dimensions = [3, 3],
                                window_strides = [2, 2], padding = SAME)
                        }
                        pub fn sparse(x: $t[10, 4], i: $t[]) -> $t[3, 4] {
                            ReduceWindow(x, i, |a, b| $max(a, b), window_dimensions = [2, 1],
                                window_strides = [4, 1], padding = [[0, 0], [-1, 1]])
                        }
                    }
                }
            )+
        }

        fn typed_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                for (k, d) in [Dist::Any, Dist::Special].into_iter().enumerate() {
                    let seed = 100 * k as u64;
                    let ty = common::args_with(gen!("t", typed::$t::same), |i, a| {
                        common::random_arg(&Shape::Array(a.clone()), i as u64, d)
                    })[1].shape().as_array().map(|a| a.ty).unwrap_or(ElementType::F32);
                    // Max and min are exact in any order; sums within the forward-error bound:
                    // XLA:CPU does not always fold a window's taps in row-major order.
                    let (exact, sum) = (Tol::Exact, common::reduce_tol(ty));
                    let max_tol = if stringify!($max) == "Add" { sum } else { exact };
                    // Special values (NaN, inf) in float sums: the forward-error bound is NaN, so
                        // those run on `Any` inputs; max/min and integers take both.
                    let mut push = |g: common::Gen, tol: Tol| {
                        if tol == Tol::Forward && d != Dist::Any {
                            return;
                        }
                        let args = common::args_with(g, |i, a| {
                            common::random_arg(&Shape::Array(a.clone()), seed + i as u64, d)
                        });
                        v.push(Case::new(g, &format!("{d:?}"), args, tol));
                    };
                    push(gen!(concat!("max_pool/", stringify!($t)), typed::$t::max_pool), max_tol);
                    push(gen!(concat!("sum_nhwc/", stringify!($t)), typed::$t::sum_nhwc), sum);
                    push(gen!(concat!("dilated/", stringify!($t)), typed::$t::dilated), sum);
                    push(gen!(concat!("cumulative/", stringify!($t)), typed::$t::cumulative), sum);
                    push(gen!(concat!("same/", stringify!($t)), typed::$t::same), max_tol);
                    push(gen!(concat!("sparse/", stringify!($t)), typed::$t::sparse), max_tol);
                }
            )+
            v
        }
    };
}

per_type!(
    (pred, Or, And, false),
    (s8, Max, Add, 0),
    (s16, Max, Add, 0),
    (s32, Max, Add, 0),
    (s64, Max, Add, 0),
    (u8, Max, Add, 0),
    (u16, Max, Add, 0),
    (u32, Max, Add, 0),
    (u64, Max, Add, 0),
    (f16, Max, Add, 0),
    (bf16, Max, Add, 0),
    (f32, Max, Add, 0),
    (f64, Min, Add, 0),
    (c64, Add, Add, 0),
    (c128, Add, Add, 0)
);

xla_aot::xla! {
    /// The seed's first example: max over 2x3 windows of a 4x6 array, strides 2x3.
    pub fn seed_max_2x3(x: f32[4, 6]) -> f32[2, 2] {
        ReduceWindow(x, f32::MIN, |a, b| Max(a, b), window_dimensions = [2, 3],
            window_strides = [2, 3], padding = VALID)
    }
    /// Argmax per window: (value, index) pairs, the first index winning ties.
    pub fn argmax(x: f32[4, 12], n: s32[4, 12]) -> (f32[4, 4], s32[4, 4]) {
        ReduceWindow(x, n, f32::NEG_INFINITY, -1i32,
            |m, k, y, j| {
                let take = Gt(y, m);
                Tuple(Select(take, y, m), Select(take, j, k))
            },
            window_dimensions = [1, 3], window_strides = [1, 3])
    }
    /// Max pooling large enough for the parallel path (64 planes).
    pub fn max_pool_big(x: f32[4, 16, 30, 30]) -> f32[4, 16, 15, 15] {
        ReduceWindow(x, f32::NEG_INFINITY, |a, b| Max(a, b), window_dimensions = [1, 1, 3, 3],
            window_strides = [1, 1, 2, 2], padding = [[0, 0], [0, 0], [1, 1], [1, 1]])
    }
    /// cumsum along the middle dimension of f32 (the scan path with contiguous lanes).
    pub fn cumsum_f32(x: f32[8, 300, 17]) -> f32[8, 300, 17] {
        ReduceWindow(x, 0.0f32, |a, b| Add(a, b), window_dimensions = [1, 300, 1],
            padding = [[0, 0], [299, 0], [0, 0]])
    }
}

#[test]
fn generated_reduce_window_on_every_type_matches_xla() {
    check_all("generated reduce_window per type", typed_cases());
}

#[test]
fn generated_reduce_window_programs_match_xla() {
    let mut v = Vec::new();
    let x: Vec<f32> = (0..24).map(|k| ((k * 7) % 11) as f32).collect();
    let seed = Literal::from_vec(&[4, 6], x).expect("x");
    v.push(Case::new(
        gen!("seed_max_2x3", seed_max_2x3),
        "seed",
        vec![seed],
        Tol::Exact,
    ));
    let g = gen!("argmax", argmax);
    let mut args = common::args_with(g, |i, a| {
        common::int_valued(a.ty, &a.dims, 7 + i as u64, 3.0)
    });
    let idx: Vec<i32> = (0..48).collect();
    args[1] = Literal::from_vec(&[4, 12], idx).expect("n");
    v.push(Case::new(g, "ties", args, Tol::Exact));
    for (name, g) in [
        ("max_pool_big", gen!("max_pool_big", max_pool_big)),
        ("cumsum_f32", gen!("cumsum_f32", cumsum_f32)),
    ] {
        let args = common::args_with(g, |i, a| {
            common::random_arg(
                &Shape::Array(a.clone()),
                50 + i as u64,
                Dist::Range(-1.0, 1.0),
            )
        });
        let tol = if name == "cumsum_f32" {
            Tol::Forward
        } else {
            Tol::Exact
        };
        v.push(Case::new(g, name, args, tol));
    }
    check_all("generated reduce_window programs", v);
}

/// Every output is one sequential fold: the same bits on 1 and 4 threads.
#[test]
fn pooling_does_not_depend_on_the_thread_count() {
    let x = common::random_arg(
        &Shape::array(ElementType::F32, &[8, 300, 17]),
        9,
        Dist::Range(-1.0, 1.0),
    );
    let args = vec![x];
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| cumsum_f32::run_literals(&args))
            .expect("run")
    };
    let one = run(1);
    assert_eq!(one, run(4));
}
