//! RaggedDot (XLA's `InferRaggedDotOpShape`, CHLO's `ragged_dot` verifier): DotGeneral's
//! rules, plus one lhs ragged dimension, the rhs group dimension (mode 1 only) and the shape of
//! `group_sizes` (`[g]`, or `[prefix.., g]` with the lhs dimensions the mode puts before it).

use super::dot::dot_general_named;
use super::{expect_array, list};
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::ir::RaggedDotDimensionNumbers;
use crate::shape::{ArrayShape, Shape};

/// Which kind of lhs dimension is ragged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaggedMode {
    /// Mode 1: a free (non-contracting, non-batch) dimension; rhs has a group dimension.
    NonContracting,
    /// Mode 2: a contracting dimension; the result gains a leading group dimension.
    Contracting,
    /// Mode 3: a batch dimension.
    Batch,
}

/// The mode and the lhs ragged dimension of `dn` for an lhs of rank `rank` (`dn` checked).
pub fn mode(dn: &RaggedDotDimensionNumbers, rank: usize) -> (RaggedMode, usize) {
    let d = dn.lhs_ragged_dimensions[0];
    let m = if dn.dot.lhs_contracting_dimensions.contains(&d) {
        RaggedMode::Contracting
    } else if dn.dot.lhs_batch_dimensions.contains(&d) {
        RaggedMode::Batch
    } else {
        RaggedMode::NonContracting
    };
    debug_assert!((d as usize) < rank);
    (m, d as usize)
}

/// The lhs dimensions whose indices select a row of a `[prefix.., g]` group_sizes: the batch
/// dimensions, then (mode 1) the free ones before the ragged one or (mode 2) the contracting
/// ones before it; (mode 3) the batch dimensions before it.
pub fn prefix_dims(dn: &RaggedDotDimensionNumbers, rank: usize) -> Vec<usize> {
    let (m, r) = mode(dn, rank);
    let d = &dn.dot;
    let u = |v: &[i64]| v.iter().map(|&x| x as usize).collect::<Vec<_>>();
    let batch = u(&d.lhs_batch_dimensions);
    match m {
        RaggedMode::NonContracting => {
            let free = (0..rank).filter(|i| {
                !d.lhs_batch_dimensions.contains(&(*i as i64))
                    && !d.lhs_contracting_dimensions.contains(&(*i as i64))
            });
            batch
                .into_iter()
                .chain(free.take_while(|&i| i != r))
                .collect()
        }
        RaggedMode::Contracting => {
            let c = u(&d.lhs_contracting_dimensions);
            let before = c.iter().take_while(|&&i| i != r).copied();
            batch.iter().copied().chain(before).collect()
        }
        RaggedMode::Batch => batch.into_iter().take_while(|&i| i != r).collect(),
    }
}

