//! The kernel library against XLA:CPU and against the machine's own limits, in one run.
//!
//! Run: `bash scripts/bench.sh kernels` (sets up the oracle venv, then
//! `RUSTFLAGS="-C target-cpu=native" cargo bench -p xla-aot --bench kernels`). Pass a filter
//! after it (`bash scripts/bench.sh kernels dot`) to run only the rows whose kernel name
//! contains it.
//!
//! First the command measures the machine: the FMA peak (independent vector multiply-adds,
//! no memory traffic) on 1 thread and on all rayon threads, and the streaming bandwidth (a
//! vectorised sum over 512 MiB, and a copy). Then each row runs one kernel of `xla-kernels`
//! and the same computation written in StableHLO and compiled by XLA:CPU (jaxlib), on the same
//! inputs. The two results are compared before anything is timed, so a fast wrong answer cannot
//! pass. The timings alternate between the two sides in [`ROUNDS`] rounds (median of each
//! side's round medians) so that load drift on a shared machine is not charged to one side;
//! XLA's are taken inside Python around `execute` + `block_until_ready`, so the process
//! crossing is not charged to it.
//!
//! Columns: our and XLA's median time, XLA/ours (> 1: ours is faster), our throughput, and
//! that throughput as a fraction of the machine limit that bounds the kernel: the FMA peak for
//! dot, conv and fft (complex products count 8 real flops per multiply-add), the streaming read
//! bandwidth for reductions and elementwise math, the copy bandwidth for transpose and sort.

#[path = "kernels/collectives.rs"]
mod collective_rows;
mod common;
#[path = "kernels/fft.rs"]
mod fft;
#[path = "kernels/linalg.rs"]
mod linalg_rows;
#[path = "kernels/ragged.rs"]
mod ragged_rows;

use common::{alternate, built_for, data, fmt_time};

use std::time::Instant;

use half::bf16;
use num_complex::Complex;
use rayon::prelude::*;
use xla_aot::__rt::xla_kernels::{
    aligned::AlignedBuf,
    conv::{conv, ConvDesc, ConvDims, ConvScratch},
    gemm::{gemm, gemm_s8_s32, GemmDesc, GemmScratch},
    reduce::{reduce_fast, ReduceOp},
    simd::{VFloat, F32V},
    sort::{sort, top_k, Order},
    transpose::transpose,
};
use xla_aot::{xla, Literal, Tensor, D1};
use xla_oracle::Oracle;

xla! {
    /// The exponential row: what the generated elementwise code runs for `Exp`.
    fn exp4m(x: f32[4194304]) -> f32[4194304] {
        Exp(x)
    }
    /// The tanh row.
    fn tanh4m(x: f32[4194304]) -> f32[4194304] {
        Tanh(x * 2.0 + 1.0)
    }
    /// Erf, which `wide` does not have: our polynomial.
    fn erf4m(x: f32[4194304]) -> f32[4194304] {
        Erf(x)
    }
    /// The logarithm (with its selects for subnormal, zero and negative arguments).
    fn log4m(x: f32[4194304]) -> f32[4194304] {
        Log(Abs(x) + 0.25)
    }
    /// Pow of f32, evaluated in f64 lanes (`f32v::via_f64`), special cases and all.
    fn pow4m(x: f32[4194304]) -> f32[4194304] {
        Pow(Abs(x) + 0.25, x)
    }
    /// The f64 tanh: polynomial near 0, `expm1` beyond.
    fn tanh4m_f64(x: f64[4194304]) -> f64[4194304] {
        Tanh(x * 2.0 + 1.0)
    }
    /// The f64 erf: polynomial below 1.5, `1 - e^{-x^2} G(1/x)` beyond.
    fn erf4m_f64(x: f64[4194304]) -> f64[4194304] {
        Erf(x)
    }
    /// Cbrt of f32, evaluated in f64 lanes like pow.
    fn cbrt4m(x: f32[4194304]) -> f32[4194304] {
        Cbrt(x)
    }
    /// Atan2 of f32, evaluated in f64 lanes like pow (signs of both arguments mixed).
    fn atan2_4m(x: f32[4194304]) -> f32[4194304] {
        Atan2(x, x * 0.5 - 1.0)
    }
}

