//! Types: `tensor<2x3xf32>`, `tensor<complex<f64>>`, `tuple<...>`, `!stablehlo.token`; element
//! types outside xla-core's (`i4`, `f8E4M3`, quantized) are unsupported by name.

use super::ast::Type;
use super::cursor::Cursor;
use super::{ImportError, Result};
use crate::element::ElementType;
use crate::shape::ArrayShape;

/// The element type MLIR spells `name` (`i32`, `ui8`, `bf16`; `complex<..>` is read by
/// [`element_type`]).
fn scalar_type(name: &str) -> Option<ElementType> {
    ElementType::ALL
        .iter()
        .copied()
        .find(|t| !t.is_complex() && t.mlir_name() == name)
}

/// An element type at the cursor: `f32`, `i1`, `complex<f32>`.
pub(super) fn element_type(c: &mut Cursor<'_>) -> Result<ElementType> {
    let pos = c.here();
    if c.eat("!") {
        let name = c.expect_ident("a dialect type")?.to_string();
        if c.looking_at("<") {
            c.skip_balanced()?;
        }
        let feature = if name.starts_with("quant") {
            "quantized element type".to_string()
        } else {
            format!("element type !{name}")
        };
        return Err(ImportError::Unsupported { feature, pos });
    }
    let name = c.expect_ident("an element type")?;
    if name == "complex" {
        c.expect("<")?;
        let inner = c.expect_ident("f32 or f64")?;
        c.expect(">")?;
        return match inner {
            "f32" => Ok(ElementType::C64),
            "f64" => Ok(ElementType::C128),
            other => Err(ImportError::Unsupported {
                feature: format!("element type complex<{other}>"),
                pos,
            }),
        };
    }
    scalar_type(name).ok_or_else(|| ImportError::Unsupported {
        feature: format!("element type {name}"),
        pos,
    })
}

/// The dimensions and element type inside `tensor<...>`, after the `<`; a `?` dimension is
/// taken when `#stablehlo.bounds<...>` gives its bound (a bounded dynamic dimension).
fn tensor_body(c: &mut Cursor<'_>) -> Result<ArrayShape> {
    let start = c.here();
    let mut dims: Vec<Option<i64>> = Vec::new();
    loop {
        let rest = c.rest();
        if rest.starts_with("?x") {
            c.expect("?x")?;
            dims.push(None);
            continue;
        }
        let len = rest.find(|ch: char| !ch.is_ascii_digit()).unwrap_or(0);
        if len == 0 || !rest[len..].starts_with('x') {
            break;
        }
        let d: i64 = rest[..len]
            .parse()
            .map_err(|_| c.err("dimension too large"))?;
        dims.push(Some(d));
        c.expect(&rest[..=len])?;
    }
    let ty = element_type(c)?;
    let mut bounds: Vec<Option<i64>> = vec![None; dims.len()];
    if c.eat(",") {
        let pos = c.here();
        if !c.eat("#stablehlo.bounds<") {
            c.skip_balanced().ok();
            return Err(ImportError::Unsupported {
                feature: "tensor encoding other than #stablehlo.bounds".into(),
                pos,
            });
        }
        for (i, b) in bounds.iter_mut().enumerate() {
            if i > 0 {
                c.expect(",")?;
            }
            if !c.eat("?") {
                c.skip_ws();
                let rest = c.rest();
                let len = rest.find(|ch: char| !ch.is_ascii_digit()).unwrap_or(0);
                let v: i64 = rest[..len]
                    .parse()
                    .map_err(|_| c.err("a bound (an integer or `?`)"))?;
                c.expect(&rest[..len])?;
                *b = Some(v);
            }
        }
        c.expect(">")?;
    }
    c.expect(">")?;
    let mut shape = ArrayShape::new(ty, &[]);
    for (d, b) in dims.iter().zip(&bounds) {
        match (d, b) {
            (Some(d), None) => {
                shape.dims.push(*d);
                shape.dynamic.push(false);
            }
            (None, Some(b)) => {
                shape.dims.push(*b);
                shape.dynamic.push(true);
            }
            (None, None) => {
                return Err(ImportError::Unsupported {
                    feature: "dynamic dimension `?` without a bound".into(),
                    pos: start,
                })
            }
            (Some(_), Some(_)) => {
                return Err(ImportError::Invalid {
                    message: "a static dimension has a bound in #stablehlo.bounds".into(),
                    pos: start,
                })
            }
        }
    }
    shape.validate().map_err(|e| ImportError::Invalid {
        message: e.message,
        pos: start,
    })?;
    Ok(shape)
}

