use super::*;

#[test]
fn names_are_unique_and_aliases_name_registered_ops() {
    let names: Vec<&str> = specs().map(|s| s.name).collect();
    for (i, n) in names.iter().enumerate() {
        assert!(!names[..i].contains(n), "{n} registered twice");
    }
    for (theirs, ours) in ALIASES {
        assert!(
            lookup(ours).is_some(),
            "alias {theirs} -> unknown op {ours}"
        );
        assert!(
            lookup(theirs).is_none(),
            "alias {theirs} shadows a registered op"
        );
    }
    assert_eq!(alias("Convert"), Some("ConvertElementType"));
    assert_eq!(alias("CONCAT"), Some("ConcatInDim"));
}

#[test]
fn every_unary_and_binary_op_is_registered() {
    for u in crate::ir::UnaryOp::ALL {
        assert!(
            specs().any(|s| s.kind == OpKind::Unary(u)),
            "{u:?} has no surface name"
        );
    }
    for b in crate::ir::BinaryOp::ALL {
        assert!(
            specs().any(|s| s.kind == OpKind::Binary(b)),
            "{b:?} has no surface name"
        );
    }
}

#[test]
fn attribute_names_are_unique_per_op() {
    for s in specs() {
        for (i, a) in s.attrs.iter().enumerate() {
            assert!(
                !s.attrs[..i].iter().any(|b| b.name == a.name),
                "{}: attribute {} listed twice",
                s.name,
                a.name
            );
        }
    }
}

#[test]
fn conv_dims_follow_jax_letters() {
    let d = conv_dims_from_specs("NHWC", "HWIO", "NHWC").unwrap();
    assert_eq!((d.input_batch_dimension, d.input_feature_dimension), (0, 3));
    assert_eq!(d.input_spatial_dimensions, vec![1, 2]);
    assert_eq!(
        (
            d.kernel_input_feature_dimension,
            d.kernel_output_feature_dimension
        ),
        (2, 3)
    );
    assert_eq!(d.kernel_spatial_dimensions, vec![0, 1]);
    assert_eq!(d.output_spatial_dimensions, vec![1, 2]);
    let d = conv_dims_from_specs("NCHW", "OIHW", "NCHW").unwrap();
    assert_eq!(d, crate::infer::conv::default_dimension_numbers(2));
    // Spatial dimensions are numbered in the rhs spec's order.
    let d = conv_dims_from_specs("NWHC", "HWIO", "NHWC").unwrap();
    assert_eq!(d.input_spatial_dimensions, vec![2, 1]);
}

#[test]
fn conv_dims_errors_name_the_spec() {
    let e = conv_dims_from_specs("NHW", "HWIO", "NHWC").unwrap_err();
    assert!(e.contains("lhs spec `NHW`") && e.contains("`C`"), "{e}");
    let e = conv_dims_from_specs("NHWC", "HWIO", "NHHC").unwrap_err();
    assert!(e.contains("output spec `NHHC` repeats `H`"), "{e}");
    let e = conv_dims_from_specs("NHWC", "HWIO", "NHWCD").unwrap_err();
    assert!(e.contains("same number"), "{e}");
    let e = conv_dims_from_specs("NHXC", "HWIO", "NHWC").unwrap_err();
    assert!(e.contains("no spatial dimension `W`"), "{e}");
}

#[test]
fn computation_params_follow_each_form() {
    use crate::element::ElementType::{F32, S32};
    use crate::shape::Shape;
    let x = Shape::Array(crate::shape::ArrayShape::new(F32, &[4, 3]));
    let i = Shape::Array(crate::shape::ArrayShape::new(S32, &[4, 3]));
    let reduce = lookup("Reduce").unwrap();
    let p = computation_params(reduce, &[&x, &i, &Shape::scalar(F32), &Shape::scalar(S32)]);
    assert_eq!(
        p,
        vec![vec![
            Shape::scalar(F32),
            Shape::scalar(S32),
            Shape::scalar(F32),
            Shape::scalar(S32)
        ]]
    );
    let sort = lookup("Sort").unwrap();
    let p = computation_params(sort, &[&x, &i]);
    assert_eq!(
        p,
        vec![vec![
            Shape::scalar(F32),
            Shape::scalar(F32),
            Shape::scalar(S32),
            Shape::scalar(S32)
        ]]
    );
    let w = lookup("While").unwrap();
    assert_eq!(
        computation_params(w, &[&x]),
        vec![vec![x.clone()], vec![x.clone()]]
    );
    let c = lookup("Conditional").unwrap();
    assert_eq!(
        computation_params(c, &[&Shape::scalar(S32), &x, &i]),
        vec![vec![x.clone()], vec![i.clone()]]
    );
    assert!(computation_params(lookup("Add").unwrap(), &[&x, &x]).is_empty());
}

#[test]
fn every_elementwise_op_has_one_dialect_qualified_stablehlo_name() {
    for u in crate::ir::UnaryOp::ALL {
        assert!(unary_name(u).is_some(), "{u:?} has no StableHLO name");
    }
    for b in crate::ir::BinaryOp::ALL {
        assert!(binary_name(b).is_some(), "{b:?} has no StableHLO name");
    }
    for s in specs() {
        let dialect = s.stablehlo.split_once('.').map(|(d, _)| d);
        assert!(
            // `xla`: no StableHLO op (exported as its expansion), named as JAX's
            // `stablehlo.composite` names it (`xla.scaled_dot`), which no import matches.
            matches!(dialect, Some("stablehlo" | "chlo" | "func" | "xla")),
            "{}: {}",
            s.name,
            s.stablehlo
        );
    }
    assert_eq!(unary_name(crate::ir::UnaryOp::Erf), Some("chlo.erf"));
    assert_eq!(lookup("TopK").map(|s| s.stablehlo), Some("chlo.top_k"));
    assert_eq!(lookup("Scan").map(|s| s.stablehlo), Some("chlo.scan"));
}
