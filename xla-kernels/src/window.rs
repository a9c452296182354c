//! ReduceWindow: `out[o] = f(..f(f(init, x[t0]), x[t1])..)` over the taps `t` of window `o`
//! that land on operand elements, taps in row-major order, padding and dilation holes skipped
//! (XLA:CPU's order, so every path gives the evaluator's bits).
//!
//! Paths, chosen from the descriptor at run time:
//! - [`visit`]: any window, any computation (variadic too): calls `step(out, in)` per tap,
//!   outputs row-major, on the calling thread; the caller fills the outputs with the inits and
//!   combines (generated code inlines the computation there).
//! - [`reduce_window`] with one operand and a [`Lanewise`] combiner:
//!   - a cumulative fold (window = the dimension's size `n`, stride 1, padding `(n - 1, 0)`,
//!     the lowering of `cumsum`): `out[i] = f(out[i - 1], x[i])`, linear, the same fold;
//!   - pooling (no base dilation, at most two adjacent dimensions windowed: NCHW, NHWC, 1-D):
//!     the operand seen as `[outer, H, W, inner]`, planes split over rayon, each output
//!     vector combined with all of its taps in registers ([`Lanewise::fold`]; SIMD across
//!     the output positions of a row, or across `inner` when it is contiguous), see `pool`;
//!   - anything else through [`visit`].
//!
//! Determinism: every output is one sequential fold whatever the thread count.
//!
//! SelectAndScatter (the max-pool gradient) shares the window and its pooling view
//! ([`select_and_scatter`]).

use crate::error::{element_count, KernelError};
use crate::fused::isa::run_at_level;
use crate::par;
use crate::simd::{VFloat, F32V, F64V, L16F32, L4F64, L8F32, L8F64};

const OP: &str = "reduce_window";

/// A window over a row-major operand, one entry per dimension.
#[derive(Clone, Copy, Debug)]
pub struct WindowDesc<'a> {
    /// Operand dimensions.
    pub operand: &'a [usize],
    /// Output dimensions (the window positions).
    pub out: &'a [usize],
    /// Window size per dimension.
    pub dimensions: &'a [usize],
    /// Step between window positions.
    pub strides: &'a [usize],
    /// Low padding (negative: cut) of the base-dilated operand.
    pub padding_low: &'a [i64],
    /// `d - 1` holes between operand elements.
    pub base_dilations: &'a [usize],
    /// `d - 1` holes between window taps.
    pub window_dilations: &'a [usize],
}

impl WindowDesc<'_> {
    /// Every list of the operand's rank, every factor at least 1, the buffers' lengths right.
    fn check(&self, in_len: usize, out_len: usize) -> Result<(), KernelError> {
        let r = self.operand.len();
        let lists = [
            self.out,
            self.dimensions,
            self.strides,
            self.base_dilations,
            self.window_dilations,
        ];
        if lists.iter().any(|l| l.len() != r) || self.padding_low.len() != r {
            return Err(KernelError::invalid(
                OP,
                format!("{self:?}: lists of unequal rank"),
            ));
        }
        if lists[1..].iter().any(|l| l.contains(&0)) {
            return Err(KernelError::invalid(
                OP,
                format!("{self:?}: a zero size or factor"),
            ));
        }
        KernelError::check_len(OP, "input", element_count(OP, self.operand)?, in_len)?;
        KernelError::check_len(OP, "output", element_count(OP, self.out)?, out_len)
    }

    /// Operand coordinate of tap `k` of window position `o` along `d`, if on an element.
    #[inline]
    fn coord(&self, d: usize, o: usize, k: usize) -> Option<usize> {
        let p = (o * self.strides[d] + k * self.window_dilations[d]) as i64 - self.padding_low[d];
        let b = self.base_dilations[d] as i64;
        (p >= 0 && p % b == 0 && ((p / b) as usize) < self.operand[d]).then_some((p / b) as usize)
    }

    /// True for a dimension the window does not touch (size 1, stride 1, no padding).
    fn plain(&self, d: usize) -> bool {
        self.dimensions[d] == 1
            && self.strides[d] == 1
            && self.padding_low[d] == 0
            && self.base_dilations[d] == 1
            && self.out[d] == self.operand[d]
    }
}

