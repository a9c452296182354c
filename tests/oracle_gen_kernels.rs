//! Oracle test of the generated code for the kernel-call ops and nested programs: Sort (one
//! operand by a total-order key, key + payload, a general comparator), TopK, convolutions
//! (NHWC and NCHW, strides, SAME padding, dilations, depthwise groups, preferred type), While
//! (a counting loop with tuple state, a power iteration) and Conditional (pred and index forms,
//! an out-of-range index). Each case runs the generated code, the evaluator and XLA:CPU.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_kernels`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::ElementType;
use xla_oracle::Dist;

xla_aot::xla! {
    pub fn sort_f32(x: f32[5, 40]) -> f32[5, 40] {
        Sort(x, |a, b| LtTotalOrder(a, b), dimension = 1)
    }
    pub fn sort_desc_s32(x: s32[70, 3]) -> s32[70, 3] {
        Sort(x, |a, b| Gt(a, b), dimension = 0)
    }
    pub fn sort_long_f64(x: f64[300]) -> f64[300] {
        Sort(x, |a, b| LtTotalOrder(a, b))
    }
    pub fn sort_key_payload(k: s32[4, 33], v: f32[4, 33]) -> (s32[4, 33], f32[4, 33]) {
        Sort(k, v, |a, b, c, d| Lt(a, b), dimension = 1, is_stable = true)
    }
    /// Lexicographic on (key, payload): the comparator is inlined as scalar code.
    pub fn sort_lexicographic(k: u8[50], v: s16[50]) -> (u8[50], s16[50]) {
        Sort(k, v, |a, b, c, d| Or(Lt(a, b), And(Eq(a, b), Lt(c, d))))
    }
    pub fn top_k_largest(x: f32[6, 50]) -> (f32[6, 5], s32[6, 5]) {
        TopK(x, k = 5)
    }
    pub fn top_k_smallest(x: s64[3, 20]) -> (s64[3, 20], s32[3, 20]) {
        TopK(x, k = 20, largest = false)
    }
    pub fn sort_then_slice_median(x: f32[7, 9]) -> f32[7] {
        Reshape(Slice(Sort(x, |a, b| LtTotalOrder(a, b), dimension = 1),
                      start_indices = [0, 4], limit_indices = [7, 5]), new_sizes = [7])
    }
}

xla_aot::xla! {
    pub fn conv_nhwc_same(x: f32[2, 9, 9, 3], w: f32[3, 3, 3, 8]) -> f32[2, 5, 5, 8] {
        ConvWithGeneralDimensions(x, w, window_strides = [2, 2], padding = SAME,
            dimension_numbers = [NHWC, HWIO, NHWC])
    }
    pub fn conv_nchw_valid(x: f64[1, 4, 7, 6], w: f64[5, 4, 2, 3]) -> f64[1, 5, 6, 4] {
        Conv(x, w, window_strides = [1, 1], padding = VALID)
    }
    pub fn conv_dilated(x: f32[1, 12, 2], w: f32[3, 2, 4]) -> f32[1, 11, 4] {
        ConvGeneralDilated(x, w, window_strides = [2], padding = [[1, 2]], lhs_dilation = [2],
            rhs_dilation = [2], dimension_numbers = [NWC, WIO, NWC])
    }
    pub fn conv_depthwise(x: f32[1, 6, 6, 4], w: f32[3, 3, 1, 4]) -> f32[1, 6, 6, 4] {
        ConvGeneral(x, w, window_strides = [1, 1], padding = [[1, 1], [1, 1]],
            dimension_numbers = [NHWC, HWIO, NHWC], feature_group_count = 4)
    }
    pub fn conv_s8_to_s32(x: s8[1, 5, 5, 2], w: s8[2, 2, 2, 3]) -> s32[1, 4, 4, 3] {
        ConvGeneral(x, w, window_strides = [1, 1], padding = [[0, 0], [0, 0]],
            dimension_numbers = [NHWC, HWIO, NHWC], preferred_element_type = s32)
    }
    pub fn conv_s32(x: s32[2, 3, 8], w: s32[4, 3, 3]) -> s32[2, 4, 8] {
        ConvWithGeneralPadding(x, w, window_strides = [1], padding = [[1, 1]])
    }
}

