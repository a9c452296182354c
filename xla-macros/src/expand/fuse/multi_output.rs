//! Multi-output fusion: a reduction computes and stores the value it reduces when that value
//! is also read later, instead of a loop of its own computing it first.

use std::collections::{BTreeSet, HashMap};

use super::{identity, kernel_reads, Expr, ExprBuilder, Kernel, KernelKind, Src};
use crate::expand::graph::{row_major_strides, Graph, Kind, Value};

/// Multi-output fusion: a stored elementwise value `u` whose first reader is a single-operand
/// reduction over trailing dims, reading `u` exactly at its own index (row-major), is computed
/// and stored by that reduction instead of by a loop of its own (row_softmax's `exp(x - m)`
/// feeds the sum and the division: one pass computes, stores and sums it). Later readers read
/// the stored value as before.
pub(super) fn fold_into_reductions(
    g: &Graph,
    mat: &BTreeSet<Value>,
    mut kernels: Vec<Kernel>,
) -> Result<Vec<Kernel>, String> {
    let mut r = 0;
    while r < kernels.len() {
        let candidate = fold_candidate(g, &kernels, r);
        if let Some((ku, u)) = candidate {
            if let Some(k) = reduce_storing(g, mat, kernels[r].node, u)? {
                kernels[r] = k;
                kernels.remove(ku);
                continue; // `r` now names the kernel after the folded one's successor
            }
        }
        r += 1;
    }
    Ok(kernels)
}

/// The loop kernel (index, value) that reduction kernel `r` can absorb, if any.
fn fold_candidate(g: &Graph, kernels: &[Kernel], r: usize) -> Option<(usize, Value)> {
    let k = &kernels[r];
    let KernelKind::Reduce { stores, .. } = &k.kind else {
        return None;
    };
    let node = &g.nodes[k.node];
    let Kind::Reduce { dims, .. } = &node.kind else {
        return None;
    };
    if node.inputs.len() != 2 || !stores.is_empty() {
        return None;
    }
    let op_dims = &g.shape(node.inputs[0]).dims;
    let rank = op_dims.len();
    if op_dims.contains(&0) {
        return None;
    }
    // Reduced dims must be the trailing ones, so each output's elements of `u` are contiguous.
    let mut sorted = dims.clone();
    sorted.sort_unstable();
    if sorted.iter().copied().ne(rank - dims.len()..rank) {
        return None;
    }
    let rm = row_major_strides(op_dims);
    for (ku, ker) in kernels[..r].iter().enumerate() {
        let KernelKind::Loop { .. } = ker.kind else {
            continue;
        };
        let u = ker.outputs[0];
        let su = g.shape(u);
        if su.dims != *op_dims || su.layout.is_some() {
            continue;
        }
        let mut reads_u = k.exprs.iter().filter_map(|e| {
            if let Expr::Leaf {
                src: Src::Buf(v),
                coef,
                off,
                guarded,
                ..
            } = e
            {
                // Read at its own index only: no offset, no guard.
                (*v == u).then_some(if *off == 0 && !*guarded {
                    coef.clone()
                } else {
                    Vec::new()
                })
            } else {
                None
            }
        });
        let first = reads_u.next();
        if first.is_none() || first.as_ref() != Some(&rm) || !reads_u.all(|c| c == rm) {
            continue;
        }
        let read_between = kernels[ku + 1..r]
            .iter()
            .any(|x| kernel_reads(x).contains(&u));
        if !read_between {
            return Some((ku, u));
        }
    }
    None
}

/// The reduction of node `n` computing (and storing) `u` itself; `None` if it cannot.
fn reduce_storing(
    g: &Graph,
    mat: &BTreeSet<Value>,
    n: usize,
    u: Value,
) -> Result<Option<Kernel>, String> {
    let node = &g.nodes[n];
    let (mut requests, mut expansions, mut cheap, mut expanding) = (
        BTreeSet::new(),
        HashMap::new(),
        HashMap::new(),
        BTreeSet::new(),
    );
    let mut b = ExprBuilder {
        g,
        mat,
        inline: Some(u),
        exprs: Vec::new(),
        guards: 0,
        memo: HashMap::new(),
        extents: Vec::new(),
        error: None,
        kernel: usize::MAX,
        requests: &mut requests,
        expansions: &mut expansions,
        cheap: &mut cheap,
        expanding: &mut expanding,
    };
    let op_dims = g.shape(node.inputs[0]).dims.clone();
    let id = identity(op_dims.len());
    b.extents = op_dims;
    let Some(operand) = b.expr(node.inputs[0], &id, false) else {
        return Ok(None);
    };
    let Some(&store) = b.memo.get(&(u, id, false)) else {
        return Ok(None);
    };
    b.extents = Vec::new();
    let Some(init) = b.expr(node.inputs[1], &Vec::new(), false) else {
        return Ok(None);
    };
    let exprs = b.finish()?;
    if !requests.is_empty() {
        return Ok(None);
    }
    let kind = KernelKind::Reduce {
        operands: vec![operand],
        inits: vec![init],
        stores: vec![(store, u)],
    };
    Ok(Some(Kernel {
        node: n,
        outputs: vec![Value::of(n), u],
        exprs,
        kind,
    }))
}
