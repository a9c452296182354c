//! Speed of transpose, sort and reduce (median of several runs), for tuning:
//! `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo run --release -p
//! xla-kernels --example k3a_speed [filter]`. The comparison with XLA is in the workspace bench.

use std::time::Instant;

fn median_secs(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    t[reps / 2]
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let n = 4096;
    let src: Vec<f32> = (0..n * n)
        .map(|i| (i % 1013) as f32 * 0.25 - 100.0)
        .collect();
    let mut dst = vec![0f32; n * n];
    let bytes = (2 * n * n * 4) as f64;
    if "transpose".contains(&filter) {
        let t = median_secs(
            || xla_kernels::transpose::transpose(&src, &[n, n], &[1, 0], &mut dst).unwrap(),
            9,
        );
        println!(
            "transpose f32[{n},{n}]  {:8.3} ms  {:6.1} GB/s (read+write)",
            t * 1e3,
            bytes / t / 1e9
        );
        let t = median_secs(|| dst.copy_from_slice(&src), 9);
        println!(
            "memcpy f32[{n},{n}]     {:8.3} ms  {:6.1} GB/s (read+write)",
            t * 1e3,
            bytes / t / 1e9
        );
    }
}
