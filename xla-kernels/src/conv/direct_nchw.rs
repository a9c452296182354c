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
//!
//! Vectors are those of the run-time level ([`F32Isa`]: AVX-512, AVX2 + FMA or the build's),
//! so a default build runs as wide as the CPU allows. The sums' order is the same at every
//! level; the FMAs are fused at the AVX2 and AVX-512 levels (and in builds with FMA).

use std::ops::Range;

use super::im2col::Geom;
use super::{strides_of, ConvDesc, MAX_RANK};
use crate::gemm::{with_f32_isa, F32Isa, Isa};

/// Most vectors per output-row segment (2 x 6 accumulators).
const MAX_NV: usize = 6;
/// Most output channels per task: their weights (`OCB * Ci * taps` f32) stay in L2 and the
/// input rows of one output row are reused `OCB / 2` times from L1.
const OCB: usize = 16;
/// Input features per block: a block's input rows for one segment (`CB * kh * (MAX_NV * L +
/// window reach)` f32, about 10 KiB for 3x3) plus the task's weights for it stay in L1.
const CB: usize = 16;
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
    offs: Vec<usize>,
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
    let isa = F32Isa::new();
    let l = isa.lanes();
    let (ho, wo) = (g.out_size[0], g.out_size[1]);
    let (kh, kw) = (g.k_size[0], g.k_size[1]);
    let (dy, dx) = (g.rhs_dil[0], g.rhs_dil[1]);
    let (hp, rows) = Rows::padded_plane(&g, l);
    let wpp = rows.wpp;
    // Channel pitch: the plane plus one vector of slack, read (as zeros) by the last
    // flattened segment.
    let chan = hp * wpp + l;
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
        let parallel = nimg * cin * chan >= PAR_MIN_MACS / 8;
        crate::par::chunks(&mut bufs.pad, chan, parallel, fill);
    }

    // Output channel blocks (never straddling a group) and their weights by channel pair.
    let ocb = (1..=OCB.min(g.og))
        .rev()
        .find(|&c| g.og.is_multiple_of(c))
        .unwrap_or(1);
    let pairs = ocb.div_ceil(2);
    let wpair = g.ci * taps * 2;
    pack_pairs(d, &g, kernel, ocb, &mut bufs.w);
    let blocks_per_group = g.og / ocb;
    // Offset of every tap (c, ky, kx), in weight order, from a segment's base.
    bufs.offs.clear();
    for c in 0..g.ci {
        for ky in 0..kh {
            for kx in 0..kw {
                bufs.offs.push(c * chan + ky * dy * wpp + kx * dx);
            }
        }
    }
    let geo = Tile {
        offs: &bufs.offs,
        taps,
        rows,
        ci: g.ci,
        ocb,
        pairs,
        wpair,
        plane,
    };
    let (pad, w) = (&bufs.pad[..], &bufs.w[..]);
    let run = |t: usize, dst: &mut [f32]| {
        // Task t = (image b, output channel block) with blocks in output-feature order.
        let o0 = (t % (g.groups * blocks_per_group)) * ocb;
        let b = t / (g.groups * blocks_per_group);
        let grp = o0 / g.og;
        let pad_img = &pad[(b * cin + grp * g.ci) * chan..];
        let wb = &w[(o0 / ocb) * pairs * wpair..];
        with_f32_isa!(isa, |s| geo.task(s, pad_img, wb, dst))
    };
    let tasks = out.len() / (ocb * plane);
    let macs = out.len() * g.ci * taps;
    crate::par::chunks(out, ocb * plane, macs >= PAR_MIN_MACS && tasks > 1, run);
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

/// The output rows of one plane, `ho x wo`, as computed: positions `q = y * wpp + x` on a
/// grid of pitch `wpp` over padded input rows `sy` apart.
pub(super) struct Rows {
    /// Lanes of the vectors the segments are made of.
    pub l: usize,
    pub wpp: usize,
    pub sy: usize,
    pub wo: usize,
    pub ho: usize,
}

impl Rows {
    /// The padded plane a pass over `g`'s first two spatial dims reads, as `(hp, rows)`:
    /// `hp = (ho - 1) * sy + (kh - 1) * dy + 1` padded input rows (0 if `kh == 0`), at pitch
    /// `wpp = ceil_L(wo) + (kw - 1) * dx`: whole vectors of output plus the window's reach,
    /// all readable, for vectors of `l` lanes.
    pub(super) fn padded_plane(g: &Geom, l: usize) -> (usize, Rows) {
        let (ho, wo) = (g.out_size[0], g.out_size[1]);
        let (kh, kw) = (g.k_size[0], g.k_size[1]);
        let (sy, dy, dx) = (g.stride[0], g.rhs_dil[0], g.rhs_dil[1]);
        let hp = if kh == 0 {
            0
        } else {
            (ho - 1) * sy + (kh - 1) * dy + 1
        };
        let wpp = wo.next_multiple_of(l) + if kw == 0 { 0 } else { (kw - 1) * dx };
        (hp, Rows { l, wpp, sy, wo, ho })
    }

