//! `Sort` and `TopK` as StableHLO.
//!
//! Sort is `"stablehlo.sort"(inputs...) ({ ^bb0(lhs_0, rhs_0, lhs_1, rhs_1, ...): ... })
//! {dimension = d : i64, is_stable = b}`, the comparator inlined as its region (like Reduce's
//! reducer).
//!
//! TopK with `largest` is `chlo.top_k(%x, k = K)`, which XLA (jaxlib 0.10) lowers to its own
//! TopK: the total order, NaN above +Inf, -0 below +0, ties by lower index first. CHLO has no
//! `largest = false` (XLA's generic parser silently ignores such an attribute, and
//! `mhlo.topk(..., largest = false)` is XLA-internal MHLO, not StableHLO), so the smallest k are
//! exported as plain StableHLO: a stable `stablehlo.sort` of the operand and an s32 iota along
//! the last dimension by the total-order `<` (TOTALORDER for floats), then `stablehlo.slice` of
//! the first k of both. A stable sort keeps equal elements in index order, which is TopK's tie
//! rule.

use super::super::text::{flat_types, i64_array, tensor_type};
use super::super::{Body, Val};
use super::compare_type;
use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::ir::{Computation, Instruction};
use crate::shape::{ArrayShape, Shape};

impl Body<'_> {
    /// `%n:k = "stablehlo.sort"(inputs...) ({ ^bb0(...): ... }) {dimension, is_stable}`: the
    /// region's block arguments are the comparator's parameters (lhs_0, rhs_0, lhs_1, ...).
    pub(super) fn sort(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        dimension: i64,
        is_stable: bool,
        comparator: &Computation,
        depth: usize,
    ) -> Result<Val> {
        self.region_op(
            ins,
            ops,
            "stablehlo.sort",
            comparator,
            &format!("{{dimension = {dimension} : i64, is_stable = {is_stable}}}"),
            depth,
        )
    }

    /// `chlo.top_k` (largest) or sort-and-slice (smallest): see the module docs.
    pub(super) fn top_k(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        operand_shapes: &[&Shape],
        k: i64,
        largest: bool,
        depth: usize,
    ) -> Result<Val> {
        let opcode = ins.op.opcode();
        let fail = |what: String| Error::new(opcode, format!("StableHLO export: {what}"));
        let [op] = ops else {
            return Err(fail(format!("{} operands, expected 1", ops.len())));
        };
        let (x, xt) = op.leaf(opcode)?;
        let (x, xt) = (x.to_string(), xt.to_string());
        let a = match operand_shapes.first() {
            Some(Shape::Array(a)) if !a.dims.is_empty() => a.clone(),
            Some(Shape::Array(_) | Shape::Tuple(_) | Shape::Token) | None => {
                return Err(fail("TopK of a non-array or a scalar".into()))
            }
        };
        let mut result_types = Vec::new();
        flat_types(&ins.shape, &mut result_types);
        let [vt, it] = result_types.as_slice() else {
            return Err(fail(format!("result shape {} is not a pair", ins.shape)));
        };
        let (vt, it) = (vt.clone(), it.clone());
        let n = self.fresh();
        if largest {
            self.line(
                depth,
                &format!("%{n}:2 = chlo.top_k({x}, k = {k}) : {xt} -> ({vt}, {it})"),
            );
            return Ok(Val::Tuple(vec![
                Val::Leaf {
                    name: format!("%{n}#0"),
                    ty: vt,
                },
                Val::Leaf {
                    name: format!("%{n}#1"),
                    ty: it,
                },
            ]));
        }
        // Smallest first: a stable ascending sort of (x, iota), then the first k of both.
        let last = a.dims.len() - 1;
        let iota_ty = tensor_type(&a.with_type(ElementType::S32));
        let iota = format!("%{n}");
        self.line(
            depth,
            &format!("{iota} = stablehlo.iota dim = {last} : {iota_ty}"),
        );
        let scalar = tensor_type(&ArrayShape::scalar(a.ty));
        let index = tensor_type(&ArrayShape::scalar(ElementType::S32));
        let (l, r, li, ri, lt) = (
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
        );
        let sorted = self.fresh();
        self.line(
            depth,
            &format!("%{sorted}:2 = \"stablehlo.sort\"({x}, {iota}) ({{"),
        );
        self.line(
            depth,
            &format!("^bb0(%{l}: {scalar}, %{r}: {scalar}, %{li}: {index}, %{ri}: {index}):"),
        );
        self.line(
            depth + 1,
            &format!(
                "%{lt} = stablehlo.compare LT, %{l}, %{r}, {} : ({scalar}, {scalar}) -> \
                 tensor<i1>",
                compare_type(a.ty, true)
            ),
        );
        self.line(depth + 1, &format!("stablehlo.return %{lt} : tensor<i1>"));
        self.line(
            depth,
            &format!(
                "}}) {{dimension = {last} : i64, is_stable = true}} : ({xt}, {iota_ty}) -> \
                 ({xt}, {iota_ty})"
            ),
        );
        let start = vec![0i64; a.dims.len()];
        let mut limit = a.dims.clone();
        limit[last] = k;
        let strides = vec![1i64; a.dims.len()];
        let attrs = format!(
            "{{start_indices = {}, limit_indices = {}, strides = {}}}",
            i64_array(&start),
            i64_array(&limit),
            i64_array(&strides)
        );
        let values = self.fresh();
        self.line(
            depth,
            &format!("%{values} = \"stablehlo.slice\"(%{sorted}#0) {attrs} : ({xt}) -> {vt}"),
        );
        let indices = self.fresh();
        self.line(
            depth,
            &format!("%{indices} = \"stablehlo.slice\"(%{sorted}#1) {attrs} : ({iota_ty}) -> {it}"),
        );
        Ok(Val::Tuple(vec![
            Val::Leaf {
                name: format!("%{values}"),
                ty: vt,
            },
            Val::Leaf {
                name: format!("%{indices}"),
                ty: it,
            },
        ]))
    }
}

#[cfg(test)]
mod tests;
