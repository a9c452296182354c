//! Deterministic data parallelism on rayon.
//!
//! Every split here depends only on sizes (never on the number of threads), and every
//! reduction combines its blocks in one fixed tree, so results are bit-identical whether rayon
//! runs 1 thread or many. Small problems run inline on the caller's thread (no rayon overhead).

use std::ops::Range;

/// Below this many output elements, [`rows`] and [`reduce_blocks`] run inline: one rayon
/// fork/join costs a few microseconds, about as much as 32K cheap elementwise operations.
pub const PAR_MIN_ELEMENTS: usize = 1 << 15;

/// Target number of elements in one parallel task of [`rows`]: large enough to amortise task
/// overhead, small enough (64 KiB of f32) to stay in L2 and to balance two or more threads.
pub const PAR_BLOCK_ELEMENTS: usize = 1 << 14;

/// The fewest flops at which a GEMM may fork (`2 m n k`; GEMM's own lowest threshold): at the
/// AVX2 and portable levels a generated program with a product this large runs in the pool
/// ([`run_program`]); AVX-512 cores split one product only from 2^24 flops.
pub const PROGRAM_PAR_MIN_FLOPS: u128 = crate::gemm::PAR_MIN_FLOPS;

/// Default block length for reductions over a flat range (see [`reduce_blocks`]).
pub const REDUCE_BLOCK: usize = 1 << 13;

/// Number of rows per task for rows of `row_len` elements: whole rows, about
/// [`PAR_BLOCK_ELEMENTS`] elements, at least one row. Depends only on `row_len`.
#[inline]
pub fn rows_per_block(row_len: usize) -> usize {
    (PAR_BLOCK_ELEMENTS / row_len.max(1)).max(1)
}

/// Runs `f(first_row, block)` over `out` split into blocks of whole rows of `row_len` elements
/// (`block` is `out[first_row * row_len ..][..k * row_len]`); in parallel on rayon when
/// `out.len() >= PAR_MIN_ELEMENTS`, otherwise as one inline call `f(0, out)`.
///
/// Block boundaries depend only on `out.len()` and `row_len`, so any `f` that computes each row
/// from its index alone gives the same bits for every thread count. If `out.len()` is not a
/// multiple of `row_len`, the last block ends with the partial row. `row_len == 0` is treated
/// as 1.
pub fn rows<T: Send>(out: &mut [T], row_len: usize, f: impl Fn(usize, &mut [T]) + Sync + Send) {
    rows_with_threshold(out, row_len, PAR_MIN_ELEMENTS, f)
}

/// [`rows`] with an explicit parallel threshold in elements (use a smaller one for expensive
/// per-element work such as transcendental functions, a larger one for memory-bound copies).
pub fn rows_with_threshold<T: Send>(
    out: &mut [T],
    row_len: usize,
    threshold: usize,
    f: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    let row_len = row_len.max(1);
    if out.len() < threshold.max(1) || out.len() <= row_len {
        f(0, out);
        return;
    }
    let rpb = rows_per_block(row_len);
    split(out, rpb * row_len, 0, &|b, chunk| f(b * rpb, chunk));
}

/// Bytes from which [`copy`] splits over threads, and the bytes of each of its tasks: below
/// 1 MiB a copy takes tens of microseconds, comparable to waking a second thread.
pub const COPY_PAR_MIN_BYTES: usize = 1 << 20;

/// `dst.copy_from_slice(src)`, in chunks of [`COPY_PAR_MIN_BYTES`] on rayon from that size:
/// one core's `memcpy` does not saturate memory bandwidth (a While's 4 MiB state copied in 140
/// us on one core of the Intel Xeon). Panics if the lengths differ, as `copy_from_slice`.
pub fn copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "par::copy: lengths differ");
    let chunk = (COPY_PAR_MIN_BYTES / core::mem::size_of::<T>().max(1)).max(1);
    if dst.len() <= chunk {
        dst.copy_from_slice(src);
        return;
    }
    chunks(dst, chunk, true, |i, d| {
        d.copy_from_slice(&src[i * chunk..i * chunk + d.len()])
    });
}

