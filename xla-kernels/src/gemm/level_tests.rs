//! Every instruction-set level this CPU runs, in one process (not through the
//! `XLA_KERNELS_MAX_ISA` cap): each against the f64 definition within the forward-error bound,
//! against the portable path (the same bits where the portable build fuses multiply-adds, else
//! within the bound: they may differ only by FMA contraction), the vector levels against each
//! other bit for bit, and on 1 and 2 threads bit for bit. Sizes straddle every level's tile and
//! block sizes; outputs start as NaN (an element left unwritten shows) with NaN gaps between
//! rows and matrices (an element written out of place shows).

use super::kernel::{gemm_at, Buffers, FloatElem, COLUMN_SPLIT_MAX_M, KC};
use super::tests::{blocking, desc, fill, layout, naive, with_threads, Layout};
use super::{validate, GemmDesc};
use crate::cpu::{self, IsaLevel};

/// The levels this CPU runs, narrowest first.
fn levels() -> Vec<IsaLevel> {
    IsaLevel::ALL
        .into_iter()
        .filter(|&l| l <= cpu::supported())
        .collect()
}

/// f32 and f64 as the tests need them.
trait Real: FloatElem + std::fmt::Debug {
    /// Unit roundoff.
    const EPS: f64;
    fn from64(x: f64) -> Self;
    fn to64(self) -> f64;
}
impl Real for f32 {
    const EPS: f64 = 6.0e-8;
    fn from64(x: f64) -> Self {
        x as f32
    }
    fn to64(self) -> f64 {
        self as f64
    }
}
impl Real for f64 {
    const EPS: f64 = 1.2e-16;
    fn from64(x: f64) -> Self {
        x
    }
    fn to64(self) -> f64 {
        self
    }
}

/// `c0` after the GEMM `d` at `level` on `threads` threads.
fn run_at<T: Real>(
    level: IsaLevel,
    d: &GemmDesc,
    a: &[T],
    b: &[T],
    c0: &[T],
    threads: usize,
) -> Vec<T> {
    validate(d, a.len(), b.len(), c0.len()).expect("valid case");
    let mut c = c0.to_vec();
    with_threads(threads, || {
        gemm_at(level, d, a, b, &mut c, &mut Buffers::default())
    });
    c
}

/// Checks one case at every level (see the module docs); `seed` varies the data.
fn check<T: Real>(d: &GemmDesc, lens: [usize; 3], seed: u64) {
    let round = |v: Vec<f64>| -> Vec<T> { v.into_iter().map(T::from64).collect() };
    let a = round(fill(lens[0], seed));
    let b = round(fill(lens[1], seed + 1));
    let c0 = round(if d.accumulate {
        fill(lens[2], seed + 2)
    } else {
        vec![f64::NAN; lens[2]]
    });
    let wide = |v: &[T]| -> Vec<f64> { v.iter().map(|x| x.to64()).collect() };
    let (want, mag) = naive(d, &wide(&a), &wide(&b), &wide(&c0));
    let tol = |o: usize| (d.k as f64 + 2.0) * T::EPS * mag[o] + 1e-300;
    let ctx = format!("{} {d:?}", core::any::type_name::<T>());
    let base = run_at(IsaLevel::Baseline, d, &a, &b, &c0, 2);
    let mut vector: Option<Vec<T>> = None;
    for level in levels() {
        let c = run_at(level, d, &a, &b, &c0, 2);
        let c1 = run_at(level, d, &a, &b, &c0, 1);
        for o in 0..c.len() {
            let (g, w) = (c[o].to64(), want[o]);
            let at = format!("{ctx} at {level:?}, c[{o}] = {g}, want {w}");
            assert_eq!(g.to_bits(), c1[o].to64().to_bits(), "{at}: 1 vs 2 threads");
            if w.is_nan() {
                assert!(g.is_nan(), "{at}: written outside C");
                continue;
            }
            assert!((g - w).abs() <= tol(o), "{at}: error above the bound");
            let p = base[o].to64();
            if cfg!(target_feature = "fma") {
                assert_eq!(g.to_bits(), p.to_bits(), "{at}: portable (fused) gave {p}");
            } else {
                assert!((g - p).abs() <= 2.0 * tol(o), "{at}: portable gave {p}");
            }
        }
        if level > IsaLevel::Baseline {
            if let Some(v) = &vector {
                let same = v
                    .iter()
                    .zip(&c)
                    .all(|(x, y)| x.to64().to_bits() == y.to64().to_bits());
                assert!(
                    same,
                    "{ctx}: {level:?} differs from the narrower vector level"
                );
            }
            vector = Some(c);
        }
    }
}

/// One `batch x m x n x k` case in layouts `l` (A, B, C), both types.
fn case(batch: usize, m: usize, n: usize, k: usize, l: [Layout; 3], acc: bool) {
    let (sa, alen) = layout(l[0], batch, m, k);
    let (sb, blen) = layout(l[1], batch, k, n);
    let (sc, clen) = layout(l[2], batch, m, n);
    let d = desc(batch, m, n, k, sa, sb, sc, acc);
    let seed = (m * 31 + n * 7 + k) as u64;
    check::<f32>(&d, [alen, blen, clen], seed);
    check::<f64>(&d, [alen, blen, clen], seed);
}

