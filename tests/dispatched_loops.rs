//! Generated elementwise loops and reductions with run-time instruction-set dispatch
//! (`xla_kernels::fused::isa`): loops of 4K elements or more with a transcendental function, a
//! root or a division run AVX-512, AVX2 + FMA or the build's own vectors, whichever
//! `xla_kernels::cpu::level` picks; so do elementwise loops of 64K elements or more whatever
//! they compute, and max / min / sum reductions of that size (`plain_*` below). Each elementwise result is checked against the scalar op
//! (the evaluator's) within the vector math's ulp budget (`xla_kernels::math`), special results
//! and exact ops bit for bit; each reduction against the same sum in f64 (its order, lanes per
//! accumulator, is the level's own); and every result the same bits on 1 and 3 threads. The test command reruns this file with `XLA_KERNELS_MAX_ISA` capped at each
//! level below the CPU's widest.
//!
//! Run: `cargo test -p xla-aot --test dispatched_loops`.

#![deny(warnings)]

use xla_aot::{xla, Tensor, D1, D2};
use xla_core::scalar::Scalar;

xla! {
    /// Rows of 333: 20 full AVX-512 vectors and a window at each row's end.
    pub fn exp_rows(x: f32[64, 333]) -> f32[64, 333] {
        Exp(x)
    }
    /// A flat loop with arithmetic before the function.
    pub fn tanh_flat(x: f32[20001]) -> f32[20001] {
        Tanh(x * 2.0 + 1.0)
    }
    pub fn erf_rows(x: f32[48, 347]) -> f32[48, 347] {
        Erf(x)
    }
    pub fn logistic_flat(x: f32[20001]) -> f32[20001] {
        Logistic(x)
    }
    pub fn log_f64(x: f64[64, 301]) -> f64[64, 301] {
        Log(Abs(x))
    }
    pub fn pow_f64(x: f64[20001], y: f64[20001]) -> f64[20001] {
        Pow(x, y)
    }
    /// Correctly rounded at every level: bit for bit.
    pub fn div_sqrt(x: f32[20001], y: f32[20001]) -> f32[20001] {
        x / Sqrt(y)
    }
    /// The exponentials summed and stored in one pass (`reduce_rows_storing`), then divided.
    pub fn softmax_rows(x: f32[64, 1000]) -> f32[64, 1000] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }
    pub fn sum_exp_f64(x: f64[32, 517]) -> f64[32] {
        Reduce(Exp(x), 0.0, dimensions = [1], |a, b| a + b)
    }
    /// One row of more than two leaves: folded as a tree of leaves.
    pub fn sum_exp_long(x: f32[1, 50001]) -> f32[1] {
        Reduce(Exp(x), 0.0, dimensions = [1], |a, b| a + b)
    }
    pub fn max_tanh_rows(x: f32[40, 259]) -> f32[40] {
        Reduce(Tanh(x), f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b))
    }
    /// Columns (`reduce_cols`): each output's own order at every level.
    pub fn sum_exp_columns(x: f32[301, 67]) -> f32[67] {
        Reduce(Exp(x), 0.0, dimensions = [0], |a, b| a + b)
    }
    /// 64K elements or more of adds, multiplies and compares: dispatched too, exact.
    pub fn plain_affine(x: f32[257, 263], y: f32[257, 263]) -> f32[257, 263] {
        Max(x * 3.0 + y, y - x)
    }
    /// XLA's max (NaN wins, -0 < +0) over rows, at the level's width.
    pub fn plain_max_rows(x: f32[300, 259]) -> f32[300] {
        Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b))
    }
    pub fn plain_min_columns(x: f32[1001, 67]) -> f32[67] {
        Reduce(x, f32::INFINITY, dimensions = [0], |a, b| Min(a, b))
    }
    /// Plain sums of 64K elements or more, rows and columns, f32 and f64.
    pub fn plain_sum_rows(x: f32[300, 259]) -> f32[300] {
        Reduce(x, 0.0, dimensions = [1], |a, b| a + b)
    }
    pub fn plain_sum_columns_f64(x: f64[1001, 67]) -> f64[67] {
        Reduce(x, 0.0, dimensions = [0], |a, b| a + b)
    }
}

