//! Shape inference: one pure function per op, the single source of truth for XLA's rules and
//! their error messages (as XLA's `shape_inference.cc`). Each function takes operand shapes and
//! attributes and returns the result shape (or a plan the builder lowers), or an [`Error`] that
//! names the user-facing op, the rule, the shapes (`f32[2,3] vs f32[3]`) and what to blame.
//!
//! Results never carry a layout: layouts belong to parameters; every computed value is logical.

pub mod collective;
pub mod control;
pub mod conv;
pub mod dims;
pub mod dot;
pub mod dynamic;
pub mod elementwise;
pub mod fft;
pub mod host_io;
pub mod indexing;
pub mod linalg;
pub mod map;
pub mod movement;
pub mod norm;
pub mod ragged;
pub mod reduce;
pub mod rng;
pub mod scaled;
pub mod scan;
pub mod shape_ops;
pub mod sort;
pub mod tuple;
pub mod window;

pub use collective::collective;
pub use control::{conditional, while_loop};
pub use conv::{convolution, default_dimension_numbers, explicit_padding, padding_for, Padding};
pub use dot::{dot, dot_compute_type, dot_general};
pub use dynamic::{dynamic_slice, dynamic_update_slice};
pub use elementwise::{
    binary, binary_op, bitcast_convert, clamp, compare, compare_name, convert, reduce_precision,
    select, unary, BinaryPlan,
};
pub use fft::fft;
pub use host_io::host_io;
pub use indexing::{gather, scatter};
pub use linalg::{cholesky, triangular_solve};
pub use map::map;
pub use movement::{concat_in_dim, pad, rev, slice};
pub use norm::batch_norm;
pub use ragged::ragged_dot;
pub use reduce::reduce;
pub use rng::{rng, rng_bit_generator, rng_types};
pub use scaled::scaled_dot;
pub use scan::scan;
pub use shape_ops::{broadcast, broadcast_in_dim, collapse, iota, reshape, transpose};
pub use sort::{comparator_params, sort, sort_dimension, top_k};
pub use tuple::{
    after_all, call, composite_call, custom_call, get_tuple_element, optimization_barrier, tuple,
};
pub use window::{reduce_window, select_and_scatter, WindowPadding, WindowSpec};

use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::shape::{ArrayShape, Shape};

/// The array inside `shape`, or an error naming `op` and blaming `blame` for a tuple or token.
pub(crate) fn expect_array<'a>(
    op: &str,
    what: &str,
    shape: &'a Shape,
    blame: Blame,
) -> Result<&'a ArrayShape> {
    match shape {
        Shape::Array(a) => Ok(a),
        Shape::Tuple(_) | Shape::Token => {
            Err(Error::new(op, format!("{what} must be an array, got {shape}")).blame(blame))
        }
    }
}

/// True when the shapes agree ignoring layouts (XLA's `ShapeUtil::Compatible`).
pub fn compatible(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.ty == y.ty && x.same_dims(y),
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| compatible(p, q))
        }
        (Shape::Token, Shape::Token) => true,
        (Shape::Array(_) | Shape::Tuple(_) | Shape::Token, _) => false,
    }
}

/// `ty[dims]` with the dims and dynamic flags of `like`, default layout.
pub(crate) fn array_like(ty: ElementType, like: &ArrayShape) -> ArrayShape {
    like.with_type(ty)
}

/// `[a, b, c]`: attribute lists in messages and help.
pub(crate) fn list(d: &[i64]) -> String {
    format!(
        "[{}]",
        d.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    )
}

/// Check that `dims` are distinct dimension numbers of a rank-`rank` array; `Err` names `op` and
/// blames the attribute `attr`.
pub(crate) fn check_dims(
    op: &str,
    attr: &'static str,
    dims: &[i64],
    shape: &ArrayShape,
) -> Result<()> {
    let rank = shape.rank() as i64;
    for (i, &d) in dims.iter().enumerate() {
        if d < 0 || d >= rank {
            return Err(Error::new(
                op,
                format!("{attr}[{i}] = {d} is out of range for the rank-{rank} operand {shape}"),
            )
            .blame(Blame::Attribute(attr)));
        }
        if dims[..i].contains(&d) {
            return Err(Error::new(
                op,
                format!(
                    "{attr} {} repeats dimension {d} (operand {shape})",
                    list(dims)
                ),
            )
            .blame(Blame::Attribute(attr)));
        }
    }
    Ok(())
}
