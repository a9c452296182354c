//! Builder tests: the lowering to canonical IR (explicit broadcasts, Dot -> DotGeneral, Collapse
//! -> Reshape, ...) and the checks that only the builder can make (parameters, computations).

use std::sync::Arc;

use super::*;
use crate::element::ElementType::*;
use crate::shape::parse_shape;

fn s(text: &str) -> Shape {
    parse_shape(text).unwrap()
}

/// Every elementwise instruction must have operands of its own dimensions (the IR's invariant),
/// and every operand must come before its user.
fn assert_canonical(c: &Computation) {
    for (i, ins) in c.instrs.iter().enumerate() {
        assert!(
            ins.operands.iter().all(|o| (o.0 as usize) < i),
            "operand after user at {i}"
        );
        let dims_of = |id: &InstrId| c.instr(*id).shape.as_array().map(|a| a.dims.clone());
        let own = ins.shape.as_array().map(|a| a.dims.clone());
        let elementwise = ins.op.is_elementwise() && ins.shape.is_array();
        if elementwise {
            for o in &ins.operands {
                assert_eq!(dims_of(o), own, "instruction {i} {:?}", ins.op);
            }
        }
    }
}

/// `|a, b| op(a, b)` over scalars of `ty`.
fn scalar_fn(name: &str, ty: ElementType, op: BinaryOp) -> Arc<Computation> {
    let mut b = Builder::new(name);
    let x = b.parameter(0, Shape::scalar(ty), "a").unwrap();
    let y = b.parameter(1, Shape::scalar(ty), "b").unwrap();
    let r = b.binary(op, x, y, None).unwrap();
    Arc::new(b.build(r).unwrap())
}

#[test]
fn issue_example_add_rows() {
    let mut b = Builder::new("add_rows");
    let x = b.parameter(0, s("f32[2,3]"), "x").unwrap();
    let v = b.parameter(1, s("f32[3]"), "v").unwrap();
    let r = b.binary(BinaryOp::Add, x, v, Some(&[1])).unwrap();
    let c = b.build(r).unwrap();
    assert_canonical(&c);
    assert_eq!(c.result_shape().to_string(), "f32[2,3]");
    // The vector became an explicit BroadcastInDim to f32[2,3] along dimension 1.
    let bc = c.instr(c.instr(c.root).operands[1]);
    assert!(
        matches!(&bc.op, Op::BroadcastInDim { broadcast_dimensions } if broadcast_dimensions == &vec![1])
    );
    assert_eq!(bc.shape.to_string(), "f32[2,3]");
    assert_eq!(c.params, vec![s("f32[2,3]"), s("f32[3]")]);
}

#[test]
fn issue_example_dense_relu() {
    let mut b = Builder::new("dense_relu");
    let x = b.parameter(0, s("f32[8,784]"), "x").unwrap();
    let w = b.parameter(1, s("f32[784,128]"), "w").unwrap();
    let bias = b.parameter(2, s("f32[128]"), "b").unwrap();
    let h = b.dot(x, w, None).unwrap();
    assert!(matches!(
        b.instructions()[h.0 .0 as usize].op,
        Op::DotGeneral { .. }
    ));
    let h = b.binary(BinaryOp::Add, h, bias, Some(&[1])).unwrap();
    let zero = b.constant(Literal::scalar(0.0f32));
    let r = b.binary(BinaryOp::Max, h, zero, None).unwrap();
    let c = b.build(r).unwrap();
    assert_canonical(&c);
    assert_eq!(c.result_shape().to_string(), "f32[8,128]");
}

#[test]
fn issue_example_row_softmax() {
    let mut b = Builder::new("row_softmax");
    let x = b.parameter(0, s("f32[32,1000]"), "x").unwrap();
    let ninf = b.constant(Literal::scalar(f32::NEG_INFINITY));
    let m = b
        .reduce(&[x], &[ninf], &scalar_fn("max", F32, BinaryOp::Max), &[1])
        .unwrap();
    assert_eq!(b.shape(m).to_string(), "f32[32]");
    let d = b.binary(BinaryOp::Sub, x, m, Some(&[0])).unwrap();
    let e = b.unary(UnaryOp::Exp, d).unwrap();
    let zero = b.constant(Literal::scalar(0.0f32));
    let sum = b
        .reduce(&[e], &[zero], &scalar_fn("add", F32, BinaryOp::Add), &[1])
        .unwrap();
    let r = b.binary(BinaryOp::Div, e, sum, Some(&[0])).unwrap();
    let c = b.build(r).unwrap();
    assert_canonical(&c);
    assert_eq!(c.result_shape().to_string(), "f32[32,1000]");
}

