//! Generated code against XLA:CPU, side by side in the same run.
//!
//! Run: `bash scripts/bench.sh programs` (sets up the oracle venv, then
//! `RUSTFLAGS="-C target-cpu=native" cargo bench -p xla-aot --bench vs_xla`).
//!
//! Each row runs one `xla!` fn through its allocation-free entry (`name::into`) and the same
//! program's StableHLO (`name::stablehlo()`) compiled by XLA:CPU (jaxlib), on the same inputs;
//! both are timed in alternating rounds (median of each side's round medians) after warm-up (XLA's inside Python, around
//! `execute` + `block_until_ready`, so process-crossing costs are not charged to it). Before
//! timing, the two results are compared, so a fast wrong answer cannot pass.

mod common;

use common::{alternate, built_for, data, fmt_time};

use xla_aot::{xla, Literal, Tensor, D1, D2};
use xla_oracle::Oracle;

xla! {
    /// The elementwise row: `tanh(2x + 1)`.
    fn tanh_affine(x: f32[4194304]) -> f32[4194304] {
        Tanh(x * 2.0 + 1.0)
    }

    /// A matrix plus a row vector broadcast along dimension 1.
    fn add_rows(x: f32[4096, 4096], v: f32[4096]) -> f32[4096, 4096] {
        Add(x, v, broadcast_dimensions = [1])
    }

    /// Softmax of each row, stabilised by the row maximum.
    fn row_softmax(x: f32[256, 1024]) -> f32[256, 1024] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }

    /// Sum of each row.
    fn row_sum(x: f32[4096, 4096]) -> f32[4096] {
        Reduce(x, 0.0, dimensions = [1], |a, b| a + b)
    }

    /// One dense layer with ReLU at batch 1.
    fn dense_relu_1(x: f32[1, 784], w: f32[784, 128], b: f32[128]) -> f32[1, 128] {
        Max(Add(Dot(x, w), b, broadcast_dimensions = [1]), 0.0)
    }

    /// One dense layer with ReLU at batch 8.
    fn dense_relu_8(x: f32[8, 784], w: f32[784, 128], b: f32[128]) -> f32[8, 128] {
        Max(Add(Dot(x, w), b, broadcast_dimensions = [1]), 0.0)
    }
}

/// Rounds of alternating measurements per row.
const ROUNDS: usize = 7;

/// Largest |a-b| / max(1, |b|) over two f32 literals.
fn max_rel_diff(ours: &Literal, xla: &Literal) -> f64 {
    let (a, b) = (
        ours.as_slice::<f32>().expect("f32"),
        xla.as_slice::<f32>().expect("f32"),
    );
    assert_eq!(a.len(), b.len(), "result sizes differ");
    a.iter()
        .zip(b)
        .map(|(&x, &y)| ((x - y).abs() / y.abs().max(1.0)) as f64)
        .fold(0.0, f64::max)
}

struct Row {
    name: &'static str,
    ours: f64,
    xla: f64,
    bytes: f64,
    flops: f64,
    max_rel: f64,
}

/// Times `ours` (the generated `into`), runs `mlir` on XLA with `args`, checks agreement.
#[allow(clippy::too_many_arguments)]
fn row(
    oracle: &mut Oracle,
    name: &'static str,
    mlir: &str,
    args: &[Literal],
    ours_out: impl Fn() -> Literal,
    ours: impl FnMut(),
    bytes: f64,
    flops: f64,
) -> Row {
    let xla_out = oracle
        .run(mlir, args)
        .unwrap_or_else(|e| panic!("{name}: XLA failed: {e}"));
    let max_rel = max_rel_diff(&ours_out(), &xla_out[0]);
    assert!(
        max_rel < 1e-4,
        "{name}: generated code and XLA disagree (max rel diff {max_rel:e})"
    );
    let mut ours = ours;
    let (ours_t, xla_t) = alternate(oracle, name, mlir, args, ROUNDS, 0.08, &mut ours);
    Row {
        name,
        ours: ours_t,
        xla: xla_t,
        bytes,
        flops,
        max_rel,
    }
}

