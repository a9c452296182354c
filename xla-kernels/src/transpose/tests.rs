use super::*;

/// The definition, one element at a time: `dst[i] = src[j]` with `j[perm[d]] = i[d]`.
fn naive<T: Copy>(src: &[T], dims: &[usize], perm: &[usize], fill: T) -> Vec<T> {
    let rank = dims.len();
    let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
    let n: usize = dims.iter().product();
    let mut out = vec![fill; n];
    for (lin, o) in out.iter_mut().enumerate() {
        let mut i = vec![0; rank];
        let mut rest = lin;
        for d in (0..rank).rev() {
            i[d] = rest % out_dims[d];
            rest /= out_dims[d];
        }
        let mut j = vec![0; rank];
        for d in 0..rank {
            j[perm[d]] = i[d];
        }
        let src_lin = j.iter().zip(dims).fold(0, |acc, (&jd, &nd)| acc * nd + jd);
        *o = src[src_lin];
    }
    out
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut all = vec![];
    for p in permutations(n - 1) {
        for pos in 0..=p.len() {
            let mut q = p.clone();
            q.insert(pos, n - 1);
            all.push(q);
        }
    }
    all
}

fn check_f32(dims: &[usize], perm: &[usize]) {
    let n: usize = dims.iter().product();
    // Distinct values (including NaN payloads and -0) so any misplaced element shows.
    let src: Vec<f32> = (0..n)
        .map(|i| f32::from_bits(0x7fc0_0000 ^ (i as u32).wrapping_mul(2654435761)))
        .collect();
    let mut dst = vec![f32::NAN; n];
    transpose(&src, dims, perm, &mut dst).unwrap();
    let want = naive(&src, dims, perm, 0.0);
    let (a, b): (Vec<u32>, Vec<u32>) = (
        dst.iter().map(|x| x.to_bits()).collect(),
        want.iter().map(|x| x.to_bits()).collect(),
    );
    assert!(a == b, "f32 dims {dims:?} perm {perm:?}");
}

fn check_generic<T: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static>(
    dims: &[usize],
    perm: &[usize],
    make: impl Fn(usize) -> T,
    fill: T,
) {
    let n: usize = dims.iter().product();
    let src: Vec<T> = (0..n).map(make).collect();
    let mut dst = vec![fill; n];
    transpose(&src, dims, perm, &mut dst).unwrap();
    assert_eq!(
        dst,
        naive(&src, dims, perm, fill),
        "dims {dims:?} perm {perm:?}"
    );
}

#[test]
fn two_d_sweeps_sizes_around_the_tiles() {
    let sizes = [
        0usize, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65, 100,
    ];
    for &m in &sizes {
        for &n in &sizes {
            check_f32(&[m, n], &[1, 0]);
            check_f32(&[m, n], &[0, 1]);
            check_generic(
                &[m, n],
                &[1, 0],
                |i| i as f64 * 0.5,
                f64::NAN.to_bits() as f64,
            );
            check_generic(&[m, n], &[1, 0], |i| i as u8, 0xEE);
            check_generic(
                &[m, n],
                &[1, 0],
                |i| half::f16::from_f32(i as f32),
                half::f16::NAN,
            );
        }
    }
}

#[test]
fn every_permutation_of_rank_3_and_4() {
    for dims in [
        [3usize, 5, 7].as_slice(),
        &[9, 1, 33],
        &[17, 40, 2],
        &[2, 3, 4, 5],
        &[1, 9, 1, 10],
        &[33, 2, 1, 17],
    ] {
        for perm in permutations(dims.len()) {
            check_f32(dims, &perm);
            check_generic(dims, &perm, |i| i as i64 - 50, -1);
            check_generic(dims, &perm, |i| (i as i32).wrapping_mul(-7), 99);
        }
    }
}

#[test]
fn rank_0_1_and_5() {
    check_f32(&[], &[]);
    check_f32(&[7], &[0]);
    check_f32(&[0], &[0]);
    check_f32(&[2, 3, 1, 4, 5], &[4, 2, 0, 3, 1]);
    check_f32(&[2, 3, 2, 4, 5], &[1, 3, 4, 0, 2]);
}

#[test]
fn parallel_sizes_are_exact_with_1_and_2_threads() {
    let pool = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
    };
    for (dims, perm) in [
        (vec![301usize, 517], vec![1usize, 0]),
        (vec![40, 70, 90], vec![2, 0, 1]),
        (vec![64, 3, 520], vec![2, 1, 0]),
    ] {
        let n: usize = dims.iter().product();
        let src: Vec<u32> = (0..n as u32).collect();
        let want = naive(&src, &dims, &perm, 0);
        for t in [1, 2] {
            let mut dst = vec![u32::MAX; n];
            pool(t)
                .install(|| transpose(&src, &dims, &perm, &mut dst))
                .unwrap();
            assert!(dst == want, "dims {dims:?} perm {perm:?} threads {t}");
        }
        check_f32(&dims, &perm);
    }
}

