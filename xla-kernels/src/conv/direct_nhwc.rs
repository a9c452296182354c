//! Direct 2-D f32 convolution for outputs in `[N, H, W, O]` order (any input and kernel
//! layout), no base dilation, feature groups allowed, any window strides and dilations.
//!
//! The input is first copied into zero-padded channels-last images `P[b][y][x][c]` holding the
//! rows and columns windows touch, so no tap needs a bounds check. A register tile is
//! [`MR`] output positions of one row x `2L` output features (`L` lanes of the run-time
//! level's vectors, [`F32Isa`]: AVX-512, AVX2 + FMA or the build's own):
//! `acc[r][h] += P[b][y*sy + ky*dy][x_r*sx + kx*dx][c] * W[ky][kx][c][o + h*L ..]`, summed over
//! `(ky, kx, c)` in that order (fixed, so results do not depend on threads): two weight loads
//! and `MR` broadcasts per `2 * MR` FMAs, GEMM's register-tile ratio, with no im2col copy.
//! Tasks are output rows. The sums' order is the same at every level; the FMAs are fused at
//! the AVX2 and AVX-512 levels (and in builds with FMA).

use super::im2col::Geom;
use super::{strides_of, ConvDesc, MAX_RANK};
use crate::gemm::{with_f32_isa, F32Isa, Isa};

/// Output positions per register tile (6 x 2 accumulators + 2 weights + 1 broadcast <= 16
/// AVX2 registers).
const MR: usize = 6;
/// Below this many multiply-adds the rows run on the caller's thread.
const PAR_MIN_MACS: usize = 1 << 20;

/// Whether `d` has the form this kernel handles (f32 is checked by the caller's type).
pub(crate) fn applies(d: &ConvDesc) -> bool {
    let dm = &d.dims;
    d.spatial_rank == 2
        && d.batch_group_count == 1
        && dm.output_batch == 0
        && dm.output_spatial[..2] == [1, 2]
        && dm.output_feature == 3
        && d.lhs_dilation[..2] == [1, 1]
}

/// Padded images and packed weights.
#[derive(Default)]
pub(crate) struct Buffers {
    pad: Vec<f32>,
    w: Vec<f32>,
    offs: Vec<usize>,
}

/// Runs the convolution (the caller checked [`applies`] and validated `d`; `out` non-empty).
pub(crate) fn conv_nhwc_f32(
    d: &ConvDesc,
    out_shape: &[usize; MAX_RANK],
    input: &[f32],
    kernel: &[f32],
    out: &mut [f32],
    bufs: &mut Buffers,
) {
    let g = Geom::new(d, out_shape);
    let isa = F32Isa::new();
    let nr = 2 * isa.lanes();
    let (ho, wo) = (g.out_size[0], g.out_size[1]);
    let (kh, kw) = (g.k_size[0], g.k_size[1]);
    let reach = |o: usize, k: usize, s: usize, dl: usize| {
        if k == 0 {
            0
        } else {
            (o - 1) * s + (k - 1) * dl + 1
        }
    };
    let hp = reach(ho, kh, g.stride[0], g.rhs_dil[0]);
    let wp = reach(wo, kw, g.stride[1], g.rhs_dil[1]);
    let cin = d.input_shape[d.dims.input_feature];
    let img = hp * wp * cin;
    let taps = kh * kw;
    let o_total = g.groups * g.og;

    // Padded channels-last images.
    bufs.pad.clear();
    bufs.pad.resize(g.in_batch * img, 0.0);
    if img > 0 {
        let fill = |b: usize, dst: &mut [f32]| fill_image(&g, input, b, hp, wp, cin, dst);
        let parallel = bufs.pad.len() >= PAR_MIN_MACS / 8;
        crate::par::chunks(&mut bufs.pad, img, parallel, fill);
    }

    // Weights: per group and block of `nr` output features, `[t][c][nr]` (zeros past Og).
    let oblocks = g.og.div_ceil(nr);
    let wblock = taps * g.ci * nr;
    pack(d, &g, kernel, oblocks, nr, &mut bufs.w);

    // Input offset of each (tap, feature) from a position's first tap, in weight order.
    bufs.offs.clear();
    for ky in 0..kh {
        for kx in 0..kw {
            for c in 0..g.ci {
                bufs.offs
                    .push((ky * g.rhs_dil[0] * wp + kx * g.rhs_dil[1]) * cin + c);
            }
        }
    }
    let rows = Rows {
        g: &g,
        pad: &bufs.pad,
        w: &bufs.w,
        offs: &bufs.offs,
        img,
        wp,
        cin,
        oblocks,
        wblock,
        nr,
    };
    let run = |row: usize, dst: &mut [f32]| with_f32_isa!(isa, |s| rows.row(s, row, dst));
    let macs = out.len() * g.ci * taps;
    let row_len = wo * o_total;
    crate::par::chunks(
        out,
        row_len,
        macs >= PAR_MIN_MACS && out.len() > row_len,
        run,
    );
}

