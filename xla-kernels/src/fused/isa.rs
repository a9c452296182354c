//! The elementwise and reduction drivers with the instruction set chosen at run time, for
//! generated loops whose vector code is worth it (transcendental functions from 4K elements,
//! any elementwise loop and max / min reductions from 64K; the macro decides, `xla-macros`'
//! `codegen_loops::worth_isa_dispatch` and `worth_reduce_dispatch`).
//!
//! A default x86-64 build compiles `wide`'s vectors for SSE2 (see [`crate::cpu`]). These
//! drivers take the loop body three times, written over three vector types: the build's own
//! (`F32V` / `F64V`), and [`crate::simd::Lanes`] of one AVX2 and of one AVX-512 register. The
//! [`crate::cpu::level`] of the process picks one (a build with AVX-512F keeps its own vectors
//! at that level: [`pick_vectors`]); the chosen body runs inside a function
//! compiled with that level's `#[target_feature]`, into which the body is inlined before LLVM
//! vectorizes it. Blocks, windows and the order of every operation are those of the plain
//! drivers ([`super::map_flat`], ...), so results do not depend on the thread count; between
//! levels they may differ where the wider levels fuse multiply-adds (`Lanes::mul_add`), and a
//! row reduction's sum in the order of its level's lanes.
//!
//! The reduction drivers ([`reduce_rows`], [`reduce_rows_storing`], [`reduce_cols`]) take a
//! reducer per level as well. The generated code calls all of these through
//! [`crate::__isa_map`], which writes the three closures from one body, and only in builds
//! without AVX-512F (with it, `F32V` already is the widest vector and the plain driver runs).

use super::{Level, Reducer, Split};
use crate::cpu::{level, IsaLevel};
use crate::simd::VFloat;

/// The level a dispatched loop runs at.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pick {
    /// The build's own vectors (`F32V` / `F64V`).
    Build,
    /// 256-bit vectors with AVX2 + FMA.
    Avx2,
    /// 512-bit vectors with AVX-512F.
    Avx512,
}

/// Which body a dispatched loop runs here: [`crate::cpu::level`] mapped to [`Pick`] (always
/// `Build` off x86-64).
pub fn pick() -> Pick {
    if !cfg!(target_arch = "x86_64") {
        return Pick::Build;
    }
    match level() {
        IsaLevel::Baseline => Pick::Build,
        IsaLevel::Avx2 => Pick::Avx2,
        IsaLevel::Avx512 | IsaLevel::Amx => Pick::Avx512,
    }
}

/// The body the drivers below run: [`pick`], except that a build with AVX-512F runs its own
/// vectors at the AVX-512 level. There `F32V` / `F64V` are `wide`'s 512-bit types, whose
/// operations are AVX-512 instructions, while the [`crate::simd::Lanes`] loops are left to
/// LLVM's vectorizer, which the CPU tuning of such a build (`-C target-cpu=native` on Ice Lake
/// or Sapphire Rapids: "prefer 256-bit vectors") turns into pairs of 256-bit instructions: the
/// row sum of `xla_kernels::reduce` over `f32[4096,4096]` took 1.40 ms in a native build on the
/// AVX-512 Xeon, the generated one on `wide` 1.24-1.26 ms. The same bits: with FMA in the
/// build, `wide` fuses its multiply-adds as `Lanes` does, on as many lanes.
pub fn pick_vectors() -> Pick {
    match pick() {
        Pick::Avx512 if cfg!(target_feature = "avx512f") => Pick::Build,
        p => p,
    }
}

/// AVX2 + FMA.
struct OnAvx2;
/// AVX-512F (with AVX2 + FMA).
struct OnAvx512;

#[cfg(target_arch = "x86_64")]
impl Level for OnAvx2 {
    #[inline(always)]
    unsafe fn run<R>(g: impl FnOnce() -> R) -> R {
        // SAFETY: the caller checked AVX2 and FMA (`pick`).
        unsafe { crate::cpu::run_avx2(g) }
    }
}

#[cfg(target_arch = "x86_64")]
impl Level for OnAvx512 {
    #[inline(always)]
    unsafe fn run<R>(g: impl FnOnce() -> R) -> R {
        // SAFETY: the caller checked AVX-512F, AVX2 and FMA (`pick`).
        unsafe { crate::cpu::run_avx512(g) }
    }
}