#[test]
fn bad_arguments_are_errors_and_write_nothing() {
    let src = [1.0f32; 6];
    let mut dst = [f32::NAN; 6];
    for perm in [vec![0usize, 0], vec![0], vec![0, 2], vec![1, 0, 2]] {
        let e = transpose(&src, &[2, 3], &perm, &mut dst).unwrap_err();
        assert!(
            e.to_string().contains("is not a permutation of 0..2"),
            "{e}"
        );
    }
    let e = transpose(&src, &[2, 4], &[1, 0], &mut dst).unwrap_err();
    assert_eq!(
        e,
        KernelError::BufferLength {
            op: "transpose",
            operand: "src",
            expected: 8,
            actual: 6
        }
    );
    let e = transpose(&src, &[2, 3], &[1, 0], &mut dst[..5]).unwrap_err();
    assert_eq!(
        e,
        KernelError::BufferLength {
            op: "transpose",
            operand: "dst",
            expected: 6,
            actual: 5
        }
    );
    let e = transpose(&src, &[usize::MAX, 3], &[1, 0], &mut dst).unwrap_err();
    assert!(e.to_string().contains("overflows"), "{e}");
    let e = transpose(&src, &[1; 9], &[0, 1, 2, 3, 4, 5, 6, 7, 8], &mut dst).unwrap_err();
    assert!(e.to_string().contains("exceeds MAX_RANK"), "{e}");
    assert!(dst.iter().all(|x| x.is_nan()));
}

/// Naive strided copy for the definition of `copy_strided`.
fn naive_strided(
    src: &[i32],
    so: usize,
    ss: &[isize],
    dims: &[usize],
    dst: &mut [i32],
    d_o: usize,
    ds: &[isize],
) {
    let n: usize = dims.iter().product();
    for lin in 0..n {
        let (mut rest, mut s, mut d) = (lin, so as isize, d_o as isize);
        for k in (0..dims.len()).rev() {
            let i = (rest % dims[k]) as isize;
            rest /= dims[k];
            s += i * ss[k];
            d += i * ds[k];
        }
        dst[d as usize] = src[s as usize];
    }
}

#[test]
fn copy_strided_matches_the_definition() {
    let src: Vec<i32> = (0..1000).collect();
    // (src offset, src strides, dims, dst len, dst offset, dst strides)
    type Case = (usize, Vec<isize>, Vec<usize>, usize, usize, Vec<isize>);
    let cases: Vec<Case> = vec![
        (0, vec![10, 1], vec![5, 10], 50, 0, vec![10, 1]),
        (0, vec![1, 10], vec![10, 5], 50, 0, vec![5, 1]),
        (999, vec![-1, -100], vec![7, 9], 70, 3, vec![9, 1]),
        (500, vec![0, 3], vec![4, 6], 40, 1, vec![6, 1]),
        (5, vec![37, 2, 1], vec![9, 11, 2], 400, 0, vec![1, 18, 9]),
        (0, vec![1, 1], vec![3, 3], 12, 0, vec![2, 3]),
        (0, vec![1, 33], vec![33, 29], 33 * 29, 0, vec![29, 1]),
        (2, vec![1], vec![3], 9, 8, vec![0]),
    ];
    for (so, ss, dims, dlen, d_o, ds) in cases {
        let mut got = vec![-1; dlen];
        let mut want = vec![-1; dlen];
        copy_strided(&src, so, &ss, &dims, &mut got, d_o, &ds).unwrap();
        naive_strided(&src, so, &ss, &dims, &mut want, d_o, &ds);
        assert_eq!(got, want, "src {so} {ss:?} dims {dims:?} dst {d_o} {ds:?}");
    }
}

#[test]
fn copy_strided_rejects_out_of_bounds() {
    let src = [0u8; 10];
    let mut dst = [7u8; 10];
    let e = copy_strided(&src, 0, &[5, 1], &[2, 6], &mut dst, 0, &[5, 1]).unwrap_err();
    assert!(e.to_string().contains("src with offset 0"), "{e}");
    let e = copy_strided(&src, 9, &[-1], &[10], &mut dst, 1, &[1]).unwrap_err();
    assert!(e.to_string().contains("dst with offset 1"), "{e}");
    let e = copy_strided(&src, 9, &[-1], &[11], &mut dst, 0, &[1]).unwrap_err();
    assert!(e.to_string().contains("addresses offsets -1..=9"), "{e}");
    let e = copy_strided(&src, 0, &[1], &[2, 2], &mut dst, 0, &[1, 1]).unwrap_err();
    assert!(e.to_string().contains("has rank 2"), "{e}");
    assert!(dst.iter().all(|&x| x == 7));
    // An empty box is fine whatever the strides.
    copy_strided(&src, 100, &[-9], &[0], &mut dst, 100, &[9]).unwrap();
}

