//! Direct convolution loops for shapes where im2col would mostly copy: depthwise 2-D f32
//! (`feature_group_count` = input features, one input feature per group), output in
//! `[N, O, H, W]` order, innermost window stride 1, no base dilation.
//!
//! Each output plane `(b, o)` reads one input plane, copied first into a zero-padded buffer
//! holding exactly the rows and columns its windows touch, so the tap loop has no bounds
//! checks: `out[y][x..x+L] = sum_{ky,kx} w[ky][kx] * P[y*sy + ky*dy][x + kx*dx ..]`, taps in
//! row-major order, `L` lanes, up to [`DW_NV`] vectors per segment (rows flattened when the
//! row stride is 1, as in [`super::direct_nchw`]). The vectors are those of [`cpu::level`]
//! (AVX-512, AVX2 + FMA or the build's own, as the GEMM's tokens): on the Intel Xeon a default
//! build's SSE2 loop made `[8,64,56,56]` 1.4x slower than a native build.
//!
//! [`cpu::level`]: crate::cpu::level

use rayon::prelude::*;

use super::direct_nchw::Rows;
use super::im2col::Geom;
use super::{strides_of, ConvDesc};
use crate::gemm::{with_f32_isa, F32Isa, Isa};

/// Most output vectors per segment: 8 independent FMA chains hide the FMA latency and, with
/// the weight and one input vector, fit AVX2's 16 registers.
const DW_NV: usize = 8;
/// Below this many multiply-adds the planes run on the caller's thread.
const PAR_MIN_MACS: usize = 1 << 18;

/// Slots per rayon thread: planes are grouped into this many sequential runs per thread, each
/// with its own taps and padded-plane buffer.
const SLOTS_PER_THREAD: usize = 4;

/// Tap offsets and per-slot `[taps | padded plane]` buffers, reused (nothing allocated once
/// warm).
#[derive(Default)]
pub(crate) struct Buffers {
    offs: Vec<usize>,
    slots: Vec<f32>,
}

/// Depthwise f32 convolution; `false` (nothing written) if `d` is not of the handled form.
pub(crate) fn depthwise_f32(
    d: &ConvDesc,
    input: &[f32],
    kernel: &[f32],
    out: &mut [f32],
    bufs: &mut Buffers,
) -> bool {
    let dm = &d.dims;
    let Ok(out_shape) = d.output_shape() else {
        return false;
    };
    let g = Geom::new(d, &out_shape);
    let depthwise = d.spatial_rank == 2
        && d.batch_group_count == 1
        && g.ci == 1
        && d.feature_group_count == d.input_shape[dm.input_feature]
        && d.feature_group_count > 1
        && dm.output_batch == 0
        && dm.output_feature == 1
        && dm.output_spatial[..2] == [2, 3]
        && d.lhs_dilation[..2] == [1, 1]
        && d.window_strides[1] == 1;
    if !depthwise {
        return false;
    }
    let (ho, wo) = (g.out_size[0], g.out_size[1]);
    let (kh, kw) = (g.k_size[0], g.k_size[1]);
    let (dy, dx) = (g.rhs_dil[0], g.rhs_dil[1]);
    // The padded plane the windows reach, and (in the slot) one vector of slack after it for
    // the last flattened segment.
    let isa = F32Isa::new();
    let l = isa.lanes();
    let (hp, rows) = Rows::padded_plane(&g, l);
    let wp = rows.wpp;
    bufs.offs.clear();
    bufs.offs
        .extend((0..kh * kw).map(|t| (t / kw) * dy * wp + (t % kw) * dx));
    let offs = &bufs.offs[..];
    let plane = ho * wo;
    let n = d.rank();
    let ks = strides_of(&d.kernel_shape[..n]);
    let ko = ks[dm.kernel_output_feature];
    let (ksy, ksx) = (ks[dm.kernel_spatial[0]], ks[dm.kernel_spatial[1]]);
    let reversed = d.window_reversal;
    let n_out = out_shape[0] * out_shape[1];
    let run = |idx: usize, dst: &mut [f32], taps: &mut [f32], pad: &mut [f32]| {
        let (b, o) = (idx / out_shape[1], idx % out_shape[1]);
        let (nb, f0) = g.input_origin(d, b, o / g.og);
        // Taps in row-major order, reversal applied.
        for y in 0..kh {
            for x in 0..kw {
                let (yy, xx) = (
                    if reversed[0] { kh - 1 - y } else { y },
                    if reversed[1] { kw - 1 - x } else { x },
                );
                taps[y * kw + x] = kernel[o * ko + yy * ksy + xx * ksx];
            }
        }
        pad.fill(0.0);
        fill_padded(
            &g,
            input,
            nb * g.in_batch_stride + f0 * g.in_feat_stride,
            hp,
            wp,
            pad,
        );
        with_f32_isa!(isa, |s| plane_with(s, &rows, pad, taps, offs, dst))
    };
    // Planes in `nslots` contiguous groups, one slot each; every plane is computed the same
    // way whatever the grouping, so results do not depend on the number of threads.
    let threads = if n_out * plane * kh * kw >= PAR_MIN_MACS {
        rayon::current_num_threads()
    } else {
        1
    };
    let per = n_out.div_ceil((threads * SLOTS_PER_THREAD).min(n_out).max(1));
    let nslots = n_out.div_ceil(per);
    let slot_len = kh * kw + hp * wp + l;
    bufs.slots.clear();
    bufs.slots.resize(nslots * slot_len, 0.0);
    let group = |s: usize, dst: &mut [f32], slot: &mut [f32]| {
        let (taps, pad) = slot.split_at_mut(kh * kw);
        for (i, plane_out) in dst.chunks_mut(plane).enumerate() {
            run(s * per + i, plane_out, taps, pad);
        }
    };
    if nslots > 1 {
        out.par_chunks_mut(per * plane)
            .zip(bufs.slots.par_chunks_mut(slot_len))
            .enumerate()
            .for_each(|(s, (dst, slot))| group(s, dst, slot));
    } else {
        group(0, out, &mut bufs.slots[..slot_len]);
    }
    true
}

