//! GEMM against a naive triple loop: odd sizes around every block size, all operand layouts,
//! batch (incl. a broadcast B), accumulate, NaN-filled outputs, padding left untouched,
//! bounds and overlap errors, and bit-identical results on 1 and 2 threads.

use half::{bf16, f16};
use num_complex::Complex;

use super::kernel::{FloatElem, WithKernel, KC};
use super::micro::Kernel;
use super::*;
use crate::cpu::{self, IsaLevel};

/// Tile and block sizes of one kernel.
#[derive(Clone, Copy, Debug)]
pub(super) struct Blocking {
    pub(super) mr: usize,
    pub(super) nr: usize,
    pub(super) mc: usize,
    pub(super) direct_max_m: usize,
}

/// The sizes of the kernel `level` selects for `T`.
pub(super) fn blocking<T: FloatElem>(level: IsaLevel) -> Blocking {
    struct Sizes;
    impl<T: FloatElem> WithKernel<T> for Sizes {
        type Out = Blocking;
        fn run<K: Kernel<E = T>>(self, _: K) -> Blocking {
            Blocking {
                mr: K::MR,
                nr: K::NR,
                mc: K::MC,
                direct_max_m: K::DIRECT_MAX_M,
            }
        }
    }
    T::with_kernel(level, Sizes)
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Layout {
    RowMajor,
    ColMajor,
    /// Row-major with 3 unused elements after each row and 5 after each matrix.
    Padded,
}

/// Strides `[batch, row, col]` and slice length for a `batch x rows x cols` operand.
pub(super) fn layout(l: Layout, batch: usize, rows: usize, cols: usize) -> ([isize; 3], usize) {
    let (r, c) = (rows as isize, cols as isize);
    let s = match l {
        Layout::RowMajor => [r * c, c, 1],
        Layout::ColMajor => [r * c, 1, r],
        Layout::Padded => [r * (c + 3) + 5, c + 3, 1],
    };
    let len = (batch as isize * s[0]).max(1) as usize;
    (s, len)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn desc(
    batch: usize,
    m: usize,
    n: usize,
    k: usize,
    sa: [isize; 3],
    sb: [isize; 3],
    sc: [isize; 3],
    acc: bool,
) -> GemmDesc {
    GemmDesc {
        accumulate: acc,
        ..GemmDesc::from_strides(batch, m, n, k, sa, sb, sc)
    }
}

/// Deterministic pseudo-random values in [-1, 1).
pub(super) fn fill(len: usize, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

/// Naive `c (+)= a b` in f64, plus the bound `sum_p |a_ip b_pj|` for the error tolerance.
pub(super) fn naive(d: &GemmDesc, a: &[f64], b: &[f64], c0: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (sa, sb, sc) = kernel::strides(d);
    let mut c = c0.to_vec();
    let mut mag = vec![0.0; c0.len()];
    for bi in 0..d.batch {
        for i in 0..d.m {
            for j in 0..d.n {
                let (mut s, mut m) = (0.0, 0.0);
                for p in 0..d.k {
                    let t = a[offset(bi, i, p, sa)] * b[offset(bi, p, j, sb)];
                    s += t;
                    m += t.abs();
                }
                let o = offset(bi, i, j, sc);
                c[o] = if d.accumulate { c[o] + s } else { s };
                mag[o] = m + if d.accumulate { c0[o].abs() } else { 0.0 };
            }
        }
    }
    (c, mag)
}

/// Runs f32 and f64 GEMM for one case and checks every element of C (padding included).
#[allow(clippy::too_many_arguments)]
fn check_case(
    batch: usize,
    m: usize,
    n: usize,
    k: usize,
    la: Layout,
    lb: Layout,
    lc: Layout,
    acc: bool,
) {
    let (sa, alen) = layout(la, batch, m, k);
    let (sb, blen) = layout(lb, batch, k, n);
    let (sc, clen) = layout(lc, batch, m, n);
    let d = desc(batch, m, n, k, sa, sb, sc, acc);
    let a = fill(alen, 1 + m as u64);
    let b = fill(blen, 2 + n as u64);
    // Accumulating: C starts with values; else NaN everywhere, so an unwritten element shows.
    let c0: Vec<f64> = if acc {
        fill(clen, 3)
    } else {
        vec![f64::NAN; clen]
    };
    let (want, mag) = naive(&d, &a, &b, &c0);
    let ctx = format!("{batch}x{m}x{n}x{k} {la:?} {lb:?} {lc:?} acc={acc}");

    let mut s = GemmScratch::new();
    let mut c64 = c0.clone();
    gemm(&d, &a, &b, &mut c64, &mut s).unwrap();
    let a32: Vec<f32> = a.iter().map(|&x| x as f32).collect();
    let b32: Vec<f32> = b.iter().map(|&x| x as f32).collect();
    let mut c32: Vec<f32> = c0.iter().map(|&x| x as f32).collect();
    gemm(&d, &a32, &b32, &mut c32, &mut s).unwrap();
    // The f32 reference from the rounded inputs.
    let a32d: Vec<f64> = a32.iter().map(|&x| x as f64).collect();
    let b32d: Vec<f64> = b32.iter().map(|&x| x as f64).collect();
    let c0_32: Vec<f64> = c0.iter().map(|&x| x as f32 as f64).collect();
    let (want32, _) = naive(&d, &a32d, &b32d, &c0_32);
    // Integers through the generic path: small values, so the f64 naive sum is exact.
    let to_int = |v: &[f64]| -> Vec<i64> {
        v.iter()
            .map(|&x| {
                if x.is_nan() {
                    -7
                } else {
                    (x * 100.0).round() as i64
                }
            })
            .collect()
    };
    let (ai, bi, ci0) = (to_int(&a), to_int(&b), to_int(&c0));
    let mut ci = ci0.clone();
    gemm(&d, &ai, &bi, &mut ci, &mut s).unwrap();
    let f = |v: &[i64]| -> Vec<f64> { v.iter().map(|&x| x as f64).collect() };
    let (want_i, _) = naive(&d, &f(&ai), &f(&bi), &f(&ci0));
    for o in 0..clen {
        assert_eq!(ci[o] as f64, want_i[o], "{ctx}: i64 c[{o}]");
    }
    for o in 0..clen {
        if want[o].is_nan() {
            // Padding (never written): must still be NaN.
            assert!(
                c64[o].is_nan() && c32[o].is_nan(),
                "{ctx}: padding at {o} written"
            );
            continue;
        }
        let tol64 = (k as f64 + 2.0) * 1.2e-16 * mag[o] + 1e-300;
        let tol32 = (k as f64 + 2.0) * 6.0e-8 * mag[o] + 1e-30;
        assert!(
            (c64[o] - want[o]).abs() <= tol64,
            "{ctx}: f64 c[{o}] = {} want {}",
            c64[o],
            want[o]
        );
        assert!(
            (c32[o] as f64 - want32[o]).abs() <= tol32,
            "{ctx}: f32 c[{o}] = {} want {}",
            c32[o],
            want32[o]
        );
    }
}

#[test]
fn sweep_sizes_around_block_sizes() {
    let Blocking { mr, nr, mc, .. } = blocking::<f32>(cpu::level());
    let ms = [1, 2, mr - 1, mr, mr + 1, 2 * mr + 1, mc + 1];
    let ns = [1, 3, nr - 1, nr, nr + 1, 2 * nr + 5];
    let ks = [0, 1, 7, KC - 1, KC + 1];
    for &m in &ms {
        for &n in &ns {
            for &k in &ks {
                for acc in [false, true] {
                    check_case(
                        1,
                        m,
                        n,
                        k,
                        Layout::RowMajor,
                        Layout::RowMajor,
                        Layout::RowMajor,
                        acc,
                    );
                }
            }
        }
    }
}

#[test]
fn every_layout_combination() {
    use Layout::*;
    let all = [RowMajor, ColMajor, Padded];
    for &(m, n, k) in &[
        (1, 37, 19),
        (23, 1, 19),
        (1, 1, 40),
        (13, 29, 300),
        (7, 5, 3),
    ] {
        for la in all {
            for lb in all {
                for lc in all {
                    check_case(1, m, n, k, la, lb, lc, false);
                    check_case(2, m, n, k, la, lb, lc, true);
                }
            }
        }
    }
}

#[test]
fn batches_large_and_parallel() {
    use Layout::*;
    // Per-item parallel, batch-parallel (small items), m == 1 parallel, KC/MC/NC edges.
    check_case(2, 130, 70, 300, RowMajor, ColMajor, Padded, false);
    check_case(40, 20, 20, 30, RowMajor, RowMajor, RowMajor, true);
    check_case(3, 1, 1000, 800, RowMajor, RowMajor, RowMajor, false);
    check_case(1, 700, 1, 900, ColMajor, RowMajor, RowMajor, false);
    check_case(1, 250, 300, 600, Padded, Padded, ColMajor, true);
}

#[test]
fn broadcast_b_with_zero_batch_stride() {
    let (batch, m, n, k) = (3, 9, 17, 11);
    let a: Vec<f32> = fill(batch * m * k, 5).iter().map(|&x| x as f32).collect();
    let b: Vec<f32> = fill(k * n, 6).iter().map(|&x| x as f32).collect();
    let mut d = GemmDesc::row_major(batch, m, n, k);
    d.b_batch_stride = 0;
    let mut c = vec![f32::NAN; batch * m * n];
    gemm(&d, &a, &b, &mut c, &mut GemmScratch::new()).unwrap();
    for bi in 0..batch {
        let mut one = vec![f32::NAN; m * n];
        let d1 = GemmDesc::row_major(1, m, n, k);
        gemm(
            &d1,
            &a[bi * m * k..(bi + 1) * m * k],
            &b,
            &mut one,
            &mut GemmScratch::new(),
        )
        .unwrap();
        assert_eq!(&c[bi * m * n..(bi + 1) * m * n], &one[..]);
    }
}

pub(super) fn with_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("thread pool")
        .install(f)
}

#[test]
fn identical_bits_on_one_and_two_threads() {
    for &(batch, m, n, k) in &[
        (1, 301, 257, 517),
        (1, 1, 3000, 700),
        (1, 2000, 1, 700),
        (64, 16, 16, 64),
        (1, 8, 784, 128),
    ] {
        let a: Vec<f32> = fill(batch * m * k, 7).iter().map(|&x| x as f32).collect();
        let b: Vec<f32> = fill(batch * k * n, 8).iter().map(|&x| x as f32).collect();
        let d = GemmDesc::row_major(batch, m, n, k);
        let run = |threads| {
            with_threads(threads, || {
                let mut c = vec![f32::NAN; batch * m * n];
                gemm(&d, &a, &b, &mut c, &mut GemmScratch::new()).unwrap();
                c
            })
        };
        let (one, two, three) = (run(1), run(2), run(3));
        assert!(
            one.iter()
                .zip(&two)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{batch}x{m}x{n}x{k}"
        );
        assert!(
            one.iter()
                .zip(&three)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{batch}x{m}x{n}x{k}"
        );
    }
}

#[test]
fn scratch_is_reusable_across_shapes_and_types() {
    let mut s = GemmScratch::new();
    for &(m, n, k) in &[(50, 60, 70), (3, 4, 5), (130, 10, 300)] {
        let a: Vec<f64> = fill(m * k, 9);
        let b: Vec<f64> = fill(k * n, 10);
        let d = GemmDesc::row_major(1, m, n, k);
        let mut c1 = vec![f64::NAN; m * n];
        let mut c2 = vec![f64::NAN; m * n];
        gemm(&d, &a, &b, &mut c1, &mut s).unwrap();
        gemm(&d, &a, &b, &mut c2, &mut GemmScratch::new()).unwrap();
        assert_eq!(c1, c2);
    }
}

#[test]
fn k_zero_gives_zero_or_keeps_c() {
    let d = GemmDesc::row_major(2, 3, 4, 0);
    let mut c = vec![f32::NAN; 24];
    gemm::<f32>(&d, &[], &[], &mut c, &mut GemmScratch::new()).unwrap();
    assert!(c.iter().all(|&x| x == 0.0 && x.is_sign_positive()));
    let mut c = vec![5i32; 24];
    gemm::<i32>(
        &GemmDesc {
            accumulate: true,
            ..d
        },
        &[],
        &[],
        &mut c,
        &mut GemmScratch::new(),
    )
    .unwrap();
    assert!(c.iter().all(|&x| x == 5));
}

#[test]
fn bad_strides_are_errors_not_panics() {
    let d = GemmDesc::row_major(1, 4, 5, 6);
    let (a, b) = (vec![1.0f32; 24], vec![1.0f32; 30]);
    let mut c = vec![0.0f32; 20];
    let mut s = GemmScratch::new();
    assert!(gemm(&d, &a, &b, &mut c, &mut s).is_ok());
    let e = gemm(&d, &a[..23], &b, &mut c, &mut s).unwrap_err();
    assert_eq!(
        e,
        GemmError::OutOfBounds {
            operand: 'A',
            min_offset: 0,
            max_offset: 23,
            len: 23
        }
    );
    assert!(e.to_string().contains("operand A"));
    assert!(matches!(
        gemm(&d, &a, &b[..29], &mut c, &mut s),
        Err(GemmError::OutOfBounds { operand: 'B', .. })
    ));
    assert!(matches!(
        gemm(&d, &a, &b, &mut c[..19], &mut s),
        Err(GemmError::OutOfBounds { operand: 'C', .. })
    ));
    // Negative stride reaching below offset 0.
    let neg = GemmDesc {
        a_row_stride: -6,
        ..d
    };
    assert!(matches!(
        gemm(&neg, &a, &b, &mut c, &mut s),
        Err(GemmError::OutOfBounds {
            operand: 'A',
            min_offset: -18,
            ..
        })
    ));
    // Two batches of C at the same place, or a zero column stride: overlapping output.
    let over = GemmDesc {
        batch: 2,
        c_batch_stride: 0,
        b_batch_stride: 0,
        a_batch_stride: 0,
        ..d
    };
    assert!(matches!(
        gemm(&over, &a, &b, &mut c, &mut s),
        Err(GemmError::OverlappingOutput { .. })
    ));
    let over = GemmDesc {
        c_col_stride: 0,
        ..d
    };
    assert!(matches!(
        gemm(&over, &a, &b, &mut c, &mut s),
        Err(GemmError::OverlappingOutput { .. })
    ));
    let over = GemmDesc {
        c_row_stride: 4,
        ..d
    };
    assert!(matches!(
        gemm(&over, &a, &b, &mut c, &mut s),
        Err(GemmError::OverlappingOutput { .. })
    ));
    // Huge strides do not overflow the check.
    let huge = GemmDesc {
        a_row_stride: isize::MAX,
        ..d
    };
    assert!(matches!(
        gemm(&huge, &a, &b, &mut c, &mut s),
        Err(GemmError::OutOfBounds { .. })
    ));
    // Nothing was written by the failing calls.
    assert!(c.iter().all(|&x| x == 6.0));
}

/// Generic element types against a naive loop in their own arithmetic.
fn check_generic<T: GemmElem + PartialEq + std::fmt::Debug>(
    vals: impl Fn(u64) -> T,
    mul_acc: impl Fn(T, T, T) -> T,
    zero: T,
    add: impl Fn(T, T) -> T,
) {
    for &(batch, m, n, k, acc) in &[
        (1, 3, 4, 5, false),
        (2, 7, 1, 9, true),
        (1, 1, 6, 0, false),
        (3, 5, 5, 17, false),
        // Above the parallel threshold.
        (2, 70, 90, 200, true),
    ] {
        let d = GemmDesc {
            accumulate: acc,
            ..GemmDesc::row_major(batch, m, n, k)
        };
        let a: Vec<T> = (0..batch * m * k).map(|i| vals(i as u64 * 3 + 1)).collect();
        let b: Vec<T> = (0..batch * k * n).map(|i| vals(i as u64 * 5 + 2)).collect();
        let c0: Vec<T> = (0..batch * m * n).map(|i| vals(i as u64 + 7)).collect();
        let mut c = c0.clone();
        gemm(&d, &a, &b, &mut c, &mut GemmScratch::new()).unwrap();
        for bi in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let mut s = zero;
                    for p in 0..k {
                        s = mul_acc(s, a[bi * m * k + i * k + p], b[bi * k * n + p * n + j]);
                    }
                    let o = bi * m * n + i * n + j;
                    let want = if acc { add(c0[o], s) } else { s };
                    assert_eq!(c[o], want, "{batch}x{m}x{n}x{k} at {o}");
                }
            }
        }
    }
}

