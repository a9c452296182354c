//! The kernels allocate nothing once their scratch has served a problem as large: `conv` on
//! every path (Winograd, direct NCHW / NHWC, depthwise, im2col + GEMM), `sort_with_scratch`
//! (rows in parallel tasks, one long row split into buckets), and `gemm` for f32, bf16, c64 and
//! s8 x s8 -> s32, the rayon paths included, `cholesky` and `triangular_solve`. Proved with a
//! counting global allocator, so this is its own test binary.
//!
//! Run: `cargo test -p xla-kernels --release --test no_alloc`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use half::bf16;
use num_complex::Complex;
use xla_kernels::conv::{conv, ConvDesc, ConvDims, ConvScratch};
use xla_kernels::gemm::{gemm, gemm_s8_s32, GemmDesc, GemmElem, GemmScratch};
use xla_kernels::linalg::{cholesky, triangular_solve, LinalgScratch, Transpose};
use xla_kernels::sort::{sort_with_scratch, Order, SortScratch};

/// Counts every allocation (any thread) and forwards to the system allocator.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counter is an atomic with no effect on the memory returned. The
// layouts are the caller's, passed through untouched; the test below checks the counter stays
// flat, and every other allocation of this binary goes through it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: forwarded unchanged (see the impl's comment).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The fewest allocations made by any of three runs of `f`. The rayon runtime allocates now
/// and then on its own schedule (a worker's first steal registers it with crossbeam's epoch
/// collector; garbage bags are flushed every so often), which a kernel cannot prevent; an
/// allocation the kernel makes shows in every run, so the minimum still catches it.
fn allocations(mut f: impl FnMut()) -> usize {
    (0..3)
        .map(|_| {
            let before = ALLOCATIONS.load(Ordering::SeqCst);
            f();
            ALLOCATIONS.load(Ordering::SeqCst) - before
        })
        .min()
        .unwrap_or(0)
}

fn data<T>(n: usize, f: impl Fn(usize) -> T) -> Vec<T> {
    (0..n).map(f).collect()
}

fn sort_data(n: usize) -> Vec<f32> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            f32::from_bits(s as u32)
        })
        .collect()
}

fn is_sorted_total(v: &[f32]) -> bool {
    v.windows(2).all(|w| w[0].total_cmp(&w[1]).is_le())
}