fn main() {
    let mut oracle = Oracle::start().unwrap_or_else(|e| panic!("cannot start the XLA oracle: {e}"));
    println!(
        "threads: {} (rayon); built for: {}",
        rayon::current_num_threads(),
        built_for()
    );
    let mut rows = Vec::new();

    {
        const N: usize = 4 << 20;
        let x: Tensor<f32, D1<N>> = Tensor::from_vec(data(1, N)).unwrap();
        let mut out = Tensor::<f32, D1<N>>::zeros();
        let mut scratch = tanh_affine::Scratch::new();
        rows.push(row(
            &mut oracle,
            "tanh(2x+1) f32[4M]",
            &tanh_affine::stablehlo(),
            &[x.to_literal()],
            || tanh_affine(&x).to_literal(),
            || tanh_affine::into(&x, &mut out, &mut scratch),
            (2 * N * 4) as f64,
            0.0,
        ));
    }
    {
        const N: usize = 4096;
        let x: Tensor<f32, D2<N, N>> = Tensor::from_vec(data(2, N * N)).unwrap();
        let v: Tensor<f32, D1<N>> = Tensor::from_vec(data(3, N)).unwrap();
        let mut out = Tensor::<f32, D2<N, N>>::zeros();
        let mut scratch = add_rows::Scratch::new();
        rows.push(row(
            &mut oracle,
            "f32[4096,4096] + f32[4096] (bcast)",
            &add_rows::stablehlo(),
            &[x.to_literal(), v.to_literal()],
            || add_rows(&x, &v).to_literal(),
            || add_rows::into(&x, &v, &mut out, &mut scratch),
            (2 * N * N * 4) as f64,
            0.0,
        ));
    }
    {
        let x: Tensor<f32, D2<256, 1024>> = Tensor::from_vec(data(4, 256 * 1024)).unwrap();
        let mut out = Tensor::<f32, D2<256, 1024>>::zeros();
        let mut scratch = row_softmax::Scratch::new();
        rows.push(row(
            &mut oracle,
            "row_softmax f32[256,1024]",
            &row_softmax::stablehlo(),
            &[x.to_literal()],
            || row_softmax(&x).to_literal(),
            || row_softmax::into(&x, &mut out, &mut scratch),
            (2 * 256 * 1024 * 4) as f64,
            0.0,
        ));
    }
    {
        const N: usize = 4096;
        let x: Tensor<f32, D2<N, N>> = Tensor::from_vec(data(5, N * N)).unwrap();
        let mut out = Tensor::<f32, D1<N>>::zeros();
        let mut scratch = row_sum::Scratch::new();
        rows.push(row(
            &mut oracle,
            "row sum f32[4096,4096]",
            &row_sum::stablehlo(),
            &[x.to_literal()],
            || row_sum(&x).to_literal(),
            || row_sum::into(&x, &mut out, &mut scratch),
            (N * N * 4) as f64,
            0.0,
        ));
    }
    {
        let x: Tensor<f32, D2<1, 784>> = Tensor::from_vec(data(6, 784)).unwrap();
        let w: Tensor<f32, D2<784, 128>> = Tensor::from_vec(data(7, 784 * 128)).unwrap();
        let b: Tensor<f32, D1<128>> = Tensor::from_vec(data(8, 128)).unwrap();
        let mut out = Tensor::<f32, D2<1, 128>>::zeros();
        let mut scratch = dense_relu_1::Scratch::new();
        rows.push(row(
            &mut oracle,
            "dense_relu batch 1 (1x784 . 784x128)",
            &dense_relu_1::stablehlo(),
            &[x.to_literal(), w.to_literal(), b.to_literal()],
            || dense_relu_1(&x, &w, &b).to_literal(),
            || dense_relu_1::into(&x, &w, &b, &mut out, &mut scratch),
            ((784 + 784 * 128 + 2 * 128) * 4) as f64,
            (2 * 784 * 128) as f64,
        ));
    }
    {
        let x: Tensor<f32, D2<8, 784>> = Tensor::from_vec(data(9, 8 * 784)).unwrap();
        let w: Tensor<f32, D2<784, 128>> = Tensor::from_vec(data(10, 784 * 128)).unwrap();
        let b: Tensor<f32, D1<128>> = Tensor::from_vec(data(11, 128)).unwrap();
        let mut out = Tensor::<f32, D2<8, 128>>::zeros();
        let mut scratch = dense_relu_8::Scratch::new();
        rows.push(row(
            &mut oracle,
            "dense_relu batch 8 (8x784 . 784x128)",
            &dense_relu_8::stablehlo(),
            &[x.to_literal(), w.to_literal(), b.to_literal()],
            || dense_relu_8(&x, &w, &b).to_literal(),
            || dense_relu_8::into(&x, &w, &b, &mut out, &mut scratch),
            ((8 * 784 + 784 * 128 + 8 * 128 + 128) * 4) as f64,
            (2 * 8 * 784 * 128) as f64,
        ));
    }

    println!(
        "\n| {:<38} | {:>11} | {:>11} | {:>8} | {:>10} | {:>10} | {:>9} |",
        "program", "ours", "XLA:CPU", "XLA/ours", "ours GB/s", "ours GF/s", "max rel"
    );
    println!(
        "|{:-<40}|{:-<13}|{:-<13}|{:-<10}|{:-<12}|{:-<12}|{:-<11}|",
        "", "", "", "", "", "", ""
    );
    for r in &rows {
        println!(
            "| {:<38} | {:>11} | {:>11} | {:>7.2}x | {:>10.1} | {:>10} | {:>9.1e} |",
            r.name,
            fmt_time(r.ours),
            fmt_time(r.xla),
            r.xla / r.ours,
            r.bytes / r.ours / 1e9,
            if r.flops > 0.0 {
                format!("{:.1}", r.flops / r.ours / 1e9)
            } else {
                "-".into()
            },
            r.max_rel
        );
    }
    println!("\nXLA/ours > 1 means the generated code is faster. GB/s counts each input and output once.");
}
