//! Winograd F(2x2, 3x3) for 2-D f32 convolutions with a 3x3 window, unit strides and
//! dilations, one group, output `[N, O, H, W]` or `[N, H, W, O]` (any input and kernel layout,
//! any padding, window reversal).
//!
//! Each 2x2 block of outputs (a *tile*) is `Y = A^T [ sum_c (G g_c G^T) ⊙ (B^T d_c B) ] A`
//! with `d_c` the 4x4 input patch of feature `c` and `g_c` the 3x3 window: 16 multiplies per
//! tile and feature instead of 36 (2.25x fewer flops than the direct sum). `B`, `G`, `A` are
//! Lavin & Gray's matrices; `G` holds only halves, so on small integers every step is exact
//! (the tests compare bit for bit with the naive reference), and on random data the error
//! stays within a few units of the direct sum's (see `winograd_error_is_tight` in tests).
//!
//! A task is one row of up to [`TMAX`] tiles of one image: it copies its 4 padded input rows
//! channels-last into its slot (features padded to whole vectors), transforms them into
//! `V[ξ][t][c]` (16 points `ξ`), runs 16 small GEMMs `M[ξ][t][o] = sum_c V[ξ][t][c] U[ξ][c][o]`
//! with a register tile of 6 tiles x 2 vectors of features (`K` = features; AVX-512, AVX2 or
//! the build's vectors, chosen at run time like the GEMM's),
//! and transforms `M` back into its outputs. The sum over `c` runs in index order and each
//! output depends only on its tile, so results do not depend on the number of threads. Slots
//! (per-task buffers) are reused from [`Buffers`]: nothing is allocated once they are warm.
//!
//! Why this design: the direct kernels already ran near this machine's GEMM speed, so only
//! fewer multiplies could go further; F(2x2, 3x3) is the Winograd variant whose transforms
//! are exact in binary (F(4x4, 3x3) would cut 4x but its 1/6, 1/24 weights cost accuracy).
//! The GEMM part is ~70% of the time (perf); NCHW inputs and outputs go through 8x8 register
//! transposes (`F32Isa::transpose8`) to and from the channels-last slot buffers. The copies,
//! transforms and point GEMMs all run on the GEMM's tokens of the run-time level, with no
//! closure passing vectors between them (see `input_transform`): a default build on the
//! Intel Xeon went from 8.2-8.5 ms (`simd::Lanes` transforms, SSE2 copies) to 6.4-7.7 for
//! NCHW `[8,64,56,56]*[64,64,3,3]`, a native build's time.
//! Measured (`CONV_ROWS=SAME CONV_HOW=auto,direct` with `examples/conv_speed.rs`, loaded
//! 2-core machine, alternating with XLA): `[8,64,56,56]*[64,64,3,3]` SAME NCHW 31.9 ms vs
//! XLA:CPU 59.5 ms, NHWC 31.1 ms vs 47.9 ms (13.0 / 14.3 ms at a quiet moment); the table
//! is in [`super`]'s docs.

use rayon::prelude::*;

use super::im2col::Geom;
use super::{strides_of, ConvDesc, MAX_RANK};
use crate::fused::isa::run_at_level;
use crate::gemm::{with_f32_isa, F32Isa, Isa};
use crate::simd::{VFloat, F32V, L16F32, L8F32};

/// Most tiles per task (a row of 56 outputs is 28 tiles: one task). Keeps a slot's `V` and
/// `M` (16 x TMAX x 64 f32 each for 64 features) in L2 next to the transformed weights.
const TMAX: usize = 30;
/// Tiles per register tile (6 x 2 accumulators + 2 weights + 1 broadcast <= 16 registers).
const MR: usize = 6;
/// Slots per rayon thread: tasks are grouped into this many sequential runs per thread so a
/// slow (shared) core does not hold the others up.
const SLOTS_PER_THREAD: usize = 4;
/// Below this many multiply-adds (direct count) everything runs on the caller's thread.
const PAR_MIN_MACS: usize = 1 << 20;
/// Fewest kernel input features (the GEMMs' `K`) for which the transforms pay: measured with
/// `examples/conv_speed.rs`, at 8 the direct kernels win, at 16 the two are within noise, at 64
/// Winograd is ~1.7x faster.
pub(crate) const MIN_IN_FEATURES: usize = 16;
/// Fewest output features (below one vector the GEMMs compute mostly padding).
pub(crate) const MIN_OUT_FEATURES: usize = 8;

