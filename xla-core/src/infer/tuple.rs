//! Tuple, GetTupleElement, Call, OptimizationBarrier and AfterAll.

use super::compatible;
use crate::error::{Blame, Error, Result};
use crate::ir::Computation;
use crate::shape::Shape;

/// `Tuple(elements...)`: the tuple of the element shapes.
pub fn tuple(elements: &[&Shape]) -> Shape {
    Shape::Tuple(elements.iter().map(|s| (*s).clone()).collect())
}

/// `OptimizationBarrier(operands...)`: one operand keeps its shape; several (or none) give the
/// tuple of their shapes, as StableHLO's variadic results.
pub fn optimization_barrier(operands: &[&Shape]) -> Shape {
    match operands {
        [one] => (*one).clone(),
        _ => tuple(operands),
    }
}

/// `AfterAll(tokens...)`: every operand a token; the result is a token.
pub fn after_all(operands: &[&Shape]) -> Result<Shape> {
    for (i, s) in operands.iter().enumerate() {
        if !matches!(s, Shape::Token) {
            return Err(Error::new(
                "AfterAll",
                format!(
                    "operand {i} must be a token (it orders side effects), got {s}; \
                     AfterAll() with no operand makes a fresh token"
                ),
            )
            .blame(Blame::Operand(i)));
        }
    }
    Ok(Shape::Token)
}

/// `GetTupleElement(tuple, index)`: element `index` of a tuple shape.
pub fn get_tuple_element(tuple: &Shape, index: i64) -> Result<Shape> {
    let op = "GetTupleElement";
    let Shape::Tuple(elems) = tuple else {
        return Err(
            Error::new(op, format!("the operand must be a tuple, got {tuple}"))
                .blame(Blame::Operand(0)),
        );
    };
    if index < 0 || index >= elems.len() as i64 {
        return Err(Error::new(
            op,
            format!(
                "index {index} is out of range for the {}-element tuple {tuple}",
                elems.len()
            ),
        )
        .blame(Blame::Attribute("index")));
    }
    Ok(elems[index as usize].clone())
}

/// `Call(computation, operands...)`: operand shapes equal the computation's parameters (layouts
/// ignored); the result is the computation's result shape.
pub fn call(computation: &Computation, operands: &[&Shape]) -> Result<Shape> {
    let op = "Call";
    if operands.len() != computation.params.len() {
        return Err(Error::new(
            op,
            format!(
                "`{}` takes {}, got {}",
                computation.name,
                crate::error::count(computation.params.len(), "argument", "arguments"),
                operands.len()
            ),
        )
        .blame(Blame::Computation));
    }
    for (i, (a, p)) in operands.iter().zip(&computation.params).enumerate() {
        if !compatible(a, p) {
            return Err(Error::new(
                op,
                format!(
                    "argument {i} of `{}` must be {p}, got {a}",
                    computation.name
                ),
            )
            .blame(Blame::Operand(i)));
        }
    }
    Ok(computation.result_shape().clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{InstrId, Instruction, Op};
    use crate::shape::parse_shape;

    fn s(text: &str) -> Shape {
        parse_shape(text).unwrap()
    }

    #[test]
    fn tuples() {
        let t = tuple(&[&s("f32[10]"), &s("s32[]")]);
        assert_eq!(t, s("(f32[10], s32[])"));
        assert_eq!(tuple(&[]), s("()"));
        assert_eq!(get_tuple_element(&t, 1).unwrap(), s("s32[]"));
        let e = get_tuple_element(&t, 2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "GetTupleElement: index 2 is out of range for the 2-element tuple (f32[10], s32[])"
        );
        assert!(get_tuple_element(&t, -1).is_err());
        assert!(get_tuple_element(&s("f32[2]"), 0).is_err());
    }

    #[test]
    fn calls() {
        let c = Computation {
            name: "id".into(),
            params: vec![s("f32[2]{0}")],
            instrs: vec![Instruction {
                op: Op::Parameter {
                    index: 0,
                    name: "x".into(),
                },
                operands: vec![],
                shape: s("f32[2]{0}"),
            }],
            root: InstrId(0),
        };
        // Layouts are ignored when matching arguments.
        assert_eq!(call(&c, &[&s("f32[2]")]).unwrap(), s("f32[2]{0}"));
        assert_eq!(
            call(&c, &[&s("f32[3]")]).unwrap_err().blame,
            Blame::Operand(0)
        );
        assert_eq!(call(&c, &[]).unwrap_err().blame, Blame::Computation);
    }
}
