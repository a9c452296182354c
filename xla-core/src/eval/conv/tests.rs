//! The reference convolution: StableHLO's example, the seed's pseudocode as an independent
//! implementation, each window feature on small hand-checked cases (values as XLA:CPU gives
//! them), groups, accumulation and preferred types, and malformed instructions.

use crate::builder::Builder;
use crate::element::ElementType;
use crate::eval::evaluate;
use crate::infer::{default_dimension_numbers, Padding};
use crate::ir::{ConvDimensionNumbers, ConvWindow, InstrId, Instruction, Op};
use crate::literal::{ArrayElement, Literal};
use crate::shape::Shape;
use half::{bf16, f16};
use num_complex::Complex;

fn lit<T: ArrayElement>(dims: &[i64], v: Vec<T>) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}

/// The attributes of `conv_general_dilated` besides the operands.
#[derive(Clone)]
struct Attrs {
    strides: Vec<i64>,
    padding: Vec<(i64, i64)>,
    lhs_dilation: Vec<i64>,
    rhs_dilation: Vec<i64>,
    dn: ConvDimensionNumbers,
    groups: (i64, i64),
    reversal: Option<Vec<bool>>,
    preferred: Option<ElementType>,
}

/// Default dimension numbers, stride 1, no padding, dilation, groups or reversal.
fn attrs(spatial: usize) -> Attrs {
    Attrs {
        strides: vec![1; spatial],
        padding: vec![(0, 0); spatial],
        lhs_dilation: vec![],
        rhs_dilation: vec![],
        dn: default_dimension_numbers(spatial),
        groups: (1, 1),
        reversal: None,
        preferred: None,
    }
}

/// `conv_general_dilated(lhs, rhs, ...)` built and evaluated.
fn run(lhs: Literal, rhs: Literal, a: &Attrs) -> Literal {
    let mut b = Builder::new("conv");
    let x = b.parameter(0, lhs.shape(), "lhs").unwrap();
    let y = b.parameter(1, rhs.shape(), "rhs").unwrap();
    let r = b
        .conv_general_dilated(
            x,
            y,
            &a.strides,
            &a.padding,
            &a.lhs_dilation,
            &a.rhs_dilation,
            &a.dn,
            a.groups.0,
            a.groups.1,
            a.reversal.as_deref(),
            a.preferred,
        )
        .unwrap();
    evaluate(&b.build(r).unwrap(), &[lhs, rhs]).unwrap()
}

/// A 1D `[1, 1, n]` input and `[1, 1, k]` kernel, as `f32`.
fn run1d(x: &[f32], k: &[f32], a: &Attrs) -> Vec<f32> {
    let l = lit(&[1, 1, x.len() as i64], x.to_vec());
    let r = lit(&[1, 1, k.len() as i64], k.to_vec());
    run(l, r, a).as_slice::<f32>().unwrap().to_vec()
}

#[test]
fn stablehlo_example() {
    let x: Vec<i64> = vec![1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17];
    let a = Attrs {
        strides: vec![4, 4],
        lhs_dilation: vec![2, 2],
        dn: ConvDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 3,
            input_spatial_dimensions: vec![1, 2],
            kernel_input_feature_dimension: 2,
            kernel_output_feature_dimension: 3,
            kernel_spatial_dimensions: vec![0, 1],
            output_batch_dimension: 0,
            output_feature_dimension: 3,
            output_spatial_dimensions: vec![1, 2],
        },
        ..attrs(2)
    };
    let out = run(lit(&[1, 4, 4, 1], x), lit(&[3, 3, 1, 1], vec![1i64; 9]), &a);
    assert_eq!(out, lit(&[1, 2, 2, 1], vec![10i64, 26, 46, 62]));
}

/// The seed's pseudocode for a 2D convolution with padding and stride, default dimension
/// numbers: `value += input(b, iz, iy, ix) * kernel(oz, iz, ky, kx)` for positions inside the
/// unpadded base area.
#[allow(clippy::too_many_arguments)]
fn pseudocode(
    x: &[i32],
    [b, z, h, w]: [usize; 4],
    k: &[i32],
    [oz, kh, kw]: [usize; 3],
    stride: (usize, usize),
    pad_low: (i64, i64),
    out: (usize, usize),
) -> Vec<i32> {
    let mut r = Vec::new();
    for bb in 0..b {
        for o in 0..oz {
            for oy in 0..out.0 {
                for ox in 0..out.1 {
                    let mut value = 0i32;
                    for iz in 0..z {
                        for ky in 0..kh {
                            for kx in 0..kw {
                                let iy = (oy * stride.0 + ky) as i64 - pad_low.0;
                                let ix = (ox * stride.1 + kx) as i64 - pad_low.1;
                                if (0..h as i64).contains(&iy) && (0..w as i64).contains(&ix) {
                                    let (iy, ix) = (iy as usize, ix as usize);
                                    let input = x[((bb * z + iz) * h + iy) * w + ix];
                                    let kernel = k[((o * z + iz) * kh + ky) * kw + kx];
                                    value = value.wrapping_add(input.wrapping_mul(kernel));
                                }
                            }
                        }
                    }
                    r.push(value);
                }
            }
        }
    }
    r
}