#[test]
fn integer_bool_complex_and_half_types() {
    check_generic(
        |i| (i * 37 % 251) as u8,
        |s, a, b| s.wrapping_add(a.wrapping_mul(b)),
        0u8,
        u8::wrapping_add,
    );
    check_generic(
        |i| (i as i32).wrapping_mul(1_000_003).wrapping_sub(7),
        |s, a, b| s.wrapping_add(a.wrapping_mul(b)),
        0i32,
        i32::wrapping_add,
    );
    check_generic(
        |i| (i as i64) << 40,
        |s, a, b| s.wrapping_add(a.wrapping_mul(b)),
        0i64,
        i64::wrapping_add,
    );
    check_generic(|i| i % 3 == 0, |s, a, b| s | (a & b), false, |x, y| x | y);
    check_generic(
        |i| Complex::new(i as f64 * 0.5, 1.0 - i as f64),
        |s, a, b| s + a * b,
        Complex::new(0.0, 0.0),
        |x, y| x + y,
    );
    // f16 / bf16: the f32 kernel on widened operands, rounded once: within half an ulp (plus
    // the f32 summation error) of the exact sum, so at most 1 ulp of the narrow type away.
    for &(m, n, k, acc) in &[
        (3usize, 4usize, 300usize, false),
        (1, 1, 5, true),
        (9, 40, 33, true),
        (2, 3, 0, false),
    ] {
        let d = GemmDesc {
            accumulate: acc,
            ..GemmDesc::row_major(1, m, n, k)
        };
        let a: Vec<f16> = (0..m * k)
            .map(|i| f16::from_f32((i % 13) as f32 * 0.37 - 2.0))
            .collect();
        let b: Vec<f16> = (0..k * n)
            .map(|i| f16::from_f32((i % 7) as f32 * 0.11 + 0.5))
            .collect();
        let c0: Vec<f16> = (0..m * n).map(|i| f16::from_f32(i as f32 * 0.25)).collect();
        let mut c = c0.clone();
        gemm(&d, &a, &b, &mut c, &mut GemmScratch::new()).unwrap();
        let ab: Vec<bf16> = a.iter().map(|x| bf16::from_f32(x.to_f32())).collect();
        let bb: Vec<bf16> = b.iter().map(|x| bf16::from_f32(x.to_f32())).collect();
        let cb0: Vec<bf16> = c0.iter().map(|x| bf16::from_f32(x.to_f32())).collect();
        let mut cb = cb0.clone();
        gemm(&d, &ab, &bb, &mut cb, &mut GemmScratch::new()).unwrap();
        for i in 0..m {
            for j in 0..n {
                let o = i * n + j;
                let exact = (0..k).fold(0.0f64, |s, p| {
                    s + a[i * k + p].to_f64() * b[p * n + j].to_f64()
                });
                let r = f16::from_f64(exact);
                let want = if acc {
                    f16::from_f32(c0[o].to_f32() + r.to_f32())
                } else {
                    r
                };
                assert!(
                    (c[o].to_bits() as i32 - want.to_bits() as i32).abs() <= 1,
                    "f16 {m}x{n}x{k} [{o}]: {} vs {}",
                    c[o],
                    want
                );
                let exact_b = (0..k).fold(0.0f64, |s, p| {
                    s + ab[i * k + p].to_f64() * bb[p * n + j].to_f64()
                });
                let rb = bf16::from_f64(exact_b);
                let want_b = if acc {
                    bf16::from_f32(cb0[o].to_f32() + rb.to_f32())
                } else {
                    rb
                };
                assert!(
                    (cb[o].to_bits() as i32 - want_b.to_bits() as i32).abs() <= 1,
                    "bf16 {m}x{n}x{k} [{o}]: {} vs {}",
                    cb[o],
                    want_b
                );
            }
        }
    }
}

