//! Speed of transpose, sort and reduce (median of several runs), for tuning:
//! `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo run --release -p
//! xla-kernels --example k3a_speed [filter]`. The comparison with XLA is in the workspace bench.

use std::time::Instant;

use xla_kernels::aligned::AlignedBuf;

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
    // Huge-page-aligned buffers, as the tensors generated code passes (see aligned.rs).
    let src = AlignedBuf::from_fn(n * n, |i| (i % 1013) as f32 * 0.25 - 100.0);
    let mut dst = AlignedBuf::filled(0f32, n * n);
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
    let gbs = |t: f64, bytes: f64| bytes / t / 1e9;
    if "reduce".contains(&filter) {
        use xla_kernels::reduce::{reduce_fast, ReduceOp};
        let mut out = vec![0f32; n];
        let bytes = (n * n * 4) as f64;
        // The machine's read speed: two threads summing the buffer's bits as integers
        // (vectorised by the compiler, no float dependency chain), blocks of 256 KiB.
        let read = || {
            use rayon::prelude::*;
            src.par_chunks(1 << 16)
                .map(|c| c.iter().fold(0u32, |a, x| a.wrapping_add(x.to_bits())))
                .reduce(|| 0, u32::wrapping_add)
        };
        for round in 0..2 {
            let t = median_secs(
                || {
                    std::hint::black_box(read());
                },
                9,
            );
            println!(
                "memory read f32[{n},{n}]  {:8.3} ms  {:6.1} GB/s (read)",
                t * 1e3,
                gbs(t, bytes)
            );
            for (name, rd) in [("row sum", 1usize), ("column sum", 0)] {
                let t = median_secs(
                    || reduce_fast(&src, &[n, n], &[rd], ReduceOp::Sum, 0.0, &mut out).unwrap(),
                    9,
                );
                println!(
                    "{name} f32[{n},{n}]  {:8.3} ms  {:6.1} GB/s (read)",
                    t * 1e3,
                    gbs(t, bytes)
                );
            }
            if round == 1 {
                break;
            }
        }
        let mut one = [0f32];
        let t = median_secs(
            || reduce_fast(&src, &[n, n], &[0, 1], ReduceOp::Sum, 0.0, &mut one).unwrap(),
            9,
        );
        println!(
            "full sum f32[{n},{n}]  {:8.3} ms  {:6.1} GB/s (read)",
            t * 1e3,
            gbs(t, bytes)
        );
    }
    if "sort".contains(&filter) {
        use xla_kernels::sort::{sort, Order};
        let m = 1 << 20;
        let mut s = 0x9e3779b97f4a7c15u64;
        let data: Vec<f32> = (0..m)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s % 2_000_003) as f32 * 1e-3 - 1000.0
            })
            .collect();
        let mut work = data.clone();
        let t = median_secs(
            || {
                work.copy_from_slice(&data);
                sort(&mut work, &[m], 0, Order::Ascending).unwrap()
            },
            9,
        );
        println!("sort f32[{m}]          {:8.3} ms", t * 1e3);
        let t = median_secs(
            || {
                work.copy_from_slice(&data);
                work.sort_unstable_by(|a, b| a.total_cmp(b))
            },
            9,
        );
        println!(
            "std sort_unstable_by(total_cmp) f32[{m}] {:8.3} ms",
            t * 1e3
        );
        let t = median_secs(
            || {
                work.copy_from_slice(&data);
                sort(&mut work, &[1024, 1024], 1, Order::Ascending).unwrap()
            },
            9,
        );
        println!("sort rows f32[1024,1024] {:8.3} ms", t * 1e3);
        let (mut tv, mut ti) = (vec![0f32; 1024 * 5], vec![0i32; 1024 * 5]);
        let t = median_secs(
            || xla_kernels::sort::top_k(&data, &[1024, 1024], 5, true, &mut tv, &mut ti).unwrap(),
            9,
        );
        println!("top_k k=5 f32[1024,1024] {:8.3} ms", t * 1e3);
    }
}
