//! The general convolution: for each group `g` and output batch `b`, the window taps of the
//! input are laid out as a column matrix `col[(c, k)][p]` (`c` < kernel input features, `k`
//! over the kernel's spatial positions, `p` over output positions; holes and padding are 0),
//! and `out[b, g*Og + o, p] = sum_{(c,k)} W_g[o][(c,k)] * col[(c,k)][p]` is one [`gemm`].
//!
//! Output positions go in chunks of about [`COL_CHUNK_ELEMS`] column elements so the column
//! matrix stays in L2 between being written and being packed by the GEMM. The GEMM writes
//! straight into `out` when the output's spatial dimensions collapse to one stride (NCHW,
//! NHWC, ...), else into a chunk buffer that is scattered.

use super::{strides_of, ConvDesc, ConvElem, MAX_RANK, MAX_SPATIAL};
use crate::gemm::{gemm, GemmDesc, GemmScratch};
use crate::KernelError;

/// Target size of one column-matrix chunk in elements (512 KiB of f32).
pub(crate) const COL_CHUNK_ELEMS: usize = 1 << 17;
/// Fewest output positions per chunk (keeps the GEMM's n large enough to vectorise).
const MIN_CHUNK_POSITIONS: usize = 64;

/// Column, packed-weight and output-chunk buffers, grown as needed and reused.
pub(crate) struct Buffers<T> {
    col: Vec<T>,
    w: Vec<T>,
    tmp: Vec<T>,
}

impl<T> Default for Buffers<T> {
    fn default() -> Self {
        Buffers {
            col: Vec::new(),
            w: Vec::new(),
            tmp: Vec::new(),
        }
    }
}

/// Sizes and strides of a validated convolution, by role.
pub(crate) struct Geom {
    pub r: usize,
    pub in_batch_stride: usize,
    pub in_feat_stride: usize,
    pub in_size: [usize; MAX_SPATIAL],
    pub in_stride: [usize; MAX_SPATIAL],
    pub k_size: [usize; MAX_SPATIAL],
    pub out_size: [usize; MAX_SPATIAL],
    pub out_stride: [usize; MAX_SPATIAL],
    pub out_batch: usize,
    pub out_batch_stride: usize,
    pub out_feat_stride: usize,
    pub in_batch: usize,
    /// Groups (`max(feature_group_count, batch_group_count)`).
    pub groups: usize,
    /// Kernel input features (`Ci`).
    pub ci: usize,
    /// Output features per group.
    pub og: usize,
    /// Kernel spatial positions (`prod k_size`).
    pub taps: usize,
    /// Output spatial positions (`prod out_size`).
    pub positions: usize,
    pub stride: [usize; MAX_SPATIAL],
    pub lo: [i64; MAX_SPATIAL],
    pub lhs_dil: [usize; MAX_SPATIAL],
    pub rhs_dil: [usize; MAX_SPATIAL],
}

impl Geom {
    pub(crate) fn new(d: &ConvDesc, out_shape: &[usize; MAX_RANK]) -> Geom {
        let r = d.spatial_rank;
        let n = r + 2;
        let (is, os) = (strides_of(&d.input_shape[..n]), strides_of(&out_shape[..n]));
        let dm = &d.dims;
        let mut g = Geom {
            r,
            in_batch_stride: is[dm.input_batch],
            in_feat_stride: is[dm.input_feature],
            in_size: [1; MAX_SPATIAL],
            in_stride: [0; MAX_SPATIAL],
            k_size: [1; MAX_SPATIAL],
            out_size: [1; MAX_SPATIAL],
            out_stride: [0; MAX_SPATIAL],
            out_batch: out_shape[dm.output_batch],
            out_batch_stride: os[dm.output_batch],
            out_feat_stride: os[dm.output_feature],
            in_batch: d.input_shape[dm.input_batch],
            groups: d.feature_group_count.max(d.batch_group_count),
            ci: d.kernel_shape[dm.kernel_input_feature],
            og: d.kernel_shape[dm.kernel_output_feature]
                / d.feature_group_count.max(d.batch_group_count),
            taps: 1,
            positions: 1,
            stride: [1; MAX_SPATIAL],
            lo: [0; MAX_SPATIAL],
            lhs_dil: [1; MAX_SPATIAL],
            rhs_dil: [1; MAX_SPATIAL],
        };
        for i in 0..r {
            g.in_size[i] = d.input_shape[dm.input_spatial[i]];
            g.in_stride[i] = is[dm.input_spatial[i]];
            g.k_size[i] = d.kernel_shape[dm.kernel_spatial[i]];
            g.out_size[i] = out_shape[dm.output_spatial[i]];
            g.out_stride[i] = os[dm.output_spatial[i]];
            g.stride[i] = d.window_strides[i];
            g.lo[i] = d.padding[i].0;
            g.lhs_dil[i] = d.lhs_dilation[i];
            g.rhs_dil[i] = d.rhs_dilation[i];
        }
        g.taps = g.k_size[..r].iter().product();
        g.positions = g.out_size[..r].iter().product();
        g
    }

