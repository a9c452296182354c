//! Broadcasting rules (broadcasting.es.md): how two arrays of an elementwise op reach common
//! dimensions. Scalars broadcast freely; different ranks need `broadcast_dimensions` (InDim
//! broadcasting, strictly increasing, sizes equal or 1); equal ranks broadcast degenerate (size-1)
//! dimensions. InDim broadcasting comes first, then the degenerate one.
//!
//! The result is a [`BroadcastPlan`]: the common dimensions and, per operand, the
//! `BroadcastInDim` mapping the builder must insert (so the IR never broadcasts implicitly).

use crate::error::{Blame, Error, Result};
use crate::shape::ArrayShape;

/// How the operands of an elementwise op reach the result's dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BroadcastPlan {
    /// The common (result) dimension sizes.
    pub dims: Vec<i64>,
    /// Which result dimensions are dynamic.
    pub dynamic: Vec<bool>,
    /// Per operand: `None` when its dims already equal `dims`, else the `broadcast_dimensions` of
    /// the `BroadcastInDim` that takes it to `dims` (operand dim `i` -> result dim `map[i]`).
    pub operands: Vec<Option<Vec<i64>>>,
}

fn shapes(lhs: &ArrayShape, rhs: &ArrayShape) -> String {
    format!("({lhs} vs {rhs})")
}

/// A `broadcast_dimensions` that would make `small` match `large`: the trailing dimensions if
/// their sizes are equal (numpy's choice), else the first strictly increasing exact match.
pub fn suggest_broadcast_dimensions(small: &[i64], large: &[i64]) -> Option<Vec<i64>> {
    if small.len() > large.len() {
        return None;
    }
    let offset = large.len() - small.len();
    if small.iter().zip(&large[offset..]).all(|(a, b)| a == b) {
        return Some((offset as i64..large.len() as i64).collect());
    }
    // Greedy leftmost subsequence match: finds one whenever any exists.
    let mut out = Vec::with_capacity(small.len());
    let mut j = 0;
    for &s in small {
        while j < large.len() && large[j] != s {
            j += 1;
        }
        if j == large.len() {
            return None;
        }
        out.push(j as i64);
        j += 1;
    }
    Some(out)
}

fn fmt_dims(d: &[i64]) -> String {
    format!(
        "[{}]",
        d.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    )
}

/// Degenerate-dimension broadcasting of two equal-rank dimension lists: each pair equal or one
/// of them 1; the result takes the larger. `Err` names the first incompatible dimension.
fn degenerate(
    op: &str,
    lhs: &ArrayShape,
    rhs: &ArrayShape,
    l: (&[i64], &[bool]),
    r: (&[i64], &[bool]),
) -> Result<(Vec<i64>, Vec<bool>)> {
    let mut dims = Vec::with_capacity(l.0.len());
    let mut dynamic = Vec::with_capacity(l.0.len());
    for i in 0..l.0.len() {
        let (a, ad, b, bd) = (l.0[i], l.1[i], r.0[i], r.1[i]);
        let (d, dy) = if a == b {
            (a, ad || bd)
        } else if a == 1 && !ad {
            (b, bd)
        } else if b == 1 && !bd {
            (a, ad)
        } else {
            return Err(Error::new(
                op,
                format!(
                    "dimension {i} has sizes {a} and {b}, which are neither equal nor 1 {}",
                    shapes(lhs, rhs)
                ),
            )
            .blame(Blame::Operand(1)));
        };
        dims.push(d);
        dynamic.push(dy);
    }
    Ok((dims, dynamic))
}

