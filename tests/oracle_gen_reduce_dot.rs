//! Oracle test of the generated code for Reduce (sum, max, min over different dimensions; a
//! reducer given as a fn of the block; variadic argmax) and Dot / DotGeneral (vec·vec, mat·vec,
//! mat·mat, batch dimensions, a transposed contraction, preferred element types) on every
//! element type XLA allows them on.
//!
//! Integers are bit-exact (wrapping sums are order-free). Floats are bit-exact on integer-valued
//! inputs (every partial sum is exact, so the summation order cannot matter); on random reals
//! they are within the forward-error bound of a sum in any order (`common::Tol::Forward`): XLA's
//! summation order is unspecified, differs from ours and between its AVX2 and AVX-512 code.
//! Long f16/bf16 sums fold in XLA:CPU's windows of 32, as XLA does: bf16 bit-exact, f16 within
//! the forward bound.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_reduce_dot`.

// The allocating `fn name(&Tensor..)` wrappers are not called here: the cases run the generated
// code through `name::run_literals` (which calls `name::into`).
#![allow(dead_code)]

mod common;

use common::{args_with, check_all, int_valued, reduce_tol, Case, Gen, Tol};
use xla_aot::core::ElementType;
use xla_aot::Shape;
use xla_oracle::{random_literal, Dist};

/// Per type: sums over four dimension sets, max and min over two, of `T[3, 17, 5]`.
macro_rules! reductions {
    ($( $t:ident ),+ ) => {
        mod reduce {
            $(
                #[allow(dead_code)]
                pub mod $t {
                    xla_aot::xla! {
                        pub fn sum_1(x: $t[3, 17, 5]) -> $t[3, 5] {
                            Reduce(x, 0, dimensions = [1], |a, b| a + b)
                        }
                        pub fn sum_2(x: $t[3, 17, 5]) -> $t[3, 17] {
                            Reduce(x, 0, dimensions = [2], |a, b| Add(a, b))
                        }
                        pub fn sum_02(x: $t[3, 17, 5]) -> $t[17] {
                            Reduce(x, 0, dimensions = [0, 2], |a, b| a + b)
                        }
                        pub fn sum_all(x: $t[3, 17, 5]) -> $t[] {
                            Reduce(x, 0, dimensions = [0, 1, 2], |a, b| a + b)
                        }
                        pub fn max_1(x: $t[3, 17, 5]) -> $t[3, 5] {
                            Reduce(x, $t::MIN, dimensions = [1], |a, b| Max(a, b))
                        }
                        pub fn max_02(x: $t[3, 17, 5]) -> $t[17] {
                            Reduce(x, $t::MIN, dimensions = [0, 2], |a, b| Max(a, b))
                        }
                        pub fn min_2(x: $t[3, 17, 5]) -> $t[3, 17] {
                            Reduce(x, $t::MAX, dimensions = [2], |a, b| Min(a, b))
                        }
                        pub fn min_01(x: $t[3, 17, 5]) -> $t[5] {
                            Reduce(x, $t::MAX, dimensions = [0, 1], |a, b| Min(a, b))
                        }
                    }
                }
            )+
        }
        fn reduce_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                for g in [
                    gen!(concat!("sum/", stringify!($t), "/[1]"), reduce::$t::sum_1),
                    gen!(concat!("sum/", stringify!($t), "/[2]"), reduce::$t::sum_2),
                    gen!(concat!("sum/", stringify!($t), "/[0,2]"), reduce::$t::sum_02),
                    gen!(concat!("sum/", stringify!($t), "/[0,1,2]"), reduce::$t::sum_all),
                ] {
                    sum_cases(&mut v, g);
                }
                for g in [
                    gen!(concat!("max/", stringify!($t), "/[1]"), reduce::$t::max_1),
                    gen!(concat!("max/", stringify!($t), "/[0,2]"), reduce::$t::max_02),
                    gen!(concat!("min/", stringify!($t), "/[2]"), reduce::$t::min_2),
                    gen!(concat!("min/", stringify!($t), "/[0,1]"), reduce::$t::min_01),
                ] {
                    // Max and min are order-free, NaN included: exact on special values.
                    v.push(Case::random(g, &[Dist::Special], 31, Tol::Exact));
                    v.push(Case::random(g, &[Dist::Any], 32, Tol::Exact));
                }
            )+
            v
        }
    };
}

reductions!(s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64);

/// The element type of the first parameter.
fn param_ty(g: Gen) -> ElementType {
    match (g.computation)().params.first() {
        Some(Shape::Array(a)) => a.ty,
        other => panic!("{}: unexpected parameter {other:?}", g.name),
    }
}

