use super::*;
use xla_core::ArrayData;

type M23 = Tensor<f32, D2<2, 3>>;
type M23Col = Tensor<f32, D2<2, 3>, Mtm2<0, 1>>;

#[test]
fn dims_and_layout_constants() {
    assert_eq!(<D0 as Dims>::SIZE, 1);
    assert_eq!(<D0 as Dims>::RANK, 0);
    assert_eq!(<D3<2, 3, 4> as Dims>::DIMS, &[2, 3, 4]);
    assert_eq!(<D3<2, 0, 4> as Dims>::SIZE, 0);
    assert_eq!(<D8<1, 2, 1, 2, 1, 2, 1, 2> as Dims>::SIZE, 16);
    assert_eq!(&M23::STRIDES[..2], &[3, 1]);
    assert_eq!(&M23Col::STRIDES[..2], &[1, 2]);
    const { assert!(M23::IS_ROW_MAJOR && !M23Col::IS_ROW_MAJOR) };
    const { assert!(Tensor::<f32, D2<2, 3>, Mtm2<1, 0>>::IS_ROW_MAJOR) };
    type T3 = Tensor<u8, D3<2, 3, 4>, Mtm3<1, 2, 0>>;
    // dim1 fastest (stride 1), then dim2 (stride 3), then dim0 (stride 12).
    assert_eq!(&T3::STRIDES[..3], &[12, 1, 3]);
    assert!(layout_is_valid(2, &[1, 0]));
    assert!(!layout_is_valid(2, &[1, 1]));
    assert!(!layout_is_valid(2, &[0]));
    assert!(!layout_is_valid(2, &[0, 2]));
    assert!(!layout_is_valid(9, &[]));
}

#[test]
fn constructors_check_length() {
    let t = M23::from_vec(vec![1., 2., 3., 4., 5., 6.]).unwrap();
    assert_eq!(t.as_slice(), &[1., 2., 3., 4., 5., 6.]);
    assert_eq!(t.as_slice().as_ptr() as usize % BUF_ALIGN, 0);
    let e = M23::from_slice(&[1., 2.]).unwrap_err();
    assert_eq!(
        e,
        TensorError::Length {
            shape: "f32[2,3]".into(),
            expected: 6,
            actual: 2
        }
    );
    assert_eq!(
        e.to_string(),
        "tensor f32[2,3] holds 6 elements, but 2 were given"
    );
    assert!(M23::from_vec(vec![0.0; 7]).is_err());
    let z = Tensor::<i32, D2<0, 5>>::from_vec(vec![]).unwrap();
    assert!(z.as_slice().is_empty());
    assert_eq!(z.to_string(), "[]");
    assert_eq!(Tensor::<i64, D1<4>>::zeros().as_slice(), &[0; 4]);
    assert_eq!(
        Tensor::<bool, D1<2>>::filled(true).as_slice(),
        &[true, true]
    );
}

#[test]
fn from_fn_get_and_layouts() {
    let r = M23::from_fn(|i| (i[0] * 10 + i[1]) as f32);
    let c = M23Col::from_fn(|i| (i[0] * 10 + i[1]) as f32);
    assert_eq!(r.as_slice(), &[0., 1., 2., 10., 11., 12.]);
    // Column-major: dim 0 varies fastest.
    assert_eq!(c.as_slice(), &[0., 10., 1., 11., 2., 12.]);
    for i in 0..2 {
        for j in 0..3 {
            assert_eq!(r.get(&[i, j]), c.get(&[i, j]));
        }
    }
    assert_eq!(r.get(&[2, 0]), None);
    assert_eq!(r.get(&[0]), None);
    assert_eq!(r.get(&[0, 0, 0]), None);
    assert_eq!(c.to_row_major_vec(), r.as_slice());
    assert_eq!(r.relayout::<Mtm2<0, 1>>(), c);
    assert_eq!(c.relayout::<RowMajor>(), r);
    let mut m = r.clone();
    *m.get_mut(&[1, 2]).unwrap() = -1.0;
    assert_eq!(m.as_slice()[5], -1.0);
    assert_ne!(m, r);
}

#[test]
fn for_each_index_rank0_and_zero_extent() {
    let mut seen = vec![];
    for_each_index(&[], &[], |i, o| seen.push((i.to_vec(), o)));
    assert_eq!(seen, vec![(vec![], 0)]);
    let mut n = 0;
    for_each_index(&[3, 0, 2], &[0, 2, 1], |_, _| n += 1);
    assert_eq!(n, 0);
}

