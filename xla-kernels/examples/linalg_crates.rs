//! Our Cholesky and TriangularSolve beside `faer` 0.24's (`llt::factor::cholesky_in_place`,
//! `solve_lower_triangular_in_place`) on the shapes, after checking that they agree:
//! time per call and heap allocations per warm call. Run with
//! `CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" cargo run --release -p xla-kernels --features gemm-crates --example linalg_crates`
//! (optional argument: rounds, default 7). Each round times both libraries once on every
//! shape, so load from other processes is spread over both; the best sample of each is kept.
//!
//! faer gets its own best layout: column-major matrices prepared outside the timed region (a
//! symmetric `a` is the same in either order; the triangular `a` is transposed once), its
//! scratch (`MemBuffer`) allocated once, and the right-hand side copied into the solution
//! buffer inside the timed call, as ours copies `b` into `out`. Batched Cholesky runs faer once
//! per matrix (it has no batched entry) split over rayon, as ours splits matrices.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{
    cholesky_in_place, cholesky_in_place_scratch, LltRegularization,
};
use faer::linalg::triangular_solve::solve_lower_triangular_in_place;
use faer::{MatMut, MatRef, Par};
use rayon::prelude::*;
use xla_kernels::linalg::{cholesky, triangular_solve, LinalgScratch, Transpose};

/// The system allocator, counting allocations (to see which library allocates per call).
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

/// Deterministic pseudo-random values in [-1, 1).
fn fill(len: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f32 / (1u64 << 52) as f32 * 2.0 - 1.0
        })
        .collect()
}

/// `batch` symmetric positive definite `n x n` matrices: `r rᵀ / n + I`.
fn spd(batch: usize, n: usize, seed: u64) -> Vec<f32> {
    let r = fill(batch * n * n, seed);
    let mut a = vec![0.0f32; batch * n * n];
    for b in 0..batch {
        let (r, a) = (&r[b * n * n..][..n * n], &mut a[b * n * n..][..n * n]);
        for i in 0..n {
            for j in 0..n {
                let dot: f32 = (0..n).map(|p| r[i * n + p] * r[j * n + p]).sum();
                a[i * n + j] = dot / n as f32 + if i == j { 1.0 } else { 0.0 };
            }
        }
    }
    a
}

/// Best of the samples of `f` over `rounds` calls, in microseconds, and heap allocations of
/// one warm call.
fn time(rounds: usize, mut f: impl FnMut()) -> (f64, usize) {
    f();
    let before = ALLOCS.load(Ordering::Relaxed);
    f();
    let allocs = ALLOCS.load(Ordering::Relaxed) - before;
    let best = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .fold(f64::INFINITY, f64::min);
    (best, allocs)
}

/// Cholesky of `batch` matrices `n x n`: (ours us, faer us, ours allocs, faer allocs).
fn bench_cholesky(batch: usize, n: usize, rounds: usize) -> [f64; 4] {
    let a = spd(batch, n, 7);
    let mut ours = vec![0.0f32; a.len()];
    let mut s = LinalgScratch::new();
    let mut run_ours = || cholesky(&a, &mut ours, batch, n, true, &mut s).expect("valid");
    let (t_ours, al_ours) = time(rounds, &mut run_ours);

    let mut theirs = a.clone();
    let par = if batch == 1 { Par::rayon(0) } else { Par::Seq };
    let req = cholesky_in_place_scratch::<f32>(n, par, Default::default());
    let reg = LltRegularization {
        dynamic_regularization_delta: 0.0f32,
        dynamic_regularization_epsilon: 0.0f32,
    };
    let threads = rayon::current_num_threads();
    let mut bufs: Vec<MemBuffer> = (0..threads).map(|_| MemBuffer::new(req)).collect();
    let per = batch.div_ceil(threads);
    let mut run_faer = || {
        theirs.copy_from_slice(&a);
        theirs
            .par_chunks_mut(per * n * n)
            .zip(bufs.par_iter_mut())
            .for_each(|(chunk, buf)| {
                for m in chunk.chunks_mut(n * n) {
                    let mat = MatMut::from_column_major_slice_mut(m, n, n);
                    let stack = MemStack::new(buf);
                    cholesky_in_place(mat, reg, par, stack, Default::default()).expect("spd");
                }
            });
    };
    let (t_faer, al_faer) = time(rounds, &mut run_faer);
    // faer's column-major lower factor (i, j) is at i + j n; ours (row-major) at i n + j.
    let worst = (0..batch * n * n)
        .filter(|p| (p % (n * n)) / n >= p % n)
        .map(|p| {
            let (b, i, j) = (p / (n * n), (p % (n * n)) / n, p % n);
            (ours[p] - theirs[b * n * n + i + j * n]).abs()
        })
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-3, "Cholesky: ours and faer differ by {worst}");
    [t_ours, t_faer, al_ours as f64, al_faer as f64]
}

/// `L x = b` with `L` `m x m` lower, `b` `m x k`: (ours us, faer us, ours allocs, faer allocs).
fn bench_trsm(m: usize, k: usize, rounds: usize) -> [f64; 4] {
    let r = fill(m * m, 61);
    let l: Vec<f32> = (0..m * m)
        .map(|p| match (p / m, p % m) {
            (i, j) if i == j => 2.0 + r[p].abs(),
            (i, j) if i > j => r[p] / m as f32,
            _ => 0.0,
        })
        .collect();
    let b = fill(m * k, 62);
    let mut ours = vec![0.0f32; m * k];
    let mut s = LinalgScratch::new();
    let flags = (true, true, false);
    let mut run_ours = || {
        triangular_solve(&l, &b, &mut ours, (1, m, k), flags, Transpose::No, &mut s).expect("valid")
    };
    let (t_ours, al_ours) = time(rounds, &mut run_ours);

    let l_cm: Vec<f32> = (0..m * m).map(|p| l[(p % m) * m + p / m]).collect();
    let b_cm: Vec<f32> = (0..m * k).map(|p| b[(p % m) * k + p / m]).collect();
    let mut x_cm = vec![0.0f32; m * k];
    let mut run_faer = || {
        x_cm.copy_from_slice(&b_cm);
        let tri = MatRef::from_column_major_slice(&l_cm, m, m);
        let rhs = MatMut::from_column_major_slice_mut(&mut x_cm, m, k);
        solve_lower_triangular_in_place(tri, rhs, Par::rayon(0));
        black_box(&x_cm);
    };
    let (t_faer, al_faer) = time(rounds, &mut run_faer);
    let worst = (0..m * k)
        .map(|p| (ours[p] - x_cm[(p % k) * m + p / k]).abs())
        .fold(0.0f32, f32::max);
    assert!(
        worst < 1e-3,
        "TriangularSolve: ours and faer differ by {worst}"
    );
    [t_ours, t_faer, al_ours as f64, al_faer as f64]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    println!(
        "rayon threads: {}, rounds: {rounds}",
        rayon::current_num_threads()
    );
    println!("| row | ours | faer 0.24 | faer/ours | allocs per warm call (ours, faer) |");
    println!("|---|---|---|---|---|");
    let rows = [
        ("Cholesky f32[1024,1024]", bench_cholesky(1, 1024, rounds)),
        ("Cholesky f32[256,32,32]", bench_cholesky(256, 32, rounds)),
        (
            "TriangularSolve f32[1024,1024] x f32[1024,256]",
            bench_trsm(1024, 256, rounds),
        ),
    ];
    for (name, [o, f, ao, af]) in rows {
        println!(
            "| {name} | {o:.0} us | {f:.0} us | {:.2}x | {ao}, {af} |",
            f / o
        );
    }
}
