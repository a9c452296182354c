//! Fft.
//!
//! `Fft(operand, fft_type, fft_length)`: a transform over the `L = len(fft_length)` innermost
//! axes, `1 <= L <= 3`, as XLA's `ShapeInference::InferFftShape`:
//! - FFT, IFFT: complex operand (c64, c128), those axes of sizes `fft_length`; same shape out.
//! - RFFT: f32 or f64 operand, those axes of sizes `fft_length`; out c64 or c128 with the
//!   innermost axis `n/2 + 1` (`n = fft_length[L-1]`, unchanged when `n = 0`).
//! - IRFFT: complex operand, the outer `L - 1` axes of sizes `fft_length`, the innermost
//!   `n/2 + 1` (0 when `n = 0`); out f32 or f64 with the innermost axis `n`.

use super::{expect_array, list};
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::ir::FftType;
use crate::shape::Shape;

const OP: &str = "Fft";

/// The innermost spectrum length of a real signal of `n` samples: `n/2 + 1`, 0 for `n = 0`.
pub fn half_spectrum(n: i64) -> i64 {
    if n == 0 {
        0
    } else {
        n / 2 + 1
    }
}

fn attr_error(msg: String) -> Error {
    Error::new(OP, msg).blame(Blame::Attribute("fft_length"))
}

/// The result shape of `Fft(operand, fft_type, fft_length)`.
pub fn fft(operand: &Shape, fft_type: FftType, fft_length: &[i64]) -> Result<Shape> {
    let a = expect_array(OP, "the operand", operand, Blame::Operand(0))?;
    let t = fft_type.name();
    let l = fft_length.len();
    if !(1..=3).contains(&l) {
        return Err(attr_error(format!(
            "{t} transforms 1 to 3 innermost axes, but fft_length = {} has {l} (operand {a})",
            list(fft_length)
        )));
    }
    if let Some(&n) = fft_length.iter().find(|&&n| n < 0) {
        return Err(attr_error(format!(
            "fft_length = {} has the negative length {n} (operand {a})",
            list(fft_length)
        )));
    }
    if a.rank() < l {
        return Err(Error::new(
            OP,
            format!(
                "{t} over {l} axes (fft_length = {}) needs an operand of rank at least {l}, got \
                 {a}",
                list(fft_length)
            ),
        )
        .blame(Blame::Operand(0)));
    }
    let out_ty = match fft_type {
        FftType::Fft | FftType::Ifft | FftType::Irfft if !a.ty.is_complex() => {
            return Err(Error::new(
                OP,
                format!("{t} requires a complex operand (c64 or c128), got {a}"),
            )
            .blame(Blame::Operand(0)));
        }
        FftType::Rfft if !matches!(a.ty, ElementType::F32 | ElementType::F64) => {
            return Err(Error::new(
                OP,
                format!("RFFT requires a real operand (f32 or f64), got {a}"),
            )
            .blame(Blame::Operand(0)));
        }
        FftType::Fft | FftType::Ifft => a.ty,
        FftType::Rfft => a.ty.complex_of().unwrap_or(a.ty),
        FftType::Irfft => a.ty.complex_component().unwrap_or(a.ty),
    };
    let first = a.rank() - l;
    let n = fft_length[l - 1];
    // The size each transformed operand axis must have.
    let mut expected = fft_length.to_vec();
    if fft_type == FftType::Irfft {
        expected[l - 1] = half_spectrum(n);
    }
    let got = &a.dims[first..];
    if got != expected.as_slice() {
        let rule = match fft_type {
            FftType::Irfft => format!(
                "IRFFT needs the {l} innermost operand dimensions to be fft_length with the last \
                 one n/2 + 1 = {}",
                half_spectrum(n)
            ),
            FftType::Fft | FftType::Ifft | FftType::Rfft => {
                format!("{t} needs the {l} innermost operand dimensions to equal fft_length")
            }
        };
        return Err(attr_error(format!(
            "{rule}: fft_length = {}, expected {}, but the operand {a} has {}",
            list(fft_length),
            list(&expected),
            list(got)
        )));
    }
    let mut out = a.with_type(out_ty);
    let last = a.rank() - 1;
    match fft_type {
        FftType::Fft | FftType::Ifft => {}
        FftType::Rfft => out.dims[last] = half_spectrum(n),
        FftType::Irfft => out.dims[last] = n,
    }
    Ok(Shape::Array(out))
}

#[cfg(test)]
mod tests;
