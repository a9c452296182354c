//! Quick FFT timing (not the benchmark of record: `bash scripts/bench.sh kernels fft` compares
//! against XLA in the same run). `CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native"
//! cargo run --release -p xla-kernels --example fft_speed [samples] [shape ...]`, shapes as
//! `RxC` (a 2-D c64 transform over both axes), `RxCr` (over the rows only) or `N` (1-D), default `1024x1024 1048576`.

use std::time::Instant;

use num_complex::Complex;
use xla_core::FftType;
use xla_kernels::fft::FftPlan;

fn main() {
    let mut args = std::env::args().skip(1);
    let samples: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(15);
    // A trailing `r` transforms the innermost axis only (a batch of rows).
    let mut shapes: Vec<(Vec<usize>, bool)> = args
        .map(|s| {
            let rows = s.ends_with('r');
            let s = s.trim_end_matches('r');
            let dims = s
                .split('x')
                .map(|d| d.parse().expect("shape dims"))
                .collect();
            (dims, rows)
        })
        .collect();
    if shapes.is_empty() {
        shapes = vec![(vec![1024, 1024], false), (vec![1 << 20], false)];
    }
    println!(
        "threads: {}, best of {samples}",
        rayon::current_num_threads()
    );
    for (dims, rows) in shapes {
        let lens = if rows {
            &dims[dims.len() - 1..]
        } else {
            &dims[..]
        };
        let n: usize = dims.iter().product();
        let x: Vec<Complex<f32>> = (0..n)
            .map(|i| Complex::new((i % 7) as f32 - 3.0, (i % 5) as f32 * 0.5))
            .collect();
        let mut y = vec![Complex::new(0.0f32, 0.0); n];
        let mut plan = FftPlan::<f32>::new(FftType::Fft, &dims, lens).expect("plan");
        let mut best = f64::INFINITY;
        for _ in 0..samples {
            let t = Instant::now();
            plan.c2c(&x, &mut y).expect("fft");
            best = best.min(t.elapsed().as_secs_f64());
        }
        let points: usize = lens.iter().product();
        let flops = 5.0 * n as f64 * (points as f64).log2();
        println!(
            "c64 {dims:?} over {lens:?}: {:.3} ms, {:.1} GFLOP/s",
            best * 1e3,
            flops / best / 1e9
        );
    }
}
