//! Attribute values: `dense<...>`, `array<i64: ...>`, integers and floats with optional types,
//! booleans, strings, symbols, lists, dictionaries, `#stablehlo<kind VALUE>` enums, structured
//! attributes (`#stablehlo.dot<...>`, `#stablehlo.gather<...>`, `#stablehlo.scatter<...>`,
//! `#stablehlo.conv<...>`), and the convolution's `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.

use super::ast::{Attr, Type};
use super::cursor::{parse_int, Cursor};
use super::dense::parse_dense;
use super::types::{element_type, parse_type};
use super::{ImportError, Result};
use crate::ir::ConvDimensionNumbers;

/// Skips `: type` after a scalar attribute (`1 : i64`, `0.1 : f64`).
fn skip_type_suffix(c: &mut Cursor<'_>) -> Result<Option<Type>> {
    if c.looking_at(":") && !c.looking_at("::") {
        c.expect(":")?;
        if c.looking_at("tensor") || c.looking_at("tuple") || c.looking_at("!") {
            return parse_type(c).map(Some);
        }
        element_type(c)?;
    }
    Ok(None)
}

/// `array<i64: 1, 2>`, `array<i1: true>`, `array<i64>`, after `array`.
fn array(c: &mut Cursor<'_>) -> Result<Attr> {
    c.expect("<")?;
    c.expect_ident("an element type")?;
    let mut out = Vec::new();
    if c.eat(":") {
        loop {
            if c.eat_keyword("true") {
                out.push(1);
            } else if c.eat_keyword("false") {
                out.push(0);
            } else {
                out.push(c.expect_integer("an integer")?);
            }
            if !c.eat(",") {
                break;
            }
        }
    }
    c.expect(">")?;
    Ok(Attr::Array(out))
}

/// `name = value` pairs up to `close` (the opening bracket already read).
pub(super) fn fields(c: &mut Cursor<'_>, close: &str) -> Result<Vec<(String, Attr)>> {
    let mut out = Vec::new();
    if c.eat(close) {
        return Ok(out);
    }
    loop {
        let name = if c.looking_at("\"") {
            c.string()?
        } else {
            c.expect_ident("an attribute name")?.to_string()
        };
        let value = if c.eat("=") {
            parse_attr(c)?
        } else {
            Attr::Unit
        };
        out.push((name, value));
        if c.eat(close) {
            return Ok(out);
        }
        c.expect(",")?;
    }
}

/// One operand's roles in a convolution's dimension numbers: `[b, 0, 1, f]` gives, for
/// letters `(x, y)`, their positions and the positions of spatial dimensions 0, 1, ...
fn conv_operand(c: &mut Cursor<'_>, letters: [&str; 2]) -> Result<(i64, i64, Vec<i64>)> {
    c.expect("[")?;
    let mut named = [None, None];
    let mut spatial: Vec<(i64, i64)> = Vec::new();
    let mut pos = 0i64;
    loop {
        if let Some(n) = c.integer()? {
            spatial.push((n, pos));
        } else {
            let l = c.expect_ident("a dimension letter")?;
            let k = letters
                .iter()
                .position(|x| *x == l)
                .ok_or_else(|| c.err(format!("expected `{}` or `{}`", letters[0], letters[1])))?;
            if named[k].replace(pos).is_some() {
                return Err(c.err(format!("`{l}` given twice")));
            }
        }
        pos += 1;
        if c.eat("]") {
            break;
        }
        c.expect(",")?;
    }
    spatial.sort();
    if spatial.iter().enumerate().any(|(i, (n, _))| *n != i as i64) {
        return Err(c.err("spatial dimensions must be numbered 0, 1, ... once each"));
    }
    match named {
        [Some(a), Some(b)] => Ok((a, b, spatial.into_iter().map(|(_, p)| p).collect())),
        _ => Err(c.err(format!(
            "each of `{}` and `{}` is needed",
            letters[0], letters[1]
        ))),
    }
}

