//! Random-number specs: RngBitGenerator, RngUniform, RngNormal.

use super::{op, req, AttrKind as K, Form, OpKind, OpSpec, Typing, NONE};
use crate::ir::RngDistribution;

pub(super) const RNG: [OpSpec; 3] = [
    op(
        "RngBitGenerator",
        OpKind::RngBitGenerator,
        "stablehlo.rng_bit_generator",
        Form::OperandsAndType(1),
        "(initial_state, shape)",
        &[req("algorithm", K::RngAlgorithm)],
        Typing::Free,
    ),
    op(
        "RngUniform",
        OpKind::Rng(RngDistribution::Uniform),
        "stablehlo.rng",
        Form::OperandsAndType(2),
        "(a, b, shape)",
        NONE,
        Typing::Same { with_result: true },
    ),
    op(
        "RngNormal",
        OpKind::Rng(RngDistribution::Normal),
        "stablehlo.rng",
        Form::OperandsAndType(2),
        "(mu, sigma, shape)",
        NONE,
        Typing::Same { with_result: true },
    ),
];