#[test]
fn degenerate_and_scalar_broadcasts_are_explicit() {
    let mut b = Builder::new("outer");
    let x = b.parameter(0, s("s32[2,1]"), "x").unwrap();
    let y = b.parameter(1, s("s32[1,3]"), "y").unwrap();
    let r = b
        .compare(ComparisonDirection::Lt, false, x, y, None)
        .unwrap();
    let one = b.constant(Literal::scalar(1i32));
    let p = b.parameter(2, s("s32[2,3]"), "p").unwrap();
    let q = b.binary(BinaryOp::Add, one, p, None).unwrap();
    let t = b.tuple(&[r, q]).unwrap();
    let c = b.build(t).unwrap();
    assert_canonical(&c);
    assert_eq!(c.result_shape().to_string(), "(pred[2,3], s32[2,3])");
    let n_bcast = c
        .instrs
        .iter()
        .filter(|i| matches!(i.op, Op::BroadcastInDim { .. }))
        .count();
    assert_eq!(n_bcast, 3);
}

#[test]
fn errors_leave_the_builder_usable() {
    let mut b = Builder::new("f");
    let x = b.parameter(0, s("f32[2,3]"), "x").unwrap();
    let v = b.parameter(1, s("f32[3]"), "v").unwrap();
    let before = b.len();
    let e = b.binary(BinaryOp::Add, x, v, None).unwrap_err();
    assert_eq!(e.help.as_deref(), Some("broadcast_dimensions = [1]"));
    assert_eq!(b.len(), before);
    assert!(b.binary(BinaryOp::Add, x, v, Some(&[1])).is_ok());
}

#[test]
fn parameters() {
    let mut b = Builder::new("f");
    b.parameter(0, s("f32[2]{0}"), "a").unwrap();
    assert!(b
        .parameter(0, s("f32[2]"), "b")
        .unwrap_err()
        .message
        .contains("already taken"));
    let z = b.parameter(2, s("f32[]"), "z").unwrap();
    let e = b.build(z).unwrap_err();
    assert!(e.message.contains("parameter 1 is missing"), "{e}");
    let mut b = Builder::new("g");
    assert!(b.parameter(0, Shape::array(F32, &[-3]), "a").is_err());
    let mut b = Builder::new("h");
    let p = b.parameter(0, s("(f32[2], token[])"), "t").unwrap();
    assert_eq!(b.build(p).unwrap().params, vec![s("(f32[2], token[])")]);
}

#[test]
fn foreign_handles_are_errors_not_panics() {
    let mut b = Builder::new("f");
    let x = b.parameter(0, s("f32[2]"), "x").unwrap();
    let ghost = XlaOp(InstrId(99));
    assert!(b.unary(UnaryOp::Neg, ghost).is_err());
    assert!(b.binary(BinaryOp::Add, x, ghost, None).is_err());
    assert!(b.tuple(&[x, ghost]).is_err());
    assert_eq!(b.element_type(ghost), None);
    assert!(b.build(ghost).is_err());
}

