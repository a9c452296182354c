//! Dot and DotGeneral. Result dimensions: batch dims, lhs free dims, rhs free dims (in order).

use super::{expect_array, list};
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::ir::DotDimensionNumbers;
use crate::shape::{ArrayShape, Shape};

/// `Dot(lhs, rhs)` for ranks 1 and 2: contracts lhs's last dimension with rhs's first. Returns
/// the equivalent DotGeneral dimension numbers and the result shape.
pub fn dot(
    lhs: &Shape,
    rhs: &Shape,
    preferred_element_type: Option<ElementType>,
) -> Result<(DotDimensionNumbers, ArrayShape)> {
    let op = "Dot";
    let l = expect_array(op, "lhs", lhs, Blame::Operand(0))?;
    let r = expect_array(op, "rhs", rhs, Blame::Operand(1))?;
    for (i, a) in [l, r].into_iter().enumerate() {
        if !(1..=2).contains(&a.rank()) {
            return Err(Error::new(
                op,
                format!(
                    "operands must be vectors or matrices, got rank {} ({l} vs {r})",
                    a.rank()
                ),
            )
            .blame(Blame::Operand(i))
            .help("use DotGeneral for batched or higher-rank products"));
        }
    }
    let (lc, rc) = (l.rank() as i64 - 1, 0);
    if l.dims[lc as usize] != r.dims[0] {
        return Err(Error::new(
            op,
            format!(
                "contracting dimension sizes differ: {} vs {} ({l} vs {r})",
                l.dims[lc as usize], r.dims[0]
            ),
        )
        .blame(Blame::Operand(1)));
    }
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![lc],
        rhs_contracting_dimensions: vec![rc],
        lhs_batch_dimensions: vec![],
        rhs_batch_dimensions: vec![],
    };
    let shape = dot_general_named(op, lhs, rhs, &dn, preferred_element_type)?;
    Ok((dn, shape))
}

/// `DotGeneral(lhs, rhs, dimension_numbers)`: batch and contracting dims in range, unique and
/// disjoint per side, paired sizes equal; result `batch ++ lhs free ++ rhs free`.
pub fn dot_general(
    lhs: &Shape,
    rhs: &Shape,
    dimension_numbers: &DotDimensionNumbers,
    preferred_element_type: Option<ElementType>,
) -> Result<ArrayShape> {
    dot_general_named(
        "DotGeneral",
        lhs,
        rhs,
        dimension_numbers,
        preferred_element_type,
    )
}

fn check_side(
    op: &str,
    side: &str,
    a: &ArrayShape,
    batch: &[i64],
    contracting: &[i64],
) -> Result<()> {
    let attr_b: &'static str = if side == "lhs" {
        "lhs_batch_dimensions"
    } else {
        "rhs_batch_dimensions"
    };
    let attr_c: &'static str = if side == "lhs" {
        "lhs_contracting_dimensions"
    } else {
        "rhs_contracting_dimensions"
    };
    let mut seen = vec![false; a.rank()];
    for (attr, dims) in [(attr_b, batch), (attr_c, contracting)] {
        for &d in dims {
            if d < 0 || d >= a.rank() as i64 {
                return Err(Error::new(
                    op,
                    format!(
                        "{attr} {} names dimension {d}, out of range for {side} {a}",
                        list(dims)
                    ),
                )
                .blame(Blame::Attribute(attr)));
            }
            if std::mem::replace(&mut seen[d as usize], true) {
                return Err(Error::new(op, format!("{side} dimension {d} is used twice among batch and contracting dimensions ({a})"))
                    .blame(Blame::Attribute(attr)));
            }
        }
    }
    Ok(())
}

/// The rule for `preferred_element_type`: same kind as the operands (signed int, unsigned int,
/// float, complex); integers may only widen.
fn result_type(op: &str, from: ElementType, preferred: Option<ElementType>) -> Result<ElementType> {
    let Some(to) = preferred else { return Ok(from) };
    let kind = |t: ElementType| {
        (
            t.is_pred(),
            t.is_signed_int(),
            t.is_unsigned_int(),
            t.is_float(),
            t.is_complex(),
        )
    };
    if kind(from) != kind(to) {
        return Err(Error::new(
            op,
            format!(
                "preferred_element_type {to} is not the same kind of type as the operands' {from}"
            ),
        )
        .blame(Blame::Attribute("preferred_element_type")));
    }
    if !from.is_float_or_complex() && to.bit_width() < from.bit_width() {
        return Err(Error::new(
            op,
            format!("preferred_element_type {to} must not be narrower than the operands' {from}"),
        )
        .blame(Blame::Attribute("preferred_element_type")));
    }
    Ok(to)
}

