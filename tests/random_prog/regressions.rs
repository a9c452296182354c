//! Programs that were refused or computed wrongly, kept as regression tests (checked like the
//! generated ones: generated code and evaluator against XLA). The issue-8 programs come first;
//! a random program that fails is added here as the generator printed it (with its data, bounds
//! and seed).

// The allocating wrappers are not called: the programs run through `run_literals`.
#![allow(dead_code)]

use super::Compiled;
use super::Data::{F, S};
use super::Tol::{Exact, Ulp};

// Issue 8 (a): integer dots with a preferred type of the other signedness or wider, a float
// product truncated to an integer, and a narrower float, all refused before.
xla_aot::xla! {
    pub fn dot_u8_s32(x: u8[3, 17], y: u8[17, 5]) -> s32[3, 5] {
        DotGeneral(x, y, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],
                   preferred_element_type = s32)
    }
    pub fn dot_s8_u32(x: s8[2, 9, 4], y: s8[2, 4, 3]) -> u32[2, 9, 3] {
        DotGeneral(x, y, lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
                   lhs_batch_dimensions = [0], rhs_batch_dimensions = [0],
                   preferred_element_type = u32)
    }
    pub fn dot_u8_u8(x: u8[4, 6], y: u8[6]) -> u8[4] {
        Dot(x, y, preferred_element_type = u8)
    }
    pub fn dot_s16_f32(x: s16[5, 8], y: s16[8, 3]) -> f32[5, 3] {
        Dot(x, y, preferred_element_type = f32)
    }
    pub fn dot_f32_s32(x: f32[4, 7], y: f32[7, 2]) -> s32[4, 2] {
        Dot(x, y, preferred_element_type = s32)
    }
    pub fn dot_f32_bf16(x: f32[3, 5], y: f32[5, 4]) -> bf16[3, 4] {
        Dot(x, y, preferred_element_type = bf16)
    }
    pub fn dot_pred_s32(x: pred[6, 5], y: pred[5, 2]) -> s32[6, 2] {
        Dot(x, y, preferred_element_type = s32)
    }
    pub fn dot_f16_c64(x: f16[3, 4], y: f16[4, 2]) -> c64[3, 2] {
        Dot(x, y, preferred_element_type = c64)
    }
}

// Issue 8 (b): a DotGeneral with batch dims whose operands are broadcast scalars.
xla_aot::xla! {
    pub fn dot_batch_of_scalars(x: f32[], y: f32[]) -> f32[2, 3, 4] {
        let a = BroadcastInDim(x, out_dim_size = [2, 3, 5], broadcast_dimensions = []);
        let b = BroadcastInDim(y, out_dim_size = [5, 4, 2], broadcast_dimensions = []);
        DotGeneral(a, b, lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0],
                   lhs_batch_dimensions = [0], rhs_batch_dimensions = [2])
    }
}

// Issue 8 (c): a stored product with a zero-sized dim read through a transposed view by the
// next DotGeneral, and a dot contracting a zero-sized dim (all zeros).
xla_aot::xla! {
    pub fn dot_of_empty_product(x: f32[4, 5, 3], y: f32[3, 0], r: f32[5, 2]) -> f32[4, 0, 2] {
        let a = DotGeneral(x, y, lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]);
        DotGeneral(a, r, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0])
    }
    pub fn dot_contracting_empty(x: f32[4, 0], y: f32[0, 3]) -> f32[4, 3] {
        Dot(x, y)
    }
}

// Issue 8 (d): a parameter that only feeds a dropped tuple element (rustc warned it unused).
xla_aot::xla! {
    pub fn dropped_tuple_element(x: f32[2], y: f32[2]) -> f32[2] {
        let t = Tuple(x, y);
        GetTupleElement(t, index = 0)
    }
}

// Signed zeros the random programs found (seeds 1052, 1072, 41681, 700254): a sum or dot of
// -0 terms is +0 for ours (a sum from +0, as the StableHLO spec's reduce) and -0 for XLA:CPU
// where it multiplies instead (one product per element) or reduces from the first term; the
// values must agree up to the sign of zero (`Ulp(0)`).
xla_aot::xla! {
    pub fn dot_negative_zero_products(x: f32[4, 1], y: f32[1, 3]) -> f32[4, 3] {
        Dot(x, y)
    }
    pub fn sum_of_negative_zeros(x: f16[3, 5]) -> f16[3] {
        Reduce(RoundNearestEven(Sin(x)), 0, dimensions = [1], |a, b| Add(a, b))
    }
    pub fn complex_product_zero_parts(x: c64[], p: pred[6]) -> c64[6] {
        Mul(x, ConvertElementType(p, new_element_type = c64), broadcast_dimensions = [])
    }
}

