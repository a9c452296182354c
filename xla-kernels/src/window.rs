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
//!     the operand seen as `[outer, H, W, inner]`, planes split over rayon, each output row
//!     combined tap by tap over the output positions the tap reaches (SIMD across them, or
//!     across `inner` when it is contiguous);
//!   - anything else through [`visit`].
//!
//! Determinism: every output is one sequential fold whatever the thread count.
//!
//! SelectAndScatter (the max-pool gradient) shares the window and its pooling view
//! ([`select_and_scatter`]).

use crate::error::{element_count, KernelError};
use crate::par;
use crate::simd::{VFloat, F32V, F64V};

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

#[inline(always)]
fn simd_strided<V: VFloat>(op: Simd, acc: &mut [V::Elem], src: &[V::Elem], stride: usize) {
    let f = |a: V, x: V| match op {
        Simd::Add => a + x,
        Simd::Max => a.max_xla(x),
        Simd::Min => a.min_xla(x),
    };
    let n = acc.len();
    let mut i = 0;
    while i + V::LANES <= n {
        let x = if stride == 1 {
            V::load(&src[i..])
        } else {
            V::from_fn(|l| src[(i + l) * stride])
        };
        f(V::load(&acc[i..]), x).store(&mut acc[i..]);
        i += V::LANES;
    }
    if i < n {
        let a = V::load_partial(&acc[i..], acc[i]);
        let x = V::from_fn(|l| src[(i + l.min(n - 1 - i)) * stride]);
        f(a, x).store_partial(&mut acc[i..]);
    }
}

impl Lanewise<f32> for Simd {
    fn strided(&self, acc: &mut [f32], src: &[f32], stride: usize) {
        simd_strided::<F32V>(*self, acc, src, stride)
    }
}

impl Lanewise<f64> for Simd {
    fn strided(&self, acc: &mut [f64], src: &[f64], stride: usize) {
        simd_strided::<F64V>(*self, acc, src, stride)
    }
}

/// The operand as `[outer, H, W, inner]` with the window over H and W.
#[derive(Clone, Copy, Debug)]
struct Pool {
    inner: usize,
    /// (size, out size, window, stride, window dilation, low padding) of H and W.
    hw: [(usize, usize, usize, usize, usize, i64); 2],
}

/// The pooling view of `desc`, if its windowed dimensions are at most two adjacent ones
/// without base dilation.
fn pool_view(desc: &WindowDesc) -> Option<Pool> {
    let r = desc.operand.len();
    let windowed: Vec<usize> = (0..r).filter(|&d| !desc.plain(d)).collect();
    if windowed.iter().any(|&d| desc.base_dilations[d] != 1) {
        return None;
    }
    let (first, last) = match windowed.as_slice() {
        [] => (r, r),
        [a] => (*a, *a),
        [a, b] if *b == a + 1 => (*a, *b),
        _ => return None,
    };
    let dim = |d: usize| {
        (
            desc.operand[d],
            desc.out[d],
            desc.dimensions[d],
            desc.strides[d],
            desc.window_dilations[d],
            desc.padding_low[d],
        )
    };
    let unit = (1, 1, 1, 1, 1, 0);
    let (h, w) = match windowed.len() {
        0 => (unit, unit),
        1 => (unit, dim(first)),
        _ => (dim(first), dim(last)),
    };
    Some(Pool {
        inner: desc.operand[(last + 1).min(r)..].iter().product(),
        hw: [h, w],
    })
}

/// The output positions `lo..hi` whose tap `k` lands inside `0..n` along one dimension.
fn reach(n: usize, on: usize, k: usize, s: usize, dil: usize, pad: i64) -> (usize, usize) {
    // o * s + k * dil - pad in [0, n)  <=>  o in [ceil((pad - k dil) / s), floor((n - 1 + pad - k dil) / s)]
    let base = pad - (k * dil) as i64;
    let s = s as i64;
    let lo = if base <= 0 { 0 } else { (base + s - 1) / s };
    let top = n as i64 - 1 + base;
    let hi = if top < 0 { 0 } else { top / s + 1 };
    (
        lo.min(on as i64) as usize,
        (hi.min(on as i64) as usize).max(lo.min(on as i64) as usize),
    )
}

/// One plane `x: [H, W, inner]` into `out: [OH, OW, inner]`, outputs already holding init.
/// `buf` is the calling block's scratch for the phase-split path.
fn pool_plane<T: Copy, L: Lanewise<T>>(p: &Pool, x: &[T], out: &mut [T], f: &L, buf: &mut [T]) {
    if let Some(ring) = PhaseRing::new(p, buf) {
        return ring.plane(p, x, out, f);
    }
    let [(h, oh, kh, sh, dh, ph), (w, ow, kw, sw, dw, pw)] = p.hw;
    let c = p.inner;
    for r in 0..oh {
        let orow = &mut out[r * ow * c..][..ow * c];
        for i in 0..kh {
            let ih = (r * sh + i * dh) as i64 - ph;
            if ih < 0 || ih >= h as i64 {
                continue;
            }
            let irow = &x[ih as usize * w * c..][..w * c];
            for j in 0..kw {
                let (lo, hi) = reach(w, ow, j, sw, dw, pw);
                if lo >= hi {
                    continue;
                }
                let iw0 = (lo * sw + j * dw) as i64 - pw;
                let src = &irow[iw0 as usize * c..];
                if c == 1 {
                    f.strided(&mut orow[lo..hi], src, sw);
                } else {
                    for o in lo..hi {
                        let s = &src[(o - lo) * sw * c..][..c];
                        f.strided(&mut orow[o * c..][..c], s, 1);
                    }
                }
            }
        }
    }
}

