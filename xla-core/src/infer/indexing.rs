//! Gather and Scatter (XLA's `InferGatherShape` and `InferScatterShape`, with operand/indices
//! batching dimensions as XLA has them).
//!
//! `Gather(operand, start_indices)`: the start indices, read as vectors along
//! `index_vector_dim` (= rank: an implicit trailing 1), pick slices of `slice_sizes`; the output
//! is the batch dimensions (start_indices' dims without `index_vector_dim`) interleaved with the
//! slice dimensions that are neither collapsed nor batching, at `offset_dims`.
//!
//! `Scatter(operands..., scatter_indices, updates..., update_computation)`: the result has the
//! operands' shapes; each update array has the scatter dimensions (scatter_indices' dims without
//! `index_vector_dim`) interleaved with window dimensions at `update_window_dims`, each window
//! dimension no larger than its operand dimension.
//!
//! Every rule of XLA is here, in XLA's order, with one stricter rule taken from the
//! specification: a collapsed (or batching) slice dimension has size exactly 1 (XLA also takes
//! 0 and then returns zeros whatever the operand).

use super::{expect_array, list};
use crate::element::ElementType;
use crate::error::{count, Blame, Error, Result};
use crate::ir::{Computation, GatherDimensionNumbers, ScatterDimensionNumbers};
use crate::shape::{ArrayShape, Shape};

#[cfg(test)]
mod tests;

/// The op being checked and the shapes every message names.
struct Cx {
    op: &'static str,
    shapes: String,
}

impl Cx {
    /// An error naming the op, the rule and the shapes, blamed on `attr`.
    fn at(&self, attr: &'static str, rule: String) -> Error {
        Error::new(self.op, format!("{rule} ({})", self.shapes)).blame(Blame::Attribute(attr))
    }

    /// An error naming the op, the rule and the shapes, blamed on `blame`.
    fn on(&self, blame: Blame, rule: String) -> Error {
        Error::new(self.op, format!("{rule} ({})", self.shapes)).blame(blame)
    }

    /// `dims` (the attribute `attr`) are dimension numbers of a rank-`rank` array (`of` names
    /// it): in `[0, rank)`, no repeats, and ascending when `sorted`.
    fn dim_list(
        &self,
        attr: &'static str,
        dims: &[i64],
        rank: usize,
        of: &str,
        sorted: bool,
    ) -> Result<()> {
        let shown = list(dims);
        if sorted && dims.windows(2).any(|w| w[1] < w[0]) {
            return Err(self.at(attr, format!("{attr} {shown} must be ascending")));
        }
        for (i, &d) in dims.iter().enumerate() {
            if dims[..i].contains(&d) {
                return Err(self.at(attr, format!("{attr} {shown} repeats dimension {d}")));
            }
        }
        if let Some((i, &d)) = dims
            .iter()
            .enumerate()
            .find(|(_, &d)| d < 0 || d >= rank as i64)
        {
            return Err(self.at(
                attr,
                format!("{attr}[{i}] = {d} is not a dimension of {of} (0..{rank})"),
            ));
        }
        Ok(())
    }

