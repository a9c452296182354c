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
    out.fill(init);
    if out.is_empty() || source.is_empty() {
        return Ok(());
    }
    if let Some(p) = pool_view(desc).filter(|_| desc.base_dilations.iter().all(|&b| b == 1)) {
        let [(h, oh, ..), (w, ow, ..)] = p.hw;
        let (ip, sp) = (h * w * p.inner, oh * ow * p.inner);
        par::rows(out, ip, |first, block| {
            for (b, o) in block.chunks_mut(ip).enumerate() {
                let plane = first + b;
                let (xs, ss) = (&x[plane * ip..][..ip], &source[plane * sp..][..sp]);
                plane_select_scatter(&p, xs, ss, o, &select, &scatter);
            }
        });
        return Ok(());
    }
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

/// One plane: `x` and `out` are `[H, W, inner]`, `source` is `[OH, OW, inner]`.
fn plane_select_scatter<T: Copy>(
    p: &Pool,
    x: &[T],
    source: &[T],
    out: &mut [T],
    select: &impl Fn(T, T) -> bool,
    scatter: &impl Fn(T, T) -> T,
) {
    let [(h, oh, kh, sh, dh, ph), (w, ow, kw, sw, dw, pw)] = p.hw;
    let c = p.inner;
    // The taps of one window along a dimension: the coordinates on the operand, in order.
    let taps = |o: usize, k: usize, s: usize, d: usize, pad: i64, n: usize| {
        (0..k).filter_map(move |t| {
            let i = (o * s + t * d) as i64 - pad;
            (i >= 0 && (i as usize) < n).then_some(i as usize)
        })
    };
    for r in 0..oh {
        for q in 0..ow {
            for lane in 0..c {
                let mut kept: Option<usize> = None;
                for i in taps(r, kh, sh, dh, ph, h) {
                    for j in taps(q, kw, sw, dw, pw, w) {
                        let t = (i * w + j) * c + lane;
                        kept = match kept {
                            Some(k) if select(x[k], x[t]) => Some(k),
                            _ => Some(t),
                        };
                    }
                }
                if let Some(k) = kept {
                    out[k] = scatter(out[k], source[(r * ow + q) * c + lane]);
                }
            }
        }
    }
}
