//! Convolution vs a naive reference written straight from the StableHLO spec: one loop over
//! output coordinates, one over (input feature, kernel position), every tap checked for holes
//! and padding. Inputs are small integers so every float sum is exact and results compare
//! bit for bit; outputs are pre-filled with NaN (or a sentinel) to catch unwritten elements.

use super::*;

/// Deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn shuffle(&mut self, v: &mut [usize]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// Row-major multi-index of flat index `i` in `shape`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&x, &n)| acc * n + x)
}

/// The spec's output shape, computed independently of `ConvDesc::output_shape`.
fn ref_out_shape(d: &ConvDesc) -> Vec<usize> {
    let r = d.spatial_rank;
    let dm = &d.dims;
    let mut out = vec![0; r + 2];
    out[dm.output_batch] = d.input_shape[dm.input_batch] / d.batch_group_count;
    out[dm.output_feature] = d.kernel_shape[dm.kernel_output_feature];
    for i in 0..r {
        let n = d.input_shape[dm.input_spatial[i]] as i64;
        let k = d.kernel_shape[dm.kernel_spatial[i]] as i64;
        let dil = if n == 0 {
            0
        } else {
            (n - 1) * d.lhs_dilation[i] as i64 + 1
        };
        let padded = d.padding[i].0 + dil + d.padding[i].1;
        let win = if k == 0 {
            0
        } else {
            (k - 1) * d.rhs_dilation[i] as i64 + 1
        };
        out[dm.output_spatial[i]] = if padded <= 0 || win > padded {
            0
        } else {
            ((padded - win) / d.window_strides[i] as i64 + 1) as usize
        };
    }
    out
}

/// The 7-loop reference: `sum_{c, k} in[..] * ker[..]` in accumulator type `A`.
fn reference<T: Copy, A: Copy + Default + std::ops::Add<Output = A> + std::ops::Mul<Output = A>>(
    d: &ConvDesc,
    input: &[T],
    kernel: &[T],
    acc: impl Fn(T) -> A,
) -> Vec<A> {
    let r = d.spatial_rank;
    let n = r + 2;
    let dm = &d.dims;
    let (ins, ks) = (&d.input_shape[..n], &d.kernel_shape[..n]);
    let os = ref_out_shape(d);
    let groups = d.feature_group_count.max(d.batch_group_count);
    let o_total = ks[dm.kernel_output_feature];
    let og = o_total / groups;
    let ci = ks[dm.kernel_input_feature];
    let k_sp: Vec<usize> = (0..r).map(|i| ks[dm.kernel_spatial[i]]).collect();
    let taps: usize = k_sp.iter().product();
    let total: usize = os.iter().product();
    // Each tap's window index, once (not an allocation per output, feature and tap).
    let tap_idx: Vec<Vec<usize>> = (0..taps).map(|t| unravel(t, &k_sp)).collect();
    let mut out = vec![A::default(); total];
    for (flat, slot) in out.iter_mut().enumerate() {
        let oi = unravel(flat, &os);
        let (b, o) = (oi[dm.output_batch], oi[dm.output_feature]);
        let g = o / og;
        let nb = if d.batch_group_count > 1 {
            g * (ins[dm.input_batch] / d.batch_group_count) + b
        } else {
            b
        };
        let mut sum = A::default();
        for c in 0..ci {
            let f = if d.feature_group_count > 1 {
                g * ci + c
            } else {
                c
            };
            'tap: for k in &tap_idx {
                let mut ii = [0usize; MAX_RANK];
                let ii = &mut ii[..n];
                ii[dm.input_batch] = nb;
                ii[dm.input_feature] = f;
                for i in 0..r {
                    let j = if d.window_reversal[i] {
                        k_sp[i] - 1 - k[i]
                    } else {
                        k[i]
                    };
                    let pd = (oi[dm.output_spatial[i]] * d.window_strides[i]
                        + j * d.rhs_dilation[i]) as i64;
                    let q = pd - d.padding[i].0;
                    let ld = d.lhs_dilation[i] as i64;
                    if q < 0 || q % ld != 0 || q / ld >= ins[dm.input_spatial[i]] as i64 {
                        continue 'tap;
                    }
                    ii[dm.input_spatial[i]] = (q / ld) as usize;
                }
                let mut ki = [0usize; MAX_RANK];
                let ki = &mut ki[..n];
                ki[dm.kernel_output_feature] = o;
                ki[dm.kernel_input_feature] = c;
                for i in 0..r {
                    ki[dm.kernel_spatial[i]] = k[i];
                }
                sum = sum + acc(input[ravel(ii, ins)]) * acc(kernel[ravel(ki, ks)]);
            }
        }
        *slot = sum;
    }
    out
}

