//! A two-layer MLP classifier (784 -> 128 -> 10, ReLU, softmax) compiled ahead of time by
//! `xla!`, run on built-in deterministic data: the program a user would write to ship a small
//! model inside an ordinary Rust binary.
//!
//! Run: `cargo run --release -p xla-examples --bin mnist_mlp`

#![deny(warnings)]

use std::time::Instant;

use xla_aot::{xla, Tensor, D1, D2};

xla! {
    /// One dense layer with ReLU: `max(x·w + b, 0)`.
    pub fn dense_relu(x: f32[64, 784], w: f32[784, 128], b: f32[128]) -> f32[64, 128] {
        let h = Dot(x, w);
        let h = Add(h, b, broadcast_dimensions = [1]);
        Max(h, 0.0)
    }

    /// Softmax over each row, stabilised by the row maximum.
    pub fn row_softmax(x: f32[64, 10]) -> f32[64, 10] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }

    /// The whole model: two dense layers and a softmax, one fn calling the others.
    pub fn mlp(x: f32[64, 784], w1: f32[784, 128], b1: f32[128], w2: f32[128, 10], b2: f32[10])
        -> f32[64, 10]
    {
        let h = dense_relu(x, w1, b1);
        let logits = Add(Dot(h, w2), b2, broadcast_dimensions = [1]);
        row_softmax(logits)
    }
}

/// Deterministic pseudo-random numbers in [-scale, scale) (a 64-bit LCG; no dependency).
fn lcg_fill(seed: u64, n: usize, scale: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // "Images": 64 rows of 784 pixels in [0, 1); weights scaled like a Glorot init.
    let x: Tensor<f32, D2<64, 784>> =
        Tensor::from_vec(lcg_fill(1, 64 * 784, 0.5).iter().map(|v| v + 0.5).collect())?;
    let w1: Tensor<f32, D2<784, 128>> = Tensor::from_vec(lcg_fill(2, 784 * 128, 0.08))?;
    let b1: Tensor<f32, D1<128>> = Tensor::from_vec(lcg_fill(3, 128, 0.1))?;
    let w2: Tensor<f32, D2<128, 10>> = Tensor::from_vec(lcg_fill(4, 128 * 10, 0.2))?;
    let b2: Tensor<f32, D1<10>> = Tensor::from_vec(lcg_fill(5, 10, 0.1))?;

    let probs = mlp(&x, &w1, &b1, &w2, &b2);

    // The allocation-free entry, timed over many runs.
    let mut out = Tensor::<f32, D2<64, 10>>::zeros();
    let mut scratch = mlp::Scratch::new();
    let iters = 2000;
    let start = Instant::now();
    for _ in 0..iters {
        mlp::into(&x, &w1, &b1, &w2, &b2, &mut out, &mut scratch);
    }
    let per_batch = start.elapsed().as_secs_f64() / iters as f64;
    assert_eq!(
        out, probs,
        "the allocating and allocation-free entries agree"
    );

    let p = probs.as_slice();
    println!("class probabilities of the first 4 inputs:");
    for row in 0..4 {
        let r = &p[row * 10..row * 10 + 10];
        let (arg, max) =
            r.iter().enumerate().fold(
                (0, f32::MIN),
                |best, (i, &v)| if v > best.1 { (i, v) } else { best },
            );
        let fmt: Vec<String> = r.iter().map(|v| format!("{v:.4}")).collect();
        println!(
            "  input {row}: class {arg} (p = {max:.4})  [{}]",
            fmt.join(" ")
        );
    }
    let total: f32 = p.iter().sum();
    println!("sum of all 64 rows of probabilities: {total:.4} (64 expected)");
    println!(
        "time per batch of 64: {:.1} us ({:.2} GFLOP/s)",
        per_batch * 1e6,
        2.0 * 64.0 * (784.0 * 128.0 + 128.0 * 10.0) / per_batch / 1e9
    );
    Ok(())
}