#[test]
fn out_ptr_accesses_are_bounds_checked() {
    let mut c = [1.0f32; 4];
    let out = OutPtr::new(&mut c);
    // SAFETY: single-threaded; offsets in bounds.
    unsafe {
        out.set(3, 5.0);
        assert_eq!(out.get(3), 5.0);
        out.slice(1, 3)[0] = 2.0;
    }
    for bad in [4usize, usize::MAX] {
        let mut c = [0.0f32; 4];
        let out = OutPtr::new(&mut c);
        // SAFETY: single-threaded; the call must panic before touching memory.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { out.get(bad) }));
        assert!(r.is_err(), "get({bad}) must panic");
        // SAFETY: as above.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            unsafe { out.slice(2, bad.min(3)) }.len()
        }));
        assert!(r.is_err(), "slice(2, {bad}) must panic");
        // A prefetch out of bounds is ignored (no pointer is formed), in bounds it changes
        // nothing.
        out.prefetch(bad);
        out.prefetch(3);
    }
    assert_eq!(c, [1.0, 2.0, 1.0, 5.0]);
}

#[test]
fn gemm_auto_matches_gemm_and_nests() {
    let (m, n, k) = (33, 21, 70);
    let a: Vec<f32> = fill(m * k, 11).iter().map(|&x| x as f32).collect();
    let b: Vec<f32> = fill(k * n, 12).iter().map(|&x| x as f32).collect();
    let d = GemmDesc::row_major(1, m, n, k);
    let mut want = vec![f32::NAN; m * n];
    gemm(&d, &a, &b, &mut want, &mut GemmScratch::new()).unwrap();
    let mut got = vec![f32::NAN; m * n];
    gemm_auto(&d, &a, &b, &mut got).unwrap();
    assert_eq!(got, want);
    // Nested use on one thread (the cached scratch is busy): still correct.
    THREAD_SCRATCH.with(|cell| {
        let _busy = cell.borrow_mut();
        let mut inner = vec![f32::NAN; m * n];
        gemm_auto(&d, &a, &b, &mut inner).unwrap();
        assert_eq!(inner, want);
    });
    assert!(gemm_auto(&d, &a[..10], &b, &mut got).is_err());
}