/// `pad[y * wp + x]` = input at padded position `(y, x)` of the plane at `base`; `pad` holds
/// `hp * wp` zeros on entry (padding stays 0).
pub(super) fn fill_padded(
    g: &Geom,
    input: &[f32],
    base: usize,
    hp: usize,
    wp: usize,
    pad: &mut [f32],
) {
    let (h, w) = (g.in_size[0] as i64, g.in_size[1] as i64);
    let (lo_y, lo_x) = (g.lo[0], g.lo[1]);
    // Columns x of the padded row holding input column x - lo_x in 0..w.
    let x0 = lo_x.clamp(0, wp as i64) as usize;
    let x1 = (lo_x + w).clamp(0, wp as i64) as usize;
    for y in 0..hp {
        let iy = y as i64 - lo_y;
        if iy < 0 || iy >= h || x1 <= x0 {
            continue;
        }
        let row = base + iy as usize * g.in_stride[0];
        let first = (x0 as i64 - lo_x) as usize;
        let dst = &mut pad[y * wp + x0..y * wp + x1];
        if g.in_stride[1] == 1 {
            dst.copy_from_slice(&input[row + first..row + first + (x1 - x0)]);
        } else {
            for (j, v) in dst.iter_mut().enumerate() {
                *v = input[row + (first + j) * g.in_stride[1]];
            }
        }
    }
}

/// One output plane `dst` from its padded input plane, with the vectors of `isa` (compiled
/// with its features).
fn plane_with<S: Isa<E = f32>>(
    isa: S,
    rows: &Rows,
    pad: &[f32],
    taps: &[f32],
    offs: &[usize],
    dst: &mut [f32],
) {
    isa.vectorize(
        #[inline(always)]
        || {
            rows.for_each_segment(
                DW_NV,
                #[inline(always)]
                |base, q0, nv| {
                    let acc = match nv {
                        8 => seg::<S, 8>(isa, pad, taps, offs, base),
                        7 => seg::<S, 7>(isa, pad, taps, offs, base),
                        6 => seg::<S, 6>(isa, pad, taps, offs, base),
                        5 => seg::<S, 5>(isa, pad, taps, offs, base),
                        4 => seg::<S, 4>(isa, pad, taps, offs, base),
                        3 => seg::<S, 3>(isa, pad, taps, offs, base),
                        2 => seg::<S, 2>(isa, pad, taps, offs, base),
                        _ => seg::<S, 1>(isa, pad, taps, offs, base),
                    };
                    rows.store_with(&acc[..nv], q0, dst, |v, o| isa.store(v, o));
                },
            )
        },
    )
}

/// `NV` output vectors from the segment whose first tap reads `pad[base]`: taps in order,
/// one independent FMA chain per vector.
#[inline(always)]
fn seg<S: Isa<E = f32>, const NV: usize>(
    isa: S,
    pad: &[f32],
    taps: &[f32],
    offs: &[usize],
    base: usize,
) -> [S::V; DW_NV] {
    let l = S::LANES;
    let zero = isa.splat(0.0);
    let mut a = [zero; NV];
    for (&w, &off) in taps.iter().zip(offs) {
        let wv = isa.splat(w);
        let src = &pad[base + off..base + off + NV * l];
        for (v, acc) in a.iter_mut().enumerate() {
            *acc = isa.mul_add(wv, isa.load(&src[v * l..]), *acc);
        }
    }
    let mut out = [zero; DW_NV];
    out[..NV].copy_from_slice(&a);
    out
}