/// Whether `d` has the form this kernel handles (f32 is checked by the caller's type).
pub(crate) fn applies(d: &ConvDesc, out_shape: &[usize; MAX_RANK]) -> bool {
    let dm = &d.dims;
    let ks = |i: usize| d.kernel_shape[dm.kernel_spatial[i]];
    let nchw_out = dm.output_feature == 1 && dm.output_spatial[..2] == [2, 3];
    let nhwc_out = dm.output_feature == 3 && dm.output_spatial[..2] == [1, 2];
    d.spatial_rank == 2
        && d.batch_group_count == 1
        && d.feature_group_count == 1
        && dm.output_batch == 0
        && (nchw_out || nhwc_out)
        && ks(0) == 3
        && ks(1) == 3
        && d.window_strides[..2] == [1, 1]
        && d.lhs_dilation[..2] == [1, 1]
        && d.rhs_dilation[..2] == [1, 1]
        && d.kernel_shape[dm.kernel_input_feature] >= MIN_IN_FEATURES
        && d.kernel_shape[dm.kernel_output_feature] >= MIN_OUT_FEATURES
        && out_shape[dm.output_spatial[0]] > 0
        && out_shape[dm.output_spatial[1]] > 0
}

/// Transformed weights and the task slots.
#[derive(Default)]
pub(crate) struct Buffers {
    u: Vec<f32>,
    /// The raw window `[o][ky][kx][c]` (reversal applied), for tasks summed directly.
    wraw: Vec<f32>,
    slots: Vec<f32>,
}

/// Sizes of one convolution's tiling.
#[derive(Clone, Copy)]
struct Plan {
    /// Output rows and columns.
    ho: usize,
    wo: usize,
    /// Tiles per task (the last task of a tile row may have fewer).
    tcx: usize,
    /// Input features (`ci`) rounded up to whole vectors; output features (`o`) rounded up
    /// to whole register tiles.
    ci: usize,
    cp: usize,
    o: usize,
    op: usize,
    /// Padded row pitch of a slot's input rows (`(2 * tcx + 2) * cp`).
    row: usize,
    /// Lanes of the transforms' vectors (`cp` is a multiple): those of the level the
    /// transforms run at (`fused::isa::pick`).
    l: usize,
    /// The point products' instruction set; `2 * isa.lanes()` output features per register tile.
    isa: F32Isa,
}

impl Plan {
    fn rows_len(&self) -> usize {
        4 * self.row
    }
    fn v_len(&self) -> usize {
        16 * self.tcx * self.cp
    }
    fn m_len(&self) -> usize {
        16 * self.tcx * self.op
    }
    /// Channels-last outputs of one task (`[2][2 * tcx][op]`), for outputs whose features
    /// are not contiguous.
    fn y_len(&self) -> usize {
        4 * self.tcx * self.op
    }
    fn slot_len(&self) -> usize {
        self.rows_len() + self.v_len() + self.m_len() + self.y_len()
    }
}

/// The output buffer, written by tasks at disjoint indices.
struct SharedOut {
    ptr: *mut f32,
    len: usize,
}

// SAFETY: tasks write disjoint sets of indices (each output element belongs to exactly one
// tile, and each tile to one task), every write is bounds-checked in `SharedOut::set`, and the
// `&mut [f32]` the pointer comes from outlives the parallel loop (it is borrowed for the
// whole of `conv_winograd_f32`).
unsafe impl Sync for SharedOut {}

impl SharedOut {
    #[inline(always)]
    fn set(&self, i: usize, v: f32) {
        assert!(i < self.len, "winograd output index {i} >= {}", self.len);
        // SAFETY: `i < len` (checked above) so the write is inside the borrowed slice, and no
        // other task writes index `i` (see the `Sync` impl).
        unsafe { *self.ptr.add(i) = v }
    }

