use num_complex::Complex;
use xla_core::FftType;

use super::FftPlan;

type C = Complex<f64>;

/// The defining sum along one axis, for the checks (`O(n^2)`).
fn dft(x: &[C], inverse: bool) -> Vec<C> {
    let n = x.len();
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|k| {
            let s: C = x
                .iter()
                .enumerate()
                .map(|(j, &v)| {
                    let t = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    v * C::new(t.cos(), t.sin())
                })
                .sum();
            if inverse {
                s / n as f64
            } else {
                s
            }
        })
        .collect()
}

/// The DFT of every line along `axis` of `dims`.
fn dft_axis(x: &[C], dims: &[usize], axis: usize, inverse: bool) -> Vec<C> {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let mut y = x.to_vec();
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * n + j) * inner + i;
            let line: Vec<C> = (0..n).map(|j| x[at(j)]).collect();
            for (j, v) in dft(&line, inverse).into_iter().enumerate() {
                y[at(j)] = v;
            }
        }
    }
    y
}

fn signal(len: usize, seed: usize) -> Vec<C> {
    (0..len)
        .map(|i| {
            let a = ((i * 7919 + seed * 104729) % 1009) as f64 / 1009.0 - 0.5;
            let b = ((i * 6151 + seed * 7) % 997) as f64 / 997.0 - 0.5;
            C::new(a, b)
        })
        .collect()
}

fn max_diff(a: &[C], b: &[C]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max)
}

#[test]
fn c2c_matches_the_defining_sum_over_1_to_3_axes_and_batches() {
    let shapes: [(&[usize], usize); 7] = [
        (&[1], 1),
        (&[3, 2], 1),
        (&[4, 7], 1),
        (&[2, 97], 1),
        (&[2, 12, 5], 2),
        (&[3, 4, 6, 5], 3),
        (&[40, 360], 1),
    ];
    for (dims, l) in shapes {
        let total: usize = dims.iter().product();
        let x = signal(total, dims.len());
        let lens = &dims[dims.len() - l..];
        for kind in [FftType::Fft, FftType::Ifft] {
            let mut plan = FftPlan::<f64>::new(kind, dims, lens).unwrap();
            let mut y = vec![C::default(); total];
            plan.c2c(&x, &mut y).unwrap();
            let mut want = x.clone();
            for a in dims.len() - l..dims.len() {
                want = dft_axis(&want, dims, a, kind == FftType::Ifft);
            }
            let d = max_diff(&y, &want);
            assert!(d < 1e-12, "{kind:?} {dims:?} over {lens:?}: {d:e}");
            // A second call on the same plan gives the same bits.
            let mut again = vec![C::default(); total];
            plan.c2c(&x, &mut again).unwrap();
            assert_eq!(y, again);
        }
    }
}

#[test]
fn large_batches_split_over_tasks_give_the_bits_of_one_task() {
    // 64 x 1024 elements: above the parallel threshold, so the passes run in tasks.
    let dims = [64usize, 32, 32];
    let x = signal(dims.iter().product(), 3);
    let mut y = vec![C::default(); x.len()];
    FftPlan::<f64>::new(FftType::Fft, &dims, &[32, 32])
        .unwrap()
        .c2c(&x, &mut y)
        .unwrap();
    // Each batch entry alone (below the threshold: one task).
    for b in 0..64 {
        let part = &x[b * 1024..(b + 1) * 1024];
        let mut one = vec![C::default(); 1024];
        FftPlan::<f64>::new(FftType::Fft, &[32, 32], &[32, 32])
            .unwrap()
            .c2c(part, &mut one)
            .unwrap();
        assert_eq!(&y[b * 1024..(b + 1) * 1024], &one[..], "batch {b}");
    }
}

