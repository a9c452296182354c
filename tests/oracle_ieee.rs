//! Where the generated code and the evaluator follow IEEE 754 per op and XLA:CPU takes a shortcut
//! (README, "IEEE per op, not XLA:CPU's shortcuts"). For each item the chosen behaviour is pinned
//! on our side (generated code and evaluator against a reference computed here), and XLA's
//! result must be either ours or the shortcut the README names; how many elements took the
//! shortcut is printed with the CPU XLA ran on, since XLA:CPU's choice depends on the ISA.
//!
//! Flush-to-zero is pinned on XLA's side in `oracle_eval::xla_cpu_flushes_subnormals_to_zero`;
//! here the generated code and the evaluator must keep subnormals.
//!
//! Run: `cargo test -p xla-aot --test oracle_ieee -- --nocapture`.

// The allocating `fn name(&Tensor..)` wrappers are not called: cases run through `run_literals`.
#![allow(dead_code)]

#[macro_use]
mod common;

use half::{bf16, f16};
use xla_aot::core::eval::evaluate;
use xla_aot::core::Literal;

xla_aot::xla! {
    pub fn to_f16(x: f64[64]) -> f16[64] { ConvertElementType(x, new_element_type = f16) }
    pub fn to_bf16(x: f64[64]) -> bf16[64] { ConvertElementType(x, new_element_type = bf16) }
    pub fn s64_to_bf16(x: s64[64]) -> bf16[64] { ConvertElementType(x, new_element_type = bf16) }
    pub fn mul_add(a: f32[64], b: f32[64], c: f32[64]) -> f32[64] { a * b + c }
    pub fn div_by_scalar(x: f32[64], y: f32[]) -> f32[64] {
        Div(x, BroadcastInDim(y, out_dim_size = [64], broadcast_dimensions = []))
    }
    pub fn half_chain(a: f16[64], b: f16[64], c: f16[64]) -> f16[64] { a * b + c }
    pub fn halve(x: f32[64]) -> f32[64] { x * 0.5 }
    pub fn ceiling(x: f32[64]) -> f32[64] { Ceil(x) }
}

/// The generated code's, the evaluator's and XLA's results of one fn, plus where XLA ran.
struct Runs {
    gen: Literal,
    eval: Literal,
    xla: Literal,
    platform: String,
}

fn run(g: common::Gen, args: Vec<Literal>) -> Runs {
    let gen = (g.run)(&args).unwrap_or_else(|e| panic!("{}: generated code: {e}", g.name));
    let eval = evaluate(&(g.computation)(), &args)
        .unwrap_or_else(|e| panic!("{}: evaluator: {e}", g.name));
    let mut guard = common::oracle();
    let oracle = guard
        .as_mut()
        .unwrap_or_else(|e| panic!("{}: the XLA oracle cannot start:\n{e}", g.name));
    let mut xla = oracle
        .run(&(g.stablehlo)(), &args)
        .unwrap_or_else(|e| panic!("{}: {e}", g.name));
    assert_eq!(xla.len(), 1, "{}: one result", g.name);
    Runs {
        gen,
        eval,
        xla: xla.remove(0),
        platform: oracle.platform.clone(),
    }
}

fn vals<T: xla_aot::core::ArrayElement + Copy>(l: &Literal) -> Vec<T> {
    l.as_slice::<T>().expect("the fn's result type").to_vec()
}

/// True when the 16-bit float `r` (bits) is a correctly rounded `x`: no neighbour of `r` of the
/// same sign is nearer, and on a tie `r` is the even one. Infinity stands for the power of two
/// after the largest finite value (`inf_as`), as IEEE rounding treats it.
fn nearest16(x: f64, r: u16, to_f64: impl Fn(u16) -> f64, inf_as: f64) -> bool {
    let val = |b: u16| {
        let v = to_f64(b);
        if v.is_infinite() {
            inf_as.copysign(v)
        } else {
            v
        }
    };
    let d = (val(r) - x).abs();
    let sign = r & 0x8000;
    let mag = r & 0x7fff;
    [mag.wrapping_sub(1), mag + 1]
        .into_iter()
        .filter(|&m| m <= 0x7fff && !val(sign | m).is_nan())
        .all(|m| {
            let dn = (val(sign | m) - x).abs();
            d < dn || (d == dn && r & 1 == 0)
        })
}

/// Values just above and below the ties of a format with `mant` mantissa bits, over a few
/// binades and both signs, and the edges of its range: where rounding through f32 first goes
/// wrong.
fn near_ties(mant: i32, exps: &[i32], extra: &[f64]) -> Vec<f64> {
    let mut v = extra.to_vec();
    let mut k = 0;
    while v.len() < 64 {
        let e = exps[k % exps.len()];
        let m = 1.0 + (k % 7) as f64 * 2f64.powi(-mant);
        let tie = (m + 2f64.powi(-mant - 1)) * 2f64.powi(e);
        let nudge = tie * 2f64.powi(-40);
        let x = if k % 2 == 0 { tie + nudge } else { tie - nudge };
        v.push(if k % 3 == 0 { -x } else { x });
        k += 1;
    }
    v.truncate(64);
    v
}

