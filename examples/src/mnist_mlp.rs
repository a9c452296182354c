//! A two-layer MLP classifier (784 -> 128 -> 10, ReLU, softmax) compiled ahead of time by
//! `xla!`, with trained weights loaded from a safetensors file: the program a user would write
//! to ship a small model inside an ordinary Rust binary.
//!
//! The weights, 64 held-out test images (bytes) with their labels, and numpy's class
//! probabilities for them are in `examples/data/mlp.safetensors`, written by
//! `examples/data/make_mlp_weights.py` (numpy, trained on synthetic seven-segment digits, as
//! MNIST cannot be downloaded here). Running needs only that file, no Python.
//!
//! Run: `cargo run --release -p xla-examples --bin mnist_mlp [path/to/mlp.safetensors]`

#![deny(warnings)]

use std::time::Instant;

use xla_aot::io::SafeTensorsFile;
use xla_aot::{xla, Tensor, D1, D2};

xla! {
    /// Image bytes to the model's inputs in [0, 1].
    pub fn pixels_to_f32(p: u8[64, 784]) -> f32[64, 784] {
        Div(ConvertElementType(p, new_element_type = f32), 255.0)
    }

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

/// The index and value of the largest element.
fn argmax(r: &[f32]) -> (usize, f32) {
    r.iter().enumerate().fold(
        (0, f32::MIN),
        |best, (i, &v)| if v > best.1 { (i, v) } else { best },
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/mlp.safetensors").to_string()
    });
    // Each load checks the stored dtype and shape against the tensor type: a file from another
    // model is an Err naming the tensor, the type expected and the type found.
    let file = SafeTensorsFile::open(&path)?;
    let w1: Tensor<f32, D2<784, 128>> = file.load("w1")?;
    let b1: Tensor<f32, D1<128>> = file.load("b1")?;
    let w2: Tensor<f32, D2<128, 10>> = file.load("w2")?;
    let b2: Tensor<f32, D1<10>> = file.load("b2")?;
    let pixels: Tensor<u8, D2<64, 784>> = file.load("test_pixels")?;
    let labels: Tensor<u8, D1<64>> = file.load("test_labels")?;
    let numpy: Tensor<f32, D2<64, 10>> = file.load("test_probs_numpy")?;
    println!("loaded {path}");
    for (key, value) in file.metadata() {
        println!("  {key}: {value}");
    }

    let x = pixels_to_f32(&pixels);
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
    let shade = |v: u8| b" .:-=+*#%@"[usize::from(v) * 10 / 256] as char;
    println!("test image 0 (label {}):", labels.as_slice()[0]);
    for rows in pixels.as_slice()[..784].chunks(56) {
        // Two pixel rows per line, the brighter of each pair, so the glyph keeps its shape.
        let line: String = (0..28).map(|c| shade(rows[c].max(rows[28 + c]))).collect();
        println!("  |{line}|");
    }
    println!("class probabilities of the first 4 test images:");
    for row in 0..4 {
        let r = &p[row * 10..row * 10 + 10];
        let (arg, max) = argmax(r);
        let fmt: Vec<String> = r.iter().map(|v| format!("{v:.4}")).collect();
        println!(
            "  image {row}: label {}, predicted {arg} (p = {max:.4})  [{}]",
            labels.as_slice()[row],
            fmt.join(" ")
        );
    }
    let correct = (0..64)
        .filter(|&row| argmax(&p[row * 10..row * 10 + 10]).0 == usize::from(labels.as_slice()[row]))
        .count();
    println!("accuracy on the 64 test images: {correct}/64");
    let diff = p
        .iter()
        .zip(numpy.as_slice())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("largest difference from numpy's probabilities for the same weights: {diff:.2e}");
    let total: f32 = p.iter().sum();
    println!("sum of all 64 rows of probabilities: {total:.4} (64 expected)");
    println!(
        "time per batch of 64: {:.1} us ({:.2} GFLOP/s)",
        per_batch * 1e6,
        2.0 * 64.0 * (784.0 * 128.0 + 128.0 * 10.0) / per_batch / 1e9
    );
    Ok(())
}
