//! Alignment is a speed matter, never a correctness one: every kernel generated code calls (and
//! the rest of the library) gives the same bits on slices that start 1, 2 or 3 elements into a
//! plain `Vec` (so 4..24 bytes off any vector or cache-line boundary) as on the 64-byte-aligned
//! buffers a `Tensor` owns. Each kernel's paths are chosen by sizes: GEMM's matrix-vector,
//! in-place and packed paths, f64, complex, f16, integers and s8; fast row, column and
//! transposed reductions; transposes; radix and top-k sorts; Winograd, direct and im2col
//! convolutions.
//!
//! Run: `cargo test -p xla-kernels --test unaligned`.

use half::f16;
use num_complex::Complex;
use xla_kernels::aligned::{AlignedBuf, BUF_ALIGN};
use xla_kernels::conv::{conv, ConvDesc, ConvDims, ConvScratch};
use xla_kernels::gemm::{gemm, gemm_s8_s32, GemmDesc, GemmScratch};
use xla_kernels::reduce::{reduce_fast, ReduceOp};
use xla_kernels::sort::{sort, top_k, Order};
use xla_kernels::transpose::transpose;

/// Deterministic small integers in -8..8 as any type (exact in every float sum).
fn ints(seed: u64, n: usize) -> Vec<i64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 16) as i64 - 8
        })
        .collect()
}

/// Floats with fractional parts (not exact, so any change of summation order would show).
fn floats(seed: u64, n: usize) -> Vec<f64> {
    ints(seed, n)
        .iter()
        .zip(ints(seed + 99, n))
        .map(|(&a, b)| a as f64 * 0.37 + b as f64 * 1e-3)
        .collect()
}

/// The same data aligned (an `AlignedBuf`) and starting `off` elements into a `Vec`.
struct Placed<T: Copy> {
    aligned: AlignedBuf<T>,
    vec: Vec<T>,
    off: usize,
}

impl<T: Copy> Placed<T> {
    /// `data` at `off` elements into a `Vec`, or one element further if that happens to land
    /// on a [`BUF_ALIGN`] boundary (possible for elements of 8 bytes and more).
    fn new(data: &[T], off: usize, junk: T) -> Self {
        let mut vec = vec![junk; off + 1];
        vec.extend_from_slice(data);
        vec.push(junk);
        let off = if (vec[off..].as_ptr() as usize).is_multiple_of(BUF_ALIGN) {
            off + 1
        } else {
            vec.remove(0);
            off
        };
        let p = Placed {
            aligned: AlignedBuf::from_slice(data),
            vec,
            off,
        };
        assert_eq!(p.aligned.as_ptr() as usize % BUF_ALIGN, 0);
        assert_ne!(p.shifted().as_ptr() as usize % BUF_ALIGN, 0);
        p
    }
    fn shifted(&self) -> &[T] {
        &self.vec[self.off..self.vec.len() - 1]
    }
    fn shifted_mut(&mut self) -> &mut [T] {
        let n = self.vec.len() - 1;
        &mut self.vec[self.off..n]
    }
}

/// Runs `f(inputs.., out)` on aligned buffers and on buffers at offsets 1..=3 (inputs and
/// output shifted differently), comparing the outputs' bits through `bits`.
fn same_bits<T: Copy + Default, U: PartialEq + std::fmt::Debug>(
    what: &str,
    ins: &[Vec<T>],
    out_len: usize,
    bits: impl Fn(&T) -> U,
    f: impl Fn(&[&[T]], &mut [T]),
) {
    let mut want = AlignedBuf::filled(T::default(), out_len);
    let aligned: Vec<Placed<T>> = ins
        .iter()
        .map(|d| Placed::new(d, 1, T::default()))
        .collect();
    let refs: Vec<&[T]> = aligned.iter().map(|p| p.aligned.as_slice()).collect();
    f(&refs, want.as_mut_slice());
    for off in 1..=3 {
        let placed: Vec<Placed<T>> = ins
            .iter()
            .enumerate()
            .map(|(i, d)| Placed::new(d, (off + i) % 3 + 1, T::default()))
            .collect();
        let refs: Vec<&[T]> = placed.iter().map(|p| p.shifted()).collect();
        let mut out = Placed::new(&vec![T::default(); out_len], off, T::default());
        if out_len == 0 {
            continue;
        }
        f(&refs, out.shifted_mut());
        let (got, want): (Vec<U>, Vec<U>) = (
            out.shifted().iter().map(&bits).collect(),
            want.iter().map(&bits).collect(),
        );
        assert!(got == want, "{what}: output at offset {off} differs");
    }
}

