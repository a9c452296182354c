//! `conv` allocates nothing once its `ConvScratch` has served the same convolution, on every
//! path (Winograd, direct NCHW / NHWC, depthwise, im2col + GEMM) and on the rayon path too.
//! Proved with a counting global allocator, so this is its own test binary.
//!
//! Run: `cargo test -p xla-kernels --release --test conv_no_alloc`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use xla_kernels::conv::{conv, ConvDesc, ConvDims, ConvScratch};

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

// One test fn: the counter is global, so nothing may run concurrently with a measurement.
#[test]
fn warm_scratch_convolutions_allocate_nothing() {
    // Start every thread of rayon's pool before measuring: a worker allocates as it starts,
    // and on a loaded machine a late starter would land inside a measurement. `broadcast`
    // returns only once each worker has run the closure.
    rayon::broadcast(|_| ());
    assert!(
        allocations(|| drop(std::hint::black_box(vec![1u8; 10]))) >= 1,
        "the counter counts"
    );
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
