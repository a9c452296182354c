//! The padder against hand-computed values: the seed's SetDimensionSize example, masks that
//! keep NaN padding out of reductions and dots, the ops that move the valid region (values
//! XLA:CPU gives, see tests/oracle_dynamic_dims.rs for the oracle runs), and the refusals.

use std::sync::Arc;

use super::*;
use crate::eval::evaluate;
use crate::ir::{BinaryOp, DotDimensionNumbers, Instruction, PadDim};

fn f32s(dims: &[i64], v: Vec<f32>) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}

fn dyn_f32(dims: &[i64], dynamic: &[bool]) -> Shape {
    let mut a = ArrayShape::new(ElementType::F32, dims);
    a.dynamic = dynamic.to_vec();
    Shape::Array(a)
}

fn s32() -> Shape {
    Shape::scalar(ElementType::S32)
}

fn reducer(op: BinaryOp) -> Arc<Computation> {
    let mut b = Builder::new("r");
    let x = b
        .parameter(0, Shape::scalar(ElementType::F32), "x")
        .unwrap();
    let y = b
        .parameter(1, Shape::scalar(ElementType::F32), "y")
        .unwrap();
    let r = b.binary(op, x, y, None).unwrap();
    Arc::new(b.build(r).unwrap())
}

/// `f(v: f32[10], n: s32[])`: `reduce(set_dimension_size(v, n, 0))` by `op` from `init`.
fn reduce_prefix(op: BinaryOp, init: f32) -> Computation {
    let mut b = Builder::new("f");
    let v = b
        .parameter(0, Shape::array(ElementType::F32, &[10]), "v")
        .unwrap();
    let n = b.parameter(1, s32(), "n").unwrap();
    let d = b.set_dimension_size(v, n, 0).unwrap();
    let z = b.constant(Literal::scalar(init));
    let r = b.reduce(&[d], &[z], &reducer(op), &[0]).unwrap();
    b.build(r).unwrap()
}

#[test]
fn the_seeds_set_dimension_size_example() {
    let v = f32s(&[10], (1..=10).map(|x| x as f32).collect());
    let sum = reduce_prefix(BinaryOp::Add, 0.0);
    let prod = reduce_prefix(BinaryOp::Mul, 1.0);
    let five = Literal::scalar(5i32);
    let six = Literal::scalar(6i32);
    assert_eq!(
        evaluate(&sum, &[v.clone(), five.clone()]).unwrap(),
        Literal::scalar(15f32)
    );
    assert_eq!(
        evaluate(&prod, &[v.clone(), five]).unwrap(),
        Literal::scalar(120f32)
    );
    assert_eq!(
        evaluate(&sum, &[v.clone(), six]).unwrap(),
        Literal::scalar(21f32)
    );
    // Sizes beyond the bound or negative are clamped into [0, 10].
    assert_eq!(
        evaluate(&sum, &[v.clone(), Literal::scalar(99i32)]).unwrap(),
        Literal::scalar(55f32)
    );
    assert_eq!(
        evaluate(&sum, &[v, Literal::scalar(-4i32)]).unwrap(),
        Literal::scalar(0f32)
    );
}

#[test]
fn padding_never_reaches_a_reduction_or_a_contraction() {
    // NaN in the padding of a static input made dynamic.
    let v = f32s(&[4], vec![1.0, 2.0, f32::NAN, f32::INFINITY]);
    let sum = {
        let mut b = Builder::new("f");
        let v = b
            .parameter(0, Shape::array(ElementType::F32, &[4]), "v")
            .unwrap();
        let n = b.parameter(1, s32(), "n").unwrap();
        let d = b.set_dimension_size(v, n, 0).unwrap();
        let z = b.constant(Literal::scalar(0f32));
        let r = b.reduce(&[d], &[z], &reducer(BinaryOp::Add), &[0]).unwrap();
        // A dot of the dynamic vector with itself contracts the dynamic dimension.
        let dn = DotDimensionNumbers {
            lhs_contracting_dimensions: vec![0],
            rhs_contracting_dimensions: vec![0],
            lhs_batch_dimensions: vec![],
            rhs_batch_dimensions: vec![],
        };
        let dot = b.dot_general(d, d, &dn, None).unwrap();
        let t = b.tuple(&[r, dot]).unwrap();
        b.build(t).unwrap()
    };
    let out = evaluate(&sum, &[v, Literal::scalar(2i32)]).unwrap();
    assert_eq!(
        out,
        Literal::Tuple(vec![Literal::scalar(3f32), Literal::scalar(5f32)])
    );
}