fn small_ints(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.range(-4, 4) as f32).collect()
}

/// Runs `conv::<f32>` on NaN-filled output and compares exactly with the reference.
fn check_f32(d: &ConvDesc, rng: &mut Rng, scratch: &mut ConvScratch) {
    let os = d.output_shape().expect("valid desc");
    assert_eq!(&os[..d.rank()], &ref_out_shape(d)[..], "{d:?}");
    let n = d.rank();
    let input = small_ints(rng, d.input_shape[..n].iter().product());
    let kernel = small_ints(rng, d.kernel_shape[..n].iter().product());
    let mut out = vec![f32::NAN; os[..n].iter().product()];
    conv(d, &input, &kernel, &mut out, scratch).expect("conv ok");
    let want = reference(d, &input, &kernel, |x| x as f64);
    for (i, (&g, &w)) in out.iter().zip(&want).enumerate() {
        assert_eq!(
            g as f64,
            w,
            "element {i} ({:?}) of {d:?}",
            unravel(i, &os[..n])
        );
    }
}

/// A random valid descriptor: rank 1-3, permuted dimension numbers, odd sizes, padding in
/// -2..=3, strides and dilations 1..=3, reversal, feature or batch groups.
fn random_desc(rng: &mut Rng) -> ConvDesc {
    let r = rng.range(1, 3) as usize;
    let n = r + 2;
    let perm = |rng: &mut Rng| {
        let mut p: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut p);
        p
    };
    let (pi, pk, po) = (perm(rng), perm(rng), perm(rng));
    let mut dims = ConvDims::nchw();
    dims.input_batch = pi[0];
    dims.input_feature = pi[1];
    dims.kernel_output_feature = pk[0];
    dims.kernel_input_feature = pk[1];
    dims.output_batch = po[0];
    dims.output_feature = po[1];
    dims.input_spatial[..r].copy_from_slice(&pi[2..]);
    dims.kernel_spatial[..r].copy_from_slice(&pk[2..]);
    dims.output_spatial[..r].copy_from_slice(&po[2..]);
    let groups = rng.range(1, 3) as usize;
    let batch_groups = rng.range(0, 2) == 0 && groups > 1;
    let (fg, bg) = if batch_groups {
        (1, groups)
    } else {
        (groups, 1)
    };
    let batch = bg * rng.range(if bg > 1 { 1 } else { 0 }, 2) as usize;
    let ci = rng.range(1, 3) as usize;
    let og = rng.range(1, 3) as usize;
    let mut ins = vec![0; n];
    let mut ks = vec![0; n];
    ins[dims.input_batch] = batch;
    ins[dims.input_feature] = ci * fg;
    ks[dims.kernel_input_feature] = ci;
    ks[dims.kernel_output_feature] = og * groups;
    let big = if r == 1 {
        13
    } else if r == 2 {
        7
    } else {
        4
    };
    for i in 0..r {
        ins[dims.input_spatial[i]] = rng.range(1, big) as usize;
        ks[dims.kernel_spatial[i]] = rng.range(1, 3) as usize;
    }
    let mut d = ConvDesc::new(&ins, &ks, dims).with_groups(fg, bg);
    for i in 0..r {
        d.window_strides[i] = rng.range(1, 3) as usize;
        d.lhs_dilation[i] = rng.range(1, 3) as usize;
        d.rhs_dilation[i] = rng.range(1, 3) as usize;
        d.padding[i] = (rng.range(-2, 3), rng.range(-2, 3));
        d.window_reversal[i] = rng.range(0, 3) == 0;
    }
    d
}

#[test]
fn random_sweep_matches_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut scratch = ConvScratch::new();
    let mut nonempty = 0;
    for _ in 0..600 {
        let d = random_desc(&mut rng);
        d.validate().unwrap_or_else(|e| panic!("{e} for {d:?}"));
        if d.output_shape().unwrap()[..d.rank()]
            .iter()
            .product::<usize>()
            > 0
        {
            nonempty += 1;
        }
        check_f32(&d, &mut rng, &mut scratch);
    }
    assert!(nonempty > 200, "only {nonempty} non-empty outputs");
}