/// Off x86-64 [`pick`] never chooses these; they run the body as it is.
#[cfg(not(target_arch = "x86_64"))]
impl Level for OnAvx2 {
    #[inline(always)]
    unsafe fn run<R>(g: impl FnOnce() -> R) -> R {
        g()
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Level for OnAvx512 {
    #[inline(always)]
    unsafe fn run<R>(g: impl FnOnce() -> R) -> R {
        g()
    }
}

/// `b(s)` with the build's vectors, or `f2(s)` inside an AVX2 + FMA function, or `f5(s)` inside
/// an AVX-512 one, as [`pick_vectors`] chooses: for library kernels whose vector code is
/// generic over [`VFloat`] (pooling); `s` is what the three would otherwise each borrow. Pass
/// `#[inline(always)]` closures, so the vector code is compiled inside the level's function
/// (see [`crate::simd::Lanes`]).
#[inline(always)]
pub(crate) fn run_at_level<S, R>(
    s: S,
    b: impl FnOnce(S) -> R,
    f2: impl FnOnce(S) -> R,
    f5: impl FnOnce(S) -> R,
) -> R {
    match pick_vectors() {
        Pick::Build => b(s),
        // SAFETY: `pick` checked the level's features.
        Pick::Avx2 => unsafe {
            OnAvx2::run(
                #[inline(always)]
                || f2(s),
            )
        },
        // SAFETY: as above.
        Pick::Avx512 => unsafe {
            OnAvx512::run(
                #[inline(always)]
                || f5(s),
            )
        },
    }
}

/// `g()` compiled for the build, inside an AVX2 + FMA function and inside an AVX-512 one, run
/// as [`pick_vectors`] chooses: for kernels of plain lane loops that LLVM vectorizes at the
/// width of the function they are inlined into (rng's ciphers, select-and-scatter). Pass an
/// `#[inline(always)]` closure whose callees are all inlined.
#[inline(always)]
pub(crate) fn run_widest<R>(g: impl FnOnce() -> R) -> R {
    run_at_level(
        g,
        #[inline(always)]
        |g| g(),
        #[inline(always)]
        |g| g(),
        #[inline(always)]
        |g| g(),
    )
}

/// [`super::map_flat`] with the body for the level [`pick_vectors`] chooses.
#[inline(always)]
pub fn map_flat<T: Split, V: VFloat<Elem = T>, V2: VFloat<Elem = T>, V5: VFloat<Elem = T>>(
    out: &mut [T],
    f: impl Fn(usize) -> V + Sync + Send,
    f2: impl Fn(usize) -> V2 + Sync + Send,
    f5: impl Fn(usize) -> V5 + Sync + Send,
) {
    match pick_vectors() {
        Pick::Build => super::map_flat(out, f),
        // SAFETY: `pick` checked the level's features.
        Pick::Avx2 => unsafe { super::map_flat_on::<OnAvx2, _>(out, f2) },
        // SAFETY: as above.
        Pick::Avx512 => unsafe { super::map_flat_on::<OnAvx512, _>(out, f5) },
    }
}

/// [`super::map_flat_in_place`] with the body for the level [`pick_vectors`] chooses.
#[inline(always)]
pub fn map_flat_in_place<
    T: Split,
    V: VFloat<Elem = T>,
    V2: VFloat<Elem = T>,
    V5: VFloat<Elem = T>,
>(
    out: &mut [T],
    f: impl Fn(usize, V) -> V + Sync + Send,
    f2: impl Fn(usize, V2) -> V2 + Sync + Send,
    f5: impl Fn(usize, V5) -> V5 + Sync + Send,
) {
    match pick_vectors() {
        Pick::Build => super::map_flat_in_place(out, f),
        // SAFETY: `pick` checked the level's features.
        Pick::Avx2 => unsafe { super::map_flat_in_place_on::<OnAvx2, _>(out, f2) },
        // SAFETY: as above.
        Pick::Avx512 => unsafe { super::map_flat_in_place_on::<OnAvx512, _>(out, f5) },
    }
}

/// [`super::map_rows`] with the body for the level [`pick_vectors`] chooses.
#[inline(always)]
pub fn map_rows<T: Split, V: VFloat<Elem = T>, V2: VFloat<Elem = T>, V5: VFloat<Elem = T>>(
    out: &mut [T],
    row: usize,
    f: impl Fn(usize, usize) -> V + Sync + Send,
    f2: impl Fn(usize, usize) -> V2 + Sync + Send,
    f5: impl Fn(usize, usize) -> V5 + Sync + Send,
) {
    match pick_vectors() {
        Pick::Build => super::map_rows(out, row, f),
        // SAFETY: `pick` checked the level's features.
        Pick::Avx2 => unsafe { super::map_rows_on::<OnAvx2, _>(out, row, f2) },
        // SAFETY: as above.
        Pick::Avx512 => unsafe { super::map_rows_on::<OnAvx512, _>(out, row, f5) },
    }
}

/// [`super::map_rows_in_place`] with the body for the level [`pick_vectors`] chooses.
#[inline(always)]
pub fn map_rows_in_place<
    T: Split,
    V: VFloat<Elem = T>,
    V2: VFloat<Elem = T>,
    V5: VFloat<Elem = T>,
>(
    out: &mut [T],
    row: usize,
    f: impl Fn(usize, usize, V) -> V + Sync + Send,
    f2: impl Fn(usize, usize, V2) -> V2 + Sync + Send,
    f5: impl Fn(usize, usize, V5) -> V5 + Sync + Send,
) {
    match pick_vectors() {
        Pick::Build => super::map_rows_in_place(out, row, f),
        // SAFETY: `pick` checked the level's features.
        Pick::Avx2 => unsafe { super::map_rows_in_place_on::<OnAvx2, _>(out, row, f2) },
        // SAFETY: as above.
        Pick::Avx512 => unsafe { super::map_rows_in_place_on::<OnAvx512, _>(out, row, f5) },
    }
}

/// [`super::reduce_rows`] with the reducer and body for the level [`pick_vectors`] chooses. Each
/// level's vectors hold a different number of lanes, so the order of a sum's additions (lanes
/// per accumulator) differs between levels; within one level it depends on sizes only.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn reduce_rows<T: Split, V: VFloat<Elem = T>, V2: VFloat<Elem = T>, V5: VFloat<Elem = T>>(
    out: &mut [T],
    row: usize,
    per_task: usize,
    init: T,
    c: impl Reducer<V>,
    f: impl Fn(usize, usize) -> V + Sync + Send,
    c2: impl Reducer<V2>,
    f2: impl Fn(usize, usize) -> V2 + Sync + Send,
    c5: impl Reducer<V5>,
    f5: impl Fn(usize, usize) -> V5 + Sync + Send,
) {
    use super::reduce::reduce_rows_on as on;
    match pick_vectors() {
        Pick::Build => super::reduce_rows(out, row, per_task, init, c, f),
        // SAFETY: `pick` checked the level's features.
        Pick::Avx2 => unsafe { on::<OnAvx2, _>(out, row, per_task, init, c2, f2) },
        // SAFETY: as above.
        Pick::Avx512 => unsafe { on::<OnAvx512, _>(out, row, per_task, init, c5, f5) },
    }
}

/// [`super::reduce_rows_storing`] with the reducer and body for the level [`pick_vectors`] chooses
/// (sums in a level's own order, as [`reduce_rows`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn reduce_rows_storing<
    T: Split,
    V: VFloat<Elem = T>,
    V2: VFloat<Elem = T>,
    V5: VFloat<Elem = T>,
>(
    out: &mut [T],
    store: &mut [T],
    row: usize,
    per_task: usize,
    init: T,
    c: impl Reducer<V>,
    f: impl Fn(usize, usize) -> (V, V) + Sync + Send,
    c2: impl Reducer<V2>,
    f2: impl Fn(usize, usize) -> (V2, V2) + Sync + Send,
    c5: impl Reducer<V5>,
    f5: impl Fn(usize, usize) -> (V5, V5) + Sync + Send,
) {
    use super::reduce::reduce_rows_storing_on as on;
    match pick_vectors() {
        Pick::Build => super::reduce_rows_storing(out, store, row, per_task, init, c, f),
        // SAFETY: `pick` checked the level's features.
        Pick::Avx2 => unsafe { on::<OnAvx2, _>(out, store, row, per_task, init, c2, f2) },
        // SAFETY: as above.
        Pick::Avx512 => unsafe { on::<OnAvx512, _>(out, store, row, per_task, init, c5, f5) },
    }
}

/// [`super::reduce_cols`] with the reducer and body for the level [`pick_vectors`] chooses. Every
/// output folds its own elements in the same order at every level (lanes are outputs here).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn reduce_cols<T: Split, V: VFloat<Elem = T>, V2: VFloat<Elem = T>, V5: VFloat<Elem = T>>(
    out: &mut [T],
    k: usize,
    outer: usize,
    inner: usize,
    run: usize,
    init: T,
    c: impl Reducer<V>,
    f: impl Fn(usize, usize, usize, usize) -> V + Sync + Send,
    c2: impl Reducer<V2>,
    f2: impl Fn(usize, usize, usize, usize) -> V2 + Sync + Send,
    c5: impl Reducer<V5>,
    f5: impl Fn(usize, usize, usize, usize) -> V5 + Sync + Send,
) {
    use super::reduce::reduce_cols_on as on;
    match pick_vectors() {
        Pick::Build => super::reduce_cols(out, k, outer, inner, run, init, c, f),
        // SAFETY: `pick` checked the level's features.
        Pick::Avx2 => unsafe { on::<OnAvx2, _>(out, k, outer, inner, run, init, c2, f2) },
        // SAFETY: as above.
        Pick::Avx512 => unsafe { on::<OnAvx512, _>(out, k, outer, inner, run, init, c5, f5) },
    }
}