/// Alternating rounds of ours and XLA's timings per row.
const ROUNDS: usize = 5;
/// Seconds one side spends on one round of one row.
const ROUND_BUDGET: f64 = 0.12;

fn lit<T: xla_aot::core::literal::ArrayElement>(dims: &[usize], v: Vec<T>) -> Literal {
    let d: Vec<i64> = dims.iter().map(|&x| x as i64).collect();
    Literal::from_vec(&d, v).expect("literal of matching size")
}

/// The elements of an array literal as f64 (complex: re, im interleaved; integers as values).
fn as_f64(l: &Literal) -> Vec<f64> {
    use xla_aot::core::literal::ArrayData as A;
    let (_, d) = l.as_array().expect("an array result");
    match d {
        A::F32(v) => v.iter().map(|&x| x as f64).collect(),
        A::F64(v) => v.clone(),
        A::Bf16(v) => v.iter().map(|&x| x.to_f64()).collect(),
        A::C64(v) => v.iter().flat_map(|c| [c.re as f64, c.im as f64]).collect(),
        A::S32(v) => v.iter().map(|&x| x as f64).collect(),
        A::U32(v) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("unexpected result type {:?}", other.element_type()),
    }
}

/// Largest |ours - xla| divided by the largest |xla| (a normwise relative error: dot and conv
/// results near zero carry absolute error, not relative).
fn normwise_err(ours: &[f64], xla: &[f64]) -> f64 {
    assert_eq!(ours.len(), xla.len(), "result sizes differ");
    let scale = xla.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-30);
    let diff = ours.iter().zip(xla).fold(0.0f64, |m, (a, b)| {
        if a.is_nan() != b.is_nan() {
            f64::INFINITY
        } else if a.is_nan() {
            m
        } else {
            m.max((a - b).abs())
        }
    });
    diff / scale
}

/// What bounds a row: compute (flops, against the FMA peak) or memory (bytes, against the read
/// or copy bandwidth).
#[derive(Clone, Copy)]
enum Work {
    Flops(f64),
    ReadBytes(f64),
    CopyBytes(f64),
}

struct Row {
    kernel: String,
    shape: String,
    dtype: &'static str,
    ours: f64,
    xla: f64,
    work: Work,
    err: f64,
}

/// The machine's limits, measured by this command.
struct Machine {
    fma_1t: f64,
    fma_all: f64,
    read_bw: f64,
    copy_bw: f64,
}

struct Bench {
    oracle: Oracle,
    filter: Option<String>,
    rows: Vec<Row>,
}

impl Bench {
    fn wants(&self, kernel: &str) -> bool {
        self.filter.as_deref().is_none_or(|f| kernel.contains(f))
    }

    /// Checks `ours_out()` against XLA's first result within `tol` (normwise), then times both.
    #[allow(clippy::too_many_arguments)]
    fn row(
        &mut self,
        kernel: &str,
        shape: &str,
        dtype: &'static str,
        mlir: &str,
        args: &[Literal],
        tol: f64,
        ours_out: &mut dyn FnMut() -> Vec<f64>,
        ours: &mut dyn FnMut(),
        work: Work,
    ) {
        eprintln!("  {kernel} {shape} {dtype}");
        let xla_out = self
            .oracle
            .run(mlir, args)
            .unwrap_or_else(|e| panic!("{kernel} {shape}: XLA failed: {e}"));
        let err = normwise_err(&ours_out(), &as_f64(&xla_out[0]));
        assert!(
            err <= tol,
            "{kernel} {shape} {dtype}: ours and XLA disagree (normwise error {err:e} > {tol:e})"
        );
        let label = format!("{kernel} {shape}");
        let (o, x) = alternate(
            &mut self.oracle,
            &label,
            mlir,
            args,
            ROUNDS,
            ROUND_BUDGET,
            ours,
        );
        self.rows.push(Row {
            kernel: kernel.into(),
            shape: shape.into(),
            dtype,
            ours: o,
            xla: x,
            work,
            err,
        });
    }
}

