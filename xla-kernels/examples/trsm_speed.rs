//! Times `linalg::triangular_solve` on f32[1024,1024] x f32[1024,256], left lower (the kernel
//! bench's row) without XLA, for profiling: `cargo run --release -p xla-kernels --example
//! trsm_speed`.

use std::time::Instant;

use xla_kernels::linalg::{triangular_solve, LinalgScratch, Transpose};

fn main() {
    let (m, k) = (1024usize, 256usize);
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut r = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    let a: Vec<f32> = (0..m * m)
        .map(|p| {
            let (i, j) = (p / m, p % m);
            let v = r();
            if i == j {
                2.0 + v.abs()
            } else if i > j {
                v / m as f32
            } else {
                1e3
            }
        })
        .collect();
    let x: Vec<f32> = (0..m * k).map(|_| r()).collect();
    let mut out = vec![0.0f32; m * k];
    let mut sc = LinalgScratch::new();
    let flags = (true, true, false);
    let runs = 200;
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        triangular_solve(&a, &x, &mut out, (1, m, k), flags, Transpose::No, &mut sc)
            .expect("valid solve");
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "triangular_solve f32[{m},{m}] x f32[{m},{k}]: best of {runs} {:.3} ms",
        best * 1e3
    );
}
