//! RaggedDot and ScaledDot (at the end) against XLA:CPU. RaggedDot: the generated code (the mask-and-dot expansion inlined and fused,
//! `xla_core::builder::expand_ragged_dot`) and the evaluator (the same expansion evaluated), on
//! f32/f64/f16/bf16 with s32 and s64 group sizes: random inputs, integer-valued inputs (exact
//! in any summation order), empty groups, sizes summing to less than the rows (the rest zero),
//! to more (the last group cut at the last row), one group. XLA:CPU has no ragged-dot emitter
//! (`UNIMPLEMENTED: HLO opcode ragged-dot`), so XLA runs our export of the expansion; that the
//! expansion means what `jax.lax.ragged_dot` means is checked twice more: against XLA running
//! JAX's own lowering (`tests/stablehlo/ragged_dot_f32.mlir`, from `tests/stablehlo/export.py`)
//! and against a per-row product written here.
//!
//! ScaledDot: f32/f64/f16/bf16, a widened result, batch dimensions, blocks along free and
//! contracting dimensions, blocks of one; against our export and JAX's composite.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_ragged_dot`.

#![allow(dead_code)]

mod common;

use common::{args_with, check_all, compare_case, int_valued, oracle, Case, Gen, Tol};
use xla_aot::core::{ArrayShape, ElementType, Literal};
use xla_oracle::{random_literal, Dist};

xla_aot::xla! {
    pub fn rd_f32(lhs: f32[7, 33], rhs: f32[3, 33, 5], gs: s32[3]) -> f32[7, 5] {
        RaggedDot(lhs, rhs, gs)
    }
    pub fn rd_f64(lhs: f64[7, 33], rhs: f64[3, 33, 5], gs: s32[3]) -> f64[7, 5] {
        RaggedDot(lhs, rhs, gs)
    }
    pub fn rd_f16(lhs: f16[7, 33], rhs: f16[3, 33, 5], gs: s32[3]) -> f16[7, 5] {
        RaggedDot(lhs, rhs, gs)
    }
    pub fn rd_bf16(lhs: bf16[7, 33], rhs: bf16[3, 33, 5], gs: s32[3]) -> bf16[7, 5] {
        RaggedDot(lhs, rhs, gs)
    }
    pub fn rd_s64_sizes(lhs: f32[7, 33], rhs: f32[3, 33, 5], gs: s64[3]) -> f32[7, 5] {
        RaggedDot(lhs, rhs, gs)
    }
    pub fn rd_one_group(lhs: f32[6, 17], rhs: f32[1, 17, 9], gs: s32[1]) -> f32[6, 9] {
        RaggedDot(lhs, rhs, gs)
    }
    /// A mixture-of-experts layer's shape: 64 tokens, 4 experts, then an activation.
    pub fn moe(x: f32[64, 48], w: f32[4, 48, 40], gs: s32[4]) -> f32[64, 40] {
        Max(RaggedDot(x, w, gs), 0.0)
    }
}

/// The group-size vectors every fn with `g` groups over `m` rows runs on.
fn sizes(g: usize, m: i32) -> Vec<Vec<i64>> {
    match g {
        1 => vec![
            vec![m as i64],
            vec![m as i64 - 2],
            vec![0],
            vec![m as i64 + 3],
        ],
        3 => vec![
            vec![2, 3, 2],
            vec![2, 0, 4],
            vec![0, 0, 7],
            vec![7, 0, 0],
            vec![0, 0, 0],
            vec![1, 2, 1],
            vec![5, 5, 5],
        ],
        _ => vec![vec![16; g], vec![30, 0, 20, 5], vec![64, 0, 0, 0]],
    }
}

/// `v` as a vector literal of `ty` (s32 or s64).
fn sizes_literal(ty: ElementType, v: &[i64]) -> Literal {
    let dims = [v.len() as i64];
    match ty {
        ElementType::S64 => Literal::from_vec(&dims, v.to_vec()),
        _ => Literal::from_vec(&dims, v.iter().map(|&x| x as i32).collect()),
    }
    .expect("sizes literal")
}