/// GFLOP/s of independent FMA chains on `threads` threads at once, with the vectors of the
/// level the kernels dispatch to (`gemm::fma_chains`: a default build's SSE2 vectors would
/// understate what the kernels reach).
fn fma_peak(threads: usize) -> f64 {
    const ITERS: usize = 20_000_000;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let mut best = f64::INFINITY;
    let mut flops = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let done = pool.broadcast(|_| xla_kernels::gemm::fma_chains(ITERS));
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&done);
        flops = done.iter().map(|d| d.0).sum();
    }
    flops as f64 / best / 1e9
}

/// Streaming read bandwidth (vector sum) and copy bandwidth (bytes read + written) over 512 MiB,
/// both on all threads, in GB/s: best of 5.
fn bandwidth() -> (f64, f64) {
    const N: usize = 128 << 20;
    let src = AlignedBuf::<f32>::from_fn(N, |i| (i & 1023) as f32);
    let mut dst = AlignedBuf::<f32>::filled(0.0, N);
    let chunk = N / (4 * rayon::current_num_threads());
    let mut best_read = f64::INFINITY;
    let mut best_copy = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        let s: f32 = src
            .par_chunks(chunk)
            .map(|c| {
                let mut acc = [<F32V as VFloat>::splat(0.0); 4];
                let body = c.chunks_exact(4 * F32V::LANES);
                for v in body {
                    for (j, a) in acc.iter_mut().enumerate() {
                        *a += <F32V as VFloat>::load(&v[j * F32V::LANES..]);
                    }
                }
                VFloat::reduce_add(acc[0] + acc[1] + acc[2] + acc[3])
            })
            .sum();
        best_read = best_read.min(t.elapsed().as_secs_f64());
        std::hint::black_box(s);
        let t = Instant::now();
        dst.par_chunks_mut(chunk)
            .zip(src.par_chunks(chunk))
            .for_each(|(d, s)| d.copy_from_slice(s));
        best_copy = best_copy.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&dst);
    }
    let bytes = (N * 4) as f64;
    (bytes / best_read / 1e9, 2.0 * bytes / best_copy / 1e9)
}

fn dot_mlir(batch: usize, m: usize, k: usize, n: usize, ty: &str) -> String {
    let (a, b, c, dn) = if batch > 1 {
        (
            format!("{batch}x{m}x{k}x{ty}"),
            format!("{batch}x{k}x{n}x{ty}"),
            format!("{batch}x{m}x{n}x{ty}"),
            "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
        )
    } else {
        (
            format!("{m}x{k}x{ty}"),
            format!("{k}x{n}x{ty}"),
            format!("{m}x{n}x{ty}"),
            "contracting_dims = [1] x [0]",
        )
    };
    format!(
        "func.func public @main(%a: tensor<{a}>, %b: tensor<{b}>) -> tensor<{c}> {{\n  \
         %r = stablehlo.dot_general %a, %b, {dn} : (tensor<{a}>, tensor<{b}>) -> tensor<{c}>\n  \
         return %r : tensor<{c}>\n}}\n"
    )
}

#[allow(clippy::too_many_arguments)]
fn gemm_row<T>(
    b: &mut Bench,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
    dtype: &'static str,
    conv_from: impl Fn(f32) -> T,
    tol: f64,
) where
    T: xla_aot::__rt::xla_kernels::gemm::GemmElem + xla_aot::core::literal::ArrayElement,
{
    let ty = match dtype {
        "f32" => "f32",
        "bf16" => "bf16",
        "c64" => "complex<f32>",
        other => panic!("no dot row for {other}"),
    };
    let av: Vec<T> = data(11, batch * m * k)
        .into_iter()
        .map(&conv_from)
        .collect();
    let bv: Vec<T> = data(12, batch * k * n)
        .into_iter()
        .map(&conv_from)
        .collect();
    let mut c = AlignedBuf::filled(conv_from(f32::NAN), batch * m * n);
    let d = GemmDesc::row_major(batch, m, n, k);
    let mut s = GemmScratch::new();
    let a_dims: Vec<usize> = if batch > 1 {
        vec![batch, m, k]
    } else {
        vec![m, k]
    };
    let b_dims: Vec<usize> = if batch > 1 {
        vec![batch, k, n]
    } else {
        vec![k, n]
    };
    let args = [lit(&a_dims, av.clone()), lit(&b_dims, bv.clone())];
    let shape = if batch > 1 {
        format!("[{batch},{m},{k}]x[{batch},{k},{n}]")
    } else {
        format!("{m}x{k} . {k}x{n}")
    };
    let per_mac = if dtype == "c64" { 8.0 } else { 2.0 };
    let flops = per_mac * (batch * m * n * k) as f64;
    gemm(&d, &av, &bv, &mut c, &mut s).expect("valid gemm");
    let out = as_f64(&lit(&[c.len()], c.to_vec()));
    let mut run = || gemm(&d, &av, &bv, &mut c, &mut s).expect("valid gemm");
    b.row(
        "dot",
        &shape,
        dtype,
        &dot_mlir(batch, m, k, n, ty),
        &args,
        tol,
        &mut || out.clone(),
        &mut run,
        Work::Flops(flops),
    );
}

