//! Buffer plan: where every materialised value lives. Outputs are written straight into the
//! caller's output tensors; every other kernel result gets a scratch buffer, and buffers of
//! one element type are reused once the values in them are dead (greedy, in kernel order).
//! A kernel never writes a buffer it reads: a buffer is free for kernel `k` only if its last
//! reader ran before `k`.

use std::collections::{BTreeMap, BTreeSet};

use xla_core::ElementType;

use super::fuse::{kernel_reads, Expr, Fused, Kernel, KernelKind, Src};
use super::graph::{row_major_strides, Kind, Value};

/// Where a materialised value is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    /// Output slot `i` (the caller's tensor).
    Out(usize),
    /// Scratch buffer (field) `i`, row-major from offset 0.
    Scratch(usize),
}

/// One scratch buffer: element type and length in elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Buffer {
    pub ty: ElementType,
    pub len: usize,
}

/// The buffer plan of a fused fn.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub storage: BTreeMap<Value, Storage>,
    pub buffers: Vec<Buffer>,
    /// Parameter leaves `(index, path)` that live in an output slot (a While body's state
    /// updated in place, see [`state_in_place`]): read through that slot.
    pub params_in_place: BTreeMap<(usize, Vec<usize>), usize>,
    /// Kernels not emitted: a While body's copy of a state leaf it returns unchanged onto the
    /// output slot the leaf already lives in (see [`state_in_place`]).
    pub unchanged: BTreeSet<usize>,
    /// Values some kernel reads (a value neither read nor an output of the fn is dead once
    /// written: a While's final copy of it can be skipped).
    pub read: BTreeSet<Value>,
}

impl Plan {
    /// Whether `v` is read by a kernel or returned by the fn.
    pub(crate) fn live(&self, f: &Fused, v: Value) -> bool {
        self.read.contains(&v) || f.output_slot(v).is_some()
    }
}

/// How a While body keeps a state leaf (see [`state_in_place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateLeaf {
    /// Read from one buffer, written to another (the loop swaps them).
    Swapped,
    /// Updated in place in its one buffer (a DynamicUpdateSlice of the leaf).
    Updated,
    /// Returned unchanged: the body only reads it, and the loop can hand it the input.
    Unchanged,
}

/// Assign storage to every kernel output.
pub(crate) fn plan(f: &Fused) -> Plan {
    let mut last_use: BTreeMap<Value, usize> = BTreeMap::new();
    for (i, k) in f.kernels.iter().enumerate() {
        for v in kernel_reads(k) {
            last_use.insert(v, i);
        }
    }
    let mut alias = in_place(f, &last_use);
    alias.extend(updates_in_place(f, &last_use));
    let mut storage = BTreeMap::new();
    let mut buffers: Vec<Buffer> = Vec::new();
    // busy_until[b]: index of the last kernel reading the value now held by buffer b.
    let mut busy_until: Vec<usize> = Vec::new();
    for (i, k) in f.kernels.iter().enumerate() {
        for &v in &k.outputs {
            if let Some(slot) = f.output_slot(v).or_else(|| alias.get(&v).copied()) {
                storage.insert(v, Storage::Out(slot));
                continue;
            }
            // A DynamicUpdateSlice writes its operand's buffer when the operand dies here.
            if let Some(Storage::Scratch(b)) =
                updated_operand(f, k, i, &last_use).and_then(|u| storage.get(&u).copied())
            {
                busy_until[b] = last_use.get(&v).copied().unwrap_or(i).max(i);
                storage.insert(v, Storage::Scratch(b));
                continue;
            }
            let shape = f.graph.shape(v);
            let len = usize::try_from(shape.element_count()).unwrap_or(0);
            let until = last_use.get(&v).copied().unwrap_or(i).max(i);
            // Free buffers of this type; prefer the smallest one that fits, else the largest.
            let free =
                (0..buffers.len()).filter(|&b| buffers[b].ty == shape.ty && busy_until[b] < i);
            let fits = free
                .clone()
                .filter(|&b| buffers[b].len >= len)
                .min_by_key(|&b| buffers[b].len);
            let chosen = fits.or_else(|| free.max_by_key(|&b| buffers[b].len));
            let b = match chosen {
                Some(b) => {
                    buffers[b].len = buffers[b].len.max(len);
                    busy_until[b] = until;
                    b
                }
                None => {
                    buffers.push(Buffer { ty: shape.ty, len });
                    busy_until.push(until);
                    buffers.len() - 1
                }
            };
            storage.insert(v, Storage::Scratch(b));
        }
    }
    Plan {
        storage,
        buffers,
        params_in_place: BTreeMap::new(),
        unchanged: BTreeSet::new(),
        read: last_use.into_keys().collect(),
    }
}