/// Integers: any values (wrapping sums); floats: integer values in [-2, 2] (exact) and random
/// reals in [0, 1) (relative tolerance).
fn sum_cases(v: &mut Vec<Case>, g: Gen) {
    let ty = param_ty(g);
    if ty.is_integral() {
        v.push(Case::random(g, &[Dist::Special], 33, Tol::Exact));
        return;
    }
    let args = args_with(g, |i, s| int_valued(s.ty, &s.dims, 34 + i as u64, 2.0));
    v.push(Case::new(g, "int-valued", args, Tol::Exact));
    v.push(Case::random(
        g,
        &[Dist::Range(-1.0, 1.0)],
        35,
        reduce_tol(ty),
    ));
}

// A reducer that is a fn of the block, complex sums, and the variadic argmax (ties go to the
// lower index).
xla_aot::xla! {
    fn add_f64(a: f64[], b: f64[]) -> f64[] { a + b }
    pub fn sum_by_fn(x: f64[3, 17, 5]) -> f64[3, 5] {
        Reduce(x, 0.0, dimensions = [1], add_f64)
    }
    pub fn sum_c64(x: c64[3, 17, 5]) -> c64[3, 5] {
        Reduce(x, 0, dimensions = [1], |a, b| a + b)
    }
    pub fn sum_c128(x: c128[3, 17, 5]) -> c128[17] {
        Reduce(x, 0, dimensions = [0, 2], |a, b| a + b)
    }
    fn argmax_step(av: f32[], ai: s32[], bv: f32[], bi: s32[]) -> (f32[], s32[]) {
        let take_a = Or(Gt(av, bv), And(Eq(av, bv), Lt(ai, bi)));
        Tuple(Select(take_a, av, bv), Select(take_a, ai, bi))
    }
    pub fn argmax_rows(x: f32[6, 33]) -> (f32[6], s32[6]) {
        Reduce(x, Iota(s32[6, 33], iota_dimension = 1), f32::NEG_INFINITY, 0,
               dimensions = [1], argmax_step)
    }
    pub fn argmax_cols(x: f32[6, 33]) -> (f32[33], s32[33]) {
        Reduce(x, Iota(s32[6, 33], iota_dimension = 0), f32::NEG_INFINITY, 0,
               dimensions = [0], argmax_step)
    }
}

fn reduce_misc_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for g in [
        gen!("sum/f64/fn-reducer", sum_by_fn),
        gen!("sum/c64/[1]", sum_c64),
        gen!("sum/c128/[0,2]", sum_c128),
    ] {
        let args = args_with(g, |i, s| int_valued(s.ty, &s.dims, 40 + i as u64, 2.0));
        v.push(Case::new(g, "int-valued", args, Tol::Exact));
        v.push(Case::random(
            g,
            &[Dist::Range(-1.0, 1.0)],
            41,
            reduce_tol(param_ty(g)),
        ));
    }
    let g = gen!("sum/bf16/a+b*b", sum_sq_bf16);
    v.push(Case::random(g, &[Dist::Range(0.0, 1.0)], 44, Tol::Exact));
    for g in [
        gen!("argmax/rows", argmax_rows),
        gen!("argmax/cols", argmax_cols),
    ] {
        // Few distinct values, so that ties happen.
        let args = args_with(g, |i, s| int_valued(s.ty, &s.dims, 42 + i as u64, 3.0));
        v.push(Case::new(g, "ties", args, Tol::Exact));
        v.push(Case::random(g, &[Dist::Any], 43, Tol::Exact));
    }
    v
}