/// A dynamic parameter `x: f32[<=8]` through `f`, on the valid elements `x`.
fn run1(f: impl FnOnce(&mut Builder, XlaOp) -> XlaOp, x: Vec<f32>) -> Literal {
    let mut b = Builder::new("f");
    let p = b.parameter(0, dyn_f32(&[8], &[true]), "x").unwrap();
    let r = f(&mut b, p);
    let c = b.build(r).unwrap();
    let n = x.len() as i64;
    let mut arg = f32s(&[n], x);
    if let Literal::Array { shape, .. } = &mut arg {
        shape.dynamic = vec![true];
    }
    evaluate(&c, &[arg]).unwrap()
}

fn values(l: &Literal) -> (String, Vec<f32>) {
    (l.shape().to_string(), l.as_slice::<f32>().unwrap().to_vec())
}

#[test]
fn movement_ops_put_the_valid_region_where_xla_does() {
    let x = vec![1.0, 2.0, 3.0];
    // Slice [1:5] of 3 valid elements keeps 2 (XLA:CPU: [2, 3], size 2).
    let r = run1(|b, p| b.slice(p, &[1], &[5], None).unwrap(), x.clone());
    assert_eq!(values(&r), ("f32[<=2]".into(), vec![2.0, 3.0]));
    let r = run1(
        |b, p| b.slice(p, &[0], &[8], Some(&[2])).unwrap(),
        x.clone(),
    );
    assert_eq!(values(&r), ("f32[<=2]".into(), vec![1.0, 3.0]));
    // Rev of the valid region.
    let r = run1(|b, p| b.rev(p, &[0]).unwrap(), x.clone());
    assert_eq!(values(&r), ("f32[<=3]".into(), vec![3.0, 2.0, 1.0]));
    // Pad low 1, high 2, interior 1 with 9 (XLA:CPU: [9,1,9,2,9,3,9,9]).
    let r = run1(
        |b, p| {
            let nine = b.constant(Literal::scalar(9f32));
            let cfg = [PadDim {
                low: 1,
                high: 2,
                interior: 1,
            }];
            b.pad(p, nine, &cfg).unwrap()
        },
        x.clone(),
    );
    assert_eq!(
        values(&r),
        (
            "f32[<=8]".into(),
            vec![9.0, 1.0, 9.0, 2.0, 9.0, 3.0, 9.0, 9.0]
        )
    );
    // Concatenation of the valid parts: [x, -x[..2]].
    let r = run1(
        |b, p| {
            let neg = b.unary(crate::ir::UnaryOp::Neg, p).unwrap();
            let two = b.constant(Literal::scalar(2i32));
            let short = b.set_dimension_size(neg, two, 0).unwrap();
            b.concat_in_dim(&[p, short], 0).unwrap()
        },
        x.clone(),
    );
    assert_eq!(
        values(&r),
        ("f32[<=5]".into(), vec![1.0, 2.0, 3.0, -1.0, -2.0])
    );
    // GetDimensionSize.
    let r = run1(|b, p| b.get_dimension_size(p, 0).unwrap(), x);
    assert_eq!(r, Literal::scalar(3i32));
}

