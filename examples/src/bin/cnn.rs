//! A small convolutional network compiled ahead of time by `xla!`: 28x28 single-channel images
//! (NHWC), a 3x3 convolution to 8 channels (SAME, stride 1), ReLU, a 3x3 convolution to 16
//! channels (SAME, stride 2), ReLU, the mean over the 14x14 positions and a dense layer to 10
//! logits, on a batch of 8.
//!
//! The weights are deterministic pseudo-random numbers (He-uniform scaled) and the images are
//! synthetic (a bright stroke at a different angle in each, plus noise), so the program needs no
//! data files; the logits mean nothing, but the checksum is reproducible. The generated code is
//! checked against the reference evaluator running the same checked IR, then timed.
//! `tests/oracle_programs_cnn.rs` checks the same network against XLA:CPU.
//!
//! Run: `cargo run --release -p xla-examples --bin cnn` (add
//! `RUSTFLAGS="-C target-cpu=native"` for the widest vectors of the machine).

#![deny(warnings)]

use std::time::Instant;

use xla_aot::core::eval::evaluate;
use xla_aot::{xla, Tensor, D1, D2, D4};

xla! {
    /// The network: two convolutions with ReLU, a spatial mean, a dense layer.
    pub fn cnn(
        x: f32[8, 28, 28, 1],
        w1: f32[3, 3, 1, 8], b1: f32[8],
        w2: f32[3, 3, 8, 16], b2: f32[16],
        w3: f32[16, 10], b3: f32[10],
    ) -> f32[8, 10] {
        let h1 = ConvWithGeneralDimensions(x, w1, window_strides = [1, 1], padding = SAME,
            dimension_numbers = [NHWC, HWIO, NHWC]);
        let h1 = Max(Add(h1, b1, broadcast_dimensions = [3]), 0.0);
        let h2 = ConvWithGeneralDimensions(h1, w2, window_strides = [2, 2], padding = SAME,
            dimension_numbers = [NHWC, HWIO, NHWC]);
        let h2 = Max(Add(h2, b2, broadcast_dimensions = [3]), 0.0);
        let mean = Div(Reduce(h2, 0.0, dimensions = [1, 2], |a, b| a + b), 196.0);
        Add(Dot(mean, w3), b3, broadcast_dimensions = [1])
    }
}

/// Multiply-adds x 2 of the two convolutions and the dense layer (bias, ReLU and mean not
/// counted).
const FLOPS: f64 =
    2.0 * (8.0 * 28.0 * 28.0 * 8.0 * 9.0 + 8.0 * 14.0 * 14.0 * 16.0 * 72.0 + 8.0 * 16.0 * 10.0);

/// A deterministic generator of uniform numbers in [-1, 1) (xorshift64).
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// `n` numbers uniform in [-scale, scale).
    fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| scale * self.uniform()).collect()
    }
}

/// He-uniform scale for a layer with `fan_in` inputs per output.
fn he(fan_in: usize) -> f32 {
    (6.0 / fan_in as f32).sqrt()
}

/// The index of the largest element.
fn argmax(r: &[f32]) -> usize {
    (0..r.len()).fold(0, |best, i| if r[i] > r[best] { i } else { best })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let w1: Tensor<f32, D4<3, 3, 1, 8>> = Tensor::from_vec(rng.vec(3 * 3 * 8, he(9)))?;
    let b1: Tensor<f32, D1<8>> = Tensor::from_vec(rng.vec(8, 0.1))?;
    let w2: Tensor<f32, D4<3, 3, 8, 16>> = Tensor::from_vec(rng.vec(3 * 3 * 8 * 16, he(72)))?;
    let b2: Tensor<f32, D1<16>> = Tensor::from_vec(rng.vec(16, 0.1))?;
    let w3: Tensor<f32, D2<16, 10>> = Tensor::from_vec(rng.vec(16 * 10, he(16)))?;
    let b3: Tensor<f32, D1<10>> = Tensor::from_vec(rng.vec(10, 0.1))?;
    // Image k: a stroke through the centre at angle k * 22.5 degrees, on faint noise.
    let x: Tensor<f32, D4<8, 28, 28, 1>> = Tensor::from_fn(|i| {
        let angle = i[0] as f32 * std::f32::consts::PI / 8.0;
        let (dy, dx) = (i[1] as f32 - 13.5, i[2] as f32 - 13.5);
        let dist = (dx * angle.sin() - dy * angle.cos()).abs();
        let stroke = if dist < 1.5 { 1.0 } else { 0.0 };
        stroke + 0.1 * (rng.uniform() + 1.0)
    });

    let logits = cnn(&x, &w1, &b1, &w2, &b2, &w3, &b3);

    // The same checked IR run by the reference evaluator: the generated code sums in another
    // order (Winograd for the stride-1 convolution, blocked GEMM), so the two agree to rounding.
    let args = [
        x.to_literal(),
        w1.to_literal(),
        b1.to_literal(),
        w2.to_literal(),
        b2.to_literal(),
        w3.to_literal(),
        b3.to_literal(),
    ];
    let reference = evaluate(&cnn::computation(), &args)?;
    let reference = reference
        .as_slice::<f32>()
        .ok_or("the evaluator's result is not f32")?;
    let diff = logits
        .as_slice()
        .iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);

    // The allocation-free entry, timed: the median of many single batches.
    let mut out = Tensor::<f32, D2<8, 10>>::zeros();
    let mut scratch = cnn::Scratch::new();
    for _ in 0..50 {
        cnn::into(&x, &w1, &b1, &w2, &b2, &w3, &b3, &mut out, &mut scratch);
    }
    let times: Vec<f64> = (0..2000)
        .map(|_| {
            let t = Instant::now();
            cnn::into(&x, &w1, &b1, &w2, &b2, &w3, &b3, &mut out, &mut scratch);
            t.elapsed().as_secs_f64()
        })
        .collect();
    let per_batch = median(times);
    assert_eq!(
        out, logits,
        "the allocating and allocation-free entries agree"
    );

    let l = logits.as_slice();
    println!("logits of 8 images (28x28x1, NHWC) through conv3x3(8) - relu - conv3x3/2(16) - relu - mean - dense(10):");
    for (k, row) in l.chunks(10).enumerate() {
        let fmt: Vec<String> = row.iter().map(|v| format!("{v:+.3}")).collect();
        println!("  image {k}: argmax {}  [{}]", argmax(row), fmt.join(" "));
    }
    let argmaxes: Vec<usize> = l.chunks(10).map(argmax).collect();
    println!("argmax per image: {argmaxes:?}");
    println!(
        "checksum (sum of the 80 logits): {:.5}; sum of |logits|: {:.5}",
        l.iter().map(|&v| f64::from(v)).sum::<f64>(),
        l.iter().map(|&v| f64::from(v).abs()).sum::<f64>()
    );
    println!("largest difference from the reference evaluator: {diff:.2e}");
    println!(
        "time per batch of 8: {:.1} us (median of 2000 runs), {:.2} GFLOP/s ({:.2} MFLOP per batch)",
        per_batch * 1e6,
        FLOPS / per_batch / 1e9,
        FLOPS / 1e6
    );
    Ok(())
}
