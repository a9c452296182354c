//! s8 x s8 -> s32 GEMM with AVX-512 VNNI: `vpdpbusd` adds four byte products into each of
//! 16 i32 lanes, 64 multiply-adds per instruction against 16 for AVX2's `vpmaddwd` (the
//! portable path of `int8`).
//!
//! `vpdpbusd` multiplies an *unsigned* byte by a signed one, so A is shifted into u8:
//! `sum_p a_ip b_pj = sum_p (a_ip + 128) b_pj - 128 sum_p b_pj`. The column sums of B are
//! taken while packing it, and the correction is subtracted when a tile is stored. Every step
//! is an i32 operation wrapping modulo 2^32 (a quad of products, at most 4 * 255 * 128, never
//! saturates: `vpdpbusd`, not `vpdpbusds`), so the result is XLA's wrapped sum, the same bits
//! as the portable path and the definition, for any thread count.
//!
//! Layout: k is taken in quads (zero-padded). B is packed per batch item into panels of
//! [`NR`] columns, quad `q` of a panel being 128 bytes (column `j`'s four bytes at `4j`); A
//! into [`MR`]-row panels, quad `q` of a panel being one i32 per row (its four shifted bytes),
//! broadcast to all lanes. An [`MR`] x [`NR`] tile keeps 16 accumulators (two registers per
//! row) in the 32 of AVX-512.

use core::arch::x86_64::*;

use super::{offset, GemmDesc, OutPtr};
use crate::cpu::{self, IsaLevel};

/// Rows of the register tile (and of a packed A panel).
const MR: usize = 8;
/// Columns of the register tile and of a packed B panel: two registers of 16 i32 lanes.
const NR: usize = 32;
/// Rows of A per rayon task (whole A panels).
const TASK_ROWS: usize = 4 * MR;
/// Below this many multiply-adds (`m n k`) the GEMM runs on the caller's thread.
const PAR_MIN_MACS: usize = 1 << 22;

/// Packed operands of one batch item, reused across calls.
#[derive(Default)]
pub(crate) struct Buffers {
    /// B panels: `[panel][quad][column][4]` bytes.
    b: Vec<i8>,
    /// `128 * sum_p b_pj` per packed column (zero for padding columns), wrapping.
    correction: Vec<i32>,
    /// A panels: `[panel][quad][row]`, the row's four bytes of the quad plus 128, as an i32.
    a: Vec<i32>,
}

/// Whether this CPU runs the kernel and the `XLA_KERNELS_MAX_ISA` cap allows AVX-512.
pub(crate) fn available() -> bool {
    cpu::level() >= IsaLevel::Avx512
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vnni")
}

/// `C[b] = A[b] * B[b]` (`+ C[b]` if accumulating) on validated, non-empty operands; the
/// caller has checked [`available`].
pub(crate) fn gemm(d: &GemmDesc, a: &[i8], b: &[i8], out: &OutPtr<'_, i32>, bufs: &mut Buffers) {
    let kq = d.k.div_ceil(4);
    let panels = d.n.div_ceil(NR);
    for bt in 0..d.batch {
        // A broadcast operand (batch stride 0) is the same for every item: packed once.
        if bt == 0 || d.b_batch_stride != 0 {
            pack_b(d, bt, b, kq, panels, bufs);
        }
        if bt == 0 || d.a_batch_stride != 0 {
            pack_a(d, bt, a, kq, &mut bufs.a);
        }
        let (pa, pb, corr) = (&bufs.a[..], &bufs.b[..], &bufs.correction[..]);
        // Panels outer: each B panel is read from L2/L3 once per task and reused from L1 by
        // the task's A panels.
        let task = |r0: usize| {
            for p in 0..panels {
                let bp = &pb[p * kq * 4 * NR..][..kq * 4 * NR];
                for i0 in (r0..(r0 + TASK_ROWS).min(d.m)).step_by(MR) {
                    let ap = &pa[i0 / MR * kq * MR..][..kq * MR];
                    // SAFETY: `available()` was checked by the caller: the CPU runs AVX-512F,
                    // BW and VNNI. `tile` reads only inside `ap` and `bp`, whose lengths are
                    // the `kq` quads it walks (asserted inside), and writes `acc`.
                    let mut acc = [0i32; MR * NR];
                    unsafe { tile(ap, bp, kq, &mut acc) };
                    store(d, bt, i0, p * NR, &acc, &corr[p * NR..][..NR], out);
                }
            }
        };
        super::int8::row_blocks(d, TASK_ROWS, PAR_MIN_MACS, task);
    }
}