#[test]
fn nchw_and_nhwc_2d_odd_sizes_padding_and_dilation() {
    let mut rng = Rng(42);
    let mut scratch = ConvScratch::new();
    for &(h, w, k, s, pad, ld, rd) in &[
        (5usize, 7usize, 3usize, 1usize, (1i64, 1i64), 1usize, 1usize),
        (9, 4, 2, 2, (0, 1), 1, 1),
        (6, 6, 3, 1, (-1, 2), 1, 2),
        (4, 5, 3, 3, (2, -1), 2, 1),
        (1, 1, 1, 1, (0, 0), 1, 1),
        (3, 3, 5, 1, (2, 2), 1, 1),
        (8, 8, 3, 2, (-2, -2), 1, 1),
    ] {
        for (c, o) in [(1usize, 1usize), (3, 5), (17, 7)] {
            let d = ConvDesc::new(&[2, c, h, w], &[o, c, k, k], ConvDims::nchw())
                .with_strides(&[s, s])
                .with_padding(&[pad, (pad.1, pad.0)])
                .with_lhs_dilation(&[ld, 1])
                .with_rhs_dilation(&[rd, rd]);
            check_f32(&d, &mut rng, &mut scratch);
            let d2 = ConvDesc::new(&[2, h, w, c], &[k, k, c, o], ConvDims::nhwc(2))
                .with_strides(&[s, s])
                .with_padding(&[pad, (pad.1, pad.0)])
                .with_lhs_dilation(&[1, ld])
                .with_rhs_dilation(&[rd, 1]);
            check_f32(&d2, &mut rng, &mut scratch);
        }
    }
}

#[test]
fn large_enough_to_chunk_and_thread() {
    // k dim 9 * 40 = 360 -> column chunks of 364 positions over 37*41 outputs; GEMM m = 24.
    let mut rng = Rng(7);
    let mut scratch = ConvScratch::new();
    let d = ConvDesc::new(&[3, 40, 37, 41], &[24, 40, 3, 3], ConvDims::nchw())
        .with_padding(&[(1, 1), (1, 1)]);
    check_f32(&d, &mut rng, &mut scratch);
    let d = ConvDesc::new(&[2, 37, 41, 40], &[3, 3, 40, 24], ConvDims::nhwc(2))
        .with_padding(&[(1, 1), (1, 1)]);
    check_f32(&d, &mut rng, &mut scratch);
}

#[test]
fn depthwise_direct_path_matches_reference() {
    let mut rng = Rng(11);
    let mut scratch = ConvScratch::new();
    for &wo in &[1usize, 7, 8, 9, 31, 32, 33, 45, 70] {
        for &(k, sy, dil, pad, mult) in &[
            (3usize, 1usize, 1usize, (1i64, 1i64), 1usize),
            (3, 2, 1, (1, 0), 2),
            (5, 1, 2, (-1, 3), 1),
            (1, 1, 1, (0, 0), 3),
            (2, 3, 3, (2, -1), 1),
        ] {
            let c = 5;
            // Input width so that the output width is `wo`: padded - window + 1 = wo.
            let win = (k - 1) * dil + 1;
            let w_in = (wo + win - 1) as i64 - pad.0 - pad.1;
            if w_in < 1 {
                continue;
            }
            for dims in [ConvDims::nchw(), {
                // NHWC input and HWIO kernel, NCHW output: still the direct path.
                let mut m = ConvDims::nhwc(2);
                m.output_feature = 1;
                m.output_spatial = [2, 3, 4];
                m
            }] {
                let (ins, ks) = if dims.input_feature == 1 {
                    (vec![2, c, 6, w_in as usize], vec![c * mult, 1, k, k])
                } else {
                    (vec![2, 6, w_in as usize, c], vec![k, k, 1, c * mult])
                };
                let d = ConvDesc::new(&ins, &ks, dims)
                    .with_groups(c, 1)
                    .with_strides(&[sy, 1])
                    .with_rhs_dilation(&[dil, dil])
                    .with_padding(&[(1, 2), pad])
                    .with_window_reversal(&[false, k == 3]);
                let os = d.output_shape().unwrap();
                assert_eq!(os[3], wo);
                let n = 4;
                let input = small_ints(&mut rng, ins.iter().product());
                let kernel = small_ints(&mut rng, ks.iter().product());
                let mut out = vec![f32::NAN; os[..n].iter().product()];
                // The direct path takes it (returns true) and matches the reference.
                assert!(
                    direct::depthwise_f32(
                        &d,
                        &input,
                        &kernel,
                        &mut out,
                        &mut direct::Buffers::default()
                    ),
                    "{d:?}"
                );
                let want = reference(&d, &input, &kernel, |x| x as f64);
                for (i, (&g, &w)) in out.iter().zip(&want).enumerate() {
                    assert_eq!(g as f64, w, "element {i} of {d:?}");
                }
                check_f32(&d, &mut rng, &mut scratch);
            }
        }
    }
}

