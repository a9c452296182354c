//! Loop drivers of the code `xla!` generates. A fused loop is written by the macro as one
//! closure giving the vector of results at a position; the functions here own everything
//! around it: rows, blocks, threads, and the last partial vector of a row, which runs as a full
//! vector at the window ending at the row's end (one copy of the body, so every element gets
//! the same code and the same bits wherever it lies).
//!
//! They are generic and `#[inline(always)]`: each call is monomorphised with its closure into
//! the user's crate, so the generated source holds only the per-element code (issue 10: the
//! expansion stays small and compile time linear). Blocks depend only on sizes, so results do
//! not depend on the number of threads.

pub mod isa;

use rayon::prelude::*;

use crate::par::{self, PAR_BLOCK_ELEMENTS, PAR_MIN_ELEMENTS};
use crate::simd::{run_window, window, VFloat};

/// A block task: `(first, block)`, `first` the number of the block's first row.
type Task<'a, T> = &'a (dyn Fn(usize, &mut [T]) + Sync);

/// A task over two outputs cut at the same rows: `(first, block_a, block_b)`.
type Task2<'a, T> = &'a (dyn Fn(usize, &mut [T], &mut [T]) + Sync);

/// Element types whose block splitting is compiled here, in the library: rayon's splitting
/// code behind a `dyn` task is built once, not once per generated loop nor once per user crate
/// (it was most of a small generated fn's build time). One indirect call per block of about
/// [`PAR_BLOCK_ELEMENTS`] costs nothing.
pub trait Split: Sized + Send {
    /// [`par::rows`]: `task(first_row, block)` over blocks of whole rows of `row`.
    fn rows(out: &mut [Self], row: usize, task: Task<'_, Self>);
    /// [`par::chunks`] with `first` the chunk's first index: chunks of `len`, on rayon when
    /// `parallel`.
    fn chunks(out: &mut [Self], len: usize, parallel: bool, task: Task<'_, Self>);
    /// `task(first, a_chunk, b_chunk)` over `a` in chunks of `la` and `b` in chunks of `lb`
    /// (`first` the chunk's first index in `a`), on rayon when `parallel`.
    fn chunks2(
        a: &mut [Self],
        la: usize,
        b: &mut [Self],
        lb: usize,
        parallel: bool,
        task: Task2<'_, Self>,
    );
    /// Blocks of [`PAR_BLOCK_ELEMENTS`], the last merged into its predecessor when shorter
    /// than `min`; on rayon from [`PAR_MIN_ELEMENTS`] elements.
    fn blocks_of_at_least(out: &mut [Self], min: usize, task: Task<'_, Self>);
    /// `leaf(0) ⊕ ... ⊕ leaf(n - 1)` (`n >= 1`) in the fixed midpoint tree, halves on rayon.
    fn tree(
        n: usize,
        leaf: &(dyn Fn(usize) -> Self + Sync),
        comb: &(dyn Fn(Self, Self) -> Self + Sync),
    ) -> Self;
}

macro_rules! split_here {
    ($($t:ty),*) => {$(
        impl Split for $t {
            #[inline(never)]
            fn rows(out: &mut [$t], row: usize, task: Task<'_, $t>) {
                par::rows(out, row, task);
            }
            #[inline(never)]
            fn chunks(out: &mut [$t], len: usize, parallel: bool, task: Task<'_, $t>) {
                par::chunks(out, len, parallel, |i, c| task(i * len, c));
            }
            #[inline(never)]
            fn chunks2(
                a: &mut [$t],
                la: usize,
                b: &mut [$t],
                lb: usize,
                parallel: bool,
                task: Task2<'_, $t>,
            ) {
                chunks2(a, la, b, lb, parallel, task);
            }
            #[inline(never)]
            fn blocks_of_at_least(out: &mut [$t], min: usize, task: Task<'_, $t>) {
                blocks_of_at_least(out, min, task);
            }
            #[inline(never)]
            fn tree(
                n: usize,
                leaf: &(dyn Fn(usize) -> $t + Sync),
                comb: &(dyn Fn($t, $t) -> $t + Sync),
            ) -> $t {
                par::tree(0, n, &leaf, &comb, true)
            }
        }
    )*};
}

split_here!(
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    half::f16,
    half::bf16,
    f32,
    f64
);
split_here!(num_complex::Complex<f32>, num_complex::Complex<f64>);

/// Runs a closure inside a function compiled for one instruction-set level: the plain
/// drivers' [`Here`], or [`isa`]'s AVX2 and AVX-512 levels.
trait Level {
    /// `g()`, compiled with this level's target features.
    ///
    /// # Safety
    /// The CPU must have the level's features (`isa::pick` chose it).
    unsafe fn run<R>(g: impl FnOnce() -> R) -> R;
}

/// The build's own target features: `g()` as it is.
struct Here;

impl Level for Here {
    #[inline(always)]
    unsafe fn run<R>(g: impl FnOnce() -> R) -> R {
        g()
    }
}

/// Whether the splitting of [`Split`] would run a task over `n` output elements as one inline
/// call anyway (below [`PAR_MIN_ELEMENTS`]): the drivers then call it directly, so a small
/// kernel (a While step on a small state) pays no dynamic call into the library. Same blocks,
/// same results.
#[inline(always)]
fn runs_inline(n: usize) -> bool {
    n < PAR_MIN_ELEMENTS
}

/// `out[g·row + j] = f(g, j0)[j - j0]`: row `g` of `row >= LANES` elements in vectors starting
/// at `j0` (the last one the window ending at the row's end).
#[inline(always)]
pub fn map_rows<V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    row: usize,
    f: impl Fn(usize, usize) -> V + Sync + Send,
) {
    // SAFETY: `Here` needs no instruction beyond the build's.
    unsafe { map_rows_on::<Here, V>(out, row, f) }
}

/// [`map_rows`] with each block run inside level `L` ([`isa`]'s drivers pass AVX2 or
/// AVX-512; one copy of the blocks and windows for every level).
///
/// # Safety
/// As [`Level::run`].
#[inline(always)]
unsafe fn map_rows_on<L: Level, V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    row: usize,
    f: impl Fn(usize, usize) -> V + Sync + Send,
) {
    assert!(
        row >= V::LANES,
        "map_rows: rows of {row} < {} lanes",
        V::LANES
    );
    let task = |first: usize, blk: &mut [V::Elem]| {
        // SAFETY: forwarded from the caller.
        unsafe {
            L::run(
                #[inline(always)]
                || rows_block(first, blk, row, &f),
            )
        }
    };
    if runs_inline(out.len()) {
        task(0, out)
    } else {
        Split::rows(out, row, &task)
    }
}

/// The rows of one block of [`map_rows`] (`first` the block's first row).
#[inline(always)]
fn rows_block<V: VFloat>(
    first: usize,
    blk: &mut [V::Elem],
    row: usize,
    f: &impl Fn(usize, usize) -> V,
) {
    for (r, o) in blk.chunks_exact_mut(row).enumerate() {
        for jv in 0..row.div_ceil(V::LANES) {
            let j = window(jv, V::LANES, row).0;
            f(first + r, j).store(&mut o[j..]);
        }
    }
}

/// [`map_rows`] where the closure also reads the output itself at the element it writes
/// (`cur`, the vector at `j0` before this loop wrote it): the row's last window is computed
/// first, while every element still holds its old value, and stored last.
#[inline(always)]
pub fn map_rows_in_place<V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    row: usize,
    f: impl Fn(usize, usize, V) -> V + Sync + Send,
) {
    // SAFETY: `Here` needs no instruction beyond the build's.
    unsafe { map_rows_in_place_on::<Here, V>(out, row, f) }
}