pub(crate) fn dot_general_named(
    op: &str,
    lhs: &Shape,
    rhs: &Shape,
    dn: &DotDimensionNumbers,
    preferred_element_type: Option<ElementType>,
) -> Result<ArrayShape> {
    let l = expect_array(op, "lhs", lhs, Blame::Operand(0))?;
    let r = expect_array(op, "rhs", rhs, Blame::Operand(1))?;
    if l.ty != r.ty {
        return Err(Error::new(
            op,
            format!("operands must have the same element type ({l} vs {r})"),
        )
        .blame(Blame::Operand(1)));
    }
    if dn.lhs_batch_dimensions.len() != dn.rhs_batch_dimensions.len() {
        return Err(Error::new(
            op,
            format!(
                "lhs_batch_dimensions {} and rhs_batch_dimensions {} must have the same length",
                list(&dn.lhs_batch_dimensions),
                list(&dn.rhs_batch_dimensions)
            ),
        )
        .blame(Blame::Attribute("rhs_batch_dimensions")));
    }
    if dn.lhs_contracting_dimensions.len() != dn.rhs_contracting_dimensions.len() {
        return Err(Error::new(
            op,
            format!(
                "lhs_contracting_dimensions {} and rhs_contracting_dimensions {} must have the same length",
                list(&dn.lhs_contracting_dimensions),
                list(&dn.rhs_contracting_dimensions)
            ),
        )
        .blame(Blame::Attribute("rhs_contracting_dimensions")));
    }
    check_side(
        op,
        "lhs",
        l,
        &dn.lhs_batch_dimensions,
        &dn.lhs_contracting_dimensions,
    )?;
    check_side(
        op,
        "rhs",
        r,
        &dn.rhs_batch_dimensions,
        &dn.rhs_contracting_dimensions,
    )?;
    for (kind, attr, ls, rs) in [
        (
            "batch",
            "rhs_batch_dimensions",
            &dn.lhs_batch_dimensions,
            &dn.rhs_batch_dimensions,
        ),
        (
            "contracting",
            "rhs_contracting_dimensions",
            &dn.lhs_contracting_dimensions,
            &dn.rhs_contracting_dimensions,
        ),
    ] {
        for (&a, &b) in ls.iter().zip(rs.iter()) {
            let (sa, sb) = (l.dims[a as usize], r.dims[b as usize]);
            if sa != sb {
                return Err(Error::new(
                    op,
                    format!("{kind} dimension sizes differ: lhs dimension {a} is {sa}, rhs dimension {b} is {sb} ({l} vs {r})"),
                )
                .blame(Blame::Attribute(attr)));
            }
        }
    }
    let ty = result_type(op, l.ty, preferred_element_type)?;
    let mut out = ArrayShape::new(ty, &[]);
    for &b in &dn.lhs_batch_dimensions {
        out.dims.push(l.dims[b as usize]);
        out.dynamic.push(l.dynamic[b as usize]);
    }
    for (a, batch, contracting) in [
        (l, &dn.lhs_batch_dimensions, &dn.lhs_contracting_dimensions),
        (r, &dn.rhs_batch_dimensions, &dn.rhs_contracting_dimensions),
    ] {
        for d in 0..a.rank() as i64 {
            if !batch.contains(&d) && !contracting.contains(&d) {
                out.dims.push(a.dims[d as usize]);
                out.dynamic.push(a.dynamic[d as usize]);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Shape {
        crate::shape::parse_shape(text).unwrap()
    }

    fn dn(lc: &[i64], rc: &[i64], lb: &[i64], rb: &[i64]) -> DotDimensionNumbers {
        DotDimensionNumbers {
            lhs_contracting_dimensions: lc.to_vec(),
            rhs_contracting_dimensions: rc.to_vec(),
            lhs_batch_dimensions: lb.to_vec(),
            rhs_batch_dimensions: rb.to_vec(),
        }
    }

    #[test]
    fn seed_dot_table() {
        assert_eq!(
            dot(&s("f32[5]"), &s("f32[5]"), None).unwrap().1.to_string(),
            "f32[]"
        );
        assert_eq!(
            dot(&s("f32[4,5]"), &s("f32[5]"), None)
                .unwrap()
                .1
                .to_string(),
            "f32[4]"
        );
        let (d, out) = dot(&s("f32[4,5]"), &s("f32[5,6]"), None).unwrap();
        assert_eq!(out.to_string(), "f32[4,6]");
        assert_eq!(d, dn(&[1], &[0], &[], &[]));
        assert_eq!(
            dot(&s("f32[5]"), &s("f32[5,6]"), None)
                .unwrap()
                .1
                .to_string(),
            "f32[6]"
        );
        let e = dot(&s("f32[4,5]"), &s("f32[6,3]"), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Dot: contracting dimension sizes differ: 5 vs 6 (f32[4,5] vs f32[6,3])"
        );
        assert!(dot(&s("f32[2,4,5]"), &s("f32[5]"), None)
            .unwrap_err()
            .help
            .is_some());
        assert!(dot(&s("f32[]"), &s("f32[5]"), None).is_err());
    }

    #[test]
    fn seed_dot_general_examples() {
        let out = dot_general(
            &s("f32[2,3]"),
            &s("f32[2,3]"),
            &dn(&[1], &[1], &[], &[]),
            None,
        )
        .unwrap();
        assert_eq!(out.to_string(), "f32[2,2]");
        let out = dot_general(
            &s("f32[2,2,2]"),
            &s("f32[2,2,2]"),
            &dn(&[2], &[1], &[0], &[0]),
            None,
        )
        .unwrap();
        assert_eq!(out.to_string(), "f32[2,2,2]");
        let out = dot_general(
            &s("f32[7,8,4,5]"),
            &s("f32[7,8,5,6]"),
            &dn(&[3], &[2], &[0, 1], &[0, 1]),
            None,
        )
        .unwrap();
        assert_eq!(out.to_string(), "f32[7,8,4,6]");
        // Batch dims need not lead: result is batch, lhs free, rhs free.
        let out = dot_general(
            &s("f32[4,7,5]"),
            &s("f32[5,6,7]"),
            &dn(&[2], &[0], &[1], &[2]),
            None,
        )
        .unwrap();
        assert_eq!(out.to_string(), "f32[7,4,6]");
    }

    #[test]
    fn dot_general_errors() {
        let e = dot_general(
            &s("f32[2,3]"),
            &s("f32[2,4]"),
            &dn(&[1], &[1], &[], &[]),
            None,
        )
        .unwrap_err();
        assert!(
            e.message.contains("contracting dimension sizes differ"),
            "{e}"
        );
        let e = dot_general(
            &s("f32[2,3]"),
            &s("f32[3,3]"),
            &dn(&[1], &[0], &[0], &[1]),
            None,
        )
        .unwrap_err();
        assert!(e.message.contains("batch dimension sizes differ"), "{e}");
        assert!(dot_general(
            &s("f32[2,3]"),
            &s("f32[3]"),
            &dn(&[1], &[0], &[0], &[]),
            None
        )
        .is_err());
        assert!(dot_general(
            &s("f32[2,3]"),
            &s("f32[3]"),
            &dn(&[2], &[0], &[], &[]),
            None
        )
        .is_err());
        assert!(dot_general(
            &s("f32[3,3]"),
            &s("f32[3,3]"),
            &dn(&[0], &[0], &[0], &[1]),
            None
        )
        .unwrap_err()
        .message
        .contains("twice"));
        assert!(dot_general(&s("f32[3]"), &s("f32[3]"), &dn(&[0], &[], &[], &[]), None).is_err());
        assert!(dot_general(&s("f32[3]"), &s("s32[3]"), &dn(&[0], &[0], &[], &[]), None).is_err());
    }

    #[test]
    fn preferred_element_type() {
        let d = dn(&[0], &[0], &[], &[]);
        assert_eq!(
            dot_general(&s("s8[3]"), &s("s8[3]"), &d, Some(ElementType::S32))
                .unwrap()
                .ty,
            ElementType::S32
        );
        assert_eq!(
            dot_general(&s("bf16[3]"), &s("bf16[3]"), &d, Some(ElementType::F32))
                .unwrap()
                .ty,
            ElementType::F32
        );
        assert!(dot_general(&s("s32[3]"), &s("s32[3]"), &d, Some(ElementType::S8)).is_err());
        assert!(dot_general(&s("s32[3]"), &s("s32[3]"), &d, Some(ElementType::F32)).is_err());
        assert!(dot_general(&s("s32[3]"), &s("s32[3]"), &d, Some(ElementType::U64)).is_err());
    }
}
