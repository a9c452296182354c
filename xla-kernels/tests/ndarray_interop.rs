//! `tensor::nd` (feature `ndarray`): conversions between tensors/views and ndarray's arrays.
//! An integration test, so the feature's CI step builds xla-kernels once (the library), not
//! twice (the library and its unit-test build, 100 s at opt-level 2).

use std::panic::{catch_unwind, AssertUnwindSafe};

use ndarray::{
    array, s, Array, ArrayD, ArrayView, ArrayView2, ArrayViewD, ArrayViewMut, ArrayViewMut2, Axis,
    Dimension, IntoDimension, ShapeBuilder,
};

use xla_kernels::tensor::{
    LayoutSpec, Mtm2, Mtm3, NdDims, NdarrayError, RowMajor, Tensor, TensorView, TensorViewMut, D0,
    D1, D2, D3, D4, D5, D6, D7, D8,
};

/// Views of every rank and of every layout of a rank-3 tensor become arrays and come back to
/// the same memory; the arrays index like the tensors.
#[test]
fn views_round_trip_without_copies_at_every_rank_and_layout() {
    fn round_trip<D: NdDims, L: LayoutSpec>() {
        let t = Tensor::<f32, D, L>::from_fn(|i| i.iter().fold(0.0, |a, &x| a * 10.0 + x as f32));
        let a = ArrayView::<f32, D::Nd>::from(t.view());
        assert_eq!(a.shape(), D::DIMS);
        for (idx, &x) in a.indexed_iter() {
            assert_eq!(Some(x), t.get(idx.into_dimension().slice()));
        }
        let back = TensorView::<f32, D, L>::try_from(a.view()).unwrap();
        if D::SIZE > 0 {
            assert_eq!(back.as_slice().as_ptr(), t.as_slice().as_ptr());
        }
        let mut m = t.clone();
        let mv = ArrayViewMut::<f32, D::Nd>::from(m.view_mut());
        assert_eq!(mv, a);
        assert_eq!(
            TensorViewMut::<f32, D, L>::try_from(mv).unwrap().view(),
            back
        );
        assert_eq!(back, t);
        let owned = Array::<f32, D::Nd>::from(&t);
        assert_eq!(owned.view(), a);
        assert_eq!(Tensor::<f32, D, L>::try_from(&owned).unwrap(), t);
        assert_eq!(Tensor::<f32, D, L>::try_from(owned).unwrap(), t);
    }
    round_trip::<D0, RowMajor>();
    round_trip::<D1<5>, RowMajor>();
    round_trip::<D2<3, 4>, RowMajor>();
    round_trip::<D2<3, 4>, Mtm2<0, 1>>();
    round_trip::<D2<0, 4>, Mtm2<0, 1>>();
    round_trip::<D3<2, 3, 4>, RowMajor>();
    for_each_mtm3();
    round_trip::<D4<2, 1, 3, 2>, RowMajor>();
    round_trip::<D5<1, 2, 1, 2, 3>, RowMajor>();
    round_trip::<D6<2, 1, 2, 1, 2, 1>, RowMajor>();
    round_trip::<D7<2, 1, 2, 1, 2, 1, 3>, RowMajor>();
    round_trip::<D8<1, 2, 1, 2, 1, 2, 1, 3>, RowMajor>();
    round_trip::<D3<2, 0, 4>, RowMajor>();

    fn for_each_mtm3() {
        round_trip::<D3<2, 3, 4>, Mtm3<0, 1, 2>>();
        round_trip::<D3<2, 3, 4>, Mtm3<0, 2, 1>>();
        round_trip::<D3<2, 3, 4>, Mtm3<1, 0, 2>>();
        round_trip::<D3<2, 3, 4>, Mtm3<1, 2, 0>>();
        round_trip::<D3<2, 3, 4>, Mtm3<2, 0, 1>>();
    }
}

#[test]
fn column_major_tensors_are_fortran_order_arrays() {
    let t = Tensor::<f64, D2<2, 3>, Mtm2<0, 1>>::from_fn(|i| (i[0] * 10 + i[1]) as f64);
    let a = ArrayView2::from(t.view());
    assert_eq!(a, array![[0., 1., 2.], [10., 11., 12.]]);
    assert_eq!(a.strides(), &[1, 2]);
    assert!(a.t().is_standard_layout());
    // Fortran-order arrays view as column-major tensors, not as row-major ones.
    let f = Array::from_shape_vec((2, 3).f(), vec![1., 2., 3., 4., 5., 6.]).unwrap();
    let v = TensorView::<f64, D2<2, 3>, Mtm2<0, 1>>::try_from(f.view()).unwrap();
    assert_eq!(v.as_slice().as_ptr(), f.as_ptr());
    assert_eq!(v.get(&[1, 0]), Some(2.));
    let e = TensorView::<f64, D2<2, 3>>::try_from(f.view()).unwrap_err();
    assert_eq!(
        e,
        NdarrayError::Layout {
            tensor: "f64[2,3]".into(),
            expected: vec![3, 1],
            actual: vec![1, 2]
        }
    );
    let owned = Tensor::<f64, D2<2, 3>>::try_from(&f).unwrap();
    assert_eq!(owned.as_slice(), &[1., 3., 5., 2., 4., 6.]);
}