fn dot_rows(b: &mut Bench) {
    if !b.wants("dot") {
        return;
    }
    for &(m, k, n) in &[
        (1024, 1024, 1024),
        (256, 256, 256),
        (64, 64, 64),
        (1, 784, 128),
        (8, 784, 128),
    ] {
        gemm_row::<f32>(b, 1, m, k, n, "f32", |x| x, 1e-5);
    }
    gemm_row::<f32>(b, 16, 256, 256, 256, "f32", |x| x, 1e-5);
    // bf16 results are rounded to 8 bits: one ulp of the largest output is 2^-8 relative, and
    // the two sides may sum in different orders.
    gemm_row::<bf16>(b, 1, 1024, 1024, 1024, "bf16", bf16::from_f32, 1.6e-2);
    gemm_row::<Complex<f32>>(
        b,
        1,
        1024,
        1024,
        1024,
        "c64",
        |x| Complex::new(x, 0.5 - x * x),
        1e-5,
    );
    s8_row(b);
}

/// s8 x s8 -> s32 (XLA: `dot_general` with an i32 result type), 1024^3.
fn s8_row(b: &mut Bench) {
    let n = 1024usize;
    let to_s8 = |v: Vec<f32>| -> Vec<i8> { v.into_iter().map(|x| (x * 127.0) as i8).collect() };
    let (av, bv) = (to_s8(data(13, n * n)), to_s8(data(14, n * n)));
    let mut c = AlignedBuf::filled(i32::MIN, n * n);
    let d = GemmDesc::row_major(1, n, n, n);
    let mut s = GemmScratch::new();
    gemm_s8_s32(&d, &av, &bv, &mut c, &mut s).expect("valid gemm");
    let out: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    let mut run = || gemm_s8_s32(&d, &av, &bv, &mut c, &mut s).expect("valid gemm");
    let mlir = format!(
        "func.func public @main(%a: tensor<{n}x{n}xi8>, %b: tensor<{n}x{n}xi8>) -> tensor<{n}x{n}xi32> {{\n  \
         %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<{n}x{n}xi8>, tensor<{n}x{n}xi8>) -> tensor<{n}x{n}xi32>\n  \
         return %r : tensor<{n}x{n}xi32>\n}}\n"
    );
    let args = [lit(&[n, n], av.clone()), lit(&[n, n], bv.clone())];
    b.row(
        "dot",
        &format!("{n}x{n} . {n}x{n}"),
        "s8->s32",
        &mlir,
        &args,
        0.0,
        &mut || out.clone(),
        &mut run,
        Work::Flops(2.0 * (n * n * n) as f64),
    );
}

fn conv_mlir(x: &str, w: &str, o: &str, dn: &str, groups: usize) -> String {
    format!(
        "func.func public @main(%x: tensor<{x}>, %w: tensor<{w}>) -> tensor<{o}> {{\n  \
         %r = stablehlo.convolution(%x, %w) dim_numbers = {dn}, window = {{stride = [1, 1], \
         pad = [[1, 1], [1, 1]]}} {{batch_group_count = 1 : i64, feature_group_count = {groups} \
         : i64}} : (tensor<{x}>, tensor<{w}>) -> tensor<{o}>\n  return %r : tensor<{o}>\n}}\n"
    )
}

