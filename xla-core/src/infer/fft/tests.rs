use super::*;
use crate::shape::ArrayShape;

fn s(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(ty, dims))
}

#[test]
fn result_shapes() {
    use ElementType::{C128, C64, F32, F64};
    let cases = [
        (s(C64, &[2, 8]), FftType::Fft, vec![8], s(C64, &[2, 8])),
        (
            s(C128, &[3, 4, 5]),
            FftType::Ifft,
            vec![4, 5],
            s(C128, &[3, 4, 5]),
        ),
        (
            s(F32, &[2, 8, 4]),
            FftType::Rfft,
            vec![8, 4],
            s(C64, &[2, 8, 3]),
        ),
        (s(F64, &[7]), FftType::Rfft, vec![7], s(C128, &[4])),
        (s(C64, &[6, 5]), FftType::Irfft, vec![6, 8], s(F32, &[6, 8])),
        (s(C128, &[5]), FftType::Irfft, vec![9], s(F64, &[9])),
        (s(C64, &[1]), FftType::Irfft, vec![1], s(F32, &[1])),
        (s(C64, &[2, 0]), FftType::Fft, vec![0], s(C64, &[2, 0])),
    ];
    for (x, t, len, want) in cases {
        assert_eq!(fft(&x, t, &len).unwrap(), want, "{t:?} {len:?} of {x}");
    }
}

#[test]
fn rules_and_messages() {
    use ElementType::{C64, F32, S32};
    let err = |x: Shape, t: FftType, len: &[i64]| fft(&x, t, len).unwrap_err();
    let e = err(s(C64, &[2, 2, 2, 2]), FftType::Fft, &[2, 2, 2, 2]);
    assert!(e.to_string().contains("1 to 3 innermost axes"), "{e}");
    assert_eq!(e.blame, Blame::Attribute("fft_length"));
    let e = err(s(C64, &[2]), FftType::Fft, &[]);
    assert!(e.to_string().contains("has 0"), "{e}");
    let e = err(s(C64, &[8]), FftType::Fft, &[2, 4]);
    assert!(e.to_string().contains("rank at least 2"), "{e}");
    let e = err(s(F32, &[8]), FftType::Fft, &[8]);
    assert!(e.to_string().contains("requires a complex operand"), "{e}");
    assert_eq!(e.blame, Blame::Operand(0));
    let e = err(s(C64, &[8]), FftType::Rfft, &[8]);
    assert!(e.to_string().contains("real operand"), "{e}");
    let e = err(s(S32, &[8]), FftType::Rfft, &[8]);
    assert!(e.to_string().contains("s32[8]"), "{e}");
    let e = err(s(F32, &[8]), FftType::Irfft, &[8]);
    assert!(e.to_string().contains("complex operand"), "{e}");
    let e = err(s(F32, &[8]), FftType::Rfft, &[4]);
    assert!(e.to_string().contains("expected [4]"), "{e}");
    let e = err(s(C64, &[8]), FftType::Irfft, &[8]);
    assert!(e.to_string().contains("n/2 + 1 = 5"), "{e}");
    let e = err(s(C64, &[3, 5]), FftType::Irfft, &[4, 8]);
    assert!(e.to_string().contains("expected [4, 5]"), "{e}");
    let e = err(s(C64, &[4]), FftType::Fft, &[-4]);
    assert!(e.to_string().contains("negative"), "{e}");
}