/// A While body's state leaves kept in place: leaf `s` (parameter 0 at `paths[s]`) lives in
/// output slot `s` when the body returns it unchanged (a row-major copy, whose kernel is then
/// not emitted) or when the body's result `s` is a DynamicUpdateSlice of that leaf by a call
/// kernel that runs after every other kernel reading the leaf and reads it only as its
/// operand; either kernel must be the only writer of the slot. The loop then keeps one buffer
/// for the leaf and a step writes only the update (a row per step costs a row, not the
/// array), or nothing. Returns how each leaf is kept.
pub(crate) fn state_in_place(f: &Fused, plan: &mut Plan, paths: &[Vec<usize>]) -> Vec<StateLeaf> {
    let mut out = vec![StateLeaf::Swapped; paths.len()];
    for (slot, &v) in f.outputs.iter().enumerate() {
        let Some(ki) = f.kernels.iter().position(|k| k.outputs.contains(&v)) else {
            continue;
        };
        if !sole_writer(plan, v, slot) {
            continue;
        }
        // Returned unchanged (JAX's scan carries its inputs and weights through the loop).
        let unchanged = passes_through(f, ki, slot, paths);
        if !unchanged && !updates_leaf(f, ki, slot, paths) {
            continue;
        }
        let u = f.graph.nodes[f.kernels[ki].node].inputs[0];
        plan.storage.insert(u, Storage::Out(slot));
        plan.params_in_place.insert((0, paths[slot].clone()), slot);
        out[slot] = if unchanged {
            plan.unchanged.insert(ki);
            StateLeaf::Unchanged
        } else {
            StateLeaf::Updated
        };
    }
    out
}

/// Whether nothing but value `v` is stored in output slot `slot`.
fn sole_writer(plan: &Plan, v: Value, slot: usize) -> bool {
    plan.storage
        .iter()
        .all(|(&w, &s)| w == v || s != Storage::Out(slot))
}

/// Whether kernel `ki` is a row-major copy of the state leaf at `paths[slot]` (parameter 0).
fn passes_through(f: &Fused, ki: usize, slot: usize, paths: &[Vec<usize>]) -> bool {
    let k = &f.kernels[ki];
    let node = &f.graph.nodes[k.node];
    let (Kind::Copy, [u], [v]) = (&node.kind, node.inputs.as_slice(), k.outputs.as_slice()) else {
        return false;
    };
    let is_leaf = matches!(&f.graph.nodes[u.node].kind,
        Kind::Param { index: 0, path } if paths.get(slot) == Some(path));
    let shape = f.graph.shape(*v);
    let identity = match (&k.kind, k.exprs.as_slice()) {
        (
            KernelKind::Loop { .. },
            [Expr::Leaf {
                coef,
                off: 0,
                guarded: false,
                ..
            }],
        ) => *coef == row_major_strides(&shape.dims),
        _ => false,
    };
    is_leaf && identity && shape.layout.is_none()
}

/// Whether kernel `ki` is a DynamicUpdateSlice call of the state leaf at `paths[slot]`
/// (parameter 0) that reads it only as its operand, after every other kernel reading it.
fn updates_leaf(f: &Fused, ki: usize, slot: usize, paths: &[Vec<usize>]) -> bool {
    let k = &f.kernels[ki];
    let node = &f.graph.nodes[k.node];
    if !matches!(node.kind, Kind::DynamicUpdateSlice) || !matches!(k.kind, KernelKind::Call { .. })
    {
        return false;
    }
    let Kind::Param { index: 0, path } = &f.graph.nodes[node.inputs[0].node].kind else {
        return false;
    };
    let param = Src::Param {
        index: 0,
        path: path.clone(),
    };
    let reads = |e: &Expr| match e {
        Expr::Leaf { src, .. } => src.parts().contains(&&param),
        Expr::Index { .. } | Expr::Scalar(_) | Expr::Op { .. } | Expr::Guard { .. } => false,
    };
    let only_operand = k
        .exprs
        .iter()
        .filter(|e| reads(e))
        .all(|e| matches!(e, Expr::Leaf { src, .. } if *src == param));
    let read_before = f.kernels[ki + 1..]
        .iter()
        .all(|later| !later.exprs.iter().any(reads) && !dot_reads(later, &param));
    paths.get(slot) == Some(path) && only_operand && read_before
}