/// Cases of `gen` for every size vector: integer-valued operands (exact) and random ones
/// (within the dot's forward-error bound).
fn cases_of(gen: Gen, seed: u64) -> Vec<Case> {
    let comp = (gen.computation)();
    let lhs = comp.params[0].as_array().expect("lhs").clone();
    let gs = comp.params[2].as_array().expect("group_sizes").clone();
    let mut v = Vec::new();
    for (i, s) in sizes(gs.dims[0] as usize, lhs.dims[0] as i32)
        .iter()
        .enumerate()
    {
        let seed = seed + 10 * i as u64;
        let label = format!("sizes {s:?}");
        let exact = args_with(gen, |p, a| match p {
            2 => sizes_literal(a.ty, s),
            _ => int_valued(a.ty, &a.dims, seed + p as u64, 2.0),
        });
        v.push(Case::new(
            gen,
            &format!("{label} int-valued"),
            exact,
            Tol::Exact,
        ));
        let random = args_with(gen, |p, a| match p {
            2 => sizes_literal(a.ty, s),
            _ => random_literal(
                &ArrayShape::new(a.ty, &a.dims),
                seed + 5 + p as u64,
                Dist::Range(-1.0, 1.0),
            ),
        });
        v.push(Case::new(
            gen,
            &format!("{label} random"),
            random,
            Tol::Forward,
        ));
    }
    v
}

#[test]
fn ragged_dot_matches_xla() {
    let mut cases = Vec::new();
    for (g, seed) in [
        (gen!("ragged_dot/f32", rd_f32), 100),
        (gen!("ragged_dot/f64", rd_f64), 200),
        (gen!("ragged_dot/f16", rd_f16), 300),
        (gen!("ragged_dot/bf16", rd_bf16), 400),
        (gen!("ragged_dot/s64 sizes", rd_s64_sizes), 500),
        (gen!("ragged_dot/one group", rd_one_group), 600),
        (gen!("ragged_dot/moe", moe), 700),
    ] {
        cases.extend(cases_of(g, seed));
    }
    check_all("RaggedDot", cases);
}

/// `out[i, c] = sum_k lhs[i, k] rhs[j(i), k, c]` written out, zero for rows in no group.
fn per_row(lhs: &[f64], rhs: &[f64], sizes: &[i64], (m, k, n): (usize, usize, usize)) -> Vec<f64> {
    let mut out = vec![0.0; m * n];
    let mut start = 0usize;
    for (j, &s) in sizes.iter().enumerate() {
        let end = (start + s as usize).min(m);
        for i in start..end {
            for c in 0..n {
                out[i * n + c] = (0..k)
                    .map(|t| lhs[i * k + t] * rhs[(j * k + t) * n + c])
                    .sum();
            }
        }
        start = end;
    }
    out
}

/// The generated code on integer-valued f64 operands (every sum exact) equals the products
/// written out row by row.
#[test]
fn ragged_dot_is_the_per_row_product() {
    for (i, s) in sizes(3, 7).iter().enumerate() {
        let args = args_with(gen!("rd_f64", rd_f64), |p, a| match p {
            2 => sizes_literal(a.ty, s),
            _ => int_valued(a.ty, &a.dims, 900 + 3 * i as u64 + p as u64, 3.0),
        });
        let got = rd_f64::run_literals(&args).expect("runs");
        let f = |l: &Literal| l.as_slice::<f64>().expect("f64").to_vec();
        let want = per_row(&f(&args[0]), &f(&args[1]), s, (7, 33, 5));
        assert_eq!(f(&got), want, "sizes {s:?}");
    }
}