    /// Stores the vector `v` at `i..i + L` (bounds-checked).
    #[inline(always)]
    fn set_vec<V: Copy>(&self, i: usize, v: V) {
        let n = std::mem::size_of::<V>() / std::mem::size_of::<f32>();
        assert!(
            i <= self.len && n <= self.len - i,
            "winograd output run {i}+{n} > {}",
            self.len
        );
        // SAFETY: `V` is a vector of `n` f32 lanes (a token's register, `__m256` / `__m512`,
        // or the build's `F32V`: plain data without padding); the `n` elements at `i` lie inside the borrowed slice (checked
        // above) and are written by this task only. `write_unaligned` needs no alignment.
        unsafe { std::ptr::write_unaligned(self.ptr.add(i) as *mut V, v) }
    }

    /// Stores `lanes` at `i..i + lanes.len()` (bounds-checked).
    #[inline(always)]
    fn set_run(&self, i: usize, lanes: &[f32]) {
        assert!(
            i <= self.len && lanes.len() <= self.len - i,
            "winograd output run {i}+{} > {}",
            lanes.len(),
            self.len
        );
        // SAFETY: the run lies inside the borrowed slice (checked above), is written by this
        // task only, and `lanes` is a different allocation (task-local), so no overlap.
        unsafe { std::ptr::copy_nonoverlapping(lanes.as_ptr(), self.ptr.add(i), lanes.len()) }
    }
}

/// Runs the convolution (the caller checked [`applies`] and validated `d`; `out` non-empty).
/// Returns `false`, writing nothing, if a weight is not finite (the direct kernels then keep
/// IEEE semantics: the transforms would turn `inf` into `inf - inf = NaN`).
///
/// Values large enough to overflow in the transforms, and infinities or NaNs in the input, are
/// caught per task: a task whose input rows hold any `|x| > f32::MAX / (72 * Ci * max|w|)`
/// (a bound on every transformed and accumulated value, `|y| <= 36 * Ci * max|x| * max|w|`)
/// or a non-finite value is summed directly instead, so results are those of a direct sum.
pub(crate) fn conv_winograd_f32(
    d: &ConvDesc,
    out_shape: &[usize; MAX_RANK],
    input: &[f32],
    kernel: &[f32],
    out: &mut [f32],
    bufs: &mut Buffers,
) -> bool {
    let g = Geom::new(d, out_shape);
    let isa = F32Isa::new();
    let l = isa.lanes();
    let (ho, wo) = (g.out_size[0], g.out_size[1]);
    let (th, tw) = (ho.div_ceil(2), wo.div_ceil(2));
    let chunks = tw.div_ceil(TMAX);
    let tcx = tw.div_ceil(chunks);
    let (ci, o) = (g.ci, g.og);
    let (cp, op) = (ci.next_multiple_of(l), o.next_multiple_of(2 * isa.lanes()));
    let plan = Plan {
        ho,
        wo,
        tcx,
        ci,
        cp,
        o,
        op,
        row: (2 * tcx + 2) * cp,
        l,
        isa,
    };
    let wmax = transform_weights(d, kernel, &plan, &mut bufs.u, &mut bufs.wraw);
    if !wmax.is_finite() {
        return false;
    }
    let limit = (f32::MAX / (72.0 * ci as f32 * wmax.max(f32::MIN_POSITIVE))).min(f32::MAX);

    let tasks = g.out_batch * th * chunks;
    let macs = out.len() * ci * 9;
    let threads = if macs >= PAR_MIN_MACS {
        rayon::current_num_threads()
    } else {
        1
    };
    let nslots = (threads * SLOTS_PER_THREAD).min(tasks).max(1);
    let slot_len = plan.slot_len();
    bufs.slots.clear();
    bufs.slots.resize(nslots * slot_len, 0.0);
    let shared = SharedOut {
        ptr: out.as_mut_ptr(),
        len: out.len(),
    };
    let (u, wraw) = (&bufs.u[..], &bufs.wraw[..]);
    let run_slot = |s: usize, slot: &mut [f32]| {
        // Slot s runs tasks s * tasks / nslots .. (s + 1) * tasks / nslots, in order.
        let (t0, t1) = (s * tasks / nslots, (s + 1) * tasks / nslots);
        let (rows, rest) = slot.split_at_mut(plan.rows_len());
        let (v, rest) = rest.split_at_mut(plan.v_len());
        let (m, ybuf) = rest.split_at_mut(plan.m_len());
        for task in t0..t1 {
            let b = task / (th * chunks);
            let ty = (task / chunks) % th;
            let tx0 = (task % chunks) * tcx;
            let nt = tcx.min(tw - tx0);
            // At the level too: its 8 x 8 transposes (NCHW) are the level's shuffles.
            with_f32_isa!(plan.isa, |s| s.vectorize(
                #[inline(always)]
                || fill_rows(&g, &plan, input, b, ty, tx0, nt, rows)
            ));
            // The transforms are exact adds and subtracts: the same bits at every level.
            let p = &plan;
            let within = run_at_level(
                &*rows,
                |r| rows_within::<F32V>(r, limit),
                #[inline(always)]
                |r| rows_within::<L8F32>(r, limit),
                #[inline(always)]
                |r| rows_within::<L16F32>(r, limit),
            );
            if !within {
                direct_task(&g, p, b, ty, tx0, nt, rows, wraw, &shared);
                continue;
            }
            with_f32_isa!(p.isa, |s| s.vectorize(
                #[inline(always)]
                || input_transform(s, p, nt, rows, v)
            ));
            for xi in 0..16 {
                gemm_point(p, nt, xi, v, u, m);
            }
            with_f32_isa!(p.isa, |s| s.vectorize(
                #[inline(always)]
                || output_transform(s, &g, p, b, ty, tx0, nt, m, ybuf, &shared)
            ));
        }
    };
    if nslots > 1 {
        bufs.slots
            .par_chunks_mut(slot_len)
            .enumerate()
            .for_each(|(s, slot)| run_slot(s, slot));
    } else {
        run_slot(0, &mut bufs.slots[..slot_len]);
    }
    true
}

