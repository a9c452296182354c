//! Views over the caller's memory (issue 16): `TensorView` / `TensorViewMut` built from plain
//! slices reject every wrong length with an `Err` naming the shape, the expected and the given
//! length (never a panic, proved under `catch_unwind`), and generated fns called through views
//! over plain `Vec` data at odd offsets (so not 64-byte aligned) give the same bits as through
//! owned, aligned `Tensor`s: elementwise loops with their vector tails, reductions, Dot on
//! GEMM's small and packed paths, rayon-split loops, a column-major parameter, tuple parameters
//! and tuple results.
//!
//! Run: `cargo test -p xla-aot --test views`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use xla_aot::{
    core::ArrayElement, xla, AsView, Dims, LayoutSpec, Mtm2, RowMajor, Tensor, TensorError,
    TensorView, TensorViewMut, D0, D1, D2, D3, D4,
};

xla! {
    /// Elementwise with a broadcast; 19 columns leave a vector tail on every row.
    pub fn affine_tanh(x: f32[37, 19], v: f32[19]) -> f32[37, 19] {
        Tanh(Add(x, v, broadcast_dimensions = [1]) * 2.0 + 1.0)
    }

    /// Above `PAR_MIN_ELEMENTS`: the loop is split over rayon in fixed blocks.
    pub fn big_elementwise(x: f32[300, 1001]) -> f32[300, 1001] {
        Exp(x * 0.5) - x
    }

    /// Two reductions in one fn, returned as a tuple.
    pub fn row_stats(x: f32[33, 70]) -> (f32[33], f32[33]) {
        let s = Reduce(x, 0.0, dimensions = [1], |a, b| a + b);
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        Tuple(s, m)
    }

    /// A column sum in f64.
    pub fn col_sum(x: f64[129, 67]) -> f64[67] {
        Reduce(x, 0.0, dimensions = [0], |a, b| a + b)
    }

    /// Reductions feeding elementwise ops, on the rayon path.
    pub fn row_softmax(x: f32[256, 1024]) -> f32[256, 1024] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }

    /// A small Dot (GEMM reads its operands in place) with a bias and ReLU.
    pub fn dense_relu(x: f32[5, 67], w: f32[67, 40], b: f32[40]) -> f32[5, 40] {
        Max(Add(Dot(x, w), b, broadcast_dimensions = [1]), 0.0)
    }

    /// A Dot large enough for GEMM's packed panels and register tiles.
    pub fn matmul(a: f32[130, 257], b: f32[257, 97]) -> f32[130, 97] {
        Dot(a, b)
    }

    /// f64 with a column-major operand.
    pub fn matmul_col(a: f64[64, 33]{0, 1}, b: f64[33, 48]) -> f64[64, 48] {
        Dot(a, b)
    }

    /// A tuple parameter.
    pub fn pair_add(t: (f32[4, 9], f32[9])) -> f32[4, 9] {
        Add(GetTupleElement(t, index = 0), GetTupleElement(t, index = 1), broadcast_dimensions = [1])
    }
}

/// Deterministic values in [-2, 2), with NaN, ±0, ±inf and a subnormal mixed in.
fn values(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|i| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match i % 97 {
                13 => f64::NAN,
                29 => -0.0,
                41 => f64::INFINITY,
                53 => f64::NEG_INFINITY,
                71 => 1e-40,
                _ => ((s >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0,
            }
        })
        .collect()
}

fn f32s(seed: u64, n: usize) -> Vec<f32> {
    values(seed, n).into_iter().map(|v| v as f32).collect()
}

/// `data` placed `off` elements into a fresh `Vec` (filled with junk before and after), so a
/// view at `&v[off..off + n]` starts `off * size_of::<T>()` bytes past the allocation.
fn placed<T: Copy>(data: &[T], off: usize, junk: T) -> Vec<T> {
    let mut v = vec![junk; off];
    v.extend_from_slice(data);
    v.extend(std::iter::repeat_n(junk, 5));
    v
}

/// Bit patterns, so NaN payloads and signed zeros count.
trait Bits: Copy {
    fn bits(self) -> u64;
}
impl Bits for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}
impl Bits for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

fn assert_same_bits<T: Bits>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.bits(), w.bits(), "{what}: element {i} differs");
    }
}

/// Offsets of the views into plain `Vec`s: 1..3 elements (4..12 bytes for f32) misalign
/// every vector load; 16 f32 (64 bytes) is aligned only if the `Vec` itself happened to be.
const OFFSETS: [usize; 4] = [1, 2, 3, 16];