    /// `(input batch, first input feature)` read by output batch `b` in group `grp`.
    pub(crate) fn input_origin(&self, d: &ConvDesc, b: usize, grp: usize) -> (usize, usize) {
        if d.batch_group_count > 1 {
            (grp * (self.in_batch / d.batch_group_count) + b, 0)
        } else {
            (b, grp * self.ci)
        }
    }

    /// The one stride of output position `p` when the output's spatial dimensions collapse
    /// (row-major over the spatial dimensions in order), else `None`.
    fn merged_out_stride(&self) -> Option<usize> {
        let mut merged: Option<(usize, usize)> = None; // (stride, extent) of dims so far
        for i in 0..self.r {
            let (e, s) = (self.out_size[i], self.out_stride[i]);
            if e == 1 {
                continue;
            }
            merged = match merged {
                None => Some((s, e)),
                Some((ps, pe)) if ps == s * e => Some((s, pe * e)),
                Some(_) => return None,
            };
        }
        Some(merged.map_or(1, |(s, _)| s))
    }

    /// Offset in `out` of output position `p` (row-major over spatial dims) relative to its
    /// (batch, feature) origin.
    fn out_pos_offset(&self, mut p: usize) -> usize {
        let mut off = 0;
        for i in (0..self.r).rev() {
            off += (p % self.out_size[i]) * self.out_stride[i];
            p /= self.out_size[i];
        }
        off
    }
}

/// Packs the kernel of every group into `w[g][o][c * taps + k]` (or `[k * Ci + c]` for the
/// channels-last column layout; taps row-major over spatial dimensions, window reversal
/// applied here so the column matrix never reverses).
fn pack_weights<T: Copy + Default>(
    d: &ConvDesc,
    g: &Geom,
    kernel: &[T],
    channels_last: bool,
    w: &mut Vec<T>,
) {
    let n = d.rank();
    let ks = strides_of(&d.kernel_shape[..n]);
    let dm = &d.dims;
    let kdim = g.ci * g.taps;
    w.clear();
    w.resize(g.groups * g.og * kdim, T::default());
    for o in 0..g.groups * g.og {
        for c in 0..g.ci {
            let base = o * ks[dm.kernel_output_feature] + c * ks[dm.kernel_input_feature];
            for t in 0..g.taps {
                let (mut rest, mut off) = (t, base);
                for i in (0..g.r).rev() {
                    let mut k = rest % g.k_size[i];
                    rest /= g.k_size[i];
                    if d.window_reversal[i] {
                        k = g.k_size[i] - 1 - k;
                    }
                    off += k * ks[dm.kernel_spatial[i]];
                }
                let kk = if channels_last {
                    t * g.ci + c
                } else {
                    c * g.taps + t
                };
                w[o * kdim + kk] = kernel[off];
            }
        }
    }
}