/// [`map_rows_in_place`] with each block run inside level `L` (as [`map_rows_on`]).
///
/// # Safety
/// As [`Level::run`].
#[inline(always)]
unsafe fn map_rows_in_place_on<L: Level, V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    row: usize,
    f: impl Fn(usize, usize, V) -> V + Sync + Send,
) {
    assert!(
        row >= V::LANES,
        "map_rows_in_place: rows of {row} < {} lanes",
        V::LANES
    );
    // SAFETY: forwarded from the caller.
    let task = |first: usize, blk: &mut [V::Elem]| unsafe {
        L::run(
            #[inline(always)]
            || {
                for (r, o) in blk.chunks_exact_mut(row).enumerate() {
                    in_place_run::<V>(
                        o,
                        #[inline(always)]
                        |j, cur| f(first + r, j, cur),
                    );
                }
            },
        )
    };
    if runs_inline(out.len()) {
        task(0, out)
    } else {
        Split::rows(out, row, &task)
    }
}

/// One run of `o.len() >= LANES` elements updated in place by `f(j, cur)`.
#[inline(always)]
fn in_place_run<V: VFloat>(o: &mut [V::Elem], f: impl Fn(usize, V) -> V) {
    let (n, l) = (o.len(), V::LANES);
    let last = (n % l != 0).then(|| {
        let j = n - l;
        (j, f(j, V::load(&o[j..])))
    });
    for jv in 0..n / l {
        let j = jv * l;
        let x = f(j, V::load(&o[j..]));
        x.store(&mut o[j..]);
    }
    if let Some((j, x)) = last {
        x.store(&mut o[j..]);
    }
}

