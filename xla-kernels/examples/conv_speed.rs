//! Quick convolution throughput check (not a benchmark of record: those compare against XLA in
//! the same run). Run with
//! `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo run --release -p xla-kernels --example conv_speed`.

use std::time::Instant;

use xla_kernels::conv::{conv, ConvDesc, ConvDims, ConvScratch};

/// Best-of-5 median-free timing: (seconds per call, GFLOP/s).
fn measure(d: &ConvDesc, how: &str) -> (f64, f64) {
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
    s.set_im2col_only(how == "im2col");
    s.set_no_winograd(how == "direct");
    let flops = d.flops() as f64;
    conv(d, &input, &kernel, &mut out, &mut s).expect("valid conv");
    // `CONV_REPS=n` fixes the calls per round (CPU-time comparisons on a shared machine).
    let reps = std::env::var("CONV_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(((3e8 / flops) as usize).clamp(1, 10_000));
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

/// GFLOP/s of independent `F32V` FMAs on every rayon thread (the machine's f32 FMA peak as
/// this process sees it now: the denominator for "fraction of peak").
fn fma_peak() -> f64 {
    use xla_kernels::simd::{VFloat, F32V};
    const ITERS: usize = 20_000_000;
    let threads = rayon::current_num_threads();
    let run = || {
        let t = Instant::now();
        rayon::broadcast(|ctx| {
            let mut acc = [F32V::splat(ctx.index() as f32); 12];
            let (a, b) = (F32V::splat(0.999_9), F32V::splat(1e-7));
            for _ in 0..ITERS {
                for x in acc.iter_mut() {
                    *x = x.mul_add(a, b);
                }
            }
            std::hint::black_box(acc);
        });
        t.elapsed().as_secs_f64()
    };
    let best = (0..3).map(|_| run()).fold(f64::INFINITY, f64::min);
    (ITERS * 12 * F32V::LANES * 2 * threads) as f64 / best / 1e9
}

fn main() {
    // `CONV_NO_PEAK=1` skips the peak measurement (for cycle counts of the rows alone).
    let peak = if std::env::var_os("CONV_NO_PEAK").is_some() {
        f64::NAN
    } else {
        fma_peak()
    };
    println!(
        "threads: {}, f32 FMA peak measured now: {peak:.1} GFLOP/s",
        rayon::current_num_threads()
    );
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
            "conv NCHW [8,16,56,56]*[16,16,3,3] SAME",
            ConvDesc::new(&[8, 16, 56, 56], &[16, 16, 3, 3], ConvDims::nchw()).with_padding(&same),
        ),
        (
            "conv NHWC [8,56,56,16]*[3,3,16,16] SAME",
            ConvDesc::new(&[8, 56, 56, 16], &[3, 3, 16, 16], ConvDims::nhwc(2)).with_padding(&same),
        ),
        (
            "conv 1x1 NCHW [8,256,28,28]*[256,256,1,1]",
            ConvDesc::new(&[8, 256, 28, 28], &[256, 256, 1, 1], ConvDims::nchw()),
        ),
        (
            "conv 1x1 NHWC [8,28,28,256]*[1,1,256,256]",
            ConvDesc::new(&[8, 28, 28, 256], &[1, 1, 256, 256], ConvDims::nhwc(2)),
        ),
        (
            "conv 7x7/2 NCHW [8,3,224,224]*[64,3,7,7] pad 3",
            ConvDesc::new(&[8, 3, 224, 224], &[64, 3, 7, 7], ConvDims::nchw())
                .with_strides(&[2, 2])
                .with_padding(&[(3, 3), (3, 3)]),
        ),
        (
            "conv 3x3/2 NHWC [8,56,56,64]*[3,3,64,128] pad 1",
            ConvDesc::new(&[8, 56, 56, 64], &[3, 3, 64, 128], ConvDims::nhwc(2))
                .with_strides(&[2, 2])
                .with_padding(&same),
        ),
        (
            "depthwise NCHW [8,64,56,56]*[64,1,3,3] fgc 64",
            ConvDesc::new(&[8, 64, 56, 56], &[64, 1, 3, 3], ConvDims::nchw())
                .with_padding(&same)
                .with_groups(64, 1),
        ),
    ];
    // `CONV_ROWS=NHWC` keeps the rows whose name contains it; `CONV_HOW=auto,direct` the paths.
    let filter = std::env::var("CONV_ROWS").unwrap_or_default();
    let hows = std::env::var("CONV_HOW").unwrap_or_else(|_| "auto,direct,im2col".into());
    for (name, d) in rows {
        if !name.contains(filter.as_str()) {
            continue;
        }
        for how in hows.split(',') {
            let (t, g) = measure(&d, how);
            println!(
                "{name} [{how}]: {:.3} ms, {g:.1} GFLOP/s ({:.0}% of peak)",
                t * 1e3,
                100.0 * g / peak
            );
        }
    }
}