/// Whether every value of `rows` is a number with `|x| <= limit` (one vector pass).
#[inline(always)]
fn rows_within<V: VFloat<Elem = f32>>(rows: &[f32], limit: f32) -> bool {
    let l = V::LANES;
    let mut worst = V::splat(0.0);
    for ch in rows.chunks_exact(l) {
        // max_xla propagates NaN, so a NaN anywhere ends as a NaN lane.
        worst = worst.max_xla(VFloat::abs(V::load(ch)));
    }
    let mut ok = true;
    for i in 0..l {
        ok &= worst.lane(i) <= limit;
    }
    ok
}

/// The task's outputs as direct sums over `(ky, kx, c)` from its padded rows (for inputs the
/// transforms could overflow, or non-finite ones).
#[allow(clippy::too_many_arguments)]
fn direct_task(
    g: &Geom,
    p: &Plan,
    b: usize,
    ty: usize,
    tx0: usize,
    nt: usize,
    rows: &[f32],
    wraw: &[f32],
    out: &SharedOut,
) {
    let ob = b * g.out_batch_stride;
    let (sy, sx, sf) = (g.out_stride[0], g.out_stride[1], g.out_feat_stride);
    for r in 0..2 {
        let y = 2 * ty + r;
        if y >= p.ho {
            continue;
        }
        for q in 0..2 * nt {
            let x = 2 * tx0 + q;
            if x >= p.wo {
                continue;
            }
            for o in 0..p.o {
                let mut acc = 0f32;
                for t in 0..9 {
                    let at = (r + t / 3) * p.row + (q + t % 3) * p.cp;
                    let w = &wraw[(o * 9 + t) * p.ci..][..p.ci];
                    for (&xv, &wv) in rows[at..at + p.ci].iter().zip(w) {
                        acc = xv.mul_add(wv, acc);
                    }
                }
                out.set(ob + y * sy + x * sx + o * sf, acc);
            }
        }
    }
}