/// What every output row of one convolution reads.
struct Rows<'a> {
    g: &'a Geom,
    /// Padded images, `img` f32 each, at pitch `wp` positions of `cin` features.
    pad: &'a [f32],
    img: usize,
    wp: usize,
    cin: usize,
    /// Packed weights: `oblocks` blocks of `wblock` per group, `nr` features wide.
    w: &'a [f32],
    oblocks: usize,
    wblock: usize,
    nr: usize,
    /// Input offset of each (tap, feature) from a position's first tap, in weight order.
    offs: &'a [usize],
}

impl Rows<'_> {
    /// Output row `row` (image `row / ho`, row `row % ho`) into `dst`, with the vectors of
    /// `isa` (compiled with its features).
    fn row<S: Isa<E = f32>>(&self, isa: S, row: usize, dst: &mut [f32]) {
        isa.vectorize(
            #[inline(always)]
            || self.row_at(isa, row, dst),
        )
    }

    /// [`Rows::row`]'s body, inlined into the level's function.
    #[inline(always)]
    fn row_at<S: Isa<E = f32>>(&self, isa: S, row: usize, dst: &mut [f32]) {
        let g = self.g;
        let (l, nr) = (S::LANES, self.nr);
        let (ho, wo) = (g.out_size[0], g.out_size[1]);
        let o_total = g.groups * g.og;
        let (b, y) = (row / ho, row % ho);
        let image = &self.pad[b * self.img..(b + 1) * self.img];
        for grp in 0..g.groups {
            for ob in 0..self.oblocks {
                let o0 = ob * nr;
                let cols = nr.min(g.og - o0);
                let wk = &self.w[(grp * self.oblocks + ob) * self.wblock..][..self.wblock];
                for x0 in (0..wo).step_by(MR) {
                    let rows = MR.min(wo - x0);
                    // Input offset of each position's first tap (feature g*Ci).
                    let mut base = [0usize; MR];
                    for (r, b) in base.iter_mut().enumerate().take(rows) {
                        *b = ((y * g.stride[0]) * self.wp + (x0 + r) * g.stride[1]) * self.cin
                            + grp * g.ci;
                    }
                    let offs = self.offs;
                    let acc = match rows {
                        6 => tile::<S, 6>(isa, image, wk, &base, offs),
                        5 => tile::<S, 5>(isa, image, wk, &base, offs),
                        4 => tile::<S, 4>(isa, image, wk, &base, offs),
                        3 => tile::<S, 3>(isa, image, wk, &base, offs),
                        2 => tile::<S, 2>(isa, image, wk, &base, offs),
                        _ => tile::<S, 1>(isa, image, wk, &base, offs),
                    };
                    for (r, a) in acc.iter().enumerate().take(rows) {
                        let at = (x0 + r) * o_total + grp * g.og + o0;
                        let dst = &mut dst[at..at + cols];
                        if cols == nr {
                            let (lo, hi) = dst.split_at_mut(l);
                            isa.store(a[0], lo);
                            isa.store(a[1], hi);
                        } else {
                            let mut lanes = [0f32; 32];
                            isa.store(a[0], &mut lanes[..l]);
                            isa.store(a[1], &mut lanes[l..nr]);
                            dst.copy_from_slice(&lanes[..cols]);
                        }
                    }
                }
            }
        }
    }
}