#[test]
fn spec_example_lhs_dilation_stride_4() {
    // StableHLO spec `convolution` example: NHWC 1x4x4x1 input, 3x3 kernel of ones, stride 4,
    // lhs_dilation 2 -> [[10, 26], [46, 62]].
    let input: Vec<i32> = vec![1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17];
    let kernel = vec![1i32; 9];
    let d = ConvDesc::new(&[1, 4, 4, 1], &[3, 3, 1, 1], ConvDims::nhwc(2))
        .with_strides(&[4, 4])
        .with_lhs_dilation(&[2, 2]);
    let mut out = vec![i32::MIN; 4];
    conv(&d, &input, &kernel, &mut out, &mut ConvScratch::new()).unwrap();
    assert_eq!(out, vec![10, 26, 46, 62]);
}

#[test]
fn other_element_types_match_reference() {
    let mut rng = Rng(99);
    let mut scratch = ConvScratch::new();
    for _ in 0..60 {
        let d = random_desc(&mut rng);
        let n = d.rank();
        let os = d.output_shape().unwrap();
        let (ni, nk, no) = (
            d.input_shape[..n].iter().product::<usize>(),
            d.kernel_shape[..n].iter().product::<usize>(),
            os[..n].iter().product::<usize>(),
        );
        // i32 (exact, wrapping never reached with these values).
        let input: Vec<i32> = (0..ni).map(|_| rng.range(-50, 50) as i32).collect();
        let kernel: Vec<i32> = (0..nk).map(|_| rng.range(-50, 50) as i32).collect();
        let mut out = vec![i32::MIN; no];
        conv(&d, &input, &kernel, &mut out, &mut scratch).unwrap();
        assert_eq!(out, reference(&d, &input, &kernel, |x| x), "{d:?}");
        // f64 (exact on small integers).
        let i64v: Vec<f64> = input.iter().map(|&x| x as f64).collect();
        let k64v: Vec<f64> = kernel.iter().map(|&x| x as f64).collect();
        let mut out = vec![f64::NAN; no];
        conv(&d, &i64v, &k64v, &mut out, &mut scratch).unwrap();
        assert_eq!(out, reference(&d, &i64v, &k64v, |x| x), "{d:?}");
        // bf16: small integers, sums in f32, exactly representable results up to 256.
        let ib: Vec<half::bf16> = input
            .iter()
            .map(|&x| half::bf16::from_f32((x % 3) as f32))
            .collect();
        let kb: Vec<half::bf16> = kernel
            .iter()
            .map(|&x| half::bf16::from_f32((x % 3) as f32))
            .collect();
        let mut out = vec![half::bf16::NAN; no];
        conv(&d, &ib, &kb, &mut out, &mut scratch).unwrap();
        let want = reference(&d, &ib, &kb, |x| x.to_f32() as f64);
        for (g, w) in out.iter().zip(&want) {
            assert_eq!(g.to_f32(), half::bf16::from_f64(*w).to_f32(), "{d:?}");
        }
    }
}

#[test]
fn identical_bits_for_one_and_two_threads() {
    // The first two run through Winograd, the third through im2col (base dilation), the fourth
    // through the depthwise kernel; Winograd tiles [2, 64, 9, 61] with 2 tasks per tile row.
    let run = |threads: usize, d: &ConvDesc, input: &[f32], kernel: &[f32]| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut out = vec![f32::NAN; d.output_shape().unwrap()[..4].iter().product()];
            conv(d, input, kernel, &mut out, &mut ConvScratch::new()).unwrap();
            out
        })
    };
    let data = |n: usize, seed: u32| -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2654435761) ^ seed) as f32 / 4e9 - 0.5)
            .collect()
    };
    for d in [
        ConvDesc::new(&[2, 32, 30, 30], &[48, 32, 3, 3], ConvDims::nchw())
            .with_padding(&[(1, 1), (1, 1)]),
        ConvDesc::new(&[2, 30, 30, 32], &[3, 3, 32, 48], ConvDims::nhwc(2))
            .with_padding(&[(1, 1), (1, 1)]),
        ConvDesc::new(&[2, 30, 30, 32], &[3, 3, 32, 48], ConvDims::nhwc(2))
            .with_lhs_dilation(&[2, 1]),
        ConvDesc::new(&[2, 32, 30, 30], &[32, 1, 3, 3], ConvDims::nchw())
            .with_padding(&[(1, 1), (1, 1)])
            .with_groups(32, 1),
        ConvDesc::new(&[2, 64, 9, 61], &[24, 64, 3, 3], ConvDims::nchw())
            .with_padding(&[(1, 1), (1, 1)]),
    ] {
        let input = data(d.input_shape[..4].iter().product(), 1);
        let kernel = data(d.kernel_shape[..4].iter().product(), 2);
        let a = run(1, &d, &input, &kernel);
        let b = run(2, &d, &input, &kernel);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
        // And close to the f64 reference.
        let want = reference(&d, &input, &kernel, |x| x as f64);
        for (g, w) in a.iter().zip(&want) {
            assert!(
                (*g as f64 - w).abs() <= 1e-4 * w.abs().max(1.0),
                "{g} vs {w}"
            );
        }
    }
}

