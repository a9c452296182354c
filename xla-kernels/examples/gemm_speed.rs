//! Quick GEMM throughput check (not a benchmark of record: those compare against XLA in the
//! same run, see `benches/`). Run with
//! `RUSTFLAGS="-C target-cpu=native" cargo run --release --example gemm_speed -p xla-kernels`.

use std::time::Instant;

use xla_kernels::gemm::{gemm, GemmDesc, GemmScratch};

/// Best-of-15 GFLOP/s (the best sample is the least disturbed by other processes) of an `m x k` by `k x n` f32 (or f64) row-major GEMM.
fn measure<T: xla_kernels::gemm::GemmElem + From<f32>>(m: usize, n: usize, k: usize) -> f64 {
    let a: Vec<T> = (0..m * k)
        .map(|i| T::from((i % 17) as f32 * 0.01))
        .collect();
    let b: Vec<T> = (0..k * n)
        .map(|i| T::from((i % 13) as f32 * 0.02))
        .collect();
    let mut c: Vec<T> = vec![T::from(0.0); m * n];
    let d = GemmDesc::row_major(1, m, n, k);
    let mut s = GemmScratch::new();
    let flops = 2.0 * (m * n * k) as f64;
    // Enough repetitions for ~30 ms per sample.
    let reps = ((3e7 / flops) as usize).clamp(1, 1_000_000);
    gemm(&d, &a, &b, &mut c, &mut s).expect("valid gemm");
    let mut best = f64::INFINITY;
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..reps {
            gemm(&d, &a, &b, &mut c, &mut s).expect("valid gemm");
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    std::hint::black_box(&c);
    flops / best / 1e9
}

fn main() {
    let threads = rayon::current_num_threads();
    println!(
        "threads: {threads}, f32 lanes: {}",
        <xla_kernels::simd::F32V as xla_kernels::simd::VFloat>::LANES
    );
    for &(m, n, k) in &[
        (1024, 1024, 1024),
        (256, 256, 256),
        (64, 64, 64),
        (1, 128, 784),
        (8, 128, 784),
    ] {
        println!(
            "f32 {m}x{k} * {k}x{n}: {:.1} GFLOP/s",
            measure::<f32>(m, n, k)
        );
    }
    for &(m, n, k) in &[(1024, 1024, 1024), (256, 256, 256)] {
        println!(
            "f64 {m}x{k} * {k}x{n}: {:.1} GFLOP/s",
            measure::<f64>(m, n, k)
        );
    }
}