/// A copy of `x` (`batch x rows x cols`, row-major) in layout `l`, NaN in the gaps.
pub(super) fn relayout(
    x: &[f32],
    l: Layout,
    batch: usize,
    rows: usize,
    cols: usize,
) -> (Vec<f32>, [isize; 3]) {
    let (s, len) = layout(l, batch, rows, cols);
    let mut y = vec![f32::NAN; len];
    for bi in 0..batch {
        for i in 0..rows {
            for j in 0..cols {
                y[offset(bi, i, j, s)] = x[(bi * rows + i) * cols + j];
            }
        }
    }
    (y, s)
}

/// Packed or read in place, A or B transposed, C column-major, items in parallel or not: every
/// element sums the same products in the same order, so every layout gives the same bits.
/// Sizes straddle the in-place limits (`DIRECT_MAX_M`, `UNPACKED_MAX_BYTES`) and MR / NR / KC
/// of the kernel in use.
#[test]
fn every_path_gives_the_same_bits() {
    use kernel::UNPACKED_MAX_BYTES;
    use Layout::*;
    let Blocking {
        mr,
        nr,
        mc,
        direct_max_m,
    } = blocking::<f32>(cpu::level());
    // k such that A + B of an m x n x k f32 product is just over the in-place limit.
    let k_over = |m: usize, n: usize| UNPACKED_MAX_BYTES / 4 / (m + n) + 1;
    let shapes = [
        (1, direct_max_m, 2 * nr + 3, 300),
        (1, direct_max_m + 1, nr, 300),
        (1, 2 * mr + 1, nr + 1, k_over(2 * mr + 1, nr + 1)),
        (1, 50, 40, k_over(50, 40) - 1),
        (1, 50, 40, k_over(50, 40)),
        (1, mc + 7, 3 * nr - 1, KC + 9),
        (6, 37, 29, 41),
    ];
    for &(batch, m, n, k) in &shapes {
        let a: Vec<f32> = fill(batch * m * k, 21).iter().map(|&x| x as f32).collect();
        let b: Vec<f32> = fill(batch * k * n, 22).iter().map(|&x| x as f32).collect();
        let mut want = vec![f32::NAN; batch * m * n];
        gemm(
            &GemmDesc::row_major(batch, m, n, k),
            &a,
            &b,
            &mut want,
            &mut GemmScratch::new(),
        )
        .unwrap();
        for la in [RowMajor, ColMajor, Padded] {
            for lb in [RowMajor, ColMajor, Padded] {
                for lc in [RowMajor, ColMajor] {
                    let (ax, sa) = relayout(&a, la, batch, m, k);
                    let (bx, sb) = relayout(&b, lb, batch, k, n);
                    let (sc, clen) = layout(lc, batch, m, n);
                    let d = desc(batch, m, n, k, sa, sb, sc, false);
                    let mut c = vec![f32::NAN; clen];
                    with_threads(2, || gemm(&d, &ax, &bx, &mut c, &mut GemmScratch::new()))
                        .unwrap();
                    for bi in 0..batch {
                        for i in 0..m {
                            for j in 0..n {
                                let (g, w) = (c[offset(bi, i, j, sc)], want[(bi * m + i) * n + j]);
                                assert_eq!(
                                    g.to_bits(),
                                    w.to_bits(),
                                    "{batch}x{m}x{n}x{k} {la:?} {lb:?} {lc:?} at ({bi},{i},{j})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