#[test]
fn bad_descriptors_and_buffers_are_errors() {
    let ok = ConvDesc::new(&[1, 2, 5, 5], &[4, 2, 3, 3], ConvDims::nchw());
    assert!(ok.validate().is_ok());
    let mut dup = ok;
    dup.dims.input_spatial = [2, 2, 4];
    let cases: Vec<(ConvDesc, &str)> = vec![
        (
            ConvDesc::new(&[1, 2], &[1, 2], ConvDims::nchw()),
            "dimensions",
        ),
        (
            ConvDesc::new(&[1, 2, 3, 4, 5, 6], &[1, 2, 3, 4, 5, 6], ConvDims::nchw()),
            "dimensions",
        ),
        (
            ConvDesc::new(&[1, 2, 5, 5], &[4, 2, 3], ConvDims::nchw()),
            "dimensions",
        ),
        (dup, "distinct"),
        (ok.with_strides(&[0, 1]), "window_strides"),
        (ok.with_lhs_dilation(&[1, 0]), "dilations"),
        (ok.with_groups(0, 1), "> 0"),
        (ok.with_groups(2, 2), "cannot both"),
        (ok.with_groups(3, 1), "multiple of feature_group_count"),
        (ok.with_groups(1, 2), "batch_group_count"),
        (
            ConvDesc::new(&[1, 4, 5, 5], &[6, 2, 3, 3], ConvDims::nchw())
                .with_groups(2, 1)
                .with_groups(4, 1),
            "kernel input features",
        ),
        (
            ConvDesc::new(&[1, 4, 5, 5], &[3, 2, 3, 3], ConvDims::nchw()).with_groups(2, 1),
            "kernel output features",
        ),
        (
            ConvDesc::new(&[usize::MAX, 4, 5, 5], &[3, 4, 3, 3], ConvDims::nchw()),
            "overflows",
        ),
    ];
    for (d, needle) in cases {
        let e = d.validate().expect_err(needle).to_string();
        assert!(
            e.starts_with("conv: ") && e.contains(needle),
            "{e:?} lacks {needle:?}"
        );
        let mut out = vec![0f32; 4];
        assert!(conv(
            &d,
            &[0.0; 50],
            &[0.0; 72],
            &mut out,
            &mut ConvScratch::new()
        )
        .is_err());
    }
    // Buffer lengths: input 50, kernel 72, output 1*4*3*3 = 36.
    let mut s = ConvScratch::new();
    let mut out = vec![7f32; 36];
    let e = conv(&ok, &[0.0; 49], &[0.0; 72], &mut out, &mut s).unwrap_err();
    assert_eq!(
        e.to_string(),
        "conv: buffer `input` has 49 elements but its shape holds 50"
    );
    assert!(conv(&ok, &[0.0; 50], &[0.0; 71], &mut out, &mut s).is_err());
    assert!(conv(&ok, &[0.0; 50], &[0.0; 72], &mut out[..35], &mut s).is_err());
    assert!(out.iter().all(|&x| x == 7.0), "nothing written on error");
    assert!(conv(&ok, &[0.0; 50], &[0.0; 72], &mut out, &mut s).is_ok());
    assert!(out.iter().all(|&x| x == 0.0));
}

#[test]
fn empty_operands() {
    let mut s = ConvScratch::new();
    // Zero input features (kernel input features 0): every output is an empty sum.
    let d = ConvDesc::new(&[2, 0, 4, 4], &[3, 0, 2, 2], ConvDims::nchw());
    let mut out = vec![f32::NAN; 2 * 3 * 3 * 3];
    conv(&d, &[], &[], &mut out, &mut s).unwrap();
    assert!(out.iter().all(|&x| x == 0.0));
    // Zero-sized window dimension: padded / stride + 1 positions, all empty sums.
    let d = ConvDesc::new(&[1, 1, 4], &[2, 1, 0], ConvDims::nchw()).with_strides(&[2]);
    assert_eq!(&d.output_shape().unwrap()[..3], &[1, 2, 3]);
    let mut out = vec![f32::NAN; 6];
    conv(&d, &[1.0; 4], &[], &mut out, &mut s).unwrap();
    assert!(out.iter().all(|&x| x == 0.0));
    // Padding that removes everything: no windows.
    let d = ConvDesc::new(&[1, 1, 4], &[2, 1, 1], ConvDims::nchw()).with_padding(&[(-3, -2)]);
    assert_eq!(&d.output_shape().unwrap()[..3], &[1, 2, 0]);
    conv(&d, &[1.0; 4], &[1.0; 2], &mut [], &mut s).unwrap();
}