xla_aot::xla! {
    /// Counts to 10 while doubling an accumulator: tuple state, a loop of several steps.
    pub fn count_loop(x: f32[8]) -> (s32[], f32[8]) {
        While(|s| Lt(s.0, 10i32), |s| Tuple(Add(s.0, 1i32), Add(s.1, s.1)), Tuple(0i32, x))
    }
    /// The condition fails at once: the result is the initial state.
    pub fn zero_trip(x: s32[4]) -> s32[4] {
        While(|s| Gt(Reduce(s, 0i32, dimensions = [0], |a, b| a + b), 1000000i32), |s| Mul(s, 2i32), x)
    }
    /// Six steps of v <- A v / |A v|: a Dot, a reduction and a division per step.
    pub fn power_iteration(a: f32[6, 6], v: f32[6]) -> f32[6] {
        let s = While(
            |s| Lt(s.0, 6i32),
            |s| {
                let w = Dot(s.1, s.2);
                let n = Sqrt(Reduce(Mul(w, w), 0.0f32, dimensions = [0], |x, y| x + y));
                Tuple(Add(s.0, 1i32), s.1, Div(w, Broadcast(n, broadcast_sizes = [6])))
            },
            Tuple(0i32, a, v));
        s.2
    }
    pub fn choose_pred(p: pred[], x: f32[4, 3], y: f32[4, 3]) -> f32[4, 3] {
        Conditional(p, x, |a| Exp(a), y, |b| Neg(b))
    }
    pub fn choose_index(i: s32[], x: s32[5], y: s32[5], z: s32[5]) -> s32[5] {
        Conditional(i, [|a| Add(a, a), |b| Mul(b, b), |c| Neg(c)], [x, y, z])
    }
}

/// Per type: a sort by the type's order (key sort), a sort of (x, iota) by x (permutation
/// path, ties by index), TopK both ways, a strided convolution with padding, a While loop with
/// tuple state and a Conditional in both forms (`flow!`).
macro_rules! per_type {
    ($( $t:ident $lt:ident ),+ ; complex: $( $c:ident ),+) => {
        mod typed {
            $(
                pub mod $t {
                    xla_aot::xla! {
                        pub fn sort(x: $t[3, 41]) -> $t[3, 41] {
                            Sort(x, |a, b| $lt(a, b), dimension = 1)
                        }
                        pub fn argsort(x: $t[41, 3]) -> ($t[41, 3], s32[41, 3]) {
                            Sort(x, Iota(s32[41, 3], iota_dimension = 0), |a, b, i, j| $lt(a, b),
                                 dimension = 0, is_stable = true)
                        }
                        pub fn top_k(x: $t[4, 30]) -> ($t[4, 7], s32[4, 7]) {
                            TopK(x, k = 7)
                        }
                        pub fn bottom_k(x: $t[4, 30]) -> ($t[4, 7], s32[4, 7]) {
                            TopK(x, k = 7, largest = false)
                        }
                    }
                    flow!($t);
                }
            )+
            $(
                pub mod $c {
                    xla_aot::xla! {
                        /// Complex keys by their real part (XLA has no complex order).
                        pub fn sort(x: $c[3, 41]) -> $c[3, 41] {
                            Sort(x, |a, b| LtTotalOrder(Real(a), Real(b)), dimension = 1, is_stable = true)
                        }
                    }
                    flow!($c);
                }
            )+
        }
        fn typed_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                for d in [Dist::Any, Dist::Special] {
                    v.push(Case::random(gen!(concat!("sort/", stringify!($t)), typed::$t::sort), &[d], 60, Tol::Exact));
                    v.push(Case::random(gen!(concat!("argsort/", stringify!($t)), typed::$t::argsort), &[d], 61, Tol::Exact));
                    v.push(Case::random(gen!(concat!("top_k/", stringify!($t)), typed::$t::top_k), &[d], 62, Tol::Exact));
                    v.push(Case::random(gen!(concat!("bottom_k/", stringify!($t)), typed::$t::bottom_k), &[d], 63, Tol::Exact));
                }
            )+
            $(
                v.push(Case::random(gen!(concat!("sort/", stringify!($c)), typed::$c::sort), &[Dist::Any], 64, Tol::Exact));
            )+
            v
        }
        fn typed_flow_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $( flow_cases!(v, $t); )+
            $( flow_cases!(v, $c); )+
            v
        }
    };
}