/// Long f16/bf16 sums (rows, columns, everything, a 2-D grid with padding on both dims, a fused
/// producer, a stored producer, a broadcast operand): every reducer step rounds to the narrow
/// type, so only XLA:CPU's windows of 32 (`xla_core::reduce_order`) keep these close to the
/// exact sum; a left-to-right bf16 fold of values near 1 stops at 256.
macro_rules! long_sums {
    ($( $t:ident ),+ ) => {
        mod long {
            $(
                #[allow(dead_code)]
                pub mod $t {
                    xla_aot::xla! {
                        pub fn rows1024(x: $t[2, 1024]) -> $t[2] {
                            Reduce(x, 0, dimensions = [1], |a, b| a + b)
                        }
                        pub fn rows4099(x: $t[3, 4099]) -> $t[3] {
                            Reduce(x, 0, dimensions = [1], |a, b| a + b)
                        }
                        pub fn cols1024(x: $t[1024, 3]) -> $t[3] {
                            Reduce(x, 0, dimensions = [0], |a, b| a + b)
                        }
                        pub fn all(x: $t[2, 1024]) -> $t[] {
                            Reduce(x, 0, dimensions = [0, 1], |a, b| a + b)
                        }
                        pub fn grid(x: $t[3, 40, 50]) -> $t[3] {
                            Reduce(x, 0, dimensions = [1, 2], |a, b| a + b)
                        }
                        pub fn squares(x: $t[2, 1024]) -> $t[2] {
                            Reduce(x * x, 0, dimensions = [1], |a, b| a + b)
                        }
                        pub fn stored(x: $t[2, 1000]) -> ($t[2], $t[2, 1000]) {
                            let e = x * x + x;
                            Tuple(Reduce(e, 0, dimensions = [1], |a, b| a + b), e)
                        }
                        pub fn bcast(v: $t[3]) -> $t[3] {
                            let x = BroadcastInDim(v, out_dim_size = [3, 1000],
                                                   broadcast_dimensions = [0]);
                            Reduce(x, 0, dimensions = [1], |a, b| a + b)
                        }
                    }
                }
            )+
        }
        fn long_sum_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                for (g, exact) in [
                    (gen!(concat!("long/", stringify!($t), "/rows1024"), long::$t::rows1024), true),
                    (gen!(concat!("long/", stringify!($t), "/rows4099"), long::$t::rows4099), true),
                    (gen!(concat!("long/", stringify!($t), "/cols1024"), long::$t::cols1024), true),
                    (gen!(concat!("long/", stringify!($t), "/all"), long::$t::all), true),
                    (gen!(concat!("long/", stringify!($t), "/grid"), long::$t::grid), true),
                    (gen!(concat!("long/", stringify!($t), "/squares"), long::$t::squares), true),
                    // XLA may keep `x * x + x` in f32: the forward bound, for both types.
                    (gen!(concat!("long/", stringify!($t), "/stored"), long::$t::stored), false),
                ] {
                    let ty = param_ty(g);
                    let dists = [Dist::Range(0.5, 1.5), Dist::Range(-1.0, 1.0)];
                    for (k, d) in dists.into_iter().enumerate() {
                        v.push(Case::random(g, &[d], 70 + k as u64, narrow_tol(ty, exact)));
                    }
                }
                // XLA turns a sum of a broadcast into a product; the windows add 1000 equal
                // terms whose rounding errors do not cancel (0.5% off in f16 on reals), so
                // integers in [-2, 2], exact in any order (a window that nothing reads along).
                let g = gen!(concat!("long/", stringify!($t), "/broadcast"), long::$t::bcast);
                let args = args_with(g, |i, s| int_valued(s.ty, &s.dims, 72 + i as u64, 2.0));
                v.push(Case::new(g, "int-valued", args, Tol::Exact));
            )+
            v
        }
    };
}

long_sums!(f16, bf16);

// A reducer that is not associative: XLA:CPU squares each window's partial sum again, and so do
// the generated code and the evaluator (the order, not the sum, is what is checked).
xla_aot::xla! {
    pub fn sum_sq_bf16(x: bf16[2, 100]) -> bf16[2] {
        Reduce(x, 0, dimensions = [1], |a, b| a + b * b)
    }
}

/// bf16 sums in XLA's windows are XLA's bits on AVX2 and AVX-512 (its bf16 reducer rounds every
/// step, folding in row-major order); XLA's f16 loops differ between its ISAs (with AVX2 they
/// keep excess precision), so f16 is held to the forward bound. `exact`: the program's bf16 bits
/// are XLA's (not for an elementwise chain XLA may keep in f32, or a rewritten broadcast sum).
fn narrow_tol(ty: ElementType, exact: bool) -> Tol {
    if exact && ty == ElementType::Bf16 {
        Tol::Exact
    } else {
        reduce_tol(ty)
    }
}

