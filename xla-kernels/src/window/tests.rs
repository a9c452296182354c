use super::*;
use xla_core::scalar::Scalar;

/// The reference: `visit` folding with `f`.
fn reference(desc: &WindowDesc, x: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> Vec<f32> {
    let n: usize = desc.out.iter().product();
    let mut out = vec![init; n];
    visit(desc, x.len(), n, |o, i| out[o] = f(out[o], x[i])).unwrap();
    out
}

fn out_dims(
    op: &[usize],
    k: &[usize],
    s: &[usize],
    lo: &[i64],
    hi: &[i64],
    bd: &[usize],
    wd: &[usize],
) -> Vec<usize> {
    (0..op.len())
        .map(|d| {
            let dil = if op[d] == 0 {
                0
            } else {
                (op[d] - 1) * bd[d] + 1
            } as i64;
            let padded = lo[d] + dil + hi[d];
            let span = ((k[d] - 1) * wd[d] + 1) as i64;
            if span > padded {
                0
            } else {
                ((padded - span) / s[d] as i64 + 1) as usize
            }
        })
        .collect()
}

fn check(
    op: &[usize],
    k: &[usize],
    s: &[usize],
    lo: &[i64],
    hi: &[i64],
    bd: &[usize],
    wd: &[usize],
) {
    let out = out_dims(op, k, s, lo, hi, bd, wd);
    let desc = WindowDesc {
        operand: op,
        out: &out,
        dimensions: k,
        strides: s,
        padding_low: lo,
        base_dilations: bd,
        window_dilations: wd,
    };
    let n: usize = op.iter().product();
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.37)
        .collect();
    let m: usize = out.iter().product();
    for (simd, f) in [
        (Simd::Add, (|a: f32, b: f32| a + b) as fn(f32, f32) -> f32),
        (Simd::Max, |a: f32, b: f32| if b > a { b } else { a }),
    ] {
        let want = reference(&desc, &x, -1.5, f);
        let mut got = vec![0.0f32; m];
        reduce_window(&desc, &x, -1.5, &mut got, &simd).unwrap();
        assert_eq!(got, want, "{desc:?} {simd:?}");
        let mut got = vec![0.0f32; m];
        reduce_window(&desc, &x, -1.5, &mut got, &Scalar(f)).unwrap();
        assert_eq!(got, want, "{desc:?} scalar");
    }
}

#[test]
fn pooling_nchw_nhwc_and_1d() {
    let one = [1usize; 4];
    // NCHW 3x3 stride 2, padding 1 (a max pool), and VALID.
    check(
        &[2, 3, 9, 11],
        &[1, 1, 3, 3],
        &[1, 1, 2, 2],
        &[0, 0, 1, 1],
        &[0, 0, 1, 1],
        &one,
        &one,
    );
    check(
        &[2, 3, 9, 40],
        &[1, 1, 3, 3],
        &[1, 1, 2, 2],
        &[0; 4],
        &[0; 4],
        &one,
        &one,
    );
    // Stride 2 (pairs split) on an odd width, window dilation 2 on both axes (split rows
    // reused across output rows from a ring of 5), negative low padding.
    check(
        &[1, 2, 9, 13],
        &[1, 1, 3, 3],
        &[1, 1, 1, 2],
        &[0, 0, 1, -1],
        &[0, 0, 0, 2],
        &one,
        &[1, 1, 2, 2],
    );
    // Phase-split rows: strides 3 and 4 with window dilation and uneven padding.
    check(
        &[1, 2, 7, 37],
        &[1, 1, 2, 5],
        &[1, 1, 1, 3],
        &[0, 0, 1, 2],
        &[0, 0, 0, 3],
        &one,
        &[1, 1, 1, 2],
    );
    check(
        &[1, 2, 5, 50],
        &[1, 1, 1, 6],
        &[1, 1, 1, 4],
        &[0, 0, 0, -1],
        &[0, 0, 0, 5],
        &one,
        &one,
    );
    // NHWC, window dilation 2, stride > window.
    check(
        &[2, 7, 8, 5],
        &[1, 2, 2, 1],
        &[1, 3, 3, 1],
        &[0, 1, 0, 0],
        &[0, 2, 1, 0],
        &one,
        &[1, 2, 2, 1],
    );
    // 1-D window, window 1, negative padding.
    check(
        &[4, 30],
        &[1, 4],
        &[1, 1],
        &[0, -2],
        &[0, 3],
        &[1, 1],
        &[1, 1],
    );
    check(
        &[4, 30],
        &[1, 1],
        &[1, 1],
        &[0, 0],
        &[0, 0],
        &[1, 1],
        &[1, 1],
    );
    // More taps than one fold group (5x5 = 25), W stride 1 (rows read in place), long
    // edges (a 5-wide window over 9 columns with padding 4: every output is an edge).
    check(
        &[1, 2, 11, 9],
        &[1, 1, 5, 5],
        &[1, 1, 1, 1],
        &[0, 0, 2, 4],
        &[0, 0, 2, 4],
        &one,
        &one,
    );
    // NHWC with 25 taps per output; a 1-D window of 70 taps (the strided loop).
    check(
        &[1, 9, 10, 3],
        &[1, 5, 5, 1],
        &[1, 2, 1, 1],
        &[0, 2, 2, 0],
        &[0, 2, 2, 0],
        &one,
        &one,
    );
    check(
        &[3, 150],
        &[1, 70],
        &[1, 2],
        &[0, 3],
        &[0, 3],
        &[1, 1],
        &[1, 1],
    );
}