#[test]
fn elementwise_through_unaligned_views_matches_owned_tensors() {
    let (xd, vd) = (f32s(1, 37 * 19), f32s(2, 19));
    let x: Tensor<f32, D2<37, 19>> = Tensor::from_slice(&xd).unwrap();
    let v: Tensor<f32, D1<19>> = Tensor::from_slice(&vd).unwrap();
    let want = affine_tanh(&x, &v);
    for off in OFFSETS {
        let (xb, vb) = (placed(&xd, off, 7.0), placed(&vd, off + 1, 7.0));
        let xv = TensorView::<f32, D2<37, 19>>::new(&xb[off..off + 37 * 19]).unwrap();
        let vv = TensorView::<f32, D1<19>>::new(&vb[off + 1..off + 20]).unwrap();
        if off < 16 {
            assert!(!xv.is_aligned(), "offset {off} must misalign");
        }
        // The allocating fn on views, and `into` writing a view into a plain Vec.
        assert_same_bits(
            "affine_tanh(views)",
            affine_tanh(xv, vv).as_slice(),
            want.as_slice(),
        );
        let mut ob = vec![-1.0f32; 37 * 19 + off + 3];
        let mut s = affine_tanh::Scratch::new();
        let out = TensorViewMut::<f32, D2<37, 19>>::new(&mut ob[off + 2..off + 2 + 37 * 19]);
        affine_tanh::into(xv, vv, out.unwrap(), &mut s);
        assert_same_bits(
            "into(views)",
            &ob[off + 2..off + 2 + 37 * 19],
            want.as_slice(),
        );
        assert!(ob[..off + 2]
            .iter()
            .chain(&ob[off + 2 + 37 * 19..])
            .all(|&y| y == -1.0));
    }

    let xd = f32s(3, 300 * 1001);
    let x: Tensor<f32, D2<300, 1001>> = Tensor::from_slice(&xd).unwrap();
    let want = big_elementwise(&x);
    let xb = placed(&xd, 1, 0.0);
    let xv = TensorView::<f32, D2<300, 1001>>::new(&xb[1..1 + 300 * 1001]).unwrap();
    let mut ob = vec![0.0f32; 300 * 1001 + 3];
    let mut ov = TensorViewMut::<f32, D2<300, 1001>>::new(&mut ob[3..]).unwrap();
    let mut s = big_elementwise::Scratch::new();
    // A mutable view is reborrowed by `&mut`, so it serves call after call.
    for _ in 0..2 {
        big_elementwise::into(xv, &mut ov, &mut s);
        assert_same_bits("big_elementwise", ov.as_slice(), want.as_slice());
    }
}

#[test]
fn reductions_through_unaligned_views_match_owned_tensors() {
    let xd = f32s(4, 33 * 70);
    let x: Tensor<f32, D2<33, 70>> = Tensor::from_slice(&xd).unwrap();
    let (want_s, want_m) = row_stats(&x);
    let cd = values(5, 129 * 67);
    let c: Tensor<f64, D2<129, 67>> = Tensor::from_slice(&cd).unwrap();
    let want_c = col_sum(&c);
    let sd: Vec<f32> = f32s(6, 256 * 1024)
        .into_iter()
        .map(|v| v.clamp(-2.0, 2.0))
        .collect();
    let sm: Tensor<f32, D2<256, 1024>> = Tensor::from_slice(&sd).unwrap();
    let want_sm = row_softmax(&sm);
    for off in OFFSETS {
        let xb = placed(&xd, off, 0.0);
        let xv = TensorView::<f32, D2<33, 70>>::new(&xb[off..off + 33 * 70]).unwrap();
        let (mut sb, mut mb) = (vec![0.0f32; 33 + off], vec![0.0f32; 33 + 2 * off]);
        let mut st = row_stats::Scratch::new();
        row_stats::into(
            xv,
            TensorViewMut::<f32, D1<33>>::new(&mut sb[off..]).unwrap(),
            TensorViewMut::<f32, D1<33>>::new(&mut mb[2 * off..]).unwrap(),
            &mut st,
        );
        assert_same_bits("row sums", &sb[off..], want_s.as_slice());
        assert_same_bits("row maxima", &mb[2 * off..], want_m.as_slice());

        let cb = placed(&cd, off, 0.0);
        let cv = TensorView::<f64, D2<129, 67>>::new(&cb[off..off + 129 * 67]).unwrap();
        assert_same_bits("column sums", col_sum(cv).as_slice(), want_c.as_slice());

        let sb = placed(&sd, off, 0.0);
        let sv = TensorView::<f32, D2<256, 1024>>::new(&sb[off..off + 256 * 1024]).unwrap();
        assert_same_bits(
            "row_softmax",
            row_softmax(sv).as_slice(),
            want_sm.as_slice(),
        );
    }
}