/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
pub(super) fn conv_dims(c: &mut Cursor<'_>) -> Result<ConvDimensionNumbers> {
    let (ib, if_, is) = conv_operand(c, ["b", "f"])?;
    if !c.eat("x") {
        return Err(c.err("expected `x` between convolution operands"));
    }
    let (ki, ko, ks) = conv_operand(c, ["i", "o"])?;
    c.expect("->")?;
    let (ob, of, os) = conv_operand(c, ["b", "f"])?;
    Ok(ConvDimensionNumbers {
        input_batch_dimension: ib,
        input_feature_dimension: if_,
        input_spatial_dimensions: is,
        kernel_input_feature_dimension: ki,
        kernel_output_feature_dimension: ko,
        kernel_spatial_dimensions: ks,
        output_batch_dimension: ob,
        output_feature_dimension: of,
        output_spatial_dimensions: os,
    })
}

/// `#dialect<...>` or `#dialect.name<...>` after the `#`.
fn hash_attr(c: &mut Cursor<'_>) -> Result<Attr> {
    let pos = c.here();
    let name = c.expect_ident("an attribute name")?.to_string();
    if !c.looking_at("<") {
        // An alias such as `#loc3`: no value here.
        return Ok(Attr::Opaque(format!("#{name}")));
    }
    if name == "stablehlo" || name == "chlo" || name == "mhlo" {
        c.expect("<")?;
        let kind = c.expect_ident("an enum kind")?.to_string();
        let value = c.expect_ident("an enum value")?.to_string();
        c.expect(">")?;
        return Ok(Attr::Enum(kind, value));
    }
    if name == "stablehlo.conv" {
        c.expect("<")?;
        if c.eat_keyword("raw") {
            let f = fields(c, ">")?;
            return Err(ImportError::Unsupported {
                feature: format!("#stablehlo.conv<raw ...> ({} fields)", f.len()),
                pos,
            });
        }
        let d = conv_dims(c)?;
        c.expect(">")?;
        return Ok(Attr::Conv(d));
    }
    if name.starts_with("stablehlo.") || name == "chlo.ragged_dot" {
        c.expect("<")?;
        return Ok(Attr::Struct(name, fields(c, ">")?));
    }
    let text = c.skip_balanced()?;
    Ok(Attr::Opaque(format!("#{name}{text}")))
}

/// One attribute value at the cursor, with its `: type` suffix if any.
pub(super) fn parse_attr(c: &mut Cursor<'_>) -> Result<Attr> {
    value(c, true)
}

/// One attribute value without a type suffix: the form inside pretty-printed ops, where a
/// `:` starts the op's types (`tolerance = 0.1 : tensor<f64>`).
pub(super) fn parse_bare_attr(c: &mut Cursor<'_>) -> Result<Attr> {
    value(c, false)
}

fn value(c: &mut Cursor<'_>, typed: bool) -> Result<Attr> {
    c.enter()?;
    let v = value_inner(c, typed);
    c.leave();
    v
}

fn value_inner(c: &mut Cursor<'_>, typed: bool) -> Result<Attr> {
    let suffix = |c: &mut Cursor<'_>| if typed { skip_type_suffix(c) } else { Ok(None) };
    let pos = c.here();
    if c.eat("[") {
        let mut items = Vec::new();
        if !c.eat("]") {
            loop {
                items.push(parse_attr(c)?);
                if c.eat("]") {
                    break;
                }
                c.expect(",")?;
            }
        }
        return Ok(Attr::List(items));
    }
    if c.eat("{") {
        return fields(c, "}").map(Attr::Dict);
    }
    if c.eat("#") {
        return hash_attr(c);
    }
    if c.looking_at("\"") {
        let s = c.string()?;
        suffix(c)?;
        return Ok(Attr::Str(s));
    }
    if c.looking_at("@") {
        return Ok(Attr::Symbol(c.symbol()?.unwrap_or_default()));
    }
    if let Some(n) = c.number() {
        let n = n.to_string();
        suffix(c)?;
        if let Some(v) =
            parse_int(&n).filter(|_| !n.contains(['.', 'e', 'E']) || n.starts_with("0x"))
        {
            return Ok(Attr::Int(v));
        }
        return n
            .parse::<f64>()
            .map(Attr::Float)
            .map_err(|_| ImportError::Syntax {
                message: format!("bad number `{n}`"),
                pos,
            });
    }
    if c.eat_keyword("dense") {
        c.expect("<")?;
        let d = parse_dense(c)?;
        if index_tensor(c)? {
            return Ok(Attr::Dense(d, None));
        }
        let ty = suffix(c)?;
        return Ok(Attr::Dense(d, ty));
    }
    if c.eat_keyword("array") {
        return array(c);
    }
    if c.eat_keyword("true") {
        return Ok(Attr::Bool(true));
    }
    if c.eat_keyword("false") {
        return Ok(Attr::Bool(false));
    }
    if c.looking_at("<") {
        return Ok(Attr::Opaque(c.skip_balanced()?.to_string()));
    }
    if c.looking_at("tensor<") || c.looking_at("tuple<") || c.looking_at("!") {
        return parse_type(c).map(Attr::Type);
    }
    match c.ident() {
        Some(word) => {
            if word == "loc" && c.looking_at("(") {
                let text = c.skip_balanced()?;
                return Ok(Attr::Opaque(format!("loc{text}")));
            }
            if c.looking_at("<") {
                let text = c.skip_balanced()?;
                return Ok(Attr::Opaque(format!("{word}{text}")));
            }
            Ok(Attr::Enum(String::new(), word.to_string()))
        }
        None => Err(c.err("expected an attribute value")),
    }
}