#[test]
fn shape_sugar_lowers_to_canonical_ops() {
    let mut b = Builder::new("f");
    let x = b.parameter(0, s("f32[4,2,3]"), "x").unwrap();
    let c = b.collapse(x, &[1, 2]).unwrap();
    assert!(matches!(b.instructions()[c.0 .0 as usize].op, Op::Reshape));
    assert_eq!(b.shape(c).to_string(), "f32[4,6]");
    assert_eq!(b.collapse(x, &[1]).unwrap(), x);
    let bc = b.broadcast(c, &[5]).unwrap();
    assert!(
        matches!(&b.instructions()[bc.0 .0 as usize].op, Op::BroadcastInDim { broadcast_dimensions } if broadcast_dimensions == &vec![1, 2])
    );
    assert_eq!(b.shape(bc).to_string(), "f32[5,4,6]");
    let n = b.len();
    let r = b.reshape(x, Some(&[2, 0, 1]), &[3, 8]).unwrap();
    assert_eq!(b.len(), n + 2);
    assert!(
        matches!(&b.instructions()[n].op, Op::Transpose { permutation } if permutation == &vec![2, 0, 1])
    );
    assert_eq!(b.instructions()[n].shape.to_string(), "f32[3,4,2]");
    assert_eq!(b.shape(r).to_string(), "f32[3,8]");
    let n = b.len();
    b.reshape(x, Some(&[0, 1, 2]), &[24]).unwrap();
    assert_eq!(b.len(), n + 1, "identity dimensions add no transpose");
    assert!(b
        .reshape(x, Some(&[0, 1]), &[24])
        .unwrap_err()
        .to_string()
        .starts_with("Reshape: dimensions [0, 1]"));
    assert!(b.reshape(x, None, &[25]).is_err());
    let t = b.transpose(x, &[1, 0, 2]).unwrap();
    assert_eq!(b.shape(t).to_string(), "f32[2,4,3]");
    let i = b.iota(s("s32[4,8]"), 0).unwrap();
    assert!(matches!(
        b.instructions()[i.0 .0 as usize].op,
        Op::Iota { dimension: 0 }
    ));
    let bid = b.broadcast_in_dim(i, &[2, 4, 8], &[1, 2]).unwrap();
    assert_eq!(b.shape(bid).to_string(), "s32[2,4,8]");
    let cv = b.convert(i, F32).unwrap();
    let bits = b.bitcast_convert(cv, U8).unwrap();
    assert_eq!(b.shape(bits).to_string(), "u8[4,8,4]");
    let rp = b.reduce_precision(cv, 5, 10).unwrap();
    assert!(matches!(
        b.instructions()[rp.0 .0 as usize].op,
        Op::ReducePrecision {
            exponent_bits: 5,
            mantissa_bits: 10
        }
    ));
    let root = b.tuple(&[r, t, bid, bits, rp]).unwrap();
    assert_canonical(&b.build(root).unwrap());
}

#[test]
fn select_and_clamp_broadcast_scalars() {
    let mut b = Builder::new("f");
    let p = b.parameter(0, s("pred[]"), "p").unwrap();
    let x = b.parameter(1, s("s32[3]"), "x").unwrap();
    let y = b.parameter(2, s("s32[3]"), "y").unwrap();
    let sel = b.select(p, x, y).unwrap();
    let lo = b.constant(Literal::scalar(0i32));
    let hi = b.constant(Literal::scalar(6i32));
    let cl = b.clamp(lo, sel, hi).unwrap();
    let tx = b.tuple(&[x, y]).unwrap();
    let ty = b.tuple(&[y, x]).unwrap();
    let tsel = b.select(p, tx, ty).unwrap();
    assert_eq!(b.shape(tsel).to_string(), "(s32[3], s32[3])");
    let g = b.get_tuple_element(tsel, 1).unwrap();
    assert_eq!(b.shape(g).to_string(), "s32[3]");
    assert!(b.get_tuple_element(tsel, 2).is_err());
    assert!(b.get_tuple_element(x, 0).is_err());
    let root = b.tuple(&[cl, g]).unwrap();
    let c = b.build(root).unwrap();
    assert_canonical(&c);
    // pred, lo and hi were broadcast: 3 BroadcastInDim of s32/pred [3].
    let n = c
        .instrs
        .iter()
        .filter(|i| matches!(i.op, Op::BroadcastInDim { .. }))
        .count();
    assert_eq!(n, 3);
}

#[test]
fn variadic_reduce_argmax() {
    // f(max, argmax, value, index) -> (max', argmax')
    let mut r = Builder::new("argmax");
    let m = r.parameter(0, s("f32[]"), "m").unwrap();
    let k = r.parameter(1, s("s32[]"), "k").unwrap();
    let v = r.parameter(2, s("f32[]"), "v").unwrap();
    let i = r.parameter(3, s("s32[]"), "i").unwrap();
    let ge = r
        .compare(ComparisonDirection::Ge, false, v, m, None)
        .unwrap();
    let nm = r.select(ge, v, m).unwrap();
    let nk = r.select(ge, i, k).unwrap();
    let t = r.tuple(&[nm, nk]).unwrap();
    let argmax = Arc::new(r.build(t).unwrap());

    let mut b = Builder::new("f");
    let x = b.parameter(0, s("f32[5,7]"), "x").unwrap();
    let idx = b.iota(s("s32[5,7]"), 1).unwrap();
    let ninf = b.constant(Literal::scalar(f32::NEG_INFINITY));
    let zero = b.constant(Literal::scalar(0i32));
    let red = b.reduce(&[x, idx], &[ninf, zero], &argmax, &[1]).unwrap();
    assert_eq!(b.shape(red).to_string(), "(f32[5], s32[5])");
    assert_eq!(b.instructions()[red.0 .0 as usize].operands.len(), 4);

    // Wrong init type, wrong arity, wrong dims.
    let e = b
        .reduce(&[x, idx], &[zero, zero], &argmax, &[1])
        .unwrap_err();
    assert_eq!(e.blame, Blame::Operand(2));
    let e = b.reduce(&[x], &[ninf], &argmax, &[1]).unwrap_err();
    assert_eq!(e.blame, Blame::Computation);
    assert!(
        e.message
            .contains("must take 2 parameters, (f32[], f32[]) -> f32[]"),
        "{e}"
    );
    assert!(b
        .reduce(&[x, idx], &[ninf, zero], &argmax, &[1, 1])
        .unwrap_err()
        .message
        .contains("repeats"));
    assert!(b
        .reduce(&[x, idx], &[ninf, zero], &argmax, &[2])
        .unwrap_err()
        .message
        .contains("out of range"));
    let add_s32 = scalar_fn("add", S32, BinaryOp::Add);
    let e = b.reduce(&[x], &[ninf], &add_s32, &[0]).unwrap_err();
    assert!(
        e.message
            .contains("parameter 0 of the computation must be f32[]"),
        "{e}"
    );
    let all = b
        .reduce(
            &[x],
            &[ninf],
            &scalar_fn("max", F32, BinaryOp::Max),
            &[1, 0],
        )
        .unwrap();
    assert_eq!(b.shape(all).to_string(), "f32[]");
}

