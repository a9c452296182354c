//! Shape inference of Gather and Scatter: results, and every rule with its message and blame.

use super::*;
use crate::builder::Builder;
use crate::element::ElementType::{self, F32, S32};
use crate::ir::BinaryOp;
use crate::shape::parse_shape;

fn s(text: &str) -> Shape {
    parse_shape(text).unwrap()
}

/// `|a.., b..| a + b` (one result per type; a tuple for several).
fn add(types: &[ElementType]) -> Computation {
    let mut b = Builder::new("add");
    let n = types.len();
    let ps: Vec<_> = types
        .iter()
        .chain(types)
        .enumerate()
        .map(|(i, &t)| b.parameter(i, Shape::scalar(t), "p").unwrap())
        .collect();
    let sums: Vec<_> = (0..n)
        .map(|i| b.binary(BinaryOp::Add, ps[i], ps[n + i], None).unwrap())
        .collect();
    let root = if n == 1 {
        sums[0]
    } else {
        b.tuple(&sums).unwrap()
    };
    b.build(root).unwrap()
}

/// A rule case: operand, indices, dimension numbers, slice sizes, message part, blame.
type GatherCase = (
    &'static str,
    &'static str,
    GatherDimensionNumbers,
    Vec<i64>,
    &'static str,
    Blame,
);
/// A rule case: operand, indices, updates, dimension numbers, message part, blame.
type ScatterCase = (
    &'static str,
    &'static str,
    &'static str,
    ScatterDimensionNumbers,
    &'static str,
    Blame,
);

/// The error of `gather` with the given shapes and numbers: message and blame.
fn gerr(x: &str, i: &str, dn: &GatherDimensionNumbers, sizes: &[i64]) -> (String, Blame) {
    let e = gather(&s(x), &s(i), dn, sizes).unwrap_err();
    (e.to_string(), e.blame)
}

#[test]
fn gather_shapes() {
    // Rows of a table (the spec's tf.gather_nd example with slice [1, 11]).
    let rows = GatherDimensionNumbers::new(&[1], &[0], &[0], 1);
    assert_eq!(
        gather(&s("f32[16,11]"), &s("s32[5,1]"), &rows, &[1, 11]).unwrap(),
        s("f32[5,11]")
    );
    // The implicit trailing 1 (index_vector_dim = rank).
    let rows2 = GatherDimensionNumbers::new(&[2], &[0], &[0], 2);
    assert_eq!(
        gather(&s("f32[16,11]"), &s("u8[4,5]"), &rows2, &[1, 11]).unwrap(),
        s("f32[4,5,11]")
    );
    // The spec's [16,11] operand, S64[5,2] starts, [8,6] slices.
    let win = GatherDimensionNumbers::new(&[1, 2], &[], &[0, 1], 1);
    assert_eq!(
        gather(&s("f32[16,11]"), &s("s64[5,2]"), &win, &[8, 6]).unwrap(),
        s("f32[5,8,6]")
    );
    // Offset dimension first; index_vector_dim = 0.
    let cols = GatherDimensionNumbers::new(&[0], &[1], &[1], 0);
    assert_eq!(
        gather(&s("s8[4,6]"), &s("s32[1,3]"), &cols, &[4, 1]).unwrap(),
        s("s8[4,3]")
    );
    // Batching.
    let mut b = GatherDimensionNumbers::new(&[2], &[1], &[1], 2);
    b.operand_batching_dims = vec![0];
    b.start_indices_batching_dims = vec![0];
    assert_eq!(
        gather(&s("f32[3,5,2]"), &s("s32[3,4]"), &b, &[1, 1, 2]).unwrap(),
        s("f32[3,4,2]")
    );
}

