//! Throughput of the vector math (`VFloat` on `F32V` and `F64V`), one core, data in L2, beside
//! the scalar op of `xla_core::scalar::Scalar` applied lane by lane (what f64 and f32
//! cbrt/pow/atan2 did before they had vector versions), measured in the same run.
//!
//! Run: `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo run --release
//! -p xla-kernels --example math_speed`. Prints Melem/s per function (best of 9 runs).

use std::time::Instant;

use xla_core::scalar::Scalar;
use xla_kernels::simd::{VFloat, F32V, F64V};

const N: usize = 64 * 1024;

/// Best-of-9 Melem/s of `f` applied to `x` (and `y`) into `out`.
fn speed<V: VFloat>(
    x: &[V::Elem],
    y: &[V::Elem],
    out: &mut [V::Elem],
    f: impl Fn(V, V) -> V,
) -> f64 {
    let lanes = V::LANES;
    let mut best = f64::MAX;
    for _ in 0..9 {
        let t = Instant::now();
        for _ in 0..10 {
            for ((o, a), b) in out
                .chunks_exact_mut(lanes)
                .zip(x.chunks_exact(lanes))
                .zip(y.chunks_exact(lanes))
            {
                f(V::load(a), V::load(b)).store(o);
            }
            std::hint::black_box(&mut *out);
        }
        best = best.min(t.elapsed().as_secs_f64() / 10.0);
    }
    N as f64 / best / 1e6
}

/// The scalar op on every lane (the reference and the former fallback).
fn lanes1<V: VFloat>(v: V, f: fn(V::Elem) -> V::Elem) -> V {
    V::from_fn(|i| f(v.lane(i)))
}

fn lanes2<V: VFloat>(a: V, b: V, f: fn(V::Elem, V::Elem) -> V::Elem) -> V {
    V::from_fn(|i| f(a.lane(i), b.lane(i)))
}

fn main() {
    // Inputs in [-4, 4) (the range activations live in); pow bases in (0, 4], exponents in
    // [-4, 4); log of |x|.
    let x32: Vec<f32> = (0..N).map(|i| (i as f32 / N as f32) * 8.0 - 4.0).collect();
    let y32: Vec<f32> = x32.iter().rev().copied().collect();
    let p32: Vec<f32> = x32.iter().map(|v| (v + 4.0) * 0.5 + 1e-3).collect();
    let x64: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
    let y64: Vec<f64> = y32.iter().map(|&v| v as f64).collect();
    let p64: Vec<f64> = p32.iter().map(|&v| v as f64).collect();
    let mut o32 = vec![0f32; N];
    let mut o64 = vec![0f64; N];
    println!(
        "{:>9} {:>4} {:>10} {:>10} {:>6}",
        "function", "type", "vector", "lanewise", "ratio"
    );
    // One monomorphised loop per function (a fn pointer call per vector would dominate).
    macro_rules! row {
        ($name:literal, $t:literal, $x:expr, $y:expr, $o:expr, $v:ty, $vf:expr, $sf:expr) => {{
            let a = speed::<$v>($x, $y, $o, $vf);
            let b = speed::<$v>($x, $y, $o, $sf);
            println!(
                "{:>9} {:>4} {:>10.0} {:>10.0} {:>5.1}x",
                $name,
                $t,
                a,
                b,
                a / b
            );
        }};
    }
    macro_rules! unary {
        ($t:literal, $ty:ty, $v:ty, $x:expr, $p:expr, $o:expr; $($name:literal $f:ident $arg:ident),* $(,)?) => {
            $(row!($name, $t, if stringify!($arg) == "p" { $p } else { $x }, $x, $o, $v,
                |a, _| <$v as VFloat>::$f(a), |a, _| lanes1(a, <$ty as Scalar>::$f));)*
        };
    }
    // The first argument from `x` or `p` (as in `unary!`), the second from `y`.
    macro_rules! binary {
        ($t:literal, $ty:ty, $v:ty, $x:expr, $y:expr, $p:expr, $o:expr; $($name:literal $f:ident $arg:ident),* $(,)?) => {
            $(row!($name, $t, if stringify!($arg) == "p" { $p } else { $x }, $y, $o, $v,
                <$v as VFloat>::$f, |a, b| lanes2(a, b, <$ty as Scalar>::$f));)*
        };
    }
    unary!("f32", f32, F32V, &x32, &p32, &mut o32;
        "exp" exp x, "expm1" expm1 x, "log" log p, "log1p" log1p p, "logistic" logistic x,
        "tanh" tanh x, "erf" erf x, "sin" sin x, "cos" cos x, "tan" tan x, "cbrt" cbrt x,
        "rsqrt" rsqrt p);
    binary!("f32", f32, F32V, &x32, &y32, &p32, &mut o32; "pow" pow p, "atan2" atan2 x);
    unary!("f64", f64, F64V, &x64, &p64, &mut o64;
        "exp" exp x, "expm1" expm1 x, "log" log p, "log1p" log1p p, "logistic" logistic x,
        "tanh" tanh x, "erf" erf x, "sin" sin x, "cos" cos x, "tan" tan x, "cbrt" cbrt x,
        "rsqrt" rsqrt p);
    binary!("f64", f64, F64V, &x64, &y64, &p64, &mut o64; "pow" pow p, "atan2" atan2 x);
}