/// Runs `f(i, chunk)` on every chunk `out[i * chunk_len ..][..chunk_len]` (the last may be
/// shorter): on rayon when `parallel`, otherwise in order on this thread. For kernels that
/// choose their own task size and threshold (e.g. by multiply-adds rather than elements).
/// Panics if `chunk_len == 0`.
pub fn chunks<T: Send>(
    out: &mut [T],
    chunk_len: usize,
    parallel: bool,
    f: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    assert!(chunk_len > 0, "par::chunks: chunk_len is 0");
    if parallel {
        split(out, chunk_len, 0, &f);
    } else {
        out.chunks_mut(chunk_len)
            .enumerate()
            .for_each(|(i, c)| f(i, c));
    }
}

/// Like [`rows`] for two outputs split at the same rows (`a` has rows of `row_len_a`, `b` of
/// `row_len_b`; both must hold the same number of rows): `f(first_row, block_a, block_b)`.
/// Used by fused loops with two results (variadic reduces, tuple outputs).
pub fn rows2<A: Send, B: Send>(
    a: &mut [A],
    row_len_a: usize,
    b: &mut [B],
    row_len_b: usize,
    f: impl Fn(usize, &mut [A], &mut [B]) + Sync + Send,
) {
    let (la, lb) = (row_len_a.max(1), row_len_b.max(1));
    let n_rows = a.len() / la;
    if a.len() + b.len() < PAR_MIN_ELEMENTS || n_rows <= 1 || b.len() / lb != n_rows {
        f(0, a, b);
        return;
    }
    let rpb = rows_per_block(la.max(lb));
    split2(a, rpb * la, b, rpb * lb, 0, &|i, ca, cb| f(i * rpb, ca, cb));
}

/// Runs `f(range)` for each block `[i*block, min(len, (i+1)*block))` of `0..len`, in parallel
/// when `len >= PAR_MIN_ELEMENTS`. For side effects through interior mutability or atomics;
/// `f` must not depend on which blocks run together. `block == 0` means one block.
pub fn for_blocks(len: usize, block: usize, f: impl Fn(Range<usize>) + Sync + Send) {
    let block = if block == 0 { len.max(1) } else { block };
    let n = len.div_ceil(block);
    if len < PAR_MIN_ELEMENTS || n <= 1 {
        (0..n).for_each(|i| f(i * block..((i + 1) * block).min(len)));
    } else {
        each(n, &|i| f(i * block..((i + 1) * block).min(len)));
    }
}

/// Maps each block `[i*block, min(len, (i+1)*block))` of `0..len` with `map` and combines the
/// results in a fixed balanced binary tree over block indices (`combine(left, right)`, left
/// holding the lower indices). The tree depends only on `len` and `block`, so the result is the
/// same bits for any thread count; it runs on rayon when `len >= PAR_MIN_ELEMENTS`.
///
/// `len == 0` gives `map(0..0)`; `block == 0` means a single block.
pub fn reduce_blocks<A: Send>(
    len: usize,
    block: usize,
    map: impl Fn(Range<usize>) -> A + Sync + Send,
    combine: impl Fn(A, A) -> A + Sync + Send,
) -> A {
    let block = if block == 0 { len.max(1) } else { block };
    let n_blocks = len.div_ceil(block).max(1);
    let parallel = len >= PAR_MIN_ELEMENTS;
    tree(
        0,
        n_blocks,
        &|i| map(i * block..((i + 1) * block).min(len)),
        &combine,
        parallel,
    )
}

/// Runs `f` on a thread of rayon's pool: here when this thread is one already, else by entering
/// the pool once and waiting for it (also when the pool has one thread: a fork from outside
/// it still hands each job to that worker and waits).
///
/// Why: each parallel call made from a thread outside the pool hands its job to the pool and
/// blocks until a worker finishes it, and a worker that went to sleep takes tens of
/// microseconds to wake: on the 2-core AMD EPYC VM of this project, a `rayon::join` of two
/// 20 us spins took a median 28-144 us when called from outside the pool (more the longer the
/// pool had idled) against 21-58 us from inside, and 8 joins of two 10 us spins back to back
/// took 167-317 us from outside against 113 us from inside. Work that forks several times (a
/// GEMM with several k slices, a whole generated program) pays the crossing once.
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() {
        f()
    } else {
        let (mut f, mut r) = (Some(f), None);
        in_scope(&mut || r = f.take().map(|f| f()));
        r.expect("rayon::scope runs its closure once")
    }
}

