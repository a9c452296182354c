//! Oracle test of SelectAndScatter and Scan: generated code (`xla_kernels::window::
//! select_and_scatter`, the cumulative-scan kernel, a general Scan as an inlined While) and
//! evaluator against XLA:CPU running our StableHLO export (`stablehlo.select_and_scatter`;
//! Scan as CHLO's `chlo.scan`, which XLA lowers to a while loop of its own: an oracle
//! independent of `expand_scan`, which the generated code runs for a general `to_apply`).
//!
//! SelectAndScatter on every type XLA compares (integers and floats): the max-pool gradient
//! with padding and overlapping windows (the `jax.grad` of max pooling: ReduceWindow max
//! forward, SelectAndScatter with `Ge` and `Add` backward), strides larger than the window,
//! SAME padding, windows wholly on padding (nothing scattered), `Gt` (the last of equal
//! elements wins) and a runtime init. Ties are forced by small integer-valued inputs. Also on
//! pred (a boolean select and an Or scatter) and on c64/c128 (selects on the real or imaginary
//! part, complex sums).
//! Scan: cumulative sum, max, min (forward and reverse) per type, several inputs and carries,
//! two outputs, scan dimension of size 1, a scalar carry.
//!
//! Run: `cargo test -p xla-aot --test oracle_sas_scan`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::Shape;
use xla_oracle::Dist;