/// Deterministic inputs: specials first, then a mix of grid values and random bit patterns.
fn inputs<T: Copy>(
    n: usize,
    seed: u64,
    specials: &[T],
    grid: impl Fn(usize) -> T,
    bits: impl Fn(u64) -> T,
) -> Vec<T> {
    let mut s = seed;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match i {
                i if i < specials.len() => specials[i],
                i if i % 3 == 0 => bits(s),
                i => grid(i),
            }
        })
        .collect()
}

fn f32s(n: usize, seed: u64) -> Vec<f32> {
    let sp = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        88.7,
        -103.9,
        1e-40,
        f32::MAX,
        f32::MIN_POSITIVE,
    ];
    inputs(
        n,
        seed,
        &sp,
        |i| (i as f32 * 0.0137) % 40.0 - 20.0,
        |b| f32::from_bits(b as u32),
    )
}

fn f64s(n: usize, seed: u64) -> Vec<f64> {
    let sp = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        709.8,
        -745.2,
        1e-310,
        f64::MAX,
        0.5,
    ];
    inputs(
        n,
        seed,
        &sp,
        |i| (i as f64 * 0.0137) % 60.0 - 30.0,
        f64::from_bits,
    )
}

/// f32 and f64 as the checks see them.
trait Float: Copy + std::fmt::LowerExp {
    /// Position on the line of floats ordered by value (consecutive floats consecutive).
    fn ordinal(self) -> i128;
    fn nan(self) -> bool;
    /// Non-finite or zero: results required bit for bit.
    fn special(self) -> bool;
    fn bits(self) -> u64;
}

macro_rules! float {
    ($t:ty, $i:ty) => {
        impl Float for $t {
            fn ordinal(self) -> i128 {
                let i = self.to_bits() as $i;
                (if i < 0 { <$i>::MIN - i } else { i }) as i128
            }
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn special(self) -> bool {
                !self.is_finite() || self == 0.0
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
        }
    };
}

float!(f32, i32);
float!(f64, i64);

/// `got[i]` within `bound` ulp of `want(i)` (NaN matches NaN); a special `want` exactly (its
/// sign too).
fn check<T: Float>(name: &str, got: &[T], want: impl Fn(usize) -> T, bound: u64) {
    for (i, &g) in got.iter().enumerate() {
        let w = want(i);
        let ok = match (g.nan(), w.nan()) {
            (true, true) => true,
            (false, false) if w.special() => g.bits() == w.bits(),
            (false, false) => (g.ordinal() - w.ordinal()).unsigned_abs() <= bound as u128,
            _ => false,
        };
        assert!(ok, "{name}[{i}] = {g:e}, want {w:e} (bound {bound} ulp)");
    }
}

/// Every program's outputs (as bits), on a rayon pool of `threads`, after checking them.
fn run_all(threads: usize) -> Vec<Vec<u64>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut all = Vec::new();
        let x = f32s(64 * 333, 1);
        let y = exp_rows(&Tensor::<f32, D2<64, 333>>::from_vec(x.clone()).unwrap());
        check("exp", y.as_slice(), |i| <f32 as Scalar>::exp(x[i]), 1);
        all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

        let x = f32s(20001, 2);
        let y = tanh_flat(&Tensor::<f32, D1<20001>>::from_vec(x.clone()).unwrap());
        check(
            "tanh",
            y.as_slice(),
            |i| <f32 as Scalar>::tanh(x[i] * 2.0 + 1.0),
            6,
        );
        all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

        let x = f32s(48 * 347, 3);
        let y = erf_rows(&Tensor::<f32, D2<48, 347>>::from_vec(x.clone()).unwrap());
        check("erf", y.as_slice(), |i| <f32 as Scalar>::erf(x[i]), 6);
        all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

        let x = f32s(20001, 4);
        let y = logistic_flat(&Tensor::<f32, D1<20001>>::from_vec(x.clone()).unwrap());
        check(
            "logistic",
            y.as_slice(),
            |i| <f32 as Scalar>::logistic(x[i]),
            3,
        );
        all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

        let x = f64s(64 * 301, 5);
        let y = log_f64(&Tensor::<f64, D2<64, 301>>::from_vec(x.clone()).unwrap());
        check("log", y.as_slice(), |i| <f64 as Scalar>::log(x[i].abs()), 1);
        all.push(y.as_slice().iter().map(|v| v.to_bits()).collect());

        let (a, b) = (f64s(20001, 6), f64s(20001, 7));
        let ta = Tensor::<f64, D1<20001>>::from_vec(a.clone()).unwrap();
        let y = pow_f64(&ta, &Tensor::<f64, D1<20001>>::from_vec(b.clone()).unwrap());
        check("pow", y.as_slice(), |i| <f64 as Scalar>::pow(a[i], b[i]), 2);
        all.push(y.as_slice().iter().map(|v| v.to_bits()).collect());

        let (a, b) = (f32s(20001, 8), f32s(20001, 9));
        let ta = Tensor::<f32, D1<20001>>::from_vec(a.clone()).unwrap();
        let y = div_sqrt(&ta, &Tensor::<f32, D1<20001>>::from_vec(b.clone()).unwrap());
        check("div_sqrt", y.as_slice(), |i| a[i] / b[i].sqrt(), 0);
        all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

        let (a, b) = (f32s(257 * 263, 15), f32s(257 * 263, 16));
        let ta = Tensor::<f32, D2<257, 263>>::from_vec(a.clone()).unwrap();
        let y = plain_affine(
            &ta,
            &Tensor::<f32, D2<257, 263>>::from_vec(b.clone()).unwrap(),
        );
        let want = |i: usize| <f32 as Scalar>::max(a[i] * 3.0 + b[i], b[i] - a[i]);
        check("plain_affine", y.as_slice(), want, 0);
        all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());
        reductions(&mut all);
        all
    })
}