/// `u[((ξ * (op / nr) + ob) * cp + c) * nr + j]` = `(G g G^T)[ξ]` for output feature
/// `ob * nr + j` (`nr` the register tile's features) and input feature `c` (0 for padding
/// features), computed in f64 and rounded once. `g` is the 3x3 window with reversal applied, also stored as
/// `wraw[(o * 9 + ky * 3 + kx) * ci + c]`. Returns `max |w|` (NaN or inf if a weight is not
/// finite).
fn transform_weights(
    d: &ConvDesc,
    kernel: &[f32],
    p: &Plan,
    u: &mut Vec<f32>,
    wraw: &mut Vec<f32>,
) -> f32 {
    let n = d.rank();
    let ks = strides_of(&d.kernel_shape[..n]);
    let dm = &d.dims;
    let nr = 2 * p.isa.lanes();
    let obs = p.op / nr;
    u.clear();
    u.resize(16 * obs * p.cp * nr, 0.0);
    wraw.clear();
    wraw.resize(p.o * 9 * p.ci, 0.0);
    let mut wmax = 0f32;
    for o in 0..p.o {
        for c in 0..p.ci {
            let mut w = [[0f64; 3]; 3];
            for (ky, wr) in w.iter_mut().enumerate() {
                for (kx, wv) in wr.iter_mut().enumerate() {
                    let yy = if d.window_reversal[0] { 2 - ky } else { ky };
                    let xx = if d.window_reversal[1] { 2 - kx } else { kx };
                    let src = o * ks[dm.kernel_output_feature]
                        + c * ks[dm.kernel_input_feature]
                        + yy * ks[dm.kernel_spatial[0]]
                        + xx * ks[dm.kernel_spatial[1]];
                    let k = kernel[src];
                    wraw[(o * 9 + ky * 3 + kx) * p.ci + c] = k;
                    // Not f32::max: a NaN weight must make wmax NaN.
                    wmax = if k.abs() > wmax || k.is_nan() {
                        k.abs()
                    } else {
                        wmax
                    };
                    *wv = k as f64;
                }
            }
            // h = G w (4x3), then h G^T (4x4).
            let gcol = |a: f64, b: f64, c: f64| [a, (a + b + c) * 0.5, (a - b + c) * 0.5, c];
            let mut h = [[0f64; 3]; 4];
            for kx in 0..3 {
                let col = gcol(w[0][kx], w[1][kx], w[2][kx]);
                for i in 0..4 {
                    h[i][kx] = col[i];
                }
            }
            for (i, hr) in h.iter().enumerate() {
                let r = gcol(hr[0], hr[1], hr[2]);
                for (j, &val) in r.iter().enumerate() {
                    let xi = 4 * i + j;
                    u[((xi * obs + o / nr) * p.cp + c) * nr + o % nr] = val as f32;
                }
            }
        }
    }
    wmax
}