#[test]
fn seed_pseudocode_with_padding_and_stride() {
    let (b, z, h, w, oz) = (2usize, 3usize, 6usize, 7usize, 4usize);
    let x: Vec<i32> = (0..b * z * h * w)
        .map(|i| (i as i32 * 7) % 11 - 5)
        .collect();
    for (kh, kw, stride, padding) in [
        (3usize, 3usize, (1usize, 1usize), [(1i64, 1i64), (1, 1)]),
        (2, 3, (2, 3), [(0, 1), (2, 0)]),
        (3, 2, (1, 2), [(0, 0), (0, 0)]),
        (4, 4, (3, 1), [(3, 3), (1, 2)]),
    ] {
        let k: Vec<i32> = (0..oz * z * kh * kw)
            .map(|i| (i as i32 * 5) % 7 - 3)
            .collect();
        let lhs = lit(&[b as i64, z as i64, h as i64, w as i64], x.clone());
        let rhs = lit(&[oz as i64, z as i64, kh as i64, kw as i64], k.clone());
        let a = Attrs {
            strides: vec![stride.0 as i64, stride.1 as i64],
            padding: padding.to_vec(),
            ..attrs(2)
        };
        let got = run(lhs, rhs, &a);
        let size = |n: usize, k: usize, s: usize, (lo, hi): (i64, i64)| {
            (n as i64 + lo + hi - k as i64) as usize / s + 1
        };
        let out = (
            size(h, kh, stride.0, padding[0]),
            size(w, kw, stride.1, padding[1]),
        );
        let want = pseudocode(
            &x,
            [b, z, h, w],
            &k,
            [oz, kh, kw],
            stride,
            (padding[0].0, padding[1].0),
            out,
        );
        let dims = [b as i64, oz as i64, out.0 as i64, out.1 as i64];
        assert_eq!(got, lit(&dims, want), "kernel {kh}x{kw}, stride {stride:?}");
    }
}

#[test]
fn conv_same_padding_keeps_the_spatial_shape() {
    let mut b = Builder::new("same");
    let x = b
        .parameter(0, Shape::array(ElementType::F32, &[1, 1, 5]), "x")
        .unwrap();
    let k = b
        .parameter(1, Shape::array(ElementType::F32, &[1, 1, 3]), "k")
        .unwrap();
    let r = b.conv(x, k, &[1], Padding::Same).unwrap();
    let c = b.build(r).unwrap();
    let args = [
        lit(&[1, 1, 5], vec![1f32, 2., 3., 4., 5.]),
        lit(&[1, 1, 3], vec![1f32, 10., 100.]),
    ];
    let out = evaluate(&c, &args).unwrap();
    assert_eq!(out, lit(&[1, 1, 5], vec![210f32, 321., 432., 543., 54.]));
}