#[test]
fn gather_rules() {
    let rows = GatherDimensionNumbers::new(&[1], &[0], &[0], 1);
    let cases: Vec<GatherCase> = vec![
        ("(f32[2])", "s32[5]", rows.clone(), vec![1, 4], "the operand must be an array", Blame::Operand(0)),
        ("f32[6,4]", "f32[5]", rows.clone(), vec![1, 4], "start_indices must have an integer element type, got f32[5]", Blame::Operand(1)),
        ("f32[6,4]", "pred[5]", rows.clone(), vec![1, 4], "integer element type", Blame::Operand(1)),
        ("f32[6,4]", "s32[5]", GatherDimensionNumbers::new(&[1], &[0], &[0], 2), vec![1, 4], "index_vector_dim = 2 must be in 0..=1", Blame::Attribute("index_vector_dim")),
        ("f32[6,4]", "s32[5]", GatherDimensionNumbers::new(&[1], &[0], &[0], -1), vec![1, 4], "index_vector_dim = -1", Blame::Attribute("index_vector_dim")),
        ("f32[6,4,2]", "s32[5]", GatherDimensionNumbers::new(&[2, 1], &[0], &[0], 1), vec![1, 4, 2], "offset_dims [2, 1] must be ascending", Blame::Attribute("offset_dims")),
        ("f32[6,4,2]", "s32[5]", GatherDimensionNumbers::new(&[1, 1], &[0], &[0], 1), vec![1, 4, 2], "offset_dims [1, 1] repeats dimension 1", Blame::Attribute("offset_dims")),
        ("f32[6,4]", "s32[5]", GatherDimensionNumbers::new(&[2], &[0], &[0], 1), vec![1, 4], "offset_dims[0] = 2 is not a dimension of the output (0..2)", Blame::Attribute("offset_dims")),
        ("f32[6,4]", "s32[5,2]", GatherDimensionNumbers::new(&[1], &[0], &[0], 1), vec![1, 4], "start_index_map [0] has 1 entry but the index vectors (dimension index_vector_dim = 1 of start_indices) have 2", Blame::Attribute("start_index_map")),
        ("f32[6,4]", "s32[5]", GatherDimensionNumbers::new(&[1], &[0], &[2], 1), vec![1, 4], "start_index_map[0] = 2 is not a dimension of the operand (0..2)", Blame::Attribute("start_index_map")),
        ("f32[6,4]", "s32[5,2]", GatherDimensionNumbers::new(&[1], &[0], &[0, 0], 1), vec![1, 4], "start_index_map [0, 0] repeats dimension 0", Blame::Attribute("start_index_map")),
        ("f32[6,4,3]", "s32[5]", GatherDimensionNumbers::new(&[], &[1, 0], &[0], 1), vec![1, 1, 3], "collapsed_slice_dims [1, 0] must be ascending", Blame::Attribute("collapsed_slice_dims")),
        ("f32[6,4]", "s32[5]", GatherDimensionNumbers::new(&[1], &[2], &[0], 1), vec![1, 4], "collapsed_slice_dims[0] = 2 is not a dimension of the operand", Blame::Attribute("collapsed_slice_dims")),
        ("f32[6,4]", "s32[5]", GatherDimensionNumbers::new(&[1], &[0, 0], &[0], 1), vec![1, 4], "collapsed_slice_dims [0, 0] repeats dimension 0", Blame::Attribute("collapsed_slice_dims")),
        ("f32[6,4]", "s32[5]", rows.clone(), vec![1, 4, 1], "slice_sizes [1, 4, 1] has 3 entries but the operand has rank 2", Blame::Attribute("slice_sizes")),
        ("f32[6,4]", "s32[5]", GatherDimensionNumbers::new(&[1], &[], &[0], 1), vec![1, 4], "every operand dimension must be an offset, collapsed or batching dimension", Blame::Attribute("offset_dims")),
        ("f32[6,4]", "s32[5]", rows.clone(), vec![1, 5], "slice_sizes[1] = 5 must be in 0..=4, the size of operand dimension 1", Blame::Attribute("slice_sizes")),
        ("f32[6,4]", "s32[5]", rows.clone(), vec![-1, 4], "slice_sizes[0] = -1 must be in 0..=6", Blame::Attribute("slice_sizes")),
        ("f32[6,4]", "s32[5]", rows.clone(), vec![2, 4], "slice_sizes[0] = 2 but dimension 0 is in collapsed_slice_dims [0]: its slice size must be 1", Blame::Attribute("slice_sizes")),
        ("f32[6,4]", "s32[5]", rows.clone(), vec![0, 4], "slice_sizes[0] = 0 but dimension 0 is in collapsed_slice_dims [0]", Blame::Attribute("slice_sizes")),
    ];
    for (x, i, dn, sizes, want, blame) in cases {
        let (msg, b) = gerr(x, i, &dn, &sizes);
        assert!(msg.starts_with("Gather: "), "{msg}");
        assert!(msg.contains(want), "{msg}\nwanted: {want}");
        assert_eq!(b, blame, "{msg}");
    }
    // The shapes are named in every rule's message.
    let (msg, _) = gerr("f32[6,4]", "s32[5]", &rows, &[1, 5]);
    assert!(
        msg.ends_with("(operand f32[6,4], start_indices s32[5])"),
        "{msg}"
    );
}