/// `Lanewise::fold` of the vector combiners gives the bits of one `strided` per source, for
/// every row length around the vector width (the overlapped last vector, the scalar rows)
/// and any number of sources, NaN payloads (of max and min: which NaN an add of two NaNs
/// returns is LLVM's choice, so there only NaN-ness counts) and signed zeros included.
#[test]
fn simd_fold_gives_the_per_source_folds_bits() {
    let specials = [
        f64::from_bits(0x7ff8_0000_0000_0001),
        f64::from_bits(0xfff8_0000_0000_0002),
        0.0,
        -0.0,
        f64::INFINITY,
    ];
    let value = |i: usize| match (i * 7919) % 19 {
        r if r < specials.len() => specials[r],
        r => (r as f64 - 11.0) * 0.75,
    };
    for n in (0..=40).chain([67, 100]) {
        for k in [0, 1, 2, 5, 9, 16] {
            let srcs64: Vec<Vec<f64>> = (0..k)
                .map(|j| (0..n + 3).map(|i| value(i * 31 + j * 977 + n)).collect())
                .collect();
            let acc64: Vec<f64> = (0..n).map(|i| value(i * 13 + 5)).collect();
            let srcs32: Vec<Vec<f32>> = srcs64
                .iter()
                .map(|s| s.iter().map(|&v| v as f32).collect())
                .collect();
            let acc32: Vec<f32> = acc64.iter().map(|&v| v as f32).collect();
            for op in [Simd::Add, Simd::Max, Simd::Min] {
                let what = format!("{op:?} n={n} k={k}");
                assert_fold_is_per_source(op, &acc64, &srcs64, f64::to_bits, &what);
                let bits32 = |x: f32| u64::from(x.to_bits());
                assert_fold_is_per_source(op, &acc32, &srcs32, bits32, &what);
            }
        }
    }
}