/// Fills `col[(c * taps + t) * np + (p - p0)]` for positions `p0..p0 + np` of input batch `nb`
/// starting at feature `f0`.
#[allow(clippy::too_many_arguments)]
fn fill_columns<T: ConvElem>(
    g: &Geom,
    input: &[T],
    nb: usize,
    f0: usize,
    p0: usize,
    np: usize,
    col: &mut [T],
) {
    let r = g.r;
    let last = r - 1;
    let zero = T::default();
    let mut row = 0;
    for c in 0..g.ci {
        let chan = nb * g.in_batch_stride + (f0 + c) * g.in_feat_stride;
        for t in 0..g.taps {
            // Tap coordinates, row-major.
            let mut k = [0usize; MAX_SPATIAL];
            let mut rest = t;
            for i in (0..r).rev() {
                k[i] = rest % g.k_size[i];
                rest /= g.k_size[i];
            }
            // Dilated-input offset of the tap: q = o * stride + k * rhs_dil - lo.
            let mut shift = [0i64; MAX_SPATIAL];
            for i in 0..r {
                shift[i] = (k[i] * g.rhs_dil[i]) as i64 - g.lo[i];
            }
            let dst = &mut col[row * np..(row + 1) * np];
            row += 1;
            let mut p = p0;
            while p < p0 + np {
                // One run along the innermost output dimension.
                let o_last = p % g.out_size[last];
                let run = (g.out_size[last] - o_last).min(p0 + np - p);
                let seg = &mut dst[p - p0..p - p0 + run];
                // Outer coordinates: valid and their input offset.
                let mut outer = p / g.out_size[last];
                let mut off = chan;
                let mut valid = true;
                for i in (0..last).rev() {
                    let o = outer % g.out_size[i];
                    outer /= g.out_size[i];
                    match input_index(o, shift[i], g.stride[i], g.lhs_dil[i], g.in_size[i]) {
                        Some(x) => off += x * g.in_stride[i],
                        None => valid = false,
                    }
                }
                if !valid {
                    seg.fill(zero);
                } else {
                    let (s, sh, ld, n) = (
                        g.stride[last],
                        shift[last],
                        g.lhs_dil[last],
                        g.in_size[last],
                    );
                    let is = g.in_stride[last];
                    if ld == 1 {
                        // Valid o: 0 <= o * s + sh < n, i.e. lo_o <= o < hi_o.
                        let s_i = s as i64;
                        let lo_o = if sh >= 0 { 0 } else { (-sh + s_i - 1) / s_i };
                        let hi_o = if (n as i64) - sh <= 0 {
                            0
                        } else {
                            ((n as i64 - sh - 1) / s_i + 1).max(0)
                        };
                        let a = (lo_o.max(o_last as i64) as usize).min(o_last + run) - o_last;
                        let b = (hi_o.max(0) as usize).clamp(o_last, o_last + run) - o_last;
                        let b = b.max(a);
                        seg[..a].fill(zero);
                        seg[b..].fill(zero);
                        if b == a {
                            // No tap inside the input on this run.
                        } else if is == 1 && s == 1 {
                            let first = ((o_last + a) as i64 * s_i + sh) as usize;
                            seg[a..b].copy_from_slice(&input[off + first..off + first + (b - a)]);
                        } else {
                            let first = ((o_last + a) as i64 * s_i + sh) as usize;
                            for (j, x) in seg[a..b].iter_mut().enumerate() {
                                *x = input[off + (first + j * s) * is];
                            }
                        }
                    } else {
                        for (j, x) in seg.iter_mut().enumerate() {
                            *x = match input_index(o_last + j, sh, s, ld, n) {
                                Some(xi) => input[off + xi * is],
                                None => zero,
                            };
                        }
                    }
                }
                p += run;
            }
        }
    }
}

/// Channels-last columns: `col[(p - p0) * kdim + t * Ci + c]` for positions `p0..p0 + np`,
/// copying the `Ci` features of each tap as one run when they are contiguous in the input.
#[allow(clippy::too_many_arguments)]
fn fill_rows_channels_last<T: ConvElem>(
    g: &Geom,
    input: &[T],
    nb: usize,
    f0: usize,
    p0: usize,
    np: usize,
    col: &mut [T],
) {
    let r = g.r;
    let kdim = g.ci * g.taps;
    let zero = T::default();
    let chan = nb * g.in_batch_stride + f0 * g.in_feat_stride;
    for (j, row) in col.chunks_exact_mut(kdim).take(np).enumerate() {
        let mut o = [0usize; MAX_SPATIAL];
        let mut rest = p0 + j;
        for i in (0..r).rev() {
            o[i] = rest % g.out_size[i];
            rest /= g.out_size[i];
        }
        for (t, dst) in row.chunks_exact_mut(g.ci).enumerate() {
            let mut rest = t;
            let mut off = Some(chan);
            for i in (0..r).rev() {
                let k = rest % g.k_size[i];
                rest /= g.k_size[i];
                let shift = (k * g.rhs_dil[i]) as i64 - g.lo[i];
                off = match (
                    off,
                    input_index(o[i], shift, g.stride[i], g.lhs_dil[i], g.in_size[i]),
                ) {
                    (Some(base), Some(x)) => Some(base + x * g.in_stride[i]),
                    _ => None,
                };
            }
            match off {
                None => dst.fill(zero),
                Some(base) if g.in_feat_stride == 1 => {
                    dst.copy_from_slice(&input[base..base + g.ci])
                }
                Some(base) => {
                    for (c, x) in dst.iter_mut().enumerate() {
                        *x = input[base + c * g.in_feat_stride];
                    }
                }
            }
        }
    }
}

