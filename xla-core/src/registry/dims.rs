//! Specs of the ops of bounded dynamic dimensions: GetDimensionSize, SetDimensionSize,
//! DynamicReshape (their sizes are `s32[]` operands).

use super::{op, req, AttrKind as K, Form, OpKind, OpSpec, Typing};

pub(super) const DIMS: [OpSpec; 3] = [
    op(
        "GetDimensionSize",
        OpKind::GetDimensionSize,
        "stablehlo.get_dimension_size",
        Form::Operands(1),
        "(operand)",
        &[req("dimension", K::Int)],
        Typing::Free,
    ),
    op(
        "SetDimensionSize",
        OpKind::SetDimensionSize,
        "stablehlo.set_dimension_size",
        Form::Operands(2),
        "(operand, val)",
        &[req("dimension", K::Int)],
        Typing::First,
    ),
    op(
        "DynamicReshape",
        OpKind::DynamicReshape,
        "stablehlo.dynamic_reshape",
        Form::Variadic(1),
        "(operand, dim_sizes...)",
        &[
            req("new_size_bounds", K::Ints),
            req("dims_are_dynamic", K::Bools),
        ],
        Typing::First,
    ),
];
