//! The allocation-free entry point: `name::into` allocates nothing once its `Scratch` exists
//! (and, for fns with a Dot, once GEMM's packing buffers have grown on a first call), also on
//! the rayon path. Proved with a counting global allocator, so this is its own test binary.
//!
//! Run: `cargo test -p xla-aot --test no_alloc`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use xla_aot::{xla, Tensor, TensorView, TensorViewMut, D1, D2, D3};

/// Counts every allocation (any thread) and forwards to the system allocator.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counter is an atomic with no effect on the memory returned. The
// bounds (layouts) are the caller's and are passed through untouched; `into` runs below check
// the counter stays flat, and every other test of this binary allocates through it.
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

xla! {
    pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [1])
    }
    pub fn dense_relu(x: f32[8, 784], w: f32[784, 128], b: f32[128]) -> f32[8, 128] {
        let h = Dot(x, w);
        let h = Add(h, b, broadcast_dimensions = [1]);
        Max(h, 0.0)
    }
    pub fn row_softmax(x: f32[256, 1024]) -> f32[256, 1024] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }
    pub fn big_flat(x: f32[1000003]) -> f32[1000003] { Tanh(x * 2.0 + 1.0) }
    pub fn bf16_rows(x: bf16[64, 4099]) -> bf16[64] {
        Reduce(x, 0, dimensions = [1], |a, b| a + b)
    }
    /// Gather on the rayon path, then a scatter-add of the gathered rows back.
    pub fn gather_scatter(t: f32[1000, 64], ids: s32[2048]) -> (f32[2048, 64], f32[1000, 64]) {
        let rows = Gather(t, ids, offset_dims = [1], collapsed_slice_dims = [0],
            start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 64]);
        let back = Scatter(t, ids, rows, |a, b| a + b, update_window_dims = [1],
            inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1);
        Tuple(rows, back)
    }
    /// A While writing one row per step (its state updated in place) and a box of the result.
    pub fn row_writes(x: f32[64, 32], i: u32[]) -> (f32[64, 32], f32[2, 32]) {
        let s = While(|s| Lt(s.0, 64i32), |s| {
            let row = Broadcast(ConvertElementType(s.0, new_element_type = f32),
                broadcast_sizes = [1, 32]);
            Tuple(Add(s.0, 1i32), DynamicUpdateSlice(s.1, row, s.0, 0i32))
        }, Tuple(0i32, x));
        Tuple(s.1, DynamicSlice(s.1, i, 0u32, slice_sizes = [2, 32]))
    }
    /// `a x = b` through Cholesky and two triangular solves, past the block size (64).
    pub fn spd_solve(a: f64[2, 100, 100], b: f64[2, 100, 8]) -> f64[2, 100, 8] {
        let l = Cholesky(a, lower = true);
        let y = TriangularSolve(l, b, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = NO_TRANSPOSE);
        TriangularSolve(l, y, left_side = true, lower = true, unit_diagonal = false,
            transpose_a = ADJOINT)
    }
    /// ThreeFry's pair rows and Philox's blocks on the pool, a normal draw in stack chunks.
    pub fn rng_stream(s: u64[2]) -> (u64[2], u32[301, 257], f32[300, 300]) {
        let a = RngBitGenerator(s, u32[301, 257], algorithm = THREE_FRY);
        let b = RngBitGenerator(a.0, u64[1000], algorithm = PHILOX);
        Tuple(b.0, a.1, RngNormal(0.0, 1.0, f32[300, 300]))
    }
    /// Fft: a 2-D transform on the pool (rows in place, columns through the plan's buffer),
    /// and an RFFT/IRFFT round trip of a prime length.
    pub fn fft_2d(x: c64[16, 64, 64]) -> c64[16, 64, 64] {
        Fft(x, fft_type = FFT, fft_length = [64, 64])
    }
    pub fn rfft_round_trip(x: f32[40, 1021]) -> f32[40, 1021] {
        Fft(Fft(x, fft_type = RFFT, fft_length = [1021]), fft_type = IRFFT, fft_length = [1021])
    }
    pub fn split(x: f32[512, 1024]) -> (f32[512], s32[512, 1024]{0, 1}) {
        let s = Reduce(x, 0.0, dimensions = [1], |a, b| a + b);
        Tuple(s, ConvertElementType(x, new_element_type = s32))
    }
}

/// Allocations made by `f`.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    f();
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

