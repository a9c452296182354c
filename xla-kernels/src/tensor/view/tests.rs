use super::*;
use crate::tensor::{Mtm2, D0, D1, D2, D3};

type V23<'a> = TensorView<'a, f32, D2<2, 3>>;
type V23Col<'a> = TensorView<'a, f32, D2<2, 3>, Mtm2<0, 1>>;

#[test]
fn new_checks_the_length_at_any_offset() {
    let data: Vec<f32> = (0..8).map(|i| i as f32).collect();
    for off in 0..=2 {
        let v = V23::new(&data[off..off + 6]).unwrap();
        assert_eq!(v.as_slice().as_ptr(), data[off..].as_ptr(), "no copy");
        assert_eq!(v.get(&[1, 2]), Some((off + 5) as f32));
        assert_eq!(v.get(&[2, 0]), None);
        assert_eq!(v.get(&[0]), None);
    }
    for len in [0, 5, 7, 8] {
        let e = V23::new(&data[..len]).unwrap_err();
        assert_eq!(
            e,
            TensorError::Length {
                shape: "f32[2,3]".into(),
                expected: 6,
                actual: len
            }
        );
        assert_eq!(
            e.to_string(),
            format!("tensor f32[2,3] holds 6 elements, but {len} were given")
        );
    }
    let mut buf = data.clone();
    let e = TensorViewMut::<f32, D2<2, 3>>::new(&mut buf[1..]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "tensor f32[2,3] holds 6 elements, but 7 were given"
    );
    assert!(TensorView::<f32, D2<2, 3>>::try_from(&data[2..]).is_ok());
    assert!(TensorViewMut::<f32, D2<2, 3>>::try_from(&mut buf[..6]).is_ok());
}

#[test]
fn scalars_and_empty_dims() {
    let x = [2.5f64];
    let s = TensorView::<f64, D0>::new(&x).unwrap();
    assert_eq!(s.get(&[]), Some(2.5));
    assert_eq!(
        TensorView::<f64, D0>::new(&[]).unwrap_err().to_string(),
        "tensor f64[] holds 1 elements, but 0 were given"
    );
    let e = TensorView::<i32, D3<2, 0, 4>>::new(&[]).unwrap();
    assert!(e.as_slice().is_empty());
    assert_eq!(e.to_string(), "[]");
    assert_eq!(
        TensorView::<i32, D3<2, 0, 4>>::new(&[1])
            .unwrap_err()
            .to_string(),
        "tensor s32[2,0,4] holds 0 elements, but 1 were given"
    );
}

#[test]
fn layouts_match_the_tensor() {
    let t = Tensor::<f32, D2<2, 3>, Mtm2<0, 1>>::from_fn(|i| (i[0] * 10 + i[1]) as f32);
    let v = V23Col::new(t.as_slice()).unwrap();
    assert_eq!(v.get(&[1, 2]), Some(12.0));
    assert_eq!(v.to_row_major_vec(), t.to_row_major_vec());
    assert_eq!(v.to_row_major_vec(), vec![0., 1., 2., 10., 11., 12.]);
    assert_eq!(&V23Col::STRIDES[..2], &[1, 2]);
    const { assert!(!V23Col::IS_ROW_MAJOR && V23::IS_ROW_MAJOR) };
    assert_eq!(v.to_string(), t.to_string());
    assert_eq!(
        format!("{v:?}"),
        "TensorView(f32[2,3]{0,1} [[ 0.  1.  2.]\n [10. 11. 12.]])"
    );
    assert!(v == t && v.to_tensor() == t);
}

#[test]
fn tensors_convert_for_free() {
    let mut t = Tensor::<i64, D1<5>>::from_vec(vec![1, 2, 3, 4, 5]).unwrap();
    let p = t.as_slice().as_ptr();
    assert_eq!(t.view().as_slice().as_ptr(), p);
    assert!(t.view().is_aligned());
    assert_eq!(TensorView::from(&t).as_slice().as_ptr(), p);
    assert_eq!(AsView::view(&&t).as_slice().as_ptr(), p);
    {
        let mut m = t.view_mut();
        *m.get_mut(&[4]).unwrap() = 50;
        assert_eq!(m.get_mut(&[5]), None);
        assert_eq!(m.reborrow().as_slice().as_ptr(), p);
        assert_eq!(AsView::view(&m).get(&[4]), Some(50));
        let r: TensorView<'_, i64, D1<5>> = m.into();
        assert_eq!(r.as_slice(), &[1, 2, 3, 4, 50]);
    }
    let mut m = TensorViewMut::from(&mut t);
    m.as_mut_slice()[0] = 10;
    assert_eq!(AsViewMut::view_mut(&mut m).as_slice()[0], 10);
    assert_eq!(m.into_slice()[0], 10);
}

#[test]
fn mutable_views_write_the_callers_memory() {
    let mut data = vec![0u16; 9];
    {
        let mut v = TensorViewMut::<u16, D2<2, 4>>::new(&mut data[1..]).unwrap();
        let src = Tensor::<u16, D2<2, 4>>::from_fn(|i| (i[0] * 4 + i[1]) as u16 + 1);
        v.copy_from(&src);
        assert_eq!(v.to_tensor(), src);
        assert_eq!(v.to_row_major_vec(), src.to_row_major_vec());
        assert_eq!(v.get(&[1, 3]), Some(8));
        assert_eq!(v.to_string(), src.to_string());
        assert!(format!("{v:?}").starts_with("TensorViewMut(u16[2,4] "));
    }
    assert_eq!(data, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn unaligned_data_is_reported_as_such() {
    let t = Tensor::<f32, D1<17>>::zeros();
    let v = TensorView::<f32, D1<16>>::new(&t.as_slice()[1..]).unwrap();
    assert!(!v.is_aligned() && t.view().is_aligned());
}