/// A conv row: name, input dims, kernel dims, StableHLO dim numbers, ours, feature groups.
type ConvCase = (
    &'static str,
    [usize; 4],
    [usize; 4],
    &'static str,
    ConvDims,
    usize,
);

fn conv_rows(b: &mut Bench) {
    if !b.wants("conv") {
        return;
    }
    let (n, c, h, w, o) = (8, 64, 56, 56, 64);
    let cases: [ConvCase; 3] = [
        (
            "conv 3x3 SAME NCHW",
            [n, c, h, w],
            [o, c, 3, 3],
            "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
            ConvDims::nchw(),
            1,
        ),
        (
            "conv 3x3 SAME NHWC",
            [n, h, w, c],
            [3, 3, c, o],
            "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
            ConvDims::nhwc(2),
            1,
        ),
        (
            "conv depthwise 3x3 NCHW",
            [n, c, h, w],
            [c, 1, 3, 3],
            "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
            ConvDims::nchw(),
            c,
        ),
    ];
    for (name, xd, kd, dn, dims, groups) in cases {
        let desc = ConvDesc::new(&xd, &kd, dims)
            .with_padding(&[(1, 1), (1, 1)])
            .with_groups(groups, 1);
        let od = desc.output_shape().expect("valid conv");
        let od = &od[..4];
        let xv = data(21, xd.iter().product());
        let kv = data(22, kd.iter().product());
        let mut out = AlignedBuf::filled(f32::NAN, od.iter().product());
        let mut s = ConvScratch::new();
        let t = |d: &[usize]| format!("{}x{}x{}x{}xf32", d[0], d[1], d[2], d[3]);
        let mlir = conv_mlir(&t(&xd), &t(&kd), &t(od), dn, groups);
        let args = [lit(&xd, xv.clone()), lit(&kd, kv.clone())];
        let flops = desc.flops() as f64;
        conv(&desc, &xv, &kv, &mut out, &mut s).expect("valid conv");
        let res: Vec<f64> = out.iter().map(|&v| v as f64).collect();
        let mut run = || conv(&desc, &xv, &kv, &mut out, &mut s).expect("valid conv");
        let shape = format!("{xd:?} * {kd:?}");
        b.row(
            name,
            &shape,
            "f32",
            &mlir,
            &args,
            1e-5,
            &mut || res.clone(),
            &mut run,
            Work::Flops(flops),
        );
    }
}

fn reduce_mlir(dim: usize) -> String {
    format!(
        "func.func public @main(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {{\n  \
         %z = stablehlo.constant dense<0.0> : tensor<f32>\n  \
         %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [{dim}] : \
         (tensor<4096x4096xf32>, tensor<f32>) -> tensor<4096xf32>\n  return %r : tensor<4096xf32>\n}}\n"
    )
}

fn memory_rows(b: &mut Bench) {
    const N: usize = 4096;
    let x = AlignedBuf::from_slice(&data(31, N * N));
    let args = [lit(&[N, N], x.to_vec())];
    for (name, dim) in [("row sum", 1usize), ("column sum", 0)] {
        if !b.wants(name) {
            continue;
        }
        let mut out = vec![f32::NAN; N];
        reduce_fast(&x, &[N, N], &[dim], ReduceOp::Sum, 0.0, &mut out).expect("valid reduce");
        let res: Vec<f64> = out.iter().map(|&v| v as f64).collect();
        let mut run = || {
            reduce_fast(&x, &[N, N], &[dim], ReduceOp::Sum, 0.0, &mut out).expect("valid reduce")
        };
        b.row(
            name,
            "f32[4096,4096]",
            "f32",
            &reduce_mlir(dim),
            &args,
            1e-5,
            &mut || res.clone(),
            &mut run,
            Work::ReadBytes((N * N * 4) as f64),
        );
    }
    if b.wants("transpose") {
        let mut out = AlignedBuf::filled(f32::NAN, N * N);
        transpose(&x, &[N, N], &[1, 0], &mut out).expect("valid transpose");
        let res: Vec<f64> = out.iter().map(|&v| v as f64).collect();
        let mut run = || transpose(&x, &[N, N], &[1, 0], &mut out).expect("valid transpose");
        let mlir = "func.func public @main(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {\n  \
             %r = stablehlo.transpose %x, dims = [1, 0] : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>\n  \
             return %r : tensor<4096x4096xf32>\n}\n";
        b.row(
            "transpose",
            "f32[4096,4096] [1,0]",
            "f32",
            mlir,
            &args,
            0.0,
            &mut || res.clone(),
            &mut run,
            Work::CopyBytes((2 * N * N * 4) as f64),
        );
    }
}

