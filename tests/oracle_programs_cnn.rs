//! Oracle test of whole programs built from the kernel-call, view and control-flow ops: a small
//! CNN (two 3x3 convolutions with ReLU, a spatial mean and a dense layer), a power iteration in a
//! While loop, medians by Sort, moving sums and differences built from Pad and Slice, and a
//! Conditional choosing between two dense layers. Each case runs the generated code, the
//! evaluator and XLA:CPU (the harness of `oracle_gen_kernels`).
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_programs_cnn`.

// The allocating `fn name(&Tensor..)` wrappers are not called here: the cases run the generated
// code through `name::run_literals`.
#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::{ElementType, Literal};
use xla_oracle::Dist;

xla_aot::xla! {
    /// A small CNN on 28x28 single-channel images (NHWC): 3x3 conv to 8 channels (SAME,
    /// stride 1), ReLU, 3x3 conv to 16 channels (SAME, stride 2), ReLU, the mean over the 14x14
    /// positions, a dense layer to 10 logits.
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

xla_aot::xla! {
    /// 30 steps of v <- A v / |A v|, then the Rayleigh quotient v.A v (v has norm 1): the
    /// dominant eigenvalue and its eigenvector, as one tuple.
    pub fn power_iteration(a: f32[8, 8], v: f32[8]) -> (f32[], f32[8]) {
        let s = While(
            |s| Lt(s.0, 30i32),
            |s| {
                let w = Dot(s.1, s.2);
                let n = Sqrt(Reduce(Mul(w, w), 0.0f32, dimensions = [0], |x, y| x + y));
                Tuple(Add(s.0, 1i32), s.1, Div(w, Broadcast(n, broadcast_sizes = [8])))
            },
            Tuple(0i32, a, v));
        let v = s.2;
        Tuple(Dot(v, Dot(a, v)), v)
    }
}

xla_aot::xla! {
    /// The median of 101 values: the middle of the sorted vector.
    pub fn median_odd(x: f32[101]) -> f32[] {
        let s = Sort(x, |a, b| LtTotalOrder(a, b));
        Reshape(Slice(s, start_indices = [50], limit_indices = [51]), new_sizes = [])
    }
    /// The median of each row of 32 values: the mean of the two middle ones.
    pub fn median_rows_even(x: f32[16, 32]) -> f32[16] {
        let s = Sort(x, |a, b| LtTotalOrder(a, b), dimension = 1);
        let mid = Slice(s, start_indices = [0, 15], limit_indices = [16, 17]);
        Mul(Reduce(mid, 0.0, dimensions = [1], |a, b| a + b), 0.5)
    }
    /// The median of each column of 9 integers.
    pub fn median_cols_s32(x: s32[9, 12]) -> s32[12] {
        let s = Sort(x, |a, b| Lt(a, b), dimension = 0);
        Reshape(Slice(s, start_indices = [4, 0], limit_indices = [5, 12]), new_sizes = [12])
    }
}

xla_aot::xla! {
    /// Centred moving sum of width 5 with zeros beyond the ends: the sequence padded by 2 on
    /// each side, five shifted slices added.
    pub fn moving_sum5(x: f32[64]) -> f32[64] {
        let p = Pad(x, 0.0, padding_config = [[2, 2, 0]]);
        let s0 = Slice(p, start_indices = [0], limit_indices = [64]);
        let s1 = Slice(p, start_indices = [1], limit_indices = [65]);
        let s2 = Slice(p, start_indices = [2], limit_indices = [66]);
        let s3 = Slice(p, start_indices = [3], limit_indices = [67]);
        let s4 = Slice(p, start_indices = [4], limit_indices = [68]);
        s0 + s1 + s2 + s3 + s4
    }
    /// Trailing moving sum of width 3 along each row of a batch of sequences (left padding
    /// only), every second output kept.
    pub fn causal_sum3_stride2(x: f32[4, 50]) -> f32[4, 25] {
        let p = Pad(x, 0.0, padding_config = [[0, 0, 0], [2, 0, 0]]);
        let s = Slice(p, start_indices = [0, 0], limit_indices = [4, 50])
            + Slice(p, start_indices = [0, 1], limit_indices = [4, 51])
            + Slice(p, start_indices = [0, 2], limit_indices = [4, 52]);
        Slice(s, start_indices = [0, 0], limit_indices = [4, 50], strides = [1, 2])
    }
    /// First differences with the edge value repeated (x[-1] := x[0]): padding by a
    /// concatenated copy of the first element, then two slices.
    pub fn diff_edge(x: s32[40]) -> s32[40] {
        let p = ConcatInDim(Slice(x, start_indices = [0], limit_indices = [1]), x, dimension = 0);
        Slice(p, start_indices = [1], limit_indices = [41]) - Slice(p, start_indices = [0], limit_indices = [40])
    }
}

xla_aot::xla! {
    /// A pred picks one of two dense layers (ReLU or identity); each branch gets its input and
    /// weights as one tuple (a computation cannot capture).
    pub fn choose_layer(p: pred[], x: f32[4, 16], w1: f32[16, 8], b1: f32[8], w2: f32[16, 8],
        b2: f32[8]) -> f32[4, 8]
    {
        Conditional(p,
            Tuple(x, w1, b1), |t| Max(Add(Dot(t.0, t.1), t.2, broadcast_dimensions = [1]), 0.0),
            Tuple(x, w2, b2), |t| Add(Dot(t.0, t.1), t.2, broadcast_dimensions = [1]))
    }
    /// The pred computed from the data: the ReLU layer when the input's sum is positive.
    pub fn choose_layer_by_sum(x: f32[4, 16], w1: f32[16, 8], b1: f32[8], w2: f32[16, 8],
        b2: f32[8]) -> f32[4, 8]
    {
        let p = Gt(Reduce(x, 0.0, dimensions = [0, 1], |a, b| a + b), 0.0);
        Conditional(p,
            Tuple(x, w1, b1), |t| Max(Add(Dot(t.0, t.1), t.2, broadcast_dimensions = [1]), 0.0),
            Tuple(x, w2, b2), |t| Add(Dot(t.0, t.1), t.2, broadcast_dimensions = [1]))
    }
}

/// The CNN on random inputs and weights (within the forward-error bound of its sums) and on
/// small integers (every conv and the spatial sum exact; the division and the dense layer
/// within the bound).
fn cnn_cases() -> Vec<Case> {
    let g = gen!("cnn", cnn);
    let fwd = common::reduce_tol(ElementType::F32);
    let mut v = vec![
        Case::random(g, &[Dist::Range(-1.0, 1.0)], 71, fwd),
        Case::random(g, &[Dist::Range(0.0, 1.0), Dist::Range(-1.0, 1.0)], 72, fwd),
    ];
    let args = common::args_with(g, |i, a| {
        common::int_valued(a.ty, &a.dims, 73 + i as u64, 2.0)
    });
    v.push(Case::new(g, "ints", args, fwd));
    v
}

/// The power iteration on positive matrices (a simple dominant eigenvalue, a positive
/// eigenvector whose components are of one magnitude), so rounding errors of one step are
/// damped by the next ones and relative errors stay near f32's.
fn power_iteration_cases() -> Vec<Case> {
    let g = gen!("while/power_iteration", power_iteration);
    (0..3)
        .map(|k| {
            let mut c = Case::random(g, &[Dist::Range(0.25, 1.5)], 80 + k, Tol::Rel(1e-5));
            c.name = format!("{} seed {}", c.name, 80 + k);
            c
        })
        .collect()
}

fn median_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (g, d) in [
        (gen!("median/odd", median_odd), Dist::Any),
        (gen!("median/odd/special", median_odd), Dist::Special),
        (gen!("median/rows_even", median_rows_even), Dist::Any),
        (
            gen!("median/cols_s32", median_cols_s32),
            Dist::Range(-50.0, 50.0),
        ),
    ] {
        v.push(Case::random(g, &[d], 90, Tol::Exact));
    }
    v
}

/// Sums of a fixed number of terms in the program's own order: bit-exact.
fn pad_slice_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (g, d) in [
        (gen!("moving_sum5", moving_sum5), Dist::Any),
        (gen!("moving_sum5/special", moving_sum5), Dist::Special),
        (gen!("causal_sum3_stride2", causal_sum3_stride2), Dist::Any),
        (gen!("diff_edge", diff_edge), Dist::Any),
    ] {
        v.push(Case::random(g, &[d], 100, Tol::Exact));
    }
    v
}

/// Small integer inputs: the dots and the sum deciding the branch are exact, so both branches
/// must match XLA's bits.
fn conditional_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let g = gen!("conditional/layer", choose_layer);
    for p in [true, false] {
        let mut args = common::args_with(g, |i, a| {
            if a.ty == ElementType::Pred {
                Literal::scalar(p)
            } else {
                common::int_valued(a.ty, &a.dims, 110 + i as u64, 4.0)
            }
        });
        args[0] = Literal::scalar(p);
        v.push(Case::new(g, &format!("pred {p}"), args, Tol::Exact));
    }
    let g = gen!("conditional/layer_by_sum", choose_layer_by_sum);
    for seed in 0..4u64 {
        let args = common::args_with(g, |i, a| {
            if i == 0 {
                // Shift the inputs' sum to either side of 0.
                let base = common::int_valued(a.ty, &a.dims, 120 + seed, 3.0);
                let shift = if seed % 2 == 0 { 1.0 } else { -1.0 };
                let vals: Vec<f32> = base
                    .as_slice::<f32>()
                    .expect("f32")
                    .iter()
                    .map(|&x| x + shift)
                    .collect();
                let sum: f32 = vals.iter().sum();
                assert_eq!(
                    sum > 0.0,
                    shift > 0.0,
                    "seed {seed} must take the other branch"
                );
                Literal::from_vec(&a.dims, vals).expect("x")
            } else {
                common::int_valued(a.ty, &a.dims, 130 + seed * 10 + i as u64, 4.0)
            }
        });
        v.push(Case::new(g, &format!("seed {seed}"), args, Tol::Exact));
    }
    v
}

#[test]
fn generated_cnn_matches_xla() {
    check_all("generated CNN", cnn_cases());
}

#[test]
fn generated_power_iteration_matches_xla() {
    check_all("generated power iteration", power_iteration_cases());
}

#[test]
fn generated_medians_match_xla() {
    check_all("generated medians", median_cases());
}

#[test]
fn generated_pad_slice_programs_match_xla() {
    check_all("generated pad/slice programs", pad_slice_cases());
}

#[test]
fn generated_conditional_layers_match_xla() {
    check_all("generated conditional layers", conditional_cases());
}