/// `out[g] = f(g0)[g - g0]` over a flat output of at least `LANES` elements, in blocks of
/// [`PAR_BLOCK_ELEMENTS`]; a block's last partial vector is the window ending at the block's
/// end (starting in the previous block when the block is short: only inputs are read there).
#[inline(always)]
pub fn map_flat<V: VFloat<Elem: Split>>(out: &mut [V::Elem], f: impl Fn(usize) -> V + Sync + Send) {
    // SAFETY: `Here` needs no instruction beyond the build's.
    unsafe { map_flat_on::<Here, V>(out, f) }
}

/// [`map_flat`] with each block run inside level `L` (as [`map_rows_on`]).
///
/// # Safety
/// As [`Level::run`].
#[inline(always)]
unsafe fn map_flat_on<L: Level, V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    f: impl Fn(usize) -> V + Sync + Send,
) {
    let l = V::LANES;
    assert!(
        out.len() >= l,
        "map_flat: {} elements < {l} lanes",
        out.len()
    );
    // SAFETY: forwarded from the caller.
    let task = |first: usize, blk: &mut [V::Elem]| unsafe {
        L::run(
            #[inline(always)]
            || flat_block(first, blk, &f),
        )
    };
    if runs_inline(out.len()) {
        task(0, out)
    } else {
        Split::rows(out, 1, &task)
    }
}

/// One block of [`map_flat`] (`first` its offset in the output).
#[inline(always)]
fn flat_block<V: VFloat>(first: usize, blk: &mut [V::Elem], f: &impl Fn(usize) -> V) {
    let (n, l) = (blk.len(), V::LANES);
    for jv in 0..n.div_ceil(l) {
        let j = jv * l;
        let lo = (j + l).saturating_sub(n);
        let x = f(first + j - lo);
        if lo == 0 {
            x.store(&mut blk[j..]);
        } else {
            for q in lo..l {
                blk[j + q - lo] = x.lane(q);
            }
        }
    }
}

/// [`map_flat`] reading the output in place (`cur`): blocks of [`PAR_BLOCK_ELEMENTS`], the last
/// one absorbing a remainder shorter than a vector, so every block holds a whole window.
#[inline(always)]
pub fn map_flat_in_place<V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    f: impl Fn(usize, V) -> V + Sync + Send,
) {
    // SAFETY: `Here` needs no instruction beyond the build's.
    unsafe { map_flat_in_place_on::<Here, V>(out, f) }
}

