//! Oracle test of whole models: a transformer encoder block (and its LayerNorm alone) through
//! the generated code and the evaluator, against XLA:CPU on the same arguments.
//!
//! Long chains of ops (dots of 1024 terms, LayerNorm, softmax, tanh-GELU) have no per-element
//! bound we could state, so the results are compared normwise (`Tol::Normwise`): the largest
//! difference within 1e-4 of the largest value. The longest sum, 1024 f32 products, has a
//! forward-error bound of gamma(1024) ~ 6.1e-5 relative to its terms' magnitudes; a wrong value
//! anywhere (a fusion storing the wrong expression, a misread stride) is off by O(1).
//!
//! Run: `cargo test -p xla-aot --test oracle_models`.

mod common;
mod models;

use common::{check_all, Case, Tol};
use models::{layer_norm, transformer_block};
use xla_oracle::Dist;

#[test]
fn whole_models_match_xla() {
    let small = Dist::Range(-0.1, 0.1);
    let unit = Dist::Range(-1.0, 1.0);
    let tol = Tol::Normwise(1e-4);
    let mut v = Vec::new();
    // Activations of unit size, weights and biases small (as trained ones are).
    let block = gen!("transformer block", transformer_block);
    v.push(Case::random(block, &[unit, small], 1, tol));
    v.push(Case::random(block, &[unit, unit], 2, tol));
    let ln = gen!("layer_norm", layer_norm);
    v.push(Case::random(ln, &[unit], 3, tol));
    // Rows of equal values: the centred values are all zero, the variance 0 (rsqrt of eps).
    v.push(Case::random(ln, &[Dist::Range(2.0, 2.0), unit], 4, tol));
    check_all("oracle_models", v);
}
