//! Direct 2-D f32 convolution for outputs in `[N, O, H, W]` order (any input and kernel
//! layout), innermost window stride 1, no base dilation, feature groups allowed.
//!
//! Every input plane is first copied into a zero-padded plane holding exactly the rows and
//! columns windows touch (plus zero columns up to whole vectors), so the inner loop has no
//! bounds logic. A register tile is 2 output channels x [`MAX_NV`] vectors of one output row:
//! `acc[j][v] += w[o+j][c][ky][kx] * P[c][y*sy + ky*dy][x + v*L + kx*dx ..]`, summed over
//! `(c, ky, kx)` in that order (fixed, so results do not depend on threads). One input vector
//! load feeds two FMAs; 12 accumulators + 2 weights + 1 input fit AVX2's 16 registers.
//!
//! Tasks are `(image, block of up to OCB output channels of one group)`; within a task, rows
//! are the outer loop so the input rows of one output row (`Ci * kh` padded rows) stay in L1
//! while every channel pair of the block uses them.

use rayon::prelude::*;

use super::im2col::Geom;
use super::{strides_of, ConvDesc, MAX_RANK};
use crate::simd::{VFloat, F32V};

/// Most vectors per output-row segment (2 x 6 accumulators).
const MAX_NV: usize = 6;
/// Most output channels per task: their weights (`OCB * Ci * taps` f32) stay in L2 and the
/// input rows of one output row are reused `OCB / 2` times from L1.
const OCB: usize = 16;
/// Below this many multiply-adds everything runs on the caller's thread.
const PAR_MIN_MACS: usize = 1 << 20;

/// Whether `d` has the form this kernel handles (f32 is checked by the caller's type).
pub(crate) fn applies(d: &ConvDesc) -> bool {
    let dm = &d.dims;
    d.spatial_rank == 2
        && d.batch_group_count == 1
        && dm.output_batch == 0
        && dm.output_feature == 1
        && dm.output_spatial[..2] == [2, 3]
        && d.lhs_dilation[..2] == [1, 1]
        && d.window_strides[1] == 1
}

/// Padded planes, packed weights.
#[derive(Default)]
pub(crate) struct Buffers {
    pad: Vec<f32>,
    w: Vec<f32>,
}

/// Runs the convolution (the caller checked [`applies`] and validated `d`; `out` non-empty).
pub(crate) fn conv_nchw_f32(
    d: &ConvDesc,
    out_shape: &[usize; MAX_RANK],
    input: &[f32],
    kernel: &[f32],
    out: &mut [f32],
    bufs: &mut Buffers,
) {
    let g = Geom::new(d, out_shape);
    let l = F32V::LANES;
    let (ho, wo) = (g.out_size[0], g.out_size[1]);
    let (kh, kw) = (g.k_size[0], g.k_size[1]);
    let (sy, dy, dx) = (g.stride[0], g.rhs_dil[0], g.rhs_dil[1]);
    let hp = if kh == 0 {
        0
    } else {
        (ho - 1) * sy + (kh - 1) * dy + 1
    };
    // Row pitch: whole vectors of output plus the window's reach, all readable.
    let wpp = wo.next_multiple_of(l) + if kw == 0 { 0 } else { (kw - 1) * dx };
    let chan = hp * wpp;
    let (nimg, cin) = (g.in_batch, d.input_shape[d.dims.input_feature]);
    let taps = kh * kw;
    let plane = ho * wo;

    // Padded planes of every (image, input feature).
    bufs.pad.clear();
    bufs.pad.resize(nimg * cin * chan, 0.0);
    let fill = |i: usize, dst: &mut [f32]| {
        let (b, f) = (i / cin.max(1), i % cin.max(1));
        super::direct::fill_padded(
            &g,
            input,
            b * g.in_batch_stride + f * g.in_feat_stride,
            hp,
            wpp,
            dst,
        );
    };
    if chan > 0 {
        if nimg * cin * chan >= PAR_MIN_MACS / 8 {
            bufs.pad
                .par_chunks_mut(chan)
                .enumerate()
                .for_each(|(i, p)| fill(i, p));
        } else {
            bufs.pad
                .chunks_mut(chan)
                .enumerate()
                .for_each(|(i, p)| fill(i, p));
        }
    }

    // Output channel blocks (never straddling a group) and their weights by channel pair.
    let ocb = (1..=OCB.min(g.og))
        .rev()
        .find(|c| g.og % c == 0)
        .unwrap_or(1);
    let pairs = ocb.div_ceil(2);
    let wpair = g.ci * taps * 2;
    pack_pairs(d, &g, kernel, ocb, &mut bufs.w);
    let blocks_per_group = g.og / ocb;
    let geo = Tile {
        ci: g.ci,
        chan,
        wpp,
        kh,
        kw,
        sy,
        dy,
        dx,
        wo,
    };
    let (pad, w) = (&bufs.pad[..], &bufs.w[..]);
    let run = |t: usize, dst: &mut [f32]| {
        // Task t = (image b, output channel block) with blocks in output-feature order.
        let o0 = (t % (g.groups * blocks_per_group)) * ocb;
        let b = t / (g.groups * blocks_per_group);
        let grp = o0 / g.og;
        let pad_img = &pad[(b * cin + grp * g.ci) * chan..];
        for y in 0..ho {
            for j in (0..ocb).step_by(2) {
                let pair = (o0 / ocb) * pairs + j / 2;
                let wk = &w[pair * wpair..(pair + 1) * wpair];
                let two = j + 1 < ocb;
                let (r0, r1) = if two {
                    let (a, b2) = dst[j * plane..(j + 2) * plane].split_at_mut(plane);
                    (
                        &mut a[y * wo..(y + 1) * wo],
                        Some(&mut b2[y * wo..(y + 1) * wo]),
                    )
                } else {
                    (&mut dst[j * plane + y * wo..j * plane + (y + 1) * wo], None)
                };
                geo.row(pad_img, wk, y, r0, r1);
            }
        }
    };
    let tasks = out.len() / (ocb * plane);
    let macs = out.len() * g.ci * taps;
    if macs >= PAR_MIN_MACS && tasks > 1 {
        out.par_chunks_mut(ocb * plane)
            .enumerate()
            .for_each(|(t, dst)| run(t, dst));
    } else {
        out.chunks_mut(ocb * plane)
            .enumerate()
            .for_each(|(t, dst)| run(t, dst));
    }
}

