//! End-to-end tests of the code `xla!` generates: every generated fn is compared with the
//! reference evaluator (`xla_core::eval::evaluate`) run on the fn's own IR
//! (`name::computation()`), on deterministic inputs, at sizes that exercise vector bodies,
//! scalar tails, rayon splits and layouts.
//!
//! Run: `cargo test -p xla-aot --test codegen`.

use xla_aot::core::eval::evaluate;
use xla_aot::core::{ArrayData, Literal};
use xla_aot::{xla, Tensor, D1, D2};

xla! {
    /// The seed's first example.
    pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [1])
    }

    pub fn row_softmax(x: f32[32, 1000]) -> f32[32, 1000] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }
}

/// Deterministic pseudo-random values in [-2, 2) (an LCG; no dependency).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}

/// Elements of an f32 literal.
fn f32s(l: &Literal) -> Vec<f32> {
    match l.as_array() {
        Some((_, ArrayData::F32(v))) => v.clone(),
        other => panic!("expected an f32 array, got {other:?}"),
    }
}

/// `|a - b| <= tol * max(1, |b|)` elementwise, with NaN matching NaN.
fn assert_close(got: &[f32], want: &[f32], tol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || (g - w).abs() <= tol * w.abs().max(1.0);
        assert!(ok, "{what}: element {i}: got {g}, want {w}");
    }
}

#[test]
fn add_rows_matches_the_seed_and_the_evaluator() {
    let x = Tensor::<f32, D2<2, 3>>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let v = Tensor::<f32, D1<3>>::from_vec(vec![7.0, 8.0, 9.0]).unwrap();
    let r = add_rows(&x, &v);
    assert_eq!(r.as_slice(), &[8.0, 10.0, 12.0, 11.0, 13.0, 15.0]);
    let want = evaluate(&add_rows::computation(), &[x.to_literal(), v.to_literal()]).unwrap();
    assert_eq!(r.to_literal(), want);
    assert_eq!(
        add_rows::run_literals(&[x.to_literal(), v.to_literal()]).unwrap(),
        want
    );
}

#[test]
fn row_softmax_matches_the_evaluator() {
    let x = Tensor::<f32, D2<32, 1000>>::from_vec(values(32_000, 1)).unwrap();
    let r = row_softmax(&x);
    let want = evaluate(&row_softmax::computation(), &[x.to_literal()]).unwrap();
    assert_close(r.as_slice(), &f32s(&want), 1e-5, "row_softmax");
    // Rows sum to 1.
    for row in r.as_slice().chunks(1000) {
        let s: f32 = row.iter().sum();
        assert!((s - 1.0).abs() < 1e-4, "row sum {s}");
    }
}