/// Finite values in [-10, 10): sums of their exponentials stay far from overflow.
fn moderate(n: usize, seed: u64) -> Vec<f32> {
    f32s(n, seed)
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if v.is_finite() {
                v % 10.0
            } else {
                i as f32 % 7.0
            }
        })
        .collect()
}

/// `got[i]` within `rel` of `want[i]` relatively.
fn close(name: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rel * w.abs(),
            "{name}[{i}] = {g:e}, want {w:e} (relative {rel:e})"
        );
    }
}

/// The dispatched reductions against sums in f64 of the scalar functions; bits into `all`.
fn reductions(all: &mut Vec<Vec<u64>>) {
    let up = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
    let x = moderate(64 * 1000, 10);
    let y = softmax_rows(&Tensor::<f32, D2<64, 1000>>::from_vec(x.clone()).unwrap());
    let want: Vec<f64> = x
        .chunks(1000)
        .flat_map(|r| {
            let m = r.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            let e: Vec<f64> = r.iter().map(|&v| f64::from(v - m).exp()).collect();
            let s: f64 = e.iter().sum();
            e.into_iter().map(move |v| v / s)
        })
        .collect();
    // exp within 1 ulp, a sum of 1000 positive terms, one division: well inside 1e-5.
    close("softmax", &up(y.as_slice()), &want, 1e-5);
    all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

    let x: Vec<f64> = moderate(32 * 517, 11)
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    let y = sum_exp_f64(&Tensor::<f64, D2<32, 517>>::from_vec(x.clone()).unwrap());
    let want: Vec<f64> = x
        .chunks(517)
        .map(|r| r.iter().map(|v| v.exp()).sum())
        .collect();
    close("sum_exp_f64", y.as_slice(), &want, 1e-13);
    all.push(y.as_slice().iter().map(|v| v.to_bits()).collect());

    let x = moderate(50001, 12);
    let y = sum_exp_long(&Tensor::<f32, D2<1, 50001>>::from_vec(x.clone()).unwrap());
    let want = [x.iter().map(|&v| f64::from(v).exp()).sum::<f64>()];
    close("sum_exp_long", &up(y.as_slice()), &want, 1e-5);
    all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

    let x = f32s(40 * 259, 13);
    let y = max_tanh_rows(&Tensor::<f32, D2<40, 259>>::from_vec(x.clone()).unwrap());
    let want = |g: usize| {
        let r = &x[g * 259..(g + 1) * 259];
        // XLA's max: NaN wins.
        r.iter().fold(f32::NEG_INFINITY, |a, &b| {
            let t = <f32 as Scalar>::tanh(b);
            if a.is_nan() || t.is_nan() {
                f32::NAN
            } else {
                a.max(t)
            }
        })
    };
    check("max_tanh", y.as_slice(), want, 6);
    all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

    let x = f32s(300 * 259, 17);
    let y = plain_max_rows(&Tensor::<f32, D2<300, 259>>::from_vec(x.clone()).unwrap());
    let want = |g: usize| {
        let r = &x[g * 259..(g + 1) * 259];
        r.iter()
            .fold(f32::NEG_INFINITY, |a, &b| <f32 as Scalar>::max(a, b))
    };
    check("plain_max_rows", y.as_slice(), want, 0);
    all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

    let x = f32s(1001 * 67, 18);
    let y = plain_min_columns(&Tensor::<f32, D2<1001, 67>>::from_vec(x.clone()).unwrap());
    let want =
        |j: usize| (0..1001).fold(f32::INFINITY, |a, i| <f32 as Scalar>::min(a, x[i * 67 + j]));
    check("plain_min_columns", y.as_slice(), want, 0);
    all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

    let x = moderate(300 * 259, 19);
    let y = plain_sum_rows(&Tensor::<f32, D2<300, 259>>::from_vec(x.clone()).unwrap());
    for (g, &got) in y.as_slice().iter().enumerate() {
        let r = &x[g * 259..(g + 1) * 259];
        let want: f64 = r.iter().map(|&v| f64::from(v)).sum();
        let scale: f64 = r.iter().map(|&v| f64::from(v).abs()).sum();
        let err = (f64::from(got) - want).abs();
        assert!(
            err <= 1e-6 * scale,
            "plain_sum_rows[{g}] = {got:e}, want {want:e}"
        );
    }
    // The library's row reduction runs the same driver at the same level: the same bits.
    let mut lib = vec![0.0f32; 300];
    xla_kernels::reduce::sum_rows_f32(&x, 300, 259, &mut lib).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&lib),
        bits(y.as_slice()),
        "xla_kernels::reduce vs generated row sums"
    );
    all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());

    let x: Vec<f64> = moderate(1001 * 67, 20)
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    let y = plain_sum_columns_f64(&Tensor::<f64, D2<1001, 67>>::from_vec(x.clone()).unwrap());
    for (j, &got) in y.as_slice().iter().enumerate() {
        let want: f64 = (0..1001).map(|i| x[i * 67 + j]).sum();
        let scale: f64 = (0..1001).map(|i| x[i * 67 + j].abs()).sum();
        let err = (got - want).abs();
        assert!(
            err <= 1e-14 * scale,
            "plain_sum_columns_f64[{j}] = {got:e}, want {want:e}"
        );
    }
    all.push(y.as_slice().iter().map(|v| v.to_bits()).collect());

    let x = moderate(301 * 67, 14);
    let y = sum_exp_columns(&Tensor::<f32, D2<301, 67>>::from_vec(x.clone()).unwrap());
    let want: Vec<f64> = (0..67)
        .map(|j| (0..301).map(|i| f64::from(x[i * 67 + j]).exp()).sum())
        .collect();
    close("sum_exp_columns", &up(y.as_slice()), &want, 1e-5);
    all.push(y.as_slice().iter().map(|v| v.to_bits() as u64).collect());
}

#[test]
fn dispatched_loops_within_budget_and_independent_of_threads() {
    eprintln!("running at {:?}", xla_kernels::fused::isa::pick());
    let one = run_all(1);
    let three = run_all(3);
    assert!(one == three, "results differ between 1 and 3 threads");
}