#[test]
fn dots_through_unaligned_views_match_owned_tensors() {
    let (xd, wd, bd) = (f32s(7, 5 * 67), f32s(8, 67 * 40), f32s(9, 40));
    let x: Tensor<f32, D2<5, 67>> = Tensor::from_slice(&xd).unwrap();
    let w: Tensor<f32, D2<67, 40>> = Tensor::from_slice(&wd).unwrap();
    let b: Tensor<f32, D1<40>> = Tensor::from_slice(&bd).unwrap();
    let want = dense_relu(&x, &w, &b);

    // Finite operands for the larger products: a NaN would spread over whole rows.
    let finite = |seed, n| -> Vec<f32> {
        f32s(seed, n)
            .into_iter()
            .map(|v| if v.is_finite() { v } else { 0.5 })
            .collect()
    };
    let (ad, bbd) = (finite(10, 130 * 257), finite(11, 257 * 97));
    let a: Tensor<f32, D2<130, 257>> = Tensor::from_slice(&ad).unwrap();
    let bb: Tensor<f32, D2<257, 97>> = Tensor::from_slice(&bbd).unwrap();
    let want_mm = matmul(&a, &bb);

    let cold: Vec<f64> = values(12, 64 * 33)
        .into_iter()
        .map(|v| if v.is_finite() { v } else { 1.5 })
        .collect();
    let ca: Tensor<f64, D2<64, 33>, Mtm2<0, 1>> = Tensor::from_slice(&cold).unwrap();
    let cbd: Vec<f64> = values(13, 33 * 48)
        .into_iter()
        .map(|v| if v.is_finite() { v } else { -1.5 })
        .collect();
    let cb: Tensor<f64, D2<33, 48>> = Tensor::from_slice(&cbd).unwrap();
    let want_col = matmul_col(&ca, &cb);

    for off in OFFSETS {
        let (xb, wb, bb_) = (
            placed(&xd, off, 0.0),
            placed(&wd, off + 1, 0.0),
            placed(&bd, off + 2, 0.0),
        );
        let xv = TensorView::<f32, D2<5, 67>>::new(&xb[off..off + 5 * 67]).unwrap();
        let wv = TensorView::<f32, D2<67, 40>>::new(&wb[off + 1..off + 1 + 67 * 40]).unwrap();
        let bv = TensorView::<f32, D1<40>>::new(&bb_[off + 2..off + 42]).unwrap();
        let mut ob = vec![0.0f32; 5 * 40 + off];
        let mut s = dense_relu::Scratch::new();
        let ov = TensorViewMut::<f32, D2<5, 40>>::new(&mut ob[off..]).unwrap();
        dense_relu::into(xv, wv, bv, ov, &mut s);
        assert_same_bits("dense_relu", &ob[off..], want.as_slice());
        // Views and owned tensors mix freely.
        assert_same_bits(
            "dense_relu(mixed)",
            dense_relu(&x, wv, &b).as_slice(),
            want.as_slice(),
        );

        let (ab, b2b) = (placed(&ad, off, 0.0), placed(&bbd, off + 3, 0.0));
        let av = TensorView::<f32, D2<130, 257>>::new(&ab[off..off + 130 * 257]).unwrap();
        let b2v = TensorView::<f32, D2<257, 97>>::new(&b2b[off + 3..off + 3 + 257 * 97]).unwrap();
        assert_same_bits("matmul", matmul(av, b2v).as_slice(), want_mm.as_slice());

        let (cab, cbb) = (placed(&cold, off, 0.0), placed(&cbd, off, 0.0));
        let cav = TensorView::<f64, D2<64, 33>, Mtm2<0, 1>>::new(&cab[off..off + 64 * 33]).unwrap();
        let cbv = TensorView::<f64, D2<33, 48>>::new(&cbb[off..off + 33 * 48]).unwrap();
        let mut ob = vec![0.0f64; 64 * 48 + off];
        let mut s = matmul_col::Scratch::new();
        matmul_col::into(
            cav,
            cbv,
            TensorViewMut::new(&mut ob[off..]).unwrap(),
            &mut s,
        );
        assert_same_bits("matmul_col", &ob[off..], want_col.as_slice());
    }
}

