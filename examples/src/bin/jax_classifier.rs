//! A model trained (here: drawn) in JAX, exported as StableHLO, run as a plain Rust binary: no
//! Python, no XLA runtime. `stablehlo!` reads `examples/models/classifier.mlir` at compile time
//! (what `jax.jit(classifier).lower(x).as_text()` printed; `models/export_classifier.py` wrote
//! it, weights included as constants), checks every op with the same shape rules as `xla!` and
//! expands it into the same shape-specialised Rust. Editing the file rebuilds the binary.
//!
//! The network: 4 features -> 16 tanh units -> softmax over 3 classes, on a batch of 5. The
//! program checks its probabilities against JAX's (printed by the export script), then times
//! the compiled function. `tests/stablehlo_models.rs` checks it against XLA:CPU on random
//! inputs.
//!
//! Run: `cargo run --release -p xla-examples --bin jax_classifier`.

#![deny(warnings)]

use std::time::Instant;

use xla_aot::{stablehlo, Tensor, D2};

// Every public function of the module; JAX's `@main` is `classifier::main`, with the usual
// companion items (`classifier::main::{Scratch, into, computation, stablehlo, ...}`).
stablehlo!(pub mod classifier = "models/classifier.mlir");

/// Four measurements of five flowers.
const BATCH: [[f32; 4]; 5] = [
    [5.1, 3.5, 1.4, 0.2],
    [6.2, 2.9, 4.3, 1.3],
    [7.7, 3.0, 6.1, 2.3],
    [4.9, 3.1, 1.5, 0.1],
    [6.0, 2.2, 5.0, 1.5],
];

/// JAX's probabilities on `BATCH` (`python examples/models/export_classifier.py` prints them).
const JAX: [[f32; 3]; 5] = [
    [0.14788988, 0.8083485, 0.043761685],
    [0.2990372, 0.32297218, 0.3779906],
    [0.46289653, 0.085411616, 0.45169187],
    [0.14141414, 0.8102902, 0.048295595],
    [0.42695248, 0.12130501, 0.45174256],
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x: Tensor<f32, D2<5, 4>> = Tensor::from_vec(BATCH.concat())?;
    let probs = classifier::main(&x);
    println!("class probabilities (rows: flowers):\n{probs}");
    let mut worst = 0f32;
    for (i, (row, want)) in probs.as_slice().chunks(3).zip(JAX).enumerate() {
        let class = (0..3)
            .max_by(|&a, &b| row[a].total_cmp(&row[b]))
            .unwrap_or(0);
        println!("flower {i}: class {class} (p = {:.3})", row[class]);
        for (p, q) in row.iter().zip(want) {
            worst = worst.max((p - q).abs() / q);
        }
    }
    println!("largest relative difference from JAX: {worst:.1e}");
    if worst > 1e-5 {
        return Err(format!("the compiled model disagrees with JAX ({worst:e})").into());
    }

    // The allocation-free form: outputs and scratch owned by the caller, reused every call.
    let mut out = Tensor::<f32, D2<5, 3>>::zeros();
    let mut scratch = classifier::main::Scratch::new();
    let runs = 100_000;
    let start = Instant::now();
    for _ in 0..runs {
        classifier::main::into(&x, &mut out, &mut scratch);
    }
    let per_run = start.elapsed().as_secs_f64() / runs as f64;
    println!("{:.2} us per batch of 5 ({runs} runs)", per_run * 1e6);
    Ok(())
}