/// `op.fold(acc, srcs)` against one `op.strided` per source, bit by bit through `bits` (for
/// add any NaN matches any NaN).
fn assert_fold_is_per_source<T: Copy + Into<f64>>(
    op: Simd,
    acc: &[T],
    srcs: &[Vec<T>],
    bits: fn(T) -> u64,
    what: &str,
) where
    Simd: Lanewise<T>,
{
    let (mut want, mut got) = (acc.to_vec(), acc.to_vec());
    for s in srcs {
        op.strided(&mut want, s, 1);
    }
    let refs: Vec<&[T]> = srcs.iter().map(|s| &s[..]).collect();
    op.fold(&mut got, &refs);
    let any_nan = op == Simd::Add;
    let key = |v: &[T]| {
        v.iter()
            .map(|&x| {
                if any_nan && x.into().is_nan() {
                    u64::MAX
                } else {
                    bits(x)
                }
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        key(&got),
        key(&want),
        "{} {what}",
        std::any::type_name::<T>()
    );
}

#[test]
fn pooled_max_and_min_give_the_sequential_folds_bits() {
    // NaNs of distinct payloads and signs of zero, dense enough that many windows hold two
    // NaNs or both zeros: every pooling path (phase-split rows for strides 2 and 3, the
    // strided loop otherwise, vector tails) must pick the same NaN (the first in tap order)
    // and the same zero as the tap-by-tap fold, for several inits.
    let specials = [
        f32::from_bits(0x7fc0_0001),
        f32::from_bits(0xffc0_0002),
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(0x7fa0_0003),
    ];
    for (k, s, pad, w) in [
        (3, 2, 1, 37),
        (3, 2, 0, 40),
        (4, 2, 1, 29),
        (5, 2, 2, 31),
        (3, 3, 1, 35),
        (3, 5, 1, 41),
        // Rows of 56 and 38 outputs: four-vector blocks, single vectors, the overlapped last.
        (3, 2, 1, 112),
        (3, 2, 1, 75),
        (3, 1, 1, 40),
    ] {
        let op = [1, 2, 13, w];
        let (dims, strides) = ([1, 1, k, k], [1, 1, s, s]);
        let (lo, hi) = ([0, 0, pad, pad], [0, 0, pad, pad]);
        let out = out_dims(&op, &dims, &strides, &lo, &hi, &[1; 4], &[1; 4]);
        let desc = WindowDesc {
            operand: &op,
            out: &out,
            dimensions: &dims,
            strides: &strides,
            padding_low: &lo,
            base_dilations: &[1; 4],
            window_dilations: &[1; 4],
        };
        let x: Vec<f32> = (0..op.iter().product::<usize>())
            .map(|i| match (i * 7919) % 23 {
                r if r < specials.len() => specials[r],
                r => (r as f32 - 15.0) * 0.5,
            })
            .collect();
        let m: usize = out.iter().product();
        for (simd, f) in [
            // The evaluator's scalar max and min (first NaN, -0 < +0).
            (Simd::Max, <f32 as Scalar>::max as fn(f32, f32) -> f32),
            (Simd::Min, <f32 as Scalar>::min),
        ] {
            for init in [f32::NEG_INFINITY, -0.0, f32::from_bits(0x7fc0_0009)] {
                let want = reference(&desc, &x, init, f);
                let mut got = vec![0.0f32; m];
                reduce_window(&desc, &x, init, &mut got, &simd).unwrap();
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "{k}x{k}/{s} w={w} {simd:?} init {init}"
                );
            }
        }
    }
}

#[test]
fn cumulative_and_general() {
    // cumsum along the middle dim (the scan path) and along the last.
    check(
        &[3, 20, 5],
        &[1, 20, 1],
        &[1, 1, 1],
        &[0, 19, 0],
        &[0, 0, 0],
        &[1; 3],
        &[1; 3],
    );
    check(
        &[3, 50],
        &[1, 50],
        &[1, 1],
        &[0, 49],
        &[0, 0],
        &[1; 2],
        &[1; 2],
    );
    // Base dilation and three windowed dims: the visiting path.
    check(
        &[3, 4, 5],
        &[2, 2, 2],
        &[1, 2, 1],
        &[1, 0, 2],
        &[0, 1, 1],
        &[2, 1, 2],
        &[1, 2, 1],
    );
}

#[test]
fn bad_descriptors_are_errors() {
    let d = WindowDesc {
        operand: &[4],
        out: &[3],
        dimensions: &[2],
        strides: &[0],
        padding_low: &[0],
        base_dilations: &[1],
        window_dilations: &[1],
    };
    let mut out = [0.0f32; 3];
    assert!(reduce_window(&d, &[0.0; 4], 0.0, &mut out, &Simd::Add).is_err());
    let d = WindowDesc { strides: &[1], ..d };
    assert!(reduce_window(&d, &[0.0; 5], 0.0, &mut out, &Simd::Add).is_err());
    assert!(reduce_window(&d, &[0.0; 4], 0.0, &mut out, &Simd::Add).is_ok());
}

/// SelectAndScatter by the definition: per window (row-major) the first tap, replaced by a
/// later tap `t` when `!(x[kept] >= x[t])`, receives `source[o]`.
fn sas_reference(desc: &WindowDesc, x: &[f32], source: &[f32]) -> Vec<f32> {
    let mut kept: Vec<Option<usize>> = vec![None; source.len()];
    visit(desc, x.len(), source.len(), |o, i| match kept[o] {
        Some(k) if x[k] >= x[i] => {}
        _ => kept[o] = Some(i),
    })
    .unwrap();
    let mut out = vec![0.0; x.len()];
    for (o, k) in kept.iter().enumerate() {
        if let Some(k) = k {
            out[*k] += source[o];
        }
    }
    out
}

/// Operand dims, window, strides, low and high padding.
type SasCase = (
    &'static [usize],
    &'static [usize],
    &'static [usize],
    &'static [i64],
    &'static [i64],
);

#[test]
fn select_and_scatter_pooling_and_visiting_paths_follow_the_definition() {
    // NCHW 3x3/2 padding 1 (the pooling path), NHWC 2x2/2, and a window over three dims
    // (not a pooling view: the visiting path). Values in {-2..2}: many ties.
    let cases: [SasCase; 3] = [
        (
            &[2, 3, 9, 11],
            &[1, 1, 3, 3],
            &[1, 1, 2, 2],
            &[0, 0, 1, 1],
            &[0, 0, 1, 1],
        ),
        (
            &[2, 6, 6, 5],
            &[1, 2, 2, 1],
            &[1, 2, 2, 1],
            &[0, 0, 0, 0],
            &[0, 0, 0, 0],
        ),
        (&[4, 5, 6], &[2, 2, 3], &[2, 1, 2], &[1, 0, 1], &[0, 1, 1]),
    ];
    for (op, k, s, lo, hi) in cases {
        let ones = vec![1; op.len()];
        let out = out_dims(op, k, s, lo, hi, &ones, &ones);
        let desc = WindowDesc {
            operand: op,
            out: &out,
            dimensions: k,
            strides: s,
            padding_low: lo,
            base_dilations: &ones,
            window_dilations: &ones,
        };
        let n: usize = op.iter().product();
        let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 5) as f32 - 2.0).collect();
        let m: usize = out.iter().product();
        let source: Vec<f32> = (0..m).map(|i| 1.0 + i as f32).collect();
        let mut got = vec![f32::NAN; n];
        select_and_scatter(
            &desc,
            &x,
            &source,
            0.0,
            &mut got,
            |a, b| a >= b,
            |a, b| a + b,
        )
        .unwrap();
        assert_eq!(got, sas_reference(&desc, &x, &source), "{op:?}");
    }
}

