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

/// The rule for `preferred_element_type`, XLA's (`MaybeUpcast` in its shape inference): any
/// element type, except that operands other than real floats (pred, integers, complex) must not
/// be narrowed; so `u8 x u8 -> s32`, `s8 -> u32`, `s32 -> f32`, `f32 -> f16`, `f32 -> s32` and
/// `f64 -> c64` are accepted, `s32 -> s8` and `s32 -> f16` are not. One restriction of ours:
/// complex operands keep a complex result, since the product would then need a complex-to-real
/// conversion, which `ConvertElementType` rejects too (XLA:CPU converts a complex product to an
/// integer by wrapping but a real one by saturating, so there is no one meaning to follow).
fn result_type(op: &str, from: ElementType, preferred: Option<ElementType>) -> Result<ElementType> {
    let Some(to) = preferred else { return Ok(from) };
    if from.is_complex() && !to.is_complex() {
        return Err(Error::new(
            op,
            format!("preferred_element_type {to} is real but the operands are complex ({from})"),
        )
        .blame(Blame::Attribute("preferred_element_type"))
        .help("keep the complex result and take Real, Imag or Abs of it"));
    }
    // XLA's BitWidth counts pred as one bit, so pred never narrows and nothing but a float
    // becomes pred.
    let width = |t: ElementType| if t.is_pred() { 1 } else { t.bit_width() };
    if !from.is_float() && width(to) < width(from) {
        return Err(Error::new(
            op,
            format!("preferred_element_type {to} must not be narrower than the operands' {from}"),
        )
        .blame(Blame::Attribute("preferred_element_type")));
    }
    Ok(to)
}

/// The element type a dot of `operand`s into `result` is computed in: the more precise of the
/// two, as XLA orders types (complex over real, then float range, float precision, width, and
/// signed over unsigned). XLA:CPU converts the operands to it when it is the result type and
/// converts the product when it is the operand type, so `s8 x s8 -> s32` sums in s32,
/// `f32 x f32 -> s32` sums in f32 and truncates once, `f16 x f16 -> bf16` sums in bf16's
/// range.
pub fn dot_compute_type(operand: ElementType, result: ElementType) -> ElementType {
    let rank = |t: ElementType| {
        let c = t.complex_component().unwrap_or(t);
        let (range, precision) = match c.float_bits() {
            // Larger exponent field = larger range; mantissa bits = precision.
            Some((e, m)) => (i64::from(e), i64::from(m)),
            None => (-1, -1),
        };
        // pred is one bit wide for this order (XLA's BitWidth), below u8.
        let width = if c.is_pred() { 1 } else { c.bit_width() };
        (t.is_complex(), range, precision, width, c.is_signed_int())
    };
    if rank(result) > rank(operand) {
        result
    } else {
        operand
    }
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
                "lhs_batch_dimensions {} and rhs_batch_dimensions {} must have the same length \
                 ({l} vs {r})",
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
                "lhs_contracting_dimensions {} and rhs_contracting_dimensions {} must have the \
                 same length ({l} vs {r})",
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
        use ElementType::*;
        let d = dn(&[0], &[0], &[], &[]);
        let ty = |from: &str, to| {
            let a = s(&format!("{from}[3]"));
            dot_general(&a, &a, &d, Some(to)).map(|r| r.ty)
        };
        // Integers widen to either signedness, or to a float at least as wide (issue 8: the
        // random programs' u8 x u8 -> s32).
        for (from, to) in [
            ("s8", S32),
            ("u8", S32),
            ("s8", U32),
            ("u8", U8),
            ("s8", U8),
            ("u16", F16),
            ("s32", F32),
            ("s32", U64),
            ("s64", C64),
            ("pred", S8),
            ("pred", F32),
            ("bf16", F32),
            ("f32", F16),
            ("f32", Bf16),
            ("f64", S8),
            ("f32", Pred),
            ("f16", C128),
            ("c64", C128),
        ] {
            assert_eq!(ty(from, to).ok(), Some(to), "{from} -> {to}");
        }
        // Integers (and complex) never narrow; complex stays complex.
        for (from, to) in [
            ("s32", S8),
            ("u32", U16),
            ("s32", F16),
            ("s64", F32),
            ("c128", C64),
            ("c64", F64),
            ("c64", S64),
            ("s8", Pred),
            ("u8", Pred),
        ] {
            assert!(ty(from, to).is_err(), "{from} -> {to}");
        }
        let e = ty("s32", S8).unwrap_err();
        assert!(e.message.contains("narrower"), "{e}");
    }

    #[test]
    fn compute_type_is_the_more_precise() {
        use ElementType::*;
        for (operand, result, compute) in [
            (S8, S32, S32),
            (U8, S32, S32),
            (S8, U8, S8),
            (U8, S8, S8),
            (S32, U32, S32),
            (S16, U32, U32),
            (Pred, S8, S8),
            (Pred, Pred, Pred),
            (S32, F32, F32),
            (U64, F16, F16),
            (F32, S32, F32),
            (F16, S64, F16),
            (F16, Bf16, Bf16),
            (Bf16, F16, Bf16),
            (Bf16, F32, F32),
            (F64, F32, F64),
            (F32, C64, C64),
            (F64, C64, C64),
            (C64, C128, C128),
        ] {
            assert_eq!(
                dot_compute_type(operand, result),
                compute,
                "{operand} -> {result}"
            );
        }
    }
}