/// [`map_flat_in_place`] with each block run inside level `L` (as [`map_rows_on`]).
///
/// # Safety
/// As [`Level::run`].
#[inline(always)]
unsafe fn map_flat_in_place_on<L: Level, V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    f: impl Fn(usize, V) -> V + Sync + Send,
) {
    let l = V::LANES;
    assert!(
        out.len() >= l,
        "map_flat_in_place: {} elements < {l} lanes",
        out.len()
    );
    // SAFETY: forwarded from the caller.
    let task = |first: usize, blk: &mut [V::Elem]| unsafe {
        L::run(
            #[inline(always)]
            || {
                in_place_run::<V>(
                    blk,
                    #[inline(always)]
                    |j, cur| f(first + j, cur),
                )
            },
        )
    };
    if runs_inline(out.len()) {
        task(0, out)
    } else {
        Split::blocks_of_at_least(out, l, &task)
    }
}

/// `f(first, block)` over `out` cut into blocks of [`PAR_BLOCK_ELEMENTS`] (`first` the block's
/// offset), the last block merged into its predecessor when shorter than `min`; on rayon when
/// `out` has at least [`PAR_MIN_ELEMENTS`] elements.
fn blocks_of_at_least<T: Send>(out: &mut [T], min: usize, f: Task<'_, T>) {
    let (n, b) = (out.len(), PAR_BLOCK_ELEMENTS);
    let whole = if n % b != 0 && n % b < min {
        n / b
    } else {
        n.div_ceil(b)
    };
    if n < PAR_MIN_ELEMENTS || whole <= 1 {
        f(0, out);
        return;
    }
    let (head, last) = out.split_at_mut((whole - 1) * b);
    rayon::join(
        || {
            head.par_chunks_mut(b)
                .enumerate()
                .for_each(|(i, c)| f(i * b, c))
        },
        || f((whole - 1) * b, last),
    );
}

/// `out[g·row + j] = f(g, j)` element by element (code without a vector form); a flat output
/// is rows of one element.
#[inline(always)]
pub fn map_elems<T: Split>(out: &mut [T], row: usize, f: impl Fn(usize, usize) -> T + Sync + Send) {
    let row = row.max(1);
    let task = |first: usize, blk: &mut [T]| {
        for (r, o) in blk.chunks_mut(row).enumerate() {
            for (j, x) in o.iter_mut().enumerate() {
                *x = f(first + r, j);
            }
        }
    };
    if runs_inline(out.len()) {
        task(0, out)
    } else {
        Split::rows(out, row, &task)
    }
}

/// [`map_elems`] reading the output in place: `out[g·row + j] = f(g, j, out[g·row + j])`.
#[inline(always)]
pub fn map_elems_in_place<T: Copy + Split>(
    out: &mut [T],
    row: usize,
    f: impl Fn(usize, usize, T) -> T + Sync + Send,
) {
    let row = row.max(1);
    let task = |first: usize, blk: &mut [T]| {
        for (r, o) in blk.chunks_mut(row).enumerate() {
            for (j, x) in o.iter_mut().enumerate() {
                *x = f(first + r, j, *x);
            }
        }
    };
    if runs_inline(out.len()) {
        task(0, out)
    } else {
        Split::rows(out, row, &task)
    }
}

/// Outputs per task of a column reduction at least: a run of 2048 f32 accumulators is 8 KiB
/// of each operand row, two whole pages streamed contiguously. Measured on f32[4096,4096]
/// column sums (AMD EPYC Zen 4, `bash scripts/bench.sh programs "column sum"`): runs of 1024
/// gave 2.24-2.51 ms, 2048 gives 1.97-2.04 ms.
pub const COL_RUN: usize = 2048;

/// Elements per leaf when one long row is folded as a tree because the outputs alone would
/// not keep two threads busy: 32 KiB of f32, long enough that the vector loop dominates.
pub const ROW_LEAF: usize = 1 << 13;

