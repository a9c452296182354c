//! `dense<...>` contents: nested lists, splats, booleans, integers, decimal and hexadecimal
//! floats, complex pairs `(re, im)` and hex blobs `"0x..."`, made into a [`Literal`] once the
//! tensor type is known.

use half::{bf16, f16};
use num_complex::Complex;

use super::cursor::{parse_int, Cursor};
use super::Result;
use crate::element::ElementType;
use crate::literal::{ArrayData, Literal};
use crate::shape::ArrayShape;

/// One element as written.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Elem {
    /// A number's text (`-1`, `2.5e+00`, `0x7FC00000`).
    Num(String),
    /// `true` / `false`.
    Bool(bool),
    /// `(re, im)`.
    Complex(Box<Elem>, Box<Elem>),
}

/// The contents of `dense<...>`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Dense {
    /// One element for every position.
    Splat(Elem),
    /// Nested lists, one level per dimension, flattened row-major with their shape.
    List {
        /// Size of each nesting level (as written; checked against the type later).
        dims: Vec<i64>,
        /// The elements, row-major.
        elems: Vec<Elem>,
    },
    /// `"0x..."`: raw little-endian bytes.
    Hex(Vec<u8>),
}

fn elem(c: &mut Cursor<'_>) -> Result<Elem> {
    if c.eat("(") {
        let re = elem(c)?;
        c.expect(",")?;
        let im = elem(c)?;
        c.expect(")")?;
        return Ok(Elem::Complex(Box::new(re), Box::new(im)));
    }
    if c.eat_keyword("true") {
        return Ok(Elem::Bool(true));
    }
    if c.eat_keyword("false") {
        return Ok(Elem::Bool(false));
    }
    for name in ["nan", "inf", "-inf"] {
        if c.eat_keyword(name) {
            return Ok(Elem::Num(name.to_string()));
        }
    }
    match c.number() {
        Some(n) => Ok(Elem::Num(n.to_string())),
        None => Err(c.err("expected a dense element")),
    }
}

/// A nested list after its `[`: appends elements, returns the nesting dims.
fn list(c: &mut Cursor<'_>, elems: &mut Vec<Elem>, depth: usize) -> Result<Vec<i64>> {
    if depth > 64 {
        return Err(c.err("dense literal nested too deeply"));
    }
    let mut count = 0i64;
    let mut inner: Option<Vec<i64>> = None;
    if c.eat("]") {
        return Ok(vec![0]);
    }
    loop {
        if c.eat("[") {
            let d = list(c, elems, depth + 1)?;
            if inner.as_ref().is_some_and(|i| *i != d) {
                return Err(c.err("dense literal rows of different lengths"));
            }
            inner = Some(d);
        } else {
            if inner.is_some() {
                return Err(c.err("dense literal mixes lists and elements"));
            }
            elems.push(elem(c)?);
        }
        count += 1;
        if c.eat("]") {
            break;
        }
        c.expect(",")?;
    }
    let mut dims = vec![count];
    dims.extend(inner.unwrap_or_default());
    Ok(dims)
}

/// The contents of `dense<...>` after `dense<`, through the closing `>`.
pub(super) fn parse_dense(c: &mut Cursor<'_>) -> Result<Dense> {
    if c.eat(">") {
        return Ok(Dense::List {
            dims: vec![0],
            elems: Vec::new(),
        });
    }
    let d = if c.looking_at("\"") {
        let s = c.string()?;
        let hex = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .filter(|h| h.len() % 2 == 0 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| c.err("expected a `\"0x...\"` hex blob"))?;
        let bytes = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
            .collect();
        Dense::Hex(bytes)
    } else if c.eat("[") {
        let mut elems = Vec::new();
        let dims = list(c, &mut elems, 0)?;
        Dense::List { dims, elems }
    } else {
        Dense::Splat(elem(c)?)
    };
    c.expect(">")?;
    Ok(d)
}

/// The integers of a list or splat of integers (`dense<[1, 2]>` as an index attribute).
pub(super) fn ints(d: &Dense) -> Option<Vec<i64>> {
    let one = |e: &Elem| match e {
        Elem::Num(n) => parse_int(n).and_then(|v| i64::try_from(v).ok()),
        Elem::Bool(_) | Elem::Complex(..) => None,
    };
    match d {
        Dense::Splat(e) => one(e).map(|v| vec![v]),
        Dense::List { elems, .. } => elems.iter().map(one).collect(),
        Dense::Hex(_) => None,
    }
}

/// Why a dense value does not fit its type.
fn bad(what: impl Into<String>) -> String {
    what.into()
}

fn int_of(e: &Elem, ty: ElementType) -> Result<i128, String> {
    match e {
        Elem::Num(n) => parse_int(n)
            .ok_or_else(|| bad(format!("`{n}` is not an integer for {}", ty.mlir_name()))),
        Elem::Bool(b) => Ok(i128::from(*b)),
        Elem::Complex(..) => Err(bad(format!("a complex value for {}", ty.mlir_name()))),
    }
}