/// Runs a generated program's kernels `f`, in rayon's pool ([`in_pool`]) when one of them is
/// large enough to fork: `max_elements` (the most elements a kernel writes or reads; a product
/// counts only its result) reaches [`PAR_MIN_ELEMENTS`], `max_flops` (the most flops of one
/// GEMM) reaches the flops from which the GEMM of this CPU's level splits a product, or
/// `max_copy_bytes` (the most bytes one [`copy`] moves: a While state leaf, a
/// DynamicUpdateSlice operand) exceeds [`COPY_PAR_MIN_BYTES`]. A program of small kernels
/// never forks, so it stays on the caller's thread (entering the pool would cost more than it
/// runs).
pub fn run_program<R: Send>(
    max_elements: u64,
    max_flops: u128,
    max_copy_bytes: u64,
    f: impl FnOnce() -> R + Send,
) -> R {
    let split = crate::gemm::split_min_flops(crate::cpu::level());
    if max_elements >= PAR_MIN_ELEMENTS as u64
        || max_flops >= split
        || max_copy_bytes > COPY_PAR_MIN_BYTES as u64
    {
        in_pool(f)
    } else {
        f()
    }
}

/// Reduces blocks `lo..hi` (non-empty): split at the midpoint, left then right.
pub(crate) fn tree<A: Send>(
    lo: usize,
    hi: usize,
    leaf: &(impl Fn(usize) -> A + Sync),
    combine: &(impl Fn(A, A) -> A + Sync),
    parallel: bool,
) -> A {
    if hi - lo == 1 {
        return leaf(lo);
    }
    let mid = lo + (hi - lo) / 2;
    let (l, r) = if parallel {
        let (mut l, mut r) = (None, None);
        join(
            &mut || l = Some(tree(lo, mid, leaf, combine, true)),
            &mut || r = Some(tree(mid, hi, leaf, combine, true)),
        );
        (
            l.expect("rayon::join runs both closures"),
            r.expect("rayon::join runs both closures"),
        )
    } else {
        (
            tree(lo, mid, leaf, combine, false),
            tree(mid, hi, leaf, combine, false),
        )
    };
    combine(l, r)
}

// The rayon calls live in the few non-generic functions below, behind `dyn` closures: a
// generic function's body is compiled in every crate that instantiates it, and rayon's job
// machinery instantiated once per closure of generated code was half of each generated
// program's machine code (and of the test suite's compile time). Here it is compiled once, in
// this crate, optimised; callers pay one indirect call per task.

/// `a()` and `b()`, potentially in parallel (`rayon::join`).
#[inline(never)]
pub fn join(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    rayon::join(a, b);
}

/// `f()` on a worker of the current pool (`rayon::scope`).
#[inline(never)]
fn in_scope(f: &mut (dyn FnMut() + Send)) {
    rayon::scope(|_| f());
}

/// `f(i)` for every `i < n`, each once, in parallel.
#[inline(never)]
fn each(n: usize, f: &(dyn Fn(usize) + Sync)) {
    if n <= 1 {
        (0..n).for_each(f);
        return;
    }
    let mid = n / 2;
    join(&mut || each(mid, f), &mut || each(n - mid, &|i| f(mid + i)));
}

/// `f(first + i, chunk_i)` for the chunks of `chunk` elements of `out` (the last may be
/// shorter), in parallel: [`split2`] with nothing beside `out`.
fn split<T: Send>(out: &mut [T], chunk: usize, first: usize, f: &(dyn Fn(usize, &mut [T]) + Sync)) {
    split2(out, chunk, &mut [(); 0], 1, first, &|i, c, _| f(i, c));
}

/// `f(first_row, a_block, b_block)`.
type RowPairFn<'f, A, B> = dyn Fn(usize, &mut [A], &mut [B]) + Sync + 'f;