/// The combining functions of a recognised reducer over vectors `V`: `id` its identity,
/// `v` the lane-wise combine, `lanes` the reduction of one vector's lanes, `s` the scalar
/// combine.
#[derive(Clone, Copy)]
pub struct Combine<V: VFloat, VC, VR, SC> {
    /// The identity (folded into accumulators, never into results).
    pub id: V::Elem,
    /// Lane-wise combine.
    pub v: VC,
    /// One vector's lanes to one value.
    pub lanes: VR,
    /// Scalar combine.
    pub s: SC,
}

/// A reducer the drivers fold with: what [`Combine`] holds, as one bound.
pub trait Reducer<V: VFloat>: Sync + Send {
    /// The identity.
    fn id(&self) -> V::Elem;
    /// Lane-wise combine.
    fn v(&self, a: V, b: V) -> V;
    /// One vector's lanes to one value.
    fn lanes(&self, x: V) -> V::Elem;
    /// Scalar combine.
    fn s(&self, a: V::Elem, b: V::Elem) -> V::Elem;
}

impl<V, VC, VR, SC> Reducer<V> for Combine<V, VC, VR, SC>
where
    V: VFloat,
    VC: Fn(V, V) -> V + Sync + Send,
    VR: Fn(V) -> V::Elem + Sync + Send,
    SC: Fn(V::Elem, V::Elem) -> V::Elem + Sync + Send,
{
    #[inline(always)]
    fn id(&self) -> V::Elem {
        self.id
    }
    #[inline(always)]
    fn v(&self, a: V, b: V) -> V {
        (self.v)(a, b)
    }
    #[inline(always)]
    fn lanes(&self, x: V) -> V::Elem {
        (self.lanes)(x)
    }
    #[inline(always)]
    fn s(&self, a: V::Elem, b: V::Elem) -> V::Elem {
        (self.s)(a, b)
    }
}

/// `out[g] = init ⊕ (⊕_j f(g, j))` over rows of `row >= LANES` elements: four vector
/// accumulators over blocks of four vectors, the rest in the first; the last window's new lanes
/// folded one by one into a scalar accumulator; then `init ⊕ (lanes(⊕ accs) ⊕ scalar)`.
/// Tasks of `per_task` outputs; parallel from [`PAR_MIN_ELEMENTS`] elements of work. When all
/// outputs fit one task and rows hold at least two [`ROW_LEAF`]s, each row is instead folded
/// as leaves of [`ROW_LEAF`] elements (that order each) combined in a fixed midpoint tree, in
/// parallel: the order depends on sizes only, never on the thread count.
#[inline(always)]
pub fn reduce_rows<V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    row: usize,
    per_task: usize,
    init: V::Elem,
    c: impl Reducer<V>,
    f: impl Fn(usize, usize) -> V + Sync + Send,
) {
    assert!(
        row >= V::LANES,
        "reduce_rows: rows of {row} < {} lanes",
        V::LANES
    );
    let per_task = per_task.max(1);
    let parallel = out.len() * row >= PAR_MIN_ELEMENTS;
    if parallel && out.len() <= per_task && row >= 2 * ROW_LEAF {
        // One task's worth of outputs: each row is cut into leaves of ROW_LEAF elements (the
        // last one taking the remainder) folded in parallel and combined in a fixed tree.
        for (g, o) in out.iter_mut().enumerate() {
            let n = row / ROW_LEAF;
            let leaf = |i: usize| {
                let len = if i + 1 == n {
                    row - i * ROW_LEAF
                } else {
                    ROW_LEAF
                };
                fold_range(i * ROW_LEAF, len, &c, |j| both(f(g, j)), None)
            };
            *o = c.s(init, Split::tree(n, &leaf, &|a, b| c.s(a, b)));
        }
        return;
    }
    let task = |first: usize, blk: &mut [V::Elem]| {
        for (r, o) in blk.iter_mut().enumerate() {
            *o = c.s(
                init,
                fold_range(0, row, &c, |j| both(f(first + r, j)), None),
            );
        }
    };
    chunks_here_or_split(out, per_task, parallel, task);
}

