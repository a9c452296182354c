//! Tuple, GetTupleElement, Call, OptimizationBarrier and AfterAll.

use super::compatible;
use crate::error::{Blame, Error, Result};
use crate::ir::{Composite, Computation};
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

/// `CustomCall(operands..., call_target_name, shape)`: the target is a Rust path
/// (`softplus`, `ops::softplus`, `crate::ops::softplus`, `::my_crate::softplus`), the result is
/// the declared `shape` (arrays, or a tuple of them).
pub fn custom_call(target: &str, shape: &Shape) -> Result<Shape> {
    let op = "CustomCall";
    let path = target.strip_prefix("::").unwrap_or(target);
    let ident = |p: &str| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
            && p != "_"
    };
    if !path.split("::").all(ident) {
        return Err(Error::new(
            op,
            format!(
                "call_target_name {target:?} must name a Rust fn by its path, such as \"softplus\" \
                 or \"crate::ops::softplus\""
            ),
        )
        .blame(Blame::Attribute("call_target_name")));
    }
    fn arrays(s: &Shape) -> bool {
        match s {
            Shape::Array(a) => !a.is_dynamic(),
            Shape::Tuple(ts) => ts.iter().all(arrays),
            Shape::Token => false,
        }
    }
    if !arrays(shape) {
        return Err(Error::new(
            op,
            format!("shape {shape} must be a static array or a tuple of them"),
        )
        .blame(Blame::Attribute("shape")));
    }
    Ok(shape.clone())
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
    call_named("Call", computation, operands)
}

/// `CompositeCall(decomposition, operands..., name, attributes, version)`: Call's rule for the
/// decomposition; the name is a non-empty dotted identifier (`foo.bar`), the attributes an MLIR
/// dictionary `{...}` or empty, the version at least 0.
pub fn composite_call(
    composite: &Composite,
    decomposition: &Computation,
    operands: &[&Shape],
) -> Result<Shape> {
    let op = "CompositeCall";
    let name = &composite.name;
    let ident = |p: &str| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !name.split('.').all(ident) {
        return Err(Error::new(
            op,
            format!("name {name:?} must be a dotted identifier such as \"my_lib.softplus\""),
        )
        .blame(Blame::Attribute("name")));
    }
    let a = composite.attributes.trim();
    let dictionary = a.starts_with('{') && a.ends_with('}') && balanced(a);
    if !a.is_empty() && !dictionary {
        return Err(Error::new(
            op,
            format!(
                "attributes {a:?} must be an MLIR dictionary such as \"{{n = 1 : i32}}\" (or empty)"
            ),
        )
        .blame(Blame::Attribute("attributes")));
    }
    if !(0..=i64::from(i32::MAX)).contains(&composite.version) {
        return Err(Error::new(
            op,
            format!(
                "version {} must be in [0, {}] (StableHLO stores it as an i32)",
                composite.version,
                i32::MAX
            ),
        )
        .blame(Blame::Attribute("version")));
    }
    call_named(op, decomposition, operands)
}

/// Brackets and quotes nest properly (what StableHLO export can print verbatim).
fn balanced(text: &str) -> bool {
    let mut stack = Vec::new();
    let mut in_str = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_str {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' | '(' | '<' => stack.push(c),
            '}' | ']' | ')' | '>' => {
                let open = match c {
                    '}' => '{',
                    ']' => '[',
                    ')' => '(',
                    _ => '<',
                };
                // `->` in a function type is not a bracket.
                if c == '>' && stack.last() != Some(&'<') {
                    continue;
                }
                if stack.pop() != Some(open) {
                    return false;
                }
            }
            _ => {}
        }
    }
    stack.is_empty() && !in_str
}

fn call_named(op: &str, computation: &Computation, operands: &[&Shape]) -> Result<Shape> {
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
