//! SelectAndScatter: the output starts at `init`; for each window position `o` (row-major) the
//! kept element is the first tap on an operand element, replaced by each later tap `t`
//! (row-major) with `!select(x[kept], x[t])`; then `out[kept] = scatter(out[kept], source[o])`.
//! A window wholly on padding scatters nothing (XLA's evaluator and XLA:CPU's emitter).
//!
//! Paths: a pooling window (at most two adjacent windowed dimensions, the operand seen as
//! `[outer, H, W, inner]`) runs plane by plane on rayon, each plane's windows in row-major
//! order, with the taps' offsets computed directly; any other window runs through
//! [`visit`](super::visit) on the calling thread. Both apply the same sequence of `scatter`s to
//! every output element, so the bits do not depend on the path or the thread count. With
//! `select = |a, b| a >= b` and `scatter = |a, b| a + b` this is the max-pool gradient.

use super::{pool_view, visit, Pool, WindowDesc};
use crate::error::KernelError;
use crate::fused::isa::run_widest;
use crate::par;

/// `out = SelectAndScatter(x, select, desc, source, init, scatter)`; `desc.out` holds the
/// source's dimensions (the window positions) and `out` the operand's element count.
pub fn select_and_scatter<T, S, F>(
    desc: &WindowDesc,
    x: &[T],
    source: &[T],
    init: T,
    out: &mut [T],
    select: S,
    scatter: F,
) -> Result<(), KernelError>
where
    T: Copy + Send + Sync,
    S: Fn(T, T) -> bool + Sync,
    F: Fn(T, T) -> T + Sync,
{
    desc.check(x.len(), source.len())?;
    KernelError::check_len("select_and_scatter", "output", x.len(), out.len())?;
    if out.is_empty() || source.is_empty() {
        out.fill(init);
        return Ok(());
    }
    if let Some(p) = pool_view(desc).filter(|_| desc.base_dilations.iter().all(|&b| b == 1)) {
        let [(h, oh, ..), (w, ow, ..)] = p.hw;
        let (ip, sp) = (h * w * p.inner, oh * ow * p.inner);
        par::rows(out, ip, |first, block| {
            // Compiled three times and run at the CPU's level: the scalar window loop (with
            // the caller's select and scatter inlined) gains from the wider ISA's compares and
            // blends in a default build (MaxPool grad f32[8,64,112,112]: 34 -> 24 ms).
            run_widest(
                #[inline(always)]
                || {
                    for (b, o) in block.chunks_mut(ip).enumerate() {
                        let plane = first + b;
                        let (xs, ss) = (&x[plane * ip..][..ip], &source[plane * sp..][..sp]);
                        plane_select_scatter(&p, xs, ss, init, o, &select, &scatter);
                    }
                },
            )
        });
        return Ok(());
    }
    out.fill(init);
    let mut kept: Option<(usize, usize)> = None;
    visit(desc, x.len(), source.len(), |o, i| match kept {
        Some((ko, k)) if ko == o => {
            if !select(x[k], x[i]) {
                kept = Some((o, i));
            }
        }
        _ => {
            if let Some((ko, k)) = kept {
                out[k] = scatter(out[k], source[ko]);
            }
            kept = Some((o, i));
        }
    })?;
    if let Some((ko, k)) = kept {
        out[k] = scatter(out[k], source[ko]);
    }
    Ok(())
}

/// The taps `lo..hi` of a window starting at `start` (size `k`, dilation `d`) that land in
/// `0..n`: `start + t * d` in range.
#[inline(always)]
fn tap_range(start: i64, k: usize, d: usize, n: usize) -> (usize, usize) {
    let d = d as i64;
    let lo = if start < 0 { (-start + d - 1) / d } else { 0 };
    let top = n as i64 - 1 - start;
    let hi = if top < 0 { 0 } else { top / d + 1 };
    let hi = hi.min(k as i64);
    (lo.min(hi) as usize, hi as usize)
}

/// One plane: `x` and `out` are `[H, W, inner]`, `source` is `[OH, OW, inner]`; `out` is
/// filled with `init` first (here, so the fill runs on the plane's thread). The kept value
/// stays in a register; the first tap is compared with itself, which keeps it whatever
/// `select` says (it is the same index).
#[inline(always)]
fn plane_select_scatter<T: Copy>(
    p: &Pool,
    x: &[T],
    source: &[T],
    init: T,
    out: &mut [T],
    select: &impl Fn(T, T) -> bool,
    scatter: &impl Fn(T, T) -> T,
) {
    out.fill(init);
    let [(h, oh, kh, sh, dh, ph), (w, ow, kw, sw, dw, pw)] = p.hw;
    let c = p.inner;
    for r in 0..oh {
        let i0 = (r * sh) as i64 - ph;
        let (alo, ahi) = tap_range(i0, kh, dh, h);
        for q in 0..ow {
            let j0 = (q * sw) as i64 - pw;
            let (blo, bhi) = tap_range(j0, kw, dw, w);
            if alo >= ahi || blo >= bhi {
                continue;
            }
            // Operand offsets of tap (a, b), lane 0.
            let at = |a: usize, b: usize| {
                (((i0 + (a * dh) as i64) as usize) * w + (j0 + (b * dw) as i64) as usize) * c
            };
            for lane in 0..c {
                let mut kept = at(alo, blo) + lane;
                let mut xk = x[kept];
                for a in alo..ahi {
                    for b in blo..bhi {
                        let t = at(a, b) + lane;
                        let xt = x[t];
                        if !select(xk, xt) {
                            kept = t;
                            xk = xt;
                        }
                    }
                }
                let o = (r * ow + q) * c + lane;
                out[kept] = scatter(out[kept], source[o]);
            }
        }
    }
}
