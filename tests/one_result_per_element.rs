//! One result per element: an element's value does not depend on its position in a row. Full
//! vectors and the partial vector at the end of a row run the same code, so equal inputs give
//! bit-identical outputs everywhere (a scalar tail would take transcendental functions from
//! other code). Rows of 3·37 elements put most of each row in full vectors and the rest in a
//! partial one, for every vector width.
//!
//! Run: `cargo test -p xla-aot --test one_result_per_element`.

#![deny(warnings)]

use xla_aot::{xla, Tensor, D1, D2};

xla! {
    pub fn unary_f32(x: f32[3, 37]) -> f32[3, 37] {
        Add(Add(Exp(x), Tanh(x)), Add(Log(Abs(x)), Sin(x)))
    }
    pub fn unary_f64(x: f64[3, 37]) -> f64[3, 37] {
        Add(Add(Exp(x), Tanh(x)), Add(Log(Abs(x)), Sin(x)))
    }
    /// A flat (rank-1) loop.
    pub fn flat_f32(x: f32[111]) -> f32[111] {
        Logistic(Expm1(x))
    }
    /// Row sums of a transcendental: the terms of the last partial vector come from the same
    /// code as the others (the sum of equal terms is checked against n·term exactly below).
    pub fn row_sum_exp(x: f32[3, 37]) -> f32[3] {
        Reduce(Exp(x), 0.0, dimensions = [1], |a, b| a + b)
    }
    /// Column sums (the outputs are the vector lanes): the last partial run of outputs too.
    pub fn column_sum_exp(x: f32[4, 37]) -> f32[37] {
        Reduce(Exp(x), 0.0, dimensions = [0], |a, b| a + b)
    }
}

/// Values that stress the vector math: around 0, large, negative, near overflow.
const PROBES: [f64; 12] = [
    0.1, -0.3, 1.0e-7, 0.7, 2.5, -5.25, 10.0, 31.5, 80.0, -87.0, 0.65, 1.5e-3,
];

#[test]
fn equal_inputs_give_equal_outputs_at_every_position() {
    for &p in &PROBES {
        let x32 = Tensor::<f32, D2<3, 37>>::from_vec(vec![p as f32; 111]).unwrap();
        let y = unary_f32(&x32);
        let first = y.as_slice()[0].to_bits();
        assert!(
            y.as_slice().iter().all(|v| v.to_bits() == first),
            "f32 {p}: {:?}",
            y.as_slice()
        );
        let x64 = Tensor::<f64, D2<3, 37>>::from_vec(vec![p; 111]).unwrap();
        let y = unary_f64(&x64);
        let first = y.as_slice()[0].to_bits();
        assert!(y.as_slice().iter().all(|v| v.to_bits() == first), "f64 {p}");
        let xf = Tensor::<f32, D1<111>>::from_vec(vec![p as f32; 111]).unwrap();
        let y = flat_f32(&xf);
        let first = y.as_slice()[0].to_bits();
        assert!(
            y.as_slice().iter().all(|v| v.to_bits() == first),
            "flat {p}"
        );
    }
}

#[test]
fn reductions_take_every_term_from_the_same_code() {
    // exp(0.5) computed by the first element of the first row (a full vector) is the term of
    // every position; the column sums of equal terms are then equal across all 37 outputs,
    // partial run included.
    let x = Tensor::<f32, D2<4, 37>>::from_vec(vec![0.5; 148]).unwrap();
    let c = column_sum_exp(&x);
    let first = c.as_slice()[0].to_bits();
    assert!(
        c.as_slice().iter().all(|v| v.to_bits() == first),
        "{:?}",
        c.as_slice()
    );
    let term = unary_like_exp(0.5);
    let x = Tensor::<f32, D2<3, 37>>::from_vec(vec![0.5; 111]).unwrap();
    let r = row_sum_exp(&x);
    // Every row sums the same 37 terms in the same order.
    assert!(r
        .as_slice()
        .iter()
        .all(|v| v.to_bits() == r.as_slice()[0].to_bits()));
    assert!((r.as_slice()[0] - 37.0 * term).abs() <= 37.0 * term * 1e-6);
}

/// exp(v) as the generated code computes it at a full-vector position.
fn unary_like_exp(v: f32) -> f32 {
    xla! {
        fn exp_only(x: f32[16]) -> f32[16] { Exp(x) }
    }
    exp_only(&Tensor::<f32, D1<16>>::from_vec(vec![v; 16]).unwrap()).as_slice()[0]
}

// The macro runs a row's partial vector as a full one when the row has at least 16 f32 or 8 f64
// elements (codegen_rt::max_lanes): no target's vector may be wider. Checked at compile time.
const _: () = {
    use xla_aot::__rt::xla_kernels::simd::{VFloat, F32V, F64V};
    assert!(<F32V as VFloat>::LANES <= 16);
    assert!(<F64V as VFloat>::LANES <= 8);
};
