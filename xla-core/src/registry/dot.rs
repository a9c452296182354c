//! Dot-product specs: Dot, RaggedDot, ScaledDot, DotGeneral.

use super::{op, opt, req, AttrKind as K, AttrSpec, Form, OpKind, OpSpec, Typing};

/// XLA's RaggedDotDimensionNumbers (each defaults to `jax.lax.ragged_dot`'s) and the dot's
/// result type.
const RAGGED_DOT: &[AttrSpec] = &[
    opt("lhs_batch_dimensions", K::Ints),
    opt("rhs_batch_dimensions", K::Ints),
    opt("lhs_contracting_dimensions", K::Ints),
    opt("rhs_contracting_dimensions", K::Ints),
    opt("lhs_ragged_dimensions", K::Ints),
    opt("rhs_group_dimensions", K::Ints),
    opt("precision_config", K::Precision),
    opt("preferred_element_type", K::Type),
];

pub(super) const DOT: [OpSpec; 3] = [
    op(
        "Dot",
        OpKind::Dot,
        "stablehlo.dot_general",
        Form::Operands(2),
        "(lhs, rhs)",
        &[
            opt("precision_config", K::Precision),
            opt("preferred_element_type", K::Type),
        ],
        Typing::Same { with_result: false },
    ),
    op(
        "RaggedDot",
        OpKind::RaggedDot,
        "chlo.ragged_dot",
        Form::Operands(3),
        "(lhs, rhs, group_sizes)",
        RAGGED_DOT,
        Typing::Free,
    ),
    op(
        "ScaledDot",
        OpKind::ScaledDot,
        // No StableHLO op: exported as its expansion; a name no import matches.
        "xla.scaled_dot",
        Form::Operands(4),
        "(lhs, lhs_scale, rhs, rhs_scale)",
        &[
            req("lhs_contracting_dimensions", K::Ints),
            req("rhs_contracting_dimensions", K::Ints),
            opt("lhs_batch_dimensions", K::Ints),
            opt("rhs_batch_dimensions", K::Ints),
            opt("precision_config", K::Precision),
            opt("preferred_element_type", K::Type),
        ],
        Typing::Same { with_result: false },
    ),
];

pub(super) const DOT_GENERAL: [OpSpec; 1] = [op(
    "DotGeneral",
    OpKind::DotGeneral,
    "stablehlo.dot_general",
    Form::Operands(2),
    "(lhs, rhs)",
    &[
        req("lhs_contracting_dimensions", K::Ints),
        req("rhs_contracting_dimensions", K::Ints),
        opt("lhs_batch_dimensions", K::Ints),
        opt("rhs_batch_dimensions", K::Ints),
        opt("precision_config", K::Precision),
        opt("preferred_element_type", K::Type),
    ],
    Typing::Same { with_result: false },
)];