/// Broadcast the two operands of the elementwise op `op` (the user-facing name, for errors),
/// following broadcasting.es.md; `broadcast_dimensions` maps the lower-rank operand's dimensions
/// into the higher-rank one's.
pub fn broadcast_binary(
    op: &str,
    lhs: &ArrayShape,
    rhs: &ArrayShape,
    broadcast_dimensions: Option<&[i64]>,
) -> Result<BroadcastPlan> {
    let attr = Blame::Attribute("broadcast_dimensions");
    let (dims, dynamic) = if lhs.rank() == rhs.rank() {
        if let Some(bd) = broadcast_dimensions {
            if !bd.is_empty() && !bd.iter().copied().eq(0..lhs.rank() as i64) {
                return Err(Error::new(
                    op,
                    format!(
                        "operands of equal rank {} take no broadcast_dimensions but got {} {}",
                        lhs.rank(),
                        fmt_dims(bd),
                        shapes(lhs, rhs)
                    ),
                )
                .blame(attr)
                .help("remove broadcast_dimensions: size-1 dimensions broadcast by themselves"));
            }
        }
        degenerate(
            op,
            lhs,
            rhs,
            (&lhs.dims, &lhs.dynamic),
            (&rhs.dims, &rhs.dynamic),
        )?
    } else {
        let small_is_lhs = lhs.rank() < rhs.rank();
        let (small, large) = if small_is_lhs { (lhs, rhs) } else { (rhs, lhs) };
        let small_idx = if small_is_lhs { 0 } else { 1 };
        let suggestion = || {
            suggest_broadcast_dimensions(&small.dims, &large.dims)
                .map(|s| format!("broadcast_dimensions = {}", fmt_dims(&s)))
        };
        let bd: Vec<i64> = match broadcast_dimensions {
            None if small.is_scalar() => Vec::new(),
            None => {
                let mut e = Error::new(
                    op,
                    format!(
                        "operands of rank {} and {} need broadcast_dimensions {}",
                        lhs.rank(),
                        rhs.rank(),
                        shapes(lhs, rhs)
                    ),
                )
                .blame(Blame::Operand(small_idx));
                if let Some(h) = suggestion() {
                    e = e.help(h);
                }
                return Err(e);
            }
            Some(bd) => bd.to_vec(),
        };
        if bd.len() != small.rank() {
            let mut e = Error::new(
                op,
                format!(
                    "broadcast_dimensions {} has {} but the lower-rank operand {small} has rank {} {}",
                    fmt_dims(&bd),
                    crate::error::count(bd.len(), "entry", "entries"),
                    small.rank(),
                    shapes(lhs, rhs)
                ),
            )
            .blame(attr.clone());
            if let Some(h) = suggestion() {
                e = e.help(h);
            }
            return Err(e);
        }
        let mut inter = vec![1i64; large.rank()];
        let mut inter_dyn = vec![false; large.rank()];
        for (i, &d) in bd.iter().enumerate() {
            if d < 0 || d >= large.rank() as i64 {
                return Err(Error::new(
                    op,
                    format!(
                        "broadcast_dimensions[{i}] = {d} is out of range for the rank-{} operand {large} {}",
                        large.rank(),
                        shapes(lhs, rhs)
                    ),
                )
                .blame(attr));
            }
            if i > 0 && bd[i - 1] >= d {
                return Err(Error::new(
                    op,
                    format!(
                        "broadcast_dimensions {} must be strictly increasing {}",
                        fmt_dims(&bd),
                        shapes(lhs, rhs)
                    ),
                )
                .blame(attr));
            }
        }
        // Sizes are checked once the mapping itself is known to be well formed.
        for (i, &d) in bd.iter().enumerate() {
            let (s, l) = (small.dims[i], large.dims[d as usize]);
            if s != l && s != 1 && l != 1 {
                let mut e = Error::new(
                    op,
                    format!(
                        "broadcast_dimensions maps dimension {i} (size {s}) to dimension {d} (size {l}); sizes must be equal or 1 {}",
                        shapes(lhs, rhs)
                    ),
                )
                .blame(attr);
                if let Some(h) = suggestion() {
                    e = e.help(h);
                }
                return Err(e);
            }
            inter[d as usize] = s;
            inter_dyn[d as usize] = small.dynamic[i];
        }
        let (l, r) = if small_is_lhs {
            (
                (&inter[..], &inter_dyn[..]),
                (&large.dims[..], &large.dynamic[..]),
            )
        } else {
            (
                (&large.dims[..], &large.dynamic[..]),
                (&inter[..], &inter_dyn[..]),
            )
        };
        let (dims, dynamic) = degenerate(op, lhs, rhs, l, r)?;
        let plan_large = (large.dims != dims).then(|| (0..dims.len() as i64).collect::<Vec<_>>());
        let operands = if small_is_lhs {
            vec![Some(bd), plan_large]
        } else {
            vec![plan_large, Some(bd)]
        };
        return Ok(BroadcastPlan {
            dims,
            dynamic,
            operands,
        });
    };
    let identity = || (0..dims.len() as i64).collect::<Vec<_>>();
    let operands = [lhs, rhs]
        .iter()
        .map(|s| (s.dims != dims).then(identity))
        .collect();
    Ok(BroadcastPlan {
        dims,
        dynamic,
        operands,
    })
}

