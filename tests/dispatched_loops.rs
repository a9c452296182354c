//! Generated elementwise loops with run-time instruction-set dispatch (`xla_kernels::fused::isa`):
//! loops of 4K elements or more with a transcendental function, a root or a division run
//! AVX-512, AVX2 + FMA or the build's own vectors, whichever `xla_kernels::cpu::level` picks.
//! Each result is checked against the scalar op (the evaluator's) within the vector math's ulp
//! budget (`xla_kernels::math`), special results and exact ops bit for bit, and the same bits on
//! 1 and 3 threads. The test command reruns this file with `XLA_KERNELS_MAX_ISA` capped at each
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
        all
    })
}

#[test]
fn dispatched_loops_within_budget_and_independent_of_threads() {
    eprintln!("running at {:?}", xla_kernels::fused::isa::pick());
    let one = run_all(1);
    let three = run_all(3);
    assert!(one == three, "results differ between 1 and 3 threads");
}
