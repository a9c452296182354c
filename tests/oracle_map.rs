//! Map against XLA:CPU: the generated code (the computation lifted to arrays and fused into
//! the consumer's loop, `expand::inline::lift_to_arrays`) and the evaluator (the computation
//! applied element by element), on f32/f64/f16/bf16 and integers, one to three operands of
//! different element types, a pred result, a named fn with a call inside, a scalar map, and a
//! Map feeding a Reduce.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_map`.

#![allow(dead_code)]

mod common;

use common::{check_all, reduce_tol, Case, Tol};
use xla_aot::core::ElementType;
use xla_oracle::Dist;

xla_aot::xla! {
    pub fn mul_f32(x: f32[4, 5], y: f32[4, 5]) -> f32[4, 5] {
        Map(x, y, |a, b| a * b, dimensions = [0, 1])
    }
    pub fn scaled_by_count(x: f32[8], k: s32[8]) -> f32[8] {
        Map(x, k, |a, n| Mul(a, ConvertElementType(n, new_element_type = f32)))
    }
    pub fn less(x: f64[3, 7], y: f64[3, 7]) -> pred[3, 7] {
        Map(x, y, |a, b| Lt(a, b))
    }
    pub fn select3(p: pred[16], x: s32[16], y: s32[16]) -> s32[16] {
        Map(p, x, y, |c, a, b| Select(c, a - b, b * 3i32))
    }
    pub fn scalar(x: f32[]) -> f32[] {
        Map(x, |a| a + 1.0, dimensions = [])
    }
    pub fn by_fn(x: f32[2, 3, 4]) -> f32[2, 3, 4] {
        Map(x, softplus_ish)
    }
    fn softplus_ish(a: f32[]) -> f32[] {
        Max(Call(twice, a), 0.0)
    }
    fn twice(a: f32[]) -> f32[] {
        a + a
    }
    pub fn squares_summed(x: f32[64, 33]) -> f32[64] {
        Reduce(Map(x, |a| a * a), 0.0, dimensions = [1], |a, b| a + b)
    }
}

xla_aot::xla! {
    pub fn elu_f32(x: f32[257]) -> f32[257] {
        Map(x, |a| Select(Gt(a, 0.0), a, Expm1(a)))
    }
    pub fn elu_f64(x: f64[257]) -> f64[257] {
        Map(x, |a| Select(Gt(a, 0.0), a, Expm1(a)))
    }
    pub fn elu_f16(x: f16[257]) -> f16[257] {
        Map(x, |a| Select(Gt(a, 0.0), a, Expm1(a)))
    }
    pub fn elu_bf16(x: bf16[257]) -> bf16[257] {
        Map(x, |a| Select(Gt(a, 0.0), a, Expm1(a)))
    }
    pub fn affine_bf16(x: bf16[4, 9], y: bf16[4, 9]) -> bf16[4, 9] {
        Map(x, y, |a, b| a * b + a)
    }
}

#[test]
fn map_matches_xla() {
    let any = &[Dist::Any][..];
    let small = &[Dist::Range(-100.0, 100.0)][..];
    let cases = vec![
        Case::random(gen!("map/mul_f32", mul_f32), any, 1, Tol::Exact),
        Case::random(
            gen!("map/mul_f32/special", mul_f32),
            &[Dist::Special],
            2,
            Tol::Exact,
        ),
        Case::random(
            gen!("map/scaled_by_count", scaled_by_count),
            small,
            3,
            Tol::Exact,
        ),
        Case::random(gen!("map/less_f64", less), &[Dist::Special], 4, Tol::Exact),
        Case::random(gen!("map/select3", select3), small, 5, Tol::Exact),
        Case::random(gen!("map/scalar", scalar), any, 6, Tol::Exact),
        Case::random(gen!("map/by_fn", by_fn), any, 7, Tol::Exact),
        Case::random(
            gen!("map/affine_bf16", affine_bf16),
            &[Dist::Range(-4.0, 4.0)],
            8,
            Tol::Exact,
        ),
        Case::random(
            gen!("map/squares_summed", squares_summed),
            &[Dist::Range(-1.0, 1.0)],
            9,
            reduce_tol(ElementType::F32),
        ),
    ];
    check_all("Map", cases);
}

/// ELU through Expm1: within Expm1's bounds of each type (`xla_oracle::bounds`).
#[test]
fn map_elu_matches_xla() {
    use ElementType::*;
    let d = &[Dist::Range(-8.0, 8.0)][..];
    let cases = vec![
        Case::op(gen!("map/elu_f32", elu_f32), "expm1", F32, d, 10),
        Case::op(gen!("map/elu_f64", elu_f64), "expm1", F64, d, 11),
        Case::op(gen!("map/elu_f16", elu_f16), "expm1", F16, d, 12),
        Case::op(gen!("map/elu_bf16", elu_bf16), "expm1", Bf16, d, 13),
    ];
    check_all("Map (ELU)", cases);
}