macro_rules! per_type {
    ($(($t:ident, $zero:expr)),+) => {
        mod typed {
            $(
                pub mod $t {
                    xla_aot::xla! {
                        /// Max-pool gradient, 3x3 stride 2, padding 1 (overlapping windows).
                        pub fn pool_grad(x: $t[2, 3, 9, 11], g: $t[2, 3, 5, 6]) -> $t[2, 3, 9, 11] {
                            SelectAndScatter(x, |a, b| Ge(a, b), g, $zero, |a, b| Add(a, b),
                                window_dimensions = [1, 1, 3, 3], window_strides = [1, 1, 2, 2],
                                padding = [[0, 0], [0, 0], [1, 1], [1, 1]])
                        }
                        /// Strides larger than the window: some elements in no window.
                        pub fn sparse(x: $t[10, 7], g: $t[3, 2], i: $t[]) -> $t[10, 7] {
                            SelectAndScatter(x, |a, b| Gt(a, b), g, i, |a, b| Add(a, b),
                                window_dimensions = [2, 2], window_strides = [4, 3])
                        }
                        /// SAME padding; windows 1 wide with padding 1: the edge windows lie
                        /// wholly on padding and scatter nothing.
                        pub fn same(x: $t[5, 6], g: $t[3, 8], i: $t[]) -> $t[5, 6] {
                            SelectAndScatter(x, |a, b| Ge(a, b), g, i, |a, b| Max(a, b),
                                window_dimensions = [3, 1], window_strides = [2, 1],
                                padding = [[1, 1], [1, 1]])
                        }
                        /// cumsum and reverse cummax along the middle dimension.
                        pub fn cumsum(x: $t[3, 7, 4], c: $t[3, 4]) -> ($t[3, 7, 4], $t[3, 4]) {
                            Scan(x, c, |v, s| { let r = Add(s, v); Tuple(r, r) }, scan_dimension = 1)
                        }
                        pub fn cummax_rev(x: $t[3, 7, 4], c: $t[3, 4]) -> ($t[3, 7, 4], $t[3, 4]) {
                            Scan([x], [c], |v, s| { let r = Max(v, s); Tuple(r, r) },
                                scan_dimension = 1, is_reverse = true)
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
                    let mut push = |g: common::Gen, tol: Tol, ties: bool| {
                        let args = common::args_with(g, |i, a| {
                            if ties && i == 0 {
                                common::int_valued(a.ty, &a.dims, seed + 7, 2.0)
                            } else {
                                common::random_arg(&Shape::Array(a.clone()), seed + i as u64, d)
                            }
                        });
                        v.push(Case::new(g, &format!("{d:?},ties={ties}"), args, tol));
                    };
                    // Sums of the scattered values: XLA applies them in the same order (the
                    // windows row-major), so exact; ties decide which element gets them.
                    for ties in [false, true] {
                        push(gen!(concat!("pool_grad/", stringify!($t)), typed::$t::pool_grad), Tol::Exact, ties);
                        push(gen!(concat!("sparse/", stringify!($t)), typed::$t::sparse), Tol::Exact, ties);
                        push(gen!(concat!("same/", stringify!($t)), typed::$t::same), Tol::Exact, ties);
                    }
                    push(gen!(concat!("cumsum/", stringify!($t)), typed::$t::cumsum), Tol::Exact, false);
                    push(gen!(concat!("cummax_rev/", stringify!($t)), typed::$t::cummax_rev), Tol::Exact, false);
                }
            )+
            v
        }
    };
}

per_type!(
    (s8, 0),
    (s16, 0),
    (s32, 0),
    (s64, 0),
    (u8, 0),
    (u16, 0),
    (u32, 0),
    (u64, 0),
    (f16, 0),
    (bf16, 0),
    (f32, 0),
    (f64, 0)
);

xla_aot::xla! {
    /// `jax.grad` of max pooling: the forward pool and its gradient by SelectAndScatter.
    pub fn max_pool_and_grad(x: f32[4, 16, 30, 30], g: f32[4, 16, 15, 15])
        -> (f32[4, 16, 15, 15], f32[4, 16, 30, 30]) {
        let y = ReduceWindow(x, f32::NEG_INFINITY, |a, b| Max(a, b),
            window_dimensions = [1, 1, 3, 3], window_strides = [1, 1, 2, 2], padding = SAME);
        let dx = SelectAndScatter(x, |a, b| Ge(a, b), g, 0.0f32, |a, b| Add(a, b),
            window_dimensions = [1, 1, 3, 3], window_strides = [1, 1, 2, 2], padding = SAME);
        Tuple(y, dx)
    }
    /// NHWC pooling gradient (lanes contiguous), 2x2 stride 2.
    pub fn pool_grad_nhwc(x: f32[2, 8, 8, 5], g: f32[2, 4, 4, 5]) -> f32[2, 8, 8, 5] {
        SelectAndScatter(x, |a, b| Ge(a, b), g, 0.0f32, |a, b| Add(a, b),
            window_dimensions = [1, 2, 2, 1], window_strides = [1, 2, 2, 1])
    }
    /// A select that is not a comparison of its parameters (the visiting path): the element
    /// closest to zero, scattered by multiplication.
    pub fn closest_to_zero(x: f32[6, 6], g: f32[2, 5]) -> f32[6, 6] {
        SelectAndScatter(x, |a, b| Le(Abs(a), Abs(b)), g, 1.0f32, |a, b| Mul(a, b),
            window_dimensions = [3, 2], window_strides = [3, 1])
    }
    /// pred: the first true element of each window (else its first) gets the Or of its
    /// windows' gradients (a select of booleans, a scatter of booleans).
    pub fn first_true(x: pred[6, 8], g: pred[3, 3], i: pred[]) -> pred[6, 8] {
        SelectAndScatter(x, |a, b| Or(a, Not(b)), g, i, |a, b| Or(a, b),
            window_dimensions = [2, 3], window_strides = [2, 3], padding = [[0, 0], [0, 1]])
    }
    /// c64 and c128: the element of largest real part gets the complex gradients, summed.
    pub fn complex_grad(x: c64[6, 7], g: c64[3, 4], i: c64[]) -> c64[6, 7] {
        SelectAndScatter(x, |a, b| Ge(Real(a), Real(b)), g, i, |a, b| Add(a, b),
            window_dimensions = [3, 3], window_strides = [2, 2], padding = [[1, 1], [1, 1]])
    }
    pub fn complex_grad_c128(x: c128[5, 5], g: c128[2, 2], i: c128[]) -> c128[5, 5] {
        SelectAndScatter(x, |a, b| Ge(Imag(a), Imag(b)), g, i, |a, b| Add(a, b),
            window_dimensions = [3, 3], window_strides = [2, 2])
    }
    /// Two inputs, two carries, one output (the While path): `y = x * c`, `c += w`,
    /// `m = max(m, x)`.
    pub fn two_carries(x: f32[4, 6, 3], w: f32[4, 6, 3], c: f32[4, 3], m: f32[4, 3])
        -> (f32[4, 6, 3], f32[4, 3], f32[4, 3]) {
        Scan([x, w], [c, m], |a, b, c, m| Tuple(Mul(a, c), Add(c, b), Max(m, a)),
            scan_dimension = 1)
    }
    /// Two outputs and a scalar carry, reversed: suffix sums and doubled elements.
    pub fn suffix(x: s32[10]) -> (s32[10], s32[10], s32[]) {
        Scan([x], [0i32], |v, c| { let s = Add(c, v); Tuple(s, Mul(v, 2i32), s) },
            scan_dimension = 0, is_reverse = true)
    }
    /// A scan dimension of size 1.
    pub fn one_step(x: f32[1, 5], c: f32[5]) -> (f32[1, 5], f32[5]) {
        Scan(x, c, |v, s| { let r = Add(s, v); Tuple(r, r) }, scan_dimension = 0)
    }
    /// jnp.cumsum of a large array (the fast path, planes in parallel).
    pub fn cumsum_big(x: f32[8, 300, 17]) -> (f32[8, 300, 17], f32[8, 17]) {
        Scan(x, Broadcast(0.0f32, broadcast_sizes = [8, 17]),
            |v, s| { let r = Add(s, v); Tuple(r, r) }, scan_dimension = 1)
    }
}

#[test]
fn select_and_scatter_and_scan_on_every_type_match_xla() {
    check_all("select_and_scatter / scan per type", typed_cases());
}

#[test]
fn select_and_scatter_and_scan_programs_match_xla() {
    let mut v = Vec::new();
    let mut push = |g: common::Gen, name: &str, ties: bool| {
        let args = common::args_with(g, |i, a| {
            if ties && i == 0 {
                common::int_valued(a.ty, &a.dims, 3, 2.0)
            } else {
                common::random_arg(
                    &Shape::Array(a.clone()),
                    50 + i as u64,
                    Dist::Range(-1.0, 1.0),
                )
            }
        });
        v.push(Case::new(g, name, args, Tol::Exact));
    };
    // Ties only where XLA:CPU resolves them in row-major order: with SAME's high-only
    // padding, XLA:CPU rewrites SelectAndScatter into a variadic ReduceWindow of (value,
    // index) whose fold visits the window in another order, so of equal maxima it may keep a
    // later one (measured; JAX pads explicitly and is unaffected). Distinct values agree.
    push(gen!("max_pool_and_grad", max_pool_and_grad), "grad", false);
    for ties in [false, true] {
        push(gen!("pool_grad_nhwc", pool_grad_nhwc), "nhwc", ties);
        push(gen!("closest_to_zero", closest_to_zero), "closest", ties);
    }
    push(gen!("first_true", first_true), "pred", false);
    push(gen!("complex_grad", complex_grad), "c64", false);
    push(gen!("complex_grad_c128", complex_grad_c128), "c128", false);
    push(gen!("two_carries", two_carries), "carries", false);
    push(gen!("suffix", suffix), "suffix", false);
    push(gen!("one_step", one_step), "one", false);
    push(gen!("cumsum_big", cumsum_big), "big", false);
    check_all("select_and_scatter / scan programs", v);
}

/// The plane-parallel gradient applies every scatter in window order: the same bits on 1 and
/// 4 threads.
#[test]
fn pool_gradient_does_not_depend_on_the_thread_count() {
    let g = gen!("max_pool_and_grad", max_pool_and_grad);
    let args = common::args_with(g, |i, a| {
        common::int_valued(a.ty, &a.dims, 9 + i as u64, 3.0)
    });
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| max_pool_and_grad::run_literals(&args))
            .expect("run")
    };
    let one = run(1);
    assert_eq!(one, run(4));
}
