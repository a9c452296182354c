//! Quick GEMM throughput check beside the machine's FMA peak (not the benchmark of record: that
//! one compares against XLA in the same run, see `benches/`). Run with
//! `CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" cargo run --release -p xla-kernels --example gemm_speed`
//! (optional arguments: best-of-N samples, default 15; then shapes `BxMxNxK` (f32),
//! `dBxMxNxK` (f64), `hBxMxNxK` (bf16) or `sBxMxNxK` (s8 x s8 -> s32) to measure only those, e.g.
//! `gemm_speed 9 1x120x16x256 d1x256x256x256 s1x1024x1024x1024`).
//! With `GEMM_SPEED_CLOCK=cpu` the shapes are timed by the process's CPU time instead of wall
//! time: on a loaded machine that compares two single-thread builds fairly
//! (`RAYON_NUM_THREADS=1`), since time spent descheduled is not counted.
//!
//! The peak is `gemm::fma_chains`: independent `f32` vector FMAs (12 chains), on 1 thread and
//! on every rayon thread at once, with the vectors of the instruction-set level the kernels
//! dispatch to (`xla_kernels::cpu::level()`, capped by
//! `XLA_KERNELS_MAX_ISA=sse2|avx2|avx512|amx`), which the first line prints.

use std::hint::black_box;
use std::time::Instant;

use half::bf16;
use rayon::prelude::*;
use xla_kernels::cpu;
use xla_kernels::gemm::{fma_chains, gemm, gemm_s8_s32, GemmDesc, GemmElem, GemmScratch};
use xla_kernels::simd::{VFloat, F32V};

/// Iterations of the peak loop per sample.
const PEAK_ITERS: usize = 5_000_000;