/// `task(first, chunk)` over `out` in chunks of `len`: on this thread in order without a call
/// into the library when not `parallel` (what [`Split::chunks`] would do there), else through
/// [`Split::chunks`].
#[inline(always)]
fn chunks_here_or_split<T: Split>(
    out: &mut [T],
    len: usize,
    parallel: bool,
    task: impl Fn(usize, &mut [T]) + Sync,
) {
    if parallel {
        Split::chunks(out, len, true, &task)
    } else {
        for (i, c) in out.chunks_mut(len).enumerate() {
            task(i * len, c)
        }
    }
}

/// [`reduce_rows`] of the first of `f`'s pair `(reduced, stored)`, also writing the second to
/// `store[g·row + j]` (multi-output fusion: a value computed on the way, e.g. `x - mean` of
/// a variance that reduces its square, or the reduced value itself, is stored in the same pass).
#[inline(always)]
pub fn reduce_rows_storing<V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    store: &mut [V::Elem],
    row: usize,
    per_task: usize,
    init: V::Elem,
    c: impl Reducer<V>,
    f: impl Fn(usize, usize) -> (V, V) + Sync + Send,
) {
    assert!(
        row >= V::LANES,
        "reduce_rows_storing: rows of {row} < {} lanes",
        V::LANES
    );
    let per_task = per_task.max(1);
    let parallel = out.len() * row >= PAR_MIN_ELEMENTS;
    let task = |first: usize, blk: &mut [V::Elem], st: &mut [V::Elem]| {
        for (r, (o, urow)) in blk.iter_mut().zip(st.chunks_exact_mut(row)).enumerate() {
            *o = c.s(
                init,
                fold_range(0, row, &c, |j| f(first + r, j), Some(urow)),
            );
        }
    };
    // Not parallel: one call here, as Split::chunks2 would make.
    if parallel {
        Split::chunks2(out, per_task, store, per_task * row, true, &task)
    } else {
        task(0, out, store)
    }
}

/// `f(first, a_chunk, b_chunk)` over `a` and `b` cut at the same chunks (`first` the chunk's
/// first index in `a`), on rayon when `parallel`.
#[inline(never)]
fn chunks2<T: Send>(
    a: &mut [T],
    la: usize,
    b: &mut [T],
    lb: usize,
    parallel: bool,
    f: Task2<'_, T>,
) {
    if parallel {
        a.par_chunks_mut(la)
            .zip(b.par_chunks_mut(lb))
            .enumerate()
            .for_each(|(i, (x, y))| f(i * la, x, y));
    } else {
        f(0, a, b);
    }
}

/// `out[g·k + j] = init ⊕ (⊕_{o < outer, i < inner} f(g, o, i, j))` for outputs in rows of
/// `k >= LANES` whose lanes run along the operand's innermost dim (column reductions): the
/// outputs are the accumulators. Each task owns `run` consecutive outputs (cut only by sizes,
/// parallel from [`PAR_MIN_ELEMENTS`] elements of work); for each `o`, the rows `i` fold four
/// at a time, combined pairwise `(x0 ⊕ x1) ⊕ (x2 ⊕ x3)` before meeting the accumulator, then
/// one at a time; a run's last partial vector is the window of the row that covers it
/// ([`run_window`]), whose new lanes fold one by one. `init` is folded into each output last.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn reduce_cols<V: VFloat<Elem: Split>>(
    out: &mut [V::Elem],
    k: usize,
    outer: usize,
    inner: usize,
    run: usize,
    init: V::Elem,
    c: impl Reducer<V>,
    f: impl Fn(usize, usize, usize, usize) -> V + Sync + Send,
) {
    assert!(
        k >= V::LANES,
        "reduce_cols: rows of {k} < {} lanes",
        V::LANES
    );
    let parallel = out.len() * outer * inner >= PAR_MIN_ELEMENTS;
    chunks_here_or_split(out, run.max(1), parallel, |first, blk| {
        let mut pos = 0;
        while pos < blk.len() {
            let flat = first + pos;
            let (g, j_start) = (flat / k, flat % k);
            let len = (k - j_start).min(blk.len() - pos);
            let seg = &mut blk[pos..pos + len];
            seg.fill(c.id());
            for o in 0..outer {
                for ib in 0..inner / 4 {
                    let i = ib * 4;
                    column_run(seg, j_start, k, &c, |j| {
                        let x = |q| f(g, o, i + q, j);
                        c.v(c.v(x(0), x(1)), c.v(x(2), x(3)))
                    });
                }
                for i in (inner / 4) * 4..inner {
                    column_run(seg, j_start, k, &c, |j| f(g, o, i, j));
                }
            }
            for x in seg.iter_mut() {
                *x = c.s(init, *x);
            }
            pos += len;
        }
    });
}