/// `f(first + i, a_i, b_i)` for the chunks `a_i` of `ca` elements of `a` and `b_i` of `cb` of
/// `b` (the last may be shorter or empty), in parallel: halves split at a chunk boundary until
/// one chunk is left.
fn split2<A: Send, B: Send>(
    a: &mut [A],
    ca: usize,
    b: &mut [B],
    cb: usize,
    first: usize,
    f: &RowPairFn<'_, A, B>,
) {
    let (ca, cb) = (ca.max(1), cb.max(1));
    let n = a.len().div_ceil(ca).max(b.len().div_ceil(cb));
    if n <= 1 {
        if !a.is_empty() || !b.is_empty() {
            f(first, a, b);
        }
        return;
    }
    let mid = n / 2;
    let (a0, a1) = a.split_at_mut((mid * ca).min(a.len()));
    let (b0, b1) = b.split_at_mut((mid * cb).min(b.len()));
    join(&mut || split2(a0, ca, b0, cb, first, f), &mut || {
        split2(a1, ca, b1, cb, first + mid, f)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("thread pool")
            .install(f)
    }

    #[test]
    fn in_pool_enters_the_pool_once_and_stays_there() {
        // From a thread outside every pool: on a worker of the global pool when it has more
        // than one thread, else right here.
        let idx = std::thread::spawn(|| in_pool(rayon::current_thread_index))
            .join()
            .expect("thread");
        assert_eq!(idx.is_some(), rayon::current_num_threads() > 1);
        // On a worker already: runs on that same thread, nested calls too.
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("pool");
        let (here, inner) = two.install(|| {
            let here = std::thread::current().id();
            (here, in_pool(|| in_pool(|| std::thread::current().id())))
        });
        assert_eq!(here, inner);
        assert_eq!(in_pool(|| 6 * 7), 42);
    }

    #[test]
    fn run_program_enters_the_pool_only_for_work_that_forks() {
        let idx = |e: u64, f: u128, c: u64| {
            std::thread::spawn(move || run_program(e, f, c, rayon::current_thread_index))
                .join()
                .expect("thread")
        };
        let many = rayon::current_num_threads() > 1;
        let bytes = COPY_PAR_MIN_BYTES as u64;
        let elements = PAR_MIN_ELEMENTS as u64;
        // A copy forks only above COPY_PAR_MIN_BYTES, a loop from PAR_MIN_ELEMENTS.
        assert_eq!(idx(elements - 1, 0, bytes), None);
        assert_eq!(idx(0, 0, bytes + 1).is_some(), many);
        assert_eq!(idx(elements, 0, 0).is_some(), many);
        assert_eq!(idx(0, u128::MAX, 0).is_some(), many);
    }

    /// A float sum whose bits depend on association order: catches any order change.
    fn sum_blocks(v: &[f32], block: usize) -> f32 {
        reduce_blocks(v.len(), block, |r| v[r].iter().sum::<f32>(), |a, b| a + b)
    }

    fn data(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 * 1e-3 + 1.0 / (i + 1) as f32)
            .collect()
    }

    #[test]
    fn reduce_is_identical_for_1_and_2_threads() {
        for &n in &[0usize, 1, 5, 8192, 8193, 100_000, 1 << 20] {
            let v = data(n);
            let one = with_threads(1, || sum_blocks(&v, REDUCE_BLOCK));
            let two = with_threads(2, || sum_blocks(&v, REDUCE_BLOCK));
            let three = with_threads(3, || sum_blocks(&v, 1000));
            let three_1 = with_threads(1, || sum_blocks(&v, 1000));
            assert_eq!(one.to_bits(), two.to_bits(), "n={n}");
            assert_eq!(three.to_bits(), three_1.to_bits(), "n={n}");
            // And it is a correct sum.
            let exact: f64 = v.iter().map(|&x| x as f64).sum();
            assert!(
                (one as f64 - exact).abs() <= 1e-5 * exact.abs().max(1.0),
                "n={n}"
            );
        }
    }

    #[test]
    fn reduce_visits_every_block_in_a_fixed_tree() {
        // Concatenating ranges in combine order must give exactly 0..len in order.
        for &(len, block) in &[(0usize, 4usize), (10, 3), (10, 0), (100_000, 777)] {
            let out = with_threads(2, || {
                reduce_blocks(
                    len,
                    block,
                    |r| vec![r],
                    |mut a, b| {
                        a.extend(b);
                        a
                    },
                )
            });
            let flat: Vec<usize> = out.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(flat, (0..len).collect::<Vec<_>>());
            assert!(out.iter().all(|r| block == 0 || r.len() <= block));
        }
    }

    fn fill_rows(out: &mut [f32], row_len: usize) {
        rows(out, row_len, |first, block| {
            for (k, x) in block.iter_mut().enumerate() {
                let (r, c) = (first + k / row_len, k % row_len);
                *x = (r as f32).sqrt() * 3.0 + c as f32 / 7.0;
            }
        });
    }

    #[test]
    fn rows_cover_everything_identically() {
        for &(n_rows, row_len) in &[
            (0usize, 3usize),
            (1, 1),
            (3, 5),
            (5000, 17),
            (300, 1000),
            (1, 70_000),
        ] {
            let mut a = vec![f32::NAN; n_rows * row_len];
            let mut b = vec![f32::NAN; n_rows * row_len];
            with_threads(1, || fill_rows(&mut a, row_len));
            with_threads(2, || fill_rows(&mut b, row_len));
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                let want = ((i / row_len) as f32).sqrt() * 3.0 + (i % row_len) as f32 / 7.0;
                assert_eq!(x.to_bits(), want.to_bits());
                assert_eq!(x.to_bits(), y.to_bits());
            }
        }
    }

    #[test]
    fn rows_blocks_are_whole_rows() {
        let row_len = 100;
        let mut v = vec![0u32; 1000 * row_len];
        with_threads(2, || {
            rows(&mut v, row_len, |first, block| {
                assert_eq!(block.len() % row_len, 0);
                block.iter_mut().for_each(|x| *x = first as u32 + 1);
            })
        });
        // Every block starts at a multiple of rows_per_block.
        let rpb = rows_per_block(row_len);
        for (r, row) in v.chunks(row_len).enumerate() {
            assert!(row.iter().all(|&x| x as usize == (r / rpb) * rpb + 1));
        }
    }

    #[test]
    fn rows2_splits_both_outputs_at_the_same_rows() {
        let (n_rows, la, lb) = (4000usize, 16usize, 3usize);
        let mut a = vec![0usize; n_rows * la];
        let mut b = vec![0usize; n_rows * lb];
        with_threads(2, || {
            rows2(&mut a, la, &mut b, lb, |first, ba, bb| {
                assert_eq!(ba.len() / la, bb.len() / lb);
                ba.iter_mut()
                    .enumerate()
                    .for_each(|(k, x)| *x = first + k / la);
                bb.iter_mut()
                    .enumerate()
                    .for_each(|(k, x)| *x = first + k / lb);
            })
        });
        assert!(a.iter().enumerate().all(|(i, &x)| x == i / la));
        assert!(b.iter().enumerate().all(|(i, &x)| x == i / lb));
    }

    #[test]
    #[should_panic(expected = "chunk_len is 0")]
    fn chunks_of_zero_elements_panic_as_documented() {
        chunks(&mut [1u8; 40_000], 0, true, |_, _| {});
    }

    #[test]
    fn chunks_cover_a_short_last_chunk_in_parallel() {
        let mut v = vec![0usize; 100_003];
        with_threads(2, || chunks(&mut v, 4096, true, |i, c| c.fill(i + 1)));
        assert!(v.iter().enumerate().all(|(k, &x)| x == k / 4096 + 1));
    }

    #[test]
    fn for_blocks_covers_range_once() {
        use std::sync::atomic::{AtomicU32, Ordering};
        let hits: Vec<AtomicU32> = (0..100_003).map(|_| AtomicU32::new(0)).collect();
        with_threads(2, || {
            for_blocks(hits.len(), 4096, |r| {
                r.for_each(|i| {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                })
            })
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn copy_is_copy_from_slice_at_every_size() {
        let chunk = COPY_PAR_MIN_BYTES / 4;
        for n in [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 7] {
            let src: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let mut dst = vec![0u32; n];
            with_threads(2, || copy(&mut dst, &src));
            assert_eq!(dst, src, "n = {n}");
        }
    }

    #[test]
    #[should_panic(expected = "lengths differ")]
    fn copy_of_different_lengths_panics_as_documented() {
        copy(&mut [0u8; 3], &[1u8; 4]);
    }
}