/// Best-of-`samples` peak GFLOP/s of independent f32 FMAs on `threads` threads at once, with
/// the vectors of the level the kernels dispatch to (`gemm::fma_chains`).
fn peak(threads: usize, samples: usize) -> f64 {
    let mut best = f64::INFINITY;
    let mut flops = 0;
    for _ in 0..samples {
        let t = Instant::now();
        let (f, s): (u64, f32) = (0..threads)
            .into_par_iter()
            .map(|_| fma_chains(PEAK_ITERS))
            .reduce(|| (0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        black_box(s);
        best = best.min(t.elapsed().as_secs_f64());
        flops = f;
    }
    flops as f64 / best / 1e9
}

/// Seconds of wall time, or of CPU time of the whole process with `GEMM_SPEED_CLOCK=cpu`.
fn now() -> f64 {
    #[cfg(target_os = "linux")]
    if std::env::var_os("GEMM_SPEED_CLOCK").is_some_and(|v| v == "cpu") {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec; the call only writes it.
        unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
        return t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9;
    }
    START.with(|s| s.elapsed().as_secs_f64())
}

thread_local! {
    static START: Instant = Instant::now();
}

/// Best-of-`samples` GFLOP/s (the best sample is the least disturbed by other processes) of a
/// `batch x m x k` by `batch x k x n` row-major GEMM.
fn measure<T: GemmElem>(
    (batch, m, n, k): (usize, usize, usize, usize),
    samples: usize,
    from: fn(f32) -> T,
) -> f64 {
    let a: Vec<T> = (0..batch * m * k)
        .map(|i| from((i % 17) as f32 * 0.01))
        .collect();
    let b: Vec<T> = (0..batch * k * n)
        .map(|i| from((i % 13) as f32 * 0.02))
        .collect();
    let mut c: Vec<T> = vec![from(0.0); batch * m * n];
    let d = GemmDesc::row_major(batch, m, n, k);
    let mut s = GemmScratch::new();
    let flops = d.flops() as f64;
    // Enough repetitions for ~30 ms per sample.
    let reps = ((3e7 / flops) as usize).clamp(1, 1_000_000);
    gemm(&d, &a, &b, &mut c, &mut s).expect("valid gemm");
    let mut best = f64::INFINITY;
    for _ in 0..samples {
        let t = now();
        for _ in 0..reps {
            gemm(&d, &a, &b, &mut c, &mut s).expect("valid gemm");
        }
        best = best.min((now() - t) / reps as f64);
    }
    black_box(&c);
    flops / best / 1e9
}

/// [`measure`] for s8 x s8 -> s32 (`gemm_s8_s32`), counting 2 ops per multiply-add.
fn measure_s8(batch: usize, m: usize, n: usize, k: usize, samples: usize) -> f64 {
    let a: Vec<i8> = (0..batch * m * k).map(|i| (i % 251) as i8).collect();
    let b: Vec<i8> = (0..batch * k * n).map(|i| (i % 241) as i8).collect();
    let mut c = vec![0i32; batch * m * n];
    let d = GemmDesc::row_major(batch, m, n, k);
    let mut s = GemmScratch::new();
    let flops = d.flops() as f64;
    let reps = ((3e7 / flops) as usize).clamp(1, 1_000_000);
    gemm_s8_s32(&d, &a, &b, &mut c, &mut s).expect("valid gemm");
    let mut best = f64::INFINITY;
    for _ in 0..samples {
        let t = now();
        for _ in 0..reps {
            gemm_s8_s32(&d, &a, &b, &mut c, &mut s).expect("valid gemm");
        }
        best = best.min((now() - t) / reps as f64);
    }
    black_box(&c);
    flops / best / 1e9
}

fn main() {
    let samples: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let threads = rayon::current_num_threads();
    let level = cpu::level();
    println!(
        "threads: {threads}, kernel level: {level:?} (of {:?}), build f32 lanes: {}, best of {samples}",
        cpu::supported(),
        <F32V as VFloat>::LANES
    );
    // `BxMxNxK` (f32), `dBxMxNxK` (f64), `hBxMxNxK` (bf16) or `sBxMxNxK` (s8 x s8 -> s32).
    let shapes: Vec<(char, [usize; 4])> = std::env::args()
        .skip(2)
        .map(|a| {
            let ty = a.chars().next().filter(|c| matches!(c, 'd' | 's' | 'h'));
            let v: Vec<usize> = a
                .trim_start_matches(['d', 's', 'h'])
                .split('x')
                .map(|x| x.parse().expect("BxMxNxK"))
                .collect();
            (ty.unwrap_or('f'), v.try_into().expect("BxMxNxK"))
        })
        .collect();
    if !shapes.is_empty() {
        for (ty, [batch, m, n, k]) in shapes {
            let (ty, g) = match ty {
                'd' => ("f64", measure((batch, m, n, k), samples, f64::from)),
                's' => ("s8", measure_s8(batch, m, n, k, samples)),
                'h' => ("bf16", measure((batch, m, n, k), samples, bf16::from_f32)),
                _ => ("f32", measure((batch, m, n, k), samples, |x| x)),
            };
            println!("{ty} {batch}x[{m}x{k} * {k}x{n}] {g:7.1} GFLOP/s");
        }
        return;
    }
    let p1 = peak(1, samples);
    let pn = peak(threads, samples);
    println!(
        "peak f32 FMA ({level:?}): 1 thread {p1:.1} GFLOP/s, {threads} threads {pn:.1} GFLOP/s"
    );
    let row = |name: &str, g: f64| {
        println!(
            "{name:<28} {g:7.1} GFLOP/s  {:5.1}% of peak",
            100.0 * g / pn
        )
    };
    for &(batch, m, n, k) in &[
        (1, 1024, 1024, 1024),
        (1, 256, 256, 256),
        (1, 64, 64, 64),
        (1, 1, 128, 784),
        (1, 8, 128, 784),
        (16, 256, 256, 256),
    ] {
        let name = format!("f32 {batch}x[{m}x{k} * {k}x{n}]");
        row(&name, measure((batch, m, n, k), samples, |x: f32| x));
    }
    for &(m, n, k) in &[(1024, 1024, 1024), (256, 256, 256), (64, 64, 64)] {
        // f64 has half the lanes: its share of the f32 peak is at most 50%.
        let name = format!("f64 1x[{m}x{k} * {k}x{n}]");
        row(&name, measure((1, m, n, k), samples, f64::from));
    }
}