#[test]
fn gather_batching_rules() {
    let batch = |ob: &[i64], ib: &[i64], collapsed: &[i64], map: &[i64]| {
        let mut d = GatherDimensionNumbers::new(&[2], collapsed, map, 2);
        d.operand_batching_dims = ob.to_vec();
        d.start_indices_batching_dims = ib.to_vec();
        d
    };
    let cases: Vec<(&str, GatherDimensionNumbers, &str, &'static str)> = vec![
        ("f32[3,5,2]", batch(&[0, 0], &[0], &[1], &[1]), "operand_batching_dims [0, 0] repeats dimension 0", "operand_batching_dims"),
        ("f32[3,5,2]", batch(&[3], &[0], &[1], &[1]), "operand_batching_dims[0] = 3 is not a dimension of the operand", "operand_batching_dims"),
        ("f32[3,5,2]", batch(&[1], &[0], &[1], &[0]), "collapsed_slice_dims [1] and operand_batching_dims [1] both name operand dimension 1", "operand_batching_dims"),
        ("f32[3,5,2]", batch(&[0], &[0], &[1], &[0]), "start_index_map [0] and operand_batching_dims [0] both name operand dimension 0", "operand_batching_dims"),
        ("f32[3,5,2]", batch(&[0], &[2], &[1], &[1]), "start_indices_batching_dims[0] = 2 is not a dimension of the indices", "start_indices_batching_dims"),
        ("f32[3,5,2]", batch(&[0], &[], &[1], &[1]), "operand_batching_dims [0] and start_indices_batching_dims [] must pair up one to one", "start_indices_batching_dims"),
        ("f32[4,5,2]", batch(&[0], &[0], &[1], &[1]), "operand batching dimension 0 (size 4) and indices batching dimension 0 (size 3) must have the same size", "start_indices_batching_dims"),
    ];
    for (x, dn, want, attr) in cases {
        let (msg, b) = gerr(x, "s32[3,4]", &dn, &[1, 1, 2]);
        assert!(msg.contains(want), "{msg}\nwanted: {want}");
        assert_eq!(b, Blame::Attribute(attr), "{msg}");
    }
    // The vector dimension cannot be a batch.
    let mut d = GatherDimensionNumbers::new(&[1], &[], &[1], 1);
    d.operand_batching_dims = vec![0];
    d.start_indices_batching_dims = vec![1];
    let (msg, b) = gerr("f32[3,5]", "s32[3,1]", &d, &[1, 1]);
    assert!(
        msg.contains("start_indices_batching_dims [1] contains index_vector_dim = 1"),
        "{msg}"
    );
    assert_eq!(b, Blame::Attribute("start_indices_batching_dims"));
}

/// The error of `scatter`: message and blame.
fn serr(
    x: &[&str],
    i: &str,
    u: &[&str],
    dn: &ScatterDimensionNumbers,
    f: &Computation,
) -> (String, Blame) {
    let xs: Vec<Shape> = x.iter().map(|t| s(t)).collect();
    let us: Vec<Shape> = u.iter().map(|t| s(t)).collect();
    let e = scatter(
        &xs.iter().collect::<Vec<_>>(),
        &s(i),
        &us.iter().collect::<Vec<_>>(),
        dn,
        f,
    )
    .unwrap_err();
    (e.to_string(), e.blame)
}

#[test]
fn scatter_shapes() {
    let rows = ScatterDimensionNumbers::new(&[1], &[0], &[0], 1);
    let f = add(&[F32]);
    assert_eq!(
        scatter(
            &[&s("f32[6,4]")],
            &s("s32[8]"),
            &[&s("f32[8,4]")],
            &rows,
            &f
        )
        .unwrap(),
        s("f32[6,4]")
    );
    // StableHLO's example: S32[2,3,4,2] operand, S64[2,2,3,2] indices, batching pair (0, 1).
    let spec = ScatterDimensionNumbers {
        update_window_dims: vec![3, 4],
        inserted_window_dims: vec![1],
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![1],
        scatter_dims_to_operand_dims: vec![2, 1],
        index_vector_dim: 3,
    };
    assert_eq!(
        scatter(
            &[&s("s32[2,3,4,2]")],
            &s("s64[2,2,3,2]"),
            &[&s("s32[2,2,3,1,2]")],
            &spec,
            &add(&[S32])
        )
        .unwrap(),
        s("s32[2,3,4,2]")
    );
    // Two operands: a tuple; the implicit trailing 1.
    let pair = add(&[F32, S32]);
    let one = ScatterDimensionNumbers::new(&[], &[0], &[0], 1);
    assert_eq!(
        scatter(
            &[&s("f32[5]"), &s("s32[5]")],
            &s("u8[7]"),
            &[&s("f32[7]"), &s("s32[7]")],
            &one,
            &pair
        )
        .unwrap(),
        s("(f32[5], s32[5])")
    );
}