/// Input index read at output coordinate `o` by a tap whose dilated-input offset is `shift`:
/// `q = o * stride + shift`, `Some(q / lhs_dil)` if `q` is a non-hole inside the input.
#[inline]
pub(crate) fn input_index(
    o: usize,
    shift: i64,
    stride: usize,
    lhs_dil: usize,
    n: usize,
) -> Option<usize> {
    let q = (o * stride) as i64 + shift;
    if q < 0 || q % lhs_dil as i64 != 0 {
        return None;
    }
    let x = (q / lhs_dil as i64) as usize;
    (x < n).then_some(x)
}

/// Runs the im2col + GEMM convolution on a validated descriptor with a non-empty output.
pub(crate) fn conv_im2col<T: ConvElem>(
    d: &ConvDesc,
    out_shape: &[usize; MAX_RANK],
    input: &[T],
    kernel: &[T],
    out: &mut [T],
    bufs: &mut Buffers<T>,
    gs: &mut GemmScratch,
) -> Result<(), KernelError> {
    let g = Geom::new(d, out_shape);
    let kdim = g.ci * g.taps;
    // Channels-last inputs (feature stride 1) copy whole feature runs per tap; otherwise
    // spatial runs along the innermost output dimension are copied.
    let channels_last = g.in_feat_stride == 1 && g.ci > 1;
    pack_weights(d, &g, kernel, channels_last, &mut bufs.w);
    let chunk = (COL_CHUNK_ELEMS / kdim.max(1))
        .max(MIN_CHUNK_POSITIONS)
        .min(g.positions)
        .max(1);
    let merged = g.merged_out_stride();
    let zero = T::default();
    if bufs.col.len() < kdim * chunk {
        bufs.col.resize(kdim * chunk, zero);
    }
    if merged.is_none() && bufs.tmp.len() < g.og * chunk {
        bufs.tmp.resize(g.og * chunk, zero);
    }
    for grp in 0..g.groups {
        let w = &bufs.w[grp * g.og * kdim..(grp + 1) * g.og * kdim];
        for b in 0..g.out_batch {
            let (nb, f0) = g.input_origin(d, b, grp);
            let origin = b * g.out_batch_stride + grp * g.og * g.out_feat_stride;
            for p0 in (0..g.positions).step_by(chunk) {
                let np = chunk.min(g.positions - p0);
                let col = &mut bufs.col[..kdim * np];
                if kdim > 0 && channels_last {
                    fill_rows_channels_last(&g, input, nb, f0, p0, np, col);
                } else if kdim > 0 {
                    fill_columns(&g, input, nb, f0, p0, np, col);
                }
                // Rows of C are output features (C[o][p] = W[o][:] . col[:][p]), or positions
                // for channels-last (C[p][o] = col[p][:] . W[o][:]).
                let mut gd = if channels_last {
                    let mut gd = GemmDesc::row_major(1, np, g.og, kdim);
                    gd.b_row_stride = 1;
                    gd.b_col_stride = kdim as isize;
                    gd
                } else {
                    GemmDesc::row_major(1, g.og, np, kdim)
                };
                let (a, b_op) = if channels_last {
                    (&*col, w)
                } else {
                    (w, &*col)
                };
                let (pos_stride, feat_stride) = (
                    merged.unwrap_or(g.og) as isize,
                    if merged.is_some() {
                        g.out_feat_stride as isize
                    } else {
                        1
                    },
                );
                gd.c_batch_stride = 0;
                if channels_last {
                    (gd.c_row_stride, gd.c_col_stride) = (pos_stride, feat_stride);
                } else if merged.is_some() {
                    (gd.c_row_stride, gd.c_col_stride) = (feat_stride, pos_stride);
                } else {
                    // Scatter buffer laid out [p][o] in both cases.
                    (gd.c_row_stride, gd.c_col_stride) = (1, g.og as isize);
                }
                let res = match merged {
                    Some(ps) => gemm(&gd, a, b_op, &mut out[origin + p0 * ps..], gs),
                    None => {
                        let tmp = &mut bufs.tmp[..g.og * np];
                        let res = gemm(&gd, a, b_op, tmp, gs);
                        for j in 0..np {
                            let at = origin + g.out_pos_offset(p0 + j);
                            for o in 0..g.og {
                                out[at + o * g.out_feat_stride] = tmp[j * g.og + o];
                            }
                        }
                        res
                    }
                };
                // Cannot fail (every operand is sized from the validated descriptor); mapped
                // rather than unwrapped so a bug surfaces as an error, not a panic.
                res.map_err(|e| KernelError::invalid(super::OP, format!("internal gemm: {e}")))?;
            }
        }
    }
    Ok(())
}
