//! The `fft` rows: `xla_kernels::fft` plans (built once, as the generated fn's `Scratch` holds
//! them) against XLA:CPU's `stablehlo.fft` on the same inputs. Work is counted as the usual
//! `5 N log2 N` flops of a complex FFT of `N` points (`2.5 N log2 N` for a real one).

use num_complex::Complex;
use xla_aot::__rt::xla_core::FftType;
use xla_aot::__rt::xla_kernels::fft::FftPlan;

use super::{as_f64, data, lit, Bench, Work};

fn fft_mlir(x: &str, y: &str, ty: &str, lens: &str) -> String {
    format!(
        "func.func public @main(%x: tensor<{x}>) -> tensor<{y}> {{\n  \
         %r = stablehlo.fft %x, type = {ty}, length = [{lens}] : (tensor<{x}>) -> tensor<{y}>\n  \
         return %r : tensor<{y}>\n}}\n"
    )
}

fn signal(seed: u64, n: usize) -> Vec<Complex<f32>> {
    let re = data(seed, n);
    let im = data(seed + 1, n);
    re.into_iter()
        .zip(im)
        .map(|(a, b)| Complex::new(a, b))
        .collect()
}

pub(crate) fn fft_rows(b: &mut Bench) {
    if !b.wants("fft") {
        return;
    }
    let log2 = |n: usize| (n as f64).log2();
    // Complex FFTs: 1-D of 1M points, 2-D of 1024 x 1024.
    for (shape, dims, lens, mlir_t, mlir_lens) in [
        (
            "c64[1M]",
            vec![1usize << 20],
            vec![1usize << 20],
            "1048576xcomplex<f32>",
            "1048576",
        ),
        (
            "c64[1024,1024] 2-D",
            vec![1024, 1024],
            vec![1024, 1024],
            "1024x1024xcomplex<f32>",
            "1024, 1024",
        ),
    ] {
        let n: usize = dims.iter().product();
        let x = signal(51, n);
        let args = [lit(&dims, x.clone())];
        let mut plan = FftPlan::<f32>::new(FftType::Fft, &dims, &lens).expect("plan");
        let mut y = vec![Complex::new(0.0f32, 0.0); n];
        plan.c2c(&x, &mut y).expect("fft");
        let res = as_f64(&lit(&dims, y.clone()));
        let mlir = fft_mlir(mlir_t, mlir_t, "FFT", mlir_lens);
        b.row(
            "fft",
            shape,
            "c64",
            &mlir,
            &args,
            1e-5,
            &mut || res.clone(),
            &mut || plan.c2c(&x, &mut y).expect("fft"),
            Work::Flops(5.0 * n as f64 * log2(n)),
        );
    }
    // Real FFT of 64 rows of 4096 samples.
    let (rows, n) = (64usize, 4096usize);
    let x = data(53, rows * n);
    let args = [lit(&[rows, n], x.clone())];
    let half = n / 2 + 1;
    let mut plan = FftPlan::<f32>::new(FftType::Rfft, &[rows, n], &[n]).expect("plan");
    let mut y = vec![Complex::new(0.0f32, 0.0); rows * half];
    plan.r2c(&x, &mut y).expect("rfft");
    let res = as_f64(&lit(&[rows, half], y.clone()));
    let mlir = fft_mlir("64x4096xf32", "64x2049xcomplex<f32>", "RFFT", "4096");
    b.row(
        "rfft",
        "f32[64,4096] rows",
        "f32",
        &mlir,
        &args,
        1e-5,
        &mut || res.clone(),
        &mut || plan.r2c(&x, &mut y).expect("rfft"),
        Work::Flops(2.5 * (rows * n) as f64 * log2(n)),
    );
}