/// A float element's value as f64 bits of width `bits`: hex is the bit pattern, decimal is
/// rounded by `parse`.
fn float_bits<T>(
    e: &Elem,
    bits: u32,
    parse: impl Fn(&str) -> Option<T>,
    from_bits: impl Fn(u64) -> T,
) -> Result<T, String> {
    match e {
        Elem::Num(n) if n.starts_with("0x") || n.starts_with("0X") => {
            let v = u64::from_str_radix(&n[2..], 16).map_err(|_| bad(format!("bad hex `{n}`")))?;
            if bits < 64 && v >> bits != 0 {
                return Err(bad(format!("hex float `{n}` wider than {bits} bits")));
            }
            Ok(from_bits(v))
        }
        Elem::Num(n) => parse(n).ok_or_else(|| bad(format!("`{n}` is not a number"))),
        Elem::Bool(b) => parse(if *b { "1" } else { "0" }).ok_or_else(|| bad("bool")),
        Elem::Complex(..) => Err(bad("a complex value for a real type")),
    }
}

fn parse_f64(s: &str) -> Option<f64> {
    match s {
        "nan" => Some(f64::NAN),
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => s.parse().ok(),
    }
}

fn parse_f32(s: &str) -> Option<f32> {
    match s {
        "nan" | "inf" | "-inf" => parse_f64(s).map(|v| v as f32),
        _ => s.parse().ok(),
    }
}

macro_rules! ints {
    ($elems:expr, $ty:expr, $t:ty, $v:ident) => {{
        let mut out = Vec::with_capacity($elems.len());
        for e in $elems {
            let v = int_of(e, $ty)?;
            out.push(
                <$t>::try_from(v)
                    .map_err(|_| bad(format!("{v} out of range for {}", $ty.mlir_name())))?,
            );
        }
        ArrayData::$v(out)
    }};
}

/// The elements as `ty`.
fn convert(elems: &[Elem], ty: ElementType) -> Result<ArrayData, String> {
    let f32_of = |e: &Elem| float_bits(e, 32, parse_f32, |b| f32::from_bits(b as u32));
    let f64_of = |e: &Elem| float_bits(e, 64, parse_f64, f64::from_bits);
    let complex = |e: &Elem| -> Result<(Elem, Elem), String> {
        match e {
            Elem::Complex(re, im) => Ok((re.as_ref().clone(), im.as_ref().clone())),
            other => Ok((other.clone(), Elem::Num("0".into()))),
        }
    };
    Ok(match ty {
        ElementType::Pred => {
            let mut out = Vec::with_capacity(elems.len());
            for e in elems {
                match int_of(e, ty)? {
                    0 => out.push(false),
                    1 => out.push(true),
                    v => return Err(bad(format!("{v} is not a boolean"))),
                }
            }
            ArrayData::Pred(out)
        }
        ElementType::S8 => ints!(elems, ty, i8, S8),
        ElementType::S16 => ints!(elems, ty, i16, S16),
        ElementType::S32 => ints!(elems, ty, i32, S32),
        ElementType::S64 => ints!(elems, ty, i64, S64),
        ElementType::U8 => ints!(elems, ty, u8, U8),
        ElementType::U16 => ints!(elems, ty, u16, U16),
        ElementType::U32 => ints!(elems, ty, u32, U32),
        ElementType::U64 => ints!(elems, ty, u64, U64),
        ElementType::F16 => ArrayData::F16(
            elems
                .iter()
                .map(|e| {
                    float_bits(
                        e,
                        16,
                        |s| parse_f64(s).map(f16::from_f64),
                        |b| f16::from_bits(b as u16),
                    )
                })
                .collect::<Result<_, _>>()?,
        ),
        ElementType::Bf16 => ArrayData::Bf16(
            elems
                .iter()
                .map(|e| {
                    float_bits(
                        e,
                        16,
                        |s| parse_f64(s).map(bf16::from_f64),
                        |b| bf16::from_bits(b as u16),
                    )
                })
                .collect::<Result<_, _>>()?,
        ),
        ElementType::F32 => ArrayData::F32(elems.iter().map(f32_of).collect::<Result<_, _>>()?),
        ElementType::F64 => ArrayData::F64(elems.iter().map(f64_of).collect::<Result<_, _>>()?),
        ElementType::C64 => {
            let mut out = Vec::with_capacity(elems.len());
            for e in elems {
                let (re, im) = complex(e)?;
                out.push(Complex::new(f32_of(&re)?, f32_of(&im)?));
            }
            ArrayData::C64(out)
        }
        ElementType::C128 => {
            let mut out = Vec::with_capacity(elems.len());
            for e in elems {
                let (re, im) = complex(e)?;
                out.push(Complex::new(f64_of(&re)?, f64_of(&im)?));
            }
            ArrayData::C128(out)
        }
    })
}