/// Calls `step(out_offset, in_offset)` for every window position (row-major) and each of its
/// taps on an operand element (row-major): any computation's order.
pub fn visit(
    desc: &WindowDesc,
    in_len: usize,
    out_len: usize,
    mut step: impl FnMut(usize, usize),
) -> Result<(), KernelError> {
    desc.check(in_len, out_len)?;
    let r = desc.operand.len();
    let mut istr = vec![1usize; r];
    for d in (0..r.saturating_sub(1)).rev() {
        istr[d] = istr[d + 1] * desc.operand[d + 1];
    }
    let (mut o, mut k) = (vec![0usize; r], vec![0usize; r]);
    let taps: usize = desc.dimensions.iter().product();
    for out in 0..out_len {
        k.iter_mut().for_each(|x| *x = 0);
        'tap: for _ in 0..taps {
            let mut off = 0;
            let mut ok = true;
            for d in 0..r {
                match desc.coord(d, o[d], k[d]) {
                    Some(c) => off += c * istr[d],
                    None => ok = false,
                }
            }
            if ok {
                step(out, off);
            }
            for d in (0..r).rev() {
                k[d] += 1;
                if k[d] < desc.dimensions[d] {
                    continue 'tap;
                }
                k[d] = 0;
            }
        }
        for d in (0..r).rev() {
            o[d] += 1;
            if o[d] < desc.out[d] {
                break;
            }
            o[d] = 0;
        }
    }
    Ok(())
}

/// A combiner applied lane by lane: `acc[i] = f(acc[i], src(i))`.
pub trait Lanewise<T>: Sync {
    /// `acc[i] = f(acc[i], src[i * stride])` for `i < acc.len()`.
    fn strided(&self, acc: &mut [T], src: &[T], stride: usize);

    /// `acc[i] = f(..f(f(acc[i], srcs[0][i]), srcs[1][i]).., srcs[k - 1][i])` for
    /// `i < acc.len()`: the sources in order, each at least `acc.len()` long. The same bits
    /// as one [`strided`](Self::strided) per source; an implementation may keep `acc` in
    /// registers across the sources.
    fn fold(&self, acc: &mut [T], srcs: &[&[T]]) {
        for s in srcs {
            self.strided(acc, s, 1);
        }
    }
}

/// Any scalar computation `f(acc, x)` (generated code's inlined computation).
pub struct Scalar<F>(pub F);

impl<T: Copy, F: Fn(T, T) -> T + Sync> Lanewise<T> for Scalar<F> {
    #[inline]
    fn strided(&self, acc: &mut [T], src: &[T], stride: usize) {
        if stride == 1 {
            for (a, &x) in acc.iter_mut().zip(src) {
                *a = (self.0)(*a, x);
            }
        } else {
            for (i, a) in acc.iter_mut().enumerate() {
                *a = (self.0)(*a, src[i * stride]);
            }
        }
    }
}

/// XLA's add, max or min of f32/f64 on `wide` vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// `acc + x`.
    Add,
    /// `max(acc, x)`, NaN first.
    Max,
    /// `min(acc, x)`, NaN first.
    Min,
}

impl Simd {
    /// `f(a, x)` on vectors.
    #[inline(always)]
    fn apply<V: VFloat>(self, a: V, x: V) -> V {
        match self {
            Simd::Add => a + x,
            Simd::Max => a.max_xla(x),
            Simd::Min => a.min_xla(x),
        }
    }
}

