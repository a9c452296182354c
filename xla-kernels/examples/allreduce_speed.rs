//! AllReduce (sum) of f32[1M] and f32[16M] over 2 devices on the thread transport, against a
//! plain memcpy of the same bytes on one thread.
//!
//! Run: `RUSTFLAGS="-C target-cpu=native" cargo run --release -p xla-kernels --example
//! allreduce_speed` (`DEVICES=n` for another device count). Bandwidth is the operand's bytes over the median time (algorithmic
//! bandwidth); each device moves about `2 (g - 1) / g` of them through the transport (a
//! reduce-scatter and an all-gather) plus the byte conversions, so `memcpy` bounds it.

use std::time::{Duration, Instant};

use xla_kernels::collectives::{all_reduce, group, run_threads, GroupMode};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    for n in [1usize << 20, 1 << 24] {
        let runs = 7;
        let devices: u32 = std::env::var("DEVICES")
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(2);
        let times = run_threads(devices, 1, |ctx| {
            let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
            let mut out = vec![0f32; n];
            let g = group(ctx, "AllReduce", GroupMode::CrossReplica, &[])?;
            let mut t = Vec::with_capacity(runs);
            for _ in 0..runs {
                let start = Instant::now();
                all_reduce(ctx, &g, &x, &mut out, |a, b| a + b)?;
                t.push(start.elapsed());
            }
            assert_eq!(out[3], 1.5 * devices as f32, "the sum of the devices' 1.5");
            Ok(median(t))
        });
        let ours = times
            .into_iter()
            .map(|t| t.expect("a device failed"))
            .max()
            .unwrap_or_default();
        let src = vec![1f32; n];
        let mut dst = vec![0f32; n];
        let copy = median(
            (0..runs)
                .map(|_| {
                    let start = Instant::now();
                    dst.copy_from_slice(std::hint::black_box(&src));
                    start.elapsed()
                })
                .collect(),
        );
        std::hint::black_box(&dst);
        let gbs = |t: Duration| (n * 4) as f64 / t.as_secs_f64() / 1e9;
        println!(
            "AllReduce f32[{n}] on 2 threads: {:.2} ms ({:.2} GB/s); memcpy {:.2} ms ({:.2} GB/s)",
            ours.as_secs_f64() * 1e3,
            gbs(ours),
            copy.as_secs_f64() * 1e3,
            gbs(copy)
        );
    }
}