/// `R` positions x `2L` features: `acc[r][h]` summed over taps `(ky, kx)` then features.
#[inline(always)]
fn tile<S: Isa<E = f32>, const R: usize>(
    isa: S,
    image: &[f32],
    wk: &[f32],
    base: &[usize; MR],
    offs: &[usize],
) -> [[S::V; 2]; MR] {
    let l = S::LANES;
    let zero = isa.splat(0.0);
    let mut acc = [[zero; 2]; R];
    // One flat loop over (tap, feature) pairs with precomputed input offsets: a nested
    // tap/feature loop made LLVM keep the 12 accumulators on the stack (measured).
    for (wc, &off) in wk.chunks_exact(2 * l).zip(offs) {
        let w0 = isa.load(&wc[..l]);
        let w1 = isa.load(&wc[l..]);
        for r in 0..R {
            let a = isa.splat(image[base[r] + off]);
            acc[r][0] = isa.mul_add(a, w0, acc[r][0]);
            acc[r][1] = isa.mul_add(a, w1, acc[r][1]);
        }
    }
    let mut full = [[zero; 2]; MR];
    full[..R].copy_from_slice(&acc);
    full
}

/// `dst[(y * wp + x) * cin + c]` = input of image `b` at padded position `(y, x)`, feature `c`.
fn fill_image(
    g: &Geom,
    input: &[f32],
    b: usize,
    hp: usize,
    wp: usize,
    cin: usize,
    dst: &mut [f32],
) {
    let (lo_y, lo_x) = (g.lo[0], g.lo[1]);
    for y in 0..hp {
        let iy = y as i64 - lo_y;
        if iy < 0 || iy >= g.in_size[0] as i64 {
            continue;
        }
        for x in 0..wp {
            let ix = x as i64 - lo_x;
            if ix < 0 || ix >= g.in_size[1] as i64 {
                continue;
            }
            let src =
                b * g.in_batch_stride + iy as usize * g.in_stride[0] + ix as usize * g.in_stride[1];
            let row = &mut dst[(y * wp + x) * cin..(y * wp + x + 1) * cin];
            if g.in_feat_stride == 1 {
                row.copy_from_slice(&input[src..src + cin]);
            } else {
                for (c, v) in row.iter_mut().enumerate() {
                    *v = input[src + c * g.in_feat_stride];
                }
            }
        }
    }
}

/// `w[((grp * oblocks + ob) * taps + t) * Ci * nr + c * nr + j]` = kernel of output feature
/// `grp * Og + ob * nr + j` (0 past Og), input feature `c`, tap `t` (reversal applied).
fn pack(d: &ConvDesc, g: &Geom, kernel: &[f32], oblocks: usize, nr: usize, w: &mut Vec<f32>) {
    let n = d.rank();
    let ks = strides_of(&d.kernel_shape[..n]);
    let dm = &d.dims;
    let (kh, kw) = (g.k_size[0], g.k_size[1]);
    let taps = kh * kw;
    w.clear();
    w.resize(g.groups * oblocks * taps * g.ci * nr, 0.0);
    for grp in 0..g.groups {
        for ol in 0..g.og {
            let o = grp * g.og + ol;
            let blk = (grp * oblocks + ol / nr) * taps * g.ci * nr;
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
                    for c in 0..g.ci {
                        let src = o * ks[dm.kernel_output_feature]
                            + c * ks[dm.kernel_input_feature]
                            + yy * ks[dm.kernel_spatial[0]]
                            + xx * ks[dm.kernel_spatial[1]];
                        w[blk + ((ky * kw + kx) * g.ci + c) * nr + ol % nr] = kernel[src];
                    }
                }
            }
        }
    }
}
