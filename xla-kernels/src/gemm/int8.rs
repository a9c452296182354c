//! s8 x s8 -> s32 GEMM: XLA's `dot` of two s8 operands with an s32 result
//! (`preferred_element_type = s32`, the quantised-inference case).
//!
//! `c_ij = sum_p (a_ip as s32) * (b_pj as s32)`, wrapping in s32 as XLA does. Integer sums are
//! exact modulo 2^32, so the order of summation does not matter and the result is the same for
//! any number of threads.
//!
//! Method: k is taken in pairs. B is packed once per batch into panels of [`NR`] columns where
//! each k-pair of a column is two adjacent i16 (`b[2q][j], b[2q+1][j]`), and A into one i32 per
//! (row, k-pair) holding its two elements as i16. One `i16x16::dot` (AVX2 `vpmaddwd`: eight
//! i32 lanes, each the sum of two i16 products) then does 16 multiply-adds: an [`MR`] x [`NR`]
//! tile keeps 12 i32x8 accumulators in registers. A product of two s8 is at most 2^14 in
//! magnitude, so the pair sum fits i32 and no lane saturates. The tile runs on AVX2 intrinsics
//! when the CPU has AVX2 (`wide`'s vectors are the build's: SSE2 in a default build, which ran
//! this kernel at half speed: 68 against 141 GOP/s for 1024^3 on one thread of the Intel Xeon
//! capped at AVX2), else on `wide`.
//!
//! Speed (`RUSTFLAGS="-C target-cpu=native" cargo run --release -p xla-kernels --example
//! gemm_speed -- s8`, AVX2, 2 cores): see the module docs of `gemm` for the measured figure.

use rayon::prelude::*;
use wide::{i16x16, i32x8};

use super::{offset, validate, GemmDesc, GemmError, GemmScratch, OutPtr};

/// Rows of the register tile.
pub(crate) const MR: usize = 6;
/// Columns of the register tile and of a packed B panel (two i32x8 accumulators per row).
pub(crate) const NR: usize = 16;
/// Rows of A per rayon task (a multiple of `MR`): enough work to amortise a task.
const TASK_ROWS: usize = 8 * MR;
/// Below this many multiply-adds (`m n k`) the GEMM runs on the caller's thread.
const PAR_MIN_MACS: usize = 1 << 20;

/// Packed operands of one batch, reused across calls.
#[derive(Default)]
pub(crate) struct Buffers {
    /// B panels: `[panel][k-pair]` of two i16x16 (columns 0..8 and 8..16 of the panel).
    b: Vec<i16x16>,
    /// A: `[row][k-pair]`, two i16 in one i32 (low half: even k).
    a: Vec<i32>,
    /// The AVX-512 VNNI path's packed operands.
    #[cfg(target_arch = "x86_64")]
    vnni: super::int8_vnni::Buffers,
    /// The AMX path's packed operands.
    #[cfg(target_arch = "x86_64")]
    amx: super::amx::Buffers<i8>,
}

