//! Reduction-family specs: Reduce, ReduceWindow, SelectAndScatter, Scan, Sort, TopK.

use super::{op, opt, req, AttrKind as K, Form, OpKind, OpSpec, Typing};

pub(super) const REDUCE: [OpSpec; 6] = [
    op(
        "Reduce",
        OpKind::Reduce,
        "stablehlo.reduce",
        Form::Reduce,
        "(operands..., init_values..., computation)",
        &[req("dimensions", K::Ints)],
        Typing::Reduce,
    ),
    op(
        "ReduceWindow",
        OpKind::ReduceWindow,
        "stablehlo.reduce_window",
        Form::Reduce,
        "(operands..., init_values..., computation)",
        &[
            req("window_dimensions", K::Ints),
            opt("window_strides", K::Ints),
            opt("base_dilations", K::Ints),
            opt("window_dilations", K::Ints),
            opt("padding", K::WindowPadding),
        ],
        Typing::Reduce,
    ),
    op(
        "SelectAndScatter",
        OpKind::SelectAndScatter,
        "stablehlo.select_and_scatter",
        Form::SelectAndScatter,
        "(operand, select, source, init_value, scatter)",
        &[
            req("window_dimensions", K::Ints),
            opt("window_strides", K::Ints),
            opt("padding", K::WindowPadding),
        ],
        Typing::Same { with_result: true },
    ),
    // StableHLO has no scan: CHLO's (XLA legalises it to a while loop).
    op(
        "Scan",
        OpKind::Scan,
        "chlo.scan",
        Form::Scan,
        "([inputs...], [inits...], to_apply)",
        &[
            req("scan_dimension", K::Int),
            opt("is_reverse", K::Bool),
            opt("is_associative", K::Bool),
        ],
        Typing::Free,
    ),
    op(
        "Sort",
        OpKind::Sort,
        "stablehlo.sort",
        Form::Sort,
        "(operands..., comparator)",
        &[opt("dimension", K::Int), opt("is_stable", K::Bool)],
        Typing::Free,
    ),
    op(
        "TopK",
        OpKind::TopK,
        "chlo.top_k",
        Form::Operands(1),
        "(operand)",
        &[req("k", K::Int), opt("largest", K::Bool)],
        Typing::Free,
    ),
];