#[test]
fn calls() {
    let add = scalar_fn("add", F32, BinaryOp::Add);
    let mut b = Builder::new("f");
    let x = b.parameter(0, s("f32[]"), "x").unwrap();
    let y = b.call(&add, &[x, x]).unwrap();
    assert_eq!(b.shape(y), &s("f32[]"));
    assert_eq!(b.call(&add, &[x]).unwrap_err().blame, Blame::Computation);
    let z = b.parameter(1, s("f32[2]"), "z").unwrap();
    assert_eq!(b.call(&add, &[x, z]).unwrap_err().blame, Blame::Operand(1));
    let c = b.build(y).unwrap();
    assert!(matches!(c.instr(c.root).op, Op::Call { .. }));
}

#[test]
fn dot_general_and_errors() {
    let mut b = Builder::new("f");
    let l = b.parameter(0, s("f32[2,3,4]"), "l").unwrap();
    let r = b.parameter(1, s("f32[2,4,5]"), "r").unwrap();
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![2],
        rhs_contracting_dimensions: vec![1],
        lhs_batch_dimensions: vec![0],
        rhs_batch_dimensions: vec![0],
    };
    let d = b.dot_general(l, r, &dn, None).unwrap();
    assert_eq!(b.shape(d).to_string(), "f32[2,3,5]");
    assert!(b.dot(l, r, None).is_err());
}

#[test]
fn constants_are_checked_by_try_constant() {
    let mut b = Builder::new("f");
    let ok = b
        .try_constant(Literal::from_vec(&[2], vec![1i8, 2]).unwrap())
        .unwrap();
    assert_eq!(b.shape(ok).to_string(), "s8[2]");
    let bad = Literal::Array {
        shape: ArrayShape::new(F32, &[3]),
        data: crate::literal::ArrayData::F32(vec![1.0]),
    };
    assert!(b
        .try_constant(bad)
        .unwrap_err()
        .message
        .contains("1 f32 elements given for shape f32[3]"));
    let wrong_type = Literal::Array {
        shape: ArrayShape::new(F32, &[1]),
        data: crate::literal::ArrayData::S32(vec![1]),
    };
    assert!(b.try_constant(Literal::Tuple(vec![wrong_type])).is_err());
}

#[test]
fn dynamic_dimensions_propagate() {
    let mut b = Builder::new("f");
    let x = b.parameter(0, s("f32[<=8,3]"), "x").unwrap();
    let v = b.parameter(1, s("f32[3]"), "v").unwrap();
    let y = b.binary(BinaryOp::Add, x, v, Some(&[1])).unwrap();
    assert_eq!(b.shape(y).to_string(), "f32[<=8,3]");
    let one = b.parameter(2, s("f32[1,3]"), "one").unwrap();
    let z = b.binary(BinaryOp::Mul, y, one, None).unwrap();
    assert_eq!(b.shape(z).to_string(), "f32[<=8,3]");
    let w = b.parameter(3, s("f32[8,3]"), "w").unwrap();
    let u = b.binary(BinaryOp::Add, x, w, None).unwrap();
    assert_eq!(b.shape(u).to_string(), "f32[<=8,3]");
    assert!(b.reshape(x, None, &[24]).is_err());
}