/// RngBitGenerator u32[16M] (ThreeFry and Philox): the bits checked equal to XLA's, then
/// timed; the work is the bytes written.
fn rng_rows(b: &mut Bench) {
    use xla_aot::__rt::xla_core::RandomAlgorithm;
    use xla_aot::__rt::xla_kernels::rng::bit_generator;
    const N: usize = 1 << 24;
    for (alg, name) in [
        (RandomAlgorithm::ThreeFry, "THREE_FRY"),
        (RandomAlgorithm::Philox, "PHILOX"),
    ] {
        let kernel = format!("rng {name}");
        if !b.wants(&kernel) {
            continue;
        }
        let state = [0x1234_5678_9abc_def0u64, 42];
        let args = [lit(&[2], state.to_vec())];
        let mlir = format!(
            "func.func public @main(%s: tensor<2xui64>) -> tensor<{N}xui32> {{\n  \
             %r:2 = stablehlo.rng_bit_generator %s, algorithm = {name} : (tensor<2xui64>) -> \
             (tensor<2xui64>, tensor<{N}xui32>)\n  return %r#1 : tensor<{N}xui32>\n}}\n"
        );
        let mut out = vec![0u32; N];
        let mut ns = [0u64; 2];
        bit_generator(alg, &state, &[N], &mut ns, &mut out).expect("valid rng");
        // Exact: every u32 is an f64 exactly, the normwise error 0 only when all bits agree.
        let res: Vec<f64> = out.iter().map(|&v| f64::from(v)).collect();
        let mut run = || bit_generator(alg, &state, &[N], &mut ns, &mut out).expect("valid rng");
        b.row(
            &kernel,
            "u32[16M]",
            "u32",
            &mlir,
            &args,
            0.0,
            &mut || res.clone(),
            &mut run,
            Work::ReadBytes((N * 4) as f64),
        );
    }
}

fn sort_mlir(dims: &str, dim: usize) -> String {
    format!(
        "func.func public @main(%x: tensor<{dims}xf32>) -> tensor<{dims}xf32> {{\n  \
         %r = \"stablehlo.sort\"(%x) <{{dimension = {dim} : i64, is_stable = false}}> ({{\n  \
         ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    \
         %c = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n    \
         stablehlo.return %c : tensor<i1>\n  }}) : (tensor<{dims}xf32>) -> tensor<{dims}xf32>\n  \
         return %r : tensor<{dims}xf32>\n}}\n"
    )
}