/// `seg[jj] ⊕= x(j_start + jj)` over one run of a row of `k` outputs, in vectors (the last
/// one the window of the row covering the run's end, its new lanes folded one by one).
#[inline(always)]
fn column_run<V: VFloat>(
    seg: &mut [V::Elem],
    j_start: usize,
    k: usize,
    c: &impl Reducer<V>,
    x: impl Fn(usize) -> V,
) {
    let (l, len) = (V::LANES, seg.len());
    for jv in 0..len.div_ceil(l) {
        let jj0 = jv * l;
        let (j, lo) = run_window(jv, l, j_start, len, k);
        let q = x(j);
        if jj0 + l <= len {
            c.v(V::load(&seg[jj0..]), q).store(&mut seg[jj0..]);
        } else {
            for (o, lane) in seg[jj0..].iter_mut().zip(lo..l) {
                *o = c.s(*o, q.lane(lane));
            }
        }
    }
}

/// `⊕ f(j).0` over `j` in `a..a + len` (`len >= LANES`): four vector accumulators over blocks
/// of four vectors, the rest in the first; the last window's new lanes folded one by one into a
/// scalar accumulator; then `lanes(⊕ accs) ⊕ scalar`. With `urow`, each `f(j).1` is also
/// written at `urow[j - a]`.
#[inline(always)]
fn fold_range<V: VFloat>(
    a: usize,
    len: usize,
    c: &impl Reducer<V>,
    f: impl Fn(usize) -> (V, V),
    mut urow: Option<&mut [V::Elem]>,
) -> V::Elem {
    let l = V::LANES;
    let mut acc = [V::splat(c.id()); 4];
    let mut s = c.id();
    let mut put = |j: usize, x: V| {
        if let Some(u) = urow.as_deref_mut() {
            x.store(&mut u[j..]);
        }
    };
    for jb in 0..len / (4 * l) {
        for (u, acc_u) in acc.iter_mut().enumerate() {
            let j = jb * 4 * l + u * l;
            let (x, st) = f(a + j);
            put(j, st);
            *acc_u = c.v(*acc_u, x);
        }
    }
    for jv in (len / (4 * l)) * 4..len.div_ceil(l) {
        let (j, lo) = window(jv, l, len);
        let (x, st) = f(a + j);
        // A window's lanes before `lo` were stored and folded by the previous vector.
        put(j, st);
        if lo == 0 {
            acc[0] = c.v(acc[0], x);
        } else {
            for q in lo..l {
                s = c.s(s, x.lane(q));
            }
        }
    }
    let t = c.lanes(c.v(c.v(acc[0], acc[1]), c.v(acc[2], acc[3])));
    c.s(t, s)
}

/// A value that is both reduced and (where a store is asked for) stored.
#[inline(always)]
fn both<V: Copy>(x: V) -> (V, V) {
    (x, x)
}

#[cfg(test)]
mod tests;