fn gemm_case<T: xla_kernels::gemm::GemmElem + Default, U: PartialEq + std::fmt::Debug>(
    what: &str,
    [batch, m, n, k]: [usize; 4],
    conv: impl Fn(f64) -> T,
    bits: impl Fn(&T) -> U,
) {
    let a: Vec<T> = floats(1, batch * m * k).into_iter().map(&conv).collect();
    let b: Vec<T> = floats(2, batch * k * n).into_iter().map(&conv).collect();
    let d = GemmDesc::row_major(batch, m, n, k);
    same_bits(what, &[a, b], batch * m * n, bits, |x, c| {
        gemm(&d, x[0], x[1], c, &mut GemmScratch::new()).expect("valid GEMM");
    });
}

#[test]
fn gemm_paths_ignore_alignment() {
    let f32b = |x: &f32| x.to_bits();
    let f64b = |x: &f64| x.to_bits();
    for shape in [
        [1, 1, 128, 784],  // matrix-vector (m == 1)
        [1, 8, 128, 784],  // small m: operands read in place
        [1, 130, 97, 257], // packed panels, 6x16 tiles with edges
        [3, 16, 17, 33],   // batched
        [1, 37, 1, 45],    // n == 1
    ] {
        gemm_case(&format!("gemm f32 {shape:?}"), shape, |v| v as f32, f32b);
    }
    gemm_case("gemm f64", [1, 70, 50, 90], |v| v, f64b);
    gemm_case(
        "gemm c64",
        [1, 9, 11, 20],
        |v| Complex::new(v as f32, -v as f32 * 0.5),
        |z: &Complex<f32>| (z.re.to_bits(), z.im.to_bits()),
    );
    gemm_case(
        "gemm c64 packed",
        [1, 40, 33, 64],
        |v| Complex::new(v as f32, 1.0 - v as f32),
        |z: &Complex<f32>| (z.re.to_bits(), z.im.to_bits()),
    );
    gemm_case("gemm f16", [1, 17, 19, 33], f16::from_f64, |x| x.to_bits());
    gemm_case("gemm i32", [2, 7, 5, 9], |v| (v * 3.0) as i32, |x| *x);

    let (m, n, k) = (13, 29, 37);
    let a: Vec<i8> = ints(3, m * k).into_iter().map(|v| v as i8).collect();
    let b: Vec<i8> = ints(4, k * n).into_iter().map(|v| (v * 15) as i8).collect();
    let d = GemmDesc::row_major(1, m, n, k);
    let mut want = vec![0i32; m * n];
    gemm_s8_s32(&d, &a, &b, &mut want, &mut GemmScratch::new()).unwrap();
    for off in 1..=3 {
        let (pa, pb) = (Placed::new(&a, off, 0), Placed::new(&b, 4 - off, 0));
        let mut pc = Placed::new(&vec![0i32; m * n], off, 0);
        gemm_s8_s32(
            &d,
            pa.shifted(),
            pb.shifted(),
            pc.shifted_mut(),
            &mut GemmScratch::new(),
        )
        .unwrap();
        assert_eq!(pc.shifted(), &want[..], "gemm s8 at offset {off}");
    }
}

#[test]
fn reductions_ignore_alignment() {
    let cases: [(&[usize], &[usize]); 5] = [
        (&[4099], &[0]),
        (&[33, 1029], &[1]),
        (&[517, 67], &[0]),
        (&[5, 77, 9], &[1]),
        (&[6, 7, 8, 9], &[0, 2]),
    ];
    for (dims, red) in cases {
        let n: usize = dims.iter().product();
        let kept: usize = (0..dims.len())
            .filter(|d| !red.contains(d))
            .map(|d| dims[d])
            .product();
        for op in [ReduceOp::Sum, ReduceOp::Max] {
            let x: Vec<f32> = floats(5, n).into_iter().map(|v| v as f32).collect();
            same_bits(
                &format!("reduce f32 {dims:?} {red:?} {op:?}"),
                &[x],
                kept,
                |v| v.to_bits(),
                |x, o| {
                    reduce_fast(x[0], dims, red, op, 0.0, o).unwrap();
                },
            );
            let x = floats(6, n);
            same_bits(
                &format!("reduce f64 {dims:?} {red:?} {op:?}"),
                &[x],
                kept,
                |v| v.to_bits(),
                |x, o| {
                    reduce_fast(x[0], dims, red, op, 0.0, o).unwrap();
                },
            );
        }
    }
}