#[test]
fn column_passes_over_partial_tiles_in_tasks_match_the_sum_on_any_thread_count() {
    // 75 columns: two full groups of `TILE` (32) and a partial one of 11, in each of 2
    // blocks; 2 x 300 x 75 = 45000 elements, above the parallel threshold. The first pass
    // reads the input (outer axis) and the later ones run in place.
    let dims = [2usize, 300, 75];
    let x = signal(dims.iter().product(), 5);
    for (kind, lens) in [
        (FftType::Fft, &dims[1..]),
        (FftType::Ifft, &dims[1..]),
        (FftType::Fft, &dims[..]),
    ] {
        let run = |threads: usize| {
            let mut y = vec![C::default(); x.len()];
            let mut plan = FftPlan::<f64>::new(kind, &dims, lens).unwrap();
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| plan.c2c(&x, &mut y).unwrap());
            y
        };
        let y = run(2);
        let mut want = x.clone();
        for a in dims.len() - lens.len()..dims.len() {
            want = dft_axis(&want, &dims, a, kind == FftType::Ifft);
        }
        let d = max_diff(&y, &want);
        assert!(d < 1e-10, "{kind:?} over {lens:?}: {d:e}");
        assert_eq!(y, run(1), "{kind:?} over {lens:?}: 1 vs 2 threads");
        assert_eq!(y, run(3), "{kind:?} over {lens:?}: 3 vs 2 threads");
    }
}

#[test]
fn r2c_and_c2r_against_the_complex_transform() {
    let shapes: [(&[usize], usize); 6] = [
        (&[1], 1),
        (&[2], 1),
        (&[3, 7], 1),
        (&[2, 8], 1),
        (&[2, 5, 6], 2),
        (&[2, 3, 4, 9], 3),
    ];
    for (dims, l) in shapes {
        let total: usize = dims.iter().product();
        let x: Vec<f64> = signal(total, 5).iter().map(|c| c.re).collect();
        let lens = &dims[dims.len() - l..];
        let n = dims[dims.len() - 1];
        let half = n / 2 + 1;
        let mut cdims = dims.to_vec();
        *cdims.last_mut().unwrap() = half;
        let ctotal: usize = cdims.iter().product();
        let mut y = vec![C::default(); ctotal];
        FftPlan::<f64>::new(FftType::Rfft, dims, lens)
            .unwrap()
            .r2c(&x, &mut y)
            .unwrap();
        let mut full: Vec<C> = x.iter().map(|&r| C::new(r, 0.0)).collect();
        for a in dims.len() - l..dims.len() {
            full = dft_axis(&full, dims, a, false);
        }
        let want: Vec<C> = full.chunks(n).flat_map(|r| r[..half].to_vec()).collect();
        assert!(max_diff(&y, &want) < 1e-12, "RFFT {dims:?}");
        // IRFFT of it is the signal again.
        let mut back = vec![0.0; total];
        FftPlan::<f64>::new(FftType::Irfft, &cdims, lens)
            .unwrap()
            .c2r(&y, &mut back)
            .unwrap();
        let d = back
            .iter()
            .zip(&x)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(d < 1e-12, "IRFFT {cdims:?}: {d:e}");
    }
}

#[test]
fn c2r_drops_imaginary_parts_of_dc_and_nyquist() {
    // XLA:CPU's (and numpy's) irfft of these bins, n = 4: [2, -1, 0, 0].
    let bins = [C::new(1.0, 5.0), C::new(2.0, 1.0), C::new(3.0, -2.0)];
    let mut y = [0.0f64; 4];
    FftPlan::<f64>::new(FftType::Irfft, &[3], &[4])
        .unwrap()
        .c2r(&bins, &mut y)
        .unwrap();
    for (a, b) in y.iter().zip([2.0, -1.0, 0.0, 0.0]) {
        assert!((a - b).abs() < 1e-15, "{y:?}");
    }
}

#[test]
fn wrong_shapes_are_errors() {
    assert!(FftPlan::<f32>::new(FftType::Fft, &[4, 8], &[4, 4]).is_err());
    assert!(FftPlan::<f32>::new(FftType::Irfft, &[8], &[8]).is_err());
    assert!(FftPlan::<f32>::new(FftType::Fft, &[2, 2, 2, 2], &[2, 2, 2, 2]).is_err());
    let mut p = FftPlan::<f32>::new(FftType::Fft, &[8], &[8]).unwrap();
    let x = vec![Complex::new(0.0f32, 0.0); 8];
    let mut y = vec![Complex::new(0.0f32, 0.0); 7];
    assert!(p.c2c(&x, &mut y).is_err());
    let mut z = vec![0.0f32; 8];
    assert!(p.c2r(&x, &mut z).is_err());
    // Empty arrays transform to nothing.
    let mut e = FftPlan::<f32>::new(FftType::Fft, &[2, 0], &[0]).unwrap();
    assert!(e.c2c(&[], &mut []).is_ok());
}