/// A convolution, a While and both Conditionals on element type `$t`.
macro_rules! flow {
    ($t:ident) => {
        xla_aot::xla! {
            pub fn conv(x: $t[2, 7, 6, 2], w: $t[3, 2, 2, 3]) -> $t[2, 4, 6, 3] {
                ConvGeneralDilated(x, w, window_strides = [2, 1], padding = [[1, 1], [0, 1]],
                    lhs_dilation = [1, 1], rhs_dilation = [1, 1],
                    dimension_numbers = [NHWC, HWIO, NHWC])
            }
            /// Five doublings of the payload (wrapping for integers, `or` for pred).
            pub fn loop5(x: $t[9]) -> (s32[], $t[9]) {
                While(|s| Lt(s.0, 5i32), |s| Tuple(Add(s.0, 1i32), Add(s.1, s.1)), Tuple(0i32, x))
            }
            pub fn branch(p: pred[], x: $t[2, 5], y: $t[2, 5]) -> $t[2, 5] {
                Conditional(p, x, |a| Add(a, a), y, |b| Rev(b, dimensions = [1]))
            }
            pub fn case3(i: s32[], x: $t[4], y: $t[4], z: $t[4]) -> $t[4] {
                Conditional(i, [|a| a, |b| Mul(b, b), |c| Rev(c, dimensions = [0])], [x, y, z])
            }
        }
    };
}

/// The cases of `flow!($t)`: small integer values make every sum exact, so every type must
/// match XLA's bits.
macro_rules! flow_cases {
    ($v:ident, $t:ident) => {{
        let ints = |g: common::Gen, seed: u64| {
            common::args_with(g, |i, a| {
                common::int_valued(a.ty, &a.dims, seed + i as u64, 2.0)
            })
        };
        let g = gen!(concat!("conv/", stringify!($t)), typed::$t::conv);
        $v.push(Case::new(g, "ints", ints(g, 70), Tol::Exact));
        let g = gen!(concat!("while/", stringify!($t)), typed::$t::loop5);
        $v.push(Case::new(g, "ints", ints(g, 71), Tol::Exact));
        for p in [true, false] {
            let g = gen!(concat!("conditional/", stringify!($t)), typed::$t::branch);
            let mut args = ints(g, 72);
            args[0] = xla_aot::core::Literal::scalar(p);
            $v.push(Case::new(
                g,
                if p { "true" } else { "false" },
                args,
                Tol::Exact,
            ));
        }
        for i in [-3i32, 0, 1, 2, 7] {
            let g = gen!(concat!("case/", stringify!($t)), typed::$t::case3);
            let mut args = ints(g, 73);
            args[0] = xla_aot::core::Literal::scalar(i);
            $v.push(Case::new(g, &format!("index {i}"), args, Tol::Exact));
        }
    }};
}

per_type! {
    pred Lt, s8 Lt, s16 Lt, s32 Lt, s64 Lt, u8 Lt, u16 Lt, u32 Lt, u64 Lt,
    f16 LtTotalOrder, bf16 LtTotalOrder, f32 LtTotalOrder, f64 LtTotalOrder;
    complex: c64, c128
}

