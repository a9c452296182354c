//! Speed of the max-pool forward kernel against a read-everything floor, for tuning:
//! `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo run --release -p
//! xla-kernels --example pool_speed`. The comparison with XLA is the workspace bench's
//! "MaxPool 3x3/2" row.

use std::time::Instant;

use xla_kernels::window::{reduce_window, Simd, WindowDesc};

fn best_secs(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let (n, c, h, w) = (8, 64, 112, 112);
    let (oh, ow) = (56, 56);
    let x: Vec<f32> = (0..n * c * h * w)
        .map(|i| ((i as u64).wrapping_mul(2654435761) % 1000) as f32 * 0.001 - 0.5)
        .collect();
    let mut out = vec![0f32; n * c * oh * ow];
    let operand = [n, c, h, w];
    let outd = [n, c, oh, ow];
    let desc = WindowDesc {
        operand: &operand,
        out: &outd,
        dimensions: &[1, 1, 3, 3],
        strides: &[1, 1, 2, 2],
        padding_low: &[0, 0, 1, 1],
        base_dilations: &[1; 4],
        window_dilations: &[1; 4],
    };
    let reps = 30;
    let t = best_secs(
        || reduce_window(&desc, &x, f32::NEG_INFINITY, &mut out, &Simd::Max).unwrap(),
        reps,
    );
    // The floor: every input read once and every output written once, on the same threads.
    use rayon::prelude::*;
    let floor = best_secs(
        || {
            out.par_chunks_mut(oh * ow)
                .zip(x.par_chunks(h * w))
                .for_each(|(o, xs)| {
                    let mut m = [f32::NEG_INFINITY; 8];
                    for v in xs.chunks_exact(8) {
                        for l in 0..8 {
                            m[l] = m[l].max(v[l]);
                        }
                    }
                    o.fill(m.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)));
                })
        },
        reps,
    );
    let gb = ((x.len() + out.len()) * 4) as f64 * 1e-9;
    println!(
        "max-pool 3x3/2 f32[8,64,112,112]: {:.3} ms ({:.1} GB/s); read+write floor {:.3} ms ({:.1} GB/s); {} threads",
        t * 1e3,
        gb / t,
        floor * 1e3,
        gb / floor,
        rayon::current_num_threads()
    );
}