/// A type at the cursor.
pub(super) fn parse_type(c: &mut Cursor<'_>) -> Result<Type> {
    c.enter()?;
    let t = type_inner(c);
    c.leave();
    t
}

fn type_inner(c: &mut Cursor<'_>) -> Result<Type> {
    let pos = c.here();
    if c.eat("!stablehlo.token") {
        return Ok(Type::Token);
    }
    if c.eat_keyword("tensor") {
        c.expect("<")?;
        return tensor_body(c).map(Type::Tensor);
    }
    if c.eat_keyword("tuple") {
        c.expect("<")?;
        let mut elems = Vec::new();
        if !c.eat(">") {
            loop {
                elems.push(parse_type(c)?);
                if c.eat(">") {
                    break;
                }
                c.expect(",")?;
            }
        }
        return Ok(Type::Tuple(elems));
    }
    if c.looking_at("!") {
        return element_type(c).map(|t| Type::Tensor(ArrayShape::scalar(t)));
    }
    match c.ident() {
        Some(name) => Err(ImportError::Unsupported {
            feature: format!("type {name}"),
            pos,
        }),
        None => Err(c.err("expected a type")),
    }
}

/// `(t1, t2)` or a single type `t`: a list of types.
pub(super) fn type_list(c: &mut Cursor<'_>) -> Result<Vec<Type>> {
    if !c.eat("(") {
        return Ok(vec![parse_type(c)?]);
    }
    let mut out = Vec::new();
    if c.eat(")") {
        return Ok(out);
    }
    loop {
        out.push(parse_type(c)?);
        skip_arg_attrs(c)?;
        if c.eat(")") {
            return Ok(out);
        }
        c.expect(",")?;
    }
}

/// Skips `{jax.result_info = ...}` and `loc(...)` after a type in a signature.
pub(super) fn skip_arg_attrs(c: &mut Cursor<'_>) -> Result<()> {
    loop {
        if !(c.looking_at("{") || c.eat_keyword("loc")) {
            return Ok(());
        }
        c.skip_balanced()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> Result<Type> {
        parse_type(&mut Cursor::new(s))
    }

    #[test]
    fn tensors_tuples_tokens() {
        let t = ty("tensor<2x0x3xcomplex<f64>>").unwrap();
        assert_eq!(
            t,
            Type::Tensor(ArrayShape::new(ElementType::C128, &[2, 0, 3]))
        );
        assert_eq!(
            ty("tensor<0xf32>").unwrap(),
            Type::Tensor(ArrayShape::new(ElementType::F32, &[0]))
        );
        assert_eq!(
            ty("tuple<tensor<i1>, !stablehlo.token>").unwrap(),
            Type::Tuple(vec![
                Type::Tensor(ArrayShape::scalar(ElementType::Pred)),
                Type::Token
            ])
        );
        assert_eq!(
            ty("tensor<ui16>").unwrap(),
            Type::Tensor(ArrayShape::scalar(ElementType::U16))
        );
    }

    #[test]
    fn unsupported_types_are_named() {
        for (text, feature) in [
            ("tensor<4xi4>", "element type i4"),
            ("tensor<?x2xf32>", "dynamic dimension `?` without a bound"),
            (
                "tensor<?x2xf32, #stablehlo.type_extensions<bounds = [4, ?]>>",
                "tensor encoding other than #stablehlo.bounds",
            ),
            ("tensor<2xf8E4M3FN>", "element type f8E4M3FN"),
            (
                "tensor<2x!quant.uniform<i8:f32, 0.5>>",
                "quantized element type",
            ),
        ] {
            match ty(text) {
                Err(ImportError::Unsupported { feature: f, .. }) => assert_eq!(f, feature),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(ty("tensor<2x").is_err());
    }

    #[test]
    fn bounded_dynamic_dimensions_take_their_bounds() {
        match ty("tensor<?x3xf32, #stablehlo.bounds<8, ?>>") {
            Ok(Type::Tensor(a)) => assert_eq!(a.to_string(), "f32[<=8,3]"),
            other => panic!("{other:?}"),
        }
        match ty("tensor<2x?xi32, #stablehlo.bounds<?, 5>>") {
            Ok(Type::Tensor(a)) => assert_eq!(a.to_string(), "s32[2,<=5]"),
            other => panic!("{other:?}"),
        }
        assert!(ty("tensor<2xf32, #stablehlo.bounds<4>>").is_err());
    }
}