/// Little-endian bytes as elements of `ty` (pred one byte each; complex re then im).
fn from_bytes(bytes: &[u8], ty: ElementType) -> Vec<Elem> {
    let width = ty.byte_width();
    let part = if ty.is_complex() { width / 2 } else { width };
    let word = |b: &[u8]| {
        let mut v = 0u64;
        for (i, &x) in b.iter().enumerate() {
            v |= u64::from(x) << (8 * i);
        }
        v
    };
    let num = |b: &[u8]| {
        let v = word(b);
        if ty.is_float_or_complex() {
            Elem::Num(format!("0x{v:X}"))
        } else if ty.is_signed_int() {
            let shift = 64 - 8 * b.len() as u32;
            Elem::Num((((v << shift) as i64) >> shift).to_string())
        } else {
            Elem::Num(v.to_string())
        }
    };
    bytes
        .chunks(width)
        .filter(|ch| ch.len() == width)
        .map(|ch| {
            if ty.is_complex() {
                Elem::Complex(Box::new(num(&ch[..part])), Box::new(num(&ch[part..])))
            } else {
                num(ch)
            }
        })
        .collect()
}

/// The literal `dense` denotes for tensor type `shape`; `Err` says why it does not fit.
pub(super) fn to_literal(dense: &Dense, shape: &ArrayShape) -> Result<Literal, String> {
    let count = usize::try_from(shape.element_count()).map_err(|_| bad("too many elements"))?;
    if count > (1 << 28) {
        return Err(bad(format!("{count} elements are too many for a constant")));
    }
    let elems: Vec<Elem> = match dense {
        Dense::Splat(e) => vec![e.clone(); count],
        Dense::List { dims, elems } => {
            let written: i64 = dims.iter().product();
            if elems.len() == 1 && count != 1 && dims.iter().all(|&d| d == 1) {
                vec![elems[0].clone(); count]
            } else if written as usize != count
                || (!shape.dims.is_empty() && dims != &shape.dims && count != 0)
            {
                return Err(bad(format!(
                    "a value of shape {dims:?} for a tensor of shape {:?}",
                    shape.dims
                )));
            } else {
                elems.clone()
            }
        }
        Dense::Hex(bytes) => {
            let all = from_bytes(bytes, shape.ty);
            if bytes.len() == shape.ty.byte_width() && count != 1 {
                vec![all[0].clone(); count]
            } else if all.len() == count && bytes.len() == count * shape.ty.byte_width() {
                all
            } else {
                return Err(bad(format!(
                    "{} bytes for {count} elements of {}",
                    bytes.len(),
                    shape.ty.mlir_name()
                )));
            }
        }
    };
    let data = convert(&elems, shape.ty)?;
    Ok(Literal::Array {
        shape: shape.clone(),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str, ty: ElementType, dims: &[i64]) -> Result<Literal, String> {
        let mut c = Cursor::new(text);
        assert!(c.eat("dense<"));
        let d = parse_dense(&mut c).map_err(|e| e.to_string())?;
        to_literal(&d, &ArrayShape::new(ty, dims))
    }

    #[test]
    fn lists_splats_and_blobs() {
        let l = lit("dense<[[1, -2], [3, 4]]>", ElementType::S8, &[2, 2]).unwrap();
        assert_eq!(l.as_slice::<i8>(), Some(&[1i8, -2, 3, 4][..]));
        let l = lit("dense<0xFF800000>", ElementType::F32, &[3]).unwrap();
        assert_eq!(l.as_slice::<f32>(), Some(&[f32::NEG_INFINITY; 3][..]));
        let l = lit("dense<\"0x0000803F00000040\">", ElementType::F32, &[2]).unwrap();
        assert_eq!(l.as_slice::<f32>(), Some(&[1.0f32, 2.0][..]));
        let l = lit("dense<\"0xFFFF\">", ElementType::S16, &[2]).unwrap();
        assert_eq!(l.as_slice::<i16>(), Some(&[-1i16, -1][..]));
        let l = lit("dense<[(1.0, -2.5), (0x0, 3)]>", ElementType::C64, &[2]).unwrap();
        assert_eq!(
            l.as_slice::<Complex<f32>>(),
            Some(&[Complex::new(1.0, -2.5), Complex::new(0.0, 3.0)][..])
        );
        let l = lit("dense<[true, false]>", ElementType::Pred, &[2]).unwrap();
        assert_eq!(l.as_slice::<bool>(), Some(&[true, false][..]));
        let l = lit("dense<1.000000e-01>", ElementType::F64, &[]).unwrap();
        assert_eq!(l.as_slice::<f64>(), Some(&[0.1f64][..]));
        let l = lit("dense<>", ElementType::F32, &[0, 3]).unwrap();
        assert_eq!(l.as_slice::<f32>(), Some(&[][..]));
    }

    #[test]
    fn mismatches_are_errors() {
        assert!(lit("dense<[1, 2, 3]>", ElementType::S32, &[2]).is_err());
        assert!(lit("dense<[[1, 2], [3]]>", ElementType::S32, &[2, 2]).is_err());
        assert!(lit("dense<300>", ElementType::U8, &[]).is_err());
        assert!(lit("dense<1.5>", ElementType::S32, &[]).is_err());
        assert!(lit("dense<0x1FFFF>", ElementType::F16, &[]).is_err());
        assert!(lit("dense<[1, 2]", ElementType::S32, &[2]).is_err());
    }
}