/// Copies padded input rows `2 * ty .. 2 * ty + 4` and columns `2 * tx0 .. 2 * (tx0 + nt) + 2`
/// of image `b` into `rows[r * row + x * cp + c]` (zeros outside the input and past `ci`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn fill_rows(
    g: &Geom,
    p: &Plan,
    input: &[f32],
    b: usize,
    ty: usize,
    tx0: usize,
    nt: usize,
    rows: &mut [f32],
) {
    rows.fill(0.0);
    let (h, w) = (g.in_size[0] as i64, g.in_size[1] as i64);
    let cols = 2 * nt + 2;
    // Input column of slot column x: 2 * tx0 + x - lo_x; valid x in x0..x1.
    let first = 2 * tx0 as i64 - g.lo[1];
    let x0 = (-first).clamp(0, cols as i64) as usize;
    let x1 = (w - first).clamp(0, cols as i64) as usize;
    if x1 <= x0 {
        return;
    }
    let base_b = b * g.in_batch_stride;
    for r in 0..4 {
        let iy = (2 * ty + r) as i64 - g.lo[0];
        if iy < 0 || iy >= h {
            continue;
        }
        let base = base_b + iy as usize * g.in_stride[0];
        let dst = &mut rows[r * p.row..(r + 1) * p.row];
        let ix0 = (first + x0 as i64) as usize;
        if g.in_feat_stride == 1 {
            for x in x0..x1 {
                let src = base + (ix0 + x - x0) * g.in_stride[1];
                dst[x * p.cp..x * p.cp + p.ci].copy_from_slice(&input[src..src + p.ci]);
            }
        } else if g.in_stride[1] == 1 {
            // Features far apart, columns contiguous (NCHW): 8 features x 8 columns at a time
            // transposed in registers, the rest element by element.
            let n = x1 - x0;
            let (c8, n8) = (p.ci / 8 * 8, n / 8 * 8);
            for c0 in (0..c8).step_by(8) {
                for j0 in (0..n8).step_by(8) {
                    let rows: [[f32; 8]; 8] = std::array::from_fn(|k| {
                        let at = base + (c0 + k) * g.in_feat_stride + ix0 + j0;
                        input[at..at + 8].try_into().expect("8 lanes")
                    });
                    for (j, v) in p.isa.transpose8(&rows).iter().enumerate() {
                        let at = (x0 + j0 + j) * p.cp + c0;
                        dst[at..at + 8].copy_from_slice(v);
                    }
                }
                for c in c0..c0 + 8 {
                    let fb = base + c * g.in_feat_stride + ix0;
                    for j in n8..n {
                        dst[(x0 + j) * p.cp + c] = input[fb + j];
                    }
                }
            }
            for c in c8..p.ci {
                let fb = base + c * g.in_feat_stride + ix0;
                for j in 0..n {
                    dst[(x0 + j) * p.cp + c] = input[fb + j];
                }
            }
        } else {
            // Features and columns strided: element by element.
            for c in 0..p.ci {
                let fb = base + c * g.in_feat_stride;
                for x in x0..x1 {
                    dst[x * p.cp + c] = input[fb + (ix0 + x - x0) * g.in_stride[1]];
                }
            }
        }
    }
}

/// `v[(ξ * tcx + t) * cp + c]` = `(B^T d B)[ξ]` of tile `t`'s 4x4 patch, vectorised over `c`
/// with the vectors of `isa` (inside its `vectorize`).
#[inline(always)]
fn input_transform<S: Isa<E = f32>>(isa: S, p: &Plan, nt: usize, rows: &[f32], v: &mut [f32]) {
    let l = S::LANES;
    debug_assert_eq!(l, p.l);
    let cp = p.cp;
    let plane = p.tcx * cp;
    for t in 0..nt {
        for c in (0..cp).step_by(l) {
            // e = B^T d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3 (per column j). No closure
            // over vectors here (nor `array::from_fn`'s): LLVM does not inline a function
            // passing 512-bit vectors into the AVX-512 one when it lacks the features, so its
            // intrinsics stay calls.
            let at0 = 2 * t * cp + c;
            let mut cols = [[isa.splat(0.0); 4]; 4];
            for (j, col) in cols.iter_mut().enumerate() {
                let x = at0 + j * cp;
                let d = [
                    isa.load(&rows[x..]),
                    isa.load(&rows[p.row + x..]),
                    isa.load(&rows[2 * p.row + x..]),
                    isa.load(&rows[3 * p.row + x..]),
                ];
                *col = bt(isa, d);
            }
            // (B^T d) B: the same combination along each row i of e (e[i][j] = cols[j][i]).
            for i in 0..4 {
                let vals = bt(isa, [cols[0][i], cols[1][i], cols[2][i], cols[3][i]]);
                for (j, val) in vals.into_iter().enumerate() {
                    isa.store(val, &mut v[(4 * i + j) * plane + t * cp + c..]);
                }
            }
        }
    }
}

/// `B^T d` of one column `d`: `[d0 - d2, d1 + d2, d2 - d1, d1 - d3]`.
#[inline(always)]
fn bt<S: Isa<E = f32>>(isa: S, d: [S::V; 4]) -> [S::V; 4] {
    [
        isa.sub(d[0], d[2]),
        isa.add(d[1], d[2]),
        isa.sub(d[2], d[1]),
        isa.sub(d[1], d[3]),
    ]
}

