//! `stablehlo!` on programs exported from JAX (`tests/stablehlo/export.py` wrote the `.mlir`
//! files, as `jax.jit(f).lower(...).as_text()` prints them): an MLP, a softmax, a small CNN, a
//! CNN block (conv, batch norm, ReLU, max-pool, dense), a transformer encoder block, a
//! `lax.scan` RNN, a while loop, a variance (`chlo.square`) and a function of several results. Each compiles at build time into a Rust fn;
//! on seeded random inputs its generated code and the evaluator on the imported IR are compared
//! with XLA:CPU running JAX's own text (and, through the `oracle_gen_*` harness, with XLA
//! running our export of the imported IR).
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! stablehlo_models`.

#![deny(warnings)]

mod common;

use common::{check_all, compare_case, oracle, rebuild, Case, Gen, Tol};
use xla_aot::core::eval::evaluate;
use xla_aot::{Tensor, D1, D2};
use xla_oracle::Dist;

xla_aot::stablehlo! {
    /// Two dense layers with a ReLU between them (JAX's `relu` is a private function called
    /// from `@main`).
    pub fn mlp = "tests/stablehlo/mlp.mlir";
    pub fn softmax = "tests/stablehlo/softmax.mlir";
    pub fn cnn = "tests/stablehlo/cnn.mlir";
    /// Conv, batch norm, ReLU, 3x3/2 max-pooling, dense.
    pub fn cnn_block = "tests/stablehlo/cnn_block.mlir";
    /// A transformer encoder block: 4-head attention, layer norms, an erf-GELU MLP.
    pub fn encoder = "tests/stablehlo/encoder.mlir";
    /// A `lax.scan` RNN (a While over dynamic slices and updates).
    pub mod rnn = "tests/stablehlo/rnn.mlir";
    pub fn newton = "tests/stablehlo/while_loop.mlir";
    pub fn variance = "tests/stablehlo/variance.mlir";
    pub mod several = "tests/stablehlo/two_results.mlir";
    /// The example's classifier (weights baked into the text as constants).
    pub mod classifier = "examples/models/classifier.mlir";
}

/// One model: its generated entry points, JAX's own text, the input distributions and the
/// bound its results are held to.
struct Model {
    gen: Gen,
    jax_text: &'static str,
    dists: &'static [Dist],
    tol: Tol,
}

fn models() -> Vec<Model> {
    vec![
        Model {
            // Sums of products and a max with 0: the forward-error bound of any order.
            gen: gen!("mlp", mlp),
            jax_text: include_str!("stablehlo/mlp.mlir"),
            dists: &[Dist::Range(-1.0, 1.0)],
            tol: Tol::Forward,
        },
        Model {
            // exp (a few ulps), a sum of 10 positive terms and a division.
            gen: gen!("softmax", softmax),
            jax_text: include_str!("stablehlo/softmax.mlir"),
            dists: &[Dist::Range(-4.0, 4.0)],
            tol: Tol::Rel(2e-6),
        },
        Model {
            // Convolutions, ReLU, a mean and a dense layer: sums of products again.
            gen: gen!("cnn", cnn),
            jax_text: include_str!("stablehlo/cnn.mlir"),
            dists: &[Dist::Range(-1.0, 1.0)],
            tol: Tol::Forward,
        },
        Model {
            // Sums of products around one rsqrt per channel and a max pool (exact): bounded
            // at the scale of the logits.
            gen: gen!("cnn_block", cnn_block),
            jax_text: include_str!("stablehlo/cnn_block.mlir"),
            // x, kernel, mean, var, scale, offset, dense weights, bias.
            dists: &[
                Dist::Range(-1.0, 1.0),
                Dist::Range(-1.0, 1.0),
                Dist::Range(-0.5, 0.5),
                Dist::Range(0.5, 2.0),
                Dist::Range(0.5, 1.5),
                Dist::Range(-0.5, 0.5),
                Dist::Range(-0.2, 0.2),
                Dist::Range(-1.0, 1.0),
            ],
            tol: Tol::Normwise(1e-5),
        },
        Model {
            // Softmax, erf, two layer norms: a chain of ops, held at the scale of the output.
            gen: gen!("encoder", encoder),
            jax_text: include_str!("stablehlo/encoder.mlir"),
            // x, then every weight and norm parameter.
            dists: &[Dist::Range(-1.0, 1.0), Dist::Range(-0.3, 0.3)],
            tol: Tol::Normwise(1e-5),
        },
        Model {
            // Ten tanh steps of a recurrence: held at the scale of the states (|h| < 1).
            gen: gen!("rnn", rnn::main),
            jax_text: include_str!("stablehlo/rnn.mlir"),
            dists: &[Dist::Range(-0.5, 0.5)],
            tol: Tol::Normwise(1e-5),
        },
        Model {
            // Newton's square root: each step rounds a division, an add and a multiply.
            gen: gen!("newton", newton),
            jax_text: include_str!("stablehlo/while_loop.mlir"),
            dists: &[Dist::Range(0.5, 4.0), Dist::Range(3.0, 9.0)],
            tol: Tol::Rel(1e-6),
        },
        Model {
            // Means of squares (`chlo.square`) of differences: sums again.
            gen: gen!("variance", variance),
            jax_text: include_str!("stablehlo/variance.mlir"),
            dists: &[Dist::Range(-3.0, 3.0)],
            tol: Tol::Forward,
        },
        Model {
            // A dense layer, tanh, a dense layer and a softmax.
            gen: gen!("classifier", classifier::main),
            jax_text: include_str!("../examples/models/classifier.mlir"),
            dists: &[Dist::Range(-8.0, 8.0)],
            tol: Tol::Rel(1e-5),
        },
        Model {
            gen: gen!("several", several::main),
            jax_text: include_str!("stablehlo/two_results.mlir"),
            dists: &[Dist::Range(-2.0, 2.0)],
            tol: Tol::Forward,
        },
    ]
}

/// Generated code and evaluator vs XLA:CPU on JAX's own exported text, on three seeds each.
#[test]
fn jax_models_agree_with_xla_running_jax_text() {
    let mut guard = oracle();
    let o = match guard.as_mut() {
        Ok(o) => o,
        Err(e) => panic!("the XLA oracle cannot start, so the models cannot be checked: {e}"),
    };
    let mut failures = Vec::new();
    let mut n = 0;
    for m in models() {
        let comp = (m.gen.computation)();
        for seed in 0..3u64 {
            let case = Case::random(m.gen, m.dists, 1000 + seed, m.tol);
            let name = format!("{} seed {seed}", m.gen.name);
            let flat = match o.run(m.jax_text, &case.args) {
                Ok(f) => f,
                Err(e) => {
                    failures.push(format!("{name}: XLA failed on JAX's text: {e}"));
                    continue;
                }
            };
            let Some(xla) = rebuild(comp.result_shape(), &mut flat.into_iter()) else {
                failures.push(format!("{name}: XLA returned too few results"));
                continue;
            };
            let gen = (m.gen.run)(&case.args).map_err(|e| e.to_string());
            let ev = evaluate(&comp, &case.args).map_err(|e| e.to_string());
            for (what, ours) in [("generated", gen), ("evaluator", ev)] {
                n += 1;
                let r = ours.and_then(|l| {
                    compare_case(
                        &format!("{name} [{what}]"),
                        &l,
                        &xla,
                        m.tol,
                        &comp,
                        &case.args,
                    )
                });
                if let Err(e) = r {
                    failures.push(e);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} comparisons fail (XLA:CPU on {}):\n{}",
        failures.len(),
        o.platform,
        failures.join("\n")
    );
}

/// The same models through the `oracle_gen_*` harness: XLA runs our export of the imported IR
/// (so import then export is a program XLA accepts and agrees with).
#[test]
fn jax_models_agree_with_xla_running_our_export() {
    let cases = models()
        .into_iter()
        .map(|m| Case::random(m.gen, m.dists, 7, m.tol))
        .collect();
    check_all("stablehlo_models", cases);
}

/// The generated fns are plain Rust fns over typed tensors: `@main`'s arguments in order, its
/// results as a tuple when it has several.
#[test]
fn typed_fns_and_tuples_of_results() {
    let x: Tensor<f32, D2<4, 10>> = Tensor::from_vec((0..40).map(|i| (i % 10) as f32).collect())
        .unwrap_or_else(|e| panic!("{e}"));
    let p = softmax(&x);
    for row in p.as_slice().chunks(10) {
        let total: f32 = row.iter().sum();
        assert!((total - 1.0).abs() < 1e-6, "{row:?}");
        assert!(row.windows(2).all(|w| w[0] < w[1]), "{row:?}");
    }
    let a: Tensor<f32, D2<3, 5>> =
        Tensor::from_vec((0..15).map(|i| i as f32).collect()).unwrap_or_else(|e| panic!("{e}"));
    let b: Tensor<f32, D2<3, 5>> =
        Tensor::from_vec(vec![2.0; 15]).unwrap_or_else(|e| panic!("{e}"));
    let (prod, sums, max): (
        Tensor<f32, D2<3, 5>>,
        Tensor<f32, D1<3>>,
        Tensor<f32, xla_aot::D0>,
    ) = several::main(&a, &b);
    assert_eq!(prod.as_slice()[14], 28.0);
    assert_eq!(sums.as_slice(), &[10.0, 35.0, 60.0]);
    assert_eq!(max.as_slice(), &[2.0]);
    // The companion module is an `xla!` fn's: allocation-free `into` with a reusable Scratch.
    let mut out = Tensor::<f32, D1<6>>::zeros();
    let mut scratch = newton::Scratch::new();
    let v: Tensor<f32, D1<6>> =
        Tensor::from_vec(vec![4.0, 9.0, 2.0, 1.0, 16.0, 0.25]).unwrap_or_else(|e| panic!("{e}"));
    let n: Tensor<i32, xla_aot::D0> = Tensor::from_vec(vec![8]).unwrap_or_else(|e| panic!("{e}"));
    newton::into(&v, &n, &mut out, &mut scratch);
    let want = [2.0f32, 3.0, std::f32::consts::SQRT_2, 1.0, 4.0, 0.5];
    for (g, w) in out.as_slice().iter().zip(want) {
        assert!((g - w).abs() <= 1e-6 * w, "{g} vs {w}");
    }
}