#[test]
fn mutable_views_write_through_both_ways() {
    let mut t = Tensor::<i32, D2<2, 3>>::zeros();
    {
        let mut a = ArrayViewMut2::from(t.view_mut());
        a[[1, 2]] = 7;
        a.row_mut(0).fill(1);
    }
    assert_eq!(t.as_slice(), &[1, 1, 1, 0, 0, 7]);
    let mut arr = Array::<i32, _>::zeros((2, 3));
    {
        let mut v = TensorViewMut::<i32, D2<2, 3>>::try_from(arr.view_mut()).unwrap();
        v.copy_from(&t);
    }
    assert_eq!(arr, array![[1, 1, 1], [0, 0, 7]]);
    let mut owned_t = arr.t().as_standard_layout().into_owned();
    assert!(TensorViewMut::<i32, D2<3, 2>>::try_from(owned_t.view_mut()).is_ok());
    let e = TensorViewMut::<i32, D2<3, 2>>::try_from(arr.view_mut().reversed_axes()).unwrap_err();
    assert!(matches!(e, NdarrayError::Layout { .. }), "{e}");
}

#[test]
fn shape_mismatches_name_both_shapes() {
    let a = Array::<f32, _>::zeros((2, 3));
    let e = TensorView::<f32, D2<3, 2>>::try_from(a.view()).unwrap_err();
    assert_eq!(
        e,
        NdarrayError::Shape {
            tensor: "f32[3,2]".into(),
            expected: vec![3, 2],
            actual: vec![2, 3]
        }
    );
    assert_eq!(
        e.to_string(),
        "ndarray of shape [2, 3] does not fit tensor f32[3,2] (shape [3, 2])"
    );
    let e = Tensor::<f32, D2<2, 3>, Mtm2<0, 1>>::try_from(Array::zeros((2, 4))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ndarray of shape [2, 4] does not fit tensor f32[2,3]{0,1} (shape [2, 3])"
    );
    // IxDyn (ranks 7 and 8) can hold any rank: a wrong one is an Err too.
    let d = ArrayD::<u8>::zeros(vec![2, 2]);
    let e = Tensor::<u8, D7<1, 1, 1, 1, 1, 2, 2>>::try_from(&d).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ndarray of shape [2, 2] does not fit tensor u8[1,1,1,1,1,2,2] (shape [1, 1, 1, 1, 1, 2, 2])"
    );
    let core: xla_core::Error = e.into();
    assert!(core.to_string().contains("does not fit"), "{core}");
}

#[test]
fn strided_arrays_copy_into_tensors_and_are_refused_as_views() {
    let base = Array::from_shape_fn((4, 6), |(i, j)| (i * 6 + j) as f32);
    let cases: Vec<(ArrayView2<f32>, &str)> = vec![
        (base.slice(s![..;2, ..3]), "every other row"),
        (base.slice(s![1..3, ..;2]), "every other column"),
        (base.slice(s![..2, ..;-2]), "reversed columns"),
        (base.slice(s![..;-2, 1..4]), "reversed rows"),
    ];
    for (a, what) in cases {
        let t = Tensor::<f32, D2<2, 3>>::try_from(&a).unwrap();
        let want: Vec<f32> = a.iter().copied().collect();
        assert_eq!(t.as_slice(), &want[..], "{what}");
        let c = Tensor::<f32, D2<2, 3>, Mtm2<0, 1>>::try_from(&a).unwrap();
        assert_eq!(c.to_row_major_vec(), want, "{what}, column-major");
        let r = catch_unwind(AssertUnwindSafe(|| {
            TensorView::<f32, D2<2, 3>>::try_from(a)
        }));
        let e = r.expect("no panic").unwrap_err();
        assert!(matches!(e, NdarrayError::Layout { .. }), "{what}: {e}");
        assert!(e.to_string().contains("strides [3, 1]"), "{e}");
    }
    // A contiguous row slice is a zero-copy view at an offset (not aligned).
    let rows = base.slice(s![1..3, ..]);
    let v = TensorView::<f32, D2<2, 6>>::try_from(rows).unwrap();
    assert_eq!(v.as_slice().as_ptr(), rows.as_ptr());
    assert_eq!(v.get(&[0, 0]), Some(6.0));
}

#[test]
fn axes_of_length_one_and_empty_arrays_accept_any_stride() {
    let base = Array::from_shape_fn((5, 4), |(i, j)| (i * 4 + j) as i64);
    // One row taken from a column: its stride along the length-1 axis is 4, not 1.
    let a = base.slice(s![2..3, ..]).reversed_axes().reversed_axes();
    let v = TensorView::<i64, D2<1, 4>>::try_from(a).unwrap();
    assert_eq!(v.as_slice(), &[8, 9, 10, 11]);
    let col = base.slice(s![.., 1..2]);
    assert!(
        TensorView::<i64, D2<5, 1>>::try_from(col).is_err(),
        "rows 4 apart"
    );
    let t = Tensor::<i64, D2<5, 1>>::try_from(&col).unwrap();
    assert_eq!(t.as_slice(), &[1, 5, 9, 13, 17]);
    // Empty arrays of any strides.
    let e = base.slice(s![..0, ..;2]);
    let v = TensorView::<i64, D2<0, 2>>::try_from(e).unwrap();
    assert!(v.as_slice().is_empty());
    let mut m = Array::<i64, _>::zeros((3, 0).f());
    assert!(TensorViewMut::<i64, D2<3, 0>>::try_from(m.view_mut()).is_ok());
    let d = ArrayViewD::from(TensorView::<i64, D7<1, 0, 1, 1, 1, 1, 2>>::new(&[]).unwrap());
    assert_eq!(d.shape(), &[1, 0, 1, 1, 1, 1, 2]);
    let _ = d.index_axis(Axis(0), 0);
}