fn sort_rows(b: &mut Bench) {
    if b.wants("sort") {
        for (shape, dims, dim, mlir_dims) in [
            ("f32[1M]", vec![1usize << 20], 0usize, "1048576"),
            ("f32[1024,1024] rows", vec![1024, 1024], 1, "1024x1024"),
        ] {
            let mut x = data(41, dims.iter().product());
            // A few NaNs and signed zeros so the total order matters.
            for (i, v) in x.iter_mut().enumerate().step_by(997) {
                *v = match i % 4 {
                    0 => f32::NAN,
                    1 => -f32::NAN,
                    2 => -0.0,
                    _ => f32::NEG_INFINITY,
                };
            }
            let args = [lit(&dims, x.clone())];
            let mut work = AlignedBuf::from_slice(&x);
            sort(&mut work, &dims, dim, Order::Ascending).expect("valid sort");
            // Bit-exact against XLA first (NaN signs and -0 included), then the row's value check.
            let res: Vec<f64> = work.iter().map(|v| v.to_bits() as f64).collect();
            let xla = b
                .oracle
                .run(&sort_mlir(mlir_dims, dim), &args)
                .expect("XLA sort");
            let xb: Vec<f64> = xla[0]
                .as_slice::<f32>()
                .expect("f32")
                .iter()
                .map(|v| v.to_bits() as f64)
                .collect();
            assert_eq!(res, xb, "sort {shape}: ours and XLA differ");
            let vals: Vec<f64> = work.iter().map(|&v| v as f64).collect();
            let mut run = || {
                work.copy_from_slice(&x);
                sort(&mut work, &dims, dim, Order::Ascending).expect("valid sort")
            };
            b.row(
                "sort",
                shape,
                "f32",
                &sort_mlir(mlir_dims, dim),
                &args,
                0.0,
                &mut || vals.clone(),
                &mut run,
                Work::CopyBytes((2 * x.len() * 4) as f64),
            );
        }
    }
    if b.wants("top_k") {
        let (r, n, k) = (1024usize, 1024usize, 5usize);
        let x = data(42, r * n);
        let args = [lit(&[r, n], x.clone())];
        let mut vals = vec![f32::NAN; r * k];
        let mut idx = vec![-1i32; r * k];
        top_k(&x, &[r, n], k, true, &mut vals, &mut idx).expect("valid top_k");
        let mlir = format!(
            "func.func public @main(%x: tensor<{r}x{n}xf32>) -> (tensor<{r}x{k}xf32>, tensor<{r}x{k}xi32>) {{\n  \
             %v, %i = chlo.top_k(%x, k = {k}) : tensor<{r}x{n}xf32> -> (tensor<{r}x{k}xf32>, tensor<{r}x{k}xi32>)\n  \
             return %v, %i : tensor<{r}x{k}xf32>, tensor<{r}x{k}xi32>\n}}\n"
        );
        let xla = b.oracle.run(&mlir, &args).expect("XLA top_k");
        assert_eq!(
            xla[1].as_slice::<i32>().expect("s32"),
            &idx[..],
            "top_k indices differ"
        );
        let res: Vec<f64> = vals.iter().map(|&v| v as f64).collect();
        let mut run = || top_k(&x, &[r, n], k, true, &mut vals, &mut idx).expect("valid top_k");
        b.row(
            "top_k k=5",
            "f32[1024,1024] rows",
            "f32",
            &mlir,
            &args,
            0.0,
            &mut || res.clone(),
            &mut run,
            Work::ReadBytes((r * n * 4) as f64),
        );
    }
}

fn math_rows(b: &mut Bench) {
    const N: usize = 4194304;
    let v = data(51, N)
        .into_iter()
        .map(|v| v * 4.0)
        .collect::<Vec<f32>>();
    let x: Tensor<f32, D1<N>> = Tensor::from_vec(v.clone()).expect("size");
    let x64: Tensor<f64, D1<N>> =
        Tensor::from_vec(v.iter().map(|&v| v as f64).collect()).expect("size");
    let (args, args64) = ([x.to_literal()], [x64.to_literal()]);
    let mut out = Tensor::<f32, D1<N>>::zeros();
    let mut out64 = Tensor::<f64, D1<N>>::zeros();
    // Transcendental results differ by a few ulp between the two sides.
    let tol = 1e-6;
    // One row per function: `name`, the xla! fn, its input and output tensors, XLA's inputs.
    macro_rules! row {
        ($name:literal, $f:ident, $x:expr, $out:expr, $args:expr, $elem:literal) => {
            if b.wants($name) {
                let mut s = $f::Scratch::new();
                let bytes = 2 * N * core::mem::size_of_val(&$x.as_slice()[0]);
                b.row(
                    $name,
                    concat!($elem, "[4M]"),
                    $elem,
                    &$f::stablehlo(),
                    &$args,
                    tol,
                    &mut || $f(&$x).as_slice().iter().map(|&v| v as f64).collect(),
                    &mut || $f::into(&$x, &mut $out, &mut s),
                    Work::ReadBytes(bytes as f64),
                );
            }
        };
    }
    row!("exp", exp4m, x, out, args, "f32");
    row!("tanh(2x+1)", tanh4m, x, out, args, "f32");
    row!("erf", erf4m, x, out, args, "f32");
    row!("log(abs(x)+0.25)", log4m, x, out, args, "f32");
    row!("pow(abs(x)+0.25, x)", pow4m, x, out, args, "f32");
    row!("tanh(2x+1) f64", tanh4m_f64, x64, out64, args64, "f64");
    row!("erf f64", erf4m_f64, x64, out64, args64, "f64");
    row!("cbrt", cbrt4m, x, out, args, "f32");
    row!("atan2(x, x/2-1)", atan2_4m, x, out, args, "f32");
}