#[test]
fn dynamic_reshape_lays_the_valid_elements_out_row_major() {
    // f32[<=8] with 6 valid elements -> f32[<=4, 2] of runtime sizes [3, 2].
    let r = run1(
        |b, p| {
            let three = b.constant(Literal::scalar(3i32));
            let two = b.constant(Literal::scalar(2i32));
            b.dynamic_reshape(p, &[three, two], &[4, 2], &[true, false])
                .unwrap()
        },
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    );
    assert_eq!(
        values(&r),
        ("f32[<=3,2]".into(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // And back: f32[<=4,3] of sizes [2,3] to one dynamic dimension of 6.
    let mut b = Builder::new("f");
    let p = b
        .parameter(0, dyn_f32(&[4, 3], &[true, false]), "x")
        .unwrap();
    let six = b.constant(Literal::scalar(6i32));
    let r = b.dynamic_reshape(p, &[six], &[12], &[true]).unwrap();
    let c = b.build(r).unwrap();
    let mut arg = f32s(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    if let Literal::Array { shape, .. } = &mut arg {
        shape.dynamic = vec![true, false];
    }
    let r = evaluate(&c, &[arg]).unwrap();
    assert_eq!(
        values(&r),
        ("f32[<=6]".into(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
}

/// The ops of dynamic dimensions on static shapes (as StableHLO's interpreter suite writes
/// them): GetDimensionSize is the bound, DynamicReshape to static sizes a plain reshape. The
/// padder rewrites them too; left in place, evaluation would pad the padded program forever.
#[test]
fn dimension_ops_on_static_shapes_evaluate() {
    let mut b = Builder::new("f");
    let p = b
        .parameter(0, Shape::array(ElementType::F32, &[2, 3]), "x")
        .unwrap();
    let n = b.get_dimension_size(p, 1).unwrap();
    let six = b.constant(Literal::scalar(6i32));
    let r = b.dynamic_reshape(p, &[six], &[6], &[false]).unwrap();
    let t = b.tuple(&[r, n]).unwrap();
    let c = b.build(t).unwrap();
    assert!(needs_padding(&c) && !is_dynamic(&c));
    let x = f32s(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out = evaluate(&c, &[x]).unwrap();
    let Literal::Tuple(parts) = out else {
        panic!("a tuple")
    };
    assert_eq!(
        values(&parts[0]),
        ("f32[6]".into(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    assert_eq!(parts[1], Literal::scalar(3i32));
    assert!(!needs_padding(&pad(&c).unwrap().computation));
}

#[test]
fn a_batch_of_rows_keeps_its_size_through_a_dense_layer() {
    // x: f32[<=4, 3] (2 rows) . w: f32[3, 2] + bias, then the mean over the batch.
    let mut b = Builder::new("f");
    let x = b
        .parameter(0, dyn_f32(&[4, 3], &[true, false]), "x")
        .unwrap();
    let w = b
        .parameter(1, Shape::array(ElementType::F32, &[3, 2]), "w")
        .unwrap();
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![1],
        rhs_contracting_dimensions: vec![0],
        lhs_batch_dimensions: vec![],
        rhs_batch_dimensions: vec![],
    };
    let y = b.dot_general(x, w, &dn, None).unwrap();
    let z = b.constant(Literal::scalar(0f32));
    let s = b.reduce(&[y], &[z], &reducer(BinaryOp::Add), &[0]).unwrap();
    let n = b.get_dimension_size(y, 0).unwrap();
    let n = b.convert(n, ElementType::F32).unwrap();
    let mean = b.binary(BinaryOp::Div, s, n, Some(&[])).unwrap();
    let t = b.tuple(&[y, mean]).unwrap();
    let c = b.build(t).unwrap();
    assert_eq!(c.result_shape().to_string(), "(f32[<=4,2], f32[2])");
    let p = pad(&c).unwrap();
    assert_eq!(
        p.param_sizes,
        vec![SizeSlot {
            param: 0,
            path: vec![],
            dim: 0
        }]
    );
    assert_eq!(
        p.result_sizes,
        vec![SizeSlot {
            param: 0,
            path: vec![0],
            dim: 0
        }]
    );
    assert!(!is_dynamic(&p.computation));
    let mut xa = f32s(&[2, 3], vec![1.0, 0.0, 2.0, 0.0, 1.0, 1.0]);
    if let Literal::Array { shape, .. } = &mut xa {
        shape.dynamic = vec![true, false];
    }
    let wa = f32s(&[3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out = evaluate(&c, &[xa, wa]).unwrap();
    let Literal::Tuple(parts) = out else {
        panic!("a tuple")
    };
    assert_eq!(
        values(&parts[0]),
        ("f32[<=2,2]".into(), vec![11.0, 14.0, 8.0, 10.0])
    );
    assert_eq!(values(&parts[1]), ("f32[2]".into(), vec![9.5, 12.0]));
}

#[test]
fn ops_without_a_rule_refuse_dynamic_operands() {
    let mut b = Builder::new("f");
    let x = b.parameter(0, dyn_f32(&[8], &[true]), "x").unwrap();
    let e = b.rev(x, &[0]);
    assert!(e.is_ok());
    let s = b.iota(Shape::array(ElementType::F32, &[8]), 0).unwrap();
    let ins = Instruction {
        op: Op::Sort {
            dimension: 0,
            is_stable: false,
            comparator: reducer(BinaryOp::Add),
        },
        operands: vec![x.0],
        shape: dyn_f32(&[8], &[true]),
    };
    let xs = dyn_f32(&[8], &[true]);
    let e = check_supported("Sort", &ins, &[&xs]).unwrap_err();
    assert!(e
        .message
        .contains("does not take dynamic dimensions yet: operand 0 is f32[<=8]"));
    assert_eq!(e.blame, crate::error::Blame::Operand(0));
    let _ = s;
}

#[test]
fn literals_pad_and_compact_back() {
    let declared = dyn_f32(&[3, 2], &[true, false]);
    let mut compact_lit = f32s(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]);
    if let Literal::Array { shape, .. } = &mut compact_lit {
        shape.dynamic = vec![true, false];
    }
    let mut sizes = Vec::new();
    let padded = pad_to_bounds(&compact_lit, &declared, &mut sizes).unwrap();
    assert_eq!(sizes, vec![2]);
    assert_eq!(
        values(&padded),
        ("f32[3,2]".into(), vec![1.0, 2.0, 3.0, 4.0, 0.0, 0.0])
    );
    let back = compact(&padded, &declared, &mut [2i64].into_iter()).unwrap();
    assert_eq!(back, compact_lit);
    // Beyond the bound: Err naming both shapes.
    let big = f32s(&[4, 2], vec![0.0; 8]);
    let e = pad_to_bounds(&big, &declared, &mut Vec::new()).unwrap_err();
    assert!(e.message.contains("f32[<=3,2]"), "{}", e.message);
}