/// XLA running JAX's own lowering of `jax.lax.ragged_dot` agrees with the generated code.
#[test]
fn ragged_dot_matches_jax_lowering() {
    let text = include_str!("stablehlo/ragged_dot_f32.mlir");
    let gen = gen!("ragged_dot/f32 vs JAX", rd_f32);
    let comp = rd_f32::computation();
    let mut guard = oracle();
    let xla = guard.as_mut().expect("the XLA oracle starts");
    for (i, s) in sizes(3, 7).iter().enumerate() {
        let args = args_with(gen, |p, a| match p {
            2 => sizes_literal(a.ty, s),
            _ => random_literal(
                &ArrayShape::new(a.ty, &a.dims),
                950 + 3 * i as u64 + p as u64,
                Dist::Range(-1.0, 1.0),
            ),
        });
        let jax = xla.run(text, &args).expect("XLA runs JAX's text").remove(0);
        let ours = rd_f32::run_literals(&args).expect("runs");
        compare_case(
            &format!("sizes {s:?}"),
            &ours,
            &jax,
            Tol::Forward,
            &comp,
            &args,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
}

// ScaledDot: XLA:CPU takes no scaled dot from StableHLO, so XLA runs our export of the
// expansion (the equivalent DotGeneral program), and JAX's own `jax.lax.scaled_dot` (a
// `stablehlo.composite "xla.scaled_dot"` whose decomposition XLA runs) is checked separately.
xla_aot::xla! {
    pub fn sd_f32(a: f32[4, 64], sa: f32[4, 2], b: f32[64, 6], sb: f32[2, 6]) -> f32[4, 6] {
        ScaledDot(a, sa, b, sb, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0])
    }
    pub fn sd_f64(a: f64[4, 64], sa: f64[4, 2], b: f64[64, 6], sb: f64[2, 6]) -> f64[4, 6] {
        ScaledDot(a, sa, b, sb, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0])
    }
    pub fn sd_f16(a: f16[4, 64], sa: f16[4, 2], b: f16[64, 6], sb: f16[2, 6]) -> f16[4, 6] {
        ScaledDot(a, sa, b, sb, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0])
    }
    pub fn sd_bf16(a: bf16[4, 64], sa: bf16[4, 2], b: bf16[64, 6], sb: bf16[2, 6]) -> bf16[4, 6] {
        ScaledDot(a, sa, b, sb, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0])
    }
    /// JAX's default: a bf16 result of f32 operands.
    pub fn sd_jax(a: f32[4, 64], sa: f32[4, 2], b: f32[64, 6], sb: f32[2, 6]) -> bf16[4, 6] {
        ScaledDot(a, sa, b, sb, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],
                  preferred_element_type = bf16)
    }
    /// Batched, scales blocked along free dimensions too, and one block of 32 for all of k.
    pub fn sd_batched(a: f32[2, 6, 32], sa: f32[2, 3, 4], b: f32[2, 32, 5], sb: f32[2, 1, 5]) -> f32[2, 6, 5] {
        ScaledDot(a, sa, b, sb, lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
                  lhs_batch_dimensions = [0], rhs_batch_dimensions = [0])
    }
    /// Blocks of one: a scale per element.
    pub fn sd_elementwise(a: f64[3, 8], sa: f64[3, 8], b: f64[8, 2], sb: f64[8, 2]) -> f64[3, 2] {
        ScaledDot(a, sa, b, sb, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0])
    }
}

#[test]
fn scaled_dot_matches_xla() {
    let d = &[Dist::Range(-1.0, 1.0)][..];
    let mut cases = Vec::new();
    for (i, g) in [
        gen!("scaled_dot/f32", sd_f32),
        gen!("scaled_dot/f64", sd_f64),
        gen!("scaled_dot/f16", sd_f16),
        gen!("scaled_dot/bf16", sd_bf16),
        gen!("scaled_dot/f32->bf16", sd_jax),
        gen!("scaled_dot/batched", sd_batched),
        gen!("scaled_dot/elementwise", sd_elementwise),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 2000 + 10 * i as u64;
        cases.push(Case::random(g, d, seed, Tol::Forward));
        // Small integers: every product and sum exact in f32/f64, so any order gives XLA's bits.
        if matches!(i, 0 | 1 | 5 | 6) {
            let args = args_with(g, |p, a| {
                int_valued(a.ty, &a.dims, seed + 2 + p as u64, 2.0)
            });
            cases.push(Case::new(g, "int-valued", args, Tol::Exact));
        }
    }
    check_all("ScaledDot", cases);
}

/// XLA running JAX's own `jax.lax.scaled_dot` agrees with the generated code and the
/// evaluator.
#[test]
fn scaled_dot_matches_jax() {
    let text = include_str!("stablehlo/scaled_dot_f32.mlir");
    let gen = gen!("scaled_dot/f32 vs JAX", sd_jax);
    let comp = sd_jax::computation();
    let mut guard = oracle();
    let xla = guard.as_mut().expect("the XLA oracle starts");
    for seed in [1u64, 2, 3] {
        let args = args_with(gen, |p, a| {
            random_literal(
                &ArrayShape::new(a.ty, &a.dims),
                3000 + 7 * seed + p as u64,
                Dist::Range(-2.0, 2.0),
            )
        });
        let jax = xla.run(text, &args).expect("XLA runs JAX's text").remove(0);
        let ours = sd_jax::run_literals(&args).expect("runs");
        let eval = xla_aot::core::eval::evaluate(&comp, &args).expect("evaluates");
        for (what, v) in [("generated", &ours), ("evaluator", &eval)] {
            compare_case(
                &format!("seed {seed} [{what}]"),
                v,
                &jax,
                Tol::Forward,
                &comp,
                &args,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