#[test]
fn select_and_scatter_rejects_wrong_lengths() {
    let ones = [1usize; 2];
    let desc = WindowDesc {
        operand: &[4, 4],
        out: &[2, 2],
        dimensions: &[2, 2],
        strides: &[2, 2],
        padding_low: &[0, 0],
        base_dilations: &ones,
        window_dilations: &ones,
    };
    let (x, s) = (vec![0.0f32; 16], vec![0.0f32; 4]);
    let ge = |a: f32, b: f32| a >= b;
    let add = |a: f32, b: f32| a + b;
    assert!(select_and_scatter(&desc, &x, &s, 0.0, &mut [0.0; 15], ge, add).is_err());
    assert!(select_and_scatter(&desc, &x, &s[..3], 0.0, &mut [0.0; 16], ge, add).is_err());
    assert!(select_and_scatter(&desc, &x[..15], &s, 0.0, &mut [0.0; 16], ge, add).is_err());
}

#[test]
fn cumulative_scan_runs_forward_and_backward_with_a_carry_per_lane() {
    let dims = ScanDims {
        outer: 3,
        n: 5,
        inner: 2,
    };
    let x: Vec<i64> = (0..30).collect();
    let init: Vec<i64> = (0..6).map(|i| 100 * i).collect();
    for reverse in [false, true] {
        let (mut out, mut carry) = (vec![0; 30], vec![0; 6]);
        cumulative_scan(dims, &x, &init, reverse, &mut out, &mut carry, |a, b| a + b).unwrap();
        for o in 0..3 {
            for l in 0..2 {
                let mut acc = init[o * 2 + l];
                let order: Vec<usize> = if reverse {
                    (0..5).rev().collect()
                } else {
                    (0..5).collect()
                };
                for j in order {
                    acc += x[(o * 5 + j) * 2 + l];
                    assert_eq!(out[(o * 5 + j) * 2 + l], acc);
                }
                assert_eq!(carry[o * 2 + l], acc);
            }
        }
    }
    // No steps: the carry is the init.
    let empty = ScanDims {
        outer: 3,
        n: 0,
        inner: 2,
    };
    let mut carry = vec![0; 6];
    cumulative_scan(empty, &[], &init, false, &mut [], &mut carry, |a, b| a + b).unwrap();
    assert_eq!(carry, init);
    assert!(cumulative_scan(
        dims,
        &x,
        &init[..5],
        false,
        &mut [0; 30],
        &mut [0; 6],
        |a, b| a + b
    )
    .is_err());
}