// XLA:CPU's own failures the random programs found, which the generator now avoids (they
// cannot run against XLA, so they are listed, not kept as programs):
// - `Div(Xor(x, x), Xor(x, x))` on u64, and `Rem(i, i)` of an argmax index over an empty dim:
//   the process dies of SIGFPE folding an integer division by a constant zero (1111, 41211).
// - `Add(Ge(x, x), Ge(y, y))` on pred folds to false (compiled code: true), `Atan2(c, c)` of
//   constant zeros folds to NaN (compiled: 0) (21961, 22276).
// - `Max(Clamp(lo, x, hi), lo)` is simplified to the clamp, wrong when lo > hi (20810).
// - `Div(Pow(a, b), Pow(a, b))` on u8 is 0 for 4 / 4 (101451); `Pow(x, c)` with a folded
//   c = -1 is rewritten as 1 / x, which its compiled integer pow does not give (200437).
// - An f16 TotalOrder compare of a broadcast stops LLVM on AVX-512 ("Cannot select
//   X86ISD::SUBV_BROADCAST_LOAD v16f16", 42366).
// - `Clz` of an s8 constant folds to 200 for clz(1) (300073); `a / Rsqrt(b)` is computed as
//   `a * Sqrt(b)`, 1 ulp off in f16 (301879, now held to the bound of a rewritten division).

/// Every regression program.
#[rustfmt::skip]
pub const REGRESSIONS: &[Compiled] = &[
    Compiled { name: "dot_u8_s32", run: dot_u8_s32::run_literals, computation: dot_u8_s32::computation, stablehlo: dot_u8_s32::stablehlo, data: &[F, F], tol: &[Exact], seed: 1 },
    Compiled { name: "dot_s8_u32", run: dot_s8_u32::run_literals, computation: dot_s8_u32::computation, stablehlo: dot_s8_u32::stablehlo, data: &[F, F], tol: &[Exact], seed: 2 },
    Compiled { name: "dot_u8_u8", run: dot_u8_u8::run_literals, computation: dot_u8_u8::computation, stablehlo: dot_u8_u8::stablehlo, data: &[F, F], tol: &[Exact], seed: 3 },
    Compiled { name: "dot_s16_f32", run: dot_s16_f32::run_literals, computation: dot_s16_f32::computation, stablehlo: dot_s16_f32::stablehlo, data: &[S(100), S(100)], tol: &[Exact], seed: 4 },
    Compiled { name: "dot_f32_s32", run: dot_f32_s32::run_literals, computation: dot_f32_s32::computation, stablehlo: dot_f32_s32::stablehlo, data: &[S(8), S(8)], tol: &[Exact], seed: 5 },
    Compiled { name: "dot_f32_bf16", run: dot_f32_bf16::run_literals, computation: dot_f32_bf16::computation, stablehlo: dot_f32_bf16::stablehlo, data: &[S(4), S(4)], tol: &[Exact], seed: 6 },
    Compiled { name: "dot_pred_s32", run: dot_pred_s32::run_literals, computation: dot_pred_s32::computation, stablehlo: dot_pred_s32::stablehlo, data: &[F, F], tol: &[Exact], seed: 7 },
    Compiled { name: "dot_f16_c64", run: dot_f16_c64::run_literals, computation: dot_f16_c64::computation, stablehlo: dot_f16_c64::stablehlo, data: &[S(8), S(8)], tol: &[Exact], seed: 8 },
    Compiled { name: "dot_batch_of_scalars", run: dot_batch_of_scalars::run_literals, computation: dot_batch_of_scalars::computation, stablehlo: dot_batch_of_scalars::stablehlo, data: &[S(4), S(4)], tol: &[Exact], seed: 9 },
    Compiled { name: "dot_of_empty_product", run: dot_of_empty_product::run_literals, computation: dot_of_empty_product::computation, stablehlo: dot_of_empty_product::stablehlo, data: &[F, F, F], tol: &[Exact], seed: 10 },
    Compiled { name: "dot_contracting_empty", run: dot_contracting_empty::run_literals, computation: dot_contracting_empty::computation, stablehlo: dot_contracting_empty::stablehlo, data: &[F, F], tol: &[Exact], seed: 11 },
    Compiled { name: "dot_negative_zero_products", run: dot_negative_zero_products::run_literals, computation: dot_negative_zero_products::computation, stablehlo: dot_negative_zero_products::stablehlo, data: &[S(2), S(2)], tol: &[Ulp(0)], seed: 13 },
    Compiled { name: "sum_of_negative_zeros", run: sum_of_negative_zeros::run_literals, computation: sum_of_negative_zeros::computation, stablehlo: sum_of_negative_zeros::stablehlo, data: &[S(3)], tol: &[Ulp(0)], seed: 14 },
    Compiled { name: "complex_product_zero_parts", run: complex_product_zero_parts::run_literals, computation: complex_product_zero_parts::computation, stablehlo: complex_product_zero_parts::stablehlo, data: &[S(3), F], tol: &[Ulp(0)], seed: 15 },
    Compiled { name: "dropped_tuple_element", run: dropped_tuple_element::run_literals, computation: dropped_tuple_element::computation, stablehlo: dropped_tuple_element::stablehlo, data: &[F, F], tol: &[Exact], seed: 12 },
];
