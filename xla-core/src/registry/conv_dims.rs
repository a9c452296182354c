//! Convolution attributes as the surface writes them: dimension letters (`[NHWC, HWIO, NHWC]`,
//! as `jax.lax.conv_general_dilated` takes them) and the five Conv forms routed to the builder.

use super::build::Applied;
use super::OpSpec;
use crate::builder::{Builder, XlaOp};
use crate::error::{Blame, Error, Result};
use crate::infer;
use crate::ir::ConvDimensionNumbers;

/// Dimension numbers from three letter specs: lhs with `N` (batch) and `C` (feature), rhs with
/// `O` (output feature) and `I` (input feature), output with `N` and `C`; every other letter is
/// a spatial dimension, and spatial dimensions are numbered in the order the rhs spec lists
/// them (JAX's rule). `Err` says what is wrong with which spec.
pub fn conv_dims_from_specs(
    lhs: &str,
    rhs: &str,
    out: &str,
) -> Result<ConvDimensionNumbers, String> {
    let check = |what: &str, spec: &str, a: char, b: char| -> Result<(), String> {
        for c in [a, b] {
            if spec.chars().filter(|&x| x == c).count() != 1 {
                return Err(format!(
                    "the {what} spec `{spec}` must contain `{c}` exactly once ({what} letters: `{a}`, `{b}` and one letter per spatial dimension)"
                ));
            }
        }
        let mut seen = Vec::new();
        for c in spec.chars() {
            if seen.contains(&c) {
                return Err(format!("the {what} spec `{spec}` repeats `{c}`"));
            }
            seen.push(c);
        }
        Ok(())
    };
    check("lhs", lhs, 'N', 'C')?;
    check("rhs", rhs, 'O', 'I')?;
    check("output", out, 'N', 'C')?;
    if lhs.len() != rhs.len() || out.len() != rhs.len() {
        return Err(format!(
            "the specs `{lhs}`, `{rhs}`, `{out}` have {}, {} and {} letters: one letter per \
             operand dimension, so the same number each",
            lhs.chars().count(),
            rhs.chars().count(),
            out.chars().count()
        ));
    }
    let spatial: Vec<char> = rhs.chars().filter(|&c| c != 'O' && c != 'I').collect();
    let pos = |spec: &str, c: char| spec.chars().position(|x| x == c).map(|p| p as i64);
    let spatial_of = |what: &str, spec: &str| -> Result<Vec<i64>, String> {
        spatial
            .iter()
            .map(|&c| {
                pos(spec, c).ok_or_else(|| {
                    format!("the {what} spec `{spec}` has no spatial dimension `{c}` (the rhs spec `{rhs}` has)")
                })
            })
            .collect()
    };
    Ok(ConvDimensionNumbers {
        input_batch_dimension: pos(lhs, 'N').unwrap_or(0),
        input_feature_dimension: pos(lhs, 'C').unwrap_or(0),
        input_spatial_dimensions: spatial_of("lhs", lhs)?,
        kernel_input_feature_dimension: pos(rhs, 'I').unwrap_or(0),
        kernel_output_feature_dimension: pos(rhs, 'O').unwrap_or(0),
        kernel_spatial_dimensions: spatial_of("rhs", rhs)?,
        output_batch_dimension: pos(out, 'N').unwrap_or(0),
        output_feature_dimension: pos(out, 'C').unwrap_or(0),
        output_spatial_dimensions: spatial_of("output", out)?,
    })
}

/// The five convolution forms through one builder call: defaults filled in (XLA's default
/// dimension numbers, SAME/VALID turned into explicit padding, dilations 1, group counts 1).
pub(super) fn build_conv(
    b: &mut Builder,
    spec: &OpSpec,
    a: &Applied<'_>,
    lhs: XlaOp,
    rhs: XlaOp,
) -> Result<XlaOp> {
    let attrs = &a.attrs;
    let strides = attrs.ints("window_strides").unwrap_or_default();
    let dn = match attrs.conv_dims("dimension_numbers") {
        Some(d) => d,
        None => {
            let rank = b.try_shape(lhs)?.as_array().map_or(2, |s| s.rank());
            infer::conv::default_dimension_numbers(rank.saturating_sub(2))
        }
    };
    let padding = match (attrs.pairs("padding"), attrs.same("padding")) {
        (Some(p), _) => p,
        (None, Some(same)) => {
            let kind = if same {
                infer::conv::Padding::Same
            } else {
                infer::conv::Padding::Valid
            };
            let (l, r) = (b.try_shape(lhs)?.clone(), b.try_shape(rhs)?.clone());
            infer::conv::explicit_padding(spec.name, &l, &r, &strides, kind, &dn)?
        }
        (None, None) => {
            return Err(Error::new(spec.name, "missing attribute `padding = ...`")
                .blame(Blame::Attribute("padding")))
        }
    };
    let n = dn.input_spatial_dimensions.len();
    let ones = vec![1; n];
    let r = b.conv_general_dilated(
        lhs,
        rhs,
        &strides,
        &padding,
        &attrs.ints("lhs_dilation").unwrap_or_else(|| ones.clone()),
        &attrs.ints("rhs_dilation").unwrap_or(ones),
        &dn,
        attrs.int("feature_group_count").unwrap_or(1),
        attrs.int("batch_group_count").unwrap_or(1),
        attrs.bools("window_reversal").as_deref(),
        attrs.ty("preferred_element_type"),
    );
    // Errors name the form the user wrote, not the general op it lowers to.
    r.map_err(|e| Error {
        op: spec.name.to_string(),
        ..e
    })
}