#[test]
fn tuple_parameters_take_views() {
    let (md, vd) = (f32s(14, 36), f32s(15, 9));
    let m: Tensor<f32, D2<4, 9>> = Tensor::from_slice(&md).unwrap();
    let v: Tensor<f32, D1<9>> = Tensor::from_slice(&vd).unwrap();
    let want = pair_add((&m, &v));
    let mb = placed(&md, 1, 0.0);
    let mv = TensorView::<f32, D2<4, 9>>::new(&mb[1..37]).unwrap();
    assert_same_bits("pair_add", pair_add((mv, &v)).as_slice(), want.as_slice());
    assert_same_bits(
        "pair_add",
        pair_add((&m, v.view())).as_slice(),
        want.as_slice(),
    );
}

/// Builds views of `D` (in layout `L`) from slices of every length in `lens` (longer than
/// `pool` is skipped), each under `catch_unwind`: the right length must give `Ok`, any other an
/// `Err` whose message names the shape, the expected and the given count.
fn sweep<T: ArrayElement, D: Dims, L: LayoutSpec>(pool: &mut [T], lens: &[usize]) -> usize {
    let shape = TensorView::<T, D, L>::array_shape().to_string();
    let mut checked = 0;
    let max = pool.len();
    for &len in lens.iter().filter(|&&l| l <= max) {
        let r = catch_unwind(AssertUnwindSafe(|| {
            TensorView::<T, D, L>::new(&pool[..len]).map(|v| v.as_slice().len())
        }));
        let r = r.unwrap_or_else(|_| panic!("TensorView::<{shape}>::new panicked on {len}"));
        let rm = catch_unwind(AssertUnwindSafe(|| {
            TensorViewMut::<T, D, L>::new(&mut pool[..len]).map(|v| v.as_slice().len())
        }));
        let rm = rm.unwrap_or_else(|_| panic!("TensorViewMut::<{shape}>::new panicked on {len}"));
        let rt = catch_unwind(AssertUnwindSafe(|| {
            <TensorView<'_, T, D, L>>::try_from(&pool[..len]).map(|v| v.as_slice().len())
        }));
        let rt = rt.unwrap_or_else(|_| panic!("TensorView::<{shape}>::try_from panicked on {len}"));
        for r in [r, rm, rt] {
            if len == D::SIZE {
                assert_eq!(r, Ok(len), "{shape}: the exact length is accepted");
            } else {
                let e = r.expect_err("a wrong length is an Err");
                assert_eq!(
                    e,
                    TensorError::Length {
                        shape: shape.clone(),
                        expected: D::SIZE,
                        actual: len
                    }
                );
                assert_eq!(
                    e.to_string(),
                    format!(
                        "tensor {shape} holds {} elements, but {len} were given",
                        D::SIZE
                    )
                );
            }
            checked += 1;
        }
    }
    checked
}

/// Lengths around `n`: 0, n-1, n, n+1, a few random ones up to 3n, and huge ones.
fn lengths(n: usize, seed: u64) -> Vec<usize> {
    let mut s = seed | 1;
    let mut v = vec![0, n.saturating_sub(1), n, n + 1, n + 64, 1 << 20, 1 << 22];
    for _ in 0..16 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        v.push((s >> 33) as usize % (3 * n + 2));
    }
    v
}

#[test]
fn wrong_lengths_are_errors_never_panics() {
    let mut f = vec![0.5f32; (1 << 22) + 1];
    let mut b = vec![true; 1 << 20];
    let mut c = vec![xla_aot::Complex::new(1.0f64, -1.0); 4096];
    let mut n = 0;
    n += sweep::<f32, D0, RowMajor>(&mut f, &lengths(1, 1));
    n += sweep::<f32, D1<7>, RowMajor>(&mut f, &lengths(7, 2));
    n += sweep::<f32, D2<3, 5>, RowMajor>(&mut f, &lengths(15, 3));
    n += sweep::<f32, D2<3, 5>, Mtm2<0, 1>>(&mut f, &lengths(15, 4));
    n += sweep::<f32, D4<2, 3, 1, 4>, RowMajor>(&mut f, &lengths(24, 5));
    n += sweep::<f32, D2<1024, 4096>, RowMajor>(&mut f, &lengths(1 << 22, 6));
    // Empty dims: only the empty slice fits.
    n += sweep::<f32, D1<0>, RowMajor>(&mut f, &lengths(0, 7));
    n += sweep::<f32, D3<2, 0, 4>, RowMajor>(&mut f, &lengths(0, 8));
    // Shapes far larger than any slice here (2^62 elements): every length is wrong.
    n += sweep::<f32, D2<{ 1 << 31 }, { 1 << 31 }>, RowMajor>(&mut f, &lengths(16, 9));
    n += sweep::<bool, D2<16, 16>, RowMajor>(&mut b, &lengths(256, 10));
    n += sweep::<xla_aot::Complex<f64>, D1<100>, RowMajor>(&mut c, &lengths(100, 11));
    assert!(n > 600, "{n} constructions checked");
}

