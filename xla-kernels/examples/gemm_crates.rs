//! Our GEMM beside the `gemm`, `faer` and `matrixmultiply` crates, all behind
//! [`GemmBackend`]: GFLOP/s of each on the same shapes in one run, after checking that they
//! agree. Run with
//! `CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" cargo run --release -p xla-kernels --features gemm-crates --example gemm_crates`
//! (optional argument: rounds, default 9). Each round times every backend once on every shape
//! (~30 ms per sample), so load from other processes is spread over all of them; the best
//! sample of each is kept. `matrixmultiply` runs on its own pool, sized here to rayon's thread
//! count (`MATMUL_NUM_THREADS`) so every backend uses the same number of threads.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use xla_kernels::gemm::backend::{Faer, GemmBackend, GemmCrate, MatrixMultiply, Native};
use xla_kernels::gemm::{gemm, GemmDesc, GemmScratch};

/// The system allocator, counting allocations (to see which backends allocate per call).
struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to `System` unchanged; the counter has no effect on memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations made (by any thread) during one warm f32 call of `be` on `c`.
fn allocs_per_warm_call(be: &dyn GemmBackend, c: &Case) -> usize {
    let mut s = GemmScratch::new();
    let mut out = vec![0.0f32; c.d.m * c.d.n];
    for _ in 0..3 {
        be.gemm_f32(&c.d, &c.a32, &c.b32, &mut out, &mut s)
            .expect("valid");
    }
    let before = ALLOCS.load(Ordering::Relaxed);
    be.gemm_f32(&c.d, &c.a32, &c.b32, &mut out, &mut s)
        .expect("valid");
    ALLOCS.load(Ordering::Relaxed) - before
}

/// Deterministic pseudo-random values in [-1, 1).
fn fill(len: usize, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

/// One shape's operands in f32 and f64.
struct Case {
    name: String,
    d: GemmDesc,
    a32: Vec<f32>,
    b32: Vec<f32>,
    a64: Vec<f64>,
    b64: Vec<f64>,
}

impl Case {
    fn new(m: usize, n: usize, k: usize) -> Case {
        let a64 = fill(m * k, 1);
        let b64 = fill(k * n, 2);
        Case {
            name: format!("{m}x{k} * {k}x{n}"),
            d: GemmDesc::row_major(1, m, n, k),
            a32: a64.iter().map(|&x| x as f32).collect(),
            b32: b64.iter().map(|&x| x as f32).collect(),
            a64,
            b64,
        }
    }
}

/// Checks every backend against `sum_p a_ip b_pj` within `2 k eps sum_p |a_ip b_pj|` (the
/// magnitudes from our GEMM on |A| and |B| in f64), f32 and f64, overwrite and accumulate.
fn check_agreement(backends: &[&dyn GemmBackend], c: &Case) {
    let d = c.d;
    let abs = |v: &[f64]| v.iter().map(|x| x.abs()).collect::<Vec<_>>();
    let mut s = GemmScratch::new();
    let mut exact = vec![0.0f64; d.m * d.n];
    gemm(&d, &c.a64, &c.b64, &mut exact, &mut s).expect("valid");
    let mut mag = vec![0.0f64; d.m * d.n];
    gemm(&d, &abs(&c.a64), &abs(&c.b64), &mut mag, &mut s).expect("valid");
    let k = d.k as f64;
    for be in backends {
        for accumulate in [false, true] {
            let d = GemmDesc { accumulate, ..d };
            // Accumulating into C = 1 adds exactly 1 (tolerance grows by one rounding of it).
            let start = if accumulate { 1.0 } else { f64::NAN };
            let shift = if accumulate { 1.0 } else { 0.0 };
            let mut c32 = vec![start as f32; d.m * d.n];
            be.gemm_f32(&d, &c.a32, &c.b32, &mut c32, &mut s)
                .expect("valid");
            let mut c64 = vec![start; d.m * d.n];
            be.gemm_f64(&d, &c.a64, &c.b64, &mut c64, &mut s)
                .expect("valid");
            for i in 0..d.m * d.n {
                let want = exact[i] + shift;
                let t32 = 2.0 * k * f32::EPSILON as f64 * (mag[i] + shift) + 1e-30;
                let t64 = 2.0 * k * f64::EPSILON * (mag[i] + shift) + 1e-300;
                assert!(
                    (c32[i] as f64 - want).abs() <= t32 && (c64[i] - want).abs() <= t64,
                    "{} {} (accumulate {accumulate}) element {i}: f32 {} f64 {} vs {want}",
                    be.name(),
                    c.name,
                    c32[i],
                    c64[i]
                );
            }
        }
    }
}

/// Whether `be` gives the same f32 bits on 1 and 2 rayon threads for a deep product (a
/// backend that splits k over threads, or picks blocking by thread count, would not).
/// `matrixmultiply` sizes its own pool once per process, so for it this only checks that
/// repeated calls agree.
fn same_bits_on_1_and_2_threads(be: &dyn GemmBackend) -> bool {
    let c = Case::new(200, 300, 3000);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool")
            .install(|| {
                let mut out = vec![0.0f32; c.d.m * c.d.n];
                be.gemm_f32(&c.d, &c.a32, &c.b32, &mut out, &mut GemmScratch::new())
                    .expect("valid");
                out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            })
    };
    run(1) == run(2)
}