/// Per type: vec·vec, mat·vec, mat·mat, a batched DotGeneral and a transposed contraction.
macro_rules! dots {
    ($( $t:ident ),+ ) => {
        mod dot {
            $(
                #[allow(dead_code)]
                pub mod $t {
                    xla_aot::xla! {
                        pub fn vv(a: $t[33], b: $t[33]) -> $t[] { Dot(a, b) }
                        pub fn mv(a: $t[5, 33], b: $t[33]) -> $t[5] { Dot(a, b) }
                        pub fn mm(a: $t[5, 33], b: $t[33, 3]) -> $t[5, 3] { Dot(a, b) }
                        pub fn batch(a: $t[2, 3, 17], b: $t[2, 17, 5]) -> $t[2, 3, 5] {
                            DotGeneral(a, b, lhs_contracting_dimensions = [2],
                                       rhs_contracting_dimensions = [1],
                                       lhs_batch_dimensions = [0], rhs_batch_dimensions = [0])
                        }
                        pub fn trans(a: $t[7, 3], b: $t[2, 7]) -> $t[3, 2] {
                            DotGeneral(a, b, lhs_contracting_dimensions = [0],
                                       rhs_contracting_dimensions = [1])
                        }
                    }
                }
            )+
        }
        fn dot_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                for g in [
                    gen!(concat!("dot/vv/", stringify!($t)), dot::$t::vv),
                    gen!(concat!("dot/mv/", stringify!($t)), dot::$t::mv),
                    gen!(concat!("dot/mm/", stringify!($t)), dot::$t::mm),
                    gen!(concat!("dot_general/batch/", stringify!($t)), dot::$t::batch),
                    gen!(concat!("dot_general/transposed/", stringify!($t)), dot::$t::trans),
                ] {
                    // Integer values in [-2, 2]: every product and partial sum is exact (33
                    // terms stay below 256, exact even in bf16), so any order gives the same bits.
                    let args = args_with(g, |i, s| int_valued(s.ty, &s.dims, 50 + i as u64, 2.0));
                    v.push(Case::new(g, "int-valued", args, Tol::Exact));
                    if param_ty(g).is_integral() {
                        v.push(Case::random(g, &[Dist::Any], 51, Tol::Exact));
                    }
                }
            )+
            v
        }
    };
}

dots!(s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128);

// Preferred element types, and real-valued f32/f64 products of 100 terms.
xla_aot::xla! {
    pub fn dot_s8_s32(a: s8[4, 64], b: s8[64, 3]) -> s32[4, 3] {
        Dot(a, b, preferred_element_type = s32)
    }
    /// The byte GEMM (`gemm_s8_s32`) through strides: batched, lhs read transposed, sizes
    /// across its tiles (8 x 32) and k quads.
    pub fn dot_s8_s32_batched(a: s8[2, 70, 33], b: s8[2, 45, 70]) -> s32[2, 33, 45] {
        DotGeneral(a, b, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2],
            lhs_batch_dimensions = [0], rhs_batch_dimensions = [0], preferred_element_type = s32)
    }
    pub fn dot_bf16_f32(a: bf16[4, 64], b: bf16[64, 3]) -> f32[4, 3] {
        Dot(a, b, preferred_element_type = f32)
    }
    pub fn dot_f16_f32(a: f16[4, 64], b: f16[64, 3]) -> f32[4, 3] {
        DotGeneral(a, b, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],
                   preferred_element_type = f32)
    }
    pub fn dot_f32_real(a: f32[6, 100], b: f32[100, 7]) -> f32[6, 7] { Dot(a, b) }
    pub fn dot_f64_real(a: f64[6, 100], b: f64[100, 7]) -> f64[6, 7] { Dot(a, b) }
}

fn dot_misc_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for g in [
        gen!("dot/preferred/s8->s32", dot_s8_s32),
        gen!("dot_general/preferred/s8->s32 batched", dot_s8_s32_batched),
        gen!("dot/preferred/bf16->f32", dot_bf16_f32),
        gen!("dot_general/preferred/f16->f32", dot_f16_f32),
    ] {
        // Products up to 100^2 summed 64 times: exact in the wider type only.
        let args = args_with(g, |i, s| int_valued(s.ty, &s.dims, 60 + i as u64, 100.0));
        v.push(Case::new(g, "int-valued", args, Tol::Exact));
    }
    // Bytes over their whole range (-128 * -128 the largest product): exact in s32.
    let g = gen!("dot_general/preferred/s8->s32 batched", dot_s8_s32_batched);
    v.push(Case::random(g, &[Dist::Any], 62, Tol::Exact));
    for (g, ty) in [
        (gen!("dot/real/f32", dot_f32_real), ElementType::F32),
        (gen!("dot/real/f64", dot_f64_real), ElementType::F64),
    ] {
        let args = args_with(g, |i, s| {
            random_literal(s, 61 + i as u64, Dist::Range(-1.0, 1.0))
        });
        v.push(Case::new(g, "Range(-1,1)", args, reduce_tol(ty)));
    }
    v
}

#[test]
fn generated_reductions_and_dots_match_xla() {
    let mut v = reduce_cases();
    v.extend(reduce_misc_cases());
    v.extend(long_sum_cases());
    v.extend(dot_cases());
    v.extend(dot_misc_cases());
    check_all("generated reductions and dots", v);
}