#[inline(always)]
fn simd_strided<V: VFloat>(op: Simd, acc: &mut [V::Elem], src: &[V::Elem], stride: usize) {
    let n = acc.len();
    let mut i = 0;
    while i + V::LANES <= n {
        let x = if stride == 1 {
            V::load(&src[i..])
        } else {
            V::from_fn(|l| src[(i + l) * stride])
        };
        op.apply(V::load(&acc[i..]), x).store(&mut acc[i..]);
        i += V::LANES;
    }
    if i < n {
        let a = V::load_partial(&acc[i..], acc[i]);
        let x = V::from_fn(|l| src[(i + l.min(n - 1 - i)) * stride]);
        op.apply(a, x).store_partial(&mut acc[i..]);
    }
}

/// [`Lanewise::fold`] on vectors: `acc` loaded once per vector (four at a time), combined
/// with every source in order in registers, stored once. The last, possibly overlapping,
/// vector is computed first from the untouched `acc`, so lanes stored twice get the same
/// value (right for add too, which is not idempotent). Plain loops, no iterator adaptors or
/// closures: this runs inside the `#[target_feature]` functions of `run_at_level`, and a
/// helper LLVM chose not to inline would run its `Lanes` code without the wide vectors.
#[inline(always)]
fn simd_fold<V: VFloat>(op: Simd, acc: &mut [V::Elem], srcs: &[&[V::Elem]]) {
    let (n, l) = (acc.len(), V::LANES);
    if n < l {
        // Short rows (a pooled row's edges): element by element in lane 0, no masked loads.
        for (k, a) in acc.iter_mut().enumerate() {
            let mut v = V::splat(*a);
            for s in srcs {
                v = op.apply(v, V::splat(s[k]));
            }
            *a = v.lane(0);
        }
        return;
    }
    let last = fold_column(op, srcs, n - l, V::load(&acc[n - l..]));
    let mut i = 0;
    while i + 4 * l <= n {
        let a = &mut acc[i..i + 4 * l];
        let mut v = [
            V::load(a),
            V::load(&a[l..]),
            V::load(&a[2 * l..]),
            V::load(&a[3 * l..]),
        ];
        for s in srcs {
            let s = &s[i..i + 4 * l];
            for (k, v) in v.iter_mut().enumerate() {
                *v = op.apply(*v, V::load(&s[k * l..]));
            }
        }
        for (k, v) in v.into_iter().enumerate() {
            v.store(&mut a[k * l..]);
        }
        i += 4 * l;
    }
    while i + l <= n {
        fold_column(op, srcs, i, V::load(&acc[i..])).store(&mut acc[i..]);
        i += l;
    }
    last.store(&mut acc[n - l..]);
}

/// `a` combined with the vector at `i` of every source, in order.
#[inline(always)]
fn fold_column<V: VFloat>(op: Simd, srcs: &[&[V::Elem]], i: usize, mut a: V) -> V {
    for s in srcs {
        a = op.apply(a, V::load(&s[i..]));
    }
    a
}

// The vector width is chosen at run time (`fused::isa::run_at_level`): add, max and min are
// exact and each lane folds its sources in order, so every level gives the same bits.
// Measured (default build, Intel Xeon, `bash scripts/bench.sh programs MaxPool`): max-pool
// 3x3/2 of f32[8,64,112,112] 5.2 ms on SSE2 vectors, XLA 4.3 ms.
/// [`Lanewise`] of [`Simd`] over `$t`: the build's vectors `$b`, or [`crate::simd::Lanes`] of
/// `$v2` / `$v5` inside the AVX2 / AVX-512 functions of `run_at_level`.
macro_rules! lanewise_at_level {
    ($t:ty, $b:ty, $v2:ty, $v5:ty) => {
        impl Lanewise<$t> for Simd {
            fn strided(&self, acc: &mut [$t], src: &[$t], stride: usize) {
                run_at_level(
                    acc,
                    |acc| simd_strided::<$b>(*self, acc, src, stride),
                    #[inline(always)]
                    |acc| simd_strided::<$v2>(*self, acc, src, stride),
                    #[inline(always)]
                    |acc| simd_strided::<$v5>(*self, acc, src, stride),
                )
            }
            fn fold(&self, acc: &mut [$t], srcs: &[&[$t]]) {
                run_at_level(
                    acc,
                    |acc| simd_fold::<$b>(*self, acc, srcs),
                    #[inline(always)]
                    |acc| simd_fold::<$v2>(*self, acc, srcs),
                    #[inline(always)]
                    |acc| simd_fold::<$v5>(*self, acc, srcs),
                )
            }
        }
    };
}