fn sort_cases() -> Vec<Case> {
    let mut v = typed_cases();
    for (g, d) in [
        (gen!("sort/f32", sort_f32), Dist::Special),
        (gen!("sort/f32/any", sort_f32), Dist::Any),
        (gen!("sort/s32/desc", sort_desc_s32), Dist::Any),
        (gen!("sort/f64/long", sort_long_f64), Dist::Special),
        (gen!("sort/lexicographic", sort_lexicographic), Dist::Any),
        (gen!("top_k/largest", top_k_largest), Dist::Any),
        (gen!("top_k/smallest", top_k_smallest), Dist::Any),
        (gen!("sort/median", sort_then_slice_median), Dist::Any),
    ] {
        v.push(Case::random(g, &[d], 21, Tol::Exact));
    }
    // Distinct keys (a stable sort and XLA's agree only up to the order of equal keys).
    let kp = gen!("sort/key_payload", sort_key_payload);
    let args = common::args_with(kp, |i, a| {
        if i == 0 {
            let n = a.dims.iter().product::<i64>();
            let keys: Vec<i32> = (0..n).map(|j| ((j * 7919) % n) as i32 - 50).collect();
            xla_aot::core::Literal::from_vec(&a.dims, keys).expect("keys")
        } else {
            common::random_arg(&xla_aot::core::Shape::Array(a.clone()), 22, Dist::Any)
        }
    });
    v.push(Case::new(kp, "distinct", args, Tol::Exact));
    v
}

fn conv_cases() -> Vec<Case> {
    let mut v = Vec::new();
    // Small integer values: every product and sum is exact, so results match XLA's bits
    // whatever order either side sums in.
    for (g, seed) in [
        (gen!("conv/nhwc_same", conv_nhwc_same), 31),
        (gen!("conv/nchw_valid", conv_nchw_valid), 32),
        (gen!("conv/dilated", conv_dilated), 33),
        (gen!("conv/depthwise", conv_depthwise), 34),
        (gen!("conv/s8_to_s32", conv_s8_to_s32), 35),
        (gen!("conv/s32", conv_s32), 36),
    ] {
        let args = common::args_with(g, |i, a| {
            common::int_valued(a.ty, &a.dims, seed + i as u64, 3.0)
        });
        v.push(Case::new(g, "ints", args, Tol::Exact));
    }
    let g = gen!("conv/nhwc_same", conv_nhwc_same);
    v.push(Case::random(
        g,
        &[Dist::Any],
        37,
        common::reduce_tol(ElementType::F32),
    ));
    v
}

fn control_cases() -> Vec<Case> {
    let mut v = Vec::new();
    v.push(Case::random(
        gen!("while/count", count_loop),
        &[Dist::Range(-4.0, 4.0)],
        41,
        Tol::Exact,
    ));
    v.push(Case::random(
        gen!("while/zero_trip", zero_trip),
        &[Dist::Range(-100.0, 100.0)],
        42,
        Tol::Exact,
    ));
    let pi = gen!("while/power_iteration", power_iteration);
    v.push(Case::random(
        pi,
        &[Dist::Range(0.5, 1.5)],
        43,
        Tol::Rel(1e-5),
    ));
    for (p, label) in [(true, "true"), (false, "false")] {
        let g = gen!("conditional/pred", choose_pred);
        let mut args = common::args_with(g, |i, a| {
            common::random_arg(
                &xla_aot::core::Shape::Array(a.clone()),
                44 + i as u64,
                Dist::Range(-3.0, 3.0),
            )
        });
        args[0] = xla_aot::core::Literal::scalar(p);
        v.push(Case::new(
            g,
            label,
            args,
            common::gen_bound("exp", ElementType::F32),
        ));
    }
    for i in [-1i32, 0, 1, 2, 3, 99] {
        let g = gen!("conditional/index", choose_index);
        let mut args = common::args_with(g, |k, a| {
            common::int_valued(a.ty, &a.dims, 50 + k as u64, 100.0)
        });
        args[0] = xla_aot::core::Literal::scalar(i);
        v.push(Case::new(g, &format!("index {i}"), args, Tol::Exact));
    }
    v
}

#[test]
fn generated_sort_and_top_k_match_xla() {
    check_all("generated sort and top_k", sort_cases());
}

#[test]
fn generated_convolutions_match_xla() {
    check_all("generated convolutions", conv_cases());
}

#[test]
fn generated_conv_while_and_conditional_on_every_type_match_xla() {
    check_all(
        "generated conv, While and Conditional per type",
        typed_flow_cases(),
    );
}

#[test]
fn generated_while_and_conditional_match_xla() {
    check_all("generated while and conditional", control_cases());
}
