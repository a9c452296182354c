use super::*;

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
