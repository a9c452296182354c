//! What both benchmarks against XLA share: their input data, the alternating timing of ours and
//! XLA's, and the way they print times and the build target.

use std::time::Instant;

use xla_aot::Literal;
use xla_oracle::Oracle;

/// Fewest and most timed runs of one side in one round.
const MIN_RUNS: usize = 5;
const MAX_RUNS: usize = 5000;

/// Deterministic values in [-1, 1).
pub fn data(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median seconds of `f` over enough runs to fill ~`budget` seconds (after 2 warm-ups).
pub fn median_secs(budget: f64, f: &mut dyn FnMut()) -> f64 {
    f();
    f();
    let t0 = Instant::now();
    f();
    let once = t0.elapsed().as_secs_f64().max(1e-7);
    let n = ((budget / once) as usize).clamp(MIN_RUNS, MAX_RUNS);
    median(
        (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

/// Median seconds of `ours` and of `mlir` on XLA (with `args`): `rounds` rounds of `budget`
/// seconds per side, alternating, and the median of each side's round medians. On a shared
/// machine the load drifts; timing one side after the other would charge the drift to one.
pub fn alternate(
    oracle: &mut Oracle,
    label: &str,
    mlir: &str,
    args: &[Literal],
    rounds: usize,
    budget: f64,
    ours: &mut dyn FnMut(),
) -> (f64, f64) {
    let (mut o, mut x) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = median_secs(budget, ours);
        o.push(t);
        let iters = ((budget / t.max(1e-6)) as usize).clamp(MIN_RUNS, MAX_RUNS);
        x.push(
            oracle
                .time(mlir, args, iters)
                .unwrap_or_else(|e| panic!("{label}: XLA timing failed: {e}")),
        );
    }
    (median(o), median(x))
}

pub fn fmt_time(s: f64) -> String {
    if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

/// The vector instructions this binary was built for (the fused loops' width), and the level
/// the kernels (GEMM, conv, ...) chose at run time.
pub fn built_for() -> String {
    let build = if cfg!(target_feature = "avx512f") {
        "AVX-512 (16 f32 lanes)"
    } else if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
        "AVX2 + FMA (8 f32 lanes)"
    } else {
        "baseline x86-64 (4 f32 lanes; build with -C target-cpu=native for speed)"
    };
    format!(
        "{build}; kernels dispatched at run time to {:?}",
        xla_aot::kernels::cpu::level()
    )
}