#[test]
fn window_features() {
    let x = [0f32, 1., 2., 3., 4.];
    let k = [1f32, 10., 100.];
    // Plain, then with the kernel reversed (as XLA:CPU: 0*100 + 1*10 + 2*1 = 12).
    assert_eq!(run1d(&x, &k, &attrs(1)), vec![210., 321., 432.]);
    let rev = Attrs {
        reversal: Some(vec![true]),
        ..attrs(1)
    };
    assert_eq!(run1d(&x, &k, &rev), vec![12., 123., 234.]);
    // lhs dilation 2: [1, 0, 2, 0, 3] against [1, 1].
    let a = Attrs {
        lhs_dilation: vec![2],
        ..attrs(1)
    };
    assert_eq!(run1d(&[1., 2., 3.], &[1., 1.], &a), vec![1., 2., 2., 3.]);
    // rhs dilation 2: taps at 0 and 2.
    let a = Attrs {
        rhs_dilation: vec![2],
        ..attrs(1)
    };
    assert_eq!(
        run1d(&[1., 2., 3., 4., 5.], &[1., 10.], &a),
        vec![31., 42., 53.]
    );
    // Negative padding cuts, positive pads zeros, stride steps over the padded input.
    let a = Attrs {
        padding: vec![(-1, -1)],
        ..attrs(1)
    };
    assert_eq!(run1d(&[1., 2., 3., 4., 5.], &[1.], &a), vec![2., 3., 4.]);
    let a = Attrs {
        padding: vec![(2, -1)],
        strides: vec![2],
        ..attrs(1)
    };
    assert_eq!(
        run1d(&[1., 2., 3., 4., 5.], &[1., 10.], &a),
        vec![0., 21., 43.]
    );
    // Everything at once: dilate [1, 2, 3] to [1, 0, 2, 0, 3], pad to [0, 1, 0, 2, 0, 3, 0];
    // the kernel [1, 10, 100] dilated by 2 and reversed has taps 100, 10, 1 at 0, 2, 4.
    let a = Attrs {
        lhs_dilation: vec![2],
        rhs_dilation: vec![2],
        padding: vec![(1, 1)],
        reversal: Some(vec![true]),
        ..attrs(1)
    };
    assert_eq!(
        run1d(&[1., 2., 3.], &[1., 10., 100.], &a),
        vec![0., 100. + 20. + 3., 0.]
    );
    // No windows fit: an empty result.
    assert_eq!(
        run1d(&[1., 2.], &[1., 1., 1.], &attrs(1)),
        Vec::<f32>::new()
    );
}

#[test]
fn feature_and_batch_groups() {
    // Feature groups (as XLA:CPU): 4 input features in 2 groups of 2, 4 output features.
    let a = Attrs {
        groups: (2, 1),
        ..attrs(1)
    };
    let x = lit(&[1, 4, 1], vec![1f32, 10., 100., 1000.]);
    let k = lit(&[4, 2, 1], vec![1f32, 2., 3., 4., 5., 6., 7., 8.]);
    assert_eq!(
        run(x, k, &a),
        lit(&[1, 4, 1], vec![21f32, 43., 6500., 8700.])
    );
    // Batch groups: output feature o reads the batch group o / (features / groups).
    let a = Attrs {
        groups: (1, 2),
        ..attrs(1)
    };
    let x = lit(&[6, 1, 1], vec![1f32, 10., 100., 1e3, 1e4, 1e5]);
    let k = lit(&[4, 1, 1], vec![1f32, 2., 3., 4.]);
    let want = vec![1f32, 2., 3e3, 4e3, 10., 20., 3e4, 4e4, 100., 200., 3e5, 4e5];
    assert_eq!(run(x, k, &a), lit(&[3, 4, 1], want));
    let a = Attrs {
        groups: (1, 4),
        ..attrs(1)
    };
    let x = lit(&[4, 1, 1], vec![1f32, 10., 100., 1000.]);
    let k = lit(&[8, 1, 1], (1..=8).map(|v| v as f32).collect());
    let want = vec![1f32, 2., 30., 40., 500., 600., 7000., 8000.];
    assert_eq!(run(x, k, &a), lit(&[1, 8, 1], want));
}