    /// Calls `f(input_base, q0, nv)` for every output segment of `nv <= max_nv` vectors, in
    /// order: `q0` is the segment's first output position as `y * wpp + x`, `input_base` the
    /// offset (within a channel) of the padded input its first tap reads. With unit row
    /// stride the rows are flattened at pitch `wpp` (a window shifted by `wpp` is the window of
    /// the next row), so segments run across rows and only the `wpp - wo` columns past each
    /// row are wasted; otherwise each row is split on its own.
    /// Inlined (with [`Rows::split`]), so that `f` compiles inside a caller's
    /// `#[target_feature]` function.
    #[inline(always)]
    pub(super) fn for_each_segment(&self, max_nv: usize, mut f: impl FnMut(usize, usize, usize)) {
        let l = self.l;
        if self.sy == 1 {
            let nvec = ((self.ho - 1) * self.wpp + self.wo).div_ceil(l);
            self.split(max_nv, nvec, 0, 0, &mut f);
        } else {
            for y in 0..self.ho {
                let (q0, base) = (y * self.wpp, y * self.sy * self.wpp);
                self.split(max_nv, self.wo.div_ceil(l), q0, base, &mut f);
            }
        }
    }

    /// `nvec` vectors from output position `q0` (input offset `base`) in segments of at most
    /// `max_nv`, as even as can be, each passed to `f`.
    #[inline(always)]
    fn split(
        &self,
        max_nv: usize,
        nvec: usize,
        mut q0: usize,
        mut base: usize,
        f: &mut impl FnMut(usize, usize, usize),
    ) {
        let l = self.l;
        let nseg = nvec.div_ceil(max_nv);
        let mut left = nvec;
        for s in 0..nseg {
            let nv = left.div_ceil(nseg - s);
            f(base, q0, nv);
            (q0, base, left) = (q0 + nv * l, base + nv * l, left - nv);
        }
    }

    /// Writes the lanes of `acc` (output positions `q0 ..` at pitch `wpp`) that fall inside
    /// the `ho x wo` plane `dst`: `put(v, out)` writes the `l` lanes of `v` to the start of
    /// `out`.
    #[inline(always)]
    pub(super) fn store_with<V: Copy>(
        &self,
        acc: &[V],
        q0: usize,
        dst: &mut [f32],
        put: impl Fn(V, &mut [f32]),
    ) {
        let l = self.l;
        let (mut y, mut x) = (q0 / self.wpp, q0 % self.wpp);
        for &a in acc {
            if y >= self.ho {
                return;
            }
            if x + l <= self.wo {
                put(a, &mut dst[y * self.wo + x..]);
            } else {
                // A vector spans at most two rows (wpp >= L): the end of row y, then the start
                // of row y + 1 after the wpp - wo columns that are not outputs.
                let mut lanes = [0f32; 16];
                put(a, &mut lanes[..l]);
                if x < self.wo {
                    let n = self.wo - x;
                    dst[y * self.wo + x..(y + 1) * self.wo].copy_from_slice(&lanes[..n]);
                }
                if x + l > self.wpp && y + 1 < self.ho {
                    let skip = self.wpp - x;
                    let n = (l - skip).min(self.wo);
                    dst[(y + 1) * self.wo..(y + 1) * self.wo + n]
                        .copy_from_slice(&lanes[skip..skip + n]);
                }
            }
            x += l;
            if x >= self.wpp {
                (y, x) = (y + 1, x - self.wpp);
            }
        }
    }
}

/// Geometry shared by every tile of one convolution.
struct Tile<'a> {
    /// Input offset of each tap `(c, ky, kx)` (row-major) from a segment's base.
    offs: &'a [usize],
    /// Taps per input feature (`kh * kw`).
    taps: usize,
    rows: Rows,
    /// Input features per group.
    ci: usize,
    /// Output channels per task, their pairs, and packed weights per pair.
    ocb: usize,
    pairs: usize,
    wpair: usize,
    /// Outputs per plane (`ho * wo`).
    plane: usize,
}

