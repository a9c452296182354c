//! Element strides of stored values: row-major, by layout, and a materialised value's storage.

use xla_core::ArrayShape;

use super::{Graph, Kind, Value};

/// Row-major element strides of `dims`.
pub(crate) fn row_major_strides(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1].max(1);
    }
    s
}

/// Element strides of an array stored with its layout (row-major when none).
pub(crate) fn layout_strides(a: &ArrayShape) -> Vec<i64> {
    // xla-core owns layouts; shapes reaching the back end were validated by the builder.
    xla_core::index::strides(a).unwrap_or_else(|_| row_major_strides(&a.dims))
}

/// Element strides of a materialised value's storage: its layout for outputs, row-major for
/// scratch. A parameter materialised into scratch (a view its own layout cannot express) is a
/// row-major copy, whatever the parameter's layout.
pub(crate) fn storage_strides(g: &Graph, v: Value) -> Vec<i64> {
    let shape = g.shape(v);
    if matches!(g.nodes[v.node].kind, Kind::Param { .. }) {
        row_major_strides(&shape.dims)
    } else {
        layout_strides(shape)
    }
}