/// `A^T m` of one column `m`: `[m0 + m1 + m2, m1 - m2 - m3]`.
#[inline(always)]
fn at<S: Isa<E = f32>>(isa: S, m: [S::V; 4]) -> [S::V; 2] {
    [
        isa.add(isa.add(m[0], m[1]), m[2]),
        isa.sub(isa.sub(m[1], m[2]), m[3]),
    ]
}

/// `m[(ξ * tcx + t) * op + o]` = `sum_c v[ξ][t][c] * u[ξ][c][o]` for tiles `0..nt`.
fn gemm_point(p: &Plan, nt: usize, xi: usize, v: &[f32], u: &[f32], m: &mut [f32]) {
    with_f32_isa!(p.isa, |s| gemm_point_with(s, p, nt, xi, v, u, m))
}

/// [`gemm_point`] with the vectors of `isa` (compiled with its features).
#[allow(clippy::too_many_arguments)]
fn gemm_point_with<S: Isa<E = f32>>(
    isa: S,
    p: &Plan,
    nt: usize,
    xi: usize,
    v: &[f32],
    u: &[f32],
    m: &mut [f32],
) {
    let nr = 2 * S::LANES;
    isa.vectorize(
        #[inline(always)]
        || {
            let obs = p.op / nr;
            let vp = &v[xi * p.tcx * p.cp..][..p.tcx * p.cp];
            let mp = &mut m[xi * p.tcx * p.op..][..p.tcx * p.op];
            for ob in 0..obs {
                let up = &u[(xi * obs + ob) * p.cp * nr..][..p.cp * nr];
                for t0 in (0..nt).step_by(MR) {
                    let acc = match nt - t0 {
                        1 => tile::<S, 1>(isa, vp, up, t0, p.cp),
                        2 => tile::<S, 2>(isa, vp, up, t0, p.cp),
                        3 => tile::<S, 3>(isa, vp, up, t0, p.cp),
                        4 => tile::<S, 4>(isa, vp, up, t0, p.cp),
                        5 => tile::<S, 5>(isa, vp, up, t0, p.cp),
                        _ => tile::<S, 6>(isa, vp, up, t0, p.cp),
                    };
                    let rows = MR.min(nt - t0);
                    for (r, a) in acc.iter().enumerate().take(rows) {
                        let at = (t0 + r) * p.op + ob * nr;
                        isa.store(a[0], &mut mp[at..]);
                        isa.store(a[1], &mut mp[at + S::LANES..]);
                    }
                }
            }
        },
    )
}

/// `R` tiles x `2 LANES` features: `acc[r][h] = sum_c v[t0 + r][c] * u[c][h * LANES ..]`, `c`
/// in order, one multiply-add per step.
#[inline(always)]
fn tile<S: Isa<E = f32>, const R: usize>(
    isa: S,
    v: &[f32],
    u: &[f32],
    t0: usize,
    cp: usize,
) -> [[S::V; 2]; MR] {
    let (l, nr) = (S::LANES, 2 * S::LANES);
    let zero = isa.splat(0.0);
    let mut acc = [[zero; 2]; R];
    let rows: [&[f32]; R] = std::array::from_fn(|r| &v[(t0 + r) * cp..(t0 + r + 1) * cp]);
    for (c, uc) in u.chunks_exact(nr).enumerate().take(cp) {
        let w0 = isa.load(&uc[..l]);
        let w1 = isa.load(&uc[l..]);
        for r in 0..R {
            let a = isa.splat(rows[r][c]);
            acc[r][0] = isa.mul_add(a, w0, acc[r][0]);
            acc[r][1] = isa.mul_add(a, w1, acc[r][1]);
        }
    }
    let mut full = [[zero; 2]; MR];
    full[..R].copy_from_slice(&acc);
    full
}