lanewise_at_level!(f32, F32V, L8F32, L16F32);
lanewise_at_level!(f64, F64V, L4F64, L8F64);

/// True when `desc` is a cumulative fold along one dimension `d`: window = size, stride 1,
/// padding `(n - 1, 0)`, no dilation, the others untouched.
fn scan_dim(desc: &WindowDesc) -> Option<usize> {
    let r = desc.operand.len();
    let windowed: Vec<usize> = (0..r).filter(|&d| !desc.plain(d)).collect();
    let &[d] = windowed.as_slice() else {
        return None;
    };
    let n = desc.operand[d];
    (n > 1
        && desc.dimensions[d] == n
        && desc.strides[d] == 1
        && desc.padding_low[d] == n as i64 - 1
        && desc.out[d] == n
        && desc.base_dilations[d] == 1
        && desc.window_dilations[d] == 1)
        .then_some(d)
}

/// `ReduceWindow` of one operand by `f`: `out` gets `init` folded with each window's taps,
/// through the cumulative, pooling or visiting path (see the module docs).
pub fn reduce_window<T: Copy + Send + Sync, L: Lanewise<T>>(
    desc: &WindowDesc,
    x: &[T],
    init: T,
    out: &mut [T],
    f: &L,
) -> Result<(), KernelError> {
    desc.check(x.len(), out.len())?;
    if out.is_empty() {
        return Ok(());
    }
    if let Some(d) = scan_dim(desc) {
        let n = desc.operand[d];
        let inner: usize = desc.operand[d + 1..].iter().product();
        let plane = n * inner;
        par::rows(out, plane, |first, block| {
            for (b, o) in block.chunks_mut(plane).enumerate() {
                let xs = &x[(first + b) * plane..][..plane];
                o[..inner].fill(init);
                f.strided(&mut o[..inner], &xs[..inner], 1);
                for i in 1..n {
                    let (prev, cur) = o.split_at_mut(i * inner);
                    cur[..inner].copy_from_slice(&prev[(i - 1) * inner..]);
                    f.strided(&mut cur[..inner], &xs[i * inner..], 1);
                }
            }
        });
        return Ok(());
    }
    if let Some(p) = pool_view(desc) {
        let [(h, oh, ..), (w, ow, ..)] = p.hw;
        let (ip, op) = (h * w * p.inner, oh * ow * p.inner);
        if op == 0 || ip == 0 {
            out.fill(init);
            return Ok(());
        }
        // Each plane's outputs filled with init just before they are pooled (on the
        // plane's thread, while they are in cache), not in a pass of their own.
        par::rows(out, op, |first, block| {
            let mut buf = [init; PHASE_BUF];
            for (b, o) in block.chunks_mut(op).enumerate() {
                o.fill(init);
                pool_plane(&p, &x[(first + b) * ip..][..ip], o, f, &mut buf);
            }
        });
        return Ok(());
    }
    out.fill(init);
    let out_len = out.len();
    visit(desc, x.len(), out_len, |o, i| {
        f.strided(&mut out[o..o + 1], &x[i..], 1)
    })
}

mod cumulative;
mod pool;
mod select_scatter;
pub use cumulative::{cumulative_scan, ScanDims};
use pool::{pool_plane, pool_view, Pool, PHASE_BUF};
pub use select_scatter::select_and_scatter;

#[cfg(test)]
mod tests;
