//! IR shapes as graph values: the static-shape check, multi-output nodes and the trees of
//! their outputs, tuple constants as trees of array constants, dimension numbers as indices.

use xla_core::{ArrayShape, Literal, Shape};

use super::{Graph, Kind, Tree, Value};

impl Graph {
    /// A node with one output per array leaf of `shape`, and the tree of its outputs.
    pub(super) fn multi(
        &mut self,
        kind: Kind,
        inputs: Vec<Value>,
        shape: &Shape,
        opname: &str,
    ) -> Result<Tree, String> {
        let mut shapes = Vec::new();
        flat_arrays(shape, &mut shapes, opname)?;
        let v = self.push(kind, inputs, shapes);
        let mut next = 0;
        Ok(tree_of(shape, v.node, &mut next))
    }

    /// A tuple constant becomes a tree of array constants.
    pub(super) fn constant_tree(&mut self, lit: &Literal) -> Result<Tree, String> {
        match lit {
            Literal::Array { shape, .. } => {
                check_static(shape, "constant")?;
                Ok(Tree::Leaf(self.push(
                    Kind::Constant(lit.clone()),
                    Vec::new(),
                    vec![shape.clone()],
                )))
            }
            Literal::Tuple(elems) => Ok(Tree::Tuple(
                elems
                    .iter()
                    .map(|e| self.constant_tree(e))
                    .collect::<Result<_, _>>()?,
            )),
            Literal::Token => Ok(Tree::Token),
        }
    }
}

pub(super) fn check_static(a: &ArrayShape, what: &str) -> Result<(), String> {
    if a.is_dynamic() {
        return Err(format!(
            "{what}: dynamic dimensions ({a}) have no code generation yet"
        ));
    }
    if a.dims.iter().any(|&d| d < 0) {
        return Err(format!("{what}: negative dimension in {a}"));
    }
    if let Some(l) = &a.layout {
        if l.padded_dimensions.is_some() {
            return Err(format!(
                "{what}: padded layouts ({a}) have no code generation"
            ));
        }
    }
    Ok(())
}

/// The array leaves of `s`, static dims only.
pub(super) fn flat_arrays(
    s: &Shape,
    out: &mut Vec<ArrayShape>,
    opname: &str,
) -> Result<(), String> {
    match s {
        Shape::Array(a) => {
            check_static(a, opname)?;
            out.push(a.clone());
            Ok(())
        }
        Shape::Tuple(ts) => ts.iter().try_for_each(|t| flat_arrays(t, out, opname)),
        // A token has no data: no output of its own (see `tree_of`).
        Shape::Token => Ok(()),
    }
}

/// The outputs of `node` as a tree mirroring `s` (leaves numbered from `next`).
pub(super) fn tree_of(s: &Shape, node: usize, next: &mut usize) -> Tree {
    match s {
        Shape::Tuple(ts) => Tree::Tuple(ts.iter().map(|t| tree_of(t, node, next)).collect()),
        Shape::Token => Tree::Token,
        Shape::Array(_) => {
            let v = Value { node, out: *next };
            *next += 1;
            Tree::Leaf(v)
        }
    }
}

pub(super) fn to_usize(v: &[i64], what: &str) -> Result<Vec<usize>, String> {
    v.iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("{what}: negative dimension number {d}")))
        .collect()
}