#[test]
fn a_view_error_is_a_std_error_and_converts_to_the_core_error() {
    fn build(data: &[f32]) -> Result<f32, Box<dyn std::error::Error>> {
        let v = TensorView::<f32, D2<2, 2>>::new(data)?;
        Ok(v.as_slice().iter().sum())
    }
    assert_eq!(build(&[1.0, 2.0, 3.0, 4.0]).unwrap(), 10.0);
    assert_eq!(
        build(&[1.0]).unwrap_err().to_string(),
        "tensor f32[2,2] holds 4 elements, but 1 were given"
    );
    let e: xla_aot::core::Error = TensorView::<f32, D1<3>>::new(&[]).unwrap_err().into();
    assert!(
        e.to_string().contains("holds 3 elements, but 0 were given"),
        "{e}"
    );
    // Views of owned tensors: the same memory, no copy.
    let t = Tensor::<f32, D1<3>>::filled(1.0);
    assert_eq!(AsView::view(&&t).as_slice().as_ptr(), t.as_slice().as_ptr());
}

/// An ndarray round trip through a generated fn: arrays in as zero-copy views, the result out
/// as an array, a non-standard array refused as a view and accepted as an owned copy.
#[cfg(feature = "ndarray")]
#[test]
fn ndarray_arrays_run_through_generated_fns() {
    use xla_aot::nd::ndarray::{Array1, Array2, ArrayView2, ArrayViewMut2};
    use xla_aot::NdarrayError;

    let x = Array2::from_shape_fn((5, 67), |(i, j)| (i as f32 - j as f32) * 0.01);
    let w = Array2::from_shape_fn((67, 40), |(i, j)| ((i * 7 + j) % 11) as f32 * 0.1 - 0.5);
    let b = Array1::from_shape_fn(40, |j| j as f32 * 0.01);
    let xv = TensorView::<f32, D2<5, 67>>::try_from(x.view()).unwrap();
    assert_eq!(xv.as_slice().as_ptr(), x.as_ptr(), "no copy");
    let wv = TensorView::try_from(w.view()).unwrap();
    let bv = TensorView::try_from(b.view()).unwrap();
    let y = dense_relu(xv, wv, bv);

    // The same fn on owned tensors converted from the arrays.
    let xt = Tensor::<f32, D2<5, 67>>::try_from(&x).unwrap();
    let wt = Tensor::<f32, D2<67, 40>>::try_from(&w).unwrap();
    let bt = Tensor::<f32, D1<40>>::try_from(&b).unwrap();
    assert_same_bits(
        "ndarray inputs",
        y.as_slice(),
        dense_relu(&xt, &wt, &bt).as_slice(),
    );

    // The result as an ndarray view (no copy) and as an owned array; `into` writing into an
    // ndarray-owned buffer through a mutable view.
    let yv = ArrayView2::from(y.view());
    assert_eq!(yv.shape(), &[5, 40]);
    assert_eq!(Array2::from(&y), yv);
    let mut out = Array2::<f32>::zeros((5, 40));
    let mut s = dense_relu::Scratch::new();
    dense_relu::into(
        xv,
        wv,
        bv,
        TensorViewMut::try_from(out.view_mut()).unwrap(),
        &mut s,
    );
    assert_eq!(out, yv);
    let back = TensorViewMut::<f32, D2<5, 40>>::try_from(out.view_mut()).unwrap();
    assert_eq!(ArrayViewMut2::from(back), yv);

    // A transposed weight matrix is column-major: no view, but an owned copy works.
    let wt_t = w.t().as_standard_layout().into_owned(); // 40 x 67, row-major
    let e = TensorView::<f32, D2<67, 40>>::try_from(wt_t.t()).unwrap_err();
    assert!(matches!(e, NdarrayError::Layout { .. }), "{e}");
    let copied = Tensor::<f32, D2<67, 40>>::try_from(&wt_t.t()).unwrap();
    assert_same_bits("transposed copy", copied.as_slice(), wt.as_slice());
    let e = TensorView::<f32, D2<40, 67>>::try_from(w.view()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ndarray of shape [67, 40] does not fit tensor f32[40,67] (shape [40, 67])"
    );
}
