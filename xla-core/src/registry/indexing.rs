//! Indexing specs: Gather, Scatter, DynamicSlice, DynamicUpdateSlice.

use super::{op, opt, req, AttrKind as K, Form, OpKind, OpSpec, Typing, NONE};

pub(super) const INDEXING: [OpSpec; 4] = [
    op(
        "Gather",
        OpKind::Gather,
        "stablehlo.gather",
        Form::Operands(2),
        "(operand, start_indices)",
        &[
            req("offset_dims", K::Ints),
            opt("collapsed_slice_dims", K::Ints),
            opt("operand_batching_dims", K::Ints),
            opt("start_indices_batching_dims", K::Ints),
            req("start_index_map", K::Ints),
            req("index_vector_dim", K::Int),
            req("slice_sizes", K::Ints),
            opt("indices_are_sorted", K::Bool),
        ],
        Typing::Free,
    ),
    op(
        "Scatter",
        OpKind::Scatter,
        "stablehlo.scatter",
        Form::Scatter,
        "(operands..., scatter_indices, updates..., update_computation)",
        &[
            req("update_window_dims", K::Ints),
            opt("inserted_window_dims", K::Ints),
            opt("input_batching_dims", K::Ints),
            opt("scatter_indices_batching_dims", K::Ints),
            req("scatter_dims_to_operand_dims", K::Ints),
            req("index_vector_dim", K::Int),
            opt("indices_are_sorted", K::Bool),
            opt("unique_indices", K::Bool),
        ],
        Typing::Free,
    ),
    op(
        "DynamicSlice",
        OpKind::DynamicSlice,
        "stablehlo.dynamic_slice",
        Form::Variadic(1),
        "(operand, start_indices...)",
        &[req("slice_sizes", K::Ints)],
        Typing::First,
    ),
    op(
        "DynamicUpdateSlice",
        OpKind::DynamicUpdateSlice,
        "stablehlo.dynamic_update_slice",
        Form::Variadic(2),
        "(operand, update, start_indices...)",
        NONE,
        Typing::First,
    ),
];