/// Strides up to this many use the phase-split rows (below); larger ones read lane by lane.
const MAX_PHASES: usize = 4;
/// Elements of the phase-split rows' buffer (on each block's stack).
const PHASE_BUF: usize = 4096;
/// The most split rows kept at once (a window's rows span at most this many input rows).
const MAX_RING: usize = 16;

/// Input rows split into their W phases (`phase[q][i] = row[i * sw + q]`) for a W stride
/// `sw` in 2..=MAX_PHASES, so every tap reads its outputs' elements contiguously (whole
/// vectors) instead of lane by lane. The rows one output row reads lie within `span`
/// consecutive input rows, so row `ih` lives in slot `ih % span` and is split once per plane,
/// not once per output row that reads it. Same taps, same order as the strided loop.
struct PhaseRing<'b, T> {
    buf: &'b mut [T],
    span: usize,
    /// Length of one split row: `sw` phases of `ceil(w / sw)`.
    slot: usize,
}

impl<'b, T: Copy> PhaseRing<'b, T> {
    /// The ring for `p`, if it is a phase-split case and its rows fit in `buf`.
    fn new(p: &Pool, buf: &'b mut [T]) -> Option<Self> {
        let [(h, _, kh, _, dh, _), (w, _, _, sw, ..)] = p.hw;
        let span = ((kh - 1) * dh + 1).min(h);
        let slot = sw * w.div_ceil(sw);
        (p.inner == 1
            && (2..=MAX_PHASES).contains(&sw)
            && span <= MAX_RING
            && span * slot <= buf.len())
        .then_some(PhaseRing { buf, span, slot })
    }

    fn plane<L: Lanewise<T>>(self, p: &Pool, x: &[T], out: &mut [T], f: &L) {
        let [(h, oh, kh, sh, dh, ph), (w, ow, kw, sw, dw, pw)] = p.hw;
        let pwl = self.slot / sw;
        let mut held = [usize::MAX; MAX_RING];
        for r in 0..oh {
            let orow = &mut out[r * ow..][..ow];
            for i in 0..kh {
                let ih = (r * sh + i * dh) as i64 - ph;
                if ih < 0 || ih >= h as i64 {
                    continue;
                }
                let ih = ih as usize;
                let s = ih % self.span;
                let split = &mut self.buf[s * self.slot..][..self.slot];
                if held[s] != ih {
                    split_phases(&x[ih * w..][..w], split, sw, pwl);
                    held[s] = ih;
                }
                for j in 0..kw {
                    let (lo, hi) = reach(w, ow, j, sw, dw, pw);
                    if lo >= hi {
                        continue;
                    }
                    let iw0 = ((lo * sw + j * dw) as i64 - pw) as usize;
                    let src = &split[(iw0 % sw) * pwl + iw0 / sw..][..hi - lo];
                    f.strided(&mut orow[lo..hi], src, 1);
                }
            }
        }
    }
}

/// `dst[q * pwl + i] = row[i * sw + q]`.
fn split_phases<T: Copy>(row: &[T], dst: &mut [T], sw: usize, pwl: usize) {
    if sw == 2 {
        // The common stride, as pairs: a loop LLVM turns into vector shuffles.
        let (even, odd) = dst.split_at_mut(pwl);
        let pairs = row.chunks_exact(2);
        if let [last] = pairs.remainder() {
            even[pwl - 1] = *last;
        }
        for ((e, o), pair) in even.iter_mut().zip(odd.iter_mut()).zip(pairs) {
            *e = pair[0];
            *o = pair[1];
        }
        return;
    }
    for q in 0..sw {
        let d = &mut dst[q * pwl..][..pwl];
        for (i, v) in row[q..].iter().step_by(sw).enumerate() {
            d[i] = *v;
        }
    }
}

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
    out.fill(init);
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
            return Ok(());
        }
        par::rows(out, op, |first, block| {
            let mut buf = [init; PHASE_BUF];
            for (b, o) in block.chunks_mut(op).enumerate() {
                pool_plane(&p, &x[(first + b) * ip..][..ip], o, f, &mut buf);
            }
        });
        return Ok(());
    }
    let out_len = out.len();
    visit(desc, x.len(), out_len, |o, i| {
        f.strided(&mut out[o..o + 1], &x[i..], 1)
    })
}

mod cumulative;
mod select_scatter;
pub use cumulative::{cumulative_scan, ScanDims};
pub use select_scatter::select_and_scatter;

#[cfg(test)]
mod tests;
