use num_complex::Complex;

use crate::builder::Builder;
use crate::error::Result;
use crate::eval::evaluate;
use crate::ir::FftType;
use crate::literal::{ArrayElement, Literal};
use crate::shape::Shape;

fn run<T: ArrayElement>(dims: &[i64], x: Vec<T>, t: FftType, len: &[i64]) -> Result<Literal> {
    let mut b = Builder::new("main");
    let p = b.parameter(0, Shape::array(T::TYPE, dims), "x")?;
    let r = b.fft(p, t, len)?;
    evaluate(&b.build(r)?, &[Literal::from_vec(dims, x)?])
}

fn c(re: f64, im: f64) -> Complex<f64> {
    Complex::new(re, im)
}

fn close(got: &[Complex<f64>], want: &[Complex<f64>], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).norm() <= tol, "bin {k}: {g} vs {w}");
    }
}

#[test]
fn fft_of_four_points() -> Result<()> {
    let x = vec![c(1.0, 0.0), c(2.0, 0.0), c(3.0, 0.0), c(4.0, 0.0)];
    let y = run(&[4], x, FftType::Fft, &[4])?;
    let want = [c(10.0, 0.0), c(-2.0, 2.0), c(-2.0, 0.0), c(-2.0, -2.0)];
    close(y.as_slice().unwrap(), &want, 1e-14);
    Ok(())
}

#[test]
fn ifft_inverts_fft_for_primes_and_mixed_lengths_in_2d() -> Result<()> {
    for (n1, n2) in [(7, 97), (1, 12), (2, 1), (5, 3)] {
        let n = n1 * n2;
        let x: Vec<Complex<f64>> = (0..n)
            .map(|i| c(((i * 37) % 11) as f64 - 5.0, ((i * 13) % 7) as f64 * 0.5))
            .collect();
        let y = run(&[n1, n2], x.clone(), FftType::Fft, &[n1, n2])?;
        let y: Vec<Complex<f64>> = y.as_slice().unwrap().to_vec();
        // The DC bin is the plain sum.
        let sum: Complex<f64> = x.iter().sum();
        close(&y[..1], &[sum], 1e-12);
        let z = run(&[n1, n2], y, FftType::Ifft, &[n1, n2])?;
        close(z.as_slice().unwrap(), &x, 1e-12);
    }
    Ok(())
}

#[test]
fn rfft_keeps_half_and_irfft_rebuilds_the_signal() -> Result<()> {
    for n in [1usize, 2, 7, 8] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() + 0.25).collect();
        let y = run(&[n as i64], x.clone(), FftType::Rfft, &[n as i64])?;
        assert_eq!(
            y.shape(),
            Shape::array(crate::ElementType::C128, &[n as i64 / 2 + 1])
        );
        let spec: Vec<Complex<f64>> = y.as_slice().unwrap().to_vec();
        let back = run(&[n as i64 / 2 + 1], spec, FftType::Irfft, &[n as i64])?;
        let back: &[f64] = back.as_slice().unwrap();
        for (a, b) in back.iter().zip(&x) {
            assert!((a - b).abs() < 1e-14, "n {n}: {a} vs {b}");
        }
    }
    Ok(())
}

#[test]
fn irfft_ignores_the_imaginary_parts_of_dc_and_nyquist_as_xla() -> Result<()> {
    // XLA:CPU (and numpy.fft.irfft) on these bins: [2, -1, 0, 0] and, for n = 5,
    // [2.2, -0.43380126, -1.0723525, 0.9195661, -0.6134124].
    let bins = vec![c(1.0, 5.0), c(2.0, 1.0), c(3.0, -2.0)];
    let y = run(&[3], bins.clone(), FftType::Irfft, &[4])?;
    let y: &[f64] = y.as_slice().unwrap();
    for (a, b) in y.iter().zip([2.0, -1.0, 0.0, 0.0]) {
        assert!((a - b).abs() < 1e-14, "{y:?}");
    }
    let y = run(&[3], bins, FftType::Irfft, &[5])?;
    let y: &[f64] = y.as_slice().unwrap();
    for (a, b) in y
        .iter()
        .zip([2.2, -0.43380126, -1.0723525, 0.9195661, -0.6134124])
    {
        assert!((a - b).abs() < 1e-7, "{y:?}");
    }
    Ok(())
}