/// The call the generated code makes for a dispatched loop: `__isa_map!(driver, [V = Build,
/// Avx2, Avx512], (out, args..), |params| -> R { body })` expands to
/// `fused::isa::driver(out, args.., closure over Build, over Avx2, over Avx512)`, each closure
/// the same `body` with the type alias `V` naming its vector type; in a build with AVX-512F, to
/// the plain driver with the build's vectors alone. With `per_level(a..)` after the arguments
/// (a reduction's [`super::Combine`]), each closure is preceded by the expressions `a..`
/// written over that level's `V` too.
#[macro_export]
#[doc(hidden)]
macro_rules! __isa_map {
    ($driver:ident, [$v:ident = $base:ty, $t2:ty, $t5:ty], ($($arg:expr),*),
     |$($p:ident),*| -> $r:ty { $($body:tt)* }) => {
        $crate::__isa_map!(
            $driver, [$v = $base, $t2, $t5], ($($arg),*), per_level(), |$($p),*| -> $r { $($body)* }
        )
    };
    ($driver:ident, [$v:ident = $base:ty, $t2:ty, $t5:ty], ($($arg:expr),*),
     per_level($($la:expr),*), |$($p:ident),*| -> $r:ty { $($body:tt)* }) => {{
        #[cfg(target_feature = "avx512f")]
        {
            type $v = $base;
            $crate::fused::$driver::<$v>($($arg,)* $($la,)* |$($p),*| -> $r { $($body)* });
        }
        #[cfg(not(target_feature = "avx512f"))]
        {
            $crate::fused::isa::$driver(
                $($arg,)*
                $({ type $v = $base; $la },)*
                { type $v = $base; |$($p),*| -> $r { $($body)* } },
                // Inlined into the level's `#[target_feature]` function whatever its size, so
                // LLVM vectorizes it there, at that level's width.
                $({ type $v = $t2; $la },)*
                { type $v = $t2; #[inline(always)] |$($p),*| -> $r { $($body)* } },
                $({ type $v = $t5; $la },)*
                { type $v = $t5; #[inline(always)] |$($p),*| -> $r { $($body)* } },
            );
        }
    }};
}

/// Test helper: `out[i] = e(a, b)` with `a`, `b` the vectors at `xs[i..]`, `ys[i..]`, computed
/// by [`map_flat`] with the body for the running level (`[Build, Avx2, Avx512]` the three
/// vector types): what a dispatched generated loop runs.
#[cfg(test)]
macro_rules! at_level {
    ([$b:ty, $t2:ty, $t5:ty], $xs:expr, $ys:expr, |$a:ident, $c:ident| $e:expr) => {{
        use $crate::simd::VFloat;
        let (xs, ys) = ($xs, $ys);
        assert_eq!(xs.len(), ys.len());
        let mut out = xs.to_vec();
        $crate::fused::isa::map_flat(
            &mut out,
            |g| {
                let ($a, $c) = (
                    <$b as VFloat>::load(&xs[g..]),
                    <$b as VFloat>::load(&ys[g..]),
                );
                $e
            },
            |g| {
                let ($a, $c) = (
                    <$t2 as VFloat>::load(&xs[g..]),
                    <$t2 as VFloat>::load(&ys[g..]),
                );
                $e
            },
            |g| {
                let ($a, $c) = (
                    <$t5 as VFloat>::load(&xs[g..]),
                    <$t5 as VFloat>::load(&ys[g..]),
                );
                $e
            },
        );
        out
    }};
}
#[cfg(test)]
pub(crate) use at_level;