#[test]
fn accumulation_and_preferred_types() {
    let a = attrs(1);
    let pref = |t| Attrs {
        preferred: Some(t),
        ..attrs(1)
    };
    let s8 = || lit(&[1, 4, 1], vec![100i8; 4]);
    // s8 wraps; s8 -> s32 sums in s32.
    assert_eq!(run(s8(), s8(), &a), lit(&[1, 1, 1], vec![64i8]));
    assert_eq!(
        run(s8(), s8(), &pref(ElementType::S32)),
        lit(&[1, 1, 1], vec![40000i32])
    );
    // s8 -> u8 sums in s8 then converts; u8 -> u16 wraps in u16.
    let (m3, p5) = (
        lit(&[1, 4, 1], vec![-3i8; 4]),
        lit(&[1, 4, 1], vec![5i8; 4]),
    );
    assert_eq!(
        run(m3, p5, &pref(ElementType::U8)),
        lit(&[1, 1, 1], vec![196u8])
    );
    let u = || lit(&[1, 4, 1], vec![250u8; 4]);
    assert_eq!(
        run(u(), u(), &pref(ElementType::U16)),
        lit(&[1, 1, 1], vec![53392u16])
    );
    // f32 -> s32 sums in f32 and truncates once; f32 -> f16 rounds once.
    let f = || lit(&[1, 4, 1], vec![1.7f32; 4]);
    let ones = || lit(&[1, 4, 1], vec![1f32; 4]);
    assert_eq!(
        run(f(), ones(), &pref(ElementType::S32)),
        lit(&[1, 1, 1], vec![6i32])
    );
    // pred: or of ands; pred -> s32 counts.
    let p = lit(&[1, 1, 4], vec![true, false, true, true]);
    let k = lit(&[1, 1, 2], vec![true, true]);
    assert_eq!(
        run(p.clone(), k.clone(), &a),
        lit(&[1, 1, 3], vec![true; 3])
    );
    assert_eq!(
        run(p, k, &pref(ElementType::S32)),
        lit(&[1, 1, 3], vec![1i32, 1, 2])
    );
    // f16 and bf16 accumulate in f32 and round once (2048 + 4095 ones is 6143 -> 6144 in f16,
    // 256 + 4095 ones is 4351 -> 4352 in bf16; in their own type the sums would stick).
    let n = 4096;
    let mut h = vec![f16::ONE; n];
    h[0] = f16::from_f32(2048.);
    let hk = lit(&[1, n as i64, 1], vec![f16::ONE; n]);
    assert_eq!(
        run(lit(&[1, n as i64, 1], h), hk, &a),
        lit(&[1, 1, 1], vec![f16::from_f32(6144.)])
    );
    let mut b = vec![bf16::ONE; n];
    b[0] = bf16::from_f32(256.);
    let bk = || lit(&[1, n as i64, 1], vec![bf16::ONE; n]);
    assert_eq!(
        run(lit(&[1, n as i64, 1], b.clone()), bk(), &a),
        lit(&[1, 1, 1], vec![bf16::from_f32(4352.)])
    );
    assert_eq!(
        run(lit(&[1, n as i64, 1], b), bk(), &pref(ElementType::F32)),
        lit(&[1, 1, 1], vec![4351f32])
    );
    // Complex products.
    let c = |v: Vec<(f32, f32)>| v.into_iter().map(|(r, i)| Complex::new(r, i)).collect();
    let x = lit(
        &[1, 1, 5],
        c(vec![(0., 1.), (1., 1.), (2., 1.), (3., 1.), (4., 1.)]),
    );
    let k = lit(&[1, 1, 3], c(vec![(1., 0.), (0., 1.), (2., 0.)]));
    let want: Vec<Complex<f32>> = c(vec![(3., 4.), (6., 5.), (9., 6.)]);
    assert_eq!(run(x, k, &a), lit(&[1, 1, 3], want));
}

#[test]
fn malformed_instructions_are_errors() {
    let conv = |w: ConvWindow, dn: ConvDimensionNumbers, out: &[i64]| {
        let s = |d: &[i64]| Shape::array(ElementType::F32, d);
        let param = |index| Instruction {
            op: Op::Parameter {
                index,
                name: format!("p{index}"),
            },
            operands: vec![],
            shape: s(&[1, 1, 5]),
        };
        let c = crate::ir::Computation {
            name: "bad".into(),
            params: vec![s(&[1, 1, 5]), s(&[1, 1, 5])],
            instrs: vec![
                param(0),
                param(1),
                Instruction {
                    op: Op::Convolution {
                        window: w,
                        dimension_numbers: dn,
                        feature_group_count: 1,
                        batch_group_count: 1,
                        preferred_element_type: None,
                    },
                    operands: vec![InstrId(0), InstrId(1)],
                    shape: s(out),
                },
            ],
            root: InstrId(2),
        };
        let x = lit(&[1, 1, 5], vec![1f32; 5]);
        evaluate(&c, &[x.clone(), x])
    };
    let good = ConvWindow {
        strides: vec![1],
        padding: vec![(0, 0)],
        lhs_dilation: vec![1],
        rhs_dilation: vec![1],
        window_reversal: vec![false],
    };
    let dn = default_dimension_numbers(1);
    assert_eq!(
        conv(good.clone(), dn.clone(), &[1, 1, 1]).unwrap(),
        lit(&[1, 1, 1], vec![5f32])
    );
    let e = conv(good.clone(), dn.clone(), &[1, 1, 2]).unwrap_err();
    assert!(e.message.contains("shape"), "{e}");
    let bad_dn = ConvDimensionNumbers {
        input_spatial_dimensions: vec![7],
        ..dn.clone()
    };
    let e = conv(good.clone(), bad_dn, &[1, 1, 1]).unwrap_err();
    assert_eq!(e.op, "ConvGeneralDilated");
    assert!(e.message.contains("out of range"), "{e}");
    let bad_w = ConvWindow {
        strides: vec![0],
        ..good
    };
    assert!(conv(bad_w, dn, &[1, 1, 1]).is_err());
}