/// `Y = A^T m A` for every tile and feature vector, written to the outputs inside `ho x wo`:
/// straight to `out` when features are contiguous there (NHWC), else through `ybuf`
/// (channels-last) and 8x8 transposes into runs along the output row (NCHW).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn output_transform<S: Isa<E = f32>>(
    isa: S,
    g: &Geom,
    p: &Plan,
    b: usize,
    ty: usize,
    tx0: usize,
    nt: usize,
    m: &[f32],
    ybuf: &mut [f32],
    out: &SharedOut,
) {
    let l = S::LANES;
    let plane = p.tcx * p.op;
    let ob = b * g.out_batch_stride;
    let (sy, sx, sf) = (g.out_stride[0], g.out_stride[1], g.out_feat_stride);
    let ypitch = 2 * p.tcx * p.op;
    let mut lanes = [0f32; 16];
    for t in 0..nt {
        for o0 in (0..p.o).step_by(l) {
            // A^T m: rows m0 + m1 + m2 and m1 - m2 - m3 (per column j), then along rows.
            let mut cols = [[isa.splat(0.0); 2]; 4];
            for (j, col) in cols.iter_mut().enumerate() {
                let at0 = t * p.op + o0;
                let mv = [
                    isa.load(&m[j * plane + at0..]),
                    isa.load(&m[(4 + j) * plane + at0..]),
                    isa.load(&m[(8 + j) * plane + at0..]),
                    isa.load(&m[(12 + j) * plane + at0..]),
                ];
                *col = at(isa, mv);
            }
            let nf = l.min(p.o - o0);
            for r in 0..2 {
                let ys = at(isa, [cols[0][r], cols[1][r], cols[2][r], cols[3][r]]);
                for (q, yv) in ys.into_iter().enumerate() {
                    if sf != 1 {
                        isa.store(yv, &mut ybuf[r * ypitch + (2 * t + q) * p.op + o0..]);
                        continue;
                    }
                    let (y, x) = (2 * ty + r, 2 * (tx0 + t) + q);
                    if y < p.ho && x < p.wo {
                        let at = ob + y * sy + x * sx + o0;
                        if nf == l {
                            out.set_vec(at, yv);
                        } else {
                            isa.store(yv, &mut lanes[..l]);
                            out.set_run(at, &lanes[..nf]);
                        }
                    }
                }
            }
        }
    }
    if sf == 1 {
        return;
    }
    // Features apart: rows of x for each feature, 8 x 8 blocks transposed in registers
    // (`F32Isa::transpose8`: AVX shuffles at the AVX2 and AVX-512 levels, `wide`'s for the
    // build's vectors). Element by element, a default build's AVX-512 path took 8.2 ms for NCHW
    // 3x3 [8,64,56,56] against a native build's 6.7-7.0.
    let x0 = 2 * tx0;
    let nx = (2 * nt).min(p.wo - x0);
    for r in 0..2 {
        let y = 2 * ty + r;
        if y >= p.ho {
            continue;
        }
        let yr = &ybuf[r * ypitch..(r + 1) * ypitch];
        let row0 = ob + y * sy + x0 * sx;
        let mut xb = 0;
        while xb < nx {
            let bx = 8.min(nx - xb);
            let mut ob8 = 0;
            while ob8 < p.o {
                let bo = 8.min(p.o - ob8);
                if bx == 8 && bo == 8 && sx == 1 {
                    let rows: [[f32; 8]; 8] = std::array::from_fn(|j| {
                        let at = (xb + j) * p.op + ob8;
                        yr[at..at + 8].try_into().expect("8 lanes")
                    });
                    for (k, run) in p.isa.transpose8(&rows).iter().enumerate() {
                        out.set_run(row0 + (ob8 + k) * sf + xb, run);
                    }
                    ob8 += 8;
                    continue;
                }
                let mut blk = [[0f32; 8]; 8];
                for (j, x) in (xb..xb + bx).enumerate() {
                    for (k, row) in blk.iter_mut().enumerate().take(bo) {
                        row[j] = yr[x * p.op + ob8 + k];
                    }
                }
                for (k, run) in blk.iter().enumerate().take(bo) {
                    let at = row0 + (ob8 + k) * sf + xb * sx;
                    if sx == 1 {
                        out.set_run(at, &run[..bx]);
                    } else {
                        for (j, &val) in run[..bx].iter().enumerate() {
                            out.set(at + j * sx, val);
                        }
                    }
                }
                ob8 += 8;
            }
            xb += 8;
        }
    }
}
