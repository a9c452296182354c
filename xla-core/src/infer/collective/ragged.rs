//! RaggedAllToAll's shape rules: XLA's `ShapeVerifier::HandleRaggedAllToAll` (six operands;
//! the four offsets and sizes of one shape; the result is `output`'s shape) and
//! `jax.lax.ragged_all_to_all`'s abstract evaluation (input and output rows of one shape,
//! integer offsets), made exact where XLA leaves a value undefined:
//!
//! - operands in XLA HLO's order: `input, output, input_offsets, send_sizes, output_offsets,
//!   recv_sizes`;
//! - the offsets and sizes are `s32` or `s64` (XLA canonicalises both to `s64`), rank 1, with
//!   `G * k` entries for a group of `G` (`k >= 1` updates per member; entry `j * k + i` is
//!   update `i` to member `j`, as XLA's GPU runtime and its decomposer index them). XLA's
//!   verifier also accepts rank 2, but its runtimes read only the first dimension and index
//!   the buffer as rank 1, so rank 2 has no agreed meaning: refused here, with that reason.
//!
//! Where the groups do not tell `G` (`replica_groups = []`), the run checks the entries split
//! over its group (`spmd::ops::ragged_all_to_all`).

use super::groups_text;
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::infer::expect_array;
use crate::ir::Collective;
use crate::shape::{ArrayShape, Shape};

/// The names of RaggedAllToAll's operands, in order.
pub const OPERANDS: [&str; 6] = [
    "input",
    "output",
    "input_offsets",
    "send_sizes",
    "output_offsets",
    "recv_sizes",
];

/// The result shape of RaggedAllToAll `c` on `operands` (see the module docs).
pub(super) fn ragged_all_to_all(c: &Collective, operands: &[&Shape]) -> Result<Shape> {
    let op = c.kind.name();
    if operands.len() != OPERANDS.len() {
        return Err(Error::new(
            op,
            format!(
                "takes 6 operands ({}), got {}",
                OPERANDS.join(", "),
                operands.len()
            ),
        ));
    }
    let arrays = operands
        .iter()
        .zip(OPERANDS)
        .enumerate()
        .map(|(i, (s, name))| expect_array(op, name, s, Blame::Operand(i)))
        .collect::<Result<Vec<&ArrayShape>>>()?;
    let (input, output) = (arrays[0], arrays[1]);
    let err = |i: usize, msg: String| Error::new(op, msg).blame(Blame::Operand(i));
    if input.rank() == 0 {
        return Err(err(
            0,
            format!("the input {input} has no outermost dimension to cut into rows (rank 0)"),
        ));
    }
    if input.ty != output.ty {
        return Err(err(
            1,
            format!("input and output have one element type: input {input} vs output {output}"),
        ));
    }
    if input.rank() != output.rank() {
        return Err(err(
            1,
            format!("input and output have one rank: input {input} vs output {output}"),
        ));
    }
    if input.dims[1..] != output.dims[1..] {
        return Err(err(
            1,
            format!(
                "input and output rows have one shape (every dimension but the outermost): \
                 input {input} vs output {output}"
            ),
        ));
    }
    let first = arrays[2];
    if !matches!(first.ty, ElementType::S32 | ElementType::S64) {
        return Err(err(
            2,
            format!("input_offsets must be s32 or s64 (row numbers), got {first}"),
        ));
    }
    if first.rank() != 1 {
        return Err(err(
            2,
            format!(
                "input_offsets must be rank 1 (entry j*k + i: update i to group member j), got \
                 {first}; XLA's verifier also takes rank 2, but its runtimes read only the first \
                 dimension, so rank 2 has no agreed meaning"
            ),
        ));
    }
    for (i, a) in arrays.iter().enumerate().skip(3) {
        if a.ty != first.ty || a.dims != first.dims {
            return Err(err(
                i,
                format!(
                    "input_offsets, send_sizes, output_offsets and recv_sizes have one shape: \
                     input_offsets {first} vs {} {a}",
                    OPERANDS[i]
                ),
            ));
        }
    }
    let n = first.dims[0];
    match c.group_size() {
        _ if n == 0 => Err(err(
            2,
            format!("input_offsets {first} has no entry; it needs k >= 1 per group member"),
        )),
        Some(g) if n % g != 0 => Err(err(
            2,
            format!(
                "input_offsets {first} has {n} entries, not a multiple of the group size, {g} \
                 (replica_groups {}): entry j*k + i is update i to group member j",
                groups_text(&c.replica_groups)
            ),
        )),
        _ => Ok(Shape::Array(ArrayShape::new(output.ty, &output.dims))),
    }
}