fn main() {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .filter(|a| a != "kernels");
    let oracle = Oracle::start().unwrap_or_else(|e| panic!("cannot start the XLA oracle: {e}"));
    let threads = rayon::current_num_threads();
    println!("threads: {threads} (rayon); built for: {}", built_for());
    let measure = || {
        let (read_bw, copy_bw) = bandwidth();
        Machine {
            fma_1t: fma_peak(1),
            fma_all: fma_peak(threads),
            read_bw,
            copy_bw,
        }
    };
    let before = measure();
    println!(
        "machine (before the rows): f32 FMA peak {:.0} GFLOP/s on 1 thread, {:.0} on {threads}; streaming read {:.1} GB/s, copy {:.1} GB/s (read + write)",
        before.fma_1t, before.fma_all, before.read_bw, before.copy_bw
    );
    let mut b = Bench {
        oracle,
        filter,
        rows: Vec::new(),
    };
    dot_rows(&mut b);
    conv_rows(&mut b);
    memory_rows(&mut b);
    sort_rows(&mut b);
    math_rows(&mut b);
    linalg_rows::linalg_rows(&mut b);
    ragged_rows::ragged_rows(&mut b);
    rng_rows(&mut b);
    fft::fft_rows(&mut b);
    let filter = b.filter.clone();
    // The limits are measured again after the rows and the larger figure is kept: a limit
    // measured while something else ran would flatter every fraction of it.
    let after = measure();
    println!(
        "machine (after the rows): f32 FMA peak {:.0} GFLOP/s on 1 thread, {:.0} on {threads}; streaming read {:.1} GB/s, copy {:.1} GB/s (read + write)",
        after.fma_1t, after.fma_all, after.read_bw, after.copy_bw
    );
    let m = Machine {
        fma_1t: before.fma_1t.max(after.fma_1t),
        fma_all: before.fma_all.max(after.fma_all),
        read_bw: before.read_bw.max(after.read_bw),
        copy_bw: before.copy_bw.max(after.copy_bw),
    };

    println!(
        "\n| {:<24} | {:<34} | {:<7} | {:>10} | {:>10} | {:>8} | {:>16} | {:>8} | {:>8} |",
        "kernel", "shape", "dtype", "ours", "XLA:CPU", "XLA/ours", "ours", "of limit", "err"
    );
    println!(
        "|{:-<26}|{:-<36}|{:-<9}|{:-<12}|{:-<12}|{:-<10}|{:-<18}|{:-<10}|{:-<10}|",
        "", "", "", "", "", "", "", "", ""
    );
    for r in &b.rows {
        let (thr, frac) = match r.work {
            Work::Flops(f) => {
                let g = f / r.ours / 1e9;
                (format!("{g:.1} GFLOP/s"), g / m.fma_all)
            }
            Work::ReadBytes(by) => {
                let g = by / r.ours / 1e9;
                (format!("{g:.1} GB/s"), g / m.read_bw)
            }
            Work::CopyBytes(by) => {
                let g = by / r.ours / 1e9;
                (format!("{g:.1} GB/s"), g / m.copy_bw)
            }
        };
        println!(
            "| {:<24} | {:<34} | {:<7} | {:>10} | {:>10} | {:>7.2}x | {:>16} | {:>7.0}% | {:>8.1e} |",
            r.kernel,
            r.shape,
            r.dtype,
            fmt_time(r.ours),
            fmt_time(r.xla),
            r.xla / r.ours,
            thr,
            100.0 * frac,
            r.err
        );
    }
    println!(
        "\nXLA/ours > 1 means ours is faster. \"of limit\": of the f32 FMA peak on {threads} threads \
         (dot, conv, fft: 5 N log2 N flops), of the streaming read bandwidth (reductions, top_k, elementwise: bytes in + out), \
         of the copy bandwidth (transpose, sort: bytes read + written once). err: normwise \
         max|ours - XLA| / max|XLA| (sort: bit-exact, checked separately)."
    );
    collective_rows::collective_rows(filter.as_deref());
}