// One test fn: the counter is global, so nothing may run concurrently with a measurement.
#[test]
fn into_allocates_nothing_after_scratch_new() {
    // Start every thread of rayon's pool before measuring: a worker allocates as it starts,
    // and on a loaded machine a late starter would land inside a measurement. `broadcast`
    // returns only once each worker has run the closure.
    rayon::broadcast(|_| ());
    assert!(
        allocations(|| drop(vec![1u8; 10])) >= 1,
        "the counter counts"
    );

    let x = Tensor::<f32, D2<2, 3>>::from_fn(|i| i[1] as f32);
    let v = Tensor::<f32, D1<3>>::filled(1.0);
    let mut out = Tensor::zeros();
    let mut s = add_rows::Scratch::new();
    assert_eq!(
        allocations(|| add_rows::into(&x, &v, &mut out, &mut s)),
        0,
        "add_rows"
    );
    assert_eq!(out.as_slice(), &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);

    // Above the rayon threshold: the loops and reductions run on the pool.
    let x = Tensor::<f32, D2<256, 1024>>::from_fn(|i| ((i[0] * 7 + i[1]) % 13) as f32 * 0.1);
    let mut out = Tensor::zeros();
    let mut s = row_softmax::Scratch::new();
    assert_eq!(
        allocations(|| row_softmax::into(&x, &mut out, &mut s)),
        0,
        "row_softmax"
    );
    let row0: f32 = out.as_slice()[..1024].iter().sum();
    assert!((row0 - 1.0).abs() < 1e-4);

    let x = Tensor::<f32, D1<1000003>>::from_fn(|i| i[0] as f32 * 1e-6 - 0.5);
    let mut out = Tensor::zeros();
    let mut s = big_flat::Scratch::new();
    assert_eq!(
        allocations(|| big_flat::into(&x, &mut out, &mut s)),
        0,
        "big_flat"
    );

    let x = Tensor::<num_complex::Complex<f32>, D3<16, 64, 64>>::from_fn(|i| {
        num_complex::Complex::new(((i[0] + i[1] * 3 + i[2]) % 7) as f32, 0.5)
    });
    let mut out = Tensor::zeros();
    let mut s = fft_2d::Scratch::new();
    assert_eq!(
        allocations(|| fft_2d::into(&x, &mut out, &mut s)),
        0,
        "fft_2d"
    );
    // Bin (0, 0) of each batch entry is the sum of its 4096 inputs.
    let sum: num_complex::Complex<f32> = x.as_slice()[..4096].iter().sum();
    assert!((out.as_slice()[0] - sum).norm() < 1e-2 * sum.norm());

    let x = Tensor::<f32, D2<40, 1021>>::from_fn(|i| ((i[0] * 31 + i[1] * 17) % 11) as f32 - 5.0);
    let mut out = Tensor::zeros();
    let mut s = rfft_round_trip::Scratch::new();
    assert_eq!(
        allocations(|| rfft_round_trip::into(&x, &mut out, &mut s)),
        0,
        "rfft_round_trip"
    );
    let err = x
        .as_slice()
        .iter()
        .zip(out.as_slice())
        .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(err < 1e-4, "round trip error {err}");

    let x = Tensor::<f32, D2<512, 1024>>::from_fn(|i| (i[1] % 3) as f32);
    let mut o0 = Tensor::zeros();
    let mut o1 = Tensor::zeros();
    let mut s = split::Scratch::new();
    assert_eq!(
        allocations(|| split::into(&x, &mut o0, &mut o1, &mut s)),
        0,
        "split"
    );
    assert_eq!(o0.as_slice()[0], 1023.0);

    let t = Tensor::<f32, D2<1000, 64>>::from_fn(|i| (i[0] * 64 + i[1]) as f32);
    let ids = Tensor::<i32, D1<2048>>::from_fn(|i| (i[0] * 7919 % 1000) as i32);
    let (mut rows, mut back) = (Tensor::zeros(), Tensor::zeros());
    let mut s = gather_scatter::Scratch::new();
    assert_eq!(
        allocations(|| gather_scatter::into(&t, &ids, &mut rows, &mut back, &mut s)),
        0,
        "gather_scatter"
    );
    assert_eq!(rows.as_slice()[64], (7919 % 1000 * 64) as f32);

    let x = Tensor::<f32, D2<64, 32>>::zeros();
    let (mut w, mut b) = (Tensor::zeros(), Tensor::zeros());
    let i = Tensor::<u32, xla_aot::D0>::scalar(70);
    let mut s = row_writes::Scratch::new();
    assert_eq!(
        allocations(|| row_writes::into(&x, &i, &mut w, &mut b, &mut s)),
        0,
        "row_writes"
    );
    assert_eq!(w.as_slice()[63 * 32], 63.0);
    assert_eq!(b.as_slice()[0], 62.0, "start 70 clamped to 62");

    // bf16 folds in XLA's nested windows of 32 (no buffers for the partial sums), on the pool.
    let x = Tensor::<half::bf16, D2<64, 4099>>::filled(half::bf16::ONE);
    let mut out = Tensor::zeros();
    let mut s = bf16_rows::Scratch::new();
    assert_eq!(
        allocations(|| bf16_rows::into(&x, &mut out, &mut s)),
        0,
        "bf16_rows"
    );
    // Windows of 18, 32 x 127 and 17 ones, then of those 530, 1024 x 3 and 497, all exact;
    // the last fold rounds 1554 to 1552 (spacing 8), keeps 2576 and 3600, and rounds 4097 to
    // 4096 (a plain bf16 fold would stop at 256).
    assert!(out.as_slice().iter().all(|&y| y.to_f32() == 4096.0));

    let x = Tensor::<f32, D2<8, 784>>::from_fn(|i| (i[0] + i[1]) as f32 * 1e-3);
    let w = Tensor::<f32, D2<784, 128>>::from_fn(|i| (i[0] as f32 - i[1] as f32) * 1e-3);
    let b = Tensor::<f32, D1<128>>::filled(0.5);
    let mut out = Tensor::zeros();
    let mut s = dense_relu::Scratch::new();
    // GEMM's packing buffers grow once, on the first call.
    dense_relu::into(&x, &w, &b, &mut out, &mut s);
    let want = out.as_slice().to_vec();
    assert_eq!(
        allocations(|| dense_relu::into(&x, &w, &b, &mut out, &mut s)),
        0,
        "dense_relu"
    );
    assert_eq!(out.as_slice(), &want[..]);

    // Cholesky and TriangularSolve: their scratch (and GEMM's) grows on the first call.
    let sa = Tensor::<f64, xla_aot::D3<2, 100, 100>>::from_fn(|i| {
        let off = ((i[1] * 31 + i[2] * 17 + i[0]) % 7) as f64 * 0.01;
        if i[1] == i[2] {
            100.0
        } else {
            off
        }
    });
    let sb = Tensor::<f64, xla_aot::D3<2, 100, 8>>::from_fn(|i| (i[1] + i[2]) as f64);
    let mut sx = Tensor::zeros();
    let mut ss = spd_solve::Scratch::new();
    spd_solve::into(&sa, &sb, &mut sx, &mut ss);
    assert_eq!(
        allocations(|| spd_solve::into(&sa, &sb, &mut sx, &mut ss)),
        0,
        "spd_solve"
    );
    // a x = b, checked on row 0 of matrix 0 (a symmetric: the off-diagonal pattern is not, but
    // only the lower triangle is read, so a is the symmetric matrix of that triangle).
    let xs = sx.as_slice();
    let sym = |r: usize, c: usize| {
        let (i, j) = if r >= c { (r, c) } else { (c, r) };
        sa.as_slice()[i * 100 + j]
    };
    let ax0: f64 = (0..100).map(|c| sym(0, c) * xs[c * 8]).sum();
    assert!((ax0 - sb.as_slice()[0]).abs() < 1e-9, "a x = b: {ax0}");
    let st = Tensor::<u64, D1<2>>::from_fn(|i| i[0] as u64 + 5);
    let (mut o0, mut o1, mut o2) = (Tensor::zeros(), Tensor::zeros(), Tensor::zeros());
    let mut rs = rng_stream::Scratch::new();
    assert_eq!(
        allocations(|| rng_stream::into(&st, &mut o0, &mut o1, &mut o2, &mut rs)),
        0,
        "rng_stream"
    );
    // The counter advanced by ThreeFry's 151 x 257 pair blocks, then Philox's 500 blocks.
    assert_eq!(o0.as_slice(), &[5, 6 + 151 * 257 + 500]);

    // Through views over plain Vecs at odd offsets (not aligned): making the views and the
    // call allocate nothing either, and the bits are the owned tensors'.
    let (xd, wd, bd) = (
        [&[0.0f32][..], x.as_slice()].concat(),
        [&[0.0f32; 2][..], w.as_slice()].concat(),
        [&[0.0f32; 3][..], b.as_slice()].concat(),
    );
    let mut od = vec![0.0f32; 8 * 128 + 1];
    assert_eq!(
        allocations(|| {
            let xv = TensorView::<f32, D2<8, 784>>::new(&xd[1..]).unwrap();
            let wv = TensorView::<f32, D2<784, 128>>::new(&wd[2..]).unwrap();
            let bv = TensorView::<f32, D1<128>>::new(&bd[3..]).unwrap();
            let ov = TensorViewMut::<f32, D2<8, 128>>::new(&mut od[1..]).unwrap();
            dense_relu::into(xv, wv, bv, ov, &mut s);
        }),
        0,
        "dense_relu through views"
    );
    assert_eq!(&od[1..], &want[..]);
}