#[test]
fn scalars() {
    let s = Tensor::<f64, D0>::scalar(2.5);
    assert_eq!(s.value(), 2.5);
    assert_eq!(s.get(&[]), Some(2.5));
    assert_eq!(s.to_string(), "2.5");
    assert_eq!(s.to_literal(), Literal::scalar(2.5f64));
    assert_eq!(
        Tensor::<f64, D0>::from_literal(&Literal::scalar(4.0f64))
            .unwrap()
            .value(),
        4.0
    );
}

#[test]
fn literal_round_trip_and_errors() {
    let c = M23Col::from_fn(|i| (i[0] * 3 + i[1]) as f32);
    let lit = c.to_literal();
    // Literals are row-major logical, with the explicit layout recorded in the shape.
    assert_eq!(lit.as_slice::<f32>().unwrap(), &[0., 1., 2., 3., 4., 5.]);
    assert_eq!(lit.shape().to_string(), "f32[2,3]{0,1}");
    assert_eq!(M23Col::from_literal(&lit).unwrap(), c);
    // The layout in a literal is informational: a row-major tensor reads it in logical order.
    let r = M23::from_literal(&lit).unwrap();
    assert_eq!(r.as_slice(), &[0., 1., 2., 3., 4., 5.]);

    let wrong_ty = Literal::from_vec(&[2, 3], vec![0i32; 6]).unwrap();
    assert_eq!(
        M23::from_literal(&wrong_ty).unwrap_err(),
        TensorError::ElementType {
            expected: ElementType::F32,
            actual: ElementType::S32
        }
    );
    let wrong_dims = Literal::from_vec(&[3, 2], vec![0f32; 6]).unwrap();
    let e = M23::from_literal(&wrong_dims).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape mismatch: tensor f32[2,3] vs literal f32[3,2]"
    );
    assert!(M23::from_literal(&Literal::Tuple(vec![])).is_err());
    assert!(M23::from_literal(&Literal::Token).is_err());
    let mut dynamic = ArrayShape::new(ElementType::F32, &[2, 3]);
    dynamic.dynamic[0] = true;
    let dyn_lit = Literal::Array {
        shape: dynamic,
        data: ArrayData::F32(vec![0.0; 6]),
    };
    assert!(M23::from_literal(&dyn_lit).is_err());
    // A malformed literal (data shorter than its shape) is an Err, not a panic.
    let short = Literal::Array {
        shape: ArrayShape::new(ElementType::F32, &[2, 3]),
        data: ArrayData::F32(vec![0.0; 5]),
    };
    assert!(matches!(
        M23::from_literal(&short),
        Err(TensorError::Length { .. })
    ));
    let core: xla_core::Error = e.into();
    assert_eq!(core.op, "Tensor");
}

#[test]
fn display_and_debug() {
    let t = M23::from_vec(vec![1., 2., 3., 4., 5., 6.]).unwrap();
    assert_eq!(t.to_string(), "[[1. 2. 3.]\n [4. 5. 6.]]");
    // Display is logical, whatever the layout.
    assert_eq!(t.relayout::<Mtm2<0, 1>>().to_string(), t.to_string());
    assert_eq!(
        format!("{t:?}"),
        "Tensor(f32[2,3] [[1. 2. 3.]\n [4. 5. 6.]])"
    );
    let big = Tensor::<i32, D1<2000>>::from_fn(|i| i[0] as i32);
    assert_eq!(big.to_string(), "[   0    1    2 ... 1997 1998 1999]");
}

#[test]
fn equality_is_elementwise() {
    let a = Tensor::<f32, D1<2>>::from_vec(vec![f32::NAN, 1.0]).unwrap();
    assert_ne!(a, a.clone());
    let b = Tensor::<f32, D1<2>>::from_vec(vec![0.0, 1.0]).unwrap();
    let c = Tensor::<f32, D1<2>>::from_vec(vec![-0.0, 1.0]).unwrap();
    assert_eq!(b, c);
}

#[test]
fn every_element_type_works() {
    use half::{bf16, f16};
    use num_complex::Complex;
    fn check<T: ArrayElement>(v: T) {
        let t = Tensor::<T, D2<2, 2>>::filled(v);
        let back = Tensor::<T, D2<2, 2>>::from_literal(&t.to_literal()).unwrap();
        assert_eq!(back, t);
        assert!(!t.to_string().is_empty());
    }
    check(true);
    check(-3i8);
    check(-3i16);
    check(-3i32);
    check(-3i64);
    check(3u8);
    check(3u16);
    check(3u32);
    check(u64::MAX);
    check(f16::from_f32(0.5));
    check(bf16::from_f32(0.5));
    check(0.5f32);
    check(0.5f64);
    check(Complex::new(1.0f32, -2.0));
    check(Complex::new(1.0f64, -2.0));
}