#[test]
fn direct_nchw_path_odd_widths_channels_groups() {
    let mut rng = Rng(1234);
    let mut scratch = ConvScratch::new();
    let mut cases = 0;
    for &wo in &[1usize, 7, 8, 9, 23, 47, 48, 49, 56, 100] {
        for &(o, c, fg) in &[
            (1usize, 1usize, 1usize),
            (3, 2, 1),
            (5, 3, 1),
            (17, 4, 1),
            (6, 4, 2),
            (9, 3, 3),
            (32, 5, 1),
        ] {
            let (k, sy, dil, pad, rev) = match cases % 4 {
                0 => (3usize, 1usize, 1usize, (1i64, 1i64), false),
                1 => (2, 2, 1, (0, 1), true),
                2 => (3, 1, 2, (-1, 2), false),
                _ => (1, 3, 1, (0, 0), false),
            };
            cases += 1;
            let win = (k - 1) * dil + 1;
            let w_in = (wo + win - 1) as i64 - pad.0 - pad.1;
            if w_in < 1 {
                continue;
            }
            // NCHW input, and NHWC input with an HWIO kernel: both end in NCHW output.
            let mut mixed = ConvDims::nhwc(2);
            mixed.output_feature = 1;
            mixed.output_spatial = [2, 3, 4];
            for dims in [ConvDims::nchw(), mixed] {
                let (ins, ks) = if dims.input_feature == 1 {
                    (vec![2, c * fg, 5, w_in as usize], vec![o * fg, c, k, k])
                } else {
                    (vec![2, 5, w_in as usize, c * fg], vec![k, k, c, o * fg])
                };
                let d = ConvDesc::new(&ins, &ks, dims)
                    .with_groups(fg, 1)
                    .with_strides(&[sy, 1])
                    .with_rhs_dilation(&[dil, dil])
                    .with_padding(&[(2, -1), pad])
                    .with_window_reversal(&[rev, rev]);
                assert!(direct_nchw::applies(&d));
                assert_eq!(d.output_shape().unwrap()[3], wo);
                check_f32(&d, &mut rng, &mut scratch);
            }
        }
    }
}

#[test]
fn direct_nhwc_path_odd_widths_features_strides_groups() {
    let mut rng = Rng(4321);
    let mut scratch = ConvScratch::new();
    let mut cases = 0;
    for &wo in &[1usize, 5, 6, 7, 13, 20] {
        for &(o, c, fg) in &[
            (1usize, 1usize, 1usize),
            (3, 2, 1),
            (16, 3, 1),
            (17, 5, 1),
            (33, 4, 1),
            (6, 4, 2),
            (9, 3, 3),
            (20, 1, 4),
        ] {
            let (k, s, dil, pad, rev) = match cases % 4 {
                0 => (3usize, 1usize, 1usize, (1i64, 1i64), false),
                1 => (2, 2, 1, (0, 1), true),
                2 => (3, 1, 2, (-1, 2), false),
                _ => (1, 3, 1, (0, 0), false),
            };
            cases += 1;
            let win = (k - 1) * dil + 1;
            let w_in = ((wo - 1) * s + win) as i64 - pad.0 - pad.1;
            if w_in < 1 {
                continue;
            }
            // NHWC input, and NCHW input with an OIHW kernel: both end in NHWC output.
            let mut mixed = ConvDims::nchw();
            mixed.output_feature = 3;
            mixed.output_spatial = [1, 2, 4];
            for dims in [ConvDims::nhwc(2), mixed] {
                let (ins, ks) = if dims.input_feature == 3 {
                    (vec![2, 5, w_in as usize, c * fg], vec![k, k, c, o * fg])
                } else {
                    (vec![2, c * fg, 5, w_in as usize], vec![o * fg, c, k, k])
                };
                let d = ConvDesc::new(&ins, &ks, dims)
                    .with_groups(fg, 1)
                    .with_strides(&[2, s])
                    .with_rhs_dilation(&[dil, dil])
                    .with_padding(&[(2, -1), pad])
                    .with_window_reversal(&[rev, rev]);
                assert!(direct_nhwc::applies(&d));
                assert_eq!(d.output_shape().unwrap()[2], wo, "{d:?}");
                check_f32(&d, &mut rng, &mut scratch);
            }
        }
    }
}