fn convolutions() {
    let same = [(1i64, 1i64), (1, 1)];
    let cases = [
        // Winograd, NCHW and NHWC.
        ConvDesc::new(&[2, 32, 20, 20], &[32, 32, 3, 3], ConvDims::nchw()).with_padding(&same),
        ConvDesc::new(&[2, 20, 20, 32], &[3, 3, 32, 32], ConvDims::nhwc(2)).with_padding(&same),
        // Direct NCHW and NHWC (stride 2 rows / columns).
        ConvDesc::new(&[2, 32, 20, 20], &[32, 32, 3, 3], ConvDims::nchw()).with_strides(&[2, 1]),
        ConvDesc::new(&[2, 20, 20, 32], &[3, 3, 32, 32], ConvDims::nhwc(2)).with_strides(&[2, 2]),
        // Depthwise.
        ConvDesc::new(&[2, 32, 40, 40], &[32, 1, 3, 3], ConvDims::nchw())
            .with_padding(&same)
            .with_groups(32, 1),
        // im2col + GEMM (base dilation; 3-D).
        ConvDesc::new(&[2, 32, 20, 20], &[32, 32, 3, 3], ConvDims::nchw())
            .with_lhs_dilation(&[2, 2]),
        ConvDesc::new(&[1, 8, 10, 10, 10], &[16, 8, 3, 3, 3], ConvDims::nchw()),
    ];
    for d in &cases {
        let n = d.rank();
        let input = data(d.input_shape[..n].iter().product(), |i| {
            (i % 7) as f32 - 3.0
        });
        let kernel = data(d.kernel_shape[..n].iter().product(), |i| {
            (i % 5) as f32 - 2.0
        });
        let mut out = vec![f32::NAN; d.output_shape().unwrap()[..n].iter().product()];
        let mut scratch = ConvScratch::new();
        conv(d, &input, &kernel, &mut out, &mut scratch).unwrap();
        let first = out.clone();
        out.fill(f32::NAN);
        let count = allocations(|| conv(d, &input, &kernel, &mut out, &mut scratch).unwrap());
        assert_eq!(count, 0, "{count} allocations on a warm scratch for {d:?}");
        assert!(out
            .iter()
            .zip(&first)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }
    // Another element type (f64 through im2col + GEMM) with its own warm scratch.
    let d = ConvDesc::new(&[2, 16, 12, 12], &[16, 16, 3, 3], ConvDims::nchw()).with_padding(&same);
    let input = data(4608, |i| (i % 7) as f64);
    let kernel = data(2304, |i| (i % 5) as f64);
    let mut out = vec![0f64; 4608];
    let mut scratch = ConvScratch::new();
    conv(&d, &input, &kernel, &mut out, &mut scratch).unwrap();
    let count = allocations(|| conv(&d, &input, &kernel, &mut out, &mut scratch).unwrap());
    assert_eq!(count, 0, "{count} allocations on a warm f64 scratch");
}

fn sorts() {
    let mut scratch = SortScratch::new();
    // Rows in parallel tasks (radix rows), short rows (sort_unstable), a long single row
    // (bucket split), f64 keys (the u64 buffer), and a smaller problem after a larger one.
    let cases: [(&[usize], usize); 5] = [
        (&[512, 1024], 1),
        (&[1024, 512], 0),
        (&[4096, 16], 1),
        (&[1 << 18], 0),
        (&[100, 300], 1),
    ];
    for (dims, dim) in cases {
        let n: usize = dims.iter().product();
        let src = sort_data(n);
        let mut x = src.clone();
        // The first call may grow the scratch; the second must not allocate.
        sort_with_scratch(&mut x, dims, dim, Order::Ascending, &mut scratch).unwrap();
        x.copy_from_slice(&src);
        let count = allocations(|| {
            sort_with_scratch(&mut x, dims, dim, Order::Ascending, &mut scratch).unwrap()
        });
        assert_eq!(count, 0, "dims {dims:?} along {dim}");
        if dims.len() == 1 || dim == 1 {
            let row = dims[dims.len() - 1];
            assert!(x.chunks(row).all(is_sorted_total), "dims {dims:?}");
        }
    }
    let src: Vec<f64> = sort_data(1 << 16).iter().map(|&v| v as f64).collect();
    let mut y = src.clone();
    sort_with_scratch(&mut y, &[64, 1024], 1, Order::Descending, &mut scratch).unwrap();
    y.copy_from_slice(&src);
    let count = allocations(|| {
        sort_with_scratch(&mut y, &[64, 1024], 1, Order::Descending, &mut scratch).unwrap()
    });
    assert_eq!(count, 0, "f64");
    assert!(y
        .chunks(1024)
        .all(|r| r.windows(2).all(|w| w[0].total_cmp(&w[1]).is_ge())));
}

/// A warm `GemmScratch` serves the same product again without allocating.
fn warm_gemm<T: GemmElem>(m: usize, n: usize, k: usize, batch: usize, v: impl Fn(usize) -> T) {
    let d = GemmDesc::row_major(batch, m, n, k);
    let a = data(batch * m * k, &v);
    let b = data(batch * k * n, &v);
    let mut c = data(batch * m * n, &v);
    let mut s = GemmScratch::new();
    gemm(&d, &a, &b, &mut c, &mut s).unwrap();
    let count = allocations(|| gemm(&d, &a, &b, &mut c, &mut s).unwrap());
    let ty = std::any::type_name::<T>();
    assert_eq!(
        count, 0,
        "{count} allocations: gemm {ty} {batch}x[{m}x{k} * {k}x{n}]"
    );
}

fn gemms() {
    // Packed and parallel, in place (small), matrix-vector, batched.
    for (m, n, k, batch) in [
        (300, 200, 300, 1),
        (64, 64, 64, 1),
        (1, 128, 784, 1),
        (64, 64, 64, 16),
    ] {
        warm_gemm::<f32>(m, n, k, batch, |i| (i % 7) as f32);
        warm_gemm::<f64>(m, n, k, batch, |i| (i % 7) as f64);
        warm_gemm::<bf16>(m, n, k, batch, |i| bf16::from_f32((i % 7) as f32));
        warm_gemm::<Complex<f32>>(m, n, k, batch, |i| Complex::new((i % 7) as f32, 1.0));
    }
    let d = GemmDesc::row_major(1, 200, 100, 300);
    let (a, b) = (vec![3i8; 200 * 300], vec![-5i8; 300 * 100]);
    let mut c = vec![0i32; 200 * 100];
    let mut s = GemmScratch::new();
    gemm_s8_s32(&d, &a, &b, &mut c, &mut s).unwrap();
    let count = allocations(|| gemm_s8_s32(&d, &a, &b, &mut c, &mut s).unwrap());
    assert_eq!(count, 0, "{count} allocations: gemm_s8_s32");
}

// One test fn: the counter is global, so nothing may run concurrently with a measurement.
#[test]
fn warm_scratch_kernels_allocate_nothing() {
    // Start every thread of rayon's pool before measuring: a worker allocates as it starts,
    // and on a loaded machine a late starter would land inside a measurement. `broadcast`
    // returns only once each worker has run the closure.
    rayon::broadcast(|_| ());
    assert!(
        allocations(|| drop(std::hint::black_box(vec![1u8; 10]))) >= 1,
        "the counter counts"
    );
    convolutions();
    sorts();
    gemms();
    factorisations();
}

/// Cholesky (the one-block path and the blocked one, batched and not) and TriangularSolve
/// (left and right, both large enough to split over rayon) on warm `LinalgScratch`.
fn factorisations() {
    for (batch, n) in [(64, 32), (1, 300)] {
        let a = data(batch * n * n, |p| {
            let (i, j) = ((p % (n * n)) / n, p % n);
            if i == j {
                n as f64
            } else {
                1.0 / (1 + i + j) as f64
            }
        });
        let mut out = vec![0.0f64; a.len()];
        let mut s = LinalgScratch::new();
        let mut run = || cholesky(&a, &mut out, batch, n, true, &mut s).unwrap();
        run();
        assert_eq!(allocations(run), 0, "cholesky {batch} x {n}x{n}");
    }
    for left in [true, false] {
        let (m, k) = (200, 300);
        let a = data(m * m, |p| if p % (m + 1) == 0 { 2.0f32 } else { 0.01 });
        let b = data(m * k, |p| (p % 7) as f32);
        let mut out = vec![0.0f32; m * k];
        let mut s = LinalgScratch::new();
        let flags = (left, true, false);
        let mut run =
            || triangular_solve(&a, &b, &mut out, (1, m, k), flags, Transpose::No, &mut s).unwrap();
        run();
        assert_eq!(allocations(run), 0, "triangular_solve left_side = {left}");
    }
}