    /// No dimension is in both `a` and `b`; blamed on `b`.
    fn disjoint(&self, a: (&str, &[i64]), b: (&'static str, &[i64])) -> Result<()> {
        match b.1.iter().find(|d| a.1.contains(d)) {
            None => Ok(()),
            Some(d) => Err(self.at(
                b.0,
                format!(
                    "{} {} and {} {} both name operand dimension {d}",
                    a.0,
                    list(a.1),
                    b.0,
                    list(b.1)
                ),
            )),
        }
    }

    /// The indices operand: an array of an integer type.
    fn indices<'a>(&self, what: &str, shape: &'a Shape, i: usize) -> Result<&'a ArrayShape> {
        let a = expect_array(self.op, what, shape, Blame::Operand(i))?;
        if !a.ty.is_integral() {
            return Err(self.on(
                Blame::Operand(i),
                format!("{what} must have an integer element type, got {a}"),
            ));
        }
        Ok(a)
    }

    /// The indices' dimensions with the implicit trailing 1 when `index_vector_dim` equals
    /// their rank; `Err` unless `0 <= index_vector_dim <= rank`.
    fn expanded(&self, idx: &ArrayShape, index_vector_dim: i64) -> Result<Vec<i64>> {
        let rank = idx.rank() as i64;
        if index_vector_dim < 0 || index_vector_dim > rank {
            return Err(self.at(
                "index_vector_dim",
                format!(
                    "index_vector_dim = {index_vector_dim} must be in 0..={rank}: a dimension of \
                     the rank-{rank} indices, or {rank} for an implicit trailing 1"
                ),
            ));
        }
        let mut dims = idx.dims.clone();
        if index_vector_dim == rank {
            dims.push(1);
        }
        Ok(dims)
    }

    /// The batching dimensions of operand and indices: as many of each, the indices' ones not
    /// `index_vector_dim`, and equal sizes pair by pair.
    #[allow(clippy::too_many_arguments)]
    fn batching(
        &self,
        names: (&'static str, &'static str),
        operand_dims: &[i64],
        index_dims: &[i64],
        operand: &ArrayShape,
        idx: &ArrayShape,
        index_vector_dim: i64,
    ) -> Result<()> {
        let (on, inn) = names;
        self.dim_list(inn, index_dims, idx.rank(), "the indices", false)?;
        if index_dims.contains(&index_vector_dim) {
            return Err(self.at(
                inn,
                format!(
                    "{inn} {} contains index_vector_dim = {index_vector_dim}: the index vectors \
                     cannot also be a batch",
                    list(index_dims)
                ),
            ));
        }
        if operand_dims.len() != index_dims.len() {
            return Err(self.at(
                inn,
                format!(
                    "{on} {} and {inn} {} must pair up one to one: {} vs {}",
                    list(operand_dims),
                    list(index_dims),
                    count(operand_dims.len(), "dimension", "dimensions"),
                    index_dims.len()
                ),
            ));
        }
        for (&o, &i) in operand_dims.iter().zip(index_dims) {
            let (os, is) = (operand.dims[o as usize], idx.dims[i as usize]);
            if os != is {
                return Err(self.at(
                    inn,
                    format!(
                        "operand batching dimension {o} (size {os}) and indices batching \
                         dimension {i} (size {is}) must have the same size"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The dimensions of `rank` not in any of `out`, ascending.
fn remaining(rank: usize, out: &[&[i64]]) -> Vec<usize> {
    (0..rank)
        .filter(|&d| !out.iter().any(|o| o.contains(&(d as i64))))
        .collect()
}

/// The result of `Gather(operand, start_indices, dimension_numbers, slice_sizes)`:
/// `rank = offset_dims.len() + rank(expanded start_indices) - 1`; output dimension `d` is, at
/// `offset_dims[k]`, the `k`-th slice size that is neither collapsed nor batching, elsewhere
/// the next start_indices dimension other than `index_vector_dim`.
pub fn gather(
    operand: &Shape,
    start_indices: &Shape,
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Result<Shape> {
    let op = "Gather";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    let idx = expect_array(op, "start_indices", start_indices, Blame::Operand(1))?;
    let cx = Cx {
        op,
        shapes: format!("operand {a}, start_indices {idx}"),
    };
    cx.indices("start_indices", start_indices, 1)?;
    let expanded = cx.expanded(idx, dn.index_vector_dim)?;
    let out_rank = dn.offset_dims.len() + expanded.len() - 1;
    gather_dimension_numbers(&cx, a, idx, &expanded, out_rank, dn)?;
    gather_slice_sizes(&cx, a, dn, slice_sizes)?;
    let window = remaining(
        a.rank(),
        &[&dn.collapsed_slice_dims, &dn.operand_batching_dims],
    );
    let ivd = dn.index_vector_dim as usize;
    let mut batch = (0..expanded.len()).filter(|&d| d != ivd);
    let mut offset = window.iter();
    let mut out = ArrayShape::new(a.ty, &[]);
    for d in 0..out_rank {
        let (size, dynamic) = if dn.offset_dims.contains(&(d as i64)) {
            let w = *offset
                .next()
                .ok_or_else(|| cx.at("offset_dims", "internal".into()))?;
            (slice_sizes[w], false)
        } else {
            let b = batch
                .next()
                .ok_or_else(|| cx.at("offset_dims", "internal".into()))?;
            (expanded[b], idx.dynamic.get(b).copied().unwrap_or(false))
        };
        out.dims.push(size);
        out.dynamic.push(dynamic);
    }
    out.validate()
        .map_err(|e| Error::new(op, e.message).blame(Blame::Op))?;
    Ok(Shape::Array(out))
}

/// XLA's `ValidateGatherDimensionNumbers`.
fn gather_dimension_numbers(
    cx: &Cx,
    a: &ArrayShape,
    idx: &ArrayShape,
    expanded: &[i64],
    out_rank: usize,
    dn: &GatherDimensionNumbers,
) -> Result<()> {
    cx.dim_list("offset_dims", &dn.offset_dims, out_rank, "the output", true)?;
    let ivd = dn.index_vector_dim;
    let vector = expanded[ivd as usize];
    let map = &dn.start_index_map;
    if map.len() as i64 != vector {
        return Err(cx.at(
            "start_index_map",
            format!(
                "start_index_map {} has {} but the index vectors (dimension index_vector_dim = \
                 {ivd} of start_indices) have {vector}: one operand dimension per component",
                list(map),
                count(map.len(), "entry", "entries")
            ),
        ));
    }
    cx.dim_list("start_index_map", map, a.rank(), "the operand", false)?;
    let (collapsed, batching) = (&dn.collapsed_slice_dims, &dn.operand_batching_dims);
    cx.dim_list(
        "collapsed_slice_dims",
        collapsed,
        a.rank(),
        "the operand",
        true,
    )?;
    cx.dim_list(
        "operand_batching_dims",
        batching,
        a.rank(),
        "the operand",
        true,
    )?;
    cx.disjoint(
        ("collapsed_slice_dims", collapsed),
        ("operand_batching_dims", batching),
    )?;
    cx.disjoint(
        ("start_index_map", map),
        ("operand_batching_dims", batching),
    )?;
    cx.batching(
        ("operand_batching_dims", "start_indices_batching_dims"),
        batching,
        &dn.start_indices_batching_dims,
        a,
        idx,
        ivd,
    )
}

/// One slice size per operand dimension, each in `0..=size`, every operand dimension an
/// offset, collapsed or batching one, collapsed and batching slices of size 1.
fn gather_slice_sizes(
    cx: &Cx,
    a: &ArrayShape,
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Result<()> {
    let attr = "slice_sizes";
    if slice_sizes.len() != a.rank() {
        return Err(cx.at(
            attr,
            format!(
                "slice_sizes {} has {} but the operand has rank {}: one size per operand dimension",
                list(slice_sizes),
                count(slice_sizes.len(), "entry", "entries"),
                a.rank()
            ),
        ));
    }
    let parts =
        dn.offset_dims.len() + dn.collapsed_slice_dims.len() + dn.operand_batching_dims.len();
    if parts != a.rank() {
        return Err(cx.at(
            "offset_dims",
            format!(
                "every operand dimension must be an offset, collapsed or batching dimension: \
                 offset_dims {} + collapsed_slice_dims {} + operand_batching_dims {} count {parts}, \
                 the operand has rank {}",
                list(&dn.offset_dims),
                list(&dn.collapsed_slice_dims),
                list(&dn.operand_batching_dims),
                a.rank()
            ),
        )
        .help(if parts < a.rank() {
            "list each operand dimension the slice drops (slice size 1) in collapsed_slice_dims"
        } else {
            "each operand dimension is exactly one of the three"
        }));
    }
    for (d, (&s, &size)) in slice_sizes.iter().zip(&a.dims).enumerate() {
        if s < 0 || s > size {
            return Err(cx.at(
                attr,
                format!("slice_sizes[{d}] = {s} must be in 0..={size}, the size of operand dimension {d}"),
            ));
        }
    }
    let kinds = [
        ("collapsed_slice_dims", &dn.collapsed_slice_dims),
        ("operand_batching_dims", &dn.operand_batching_dims),
    ];
    for (name, dims) in kinds {
        if let Some(&d) = dims.iter().find(|&&d| slice_sizes[d as usize] != 1) {
            return Err(cx.at(
                attr,
                format!(
                    "slice_sizes[{d}] = {} but dimension {d} is in {name} {}: its slice size must be 1",
                    slice_sizes[d as usize],
                    list(dims)
                ),
            ));
        }
    }
    Ok(())
}

/// The result of `Scatter(operands..., scatter_indices, updates..., update_computation,
/// dimension_numbers)`: the operands' shape (N = 1) or the tuple of the operands' shapes.
/// Operand order for blame: operands `0..N`, the indices `N`, updates `N+1..2N+1`.
pub fn scatter(
    operands: &[&Shape],
    scatter_indices: &Shape,
    updates: &[&Shape],
    dn: &ScatterDimensionNumbers,
    update_computation: &Computation,
) -> Result<Shape> {
    let op = "Scatter";
    let n = operands.len();
    if n == 0 {
        return Err(Error::new(op, "needs at least one operand").blame(Blame::Op));
    }
    if updates.len() != n {
        return Err(Error::new(
            op,
            format!(
                "{} need {}, got {}",
                count(n, "operand", "operands"),
                count(n, "update array", "update arrays"),
                updates.len()
            ),
        ));
    }
    let ops = arrays(op, "each operand", operands, 0)?;
    let idx = expect_array(op, "scatter_indices", scatter_indices, Blame::Operand(n))?;
    let ups = arrays(op, "each update array", updates, n + 1)?;
    let cx = Cx {
        op,
        shapes: format!(
            "{} {}, scatter_indices {idx}, updates {}",
            if n == 1 { "operand" } else { "operands" },
            joined(&ops),
            joined(&ups)
        ),
    };
    cx.indices("scatter_indices", scatter_indices, n)?;
    same_dims(&cx, &ops, &ups, n)?;
    update_computation_shape(&cx, &ops, update_computation)?;
    let (a, u) = (ops[0], ups[0]);
    let expanded = cx.expanded(idx, dn.index_vector_dim)?;
    let want_rank = expanded.len() - 1 + dn.update_window_dims.len();
    if u.rank() != want_rank {
        return Err(cx.on(
            Blame::Operand(n + 1),
            format!(
                "the updates must have rank {want_rank}: {} (the scatter_indices' dimensions \
                 but index_vector_dim) plus {} (update_window_dims {}); got rank {}",
                count(
                    expanded.len() - 1,
                    "scatter dimension",
                    "scatter dimensions"
                ),
                count(
                    dn.update_window_dims.len(),
                    "window dimension",
                    "window dimensions"
                ),
                list(&dn.update_window_dims),
                u.rank()
            ),
        ));
    }
    scatter_dimension_numbers(&cx, a, idx, u, &expanded, dn)?;
    scatter_bounds(&cx, a, u, &expanded, dn, n)?;
    let out = |x: &ArrayShape| Shape::Array(x.with_type(x.ty));
    Ok(if n == 1 {
        out(a)
    } else {
        Shape::Tuple(ops.iter().map(|x| out(x)).collect())
    })
}

/// Each of `shapes` as an array, blamed as operand `first + i`.
fn arrays<'a>(
    op: &str,
    what: &str,
    shapes: &[&'a Shape],
    first: usize,
) -> Result<Vec<&'a ArrayShape>> {
    shapes
        .iter()
        .enumerate()
        .map(|(i, s)| expect_array(op, what, s, Blame::Operand(first + i)))
        .collect()
}

fn joined(a: &[&ArrayShape]) -> String {
    a.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Operands of one set of dimensions, updates of one set of dimensions, update `i` of operand
/// `i`'s element type.
fn same_dims(cx: &Cx, ops: &[&ArrayShape], ups: &[&ArrayShape], n: usize) -> Result<()> {
    for (i, x) in ops.iter().enumerate().skip(1) {
        if !x.same_dims(ops[0]) {
            return Err(cx.on(
                Blame::Operand(i),
                format!("all operands must have the same dimensions: operand 0 is {}, operand {i} is {x}", ops[0]),
            ));
        }
    }
    for (i, x) in ups.iter().enumerate() {
        if !x.same_dims(ups[0]) {
            return Err(cx.on(
                Blame::Operand(n + 1 + i),
                format!("all update arrays must have the same dimensions: updates 0 is {}, updates {i} is {x}", ups[0]),
            ));
        }
        if x.ty != ops[i].ty {
            return Err(cx.on(
                Blame::Operand(n + 1 + i),
                format!(
                    "updates {i} is {x} but operand {i} is {}: the element types must match",
                    ops[i]
                ),
            ));
        }
    }
    Ok(())
}

/// `update_computation: (T_0[].., T_0[]..) -> T_0[] | (T_0[], ..)`: current values, then
/// update values, to the new values (XLA's `VerifyReducerShape`).
fn update_computation_shape(cx: &Cx, ops: &[&ArrayShape], c: &Computation) -> Result<()> {
    let n = ops.len();
    let types: Vec<ElementType> = ops.iter().map(|a| a.ty).collect();
    let ts: Vec<String> = types.iter().map(|t| format!("{t}[]")).collect();
    let result = if n == 1 {
        ts[0].clone()
    } else {
        format!("({})", ts.join(", "))
    };
    let sig = format!("({}, {}) -> {result}", ts.join(", "), ts.join(", "));
    let fail = |what: String| {
        cx.on(
            Blame::Computation,
            format!("the update_computation `{}` {what}; it must be {sig} (current values, then updates)", c.name),
        )
    };
    if c.params.len() != 2 * n {
        return Err(fail(format!(
            "takes {}",
            count(c.params.len(), "parameter", "parameters")
        )));
    }
    for (p, param) in c.params.iter().enumerate() {
        if !matches!(param, Shape::Array(x) if x.is_scalar() && x.ty == types[p % n]) {
            return Err(fail(format!("has parameter {p} of type {param}")));
        }
    }
    let r = c.result_shape();
    let scalars: Vec<&Shape> = match (n, r) {
        (1, Shape::Array(_)) => vec![r],
        (_, Shape::Tuple(elems)) if n > 1 => elems.iter().collect(),
        _ => return Err(fail(format!("returns {r}"))),
    };
    let ok = scalars.len() == n
        && scalars
            .iter()
            .zip(&types)
            .all(|(s, &t)| matches!(s, Shape::Array(x) if x.is_scalar() && x.ty == t));
    if !ok {
        return Err(fail(format!("returns {r}")));
    }
    Ok(())
}

/// XLA's `ValidateScatterDimensionNumbers`.
fn scatter_dimension_numbers(
    cx: &Cx,
    a: &ArrayShape,
    idx: &ArrayShape,
    u: &ArrayShape,
    expanded: &[i64],
    dn: &ScatterDimensionNumbers,
) -> Result<()> {
    let (window, inserted, batching) = (
        &dn.update_window_dims,
        &dn.inserted_window_dims,
        &dn.input_batching_dims,
    );
    cx.dim_list("update_window_dims", window, u.rank(), "the updates", true)?;
    cx.dim_list(
        "inserted_window_dims",
        inserted,
        a.rank(),
        "the operand",
        true,
    )?;
    cx.dim_list(
        "input_batching_dims",
        batching,
        a.rank(),
        "the operand",
        true,
    )?;
    cx.disjoint(
        ("inserted_window_dims", inserted),
        ("input_batching_dims", batching),
    )?;
    let map = &dn.scatter_dims_to_operand_dims;
    cx.disjoint(
        ("scatter_dims_to_operand_dims", map),
        ("input_batching_dims", batching),
    )?;
    cx.batching(
        ("input_batching_dims", "scatter_indices_batching_dims"),
        batching,
        &dn.scatter_indices_batching_dims,
        a,
        idx,
        dn.index_vector_dim,
    )?;
    let parts = window.len() + inserted.len() + batching.len();
    if parts != a.rank() {
        return Err(cx
            .at(
                "update_window_dims",
                format!(
                    "every operand dimension must be a window, inserted or batching dimension: \
                 update_window_dims {} + inserted_window_dims {} + input_batching_dims {} count \
                 {parts}, the operand has rank {}",
                    list(window),
                    list(inserted),
                    list(batching),
                    a.rank()
                ),
            )
            .help(if parts < a.rank() {
                "list each operand dimension the updates do not have in inserted_window_dims"
            } else {
                "each operand dimension is exactly one of the three"
            }));
    }
    let ivd = dn.index_vector_dim;
    let vector = expanded[ivd as usize];
    if map.len() as i64 != vector {
        return Err(cx.at(
            "scatter_dims_to_operand_dims",
            format!(
                "scatter_dims_to_operand_dims {} has {} but the index vectors (dimension \
                 index_vector_dim = {ivd} of scatter_indices) have {vector}: one operand \
                 dimension per component",
                list(map),
                count(map.len(), "entry", "entries")
            ),
        ));
    }
    cx.dim_list(
        "scatter_dims_to_operand_dims",
        map,
        a.rank(),
        "the operand",
        false,
    )
}

/// Window dimensions of the updates no larger than their operand dimensions; scatter
/// dimensions equal to the indices' (without `index_vector_dim`); batching dimensions of the
/// updates equal to the operand's.
fn scatter_bounds(
    cx: &Cx,
    a: &ArrayShape,
    u: &ArrayShape,
    expanded: &[i64],
    dn: &ScatterDimensionNumbers,
    n: usize,
) -> Result<()> {
    let window = remaining(
        a.rank(),
        &[&dn.inserted_window_dims, &dn.input_batching_dims],
    );
    for (&ud, &od) in dn.update_window_dims.iter().zip(&window) {
        let (us, os) = (u.dims[ud as usize], a.dims[od]);
        if us > os {
            return Err(cx.on(
                Blame::Operand(n + 1),
                format!(
                    "window dimension {ud} of the updates has size {us}, more than the size {os} \
                     of operand dimension {od} it updates"
                ),
            ));
        }
    }
    let ivd = dn.index_vector_dim as usize;
    let scatter_dims = remaining(u.rank(), &[&dn.update_window_dims]);
    let index_dims = (0..expanded.len()).filter(|&d| d != ivd);
    for (ud, id) in scatter_dims.into_iter().zip(index_dims) {
        if u.dims[ud] != expanded[id] {
            return Err(cx.on(
                Blame::Operand(n + 1),
                format!(
                    "scatter dimension {ud} of the updates has size {} but dimension {id} of \
                     scatter_indices has size {}: they must be equal",
                    u.dims[ud], expanded[id]
                ),
            ));
        }
    }
    Ok(())
}