/// `C[b] = A[b] * B[b]` (`+ C[b]` if `desc.accumulate`, wrapping) for s8 operands and an s32
/// result. Returns `Err` (writing nothing) if an operand's strides reach outside its slice or
/// C's strides overlap.
pub fn gemm_s8_s32(
    desc: &GemmDesc,
    a: &[i8],
    b: &[i8],
    c: &mut [i32],
    scratch: &mut GemmScratch,
) -> Result<(), GemmError> {
    validate(desc, a.len(), b.len(), c.len())?;
    if desc.batch == 0 || desc.m == 0 || desc.n == 0 {
        return Ok(());
    }
    let d = *desc;
    let bufs = &mut scratch.s8;
    let out = OutPtr::new(c);
    #[cfg(target_arch = "x86_64")]
    if super::amx::available() {
        super::amx::gemm_in_pool(&d, a, b, &out, &mut bufs.amx);
        return Ok(());
    }
    #[cfg(target_arch = "x86_64")]
    if super::int8_vnni::available() {
        super::int8_vnni::gemm(&d, a, b, &out, &mut bufs.vnni);
        return Ok(());
    }
    let kq = d.k.div_ceil(2);
    let panels = d.n.div_ceil(NR);
    for bt in 0..d.batch {
        // A broadcast operand (batch stride 0) is the same for every item: packed once.
        if bt == 0 || d.b_batch_stride != 0 {
            pack_b(&d, bt, b, kq, panels, &mut bufs.b);
        }
        if bt == 0 || d.a_batch_stride != 0 {
            pack_a(&d, bt, a, kq, &mut bufs.a);
        }
        let (pa, pb) = (&bufs.a[..], &bufs.b[..]);
        let avx2 = avx2();
        let task = |r0: usize| {
            let r1 = (r0 + TASK_ROWS).min(d.m);
            // Panels outside, rows inside: a B panel is read from memory once per task and
            // then from cache by each row tile.
            for p in 0..panels {
                let panel = &pb[p * kq * 2..(p + 1) * kq * 2];
                for i0 in (r0..r1).step_by(MR) {
                    let mr = MR.min(r1 - i0);
                    let acc = tile_at(avx2, &pa[i0 * kq..], kq, mr, panel);
                    store(&d, bt, i0, p * NR, mr, &acc, &out);
                }
            }
        };
        row_blocks(&d, TASK_ROWS, PAR_MIN_MACS, task);
    }
    Ok(())
}

/// `task(r0)` for the blocks of `rows` rows (`r0 = 0, rows, ...`) of an `m`-row product: on
/// rayon when it has more than one block and at least `par_min` multiply-adds, else in order.
pub(super) fn row_blocks(d: &GemmDesc, rows: usize, par_min: usize, task: impl Fn(usize) + Sync) {
    if d.m * d.n * d.k < par_min || d.m <= rows {
        (0..d.m).step_by(rows).for_each(task);
    } else {
        (0..d.m.div_ceil(rows))
            .into_par_iter()
            .for_each(|t| task(t * rows));
    }
}

/// Packs batch `bt` of B: panel `p`, pair `q` holds columns `16p..16p+16` of rows `2q, 2q+1`,
/// zero beyond `k` and `n`.
fn pack_b(d: &GemmDesc, bt: usize, b: &[i8], kq: usize, panels: usize, dst: &mut Vec<i16x16>) {
    let bs = [d.b_batch_stride, d.b_row_stride, d.b_col_stride];
    dst.clear();
    dst.resize(panels * kq * 2, i16x16::default());
    for p in 0..panels {
        for q in 0..kq {
            for half in 0..2 {
                let mut lanes = [0i16; 16];
                for jj in 0..8 {
                    let j = p * NR + half * 8 + jj;
                    if j >= d.n {
                        break;
                    }
                    for t in 0..2 {
                        let kk = 2 * q + t;
                        if kk < d.k {
                            lanes[2 * jj + t] = b[offset(bt, kk, j, bs)] as i16;
                        }
                    }
                }
                dst[(p * kq + q) * 2 + half] = i16x16::new(lanes);
            }
        }
    }
}

/// Packs batch `bt` of A: row `i`, pair `q` is `a[i][2q]` (low 16 bits) and `a[i][2q+1]`
/// (high 16 bits, zero beyond `k`).
fn pack_a(d: &GemmDesc, bt: usize, a: &[i8], kq: usize, dst: &mut Vec<i32>) {
    let as_ = [d.a_batch_stride, d.a_row_stride, d.a_col_stride];
    dst.clear();
    dst.resize(d.m * kq, 0);
    for i in 0..d.m {
        for q in 0..kq {
            let lo = a[offset(bt, i, 2 * q, as_)] as i16 as u16 as u32;
            let hi = if 2 * q + 1 < d.k {
                a[offset(bt, i, 2 * q + 1, as_)] as i16 as u16 as u32
            } else {
                0
            };
            dst[i * kq + q] = (lo | (hi << 16)) as i32;
        }
    }
}

