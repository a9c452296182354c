//! The pooling path of ReduceWindow: the operand seen as `[outer, H, W, inner]` with the
//! window over H and W (NCHW, NHWC, 1-D), one plane at a time.
//!
//! Every output is still the sequential fold of its taps in row-major order; what changes is
//! how many outputs one pass touches:
//! - `inner == 1` (NCHW): an output row's *interior* (the outputs every W tap reaches) is
//!   folded with [`Lanewise::fold`]: each output vector is loaded once, combined with all of
//!   its taps in registers, and stored once. The few edge outputs go tap by tap over ranges.
//!   Input rows are read contiguously: as they are for W stride 1, split into their W phases
//!   (`PhaseRing`) for strides 2..=MAX_PHASES, lane by lane beyond.
//! - `inner > 1` (NHWC): each output's `inner` lanes folded over its taps with `fold`.

use super::Lanewise;
use super::WindowDesc;

/// The operand as `[outer, H, W, inner]` with the window over H and W.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pool {
    pub(super) inner: usize,
    /// (size, out size, window, stride, window dilation, low padding) of H and W.
    pub(super) hw: [(usize, usize, usize, usize, usize, i64); 2],
}

/// The pooling view of `desc`, if its windowed dimensions are at most two adjacent ones
/// without base dilation.
pub(super) fn pool_view(desc: &WindowDesc) -> Option<Pool> {
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

/// Strides up to this many use the phase-split rows; larger ones read lane by lane.
const MAX_PHASES: usize = 4;
/// Elements of the phase-split rows' buffer (on each block's stack).
pub(super) const PHASE_BUF: usize = 4096;
/// The most split rows kept at once (a window's rows span at most this many input rows).
const MAX_RING: usize = 16;
/// Taps handed to one [`Lanewise::fold`] call; a larger window folds them in groups, in order.
const MAX_FOLD: usize = 16;
/// Edge ranges up to this many outputs are folded output by output (longer ones tap by tap).
const SHORT_EDGE: usize = 8;
/// The most W taps whose ranges are kept per plane (wider windows take the strided loop).
const MAX_W_TAPS: usize = 64;

/// The input rows (along H) that output row `r` reads, in window order.
fn window_rows(p: &Pool, r: usize) -> impl Iterator<Item = usize> {
    let [(h, _, kh, sh, dh, ph), _] = p.hw;
    (0..kh).filter_map(move |i| {
        let ih = (r * sh + i * dh) as i64 - ph;
        (0..h as i64).contains(&ih).then_some(ih as usize)
    })
}

/// Sources handed to [`Lanewise::fold`] in groups of up to MAX_FOLD, in the order pushed.
struct Folds<'s, T> {
    srcs: [&'s [T]; MAX_FOLD],
    n: usize,
}

impl<'s, T> Folds<'s, T> {
    fn new() -> Self {
        Folds {
            srcs: [&[]; MAX_FOLD],
            n: 0,
        }
    }

    /// Adds `src` for `acc`; a full group is folded into `acc` now.
    fn push<L: Lanewise<T>>(&mut self, f: &L, acc: &mut [T], src: &'s [T]) {
        self.srcs[self.n] = src;
        self.n += 1;
        if self.n == MAX_FOLD {
            self.finish(f, acc);
        }
    }

    /// Folds the sources not folded yet into `acc`.
    fn finish<L: Lanewise<T>>(&mut self, f: &L, acc: &mut [T]) {
        f.fold(acc, &self.srcs[..self.n]);
        self.n = 0;
    }
}

/// One plane `x: [H, W, inner]` into `out: [OH, OW, inner]`, outputs already holding init.
/// `buf` is the calling block's scratch for the phase-split rows.
pub(super) fn pool_plane<T: Copy, L: Lanewise<T>>(
    p: &Pool,
    x: &[T],
    out: &mut [T],
    f: &L,
    buf: &mut [T],
) {
    let [_, (w, ow, kw, sw, dw, pw)] = p.hw;
    if p.inner > 1 {
        return plane_inner(p, x, out, f);
    }
    if kw <= MAX_W_TAPS {
        let taps = WTaps::new(w, ow, kw, sw, dw, pw);
        if sw == 1 {
            return plane_rows(p, &taps, x, out, f, None);
        }
        if let Some(ring) = PhaseRing::new(p, buf) {
            return plane_rows(p, &taps, x, out, f, Some(ring));
        }
    }
    plane_strided(p, x, out, f);
}

/// The W taps of a plane: where each reads in an input row (after the phase split) and which
/// outputs it reaches; `lo..hi` is the interior every tap reaches.
struct WTaps {
    n: usize,
    /// Index in the (split) row read by output 0, which may be negative when output 0 is not
    /// reached; output `o` reads `start + o`.
    start: [i64; MAX_W_TAPS],
    reach: [(usize, usize); MAX_W_TAPS],
    lo: usize,
    hi: usize,
    ow: usize,
}

impl WTaps {
    fn new(w: usize, ow: usize, kw: usize, sw: usize, dw: usize, pw: i64) -> Self {
        // A split row holds `sw` phases of `ceil(w / sw)`: element `e` at `(e % sw) * pwl + e / sw`.
        let pwl = w.div_ceil(sw) as i64;
        let mut t = WTaps {
            n: kw,
            start: [0; MAX_W_TAPS],
            reach: [(0, 0); MAX_W_TAPS],
            lo: 0,
            hi: ow,
            ow,
        };
        for j in 0..kw {
            // Output o reads element o * sw + off.
            let off = (j * dw) as i64 - pw;
            t.start[j] = off.rem_euclid(sw as i64) * pwl + off.div_euclid(sw as i64);
            t.reach[j] = reach(w, ow, j, sw, dw, pw);
            t.lo = t.lo.max(t.reach[j].0);
            t.hi = t.hi.min(t.reach[j].1);
        }
        t.hi = t.hi.max(t.lo);
        t
    }
}

/// `inner == 1`, input rows read as they are (W stride 1, no `ring`) or phase-split.
fn plane_rows<T: Copy, L: Lanewise<T>>(
    p: &Pool,
    taps: &WTaps,
    x: &[T],
    out: &mut [T],
    f: &L,
    mut ring: Option<PhaseRing<T>>,
) {
    let [(h, oh, kh, sh, dh, ph), (w, ..)] = p.hw;
    let ow = taps.ow;
    let mut ihs = [0usize; MAX_RING];
    for r in 0..oh {
        let orow = &mut out[r * ow..][..ow];
        let mut n = 0;
        // `window_rows` written out: through the iterator this loop (the NCHW hot path)
        // measured 15-25% slower with `pool_speed` on Zen 3.
        for i in 0..kh {
            let ih = (r * sh + i * dh) as i64 - ph;
            if (0..h as i64).contains(&ih) {
                ihs[n] = ih as usize;
                n += 1;
            }
        }
        let mut rows: [&[T]; MAX_RING] = [&[]; MAX_RING];
        match ring.as_mut() {
            Some(ring) => {
                for &ih in &ihs[..n] {
                    ring.load(x, ih);
                }
                for (row, &ih) in rows.iter_mut().zip(&ihs[..n]) {
                    *row = ring.row(ih);
                }
            }
            None => {
                for (row, &ih) in rows.iter_mut().zip(&ihs[..n]) {
                    *row = &x[ih * w..][..w];
                }
            }
        }
        fold_row(taps, orow, f, &rows[..n]);
    }
}

/// One output row from its input rows (in window order): the interior by `fold`, in groups
/// of MAX_FOLD taps, the edges tap by tap over their ranges.
fn fold_row<T: Copy, L: Lanewise<T>>(taps: &WTaps, orow: &mut [T], f: &L, rows: &[&[T]]) {
    let (lo, hi) = (taps.lo, taps.hi);
    if lo < hi {
        let acc = &mut orow[lo..hi];
        let mut folds = Folds::new();
        for row in rows {
            for &start in &taps.start[..taps.n] {
                folds.push(f, acc, &row[(start + lo as i64) as usize..][..hi - lo]);
            }
        }
        folds.finish(f, acc);
    }
    for (a, b) in [(0, lo), (hi, taps.ow)] {
        if b - a <= SHORT_EDGE {
            // A few outputs: each one's taps gathered and folded at once.
            for o in a..b {
                edge_output(taps, &mut orow[o..o + 1], o, f, rows);
            }
            continue;
        }
        for row in rows {
            for j in 0..taps.n {
                let (tlo, thi) = taps.reach[j];
                let (x, y) = (tlo.max(a), thi.min(b));
                if x < y {
                    let src = &row[(taps.start[j] + x as i64) as usize..];
                    f.strided(&mut orow[x..y], src, 1);
                }
            }
        }
    }
}

/// Output `o` of a row (`acc`), folded over the taps that reach it, in window order.
fn edge_output<T: Copy, L: Lanewise<T>>(
    taps: &WTaps,
    acc: &mut [T],
    o: usize,
    f: &L,
    rows: &[&[T]],
) {
    let mut folds = Folds::new();
    for row in rows {
        for j in 0..taps.n {
            let (tlo, thi) = taps.reach[j];
            if (tlo..thi).contains(&o) {
                folds.push(f, acc, &row[(taps.start[j] + o as i64) as usize..][..1]);
            }
        }
    }
    folds.finish(f, acc);
}

/// Input rows split into their W phases (`phase[q][i] = row[i * sw + q]`) for a W stride
/// `sw` in 2..=MAX_PHASES, so every tap reads its outputs' elements contiguously (whole
/// vectors) instead of lane by lane. The rows one output row reads lie within `span`
/// consecutive input rows, so row `ih` lives in slot `ih % span` and is split once per plane,
/// not once per output row that reads it.
struct PhaseRing<'b, T> {
    buf: &'b mut [T],
    span: usize,
    /// Length of one split row: `sw` phases of `ceil(w / sw)`.
    slot: usize,
    sw: usize,
    w: usize,
    held: [usize; MAX_RING],
}

