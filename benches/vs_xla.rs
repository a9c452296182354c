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
//!
//! A second table times the same `into` through owned tensors and through views of the same
//! data in plain `Vec<f32>`s (`TensorView::new(&v)`), 1 element into plain `Vec`s (`&v[1..]`:
//! no vector load is aligned) and 1 element into 64-byte-aligned buffers (alignment alone
//! differs from a tensor's), alternating the four in each round.
//! `bash scripts/bench.sh programs views` runs only that table (no XLA needed).
//!
//! Other arguments select program rows by name: `bash scripts/bench.sh programs CNN Sort While`
//! runs only the rows whose names contain one of them (and not the views table).
//! With `BENCH_PROFILE_SECS=N` the selected rows run only our side, for N seconds each, so that
//! `perf record` sees no XLA (the XLA time is not measured then).

mod common;
mod models;

use common::{alternate, built_for, data, fmt_time, median_secs};

use xla_aot::kernels::aligned::AlignedBuf;
use xla_aot::{xla, Literal, Tensor, TensorView, TensorViewMut, D1, D2, D4};
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

    /// Sum of each column.
    fn column_sum(x: f32[4096, 4096]) -> f32[4096] {
        Reduce(x, 0.0, dimensions = [0], |a, b| a + b)
    }

    /// One dense layer with ReLU at batch 1.
    fn dense_relu_1(x: f32[1, 784], w: f32[784, 128], b: f32[128]) -> f32[1, 128] {
        Max(Add(Dot(x, w), b, broadcast_dimensions = [1]), 0.0)
    }

    /// One dense layer with ReLU at batch 8.
    fn dense_relu_8(x: f32[8, 784], w: f32[784, 128], b: f32[128]) -> f32[8, 128] {
        Max(Add(Dot(x, w), b, broadcast_dimensions = [1]), 0.0)
    }

    /// The CNN of `examples/src/bin/cnn.rs` at batch 8: 3x3 conv to 8 channels (SAME), ReLU,
    /// 3x3 conv stride 2 to 16 channels, ReLU, spatial mean, dense layer to 10 logits.
    fn cnn_8(
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

    /// Sort of 1M floats by XLA's total order.
    fn sort_1m(x: f32[1048576]) -> f32[1048576] {
        Sort(x, |a, b| LtTotalOrder(a, b))
    }

    /// 1000 steps of x <- x * 0.5 + 1 on f32[16] with an s32 counter: the per-step overhead of
    /// a While loop.
    fn while_1000(x: f32[16]) -> f32[16] {
        let s = While(|s| Lt(s.0, 1000i32), |s| Tuple(Add(s.0, 1i32), Add(Mul(s.1, 0.5), 1.0)),
            Tuple(0i32, x));
        s.1
    }

    /// 1024 steps writing row i of a f32[1024, 256] state to i (DynamicUpdateSlice): the state
    /// is updated in place, so a step costs a row, not the array.
    fn while_rows_1024(x: f32[1024, 256]) -> f32[1024, 256] {
        let s = While(|s| Lt(s.0, 1024i32), |s| {
            let v = ConvertElementType(s.0, new_element_type = f32);
            let row = Broadcast(v, broadcast_sizes = [1, 256]);
            Tuple(Add(s.0, 1i32), DynamicUpdateSlice(s.1, row, s.0, 0i32))
        }, Tuple(0i32, x));
        s.1
    }

    /// The same 1024 steps on a state 4x larger (f32[4096, 256]): the same time per step when
    /// nothing is copied.
    fn while_rows_4096(x: f32[4096, 256]) -> f32[4096, 256] {
        let s = While(|s| Lt(s.0, 1024i32), |s| {
            let v = ConvertElementType(s.0, new_element_type = f32);
            let row = Broadcast(v, broadcast_sizes = [1, 256]);
            Tuple(Add(s.0, 1i32), DynamicUpdateSlice(s.1, row, Mul(s.0, 4i32), 0i32))
        }, Tuple(0i32, x));
        s.1
    }

    /// An embedding lookup: 4096 rows of a 32000 x 512 table by id.
    fn gather_rows(table: f32[32000, 512], ids: s32[4096]) -> f32[4096, 512] {
        Gather(table, ids, offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0],
            index_vector_dim = 1, slice_sizes = [1, 512])
    }

    /// 4096 rows added into a 32000 x 512 table at their ids (duplicates in index order).
    fn scatter_add_rows(table: f32[32000, 512], ids: s32[4096], rows: f32[4096, 512])
        -> f32[32000, 512]
    {
        Scatter(table, ids, rows, |a, b| a + b, update_window_dims = [1],
            inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1)
    }

    /// Batch normalisation of a ResNet activation (NCHW, 64 channels), training mode: the
    /// normalised activations and the per-channel mean and variance.
    fn batch_norm_training(x: f32[32, 64, 56, 56], scale: f32[64], offset: f32[64])
        -> (f32[32, 64, 56, 56], f32[64], f32[64])
    {
        BatchNormTraining(x, scale, offset, epsilon = 0.001, feature_index = 1)
    }

    /// Max pooling 3x3 stride 2 (padding 1) over NCHW, as ResNet's stem does.
    fn max_pool(x: f32[8, 64, 112, 112]) -> f32[8, 64, 56, 56] {
        ReduceWindow(x, f32::NEG_INFINITY, |a, b| Max(a, b), window_dimensions = [1, 1, 3, 3],
            window_strides = [1, 1, 2, 2], padding = [[0, 0], [0, 0], [1, 1], [1, 1]])
    }

    /// The gradient of that max pooling (what `jax.grad` lowers it to): each window's first
    /// maximum receives the window's incoming gradient.
    fn max_pool_grad(x: f32[8, 64, 112, 112], g: f32[8, 64, 56, 56]) -> f32[8, 64, 112, 112] {
        SelectAndScatter(x, |a, b| Ge(a, b), g, 0.0f32, |a, b| Add(a, b),
            window_dimensions = [1, 1, 3, 3], window_strides = [1, 1, 2, 2],
            padding = [[0, 0], [0, 0], [1, 1], [1, 1]])
    }

    /// The README's MLP (`examples/src/mnist_mlp.rs`): 784 -> 128 -> 10, ReLU, softmax.
    fn mlp(x: f32[64, 784], w1: f32[784, 128], b1: f32[128], w2: f32[128, 10], b2: f32[10])
        -> f32[64, 10]
    {
        let h = Max(Add(Dot(x, w1), b1, broadcast_dimensions = [1]), 0.0);
        let logits = Add(Dot(h, w2), b2, broadcast_dimensions = [1]);
        let m = Reduce(logits, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(logits, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
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

/// The filters given on the command line (`bash scripts/bench.sh programs cnn sort`): a row
/// runs when its name contains one of them, every row when there is none.
fn filters() -> Vec<String> {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--") && a != "views")
        .collect()
}

/// `BENCH_PROFILE_SECS=N`: each selected row runs only our side, in a loop for N seconds (to
/// profile it with `perf record`), and prints no table row.
fn profile_secs() -> Option<f64> {
    std::env::var("BENCH_PROFILE_SECS").ok()?.parse().ok()
}

/// Times `ours` (the generated `into`), runs `mlir` on XLA with `args`, checks agreement;
/// `None` when the command line's filters leave the row out.
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
) -> Option<Row> {
    let f = filters();
    if !f.is_empty() && !f.iter().any(|f| name.contains(f.as_str())) {
        return None;
    }
    let xla_out = oracle
        .run(mlir, args)
        .unwrap_or_else(|e| panic!("{name}: XLA failed: {e}"));
    let max_rel = max_rel_diff(&ours_out(), &xla_out[0]);
    assert!(
        max_rel < 1e-4,
        "{name}: generated code and XLA disagree (max rel diff {max_rel:e})"
    );
    let mut ours = ours;
    if let Some(secs) = profile_secs() {
        // Only ours, in a loop, for a profiler (`perf record`): no XLA time in the samples.
        let t = std::time::Instant::now();
        let mut calls = 0u64;
        while t.elapsed().as_secs_f64() < secs {
            ours();
            calls += 1;
        }
        eprintln!("{name}: {calls} calls in {secs} s (BENCH_PROFILE_SECS), not timed against XLA");
        return None;
    }
    let (ours_t, xla_t) = alternate(oracle, name, mlir, args, ROUNDS, 0.08, &mut ours);
    Some(Row {
        name,
        ours: ours_t,
        xla: xla_t,
        bytes,
        flops,
        max_rel,
    })
}

/// One program's `into` through owned tensors and through views of the same data in three
/// places: median seconds of each (the median of round medians; the four alternate in every
/// round, so load drift is shared).
struct ViewRow {
    name: &'static str,
    /// Owned `Tensor`s: 64-byte aligned, huge pages from 2 MiB.
    owned: f64,
    /// Views of 64-byte-aligned buffers like a tensor's: the view mechanism alone.
    buf: f64,
    /// Views of plain `Vec`s: the allocator's alignment (16 bytes here), 4 KiB pages.
    vec: f64,
    /// Views 1 element into plain `Vec`s: 4 bytes off 16, 4 KiB pages.
    vec1: f64,
    /// Bytes past a 64-byte boundary where the first input's plain `Vec` starts.
    vec_off: usize,
    /// Views 1 element into 64-byte-aligned buffers (huge pages from 2 MiB, as owned tensors):
    /// alignment alone differs from `owned`.
    buf1: f64,
}

/// A program's `into` on views: the input slices, the output slice.
type ViaViews<'a> = dyn FnMut(&[&[f32]], &mut [f32]) + 'a;

/// Times `owned` and `via` on views of `inputs` in the three places of [`ViewRow`]; `via` gets
/// the input slices and the output slice. Each view result must have `want`'s bits.
fn views_row(
    name: &'static str,
    inputs: &[&[f32]],
    want: &[f32],
    owned: &mut dyn FnMut(),
    via: &mut ViaViews<'_>,
) -> ViewRow {
    let n_out = want.len();
    let vec0: Vec<Vec<f32>> = inputs.iter().map(|d| d.to_vec()).collect();
    let vec1: Vec<Vec<f32>> = inputs.iter().map(|d| plain(d, 1)).collect();
    let buf0: Vec<AlignedBuf<f32>> = inputs.iter().map(|d| AlignedBuf::from_slice(d)).collect();
    let buf1: Vec<AlignedBuf<f32>> = inputs
        .iter()
        .map(|d| AlignedBuf::from_fn(d.len() + 1, |i| if i == 0 { 0.0 } else { d[i - 1] }))
        .collect();
    let (mut o0, mut o1, mut o2, mut o3) = (
        vec![0.0f32; n_out],
        vec![0.0f32; n_out + 1],
        AlignedBuf::filled(0.0f32, n_out + 1),
        AlignedBuf::filled(0.0f32, n_out),
    );
    let i0: Vec<&[f32]> = vec0.iter().map(|v| &v[..]).collect();
    let i1: Vec<&[f32]> = vec1.iter().map(|v| &v[1..]).collect();
    let i2: Vec<&[f32]> = buf1.iter().map(|v| &v[1..]).collect();
    let i3: Vec<&[f32]> = buf0.iter().map(|v| &v[..]).collect();
    assert!(i1
        .iter()
        .chain(&i2)
        .all(|s| !misalign(s).is_multiple_of(16)));
    let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..ROUNDS {
        t[0].push(median_secs(0.08, owned));
        t[4].push(median_secs(0.08, &mut || via(&i3, &mut o3)));
        t[1].push(median_secs(0.08, &mut || via(&i0, &mut o0)));
        t[2].push(median_secs(0.08, &mut || via(&i1, &mut o1[1..])));
        t[3].push(median_secs(0.08, &mut || via(&i2, &mut o2[1..])));
    }
    let outs = [
        ("Vec", &o0[..]),
        ("Vec+1", &o1[1..]),
        ("buf+1", &o2[1..]),
        ("buf", &o3[..]),
    ];
    for (what, got) in outs {
        assert!(
            got.iter()
                .zip(want)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{name}: views ({what}) and owned tensors disagree"
        );
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    ViewRow {
        name,
        owned: med(&mut t[0]),
        buf: med(&mut t[4]),
        vec: med(&mut t[1]),
        vec1: med(&mut t[2]),
        buf1: med(&mut t[3]),
        vec_off: misalign(i0[0]),
    }
}

/// `data` copied into a plain `Vec` at `off` elements (`off` junk elements first).
fn plain(data: &[f32], off: usize) -> Vec<f32> {
    let mut v = vec![0.0; off];
    v.extend_from_slice(data);
    v
}

/// Byte offset of a slice's start from the previous 64-byte boundary.
fn misalign(s: &[f32]) -> usize {
    s.as_ptr() as usize % 64
}

/// The views table: owned tensors vs views over the same data elsewhere (module docs).
fn views_table() {
    let mut rows = Vec::new();
    {
        let d = [
            data(20, 64 * 784),
            data(21, 784 * 128),
            data(22, 128),
            data(23, 128 * 10),
            data(24, 10),
        ];
        let x: Tensor<f32, D2<64, 784>> = Tensor::from_slice(&d[0]).unwrap();
        let w1: Tensor<f32, D2<784, 128>> = Tensor::from_slice(&d[1]).unwrap();
        let b1: Tensor<f32, D1<128>> = Tensor::from_slice(&d[2]).unwrap();
        let w2: Tensor<f32, D2<128, 10>> = Tensor::from_slice(&d[3]).unwrap();
        let b2: Tensor<f32, D1<10>> = Tensor::from_slice(&d[4]).unwrap();
        let want = mlp(&x, &w1, &b1, &w2, &b2).as_slice().to_vec();
        let mut out = Tensor::<f32, D2<64, 10>>::zeros();
        let (mut s, mut s2) = (mlp::Scratch::new(), mlp::Scratch::new());
        rows.push(views_row(
            "README MLP 64x784 -> 128 -> 10",
            &[&d[0], &d[1], &d[2], &d[3], &d[4]],
            &want,
            &mut || mlp::into(&x, &w1, &b1, &w2, &b2, &mut out, &mut s),
            &mut |i, o| {
                mlp::into(
                    TensorView::new(i[0]).unwrap(),
                    TensorView::new(i[1]).unwrap(),
                    TensorView::new(i[2]).unwrap(),
                    TensorView::new(i[3]).unwrap(),
                    TensorView::new(i[4]).unwrap(),
                    TensorViewMut::new(o).unwrap(),
                    &mut s2,
                )
            },
        ));
    }
    macro_rules! dense {
        ($f:ident, $m:literal, $seed:literal, $name:literal) => {{
            let d = [
                data($seed, $m * 784),
                data($seed + 1, 784 * 128),
                data($seed + 2, 128),
            ];
            let x: Tensor<f32, D2<$m, 784>> = Tensor::from_slice(&d[0]).unwrap();
            let w: Tensor<f32, D2<784, 128>> = Tensor::from_slice(&d[1]).unwrap();
            let b: Tensor<f32, D1<128>> = Tensor::from_slice(&d[2]).unwrap();
            let want = $f(&x, &w, &b).as_slice().to_vec();
            let mut out = Tensor::<f32, D2<$m, 128>>::zeros();
            let (mut s, mut s2) = ($f::Scratch::new(), $f::Scratch::new());
            rows.push(views_row(
                $name,
                &[&d[0], &d[1], &d[2]],
                &want,
                &mut || $f::into(&x, &w, &b, &mut out, &mut s),
                &mut |i, o| {
                    $f::into(
                        TensorView::new(i[0]).unwrap(),
                        TensorView::new(i[1]).unwrap(),
                        TensorView::new(i[2]).unwrap(),
                        TensorViewMut::new(o).unwrap(),
                        &mut s2,
                    )
                },
            ));
        }};
    }
    dense!(dense_relu_1, 1, 30, "dense_relu batch 1 (1x784 . 784x128)");
    dense!(dense_relu_8, 8, 33, "dense_relu batch 8 (8x784 . 784x128)");
    macro_rules! unary {
        ($f:ident, $din:ty, $dout:ty, $n:expr, $seed:literal, $name:literal) => {{
            let d = data($seed, $n);
            let x: Tensor<f32, $din> = Tensor::from_slice(&d).unwrap();
            let want = $f(&x).as_slice().to_vec();
            let mut out = Tensor::<f32, $dout>::zeros();
            let (mut s, mut s2) = ($f::Scratch::new(), $f::Scratch::new());
            rows.push(views_row(
                $name,
                &[&d],
                &want,
                &mut || $f::into(&x, &mut out, &mut s),
                &mut |i, o| {
                    $f::into(
                        TensorView::new(i[0]).unwrap(),
                        TensorViewMut::new(o).unwrap(),
                        &mut s2,
                    )
                },
            ));
        }};
    }
    unary!(
        tanh_affine,
        D1<{ 4 << 20 }>,
        D1<{ 4 << 20 }>,
        4 << 20,
        40,
        "tanh(2x+1) f32[4M]"
    );
    unary!(row_softmax, D2<256, 1024>, D2<256, 1024>, 256 * 1024, 41, "row_softmax f32[256,1024]");
    unary!(row_sum, D2<4096, 4096>, D1<4096>, 4096 * 4096, 42, "row sum f32[4096,4096]");

    println!(
        "\nViews: the same `into` through owned tensors (64-byte aligned, huge pages from 2 MiB) \
         and through views of the same data in 64-byte-aligned buffers like a tensor's (buf), \
         1 element into such buffers (buf +1: only the alignment differs from owned), in plain \
         Vecs (4 KiB pages; the first input starts {:?} bytes past a 64-byte boundary, row by \
         row) and 1 element into plain Vecs. Nx = time / owned time (above 1 is slower).",
        rows.iter().map(|r| r.vec_off).collect::<Vec<_>>()
    );
    println!(
        "\n| {:<38} | {:>10} | {:>16} | {:>16} | {:>16} | {:>16} |",
        "program", "owned", "buf", "buf +1", "Vec", "Vec +1"
    );
    println!(
        "|{:-<40}|{:-<12}|{:-<18}|{:-<18}|{:-<18}|{:-<18}|",
        "", "", "", "", "", ""
    );
    for r in &rows {
        let cell = |t: f64| format!("{} {:.2}x", fmt_time(t), t / r.owned);
        println!(
            "| {:<38} | {:>10} | {:>16} | {:>16} | {:>16} | {:>16} |",
            r.name,
            fmt_time(r.owned),
            cell(r.buf),
            cell(r.buf1),
            cell(r.vec),
            cell(r.vec1)
        );
    }
}

fn main() {
    println!(
        "threads: {} (rayon); built for: {}",
        rayon::current_num_threads(),
        built_for()
    );
    // `cargo bench` passes `--bench`; a plain argument selects a table.
    let only_views = std::env::args().skip(1).any(|a| a == "views");
    if only_views {
        views_table();
        return;
    }
    let mut oracle = Oracle::start().unwrap_or_else(|e| panic!("cannot start the XLA oracle: {e}"));
    let mut rows = Vec::new();

    {
        const N: usize = 4 << 20;
        let x: Tensor<f32, D1<N>> = Tensor::from_vec(data(1, N)).unwrap();
        let mut out = Tensor::<f32, D1<N>>::zeros();
        let mut scratch = tanh_affine::Scratch::new();
        rows.extend(row(
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
        rows.extend(row(
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
        rows.extend(row(
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
        rows.extend(row(
            &mut oracle,
            "row sum f32[4096,4096]",
            &row_sum::stablehlo(),
            &[x.to_literal()],
            || row_sum(&x).to_literal(),
            || row_sum::into(&x, &mut out, &mut scratch),
            (N * N * 4) as f64,
            0.0,
        ));
        let mut scratch = column_sum::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "column sum f32[4096,4096]",
            &column_sum::stablehlo(),
            &[x.to_literal()],
            || column_sum(&x).to_literal(),
            || column_sum::into(&x, &mut out, &mut scratch),
            (N * N * 4) as f64,
            0.0,
        ));
        // The kernel library's reduction on the same data, for the choice of one engine
        // (issue 9): the generated code above against `xla_kernels::reduce::reduce_fast`.
        for (name, dim) in [
            ("row sum (xla_kernels::reduce)", 1usize),
            ("column sum (xla_kernels::reduce)", 0),
        ] {
            use xla_aot::kernels::reduce::{reduce_fast, ReduceOp};
            let mlir = if dim == 1 {
                row_sum::stablehlo()
            } else {
                column_sum::stablehlo()
            };
            let mut o = vec![0.0f32; N];
            rows.extend(row(
                &mut oracle,
                name,
                &mlir,
                &[x.to_literal()],
                || {
                    let mut o = vec![0.0f32; N];
                    reduce_fast(x.as_slice(), &[N, N], &[dim], ReduceOp::Sum, 0.0, &mut o)
                        .expect("valid reduce");
                    xla_aot::Literal::from_vec(&[N as i64], o).expect("a literal")
                },
                || {
                    reduce_fast(x.as_slice(), &[N, N], &[dim], ReduceOp::Sum, 0.0, &mut o)
                        .expect("valid reduce")
                },
                (N * N * 4) as f64,
                0.0,
            ));
        }
    }
    {
        let x: Tensor<f32, D2<1, 784>> = Tensor::from_vec(data(6, 784)).unwrap();
        let w: Tensor<f32, D2<784, 128>> = Tensor::from_vec(data(7, 784 * 128)).unwrap();
        let b: Tensor<f32, D1<128>> = Tensor::from_vec(data(8, 128)).unwrap();
        let mut out = Tensor::<f32, D2<1, 128>>::zeros();
        let mut scratch = dense_relu_1::Scratch::new();
        rows.extend(row(
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
        rows.extend(row(
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

    {
        let x: Tensor<f32, D4<8, 28, 28, 1>> = Tensor::from_vec(data(12, 8 * 28 * 28)).unwrap();
        let w1: Tensor<f32, D4<3, 3, 1, 8>> = Tensor::from_vec(data(13, 9 * 8)).unwrap();
        let b1: Tensor<f32, D1<8>> = Tensor::from_vec(data(14, 8)).unwrap();
        let w2: Tensor<f32, D4<3, 3, 8, 16>> = Tensor::from_vec(data(15, 9 * 8 * 16)).unwrap();
        let b2: Tensor<f32, D1<16>> = Tensor::from_vec(data(16, 16)).unwrap();
        let w3: Tensor<f32, D2<16, 10>> = Tensor::from_vec(data(17, 16 * 10)).unwrap();
        let b3: Tensor<f32, D1<10>> = Tensor::from_vec(data(18, 10)).unwrap();
        let mut out = Tensor::<f32, D2<8, 10>>::zeros();
        let mut scratch = cnn_8::Scratch::new();
        let lits = [
            x.to_literal(),
            w1.to_literal(),
            b1.to_literal(),
            w2.to_literal(),
            b2.to_literal(),
            w3.to_literal(),
            b3.to_literal(),
        ];
        let n_in = 8 * 28 * 28 + 9 * 8 + 8 + 9 * 8 * 16 + 16 + 16 * 10 + 10;
        rows.extend(row(
            &mut oracle,
            "CNN batch 8 (28x28x1 -> 8 -> 16 -> 10)",
            &cnn_8::stablehlo(),
            &lits,
            || cnn_8(&x, &w1, &b1, &w2, &b2, &w3, &b3).to_literal(),
            || cnn_8::into(&x, &w1, &b1, &w2, &b2, &w3, &b3, &mut out, &mut scratch),
            ((n_in + 8 * 10) * 4) as f64,
            // The convolutions' and the dense layer's multiply-adds.
            2.0 * (8.0 * 28.0 * 28.0 * 8.0 * 9.0
                + 8.0 * 14.0 * 14.0 * 16.0 * 72.0
                + 8.0 * 16.0 * 10.0),
        ));
    }
    {
        const N: usize = 1 << 20;
        let x: Tensor<f32, D1<N>> = Tensor::from_vec(data(19, N)).unwrap();
        let mut out = Tensor::<f32, D1<N>>::zeros();
        let mut scratch = sort_1m::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "Sort f32[1M] (LtTotalOrder)",
            &sort_1m::stablehlo(),
            &[x.to_literal()],
            || sort_1m(&x).to_literal(),
            || sort_1m::into(&x, &mut out, &mut scratch),
            (2 * N * 4) as f64,
            0.0,
        ));
    }
    {
        let x: Tensor<f32, D1<16>> = Tensor::from_vec(data(20, 16)).unwrap();
        let mut out = Tensor::<f32, D1<16>>::zeros();
        let mut scratch = while_1000::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "While 1000 steps (s32[], f32[16])",
            &while_1000::stablehlo(),
            &[x.to_literal()],
            || while_1000(&x).to_literal(),
            || while_1000::into(&x, &mut out, &mut scratch),
            (2 * 16 * 4) as f64,
            0.0,
        ));
    }

    {
        let x: Tensor<f32, D2<1024, 256>> = Tensor::from_vec(data(23, 1024 * 256)).unwrap();
        let mut out = Tensor::<f32, D2<1024, 256>>::zeros();
        let mut scratch = while_rows_1024::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "While 1024 row writes, f32[1024,256]",
            &while_rows_1024::stablehlo(),
            &[x.to_literal()],
            || while_rows_1024(&x).to_literal(),
            || while_rows_1024::into(&x, &mut out, &mut scratch),
            (2 * 1024 * 256 * 4) as f64,
            0.0,
        ));
        let x: Tensor<f32, D2<4096, 256>> = Tensor::from_vec(data(24, 4096 * 256)).unwrap();
        let mut out = Tensor::<f32, D2<4096, 256>>::zeros();
        let mut scratch = while_rows_4096::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "While 1024 row writes, f32[4096,256]",
            &while_rows_4096::stablehlo(),
            &[x.to_literal()],
            || while_rows_4096(&x).to_literal(),
            || while_rows_4096::into(&x, &mut out, &mut scratch),
            (2 * 4096 * 256 * 4) as f64,
            0.0,
        ));
    }

    {
        const V: usize = 32000;
        const E: usize = 512;
        const N: usize = 4096;
        let table: Tensor<f32, D2<V, E>> = Tensor::from_vec(data(21, V * E)).unwrap();
        // Ids spread over the table by a multiplicative hash (some repeat).
        let ids: Vec<i32> = (0..N).map(|k| ((k * 2654435761) % V) as i32).collect();
        let ids: Tensor<i32, D1<N>> = Tensor::from_vec(ids).unwrap();
        let rows_in: Tensor<f32, D2<N, E>> = Tensor::from_vec(data(22, N * E)).unwrap();
        let mut out = Tensor::<f32, D2<N, E>>::zeros();
        let mut scratch = gather_rows::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "Gather 4096 rows of f32[32000,512]",
            &gather_rows::stablehlo(),
            &[table.to_literal(), ids.to_literal()],
            || gather_rows(&table, &ids).to_literal(),
            || gather_rows::into(&table, &ids, &mut out, &mut scratch),
            (2 * N * E * 4 + N * 4) as f64,
            0.0,
        ));
        let mut out = Tensor::<f32, D2<V, E>>::zeros();
        let mut scratch = scatter_add_rows::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "Scatter-add 4096 rows, f32[32000,512]",
            &scatter_add_rows::stablehlo(),
            &[table.to_literal(), ids.to_literal(), rows_in.to_literal()],
            || scatter_add_rows(&table, &ids, &rows_in).to_literal(),
            || scatter_add_rows::into(&table, &ids, &rows_in, &mut out, &mut scratch),
            (2 * V * E * 4 + N * E * 4 + N * 4) as f64,
            0.0,
        ));
    }

    {
        const N: usize = 32;
        const C: usize = 64;
        const HW: usize = 56;
        let len = N * C * HW * HW;
        let x: Tensor<f32, D4<N, C, HW, HW>> = Tensor::from_vec(data(23, len)).unwrap();
        let scale: Tensor<f32, D1<C>> = Tensor::from_vec(data(24, C)).unwrap();
        let offset: Tensor<f32, D1<C>> = Tensor::from_vec(data(25, C)).unwrap();
        let mut y = Tensor::<f32, D4<N, C, HW, HW>>::zeros();
        let mut mean = Tensor::<f32, D1<C>>::zeros();
        let mut var = Tensor::<f32, D1<C>>::zeros();
        let mut scratch = batch_norm_training::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "BatchNormTraining f32[32,64,56,56], f=1",
            &batch_norm_training::stablehlo(),
            &[x.to_literal(), scale.to_literal(), offset.to_literal()],
            || batch_norm_training(&x, &scale, &offset).0.to_literal(),
            || {
                batch_norm_training::into(
                    &x,
                    &scale,
                    &offset,
                    &mut y,
                    &mut mean,
                    &mut var,
                    &mut scratch,
                )
            },
            // x read (at least once), y written.
            (2 * len * 4) as f64,
            0.0,
        ));
    }
    {
        const IN: usize = 8 * 64 * 112 * 112;
        const OUT: usize = 8 * 64 * 56 * 56;
        let x: Tensor<f32, D4<8, 64, 112, 112>> = Tensor::from_vec(data(31, IN)).unwrap();
        let mut out = Tensor::<f32, D4<8, 64, 56, 56>>::zeros();
        let mut scratch = max_pool::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "MaxPool 3x3/2 f32[8,64,112,112]",
            &max_pool::stablehlo(),
            &[x.to_literal()],
            || max_pool(&x).to_literal(),
            || max_pool::into(&x, &mut out, &mut scratch),
            ((IN + OUT) * 4) as f64,
            0.0,
        ));
    }

    {
        const IN: usize = 8 * 64 * 112 * 112;
        const OUT: usize = 8 * 64 * 56 * 56;
        let x: Tensor<f32, D4<8, 64, 112, 112>> = Tensor::from_vec(data(31, IN)).unwrap();
        let g: Tensor<f32, D4<8, 64, 56, 56>> = Tensor::from_vec(data(32, OUT)).unwrap();
        let mut dx = Tensor::<f32, D4<8, 64, 112, 112>>::zeros();
        let mut scratch = max_pool_grad::Scratch::new();
        rows.extend(row(
            &mut oracle,
            "MaxPool grad 3x3/2 f32[8,64,112,112]",
            &max_pool_grad::stablehlo(),
            &[x.to_literal(), g.to_literal()],
            || max_pool_grad(&x, &g).to_literal(),
            || max_pool_grad::into(&x, &g, &mut dx, &mut scratch),
            // x read, g read, dx written.
            ((2 * IN + OUT) * 4) as f64,
            0.0,
        ));
    }

    models::rows(&mut oracle, &mut rows);

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
    if let Some(r) = rows.iter().find(|r| r.name.starts_with("While 1000")) {
        println!(
            "While: {:.1} ns per step (ours), {:.1} ns per step (XLA:CPU).",
            r.ours / 1000.0 * 1e9,
            r.xla / 1000.0 * 1e9
        );
    }
    if filters().is_empty() {
        views_table();
    }
}
