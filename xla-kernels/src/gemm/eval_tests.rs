//! `gemm` against the reference evaluator of xla-core: a `DotGeneral` with batch and
//! contracting dimensions in non-canonical places is evaluated by `xla_core::eval`, and the same
//! product is run by `gemm` on the operands as they lie in memory, mapped to a [`GemmDesc`]
//! by strides alone (no transposing copy). Floats agree to rounding (the summation orders
//! differ), integers exactly.

use half::bf16;
use num_complex::Complex;
use xla_core::builder::Builder;
use xla_core::ir::DotDimensionNumbers;
use xla_core::{ArrayElement, ElementType, Literal, Shape};

use super::*;

/// Batch `nb`, lhs stored `[k, nb, m]` (contracting dim 0, batch dim 1), rhs stored
/// `[n, k, nb]` (contracting dim 1, batch dim 2); DotGeneral's result is `[nb, m, n]`.
const NB: usize = 3;
const M: usize = 13;
const N: usize = 19;
const K: usize = 37;

fn dot_desc() -> GemmDesc {
    let (nb, m, n, k) = (NB as isize, M as isize, N as isize, K as isize);
    GemmDesc::from_strides(
        NB,
        M,
        N,
        K,
        // lhs[p][b][i]: offset p * nb * m + b * m + i.
        [m, 1, nb * m],
        // rhs[j][p][b]: offset j * k * nb + p * nb + b.
        [1, nb, k * nb],
        // result[b][i][j], row-major.
        [m * n, n, 1],
    )
}

/// Evaluates the DotGeneral of `lhs` and `rhs` (element type `ty`, result type `out`).
fn evaluate(ty: ElementType, out: Option<ElementType>, lhs: Literal, rhs: Literal) -> Literal {
    let mut b = Builder::new("dot");
    let l = b
        .parameter(0, Shape::array(ty, &[K as i64, NB as i64, M as i64]), "l")
        .unwrap();
    let r = b
        .parameter(1, Shape::array(ty, &[N as i64, K as i64, NB as i64]), "r")
        .unwrap();
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![0],
        rhs_contracting_dimensions: vec![1],
        lhs_batch_dimensions: vec![1],
        rhs_batch_dimensions: vec![2],
    };
    let d = b.dot_general(l, r, &dn, out).unwrap();
    let c = b.build(d).unwrap();
    xla_core::eval::evaluate(&c, &[lhs, rhs]).unwrap()
}

fn operands<T: ArrayElement>(f: impl Fn(usize) -> T) -> (Vec<T>, Vec<T>, Literal, Literal) {
    let a: Vec<T> = (0..K * NB * M).map(&f).collect();
    let b: Vec<T> = (0..N * K * NB).map(|i| f(i * 7 + 3)).collect();
    let la = Literal::from_vec(&[K as i64, NB as i64, M as i64], a.clone()).unwrap();
    let lb = Literal::from_vec(&[N as i64, K as i64, NB as i64], b.clone()).unwrap();
    (a, b, la, lb)
}

/// max |got - want| / max |want| over f64 views of the results.
fn normwise(got: &[f64], want: &[f64]) -> f64 {
    let scale = want.iter().fold(0f64, |s, x| s.max(x.abs())).max(1e-300);
    let diff = got
        .iter()
        .zip(want)
        .fold(0f64, |s, (g, w)| s.max((g - w).abs()));
    diff / scale
}

fn value(i: usize) -> f64 {
    ((i * 2654435761) % 1999) as f64 / 1000.0 - 1.0
}

#[test]
fn f32_f64_bf16_c64_match_the_evaluator() {
    let d = dot_desc();
    let mut s = GemmScratch::new();

    let (a, b, la, lb) = operands(|i| value(i) as f32);
    let want = evaluate(ElementType::F32, None, la, lb);
    let mut c = vec![f32::NAN; NB * M * N];
    gemm(&d, &a, &b, &mut c, &mut s).unwrap();
    let w: Vec<f64> = want
        .as_slice::<f32>()
        .unwrap()
        .iter()
        .map(|&x| x as f64)
        .collect();
    let g: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    assert!(normwise(&g, &w) < 1e-6, "f32: {}", normwise(&g, &w));

    let (a, b, la, lb) = operands(value);
    let want = evaluate(ElementType::F64, None, la, lb);
    let mut c = vec![f64::NAN; NB * M * N];
    gemm(&d, &a, &b, &mut c, &mut s).unwrap();
    assert!(normwise(&c, want.as_slice::<f64>().unwrap()) < 1e-14);

    // bf16 keeps 8 bits: the two sides may round a sum differently by one bf16 ulp (2^-8).
    let (a, b, la, lb) = operands(|i| bf16::from_f64(value(i)));
    let want = evaluate(ElementType::Bf16, None, la, lb);
    let mut c = vec![bf16::NAN; NB * M * N];
    gemm(&d, &a, &b, &mut c, &mut s).unwrap();
    let w: Vec<f64> = want
        .as_slice::<bf16>()
        .unwrap()
        .iter()
        .map(|x| x.to_f64())
        .collect();
    let g: Vec<f64> = c.iter().map(|x| x.to_f64()).collect();
    assert!(
        normwise(&g, &w) <= 1.0 / 128.0,
        "bf16: {}",
        normwise(&g, &w)
    );

    let (a, b, la, lb) = operands(|i| Complex::new(value(i) as f32, value(i + 11) as f32));
    let want = evaluate(ElementType::C64, None, la, lb);
    let mut c = vec![Complex::new(f32::NAN, f32::NAN); NB * M * N];
    gemm(&d, &a, &b, &mut c, &mut s).unwrap();
    let flat = |v: &[Complex<f32>]| -> Vec<f64> {
        v.iter().flat_map(|z| [z.re as f64, z.im as f64]).collect()
    };
    let (g, w) = (flat(&c), flat(want.as_slice::<Complex<f32>>().unwrap()));
    assert!(normwise(&g, &w) < 1e-6, "c64: {}", normwise(&g, &w));
}

#[test]
fn integers_match_the_evaluator_exactly() {
    let d = dot_desc();
    let mut s = GemmScratch::new();

    // s32 wraps; large values make the sums overflow.
    let (a, b, la, lb) = operands(|i| (i as i32).wrapping_mul(0x9E37_79B1u32 as i32));
    let want = evaluate(ElementType::S32, None, la, lb);
    let mut c = vec![0i32; NB * M * N];
    gemm(&d, &a, &b, &mut c, &mut s).unwrap();
    assert_eq!(c, want.as_slice::<i32>().unwrap());

    // s8 x s8 -> s32 (preferred_element_type = s32).
    let (a, b, la, lb) = operands(|i| (i.wrapping_mul(2654435761) >> 7) as i8);
    let want = evaluate(ElementType::S8, Some(ElementType::S32), la, lb);
    let mut c = vec![i32::MIN; NB * M * N];
    gemm_s8_s32(&d, &a, &b, &mut c, &mut s).unwrap();
    assert_eq!(c, want.as_slice::<i32>().unwrap());
}
