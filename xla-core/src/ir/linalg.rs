//! FFT's and TriangularSolve's attributes: [`FftType`] and [`TransposeA`].

/// Which transform an `Fft` computes (XLA's `FftType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FftType {
    /// Complex to complex, forward: `y[k] = sum_j x[j] e^(-2 pi i j k / N)`.
    Fft,
    /// Complex to complex, inverse, scaled: `x[j] = (1/N) sum_k y[k] e^(2 pi i j k / N)`.
    Ifft,
    /// Real to complex, forward: the innermost axis keeps `N/2 + 1` outputs.
    Rfft,
    /// Complex to real, inverse, scaled: reads `N/2 + 1` inputs of the innermost axis (the
    /// rest is their conjugate mirror; imaginary parts of bins 0 and N/2 are ignored).
    Irfft,
}

impl FftType {
    /// Every type, in XLA's order.
    pub const ALL: [FftType; 4] = [FftType::Fft, FftType::Ifft, FftType::Rfft, FftType::Irfft];

    /// The name as XLA and StableHLO spell it.
    pub fn name(self) -> &'static str {
        match self {
            FftType::Fft => "FFT",
            FftType::Ifft => "IFFT",
            FftType::Rfft => "RFFT",
            FftType::Irfft => "IRFFT",
        }
    }

    /// The type called `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<FftType> {
        FftType::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }

    /// True for IFFT and IRFFT (scaled by `1/N`, positive exponent).
    pub fn is_inverse(self) -> bool {
        matches!(self, FftType::Ifft | FftType::Irfft)
    }
}

/// How `TriangularSolve` applies its matrix `a`: `op(a)` is `a`, `a^T` or `a^H` (XLA's
/// `TriangularSolveOptions::Transpose`, StableHLO's `#stablehlo<transpose ...>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransposeA {
    /// `NO_TRANSPOSE`: `op(a) = a`.
    NoTranspose,
    /// `TRANSPOSE`: `op(a) = a^T`.
    Transpose,
    /// `ADJOINT`: `op(a) = conj(a)^T` (`a^T` for real types).
    Adjoint,
}

impl TransposeA {
    /// Every variant, in declaration order (the IR's binary form numbers them by position).
    pub const ALL: [TransposeA; 3] = [
        TransposeA::NoTranspose,
        TransposeA::Transpose,
        TransposeA::Adjoint,
    ];

    /// The spelling of XLA and StableHLO: `NO_TRANSPOSE`, `TRANSPOSE`, `ADJOINT`.
    pub fn name(self) -> &'static str {
        match self {
            TransposeA::NoTranspose => "NO_TRANSPOSE",
            TransposeA::Transpose => "TRANSPOSE",
            TransposeA::Adjoint => "ADJOINT",
        }
    }

    /// The variant spelled `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<TransposeA> {
        TransposeA::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }
}
