//! DynamicSlice as a view with an origin read at run time, DynamicUpdateSlice in place.

use super::*;
use crate::expand::plan::Storage;

fn params(b: &mut Builder, shapes: &[(ElementType, &[i64])]) -> Vec<XlaOp> {
    shapes
        .iter()
        .enumerate()
        .map(|(i, (t, d))| b.parameter(i, Shape::array(*t, d), "p").unwrap())
        .collect()
}

/// `Add(DynamicSlice(x, i, j), y)`: one loop reading the box of `x` through a `Src::Dyn`
/// whose strides are `x`'s, nothing stored, the origin bound once in the kernel.
#[test]
fn a_box_fuses_into_its_elementwise_consumer() {
    let mut b = Builder::new("slice_add");
    let p = params(
        &mut b,
        &[(F32, &[64, 40]), (F32, &[16, 32]), (S32, &[]), (S32, &[])],
    );
    let s = b.dynamic_slice(p[0], &p[2..], &[16, 32]).unwrap();
    let r = b.binary(BinaryOp::Add, s, p[1], None).unwrap();
    let f = fn_def("slice_add", b.build(r).unwrap());
    let fu = fused(&f);
    assert_eq!(fu.kernels.len(), 1, "one loop nest");
    assert!(plan::plan(&fu).buffers.is_empty(), "nothing materialised");
    let boxes: Vec<_> = fu.kernels[0]
        .exprs
        .iter()
        .filter_map(|e| match e {
            Expr::Leaf {
                src: Src::Dyn(d),
                coef,
                off,
                ..
            } => Some((d.strides.clone(), d.max.clone(), coef.clone(), *off)),
            _ => None,
        })
        .collect();
    assert_eq!(boxes, vec![(vec![40, 1], vec![48, 8], vec![40, 1], 0)]);
    let text = expand_text(&f);
    assert_eq!(
        text.matches("clamp").count(),
        2,
        "each start clamped once: {text}"
    );
}

/// A box whose operand is computed: the operand is stored, then read through the box.
#[test]
fn a_box_of_a_computed_value_stores_the_value() {
    let mut b = Builder::new("slice_exp");
    let p = params(&mut b, &[(F32, &[10, 12]), (S32, &[])]);
    let e = b.unary(UnaryOp::Exp, p[0]).unwrap();
    let s = b.dynamic_slice(e, &[p[1], p[1]], &[3, 4]).unwrap();
    let f = fn_def("slice_exp", b.build(s).unwrap());
    let fu = fused(&f);
    assert_eq!(fu.kernels.len(), 2, "Exp stored, then the box copied");
    expand_text(&f);
}

/// `DynamicUpdateSlice(Rev(x), u, i)`: the reversed operand is written into the output slot
/// and updated there (no copy); into a parameter it is copied first.
#[test]
fn an_update_of_a_dying_value_is_in_place() {
    let build = |reversed: bool| {
        let mut b = Builder::new("upd");
        let p = params(
            &mut b,
            &[(F32, &[5, 6]), (F32, &[2, 3]), (S32, &[]), (S32, &[])],
        );
        let x = if reversed {
            b.rev(p[0], &[1]).unwrap()
        } else {
            p[0]
        };
        let r = b.dynamic_update_slice(x, p[1], &p[2..]).unwrap();
        fn_def("upd", b.build(r).unwrap())
    };
    let f = build(true);
    let fu = fused(&f);
    let pl = plan::plan(&fu);
    let k = fu.kernels.last().unwrap();
    let operand = fu.graph.nodes[k.node].inputs[0];
    assert_eq!(pl.storage.get(&operand), Some(&Storage::Out(0)));
    assert!(!expand_text(&f).contains("par :: copy (w0"));
    assert!(expand_text(&build(false)).contains("par :: copy (w0"));
}

/// An update whose result is read again: operand and result share one scratch buffer.
#[test]
fn an_update_in_scratch_reuses_its_operand_buffer() {
    let mut b = Builder::new("upd_scratch");
    let p = params(
        &mut b,
        &[(F32, &[5, 6]), (F32, &[5, 1]), (S8, &[]), (S8, &[])],
    );
    let x = b.rev(p[0], &[1]).unwrap();
    let w = b.dynamic_update_slice(x, p[1], &p[2..]).unwrap();
    let r = b.rev(w, &[0]).unwrap();
    let f = fn_def("upd_scratch", b.build(r).unwrap());
    let fu = fused(&f);
    let pl = plan::plan(&fu);
    let k = fu
        .kernels
        .iter()
        .find(|k| matches!(fu.graph.nodes[k.node].kind, graph::Kind::DynamicUpdateSlice))
        .unwrap();
    let operand = fu.graph.nodes[k.node].inputs[0];
    assert!(matches!(
        pl.storage.get(&operand),
        Some(Storage::Scratch(_))
    ));
    assert_eq!(pl.storage.get(&operand), pl.storage.get(&k.outputs[0]));
    assert_eq!(pl.buffers.len(), 1);
    assert!(!expand_text(&f).contains("par :: copy (w0"));
}