/// The reinterpreting fast paths: every bit pattern (NaN payloads, signalling NaNs, -0) of a
/// 4- or 8-byte type survives, at the edges of the slices (first and last elements), for full
/// blocks and ragged edges.
#[test]
fn register_transpose_paths_keep_every_bit() {
    for (m, n) in [(8usize, 8usize), (4, 4), (16, 24), (33, 41), (5, 300)] {
        let src: Vec<u32> = (0..m * n)
            .map(|i| 0x7f80_0001u32.wrapping_add((i as u32).wrapping_mul(0x0101_0101)))
            .collect();
        let mut dst = vec![0u32; m * n];
        transpose(&src, &[m, n], &[1, 0], &mut dst).unwrap();
        assert_eq!(dst, naive(&src, &[m, n], &[1, 0], 0));
        assert_eq!((dst[0], dst[m * n - 1]), (src[0], src[m * n - 1]));
        let srci: Vec<i32> = src.iter().map(|&x| x as i32).collect();
        let mut dsti = vec![0i32; m * n];
        transpose(&srci, &[m, n], &[1, 0], &mut dsti).unwrap();
        assert_eq!(dsti, naive(&srci, &[m, n], &[1, 0], 0));
        // 8-byte: signalling-NaN and -0 patterns of f64 through u64, i64 and f64 itself.
        let src64: Vec<u64> = (0..m * n)
            .map(|i| {
                0x7ff0_0000_0000_0001u64
                    .wrapping_add((i as u64).wrapping_mul(0x0101_0101_0101_0101))
            })
            .collect();
        let mut dst64 = vec![0u64; m * n];
        transpose(&src64, &[m, n], &[1, 0], &mut dst64).unwrap();
        assert_eq!(dst64, naive(&src64, &[m, n], &[1, 0], 0));
        let srci64: Vec<i64> = src64.iter().map(|&x| x as i64).collect();
        let mut dsti64 = vec![0i64; m * n];
        transpose(&srci64, &[m, n], &[1, 0], &mut dsti64).unwrap();
        assert_eq!(dsti64, naive(&srci64, &[m, n], &[1, 0], 0));
        let srcf: Vec<f64> = src64.iter().map(|&x| f64::from_bits(x)).collect();
        let mut dstf = vec![0f64; m * n];
        transpose(&srcf, &[m, n], &[1, 0], &mut dstf).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&dstf), bits(&naive(&srcf, &[m, n], &[1, 0], 0.0)));
    }
}

/// The reference evaluator of xla-core (Transpose) agrees, for several ranks and perms.
#[test]
fn matches_the_xla_core_evaluator() {
    use xla_core::builder::Builder;
    use xla_core::{ElementType, Literal, Shape};
    for (dims, perm) in [
        (vec![37usize, 70], vec![1usize, 0]),
        (vec![3, 5, 7], vec![2, 0, 1]),
        (vec![2, 3, 4, 5], vec![3, 1, 0, 2]),
        (vec![1, 9, 1, 65], vec![3, 2, 1, 0]),
    ] {
        let n: usize = dims.iter().product();
        let src: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
        let d64: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let p64: Vec<i64> = perm.iter().map(|&d| d as i64).collect();
        let mut b = Builder::new("t");
        let x = b
            .parameter(0, Shape::array(ElementType::F32, &d64), "x")
            .unwrap();
        let t = b.transpose(x, &p64).unwrap();
        let c = b.build(t).unwrap();
        let want =
            xla_core::eval::evaluate(&c, &[Literal::from_vec(&d64, src.clone()).unwrap()]).unwrap();
        let mut dst = vec![f32::NAN; n];
        transpose(&src, &dims, &perm, &mut dst).unwrap();
        assert_eq!(
            dst.as_slice(),
            want.as_slice::<f32>().unwrap(),
            "dims {dims:?} perm {perm:?}"
        );
    }
}

#[test]
fn large_destinations_stream_whole_lines_aligned_or_not() {
    // Above NT_MIN_BYTES: line-aligned destination rows take the non-temporal stores, and a
    // destination one element off a line takes the plain ones; odd sizes leave edges of every
    // kind. NaN payloads and negative zero pass through bit for bit.
    use crate::aligned::AlignedBuf;
    fn check<T: Copy + Send + Sync + 'static>(
        dims: [usize; 2],
        make: impl Fn(usize) -> T,
        bits: fn(T) -> u64,
        fill: T,
    ) {
        let n = dims[0] * dims[1];
        assert!(n * std::mem::size_of::<T>() >= NT_MIN_BYTES);
        let src: Vec<T> = (0..n).map(&make).collect();
        let want = naive(&src, &dims, &[1, 0], fill);
        let mut buf = AlignedBuf::filled(fill, n + 1);
        for off in [0, 1] {
            buf.fill(fill);
            transpose(&src, &dims, &[1, 0], &mut buf[off..off + n]).unwrap();
            let same = buf[off..off + n]
                .iter()
                .zip(&want)
                .all(|(&a, &b)| bits(a) == bits(b));
            assert!(same, "{dims:?} offset {off}");
        }
    }
    check(
        [1536, 1536],
        |i| f32::from_bits((i as u32).wrapping_mul(2_654_435_761)),
        |v| v.to_bits().into(),
        0.0,
    );
    check(
        [1531, 1537],
        |i| i as f32 - 5e5,
        |v| v.to_bits().into(),
        f32::NAN,
    );
    check(
        [1029, 1100],
        |i| f64::from_bits((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
        f64::to_bits,
        -0.0,
    );
}