/// Whether the tiles run on AVX2 (the CPU has it and `XLA_KERNELS_MAX_ISA` allows it): `wide`'s
/// vectors are those of the build, SSE2 in a default one, whatever the CPU.
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crate::cpu::level() >= crate::cpu::IsaLevel::Avx2
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`tile`], on AVX2 when `avx2` ([`avx2`] said so): the same sums (exact), 256-bit
/// `vpmaddwd`s in any build.
#[inline(always)]
fn tile_at(avx2: bool, pa: &[i32], kq: usize, mr: usize, pb: &[i16x16]) -> [[i32x8; 2]; MR] {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` comes from `cpu::level() >= Avx2`: the CPU has AVX2 and FMA.
        return unsafe {
            crate::cpu::run_avx2(
                #[inline(always)]
                || tile_avx2(pa, kq, mr, pb),
            )
        };
    }
    let _ = avx2;
    tile(pa, kq, mr, pb)
}

/// [`tile`] with AVX2 intrinsics (`vpmaddwd` + `vpaddd` on 256-bit registers).
///
/// # Safety
/// The CPU must have AVX2 (the caller runs it inside `cpu::run_avx2`, where the intrinsics
/// inline to instructions).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn tile_avx2(pa: &[i32], kq: usize, mr: usize, pb: &[i16x16]) -> [[i32x8; 2]; MR] {
    use core::arch::x86_64::*;
    let pb = &pb[..2 * kq];
    // SAFETY (all intrinsics): AVX2 is present (the contract). Each load reads one i16x16 of
    // `pb` (32 bytes, `pb` holds 2 kq of them: q < kq); the broadcasts read nothing.
    unsafe {
        let bp = pb.as_ptr().cast::<__m256i>();
        let mut acc = [[_mm256_setzero_si256(); 2]; MR];
        if mr == MR {
            // As `tile`: rows as exact slices, so the k loop has no bounds checks.
            let rows: [&[i32]; MR] = core::array::from_fn(|r| &pa[r * kq..(r + 1) * kq]);
            for q in 0..kq {
                let (b0, b1) = (
                    _mm256_loadu_si256(bp.add(2 * q)),
                    _mm256_loadu_si256(bp.add(2 * q + 1)),
                );
                for (row, a) in acc.iter_mut().zip(&rows) {
                    let av = _mm256_set1_epi32(a[q]);
                    row[0] = _mm256_add_epi32(row[0], _mm256_madd_epi16(av, b0));
                    row[1] = _mm256_add_epi32(row[1], _mm256_madd_epi16(av, b1));
                }
            }
        } else {
            for q in 0..kq {
                let (b0, b1) = (
                    _mm256_loadu_si256(bp.add(2 * q)),
                    _mm256_loadu_si256(bp.add(2 * q + 1)),
                );
                for (r, row) in acc.iter_mut().enumerate().take(mr) {
                    let av = _mm256_set1_epi32(pa[r * kq + q]);
                    row[0] = _mm256_add_epi32(row[0], _mm256_madd_epi16(av, b0));
                    row[1] = _mm256_add_epi32(row[1], _mm256_madd_epi16(av, b1));
                }
            }
        }
        let mut out = [[i32x8::default(); 2]; MR];
        for (o, a) in out.iter_mut().zip(&acc) {
            let mut lanes = [[0i32; 8]; 2];
            _mm256_storeu_si256(lanes[0].as_mut_ptr().cast::<__m256i>(), a[0]);
            _mm256_storeu_si256(lanes[1].as_mut_ptr().cast::<__m256i>(), a[1]);
            *o = [i32x8::new(lanes[0]), i32x8::new(lanes[1])];
        }
        out
    }
}

/// One `mr x NR` tile (`mr <= MR`): rows of packed A from `pa` (row stride `kq`), one B panel.
#[inline(always)]
fn tile(pa: &[i32], kq: usize, mr: usize, pb: &[i16x16]) -> [[i32x8; 2]; MR] {
    let mut acc = [[i32x8::default(); 2]; MR];
    let pb = &pb[..2 * kq];
    // The full tile gets its own loop so the row loop has a constant trip count and unrolls;
    // its rows are slices of exactly `kq`, so the k loop carries no bounds check (with one
    // per row and step, the loop ran about 10% slower).
    if mr == MR {
        let rows: [&[i32]; MR] = core::array::from_fn(|r| &pa[r * kq..(r + 1) * kq]);
        for q in 0..kq {
            let (b0, b1) = (pb[2 * q], pb[2 * q + 1]);
            for (row, a) in acc.iter_mut().zip(&rows) {
                let av: i16x16 = wide::bytemuck::cast(i32x8::splat(a[q]));
                row[0] += av.dot(b0);
                row[1] += av.dot(b1);
            }
        }
    } else {
        for q in 0..kq {
            let (b0, b1) = (pb[2 * q], pb[2 * q + 1]);
            for (r, row) in acc.iter_mut().enumerate().take(mr) {
                let av: i16x16 = wide::bytemuck::cast(i32x8::splat(pa[r * kq + q]));
                row[0] += av.dot(b0);
                row[1] += av.dot(b1);
            }
        }
    }
    acc
}

/// Writes (or adds, wrapping) the valid part of a tile at rows `i0..i0+mr`, columns `j0..`.
fn store(
    d: &GemmDesc,
    bt: usize,
    i0: usize,
    j0: usize,
    mr: usize,
    acc: &[[i32x8; 2]; MR],
    out: &OutPtr<'_, i32>,
) {
    let cs = [d.c_batch_stride, d.c_row_stride, d.c_col_stride];
    let nr = NR.min(d.n - j0);
    for (r, row) in acc.iter().enumerate().take(mr) {
        let v: [i32; NR] = wide::bytemuck::cast([row[0].to_array(), row[1].to_array()]);
        for (jj, &x) in v.iter().enumerate().take(nr) {
            let o = offset(bt, i0 + r, j0 + jj, cs);
            // SAFETY: `o` addresses C inside its slice (validated), and element (bt, i, j) is
            // written only by the task owning row i.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, in i64 then wrapped: nothing shared with the kernel.
    fn naive(d: &GemmDesc, a: &[i8], b: &[i8], c: &mut [i32]) {
        for bt in 0..d.batch {
            for i in 0..d.m {
                for j in 0..d.n {
                    let mut s = 0i64;
                    for p in 0..d.k {
                        let x =
                            a[offset(bt, i, p, [d.a_batch_stride, d.a_row_stride, d.a_col_stride])];
                        let y =
                            b[offset(bt, p, j, [d.b_batch_stride, d.b_row_stride, d.b_col_stride])];
                        s += x as i64 * y as i64;
                    }
                    let o = offset(bt, i, j, [d.c_batch_stride, d.c_row_stride, d.c_col_stride]);
                    let prev = if d.accumulate { c[o] as i64 } else { 0 };
                    c[o] = (prev + s) as i32;
                }
            }
        }
    }

    fn bytes(seed: u64, n: usize) -> Vec<i8> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                // Extremes often: -128 * -128 is the largest product.
                match i % 7 {
                    0 => -128,
                    1 => 127,
                    _ => (s >> 56) as i8,
                }
            })
            .collect()
    }

    fn check(d: GemmDesc, a_len: usize, b_len: usize, c_len: usize) {
        let a = bytes(1, a_len);
        let b = bytes(2, b_len);
        let init: Vec<i32> = (0..c_len as i32)
            .map(|x| x.wrapping_mul(7919) ^ 0x5555)
            .collect();
        let mut want = init.clone();
        naive(&d, &a, &b, &mut want);
        let mut s = GemmScratch::new();
        let mut got = init.clone();
        gemm_s8_s32(&d, &a, &b, &mut got, &mut s).expect("valid");
        assert_eq!(got, want, "{d:?}");
        // A warm scratch and one thread give the same bits.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let mut got1 = init;
        pool.install(|| gemm_s8_s32(&d, &a, &b, &mut got1, &mut s))
            .expect("valid");
        assert_eq!(got1, want, "1 thread {d:?}");
    }

    #[test]
    fn sweeps_sizes_around_the_tile() {
        // Around the AVX2 6 x 16, VNNI 8 x 32 and AMX 32 x 32 x 64 blocks (whole AMX blocks
        // are stored straight into C, the others through a buffer).
        for m in [1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 32, 33, 64, 70] {
            for n in [1, 7, 8, 15, 16, 17, 32, 33, 64, 65] {
                for k in [0, 1, 2, 3, 16, 31, 64, 65, 129] {
                    check(GemmDesc::row_major(1, m, n, k), m * k, k * n, m * n);
                }
            }
        }
    }

    #[test]
    fn large_enough_for_threads_and_k_big_enough_to_wrap() {
        // k = 70000 of -128 * -128 exceeds i32: the sum must wrap like XLA's.
        let d = GemmDesc::row_major(1, 3, 5, 70_000);
        let a = vec![-128i8; 3 * 70_000];
        let b = vec![-128i8; 70_000 * 5];
        let mut c = vec![0i32; 15];
        gemm_s8_s32(&d, &a, &b, &mut c, &mut GemmScratch::new()).unwrap();
        assert!(c.iter().all(|&x| x == (16384i64 * 70_000) as i32));
        check(
            GemmDesc::row_major(2, 130, 70, 129),
            2 * 130 * 129,
            2 * 129 * 70,
            2 * 130 * 70,
        );
        // Above both paths' parallel thresholds (m n k >= 2^22), odd sizes.
        check(
            GemmDesc::row_major(1, 203, 71, 301),
            203 * 301,
            301 * 71,
            203 * 71,
        );
    }

    /// Which path the tests above ran: AMX where the CPU has it and the `XLA_KERNELS_MAX_ISA`
    /// cap allows it, else VNNI where it has that and the cap allows AVX-512 (`scripts/test.sh`
    /// reruns them capped at each level below the CPU's widest).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_widest_path_the_cpu_and_the_cap_allow_runs() {
        use crate::cpu::{level, IsaLevel};
        let vnni = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni");
        assert_eq!(super::super::amx::available(), level() >= IsaLevel::Amx);
        assert_eq!(
            super::super::int8_vnni::available(),
            vnni && level() >= IsaLevel::Avx512
        );
        let path = if level() >= IsaLevel::Amx {
            "AMX (tdpbssd)"
        } else if vnni && level() >= IsaLevel::Avx512 {
            "AVX-512 VNNI"
        } else if level() >= IsaLevel::Avx2 {
            "AVX2 (vpmaddwd)"
        } else {
            "portable (the build's vpmaddwd)"
        };
        eprintln!("s8 GEMM tests ran the {path} path");
    }

    #[test]
    fn strided_transposed_and_accumulating() {
        // A given transposed (k x m storage), B with a column stride of 2, C column-major,
        // accumulating into C.
        let (m, n, k) = (9, 19, 13);
        let mut d = GemmDesc::row_major(1, m, n, k);
        d.a_row_stride = 1;
        d.a_col_stride = m as isize;
        d.b_row_stride = 2 * n as isize;
        d.b_col_stride = 2;
        d.c_row_stride = 1;
        d.c_col_stride = m as isize;
        d.accumulate = true;
        check(d, m * k, 2 * n * k, m * n);
    }

    #[test]
    fn broadcast_operands_over_the_batch() {
        let (batch, m, n, k) = (3, 10, 20, 7);
        let mut d = GemmDesc::row_major(batch, m, n, k);
        d.b_batch_stride = 0;
        check(d, batch * m * k, k * n, batch * m * n);
        let mut d = GemmDesc::row_major(batch, m, n, k);
        d.a_batch_stride = 0;
        check(d, m * k, batch * k * n, batch * m * n);
    }

    #[test]
    fn bad_strides_are_errors() {
        let d = GemmDesc::row_major(1, 4, 4, 4);
        let mut c = vec![0; 16];
        let err = gemm_s8_s32(&d, &[0; 15], &[0; 16], &mut c, &mut GemmScratch::new());
        assert!(matches!(
            err,
            Err(GemmError::OutOfBounds { operand: 'A', .. })
        ));
    }
}