#[test]
fn winograd_path_odd_sizes_features_layouts() {
    // Output sizes odd and even around the tile (2) and task (TMAX = 30 tiles) sizes, features
    // from the thresholds (16 in, 8 out) around the vector (8) and register-tile (16) widths, every padding sign, reversal, and
    // all four input/output layout pairs; exact on small integers.
    let mut rng = Rng(777);
    let mut scratch = ConvScratch::new();
    let mut cases = 0;
    for &(ho, wo) in &[
        (1usize, 1usize),
        (2, 3),
        (5, 8),
        (3, 59),
        (4, 60),
        (7, 61),
        (6, 121),
    ] {
        for &(c, o) in &[(16usize, 8usize), (17, 17), (24, 16), (33, 33)] {
            let (pad, rev) = match cases % 3 {
                0 => ((1i64, 1i64), false),
                1 => ((0, 2), true),
                _ => ((-1, 3), false),
            };
            cases += 1;
            // Input extent giving `ho x wo` outputs with this padding (3x3, stride 1).
            let hin = (ho + 2) as i64 - pad.0 - pad.1;
            let win = (wo + 2) as i64 - pad.1 - pad.0;
            if hin < 1 || win < 1 {
                continue;
            }
            let (hin, win) = (hin as usize, win as usize);
            for (in_cl, out_cl) in [(false, false), (true, true), (true, false), (false, true)] {
                let mut dims = if in_cl {
                    ConvDims::nhwc(2)
                } else {
                    ConvDims::nchw()
                };
                let (ofe, osp) = if out_cl {
                    (3, [1, 2, 4])
                } else {
                    (1, [2, 3, 4])
                };
                dims.output_feature = ofe;
                dims.output_spatial = osp;
                let (ins, ks) = if in_cl {
                    (vec![2, hin, win, c], vec![3, 3, c, o])
                } else {
                    (vec![2, c, hin, win], vec![o, c, 3, 3])
                };
                let d = ConvDesc::new(&ins, &ks, dims)
                    .with_padding(&[pad, (pad.1, pad.0)])
                    .with_window_reversal(&[rev, !rev]);
                let os = d.output_shape().unwrap();
                assert!(winograd::applies(&d, &os), "{d:?}");
                assert_eq!(os[osp[0]], ho, "{d:?}");
                assert_eq!(os[osp[1]], wo, "{d:?}");
                check_f32(&d, &mut rng, &mut scratch);
            }
        }
    }
    // Below the feature threshold, grouped, strided or dilated: not Winograd.
    let base = ConvDesc::new(&[1, 16, 9, 9], &[16, 16, 3, 3], ConvDims::nchw());
    let os = |d: &ConvDesc| d.output_shape().unwrap();
    for small in [
        ConvDesc::new(&[1, 15, 9, 9], &[16, 15, 3, 3], ConvDims::nchw()),
        ConvDesc::new(&[1, 16, 9, 9], &[7, 16, 3, 3], ConvDims::nchw()),
    ] {
        assert!(!winograd::applies(&small, &os(&small)));
    }
    for d in [
        base.with_strides(&[1, 2]),
        base.with_rhs_dilation(&[2, 1]),
        base.with_lhs_dilation(&[1, 2]),
        ConvDesc::new(&[1, 32, 9, 9], &[16, 16, 3, 3], ConvDims::nchw()).with_groups(2, 1),
    ] {
        assert!(!winograd::applies(&d, &os(&d)), "{d:?}");
    }
}

/// Max over outputs of `|got - exact| / sum_k |x_k w_k|` (error relative to the magnitude of
/// the terms summed, the scale of any f32 dot product's rounding).
fn max_scaled_error(d: &ConvDesc, input: &[f32], kernel: &[f32], got: &[f32]) -> f64 {
    let want = reference(d, input, kernel, |x| x as f64);
    let absin: Vec<f32> = input.iter().map(|x| x.abs()).collect();
    let absk: Vec<f32> = kernel.iter().map(|x| x.abs()).collect();
    let scale = reference(d, &absin, &absk, |x| x as f64);
    got.iter()
        .zip(&want)
        .zip(&scale)
        .map(|((&g, &w), &s)| (g as f64 - w).abs() / s.max(f64::MIN_POSITIVE))
        .fold(0.0, f64::max)
}