/// The largest tile rows and columns over the levels this CPU runs, and the largest A block.
fn widest() -> (usize, usize, usize) {
    levels().into_iter().fold((1, 1, 1), |(m, n, c), l| {
        let (b32, b64) = (blocking::<f32>(l), blocking::<f64>(l));
        (
            m.max(b32.mr).max(b64.mr),
            n.max(b32.nr),
            c.max(b32.mc).max(b64.mc),
        )
    })
}

#[test]
fn every_edge_row_count_and_column_edges() {
    use Layout::*;
    let (mr, nr, _) = widest();
    // Every row count of an edge panel, beside full and partial column panels; row-major
    // operands (read in place) and packed (column-major A, padded B).
    for m in 1..=mr + 1 {
        for n in [nr - 1, nr + 1, 2 * nr] {
            case(1, m, n, 9, [RowMajor; 3], false);
            case(1, m, n, KC + 3, [ColMajor, Padded, Padded], true);
        }
    }
}

#[test]
fn sizes_around_every_levels_blocks() {
    use Layout::*;
    let (mr, nr, mc) = widest();
    for m in [2 * mr + 3, mc + mr + 1] {
        for n in [3, nr + 5, 3 * nr - 1] {
            for k in [1, KC - 1, KC + 1] {
                case(1, m, n, k, [RowMajor; 3], false);
                case(1, m, n, k, [Padded, ColMajor, Padded], true);
            }
        }
    }
}

#[test]
fn every_layout_and_the_matrix_vector_paths() {
    use Layout::*;
    let all = [RowMajor, ColMajor, Padded];
    // m == 1 and n == 1 (dot and axpy forms), k around the dot form's 32 / 16 partial sums.
    for &(m, n, k) in &[
        (1, 37, 19),
        (23, 1, 33),
        (1, 1, 40),
        (1, 5, 31),
        (13, 29, 70),
    ] {
        for la in all {
            for lb in all {
                for lc in all {
                    case(1, m, n, k, [la, lb, lc], false);
                    case(2, m, n, k, [la, lb, lc], true);
                }
            }
        }
    }
}

#[test]
fn parallel_splits_and_batches() {
    use Layout::*;
    case(2, 130, 70, 300, [RowMajor, ColMajor, Padded], false);
    case(40, 20, 20, 30, [RowMajor; 3], true);
    case(3, 1, 1000, 800, [RowMajor; 3], false);
    case(1, 700, 1, 900, [ColMajor, RowMajor, RowMajor], false);
    case(1, 250, 300, 600, [Padded, Padded, ColMajor], true);
    // Split by columns (at most COLUMN_SPLIT_MAX_M rows, one fork) and by row blocks with a
    // fork per k slice (more rows), both above every level's split threshold.
    let m = COLUMN_SPLIT_MAX_M;
    case(1, m, 6 * 32 + 5, KC + 7, [RowMajor; 3], false);
    case(
        1,
        m + 2 * 12 + 1,
        150,
        2 * KC + 3,
        [RowMajor, Padded, RowMajor],
        true,
    );
}

#[test]
fn k_zero_and_broadcast_b() {
    use Layout::*;
    case(2, 7, 9, 0, [RowMajor; 3], false);
    case(2, 7, 9, 0, [RowMajor; 3], true);
    let (batch, m, n, k) = (3, 15, 35, 11);
    let mut d = GemmDesc::row_major(batch, m, n, k);
    d.b_batch_stride = 0;
    check::<f32>(&d, [batch * m * k, k * n, batch * m * n], 5);
    check::<f64>(&d, [batch * m * k, k * n, batch * m * n], 5);
}

#[test]
fn fma_chains_counts_its_flops_and_computes_the_recurrence() {
    let iters = 1000;
    let (flops, sum) = super::fma_chains(iters);
    let per_lane = (iters * super::PEAK_CHAINS * 2) as u64;
    assert_eq!(flops % per_lane, 0, "{flops} flops");
    let lanes = (flops / per_lane) as usize;
    assert!([4, 8, 16].contains(&lanes), "{lanes} lanes");
    // Every lane of every chain runs a = a * 0.999999 + 1e-7 from 1.
    let mut a = 1.0f64;
    for _ in 0..iters {
        a = a * f64::from(0.999_999f32) + f64::from(1e-7f32);
    }
    let want = a * (super::PEAK_CHAINS * lanes) as f64;
    // Two roundings per step at most (one fused), and the final sum's.
    let bound = (2 * iters + 64) as f64 * f32::EPSILON as f64 / 2.0;
    assert!(
        ((sum as f64) - want).abs() <= bound * want,
        "{sum} vs {want}"
    );
}

#[test]
fn transpose8_at_the_running_level_and_in_its_vectorize() {
    use super::{with_f32_isa, F32Isa, Isa};
    let rows: [[f32; 8]; 8] = core::array::from_fn(|j| {
        core::array::from_fn(|k| (j * 8 + k) as f32 + if k % 3 == 0 { -0.0 } else { 0.5 })
    });
    let want: [[f32; 8]; 8] = core::array::from_fn(|k| core::array::from_fn(|j| rows[j][k]));
    let isa = F32Isa::new();
    // Called plainly (the intrinsics as calls) and inside the level's function (inlined).
    assert_eq!(isa.transpose8(&rows), want);
    let inside = with_f32_isa!(isa, |s| s.vectorize(
        #[inline(always)]
        || isa.transpose8(&rows)
    ));
    assert_eq!(
        inside.map(|r| r.map(f32::to_bits)),
        want.map(|r| r.map(f32::to_bits))
    );
}