/// `w[(blk * pairs + q) * wpair + (c * taps + t) * 2 + j]` = kernel of output channel
/// `blk * ocb + 2q + j` (`pairs = ceil(ocb / 2)`; 0 where `2q + j >= ocb`), input feature `c`
/// of its group, tap `t` (row-major, reversal applied).
fn pack_pairs(d: &ConvDesc, g: &Geom, kernel: &[f32], ocb: usize, w: &mut Vec<f32>) {
    let n = d.rank();
    let ks = strides_of(&d.kernel_shape[..n]);
    let dm = &d.dims;
    let (kh, kw) = (g.k_size[0], g.k_size[1]);
    let taps = kh * kw;
    let pairs = ocb.div_ceil(2);
    let blocks = g.groups * g.og / ocb;
    w.clear();
    w.resize(blocks * pairs * g.ci * taps * 2, 0.0);
    for blk in 0..blocks {
        for ol in 0..ocb {
            let o = blk * ocb + ol;
            let base = (blk * pairs + ol / 2) * g.ci * taps * 2 + ol % 2;
            for c in 0..g.ci {
                for ky in 0..kh {
                    for kx in 0..kw {
                        let yy = if d.window_reversal[0] {
                            kh - 1 - ky
                        } else {
                            ky
                        };
                        let xx = if d.window_reversal[1] {
                            kw - 1 - kx
                        } else {
                            kx
                        };
                        let src = o * ks[dm.kernel_output_feature]
                            + c * ks[dm.kernel_input_feature]
                            + yy * ks[dm.kernel_spatial[0]]
                            + xx * ks[dm.kernel_spatial[1]];
                        w[base + (c * taps + ky * kw + kx) * 2] = kernel[src];
                    }
                }
            }
        }
    }
}

/// Geometry shared by every tile of one convolution.
struct Tile {
    ci: usize,
    chan: usize,
    wpp: usize,
    kh: usize,
    kw: usize,
    sy: usize,
    dy: usize,
    dx: usize,
    wo: usize,
}

impl Tile {
    /// Output row `y` of one channel pair (`r1` absent for a lone last channel), in segments
    /// of at most [`MAX_NV`] vectors split evenly.
    fn row(&self, pad: &[f32], wk: &[f32], y: usize, r0: &mut [f32], mut r1: Option<&mut [f32]>) {
        let l = F32V::LANES;
        let nvec = self.wo.div_ceil(l);
        let nseg = nvec.div_ceil(MAX_NV);
        let mut v0 = 0;
        for s in 0..nseg {
            let nv = (nvec - v0) / (nseg - s) + usize::from((nvec - v0) % (nseg - s) != 0);
            let acc = match nv {
                6 => self.seg::<6>(pad, wk, y, v0 * l),
                5 => self.seg::<5>(pad, wk, y, v0 * l),
                4 => self.seg::<4>(pad, wk, y, v0 * l),
                3 => self.seg::<3>(pad, wk, y, v0 * l),
                2 => self.seg::<2>(pad, wk, y, v0 * l),
                _ => self.seg::<1>(pad, wk, y, v0 * l),
            };
            for v in 0..nv {
                let x = (v0 + v) * l;
                let m = l.min(self.wo - x);
                acc[0][v].store_partial(&mut r0[x..x + m]);
                if let Some(r1) = r1.as_deref_mut() {
                    acc[1][v].store_partial(&mut r1[x..x + m]);
                }
            }
            v0 += nv;
        }
    }

    /// Accumulators of `NV` vectors from column `x0` of output row `y` for both channels.
    #[inline(always)]
    fn seg<const NV: usize>(
        &self,
        pad: &[f32],
        wk: &[f32],
        y: usize,
        x0: usize,
    ) -> [[F32V; MAX_NV]; 2] {
        let l = F32V::LANES;
        let zero = F32V::splat(0.0);
        let mut a0 = [zero; NV];
        let mut a1 = [zero; NV];
        let span = (self.kw.max(1) - 1) * self.dx + NV * l;
        let mut wi = 0;
        for c in 0..self.ci {
            for ky in 0..self.kh {
                let start = c * self.chan + (y * self.sy + ky * self.dy) * self.wpp + x0;
                let row = &pad[start..start + span];
                for kx in 0..self.kw {
                    let w0 = F32V::splat(wk[wi]);
                    let w1 = F32V::splat(wk[wi + 1]);
                    wi += 2;
                    let src = &row[kx * self.dx..kx * self.dx + NV * l];
                    for v in 0..NV {
                        let x = F32V::load(&src[v * l..]);
                        a0[v] = w0.mul_add(x, a0[v]);
                        a1[v] = w1.mul_add(x, a1[v]);
                    }
                }
            }
        }
        let mut acc = [[zero; MAX_NV]; 2];
        acc[0][..NV].copy_from_slice(&a0);
        acc[1][..NV].copy_from_slice(&a1);
        acc
    }
}
