//! Quick convolution throughput check (not a benchmark of record: those compare against XLA in
//! the same run). Run with
//! `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo run --release -p xla-kernels --example conv_speed`.

use std::time::Instant;

use xla_kernels::conv::{conv, ConvDesc, ConvDims, ConvScratch};

/// Best-of-5 median-free timing: (seconds per call, GFLOP/s).
fn measure(d: &ConvDesc) -> (f64, f64) {
    let n = d.rank();
    let input: Vec<f32> = (0..d.input_shape[..n].iter().product::<usize>())
        .map(|i| (i % 17) as f32 * 0.01)
        .collect();
    let kernel: Vec<f32> = (0..d.kernel_shape[..n].iter().product::<usize>())
        .map(|i| (i % 13) as f32 * 0.02)
        .collect();
    let out_len: usize = d.output_shape().expect("valid")[..n].iter().product();
    let mut out = vec![0f32; out_len];
    let mut s = ConvScratch::new();
    let flops = d.flops() as f64;
    conv(d, &input, &kernel, &mut out, &mut s).expect("valid conv");
    let reps = ((3e8 / flops) as usize).clamp(1, 10_000);
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            conv(d, &input, &kernel, &mut out, &mut s).expect("valid conv");
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    std::hint::black_box(&out);
    (best, flops / best / 1e9)
}

fn main() {
    println!("threads: {}", rayon::current_num_threads());
    let same = [(1i64, 1i64), (1, 1)];
    let rows = [
        (
            "conv NCHW [8,64,56,56]*[64,64,3,3] SAME",
            ConvDesc::new(&[8, 64, 56, 56], &[64, 64, 3, 3], ConvDims::nchw()).with_padding(&same),
        ),
        (
            "conv NHWC [8,56,56,64]*[3,3,64,64] SAME",
            ConvDesc::new(&[8, 56, 56, 64], &[3, 3, 64, 64], ConvDims::nhwc(2)).with_padding(&same),
        ),
        (
            "depthwise NCHW [8,64,56,56]*[64,1,3,3] fgc 64",
            ConvDesc::new(&[8, 64, 56, 56], &[64, 1, 3, 3], ConvDims::nchw())
                .with_padding(&same)
                .with_groups(64, 1),
        ),
    ];
    for (name, d) in rows {
        let (t, g) = measure(&d);
        println!("{name}: {:.3} ms, {g:.1} GFLOP/s", t * 1e3);
    }
}
