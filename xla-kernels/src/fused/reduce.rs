//! The reduction drivers of generated code: rows ([`reduce_rows`], [`reduce_rows_storing`]) and
//! columns ([`reduce_cols`]), each also as `_on` a [`Level`] for [`super::isa`]'s dispatched
//! forms (one copy of the blocks, accumulators and order for every level).

use super::{Here, Level, Split, PAR_MIN_ELEMENTS};
use crate::simd::{run_window, window, VFloat};

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

impl<V: VFloat, VC, VR, SC> Combine<V, VC, VR, SC> {
    /// The reducer of these parts (a [`Reducer`] when they are the functions it names). A
    /// constructor rather than the struct literal because call arguments may carry
    /// `#[inline(always)]` closures (the generated code passes such, with typed parameters,
    /// so the combine is compiled inside a dispatched level's function; see `fused::isa`).
    #[inline(always)]
    pub fn new(id: V::Elem, v: VC, lanes: VR, s: SC) -> Self {
        Combine { id, v, lanes, s }
    }
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
    // SAFETY: `Here` needs no instruction beyond the build's.
    unsafe { reduce_rows_on::<Here, V>(out, row, per_task, init, c, f) }
}

/// [`reduce_rows`] with each task (and each leaf of a long row) run inside level `L`.
///
/// # Safety
/// As [`Level::run`].
#[inline(always)]
pub(super) unsafe fn reduce_rows_on<L: Level, V: VFloat<Elem: Split>>(
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
                // SAFETY: forwarded from the caller.
                unsafe {
                    L::run(
                        #[inline(always)]
                        || {
                            fold_range(
                                i * ROW_LEAF,
                                len,
                                &c,
                                #[inline(always)]
                                |j| both(f(g, j)),
                                None,
                            )
                        },
                    )
                }
            };
            *o = c.s(init, Split::tree(n, &leaf, &|a, b| c.s(a, b)));
        }
        return;
    }
    let task = |first: usize, blk: &mut [V::Elem]| {
        // SAFETY: forwarded from the caller.
        unsafe {
            L::run(
                #[inline(always)]
                || {
                    for (r, o) in blk.iter_mut().enumerate() {
                        let fold = fold_range(
                            0,
                            row,
                            &c,
                            #[inline(always)]
                            |j| both(f(first + r, j)),
                            None,
                        );
                        *o = c.s(init, fold);
                    }
                },
            )
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
    // SAFETY: `Here` needs no instruction beyond the build's.
    unsafe { reduce_rows_storing_on::<Here, V>(out, store, row, per_task, init, c, f) }
}

/// [`reduce_rows_storing`] with each task run inside level `L`.
///
/// # Safety
/// As [`Level::run`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn reduce_rows_storing_on<L: Level, V: VFloat<Elem: Split>>(
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
        // SAFETY: forwarded from the caller.
        unsafe {
            L::run(
                #[inline(always)]
                || {
                    let rows = blk.iter_mut().zip(st.chunks_exact_mut(row));
                    for (r, (o, urow)) in rows.enumerate() {
                        let fold = fold_range(
                            0,
                            row,
                            &c,
                            #[inline(always)]
                            |j| f(first + r, j),
                            Some(urow),
                        );
                        *o = c.s(init, fold);
                    }
                },
            )
        }
    };
    // Not parallel: one call here, as Split::chunks2 would make.
    if parallel {
        Split::chunks2(out, per_task, store, per_task * row, true, &task)
    } else {
        task(0, out, store)
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
    // SAFETY: `Here` needs no instruction beyond the build's.
    unsafe { reduce_cols_on::<Here, V>(out, k, outer, inner, run, init, c, f) }
}

/// [`reduce_cols`] with each task run inside level `L`.
///
/// # Safety
/// As [`Level::run`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn reduce_cols_on<L: Level, V: VFloat<Elem: Split>>(
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
        // SAFETY: forwarded from the caller.
        unsafe {
            L::run(
                #[inline(always)]
                || column_task(first, blk, k, outer, inner, init, &c, &f),
            )
        }
    });
}

/// One task of [`reduce_cols`]: the outputs `blk`, `first` the number of its first.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn column_task<V: VFloat>(
    first: usize,
    blk: &mut [V::Elem],
    k: usize,
    outer: usize,
    inner: usize,
    init: V::Elem,
    c: &impl Reducer<V>,
    f: &impl Fn(usize, usize, usize, usize) -> V,
) {
    {
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
                    column_run(
                        seg,
                        j_start,
                        k,
                        c,
                        #[inline(always)]
                        |j| {
                            let (x0, x1) = (f(g, o, i, j), f(g, o, i + 1, j));
                            let (x2, x3) = (f(g, o, i + 2, j), f(g, o, i + 3, j));
                            c.v(c.v(x0, x1), c.v(x2, x3))
                        },
                    );
                }
                for i in (inner / 4) * 4..inner {
                    column_run(
                        seg,
                        j_start,
                        k,
                        c,
                        #[inline(always)]
                        |j| f(g, o, i, j),
                    );
                }
            }
            for x in seg.iter_mut() {
                *x = c.s(init, *x);
            }
            pos += len;
        }
    }
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
    for jb in 0..len / (4 * l) {
        for (u, acc_u) in acc.iter_mut().enumerate() {
            let j = jb * 4 * l + u * l;
            let (x, st) = f(a + j);
            put(&mut urow, j, st);
            *acc_u = c.v(*acc_u, x);
        }
    }
    for jv in (len / (4 * l)) * 4..len.div_ceil(l) {
        let (j, lo) = window(jv, l, len);
        let (x, st) = f(a + j);
        // A window's lanes before `lo` were stored and folded by the previous vector.
        put(&mut urow, j, st);
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

/// `x` stored at `urow[j..]` when there is a row to store into.
#[inline(always)]
fn put<V: VFloat>(urow: &mut Option<&mut [V::Elem]>, j: usize, x: V) {
    if let Some(u) = urow.as_deref_mut() {
        x.store(&mut u[j..]);
    }
}

/// A value that is both reduced and (where a store is asked for) stored.
#[inline(always)]
fn both<V: Copy>(x: V) -> (V, V) {
    (x, x)
}