/// A While body writing one row of its state per step: the state leaf lives in the body's
/// output (no parameter of its own in `run`), one buffer in the loop, no copy of the array.
#[test]
fn a_loop_writing_rows_updates_its_state_in_place() {
    let state = Shape::Tuple(vec![Shape::scalar(S32), Shape::array(F32, &[1024, 256])]);
    let mut b = Builder::new("body");
    let s = b.parameter(0, state.clone(), "s").unwrap();
    let i = b.get_tuple_element(s, 0).unwrap();
    let x = b.get_tuple_element(s, 1).unwrap();
    let one = b.constant(Literal::scalar(1i32));
    let zero = b.constant(Literal::scalar(0i32));
    let row = b.dynamic_slice(x, &[i, zero], &[1, 256]).unwrap();
    let row = b.binary(BinaryOp::Add, row, row, None).unwrap();
    let x = b.dynamic_update_slice(x, row, &[i, zero]).unwrap();
    let i = b.binary(BinaryOp::Add, i, one, None).unwrap();
    let r = b.tuple(&[i, x]).unwrap();
    let body = Arc::new(b.build(r).unwrap());
    let mut b = Builder::new("cond");
    let s = b.parameter(0, state.clone(), "s").unwrap();
    let i = b.get_tuple_element(s, 0).unwrap();
    let n = b.constant(Literal::scalar(1024i32));
    let r = b
        .compare(xla_core::ComparisonDirection::Lt, false, i, n, None)
        .unwrap();
    let cond = Arc::new(b.build(r).unwrap());
    let mut b = Builder::new("rows");
    let x = b
        .parameter(0, Shape::array(F32, &[1024, 256]), "x")
        .unwrap();
    let zero = b.constant(Literal::scalar(0i32));
    let init = b.tuple(&[zero, x]).unwrap();
    let w = b.while_loop(&cond, &body, init).unwrap();
    let r = b.get_tuple_element(w, 1).unwrap();
    let text = expand_text(&fn_def("rows", b.build(r).unwrap()));
    assert!(
        text.contains("mem :: swap (cur0 , next0)"),
        "the counter is swapped: {text}"
    );
    assert!(!text.contains("next1"), "one buffer for the array: {text}");
    // The body updates its output in place: no copy of its operand before the update.
    let body = &text[text.find("mod k1_body").unwrap()..];
    assert!(body.contains("update_slice"), "{body}");
    assert!(
        !body.contains("par :: copy (w0"),
        "no copy of the array per step"
    );
    // Nothing forks: the body's kernels are rows, the state's copy in is 1 MiB (`par::copy`
    // forks above that), so the program stays on the caller's thread.
    let run = &text[text.find("run_program (").unwrap()..];
    assert!(run.starts_with("run_program (256 , 0 , 1048576 ,"), "{run}");
}

/// A While body returning a state leaf unchanged (as JAX's `lax.scan` carries its inputs and
/// weights): the leaf keeps one buffer and no step copies it; a leaf the body computes keeps
/// its two buffers.
#[test]
fn a_loop_carrying_a_leaf_unchanged_does_not_copy_it() {
    let state = Shape::Tuple(vec![
        Shape::scalar(S32),
        Shape::array(F32, &[512, 256]),
        Shape::array(F32, &[256]),
    ]);
    let mut b = Builder::new("body");
    let s = b.parameter(0, state.clone(), "s").unwrap();
    let i = b.get_tuple_element(s, 0).unwrap();
    let w = b.get_tuple_element(s, 1).unwrap();
    let h = b.get_tuple_element(s, 2).unwrap();
    let zero = b.constant(Literal::scalar(0i32));
    let row = b.dynamic_slice(w, &[i, zero], &[1, 256]).unwrap();
    let row = b.reshape(row, None, &[256]).unwrap();
    let h = b.binary(BinaryOp::Add, h, row, None).unwrap();
    let one = b.constant(Literal::scalar(1i32));
    let i = b.binary(BinaryOp::Add, i, one, None).unwrap();
    let r = b.tuple(&[i, w, h]).unwrap();
    let body = Arc::new(b.build(r).unwrap());
    let mut b = Builder::new("cond");
    let s = b.parameter(0, state.clone(), "s").unwrap();
    let i = b.get_tuple_element(s, 0).unwrap();
    let n = b.constant(Literal::scalar(512i32));
    let r = b
        .compare(xla_core::ComparisonDirection::Lt, false, i, n, None)
        .unwrap();
    let cond = Arc::new(b.build(r).unwrap());
    // The loop, returning only the sum or (`all`) its whole state.
    let carry = |all: bool| {
        let mut b = Builder::new("carry");
        let w = b.parameter(0, Shape::array(F32, &[512, 256]), "w").unwrap();
        let h = b.parameter(1, Shape::array(F32, &[256]), "h").unwrap();
        let zero = b.constant(Literal::scalar(0i32));
        let init = b.tuple(&[zero, w, h]).unwrap();
        let out = b.while_loop(&cond, &body, init).unwrap();
        let r = if all {
            out
        } else {
            b.get_tuple_element(out, 2).unwrap()
        };
        expand_text(&fn_def("carry", b.build(r).unwrap()))
    };
    let text = carry(false);
    assert!(
        !text.contains("cur1") && !text.contains("next1"),
        "no buffer for the weights, the loop reads its input: {text}"
    );
    // Nothing reads the loop's final weights: they are not copied out either.
    assert!(!text.contains("par :: copy (w1"), "{text}");
    assert!(text.contains("mem :: swap (cur2 , next2)"), "{text}");
    // The body writes the counter and the sum; nothing writes the weights' slot.
    let body = &text[text.find("mod k1_body").unwrap()..];
    assert!(!body.contains("mut * out1"), "{body}");
    assert!(body.contains("mut * out2"), "{body}");
    // Returned, the final weights are copied out once, from the input.
    let all = carry(true);
    assert!(all.contains("par :: copy (w1"), "{all}");
    assert!(!all.contains("cur1"), "{all}");
}
