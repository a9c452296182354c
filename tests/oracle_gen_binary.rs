//! Oracle test of the generated code for the arithmetic binary ops (Add Sub Mul Div Rem Max Min
//! Pow Atan2 Complex) on every element type XLA allows them on, in every form of the surface
//! (`common::binary_forms!`: same shapes, broadcast_dimensions on either side, a scalar literal
//! on either side).
//!
//! Each is run through the generated code, the evaluator and XLA:CPU on deterministic inputs
//! with special values (see `common`): exact, or within the op's bound in `xla_oracle::bounds`.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_binary`.

// The allocating `fn name(&Tensor..)` wrappers are not called here: the cases run the generated
// code through `name::run_literals` (which calls `name::into`).
#![allow(dead_code)]

mod common;

use common::{check_all, Case, Form, Gen, Tol};
use xla_aot::core::ElementType;
use xla_aot::Shape;
use xla_oracle::Dist;

/// Input distributions `[lhs, rhs]` for `key` on `ty`: special values on both sides, plus a
/// typical range (small bases and exponents for pow, any values otherwise). XLA multiplies,
/// divides and raises complex numbers with textbook formulas that lose infinities C's Annex G
/// keeps, so complex * / pow stay on finite inputs (as in tests/oracle_eval.rs).
fn dists(key: &str, ty: ElementType) -> Vec<[Dist; 2]> {
    let naive_complex = ty.is_complex() && matches!(key, "mul" | "div" | "pow");
    let mut v = Vec::new();
    if !naive_complex {
        v.push([Dist::Special, Dist::Special]);
    }
    v.push(match key {
        "pow" if ty.is_integral() => [Dist::Range(-4.0, 4.0), Dist::Range(-2.0, 9.0)],
        "pow" => [Dist::Range(0.0, 4.0), Dist::Range(-3.0, 3.0)],
        _ => [Dist::Any, Dist::Any],
    });
    v
}

/// XLA:CPU's algebraic simplifier turns a division by a broadcast or by a constant into a
/// multiplication by the divisor's reciprocal. That is not IEEE division (ours, exact): up to
/// this many ulps apart, and where the reciprocal is subnormal (|y| near the type's max) XLA
/// flushes it to zero and "divides" to ±0. So float Div in the `bd` and `lr` forms (divisor
/// broadcast / literal) is compared within this bound, on divisors without special values (the
/// special values of division are covered by the `ff`, `bd0` and `ll` forms).
const XLA_RECIPROCAL_DIV_ULPS: u64 = 1;

fn push_cases(v: &mut Vec<Case>, key: &str, form: Form, gen: Gen) {
    let comp = (gen.computation)();
    let ty = match comp.params.last() {
        Some(Shape::Array(a)) => a.ty,
        other => panic!("{}: unexpected parameter {other:?}", gen.name),
    };
    let reciprocal =
        key == "div" && ty.is_float() && (form == Form::LitRight || gen.name.ends_with("/bd"));
    for (j, [l, r]) in dists(key, ty).into_iter().enumerate() {
        if reciprocal && form == Form::Pair && r == Dist::Special {
            continue;
        }
        let d = match form {
            Form::Pair => vec![l, r],
            Form::LitRight => vec![l],
            Form::LitLeft => vec![r],
        };
        let mut c = Case::op(gen, key, ty, &d, 100 + j as u64);
        if reciprocal {
            c.gen_tol = Tol::Ulp(XLA_RECIPROCAL_DIV_ULPS);
            c.eval_tol = Tol::Ulp(XLA_RECIPROCAL_DIV_ULPS);
        }
        v.push(c);
    }
}

binary_forms! {
    add Add "add" (2) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64, f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
    sub Sub "sub" (2) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64, f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
    mul Mul "mul" (3) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64, f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
    div Div "div" (3) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64, f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
    rem Rem "rem" (3) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64, f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64;
    max Max "max" (0) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64, f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64;
    min Min "min" (0) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64, f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64;
    pow Pow "pow" (3) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64;
    // Not 2 or 3: XLA rewrites pow(x, 2) and pow(x, 3) with a constant exponent into products,
    // which round differently from pow.
    powf Pow "pow" (1.5) => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
    atan2 Atan2 "atan2" (2) => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64;
    complex Complex "complex" (2) => f32 -> c64, f64 -> c128;
}

#[test]
fn generated_binary_ops_match_xla() {
    check_all("generated binary ops", cases());
}