#[test]
fn transposes_ignore_alignment() {
    let cases: [(&[usize], &[usize]); 3] = [
        (&[37, 53], &[1, 0]),
        (&[5, 6, 7], &[2, 0, 1]),
        (&[130, 70], &[1, 0]),
    ];
    for (dims, perm) in cases {
        let n: usize = dims.iter().product();
        let x: Vec<f32> = floats(7, n).into_iter().map(|v| v as f32).collect();
        same_bits(
            &format!("transpose f32 {dims:?}"),
            &[x],
            n,
            |v| v.to_bits(),
            |x, o| {
                transpose(x[0], dims, perm, o).unwrap();
            },
        );
        let x: Vec<u8> = ints(8, n).into_iter().map(|v| v as u8).collect();
        same_bits(
            &format!("transpose u8 {dims:?}"),
            &[x],
            n,
            |v| *v,
            |x, o| {
                transpose(x[0], dims, perm, o).unwrap();
            },
        );
    }
}

#[test]
fn sorts_ignore_alignment() {
    let dims = [13, 1000];
    let x: Vec<f32> = floats(9, 13_000).into_iter().map(|v| v as f32).collect();
    same_bits(
        "sort f32 rows",
        std::slice::from_ref(&x),
        13_000,
        |v| v.to_bits(),
        |x, o| {
            o.copy_from_slice(x[0]);
            sort(o, &dims, 1, Order::Ascending).unwrap();
        },
    );
    let y: Vec<f64> = floats(10, 13_000);
    same_bits(
        "sort f64 columns",
        &[y],
        13_000,
        |v| v.to_bits(),
        |x, o| {
            o.copy_from_slice(x[0]);
            sort(o, &dims, 0, Order::Descending).unwrap();
        },
    );
    same_bits(
        "top_k",
        &[x],
        13 * 5,
        |v| v.to_bits(),
        |x, o| {
            let mut idx = vec![0i32; 13 * 5];
            top_k(x[0], &dims, 5, true, o, &mut idx).unwrap();
        },
    );
}

#[test]
fn convolutions_ignore_alignment() {
    let nchw = ConvDims::nchw();
    let cases = [
        // Winograd F(2x2,3x3): 3x3 stride 1 f32, 16 input and 8 output features at least.
        (
            "winograd",
            ConvDesc::new(&[2, 16, 13, 11], &[8, 16, 3, 3], nchw).with_padding(&[(1, 1), (1, 1)]),
        ),
        // Direct NCHW kernel: stride 2 along rows only.
        (
            "direct nchw",
            ConvDesc::new(&[2, 5, 13, 11], &[7, 5, 3, 3], nchw).with_strides(&[2, 1]),
        ),
        // Direct kernels: stride 2, NHWC.
        (
            "direct nhwc",
            ConvDesc::new(&[2, 13, 11, 8], &[3, 3, 8, 16], ConvDims::nhwc(2)).with_strides(&[2, 2]),
        ),
        // Depthwise.
        (
            "depthwise",
            ConvDesc::new(&[1, 16, 12, 12], &[16, 1, 3, 3], nchw).with_groups(16, 1),
        ),
        // im2col + GEMM: dilations.
        (
            "im2col",
            ConvDesc::new(&[1, 4, 15, 15], &[6, 4, 3, 3], nchw)
                .with_rhs_dilation(&[2, 2])
                .with_lhs_dilation(&[1, 2]),
        ),
    ];
    for (what, d) in cases {
        let r = d.rank();
        let n_in: usize = d.input_shape[..r].iter().product();
        let n_k: usize = d.kernel_shape[..r].iter().product();
        let n_out: usize = d.output_shape().unwrap()[..r].iter().product();
        let x: Vec<f32> = floats(11, n_in).into_iter().map(|v| v as f32).collect();
        let k: Vec<f32> = floats(12, n_k).into_iter().map(|v| v as f32).collect();
        same_bits(
            what,
            &[x, k],
            n_out,
            |v| v.to_bits(),
            |x, o| {
                conv(&d, x[0], x[1], o, &mut ConvScratch::new()).unwrap();
            },
        );
        let x = floats(13, n_in);
        let k = floats(14, n_k);
        same_bits(
            &format!("{what} f64"),
            &[x, k],
            n_out,
            |v| v.to_bits(),
            |x, o| {
                conv(&d, x[0], x[1], o, &mut ConvScratch::new()).unwrap();
            },
        );
    }
}