fn literal<T: xla_aot::core::ArrayElement>(v: Vec<T>) -> Literal {
    let n = v.len() as i64;
    Literal::from_vec(&[n], v).expect("a vector")
}

#[test]
fn conversions_round_once_where_xla_may_round_twice() {
    let f16_in = near_ties(
        10,
        &[-20, -3, 0, 5, 14],
        &[
            65519.999,
            -65519.999,
            65520.0,
            2f64.powi(-25) + 2f64.powi(-60),
        ],
    );
    let bf16_in = near_ties(7, &[-130, -3, 0, 20, 100], &[3.0e38, 2f64.powi(-134) * 1.5]);
    let ints: Vec<i64> = (0..64)
        .map(|k| {
            ((1i64 << (24 + k % 30)) + (1 << (16 + k % 30)) + 1) * if k % 2 == 0 { 1 } else { -1 }
        })
        .collect();
    let through_f32_f16 = |x: f64| f16::from_f32(x as f32).to_bits();
    let through_f32_bf16 = |x: f64| bf16::from_f32(x as f32).to_bits();
    let cases: [(&str, common::Gen, Literal, Vec<f64>, bool); 3] = [
        (
            "f64->f16",
            gen!("to_f16", to_f16),
            literal(f16_in.clone()),
            f16_in,
            true,
        ),
        (
            "f64->bf16",
            gen!("to_bf16", to_bf16),
            literal(bf16_in.clone()),
            bf16_in,
            false,
        ),
        (
            "s64->bf16",
            gen!("s64_to_bf16", s64_to_bf16),
            literal(ints.clone()),
            ints.iter().map(|&i| i as f64).collect(),
            false,
        ),
    ];
    for (what, g, arg, xs, is_f16) in cases {
        let r = run(g, vec![arg]);
        let bits = |l: &Literal| -> Vec<u16> {
            if is_f16 {
                vals::<f16>(l).iter().map(|h| h.to_bits()).collect()
            } else {
                vals::<bf16>(l).iter().map(|h| h.to_bits()).collect()
            }
        };
        let (gen, eval, xla) = (bits(&r.gen), bits(&r.eval), bits(&r.xla));
        assert_eq!(gen, eval, "{what}: generated code vs evaluator");
        let mut twice = 0;
        for (i, &x) in xs.iter().enumerate() {
            // The integers above 2^53 are not exact in f64: check those by the hand-made
            // property of `ints` instead (just above a tie, so they round up in magnitude).
            let ok = if what == "s64->bf16" {
                let v = bf16::from_bits(gen[i]).to_f64();
                v.abs() > x.abs() && (v - x).abs() < x.abs() * 2f64.powi(-7)
            } else if is_f16 {
                nearest16(x, gen[i], |b| f16::from_bits(b).to_f64(), 65536.0)
            } else {
                nearest16(x, gen[i], |b| bf16::from_bits(b).to_f64(), 2f64.powi(128))
            };
            assert!(ok, "{what}: ours {:#06x} is not {x:e} rounded once", gen[i]);
            let double = if is_f16 {
                through_f32_f16(x)
            } else {
                through_f32_bf16(x)
            };
            // XLA:CPU flushes subnormal results to zero (see the module docs).
            let subnormal =
                gen[i] & 0x7fff != 0 && gen[i] & if is_f16 { 0x7c00 } else { 0x7f80 } == 0;
            if subnormal && xla[i] == gen[i] & 0x8000 {
                continue;
            }
            if xla[i] != gen[i] {
                assert_eq!(
                    xla[i], double,
                    "{what}: XLA {:#06x} for {x:e} is neither ours {:#06x} nor the rounding \
                     through f32 (XLA:CPU on {})",
                    xla[i], gen[i], r.platform
                );
                twice += 1;
            }
        }
        eprintln!(
            "{what}: XLA:CPU on {} rounds through f32 on {twice} of {} values near ties; ours \
             rounds once on all",
            r.platform,
            xs.len()
        );
    }
}

#[test]
fn multiply_add_is_not_contracted() {
    // (1 + 2^-13)^2 = 1 + 2^-12 + 2^-26: rounded to f32 the 2^-26 is lost, so a*b + c with
    // c = -(1 + 2^-12) is 0 per op and 2^-26 as one fused multiply-add.
    let a: Vec<f32> = (0..64)
        .map(|i| 1.0 + 2f32.powi(-13) * (1 + i % 3) as f32)
        .collect();
    let c: Vec<f32> = a.iter().map(|&x| -(x * x)).collect();
    let r = run(
        gen!("mul_add", mul_add),
        vec![literal(a.clone()), literal(a.clone()), literal(c.clone())],
    );
    let (gen, eval, xla) = (
        vals::<f32>(&r.gen),
        vals::<f32>(&r.eval),
        vals::<f32>(&r.xla),
    );
    let mut fused = 0;
    for i in 0..64 {
        let per_op = a[i] * a[i] + c[i];
        assert_eq!(per_op, 0.0, "the inputs make a*b round");
        assert_eq!(gen[i].to_bits(), per_op.to_bits(), "generated code at {i}");
        assert_eq!(eval[i].to_bits(), per_op.to_bits(), "evaluator at {i}");
        let fma = a[i].mul_add(a[i], c[i]);
        assert!(xla[i] == per_op || xla[i] == fma, "XLA {} at {i}", xla[i]);
        fused += usize::from(xla[i] == fma && fma != per_op);
    }
    eprintln!(
        "a*b+c f32: XLA:CPU on {} contracts to an FMA on {fused} of 64; ours on none",
        r.platform
    );
}