impl<'b, T: Copy> PhaseRing<'b, T> {
    /// The ring for `p`, if it is a phase-split case and its rows fit in `buf`.
    fn new(p: &Pool, buf: &'b mut [T]) -> Option<Self> {
        let [(h, _, kh, _, dh, _), (w, _, _, sw, ..)] = p.hw;
        let span = ((kh - 1) * dh + 1).min(h);
        let slot = sw * w.div_ceil(sw);
        ((2..=MAX_PHASES).contains(&sw) && span <= MAX_RING && span * slot <= buf.len()).then_some(
            PhaseRing {
                buf,
                span,
                slot,
                sw,
                w,
                held: [usize::MAX; MAX_RING],
            },
        )
    }

    /// Splits row `ih` of `x` into its slot unless it is there already.
    fn load(&mut self, x: &[T], ih: usize) {
        let s = ih % self.span;
        if self.held[s] != ih {
            let split = &mut self.buf[s * self.slot..][..self.slot];
            split_phases(
                &x[ih * self.w..][..self.w],
                split,
                self.sw,
                self.slot / self.sw,
            );
            self.held[s] = ih;
        }
    }

    /// Split row `ih` (loaded).
    fn row(&self, ih: usize) -> &[T] {
        &self.buf[ih % self.span * self.slot..][..self.slot]
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

/// `inner == 1` with a W stride beyond MAX_PHASES (or rows too long for the ring): each tap
/// over the output positions it reaches, read lane by lane.
fn plane_strided<T: Copy, L: Lanewise<T>>(p: &Pool, x: &[T], out: &mut [T], f: &L) {
    let [(_, oh, ..), (w, ow, kw, sw, dw, pw)] = p.hw;
    for r in 0..oh {
        let orow = &mut out[r * ow..][..ow];
        for ih in window_rows(p, r) {
            let irow = &x[ih * w..][..w];
            for j in 0..kw {
                let (lo, hi) = reach(w, ow, j, sw, dw, pw);
                if lo < hi {
                    let iw0 = (lo * sw + j * dw) as i64 - pw;
                    f.strided(&mut orow[lo..hi], &irow[iw0 as usize..], sw);
                }
            }
        }
    }
}

/// `inner > 1`: each output's `inner` contiguous lanes folded over its taps in order.
fn plane_inner<T: Copy, L: Lanewise<T>>(p: &Pool, x: &[T], out: &mut [T], f: &L) {
    let [(_, oh, ..), (w, ow, kw, sw, dw, pw)] = p.hw;
    let c = p.inner;
    let mut folds = Folds::new();
    for r in 0..oh {
        for o in 0..ow {
            let acc = &mut out[(r * ow + o) * c..][..c];
            for ih in window_rows(p, r) {
                for j in 0..kw {
                    let iw = (o * sw + j * dw) as i64 - pw;
                    if (0..w as i64).contains(&iw) {
                        folds.push(f, acc, &x[(ih * w + iw as usize) * c..][..c]);
                    }
                }
            }
            folds.finish(f, acc);
        }
    }
}
