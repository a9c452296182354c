//! Linear-algebra and FFT specs: Cholesky, TriangularSolve, Fft.

use super::{op, req, AttrKind as K, Form, OpKind, OpSpec, Typing};

pub(super) const LINALG: [OpSpec; 3] = [
    op(
        "Cholesky",
        OpKind::Cholesky,
        "stablehlo.cholesky",
        Form::Operands(1),
        "(a)",
        &[req("lower", K::Bool)],
        Typing::Same { with_result: true },
    ),
    op(
        "TriangularSolve",
        OpKind::TriangularSolve,
        "stablehlo.triangular_solve",
        Form::Operands(2),
        "(a, b)",
        &[
            req("left_side", K::Bool),
            req("lower", K::Bool),
            req("unit_diagonal", K::Bool),
            req("transpose_a", K::Transpose),
        ],
        Typing::Same { with_result: true },
    ),
    op(
        "Fft",
        OpKind::Fft,
        "stablehlo.fft",
        Form::Operands(1),
        "(operand)",
        &[req("fft_type", K::FftType), req("fft_length", K::Ints)],
        Typing::Free,
    ),
];