/// Packs batch item `bt` of B into `bufs.b` and its column corrections into
/// `bufs.correction` (zero beyond `k` and `n`).
fn pack_b(d: &GemmDesc, bt: usize, b: &[i8], kq: usize, panels: usize, bufs: &mut Buffers) {
    let bs = [d.b_batch_stride, d.b_row_stride, d.b_col_stride];
    bufs.b.clear();
    bufs.b.resize(panels * kq * 4 * NR, 0);
    bufs.correction.clear();
    bufs.correction.resize(panels * NR, 0);
    for j in 0..d.n {
        let (p, jj) = (j / NR, j % NR);
        let panel = &mut bufs.b[p * kq * 4 * NR..][..kq * 4 * NR];
        let mut sum = 0i32;
        for kk in 0..d.k {
            let x = b[offset(bt, kk, j, bs)];
            panel[(kk / 4) * 4 * NR + 4 * jj + kk % 4] = x;
            sum = sum.wrapping_add(x as i32);
        }
        bufs.correction[j] = sum.wrapping_mul(128);
    }
}

/// Packs batch item `bt` of A: panel of rows `MR t..`, quad `q`, row `r` is the i32 of bytes
/// `a[i][4q..4q+4] + 128` (zero-padded rows and quads: their products meet zero B bytes or
/// are never stored).
fn pack_a(d: &GemmDesc, bt: usize, a: &[i8], kq: usize, dst: &mut Vec<i32>) {
    let as_ = [d.a_batch_stride, d.a_row_stride, d.a_col_stride];
    dst.clear();
    dst.resize(d.m.div_ceil(MR) * kq * MR, 0);
    for i in 0..d.m {
        let panel = &mut dst[i / MR * kq * MR..][..kq * MR];
        for q in 0..kq {
            let mut quad = [0u8; 4];
            for (t, byte) in quad.iter_mut().enumerate() {
                let kk = 4 * q + t;
                if kk < d.k {
                    *byte = (a[offset(bt, i, kk, as_)] as u8) ^ 0x80;
                }
            }
            panel[q * MR + i % MR] = i32::from_le_bytes(quad);
        }
    }
}

/// One `MR x NR` tile into `out` (row-major): `out[r NR + j] = sum_p ua[r][p] b[p][j]`
/// (shifted A, not yet corrected).
///
/// # Safety
/// The CPU must run AVX-512F, AVX-512BW and AVX-512 VNNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn tile(ap: &[i32], bp: &[i8], kq: usize, out: &mut [i32; MR * NR]) {
    assert!(ap.len() >= kq * MR && bp.len() >= kq * 4 * NR);
    let mut acc = [[_mm512_setzero_si512(); 2]; MR];
    for q in 0..kq {
        let bq = &bp[q * 4 * NR..][..4 * NR];
        // SAFETY: `bq` holds 128 bytes: two unaligned 64-byte loads inside it.
        let (b0, b1) = unsafe {
            (
                _mm512_loadu_si512(bq.as_ptr().cast()),
                _mm512_loadu_si512(bq.as_ptr().add(64).cast()),
            )
        };
        let aq = &ap[q * MR..][..MR];
        for (row, &av) in acc.iter_mut().zip(aq) {
            let av = _mm512_set1_epi32(av);
            row[0] = _mm512_dpbusd_epi32(row[0], av, b0);
            row[1] = _mm512_dpbusd_epi32(row[1], av, b1);
        }
    }
    for (row, o) in acc.iter().zip(out.chunks_exact_mut(NR)) {
        // SAFETY: `o` holds NR = 32 i32: two unaligned 64-byte stores inside it.
        unsafe {
            _mm512_storeu_si512(o.as_mut_ptr().cast(), row[0]);
            _mm512_storeu_si512(o.as_mut_ptr().add(16).cast(), row[1]);
        }
    }
}

/// Writes (or adds, wrapping) rows `i0..` and columns `j0..` of a tile that exist, each
/// corrected by `corr` (the panel's column corrections).
fn store(
    d: &GemmDesc,
    bt: usize,
    i0: usize,
    j0: usize,
    acc: &[i32; MR * NR],
    corr: &[i32],
    out: &OutPtr<'_, i32>,
) {
    let cs = [d.c_batch_stride, d.c_row_stride, d.c_col_stride];
    let (mr, nr) = (MR.min(d.m - i0), NR.min(d.n - j0));
    for (r, v) in acc.chunks_exact(NR).enumerate().take(mr) {
        for jj in 0..nr {
            let x = v[jj].wrapping_sub(corr[jj]);
            let o = offset(bt, i0 + r, j0 + jj, cs);
            // SAFETY: `o` addresses C inside its slice (validated), and element (bt, i, j)
            // is written only by the task owning row i.
            unsafe {
                let x = if d.accumulate {
                    out.get(o).wrapping_add(x)
                } else {
                    x
                };
                out.set(o, x);
            }
        }
    }
}