/// Every row length up to 80 and a few long ones (the butterflies' vector loop, its tail and
/// the middle bin): RFFT against the defining sum, IRFFT of a spectrum with nonzero imaginary
/// parts in bins 0 and n/2 against the sum over the Hermitian spectrum without them, in f64
/// and f32.
#[test]
fn real_transforms_of_every_length_match_the_sum() {
    let lens = (1..=80).chain([96, 130, 257, 1000, 4096]);
    for n in lens {
        let half = n / 2 + 1;
        let x: Vec<f64> = signal(n, n).iter().map(|c| c.re).collect();
        let full = dft(
            &x.iter().map(|&r| C::new(r, 0.0)).collect::<Vec<_>>(),
            false,
        );
        let mut y = vec![C::default(); half];
        FftPlan::<f64>::new(FftType::Rfft, &[n], &[n])
            .unwrap()
            .r2c(&x, &mut y)
            .unwrap();
        let scale = (n as f64).sqrt();
        assert!(
            max_diff(&y, &full[..half]) < 1e-13 * scale,
            "f64 RFFT n = {n}"
        );
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut y32 = vec![Complex::<f32>::default(); half];
        FftPlan::<f32>::new(FftType::Rfft, &[n], &[n])
            .unwrap()
            .r2c(&x32, &mut y32)
            .unwrap();
        let y32: Vec<C> = y32
            .iter()
            .map(|c| C::new(c.re.into(), c.im.into()))
            .collect();
        assert!(
            max_diff(&y32, &full[..half]) < 1e-5 * scale,
            "f32 RFFT n = {n}"
        );

        let mut bins = signal(half, n + 1);
        let mut herm = vec![C::default(); n];
        for k in 0..half {
            herm[k] = bins[k];
            herm[(n - k) % n] = bins[k].conj();
        }
        herm[0].im = 0.0;
        if n % 2 == 0 {
            herm[n / 2].im = 0.0;
        }
        let want: Vec<f64> = dft(&herm, true).iter().map(|c| c.re).collect();
        let mut back = vec![0.0; n];
        FftPlan::<f64>::new(FftType::Irfft, &[half], &[n])
            .unwrap()
            .c2r(&bins, &mut back)
            .unwrap();
        let d = back
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(d < 1e-14 * scale, "f64 IRFFT n = {n}: {d:e}");
        bins[0].im = 7.0;
        let bins32: Vec<Complex<f32>> = bins
            .iter()
            .map(|c| Complex::new(c.re as f32, c.im as f32))
            .collect();
        let mut back32 = vec![0.0f32; n];
        FftPlan::<f32>::new(FftType::Irfft, &[half], &[n])
            .unwrap()
            .c2r(&bins32, &mut back32)
            .unwrap();
        let d = back32
            .iter()
            .zip(&want)
            .map(|(&a, b)| (f64::from(a) - b).abs())
            .fold(0.0, f64::max);
        assert!(d < 1e-6 * scale, "f32 IRFFT n = {n}: {d:e}");
    }
}

/// The butterflies at every level this CPU runs give the scalar loop's bits, for every pair
/// count up to 70 (whole vectors, tails, with and without a middle bin), forward and inverse.
#[test]
fn real_butterflies_are_the_same_bits_at_every_level() {
    use super::FftFloat;
    use crate::cpu::{self, IsaLevel};
    fn check<T: FftFloat + std::fmt::Debug>(of: impl Fn(f64) -> T) {
        for len in 0..=70usize {
            let io: Vec<Complex<T>> = signal(len, len)
                .iter()
                .map(|c| Complex::new(of(c.re), of(c.im)))
                .collect();
            let tw = signal(len / 2 + 1, 3 * len + 1);
            let tw_re: Vec<T> = tw.iter().flat_map(|c| [of(c.re), of(c.re)]).collect();
            let tw_im: Vec<T> = tw.iter().flat_map(|c| [of(c.im), of(c.im)]).collect();
            for half in [of(0.5), of(1.0)] {
                let mut want = io.clone();
                T::pairs(IsaLevel::Baseline, &mut want, &tw_re, &tw_im, half);
                for level in IsaLevel::ALL.into_iter().filter(|&l| l <= cpu::supported()) {
                    let mut got = io.clone();
                    T::pairs(level, &mut got, &tw_re, &tw_im, half);
                    assert_eq!(got, want, "{} pairs of {len} bins", level.name());
                }
            }
        }
    }
    check(|v| v as f32);
    check(|v| v);
}