/// Skips `: tensor<...xindex>` after a `dense<...>` if it comes next: MLIR's `index` type,
/// which only attributes use (custom calls' `operand_layouts`); their values are integers.
fn index_tensor(c: &mut Cursor<'_>) -> Result<bool> {
    let rest = c.rest().trim_start();
    let is_index = rest
        .strip_prefix(':')
        .map(str::trim_start)
        .and_then(|t| t.strip_prefix("tensor<"))
        .and_then(|t| t.split_once('>'))
        .is_some_and(|(inner, _)| inner.ends_with("index"));
    if is_index {
        c.expect(":")?;
        c.expect("tensor")?;
        c.skip_balanced()?;
    }
    Ok(is_index)
}

/// The integers of an `array<i64: ...>`, `dense<[...]>`, `[1, 2]` or a single integer.
pub(super) fn ints_of(a: &Attr) -> Option<Vec<i64>> {
    match a {
        Attr::Array(v) => Some(v.clone()),
        Attr::Int(v) => i64::try_from(*v).ok().map(|v| vec![v]),
        Attr::List(items) => items
            .iter()
            .map(|i| match i {
                Attr::Int(v) => i64::try_from(*v).ok(),
                _ => None,
            })
            .collect(),
        Attr::Dense(d, _) => super::dense::ints(d),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(s: &str) -> Attr {
        parse_attr(&mut Cursor::new(s)).unwrap()
    }

    #[test]
    fn scalars_lists_and_arrays() {
        assert_eq!(attr("1 : i64"), Attr::Int(1));
        assert_eq!(attr("-0.5 : f64"), Attr::Float(-0.5));
        assert_eq!(attr("array<i64: 1, 0>"), Attr::Array(vec![1, 0]));
        assert_eq!(attr("array<i64>"), Attr::Array(vec![]));
        assert_eq!(attr("array<i1: true, false>"), Attr::Array(vec![1, 0]));
        assert_eq!(
            ints_of(&attr("dense<[1, 2]> : tensor<2xi64>")),
            Some(vec![1, 2])
        );
        assert_eq!(
            attr("#stablehlo<comparison_direction GT>"),
            Attr::Enum("comparison_direction".into(), "GT".into())
        );
        assert_eq!(
            attr("[DEFAULT]"),
            Attr::List(vec![Attr::Enum(String::new(), "DEFAULT".into())])
        );
    }

    #[test]
    fn structured() {
        let a = attr("#stablehlo.gather<offset_dims = [1], index_vector_dim = 1>");
        let Attr::Struct(name, f) = a else { panic!() };
        assert_eq!(name, "stablehlo.gather");
        assert_eq!(f[0].0, "offset_dims");
        assert_eq!(ints_of(&f[0].1), Some(vec![1]));
        let Attr::Conv(d) = attr("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, f, 0, 1]>") else {
            panic!()
        };
        assert_eq!(d.input_spatial_dimensions, vec![1, 2]);
        assert_eq!(d.kernel_input_feature_dimension, 2);
        assert_eq!(d.output_feature_dimension, 1);
        assert_eq!(d.output_spatial_dimensions, vec![2, 3]);
        let mut c = Cursor::new("[b, 0, b]x[i, o]->[b, f]");
        assert!(conv_dims(&mut c).is_err());
    }
}