/// Whether GEMM kernel `k` reads `src`.
fn dot_reads(k: &Kernel, src: &Src) -> bool {
    match &k.kind {
        KernelKind::Dot { lhs, rhs, .. } => [&lhs.src, &rhs.src]
            .iter()
            .any(|s| s.parts().contains(&src)),
        KernelKind::Loop { .. }
        | KernelKind::Reduce { .. }
        | KernelKind::BitcastResize { .. }
        | KernelKind::Call { .. } => false,
    }
}

/// The operand of DynamicUpdateSlice kernel `k` (number `i`) when the kernel can write it in
/// place: a stored value (not a parameter or constant), no output of the fn, read last here
/// and only as the operand (the update is another value).
fn updated_operand(
    f: &Fused,
    k: &Kernel,
    i: usize,
    last_use: &BTreeMap<Value, usize>,
) -> Option<Value> {
    let node = &f.graph.nodes[k.node];
    if !matches!(node.kind, Kind::DynamicUpdateSlice) || !matches!(k.kind, KernelKind::Call { .. })
    {
        return None;
    }
    let u = node.inputs[0];
    let stored = f.kernels[..i].iter().any(|p| p.outputs.contains(&u));
    let ok = stored
        && f.output_slot(u).is_none()
        && last_use.get(&u) == Some(&i)
        && !node.inputs[1..].contains(&u)
        && f.graph.shape(u).layout.is_none();
    ok.then_some(u)
}

/// DynamicUpdateSlice kernels writing an output slot whose operand can live in that slot:
/// the operand's kernel writes the slot, the update then lands where it lies.
fn updates_in_place(f: &Fused, last_use: &BTreeMap<Value, usize>) -> BTreeMap<Value, usize> {
    let mut alias = BTreeMap::new();
    for (i, k) in f.kernels.iter().enumerate() {
        let v = k.outputs[0];
        let Some(slot) = f.output_slot(v) else {
            continue;
        };
        if f.graph.shape(v).layout.is_some() {
            continue;
        }
        if let Some(u) = updated_operand(f, k, i, last_use) {
            alias.insert(u, slot);
        }
    }
    alias
}

/// Values stored straight into an output slot instead of scratch: when a loop kernel writing
/// output slot `s` (row-major) is the last reader of a value `u` of the same type and dims and
/// reads it only at its own element, `u` can live in `s` and the kernel runs in place
/// (row_softmax: `exp(x - m)` is stored in the output, then divided where it lies). Nothing
/// else touches slot `s` between `u`'s kernel and that loop: the slot's own value is written
/// by the loop and read only after it.
fn in_place(f: &Fused, last_use: &BTreeMap<Value, usize>) -> BTreeMap<Value, usize> {
    let mut alias = BTreeMap::new();
    for (i, k) in f.kernels.iter().enumerate() {
        let KernelKind::Loop { .. } = k.kind else {
            continue;
        };
        let v = k.outputs[0];
        let Some(slot) = f.output_slot(v) else {
            continue;
        };
        let vs = f.graph.shape(v);
        if vs.layout.is_some() {
            continue;
        }
        let own = row_major_strides(&vs.dims);
        for u in kernel_reads(k) {
            let us = f.graph.shape(u);
            let candidate = f.output_slot(u).is_none()
                && last_use.get(&u) == Some(&i)
                && us.ty == vs.ty
                && us.dims == vs.dims
                && us.layout.is_none();
            let at_own_element = k.exprs.iter().all(|e| match e {
                Expr::Leaf {
                    src: Src::Buf(x),
                    coef,
                    off,
                    guarded,
                    ..
                } if *x == u => *coef == own && *off == 0 && !*guarded,
                // A box's elements are not the kernel's own.
                Expr::Leaf {
                    src: s @ Src::Dyn(_),
                    ..
                } => !s.parts().contains(&&Src::Buf(u)),
                Expr::Leaf { .. }
                | Expr::Index { .. }
                | Expr::Scalar(_)
                | Expr::Op { .. }
                | Expr::Guard { .. } => true,
            });
            if candidate && at_own_element {
                alias.insert(u, slot);
                break;
            }
        }
    }
    alias
}