/// `RaggedDot(lhs, rhs, group_sizes)`: DotGeneral's rules on (lhs, rhs) and
/// `dimension_numbers.dot`; exactly one lhs ragged dimension, in range; one rhs group
/// dimension in mode 1 (in range, neither batch nor contracting, of size `g`), none in modes 2
/// and 3; integer group_sizes `[g]` or `[prefix.., g]`. Result: DotGeneral's without the rhs
/// group dimension, with a leading `g` in mode 2.
pub fn ragged_dot(
    lhs: &Shape,
    rhs: &Shape,
    group_sizes: &Shape,
    dn: &RaggedDotDimensionNumbers,
    preferred_element_type: Option<ElementType>,
) -> Result<ArrayShape> {
    let op = "RaggedDot";
    let l = expect_array(op, "lhs", lhs, Blame::Operand(0))?;
    let r = expect_array(op, "rhs", rhs, Blame::Operand(1))?;
    let gs = expect_array(op, "group_sizes", group_sizes, Blame::Operand(2))?;
    let shapes = format!("lhs {l}, rhs {r}, group_sizes {gs}");
    let err =
        |blame: Blame, rule: String| Error::new(op, format!("{rule} ({shapes})")).blame(blame);
    let ragged = &dn.lhs_ragged_dimensions;
    if ragged.len() != 1 {
        let rule = format!(
            "lhs_ragged_dimensions {} must name exactly one lhs dimension",
            list(ragged)
        );
        return Err(err(Blame::Attribute("lhs_ragged_dimensions"), rule));
    }
    if ragged[0] < 0 || ragged[0] >= l.rank() as i64 {
        let rule = format!(
            "lhs_ragged_dimensions {} is out of range for lhs of rank {}",
            list(ragged),
            l.rank()
        );
        return Err(err(Blame::Attribute("lhs_ragged_dimensions"), rule));
    }
    if gs.rank() == 0 {
        let rule =
            "group_sizes must have rank >= 1 (its last dimension counts the groups), got rank 0";
        return Err(err(Blame::Operand(2), rule.into()));
    }
    if !gs.ty.is_integral() || gs.ty.is_pred() {
        let rule = format!("group_sizes must be integers, got {}", gs.ty);
        return Err(err(Blame::Operand(2), rule));
    }
    let mut out = dot_general_named(op, lhs, rhs, &dn.dot, preferred_element_type)?;
    let (mode, _) = mode(dn, l.rank());
    let g = gs.dims[gs.rank() - 1];
    check_group_dimension(dn, r, mode, g, &err)?;
    if gs.rank() > 1 {
        let want: Vec<i64> = prefix_dims(dn, l.rank())
            .iter()
            .map(|&i| l.dims[i])
            .chain([g])
            .collect();
        if gs.dims != want {
            let rule = format!(
                "group_sizes must have shape [{g}] or {} (the lhs dimensions before the ragged one, then the groups), got {}",
                list(&want),
                list(&gs.dims)
            );
            return Err(err(Blame::Operand(2), rule));
        }
    }
    match mode {
        RaggedMode::NonContracting => {
            // The group dimension is one of rhs's free dimensions in DotGeneral's result.
            let gd = dn.rhs_group_dimensions[0];
            let d = &dn.dot;
            let free_before = (0..gd)
                .filter(|i| {
                    !d.rhs_batch_dimensions.contains(i) && !d.rhs_contracting_dimensions.contains(i)
                })
                .count();
            let lhs_free =
                l.rank() - d.lhs_batch_dimensions.len() - d.lhs_contracting_dimensions.len();
            let at = d.lhs_batch_dimensions.len() + lhs_free + free_before;
            out.dims.remove(at);
            out.dynamic.remove(at);
        }
        RaggedMode::Contracting => {
            out.dims.insert(0, g);
            out.dynamic.insert(0, false);
        }
        RaggedMode::Batch => {}
    }
    Ok(out)
}