/// Seconds of one call (f32 when `f32`, else f64), the mean of enough calls for ~30 ms.
fn sample(be: &dyn GemmBackend, c: &Case, f32: bool, s: &mut GemmScratch) -> f64 {
    let flops = c.d.flops() as f64;
    let reps = ((3e7 / flops) as usize).clamp(1, 100_000);
    let t = Instant::now();
    if f32 {
        let mut out = vec![0.0f32; c.d.m * c.d.n];
        for _ in 0..reps {
            be.gemm_f32(&c.d, &c.a32, &c.b32, &mut out, s)
                .expect("valid");
        }
        black_box(&out);
    } else {
        let mut out = vec![0.0f64; c.d.m * c.d.n];
        for _ in 0..reps {
            be.gemm_f64(&c.d, &c.a64, &c.b64, &mut out, s)
                .expect("valid");
        }
        black_box(&out);
    }
    t.elapsed().as_secs_f64() / reps as f64
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    let threads = rayon::current_num_threads();
    if std::env::var_os("MATMUL_NUM_THREADS").is_none() {
        // Read once, at matrixmultiply's first threaded call (none has happened yet).
        std::env::set_var("MATMUL_NUM_THREADS", threads.to_string());
    }
    let backends: [&dyn GemmBackend; 4] = [&Native, &GemmCrate, &Faer, &MatrixMultiply];
    let cases: Vec<(Case, bool)> = [
        (1024, 1024, 1024, true),
        (256, 256, 256, true),
        (64, 64, 64, true),
        (1, 128, 784, true),
        (8, 128, 784, true),
        (1024, 1024, 1024, false),
    ]
    .iter()
    .map(|&(m, n, k, f32)| (Case::new(m, n, k), f32))
    .collect();
    for (c, _) in &cases {
        check_agreement(&backends, c);
    }
    println!("all backends agree (f32 and f64, overwrite and accumulate, every shape)");
    for be in &backends {
        let allocs: Vec<usize> = cases
            .iter()
            .filter(|(_, f32)| *f32)
            .map(|(c, _)| allocs_per_warm_call(*be, c))
            .collect();
        println!(
            "{:<15} heap allocations per warm f32 call, per shape below: {allocs:?}",
            be.name()
        );
        println!(
            "{:<15} same f32 bits on 1 and 2 threads (200x3000 * 3000x300): {}",
            be.name(),
            same_bits_on_1_and_2_threads(*be)
        );
    }
    let mut best = vec![vec![f64::INFINITY; backends.len()]; cases.len()];
    let mut scratch = GemmScratch::new();
    for _ in 0..rounds {
        for (ci, (c, f32)) in cases.iter().enumerate() {
            for (bi, be) in backends.iter().enumerate() {
                let t = sample(*be, c, *f32, &mut scratch);
                best[ci][bi] = best[ci][bi].min(t);
            }
        }
    }
    println!("threads: {threads}, GFLOP/s, best of {rounds} alternating rounds");
    print!("{:<24}", "shape");
    for be in &backends {
        print!(" {:>15}", be.name());
    }
    println!(" {:>16}", "native / best");
    for ((c, f32), times) in cases.iter().zip(&best) {
        let dtype = if *f32 { "f32" } else { "f64" };
        print!("{:<24}", format!("{dtype} {}", c.name));
        let gf: Vec<f64> = times.iter().map(|t| c.d.flops() as f64 / t / 1e9).collect();
        for g in &gf {
            print!(" {g:>15.1}");
        }
        let other = gf[1..].iter().cloned().fold(0.0, f64::max);
        println!(" {:>16.2}", gf[0] / other);
    }
}
