//! Throughput of the f32 vector math (`VFloat` on `F32V`), one core, data in L2.
//!
//! Run: `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo run --release
//! -p xla-kernels --example math_speed`. Prints Melem/s per function (best of 9 runs).

use std::time::Instant;

use xla_kernels::simd::{VFloat, F32V};

const N: usize = 64 * 1024;

/// Best-of-9 Melem/s of `f` applied to `x` into `out`.
fn speed(x: &[f32], out: &mut [f32], f: impl Fn(F32V) -> F32V) -> f64 {
    let lanes = <F32V as VFloat>::LANES;
    let mut best = f64::MAX;
    for _ in 0..9 {
        let t = Instant::now();
        for _ in 0..20 {
            for (o, i) in out.chunks_exact_mut(lanes).zip(x.chunks_exact(lanes)) {
                VFloat::store(f(<F32V as VFloat>::load(i)), o);
            }
            std::hint::black_box(&mut *out);
        }
        best = best.min(t.elapsed().as_secs_f64() / 20.0);
    }
    N as f64 / best / 1e6
}

fn main() {
    // Inputs in [-4, 4): the range activations live in.
    let x: Vec<f32> = (0..N).map(|i| (i as f32 / N as f32) * 8.0 - 4.0).collect();
    let mut out = vec![0f32; N];
    // One monomorphised loop per function (a fn pointer call per vector would dominate).
    macro_rules! run {
        ($($name:literal => $f:expr),* $(,)?) => {
            $(println!("{:>10}: {:8.0} Melem/s", $name, speed(&x, &mut out, $f));)*
        };
    }
    run!(
        "x*2+1" => |v| v * <F32V as VFloat>::splat(2.0) + <F32V as VFloat>::splat(1.0),
        "exp" => <F32V as VFloat>::exp,
        "expm1" => <F32V as VFloat>::expm1,
        "tanh" => <F32V as VFloat>::tanh,
        "logistic" => <F32V as VFloat>::logistic,
        "log" => |v| <F32V as VFloat>::log(v.abs()),
        "erf" => <F32V as VFloat>::erf,
        "div" => |v| v / (v.abs() + <F32V as VFloat>::splat(1.0)),
    );
}