#[test]
fn winograd_error_is_tight() {
    // Random data in [-1, 1): Winograd's error stays within a small factor of the direct
    // sum's (both measured against the f64 reference, relative to sum |x w|).
    let data = |n: usize, seed: u64| -> Vec<f32> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|_| (rng.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
            .collect()
    };
    for d in [
        ConvDesc::new(&[1, 64, 12, 13], &[64, 64, 3, 3], ConvDims::nchw())
            .with_padding(&[(1, 1), (1, 1)]),
        ConvDesc::new(&[1, 9, 10, 128], &[3, 3, 128, 24], ConvDims::nhwc(2))
            .with_padding(&[(1, 1), (1, 1)]),
    ] {
        let input = data(d.input_shape[..4].iter().product(), 3);
        let kernel = data(d.kernel_shape[..4].iter().product(), 4);
        let os = d.output_shape().unwrap();
        assert!(winograd::applies(&d, &os));
        let len = os[..4].iter().product();
        let (mut wino, mut direct) = (vec![f32::NAN; len], vec![f32::NAN; len]);
        conv(&d, &input, &kernel, &mut wino, &mut ConvScratch::new()).unwrap();
        let mut s = ConvScratch::new();
        s.set_no_winograd(true);
        conv(&d, &input, &kernel, &mut direct, &mut s).unwrap();
        let ew = max_scaled_error(&d, &input, &kernel, &wino);
        let ed = max_scaled_error(&d, &input, &kernel, &direct);
        eprintln!("max error / sum|xw|: winograd {ew:.2e}, direct {ed:.2e}");
        // f32 epsilon is 1.2e-7: both are a few epsilons of sum |x w|.
        assert!(ew < 1e-6, "winograd error {ew:e} (direct {ed:e}) for {d:?}");
        assert!(ew < 8.0 * ed.max(1e-7), "winograd {ew:e} vs direct {ed:e}");
    }
}

#[test]
fn winograd_keeps_direct_semantics_for_inf_nan_and_huge_values() {
    // inf - inf inside the transforms would turn an infinite output into NaN, and huge finite
    // values could overflow there: such tasks (and non-finite weights: the whole conv) are
    // summed directly. Compared with the direct kernels: same NaN / inf pattern, finite
    // values close.
    let d = ConvDesc::new(&[2, 16, 9, 70], &[8, 16, 3, 3], ConvDims::nchw())
        .with_padding(&[(1, 1), (1, 1)]);
    let os = d.output_shape().unwrap();
    assert!(winograd::applies(&d, &os));
    let len: usize = os[..4].iter().product();
    let n_in: usize = d.input_shape[..4].iter().product();
    let n_k: usize = d.kernel_shape[..4].iter().product();
    let base_in: Vec<f32> = (0..n_in).map(|i| (i % 7) as f32 * 0.25 + 0.5).collect();
    let base_k: Vec<f32> = (0..n_k).map(|i| (i % 5) as f32 * 0.5 + 0.25).collect();
    let mut cases = Vec::new();
    for (at, v) in [
        (1usize, f32::INFINITY),
        (70 + 5, f32::NEG_INFINITY),
        (630 + 140 + 33, f32::NAN),
        (3 * 630 + 200, 3e38),
        (n_in - 1, 1e37),
    ] {
        let mut input = base_in.clone();
        input[at] = v;
        // 1e37 times weights <= 2.25 stays finite in a direct sum: it must here too.
        cases.push((input, base_k.clone(), v != 1e37));
    }
    let mut k = base_k.clone();
    k[4] = f32::INFINITY;
    cases.push((base_in.clone(), k, true));
    let mut k = base_k.clone();
    k[n_k - 1] = f32::NAN;
    cases.push((base_in.clone(), k, true));
    for (input, kernel, special) in &cases {
        let (mut got, mut want) = (vec![f32::NAN; len], vec![f32::NAN; len]);
        conv(&d, input, kernel, &mut got, &mut ConvScratch::new()).unwrap();
        let mut s = ConvScratch::new();
        s.set_no_winograd(true);
        conv(&d, input, kernel, &mut want, &mut s).unwrap();
        let mut specials = 0;
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            if w.is_nan() || w.is_infinite() {
                specials += 1;
                assert!(
                    (g.is_nan() && w.is_nan()) || g == w,
                    "element {i}: {g} vs direct {w}"
                );
            } else {
                assert!(
                    (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                    "element {i}: {g} vs direct {w}"
                );
            }
        }
        assert_eq!(specials > 0, *special, "{specials} non-finite outputs");
    }
}