impl Tile<'_> {
    /// One task's `ocb` output planes `dst` from the padded planes of its group `pad` and the
    /// packed weights of its block `w`, with the vectors of `isa` (compiled with its
    /// features).
    fn task<S: Isa<E = f32>>(&self, isa: S, pad: &[f32], w: &[f32], dst: &mut [f32]) {
        isa.vectorize(
            #[inline(always)]
            || {
                self.rows.for_each_segment(
                    MAX_NV,
                    #[inline(always)]
                    |base, q0, nv| self.segment(isa, pad, w, base, q0, nv, dst),
                )
            },
        )
    }

    /// The `nv` vectors from output position `q0` (first tap at `base`) of every channel of
    /// the task. Channel blocks outermost: the block's input rows (CB * kh rows of the
    /// segment) stay in L1 while every pair of the task uses them; partial sums wait in
    /// `accs` and the FMA chain of each output continues in the same order (bits unchanged).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn segment<S: Isa<E = f32>>(
        &self,
        isa: S,
        pad: &[f32],
        w: &[f32],
        base: usize,
        q0: usize,
        nv: usize,
        dst: &mut [f32],
    ) {
        let zero = isa.splat(0.0);
        let mut accs = [[[zero; MAX_NV]; 2]; OCB / 2];
        for c0 in (0..self.ci).step_by(CB) {
            let c1 = (c0 + CB).min(self.ci);
            for (jp, acc) in accs.iter_mut().enumerate().take(self.pairs) {
                let wk = &w[jp * self.wpair..(jp + 1) * self.wpair];
                *acc = self.seg_dispatch(isa, nv, pad, wk, base, c0..c1, acc);
            }
        }
        let plane = self.plane;
        let put = |v: S::V, o: &mut [f32]| isa.store(v, o);
        for (jp, acc) in accs.iter().enumerate().take(self.pairs) {
            let j = 2 * jp;
            let d0 = &mut dst[j * plane..(j + 1) * plane];
            self.rows.store_with(&acc[0][..nv], q0, d0, put);
            if j + 1 < self.ocb {
                let d1 = &mut dst[(j + 1) * plane..(j + 2) * plane];
                self.rows.store_with(&acc[1][..nv], q0, d1, put);
            }
        }
    }

    /// [`Tile::seg`] for `nv` (1..=MAX_NV) vectors.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn seg_dispatch<S: Isa<E = f32>>(
        &self,
        isa: S,
        nv: usize,
        pad: &[f32],
        wk: &[f32],
        base: usize,
        chans: Range<usize>,
        init: &[[S::V; MAX_NV]; 2],
    ) -> [[S::V; MAX_NV]; 2] {
        macro_rules! pick {
            ($($n:literal),*) => {
                match nv {
                    $( $n => self.seg::<S, $n>(isa, pad, wk, base, chans, init), )*
                    _ => self.seg::<S, 1>(isa, pad, wk, base, chans, init),
                }
            };
        }
        pick!(6, 5, 4, 3, 2)
    }

    /// `init` plus the taps of input features `chans`: accumulators of `NV` vectors of both
    /// channels for the segment whose first tap reads `base`. One loop over the flattened
    /// taps `(c, ky, kx)` with precomputed offsets: no per-row loop overhead (measured ~20%
    /// faster than nested loops, whose 3-iteration inner loop dominated).
    #[inline(always)]
    fn seg<S: Isa<E = f32>, const NV: usize>(
        &self,
        isa: S,
        pad: &[f32],
        wk: &[f32],
        base: usize,
        chans: Range<usize>,
        init: &[[S::V; MAX_NV]; 2],
    ) -> [[S::V; MAX_NV]; 2] {
        let l = S::LANES;
        let mut a0: [S::V; NV] = std::array::from_fn(|v| init[0][v]);
        let mut a1: [S::V; NV] = std::array::from_fn(|v| init[1][v]);
        let (t0, t1) = (chans.start * self.taps, chans.end * self.taps);
        let wt = &wk[2 * t0..2 * t1];
        for (w, &off) in wt.chunks_exact(2).zip(&self.offs[t0..t1]) {
            let w0 = isa.splat(w[0]);
            let w1 = isa.splat(w[1]);
            let src = &pad[base + off..base + off + NV * l];
            for v in 0..NV {
                let x = isa.load(&src[v * l..]);
                a0[v] = isa.mul_add(w0, x, a0[v]);
                a1[v] = isa.mul_add(w1, x, a1[v]);
            }
        }
        let mut acc = *init;
        acc[0][..NV].copy_from_slice(&a0);
        acc[1][..NV].copy_from_slice(&a1);
        acc
    }
}