#[test]
fn scatter_rules() {
    let rows = ScatterDimensionNumbers::new(&[1], &[0], &[0], 1);
    let f = add(&[F32]);
    let cases: Vec<ScatterCase> = vec![
        ("f32[6,4]", "f32[8]", "f32[8,4]", rows.clone(), "scatter_indices must have an integer element type, got f32[8]", Blame::Operand(1)),
        ("f32[6,4]", "s32[8]", "s32[8,4]", rows.clone(), "updates 0 is s32[8,4] but operand 0 is f32[6,4]: the element types must match", Blame::Operand(2)),
        ("f32[6,4]", "s32[8]", "f32[8,4]", ScatterDimensionNumbers::new(&[1], &[0], &[0], 2), "index_vector_dim = 2 must be in 0..=1", Blame::Attribute("index_vector_dim")),
        ("f32[6,4]", "s32[8]", "f32[8,4,1]", rows.clone(), "the updates must have rank 2", Blame::Operand(2)),
        ("f32[6,4,2]", "s32[8]", "f32[8,4,2]", ScatterDimensionNumbers::new(&[2, 1], &[0], &[0], 1), "update_window_dims [2, 1] must be ascending", Blame::Attribute("update_window_dims")),
        ("f32[6,4]", "s32[8]", "f32[8,4]", ScatterDimensionNumbers::new(&[2], &[0], &[0], 1), "update_window_dims[0] = 2 is not a dimension of the updates (0..2)", Blame::Attribute("update_window_dims")),
        ("f32[6,4,2]", "s32[8]", "f32[8,2]", ScatterDimensionNumbers::new(&[1], &[1, 0], &[0], 1), "inserted_window_dims [1, 0] must be ascending", Blame::Attribute("inserted_window_dims")),
        ("f32[6,4]", "s32[8]", "f32[8,4]", ScatterDimensionNumbers::new(&[1], &[2], &[0], 1), "inserted_window_dims[0] = 2 is not a dimension of the operand", Blame::Attribute("inserted_window_dims")),
        ("f32[6,4]", "s32[8]", "f32[8,4]", ScatterDimensionNumbers::new(&[1], &[], &[0], 1), "every operand dimension must be a window, inserted or batching dimension", Blame::Attribute("update_window_dims")),
        ("f32[6,4]", "s32[8,2]", "f32[8,4]", rows.clone(), "scatter_dims_to_operand_dims [0] has 1 entry but the index vectors (dimension index_vector_dim = 1 of scatter_indices) have 2", Blame::Attribute("scatter_dims_to_operand_dims")),
        ("f32[6,4]", "s32[8]", "f32[8,4]", ScatterDimensionNumbers::new(&[1], &[0], &[3], 1), "scatter_dims_to_operand_dims[0] = 3 is not a dimension of the operand", Blame::Attribute("scatter_dims_to_operand_dims")),
        ("f32[6,4]", "s32[8,2]", "f32[8,4]", ScatterDimensionNumbers::new(&[1], &[0], &[0, 0], 1), "scatter_dims_to_operand_dims [0, 0] repeats dimension 0", Blame::Attribute("scatter_dims_to_operand_dims")),
        ("f32[6,4]", "s32[8]", "f32[8,5]", rows.clone(), "window dimension 1 of the updates has size 5, more than the size 4 of operand dimension 1 it updates", Blame::Operand(2)),
        ("f32[6,4]", "s32[8]", "f32[7,4]", rows.clone(), "scatter dimension 0 of the updates has size 7 but dimension 0 of scatter_indices has size 8", Blame::Operand(2)),
    ];
    for (x, i, u, dn, want, blame) in cases {
        let (msg, b) = serr(&[x], i, &[u], &dn, &f);
        assert!(msg.starts_with("Scatter: "), "{msg}");
        assert!(msg.contains(want), "{msg}\nwanted: {want}");
        assert_eq!(b, blame, "{msg}");
    }
}