/// The rhs group dimension's rules: one in mode 1 (in range, neither batch nor contracting,
/// of size `g`), none in modes 2 and 3.
fn check_group_dimension(
    dn: &RaggedDotDimensionNumbers,
    r: &ArrayShape,
    mode: RaggedMode,
    g: i64,
    err: &dyn Fn(Blame, String) -> Error,
) -> Result<()> {
    let group = &dn.rhs_group_dimensions;
    let blame = Blame::Attribute("rhs_group_dimensions");
    if mode != RaggedMode::NonContracting {
        if !group.is_empty() {
            let kind = if mode == RaggedMode::Batch {
                "batch"
            } else {
                "contracting"
            };
            let rule = format!(
                "rhs_group_dimensions {} must be empty when the lhs ragged dimension is {kind} (mode {})",
                list(group),
                if mode == RaggedMode::Batch { 3 } else { 2 }
            );
            return Err(err(blame, rule));
        }
        return Ok(());
    }
    if group.len() != 1 {
        let rule = format!(
            "rhs_group_dimensions {} must name exactly one rhs dimension when the lhs ragged dimension is non-contracting (mode 1)",
            list(group)
        );
        return Err(err(blame, rule));
    }
    let gd = group[0];
    if gd < 0 || gd >= r.rank() as i64 {
        let rule = format!(
            "rhs_group_dimensions {} is out of range for rhs of rank {}",
            list(group),
            r.rank()
        );
        return Err(err(blame, rule));
    }
    for (kind, dims) in [
        ("rhs_batch_dimensions", &dn.dot.rhs_batch_dimensions),
        (
            "rhs_contracting_dimensions",
            &dn.dot.rhs_contracting_dimensions,
        ),
    ] {
        if dims.contains(&gd) {
            let rule = format!("rhs group dimension {gd} is also in {kind} {}", list(dims));
            return Err(err(blame, rule));
        }
    }
    if r.dims[gd as usize] != g {
        let rule = format!(
            "group_sizes has {g} groups but rhs group dimension {gd} has size {}",
            r.dims[gd as usize]
        );
        return Err(err(Blame::Operand(2), rule));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::DotDimensionNumbers;

    fn s(text: &str) -> Shape {
        crate::shape::parse_shape(text).unwrap()
    }

    fn dn(
        lc: &[i64],
        rc: &[i64],
        lb: &[i64],
        rb: &[i64],
        lr: &[i64],
        rg: &[i64],
    ) -> RaggedDotDimensionNumbers {
        RaggedDotDimensionNumbers {
            dot: DotDimensionNumbers {
                lhs_contracting_dimensions: lc.to_vec(),
                rhs_contracting_dimensions: rc.to_vec(),
                lhs_batch_dimensions: lb.to_vec(),
                rhs_batch_dimensions: rb.to_vec(),
            },
            lhs_ragged_dimensions: lr.to_vec(),
            rhs_group_dimensions: rg.to_vec(),
        }
    }

    fn infer(l: &str, r: &str, g: &str, d: &RaggedDotDimensionNumbers) -> Result<String> {
        ragged_dot(&s(l), &s(r), &s(g), d, None).map(|a| a.to_string())
    }

    /// The three modes' shapes, as CHLO's verifier tests write them.
    #[test]
    fn modes() {
        let m1 = dn(&[2], &[2], &[0], &[1], &[1], &[0]);
        assert_eq!(
            infer("f32[2,11,5]", "f32[3,2,5,7]", "s64[3]", &m1).unwrap(),
            "f32[2,11,7]"
        );
        assert_eq!(
            infer("f32[2,11,5]", "f32[3,2,5,7]", "s64[2,3]", &m1).unwrap(),
            "f32[2,11,7]"
        );
        let m2 = dn(&[2], &[1], &[0], &[0], &[2], &[]);
        assert_eq!(
            infer("f32[2,11,5]", "f32[2,5,7]", "s64[3]", &m2).unwrap(),
            "f32[3,2,11,7]"
        );
        let m3 = dn(&[2], &[1], &[0], &[0], &[0], &[]);
        assert_eq!(
            infer("f32[3,11,5]", "f32[3,5,7]", "s64[3]", &m3).unwrap(),
            "f32[3,11,7]"
        );
        // Group dimension last: removed from rhs's free dimensions.
        let last = dn(&[1], &[0], &[], &[], &[0], &[2]);
        assert_eq!(
            infer("f32[11,5]", "f32[5,7,3]", "s32[3]", &last).unwrap(),
            "f32[11,7]"
        );
    }

    #[test]
    fn group_sizes_prefix() {
        let m1 = dn(&[3], &[2], &[0], &[1], &[2], &[0]);
        let e = infer("f32[19,17,11,5]", "f32[3,19,5,7]", "s64[19,11,3]", &m1).unwrap_err();
        assert!(e.message.contains("[19, 17, 3]"), "{}", e.message);
        let m3 = dn(&[3], &[2], &[0, 1], &[0, 1], &[1], &[]);
        let e = infer("f32[17,19,11,5]", "f32[17,19,5,7]", "s64[19,3]", &m3).unwrap_err();
        assert!(e.message.contains("[17, 3]"), "{}", e.message);
    }
}
