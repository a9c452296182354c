//! `sort_with_scratch` allocates nothing once its `SortScratch` has served a problem as large,
//! on the rayon path too (rows in parallel tasks, and one long row split into buckets). Proved
//! with a counting global allocator, so this is its own test binary.
//!
//! Run: `cargo test -p xla-kernels --release --test sort_no_alloc`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

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

fn data(n: usize) -> Vec<f32> {
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

// One test fn: the counter is global, so nothing may run concurrently with a measurement.
#[test]
fn warm_scratch_sorts_allocate_nothing() {
    // Start every thread of rayon's pool before measuring: a worker allocates as it starts,
    // and on a loaded machine a late starter would land inside a measurement. `broadcast`
    // returns only once each worker has run the closure.
    rayon::broadcast(|_| ());
    assert!(
        allocations(|| drop(std::hint::black_box(vec![1u8; 10]))) >= 1,
        "the counter counts"
    );
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
        let src = data(n);
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
    let src: Vec<f64> = data(1 << 16).iter().map(|&v| v as f64).collect();
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