#[test]
fn scatter_variadic_and_computation_rules() {
    let one = ScatterDimensionNumbers::new(&[], &[0], &[0], 1);
    let pair = add(&[F32, S32]);
    let (msg, b) = serr(
        &["f32[5]", "s32[6]"],
        "s32[7]",
        &["f32[7]", "s32[7]"],
        &one,
        &pair,
    );
    assert!(
        msg.contains(
            "all operands must have the same dimensions: operand 0 is f32[5], operand 1 is s32[6]"
        ),
        "{msg}"
    );
    assert_eq!(b, Blame::Operand(1));
    let (msg, b) = serr(
        &["f32[5]", "s32[5]"],
        "s32[7]",
        &["f32[7]", "s32[6]"],
        &one,
        &pair,
    );
    assert!(
        msg.contains("all update arrays must have the same dimensions"),
        "{msg}"
    );
    assert_eq!(b, Blame::Operand(4));
    let (msg, b) = serr(&["f32[5]", "s32[5]"], "s32[7]", &["f32[7]"], &one, &pair);
    assert_eq!(msg, "Scatter: 2 operands need 2 update arrays, got 1");
    assert_eq!(b, Blame::Op);
    // The computation: parameter count, types, result.
    let (msg, b) = serr(&["f32[5]"], "s32[7]", &["f32[7]"], &one, &pair);
    assert!(msg.contains("the update_computation `add` takes 4 parameters; it must be (f32[], f32[]) -> f32[] (current values, then updates)"), "{msg}");
    assert_eq!(b, Blame::Computation);
    let (msg, _) = serr(&["s32[5]"], "s32[7]", &["s32[7]"], &one, &add(&[F32]));
    assert!(
        msg.contains("has parameter 0 of type f32[]; it must be (s32[], s32[]) -> s32[]"),
        "{msg}"
    );
    let (msg, _) = serr(
        &["f32[5]", "f32[5]"],
        "s32[7]",
        &["f32[7]", "f32[7]"],
        &one,
        &{
            let mut b = Builder::new("first");
            let ps: Vec<_> = (0..4)
                .map(|i| b.parameter(i, Shape::scalar(F32), "p").unwrap())
                .collect();
            b.build(ps[0]).unwrap()
        },
    );
    assert!(
        msg.contains("returns f32[]; it must be (f32[], f32[], f32[], f32[]) -> (f32[], f32[])"),
        "{msg}"
    );
    assert!(scatter(&[], &s("s32[1]"), &[], &one, &pair).is_err());
}

#[test]
fn scatter_batching_rules() {
    let f = add(&[F32]);
    let batch = |ib: &[i64], sb: &[i64], inserted: &[i64], map: &[i64]| {
        let mut d = ScatterDimensionNumbers::new(&[], inserted, map, 2);
        d.input_batching_dims = ib.to_vec();
        d.scatter_indices_batching_dims = sb.to_vec();
        d
    };
    let cases: Vec<(&str, ScatterDimensionNumbers, &str, &'static str)> = vec![
        ("f32[3,5]", batch(&[1], &[0], &[1], &[1]), "inserted_window_dims [1] and input_batching_dims [1] both name operand dimension 1", "input_batching_dims"),
        ("f32[3,5]", batch(&[0], &[0], &[1], &[0]), "scatter_dims_to_operand_dims [0] and input_batching_dims [0] both name operand dimension 0", "input_batching_dims"),
        ("f32[3,5]", batch(&[0], &[2], &[1], &[1]), "scatter_indices_batching_dims[0] = 2 is not a dimension of the indices", "scatter_indices_batching_dims"),
        ("f32[4,5]", batch(&[0], &[0], &[1], &[1]), "operand batching dimension 0 (size 4) and indices batching dimension 0 (size 3)", "scatter_indices_batching_dims"),
    ];
    for (x, dn, want, attr) in cases {
        let (msg, b) = serr(&[x], "s32[3,4]", &["f32[3,4]"], &dn, &f);
        assert!(msg.contains(want), "{msg}\nwanted: {want}");
        assert_eq!(b, Blame::Attribute(attr), "{msg}");
    }
    assert_eq!(
        scatter(
            &[&s("f32[3,5]")],
            &s("s32[3,4]"),
            &[&s("f32[3,4]")],
            &batch(&[0], &[0], &[1], &[1]),
            &f
        )
        .unwrap(),
        s("f32[3,5]")
    );
}