/// Check `BroadcastInDim(operand, out_dim_size, broadcast_dimensions)`: one entry per operand
/// dimension, in range, strictly increasing, operand size equal to the target size or 1.
pub fn check_broadcast_in_dim(
    op: &str,
    operand: &ArrayShape,
    out_dims: &[i64],
    broadcast_dimensions: &[i64],
) -> Result<()> {
    let attr = Blame::Attribute("broadcast_dimensions");
    let bd = broadcast_dimensions;
    if let Some(&d) = out_dims.iter().find(|&&d| d < 0) {
        return Err(Error::new(
            op,
            format!(
                "out_dim_size {} has negative size {d} (operand {operand})",
                fmt_dims(out_dims)
            ),
        )
        .blame(Blame::Attribute("out_dim_size")));
    }
    if bd.len() != operand.rank() {
        return Err(Error::new(
            op,
            format!(
                "broadcast_dimensions {} has {} for the rank-{} operand {operand}",
                fmt_dims(bd),
                crate::error::count(bd.len(), "entry", "entries"),
                operand.rank()
            ),
        )
        .blame(attr));
    }
    for (i, &d) in bd.iter().enumerate() {
        if d < 0 || d >= out_dims.len() as i64 {
            return Err(Error::new(
                op,
                format!(
                    "broadcast_dimensions[{i}] = {d} is out of range for the {} output dimensions \
                     {} (operand {operand})",
                    out_dims.len(),
                    fmt_dims(out_dims)
                ),
            )
            .blame(attr));
        }
        if i > 0 && bd[i - 1] >= d {
            return Err(Error::new(
                op,
                format!(
                    "broadcast_dimensions {} must be strictly increasing (operand {operand}, \
                     out_dim_size {})",
                    fmt_dims(bd),
                    fmt_dims(out_dims)
                ),
            )
            .blame(attr));
        }
        let (s, o) = (operand.dims[i], out_dims[d as usize]);
        if s != o && s != 1 {
            return Err(Error::new(
                op,
                format!(
                    "operand dimension {i} of size {s} cannot broadcast to output dimension {d} of size {o} ({operand} vs {})",
                    fmt_dims(out_dims)
                ),
            )
            .blame(attr));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::ElementType::F32;

    fn a(d: &[i64]) -> ArrayShape {
        ArrayShape::new(F32, d)
    }

    fn plan(l: &[i64], r: &[i64], bd: Option<&[i64]>) -> Result<BroadcastPlan> {
        broadcast_binary("Add", &a(l), &a(r), bd)
    }

    #[test]
    fn matrix_plus_vector_with_dims_1() {
        let p = plan(&[2, 3], &[3], Some(&[1])).unwrap();
        assert_eq!(p.dims, vec![2, 3]);
        assert_eq!(p.operands, vec![None, Some(vec![1])]);
    }

    #[test]
    fn rank_mismatch_without_dims_is_an_error_with_help() {
        let e = plan(&[2, 3], &[3], None).unwrap_err();
        assert_eq!(e.to_string(), "Add: operands of rank 2 and 1 need broadcast_dimensions (f32[2,3] vs f32[3]); help: broadcast_dimensions = [1]");
        assert_eq!(e.blame, Blame::Operand(1));
    }

    #[test]
    fn square_matrix_both_ways() {
        assert_eq!(
            plan(&[3, 3], &[3], Some(&[0])).unwrap().operands[1],
            Some(vec![0])
        );
        assert_eq!(
            plan(&[3, 3], &[3], Some(&[1])).unwrap().operands[1],
            Some(vec![1])
        );
    }

    #[test]
    fn seed_note_2x3_plus_3_with_dims_0_is_invalid() {
        let e = plan(&[2, 3], &[3], Some(&[0])).unwrap_err();
        assert!(
            e.message
                .contains("dimension 0 (size 3) to dimension 0 (size 2)"),
            "{e}"
        );
        assert_eq!(e.help.as_deref(), Some("broadcast_dimensions = [1]"));
        assert_eq!(e.blame, Blame::Attribute("broadcast_dimensions"));
    }

    #[test]
    fn cuboid_plus_matrix() {
        let p = plan(&[2, 3, 4], &[3, 4], Some(&[1, 2])).unwrap();
        assert_eq!(p.dims, vec![2, 3, 4]);
        assert_eq!(p.operands, vec![None, Some(vec![1, 2])]);
        // The lower-rank operand may come first too.
        let p = plan(&[3, 4], &[2, 3, 4], Some(&[1, 2])).unwrap();
        assert_eq!(p.operands, vec![Some(vec![1, 2]), None]);
    }

    #[test]
    fn broadcast_dimensions_checks() {
        let e = plan(&[2, 3, 4], &[3, 4], Some(&[2, 1])).unwrap_err();
        assert!(e.message.contains("strictly increasing"), "{e}");
        let e = plan(&[2, 3], &[3], Some(&[2])).unwrap_err();
        assert!(e.message.contains("out of range"), "{e}");
        let e = plan(&[2, 3], &[3], Some(&[0, 1])).unwrap_err();
        assert!(
            e.message
                .contains("has 2 entries but the lower-rank operand f32[3] has rank 1"),
            "{e}"
        );
        let e = plan(&[2, 3], &[3], Some(&[-1])).unwrap_err();
        assert!(e.message.contains("out of range"), "{e}");
        let e = plan(&[2, 3], &[2, 3], Some(&[1, 0])).unwrap_err();
        assert!(e.message.contains("equal rank"), "{e}");
        assert!(plan(&[2, 3], &[2, 3], Some(&[0, 1])).is_ok());
    }

    #[test]
    fn degenerate_dimensions() {
        assert_eq!(plan(&[2, 1], &[2, 3], None).unwrap().dims, vec![2, 3]);
        assert_eq!(
            plan(&[1, 2, 5], &[7, 2, 5], None).unwrap().dims,
            vec![7, 2, 5]
        );
        assert_eq!(
            plan(&[7, 2, 5], &[7, 1, 5], None).unwrap().dims,
            vec![7, 2, 5]
        );
        let e = plan(&[7, 2, 5], &[7, 2, 6], None).unwrap_err();
        assert_eq!(e.to_string(), "Add: dimension 2 has sizes 5 and 6, which are neither equal nor 1 (f32[7,2,5] vs f32[7,2,6])");
        // Outer product.
        let p = plan(&[2, 1], &[1, 3], None).unwrap();
        assert_eq!(p.dims, vec![2, 3]);
        assert_eq!(p.operands, vec![Some(vec![0, 1]), Some(vec![0, 1])]);
    }

    #[test]
    fn scalars_broadcast_to_anything() {
        let p = plan(&[2, 3], &[], None).unwrap();
        assert_eq!(p.dims, vec![2, 3]);
        assert_eq!(p.operands, vec![None, Some(vec![])]);
        let p = plan(&[], &[4], Some(&[])).unwrap();
        assert_eq!(p.operands, vec![Some(vec![]), None]);
        assert_eq!(plan(&[], &[], None).unwrap().dims, Vec::<i64>::new());
    }

    #[test]
    fn composition_examples() {
        let p = plan(&[4], &[1, 2], Some(&[0])).unwrap();
        assert_eq!(p.dims, vec![4, 2]);
        assert_eq!(p.operands, vec![Some(vec![0]), Some(vec![0, 1])]);
        let p = plan(&[1, 2], &[4, 3, 1], Some(&[1, 2])).unwrap();
        assert_eq!(p.dims, vec![4, 3, 2]);
        assert_eq!(p.operands, vec![Some(vec![1, 2]), Some(vec![0, 1, 2])]);
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest_broadcast_dimensions(&[3], &[2, 3]), Some(vec![1]));
        assert_eq!(suggest_broadcast_dimensions(&[2], &[2, 3]), Some(vec![0]));
        assert_eq!(
            suggest_broadcast_dimensions(&[2, 4], &[2, 3, 4]),
            Some(vec![0, 2])
        );
        assert_eq!(suggest_broadcast_dimensions(&[5], &[2, 3]), None);
    }

    #[test]
    fn broadcast_in_dim_rules() {
        assert!(check_broadcast_in_dim("BroadcastInDim", &a(&[3]), &[2, 3], &[1]).is_ok());
        assert!(check_broadcast_in_dim("BroadcastInDim", &a(&[1, 3]), &[2, 3], &[0, 1]).is_ok());
        assert!(
            check_broadcast_in_dim("BroadcastInDim", &a(&[3]), &[2, 3], &[0])
                .unwrap_err()
                .message
                .contains("cannot broadcast")
        );
        assert!(check_broadcast_in_dim("BroadcastInDim", &a(&[3, 3]), &[3, 3], &[1, 0]).is_err());
        assert!(check_broadcast_in_dim("BroadcastInDim", &a(&[3]), &[3], &[]).is_err());
        assert!(check_broadcast_in_dim("BroadcastInDim", &a(&[3]), &[3], &[1]).is_err());
    }
}
