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
mod reduce;

pub use reduce::{
    reduce_cols, reduce_rows, reduce_rows_storing, Combine, Reducer, COL_RUN, ROW_LEAF,
};

use rayon::prelude::*;

use crate::par::{self, PAR_BLOCK_ELEMENTS, PAR_MIN_ELEMENTS};
use crate::simd::{window, VFloat};

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

#[cfg(test)]
mod tests;