#[test]
fn division_by_a_broadcast_scalar_is_a_division() {
    let x: Vec<f32> = (0..64).map(|i| 1.0 + i as f32 * 0.37).collect();
    let y = 3.0f32;
    let r = run(
        gen!("div_by_scalar", div_by_scalar),
        vec![literal(x.clone()), Literal::scalar(y)],
    );
    let (gen, eval, xla) = (
        vals::<f32>(&r.gen),
        vals::<f32>(&r.eval),
        vals::<f32>(&r.xla),
    );
    let mut reciprocal = 0;
    for i in 0..64 {
        assert_eq!(
            gen[i].to_bits(),
            (x[i] / y).to_bits(),
            "generated code at {i}"
        );
        assert_eq!(eval[i].to_bits(), (x[i] / y).to_bits(), "evaluator at {i}");
        let by_reciprocal = x[i] * (1.0 / y);
        assert!(
            xla[i] == x[i] / y || xla[i] == by_reciprocal,
            "XLA {} at {i}",
            xla[i]
        );
        reciprocal += usize::from(xla[i] == by_reciprocal && by_reciprocal != x[i] / y);
    }
    eprintln!(
        "x / broadcast(3): XLA:CPU on {} multiplies by the reciprocal (differently from a \
         division) on {reciprocal} of 64; ours divides",
        r.platform
    );
}

#[test]
fn half_precision_chains_round_per_op() {
    // a*b + c in f16: per op, a*b is rounded to f16 first; kept in f32 it is not.
    let a: Vec<f16> = (0..64)
        .map(|i| f16::from_f32(1.0 + (1 + i % 5) as f32 / 1024.0))
        .collect();
    let c: Vec<f16> = a.iter().map(|&x| -(x * x)).collect();
    let r = run(
        gen!("half_chain", half_chain),
        vec![literal(a.clone()), literal(a.clone()), literal(c.clone())],
    );
    let (gen, eval, xla) = (
        vals::<f16>(&r.gen),
        vals::<f16>(&r.eval),
        vals::<f16>(&r.xla),
    );
    let mut in_f32 = 0;
    for i in 0..64 {
        let per_op = f16::from_f32((a[i] * a[i]).to_f32() + c[i].to_f32());
        let chain = f16::from_f32(a[i].to_f32() * a[i].to_f32() + c[i].to_f32());
        assert_eq!(gen[i].to_bits(), per_op.to_bits(), "generated code at {i}");
        assert_eq!(eval[i].to_bits(), per_op.to_bits(), "evaluator at {i}");
        assert!(xla[i] == per_op || xla[i] == chain, "XLA {} at {i}", xla[i]);
        in_f32 += usize::from(xla[i] == chain && chain != per_op);
    }
    eprintln!(
        "a*b+c f16: XLA:CPU on {} keeps the chain in f32 on {in_f32} of 64; ours rounds per op",
        r.platform
    );
}

#[test]
fn subnormals_are_kept() {
    let tiny = f32::from_bits(1);
    let x: Vec<f32> = (0..64)
        .map(|i| match i % 3 {
            0 => f32::MIN_POSITIVE,
            1 => tiny,
            _ => -f32::from_bits(0x0040_0000),
        })
        .collect();
    let halved = run(gen!("halve", halve), vec![literal(x.clone())]);
    let ceiled = run(gen!("ceiling", ceiling), vec![literal(x.clone())]);
    for (r, f) in [
        (&halved, (|v: f32| v * 0.5) as fn(f32) -> f32),
        (&ceiled, f32::ceil),
    ] {
        let (gen, eval) = (vals::<f32>(&r.gen), vals::<f32>(&r.eval));
        for i in 0..64 {
            assert_eq!(gen[i].to_bits(), f(x[i]).to_bits(), "generated code at {i}");
            assert_eq!(eval[i].to_bits(), f(x[i]).to_bits(), "evaluator at {i}");
        }
    }
    // The IEEE results are subnormal or depend on reading a subnormal: min normal / 2, ceil of
    // the smallest subnormal is 1.
    assert!(vals::<f32>(&halved.gen)[0].is_subnormal());
    assert_eq!(vals::<f32>(&ceiled.gen)[1], 1.0);
    let flushed = vals::<f32>(&halved.xla)[0] == 0.0 && vals::<f32>(&ceiled.xla)[1] == 0.0;
    eprintln!(
        "subnormals: XLA:CPU on {} flushes them: {flushed}; ours keeps them",
        halved.platform
    );
}
