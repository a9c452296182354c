//! GEMM throughput of the element types computed through the f32/f64 kernel (c64, c128, bf16,
//! f16) beside f32 itself, in one run. Run with
//! `CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" cargo run --release -p xla-kernels --example gemm_types`
//! (optional arguments: rounds, default 9; a substring selecting rows, e.g. `c64`). Rows are
//! measured in alternating rounds (each round times every row once, ~30 ms per sample) and the
//! best sample of each row is kept, so load from other processes is not charged to one row.
//! Complex GFLOP/s count `8 m n k` flops (4 real multiplies and 4 adds per complex
//! multiply-add), real ones `2 m n k`.

use std::hint::black_box;
use std::time::Instant;

use half::{bf16, f16};
use num_complex::Complex;
use xla_kernels::gemm::{gemm, GemmDesc, GemmElem, GemmScratch};

/// One timed row: a name, flops per call and a closure running one call.
struct Row {
    name: String,
    flops: f64,
    run: Box<dyn FnMut()>,
    best: f64,
}

/// A row-major `m x k` by `k x n` product of `T` built from f32 values.
fn row<T: GemmElem>(
    tag: &str,
    (m, n, k): (usize, usize, usize),
    flops_per_mac: f64,
    from: impl Fn(f32) -> T,
) -> Row {
    let a: Vec<T> = (0..m * k).map(|i| from((i % 17) as f32 * 0.01)).collect();
    let b: Vec<T> = (0..k * n).map(|i| from((i % 13) as f32 * 0.02)).collect();
    let mut c: Vec<T> = vec![from(0.0); m * n];
    let d = GemmDesc::row_major(1, m, n, k);
    let mut s = GemmScratch::new();
    gemm(&d, &a, &b, &mut c, &mut s).expect("valid gemm");
    Row {
        name: format!("{tag} {m}x{k} * {k}x{n}"),
        flops: flops_per_mac * (m * n * k) as f64,
        run: Box::new(move || {
            gemm(&d, &a, &b, &mut c, &mut s).expect("valid gemm");
            black_box(&c);
        }),
        best: f64::INFINITY,
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    let big = (1024, 1024, 1024);
    let c32 = |x: f32| Complex::new(x, 0.5 - x);
    let c64 = |x: f32| Complex::new(x as f64, 0.5 - x as f64);
    let mut rows = vec![
        row("f32 ", big, 2.0, |x| x),
        // The real product a c64 256^3 becomes (m x 2k x 2n), for comparison.
        row("f32 ", (256, 512, 512), 2.0, |x| x),
        row("c64 ", big, 8.0, c32),
        row("c64 ", (256, 256, 256), 8.0, c32),
        row("c64 ", (64, 64, 64), 8.0, c32),
        row("c64 ", (1, 128, 784), 8.0, c32),
        row("c64 ", (8, 128, 784), 8.0, c32),
        row("c128", big, 8.0, c64),
        row("bf16", big, 2.0, bf16::from_f32),
        row("bf16", (256, 256, 256), 2.0, bf16::from_f32),
        row("f16 ", big, 2.0, f16::from_f32),
    ];
    if let Some(pat) = std::env::args().nth(2) {
        rows.retain(|r| r.name.contains(&pat));
    }
    for _ in 0..rounds {
        for r in rows.iter_mut() {
            let reps = ((3e7 / r.flops) as usize).clamp(1, 100_000);
            let t = Instant::now();
            for _ in 0..reps {
                (r.run)();
            }
            r.best = r.best.min(t.elapsed().as_secs_f64() / reps as f64);
        }
    }
    println!(
        "threads: {}, best of {rounds} alternating rounds",
        rayon::current_num_threads()
    );
    for r in &rows {
        println!(
            "{:<24} {:>10.1} us {:>7.1} GFLOP/s",
            r.name,
            r.best * 1e6,
            r.flops / r.best / 1e9
        );
    }
}
