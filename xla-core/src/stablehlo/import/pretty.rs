//! StableHLO's pretty (custom) forms, read into the generic shape of an [`Operation`]: the
//! keywords of each form become the attribute names of the generic form (`dims` of
//! `broadcast_in_dim` is `broadcast_dimensions`, `low` of `pad` is `edge_padding_low`), so
//! lowering sees one shape whichever form the text used.
//!
//! Most ops share one grammar: operands, `keyword = value` items and bare enums (`GT`,
//! `FLOAT`), then an optional attribute dictionary and the types. `reduce`, `while`,
//! `convolution`, `chlo.top_k`, `chlo.scan`, `func.call` and the terminators have forms of their own.

use super::ast::{Attr, Operation, Region, Type};
use super::attrs::{conv_dims, fields, parse_bare_attr};
use super::cursor::Cursor;
use super::parser::{region, signature, value_list, value_ref};
use super::types::{parse_type, type_list};
use super::{lower, ImportError, Pos, Result};

/// Reads the pretty form of `op` (its name already read at `name_pos`).
pub(super) fn parse(
    c: &mut Cursor<'_>,
    op: &mut Operation,
    name_pos: Pos,
    depth: usize,
) -> Result<()> {
    match op.name.as_str() {
        "func.return" | "return" | "stablehlo.return" => {
            if c.looking_at("%") {
                op.operands = operands_until(c)?;
                if c.eat(":") {
                    type_list_plain(c)?;
                }
            }
            Ok(())
        }
        "func.call" | "call" => call(c, op),
        // `stablehlo.custom_call @target(%a, ...) {attrs} : (types) -> results`.
        "stablehlo.custom_call" => {
            call(c, op)?;
            let target = op.callee.take().unwrap_or_default();
            op.attrs
                .push(("call_target_name".into(), Attr::Str(target)));
            Ok(())
        }
        "stablehlo.reduce" => reduce(c, op, depth),
        "stablehlo.while" => while_loop(c, op, depth),
        "stablehlo.convolution" => convolution(c, op),
        "chlo.top_k" => top_k(c, op),
        // `stablehlo.composite "name" %a, ... {decomposition = @f, ...} : (..) -> ..`
        "stablehlo.composite" => {
            let name = c.string()?;
            op.attrs.push(("name".into(), Attr::Str(name)));
            common(c, op)
        }
        "chlo.scan" => scan(c, op, depth),
        name if lower::is_known(name) || name.starts_with("check.") => common(c, op),
        name => Err(ImportError::Unsupported {
            feature: name.to_string(),
            pos: name_pos,
        }),
    }
}

/// `t1, t2, ...` (no parentheses).
fn type_list_plain(c: &mut Cursor<'_>) -> Result<Vec<Type>> {
    let mut out = vec![parse_type(c)?];
    while c.eat(",") {
        out.push(parse_type(c)?);
    }
    Ok(out)
}

/// `%a, %b, ...` as long as values follow.
fn operands_until(c: &mut Cursor<'_>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    while let Some(v) = value_ref(c)? {
        out.push(v);
        if !(c.looking_at(",") && c.rest()[1..].trim_start().starts_with('%')) {
            break;
        }
        c.expect(",")?;
    }
    Ok(out)
}

/// `@callee(%a, %b) [{attrs}] : (types) -> results`.
fn call(c: &mut Cursor<'_>, op: &mut Operation) -> Result<()> {
    op.callee = Some(c.symbol()?.ok_or_else(|| c.err("expected `@callee`"))?);
    c.expect("(")?;
    op.operands = value_list(c, ")")?;
    if c.eat("{") {
        op.attrs.extend(fields(c, "}")?);
    }
    c.expect(":")?;
    type_list(c)?;
    c.expect("->")?;
    op.result_types = type_list(c)?;
    Ok(())
}

/// The attribute name a pretty keyword of `op` stands for.
fn attr_name(op: &str, keyword: &str) -> String {
    let short = op.rsplit('.').next().unwrap_or(op);
    let name = match (short, keyword) {
        ("broadcast_in_dim", "dims") => "broadcast_dimensions",
        ("transpose", "dims") => "permutation",
        ("reverse", "dims") => "dimensions",
        ("iota", "dim") => "iota_dimension",
        ("concatenate", "dim") => "dimension",
        ("get_dimension_size", "dim") => "dimension",
        ("pad", "low") => "edge_padding_low",
        ("pad", "high") => "edge_padding_high",
        ("pad", "interior") => "interior_padding",
        (_, "precision") => "precision_config",
        ("dynamic_slice", "sizes") => "slice_sizes",
        ("rng", "distribution") => "rng_distribution",
        ("rng_bit_generator", "algorithm") => "rng_algorithm",
        ("fft", "type") => "fft_type",
        ("fft", "length") => "fft_length",
        _ => keyword,
    };
    name.to_string()
}

/// `[a:b, c:d:s]` slice ranges or `[i]` a tuple index, after an operand.
fn brackets(c: &mut Cursor<'_>, op: &mut Operation) -> Result<()> {
    c.expect("[")?;
    let (mut start, mut limit, mut stride) = (Vec::new(), Vec::new(), Vec::new());
    let mut ranges = false;
    if !c.eat("]") {
        loop {
            start.push(c.expect_integer("an index")?);
            if c.eat(":") {
                ranges = true;
                limit.push(c.expect_integer("a limit")?);
                stride.push(if c.eat(":") {
                    c.expect_integer("a stride")?
                } else {
                    1
                });
            }
            if c.eat("]") {
                break;
            }
            c.expect(",")?;
        }
    }
    if ranges || start.is_empty() {
        if limit.len() != start.len() {
            return Err(c.err("every slice range needs `start:limit`"));
        }
        op.attrs.push(("start_indices".into(), Attr::Array(start)));
        op.attrs.push(("limit_indices".into(), Attr::Array(limit)));
        op.attrs.push(("strides".into(), Attr::Array(stride)));
    } else if let [i] = start[..] {
        op.attrs.push(("index".into(), Attr::Int(i128::from(i))));
    } else {
        return Err(c.err("expected one tuple index"));
    }
    Ok(())
}

/// One `keyword = value` item; `[..] x [..]` pairs of `dot_general` become the fields of
/// `dot_dimension_numbers`, `format = eEmM` of `reduce_precision` its two bit counts.
fn keyword_item(c: &mut Cursor<'_>, op: &mut Operation, keyword: &str) -> Result<()> {
    if keyword == "format" {
        let f = c.expect_ident("a format such as e5m10")?;
        let bits = f
            .strip_prefix('e')
            .and_then(|r| r.split_once('m'))
            .and_then(|(e, m)| Some((e.parse::<i128>().ok()?, m.parse::<i128>().ok()?)))
            .ok_or_else(|| c.err("expected a format such as e5m10"))?;
        op.attrs.push(("exponent_bits".into(), Attr::Int(bits.0)));
        op.attrs.push(("mantissa_bits".into(), Attr::Int(bits.1)));
        return Ok(());
    }
    let value = parse_bare_attr(c)?;
    if c.eat_keyword("x") {
        let rhs = parse_bare_attr(c)?;
        let base = keyword.strip_suffix("_dims").unwrap_or(keyword);
        let fields = vec![
            (format!("lhs_{base}_dimensions"), value),
            (format!("rhs_{base}_dimensions"), rhs),
        ];
        match op
            .attrs
            .iter_mut()
            .find(|(n, _)| n == "dot_dimension_numbers")
        {
            Some((_, Attr::Struct(_, f))) => f.extend(fields),
            _ => op.attrs.push((
                "dot_dimension_numbers".into(),
                Attr::Struct("stablehlo.dot".into(), fields),
            )),
        }
        return Ok(());
    }
    op.attrs.push((attr_name(&op.name, keyword), value));
    Ok(())
}

/// The grammar most ops share: operands (with slice ranges or a tuple index after them),
/// `keyword = value` items, bare enums, `dense<...>` values, then `{attrs}` and the types.
fn common(c: &mut Cursor<'_>, op: &mut Operation) -> Result<()> {
    let mut enums = Vec::new();
    loop {
        if let Some(v) = value_ref(c)? {
            op.operands.push(v);
            if c.looking_at("[") {
                brackets(c, op)?;
            }
        } else if c.looking_at("dense<") {
            let v = parse_bare_attr(c)?;
            op.attrs.push(("value".into(), v));
        } else if c.rest().starts_with(|ch: char| ch.is_ascii_alphabetic()) {
            let word = c.expect_ident("a keyword")?.to_string();
            if c.eat("=") {
                keyword_item(c, op, &word)?;
            } else {
                enums.push(word);
            }
        } else {
            break;
        }
        if !c.eat(",") {
            break;
        }
    }
    if op.name.ends_with(".compare") {
        let names = ["comparison_direction", "compare_type"];
        for (name, value) in names.iter().zip(enums.drain(..)) {
            op.attrs
                .push((name.to_string(), Attr::Enum(String::new(), value)));
        }
    }
    if let Some(e) = enums.first() {
        return Err(c.err(format!("unexpected keyword `{e}` in {}", op.name)));
    }
    if c.eat("{") {
        op.attrs.extend(fields(c, "}")?);
    }
    if c.eat(":") {
        op.result_types = signature(c, &op.name)?;
    }
    if c.eat("{") {
        op.attrs.extend(fields(c, "}")?);
    }
    Ok(())
}

/// `(%x init: %i), ... applies stablehlo.add across dimensions = [..] : (..) -> ..` or
/// `... across dimensions = [..] : (..) -> .. reducer(%a: t, %b: t) (..) { region }`.
fn reduce(c: &mut Cursor<'_>, op: &mut Operation, depth: usize) -> Result<()> {
    if c.looking_at("\"") || !c.looking_at("(") {
        return Err(c.err("expected `(%operand init: %init)`"));
    }
    let (mut inputs, mut inits) = (Vec::new(), Vec::new());
    loop {
        c.expect("(")?;
        inputs.push(value_ref(c)?.ok_or_else(|| c.err("expected an operand"))?);
        c.expect("init:")?;
        inits.push(value_ref(c)?.ok_or_else(|| c.err("expected an init value"))?);
        c.expect(")")?;
        if !c.eat(",") {
            break;
        }
    }
    let applies = if c.eat_keyword("applies") {
        Some((c.here(), c.expect_ident("the reducing op")?.to_string()))
    } else {
        None
    };
    if !(c.eat_keyword("across") && c.eat_keyword("dimensions")) {
        return Err(c.err("expected `across dimensions = [...]`"));
    }
    c.expect("=")?;
    let dims = parse_bare_attr(c)?;
    op.attrs.push(("dimensions".into(), dims));
    if c.eat("{") {
        op.attrs.extend(fields(c, "}")?);
    }
    c.expect(":")?;
    let input_types = type_list(c)?;
    c.expect("->")?;
    op.result_types = type_list(c)?;
    let n = inputs.len();
    op.operands = inputs.into_iter().chain(inits).collect();
    let body = match applies {
        Some((pos, name)) => applies_region(&name, pos, &input_types, n)?,
        None => reducer(c, n, depth)?,
    };
    op.regions.push(body);
    Ok(())
}

/// The region of `applies stablehlo.add`: `^bb0(%acc, %x): %r = add %acc, %x; return %r`.
fn applies_region(name: &str, pos: Pos, input_types: &[Type], n: usize) -> Result<Region> {
    let scalar = |t: &Type| match t.tensor() {
        Some(a) => Ok(Type::Tensor(crate::shape::ArrayShape::scalar(a.ty))),
        None => Err(ImportError::Invalid {
            message: "reduce init values must be tensors".into(),
            pos,
        }),
    };
    if n != 1 || input_types.len() != 2 {
        return Err(ImportError::Invalid {
            message: "`applies` takes one operand and one init value".into(),
            pos,
        });
    }
    let t = scalar(&input_types[1])?;
    let mut body = Operation::new(name, pos);
    body.operands = vec!["%acc".into(), "%x".into()];
    body.results = vec!["%r".into()];
    body.result_types = vec![t.clone()];
    let mut ret = Operation::new("stablehlo.return", pos);
    ret.operands = vec!["%r".into()];
    Ok(Region {
        args: vec![("%acc".into(), t.clone()), ("%x".into(), t)],
        ops: vec![body, ret],
    })
}

/// `reducer(%acc0: t, %x0: t) (%acc1: u, %x1: u) { ops }`: block arguments accumulators
/// first, then elements.
fn reducer(c: &mut Cursor<'_>, n: usize, depth: usize) -> Result<Region> {
    if !c.eat_keyword("reducer") {
        return Err(c.err("expected `applies` or `reducer`"));
    }
    let (mut accs, mut elems) = (Vec::new(), Vec::new());
    for _ in 0..n {
        c.expect("(")?;
        for list in [&mut accs, &mut elems] {
            let name = c
                .sigil_name('%')
                .ok_or_else(|| c.err("expected a block argument"))?;
            c.expect(":")?;
            list.push((name, parse_type(c)?));
            c.eat(",");
        }
        c.expect(")")?;
    }
    let mut r = region(c, depth + 1)?;
    r.args = accs.into_iter().chain(elems).collect();
    Ok(r)
}

/// `(%iter = %init, ...) : types [attributes {..}] cond { .. } do { .. }`.
fn while_loop(c: &mut Cursor<'_>, op: &mut Operation, depth: usize) -> Result<()> {
    if !c.eat("(") {
        return Err(c.err("expected `(%iterArg = %init, ...)`"));
    }
    let mut names = Vec::new();
    if !c.eat(")") {
        loop {
            names.push(
                c.sigil_name('%')
                    .ok_or_else(|| c.err("expected `%iterArg`"))?,
            );
            c.expect("=")?;
            op.operands
                .push(value_ref(c)?.ok_or_else(|| c.err("expected an initial value"))?);
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    if c.eat(":") {
        op.result_types = type_list_plain(c)?;
    }
    if c.eat_keyword("attributes") {
        c.expect("{")?;
        op.attrs.extend(fields(c, "}")?);
    }
    if names.len() != op.result_types.len() {
        return Err(c.err("one type per loop value expected"));
    }
    let args: Vec<(String, Type)> = names
        .into_iter()
        .zip(op.result_types.iter().cloned())
        .collect();
    for keyword in ["cond", "do"] {
        if !c.eat_keyword(keyword) {
            return Err(c.err(format!("expected `{keyword}`")));
        }
        let mut r = region(c, depth + 1)?;
        r.args = args.clone();
        op.regions.push(r);
    }
    Ok(())
}

/// `(%a, %b) dim_numbers = [..]x[..]->[..], window = {stride = .., pad = .., lhs_dilate = ..,
/// rhs_dilate = .., reverse = ..} {attrs} : (..) -> ..`.
fn convolution(c: &mut Cursor<'_>, op: &mut Operation) -> Result<()> {
    if !c.eat("(") {
        return Err(c.err("expected `(%lhs, %rhs)`"));
    }
    op.operands = value_list(c, ")")?;
    loop {
        let word = c.expect_ident("`dim_numbers` or `window`")?;
        c.expect("=")?;
        match word {
            "dim_numbers" => op
                .attrs
                .push(("dimension_numbers".into(), Attr::Conv(conv_dims(c)?))),
            "window" => {
                c.expect("{")?;
                for (k, v) in fields(c, "}")? {
                    let name = match k.as_str() {
                        "stride" => "window_strides",
                        "pad" => "padding",
                        "lhs_dilate" => "lhs_dilation",
                        "rhs_dilate" => "rhs_dilation",
                        "reverse" => "window_reversal",
                        other => return Err(c.err(format!("unknown window field `{other}`"))),
                    };
                    op.attrs.push((name.into(), v));
                }
            }
            other => return Err(c.err(format!("unexpected `{other}`"))),
        }
        if !c.eat(",") {
            break;
        }
    }
    if c.eat("{") {
        op.attrs.extend(fields(c, "}")?);
    }
    c.expect(":")?;
    op.result_types = signature(c, &op.name)?;
    Ok(())
}

/// `chlo.top_k(%x, k = 2) : T -> (V, I)`.
fn top_k(c: &mut Cursor<'_>, op: &mut Operation) -> Result<()> {
    c.expect("(")?;
    op.operands
        .push(value_ref(c)?.ok_or_else(|| c.err("expected an operand"))?);
    c.expect(",")?;
    if !c.eat_keyword("k") {
        return Err(c.err("expected `k = ...`"));
    }
    c.expect("=")?;
    let k = c.expect_integer("k")?;
    op.attrs.push(("k".into(), Attr::Int(i128::from(k))));
    c.expect(")")?;
    c.expect(":")?;
    op.result_types = signature(c, &op.name)?;
    Ok(())
}

/// `chlo.scan(%inputs..) inits(%inits..) dimension=d [attributes {is_reverse = true}]
/// { region } : (types) -> (types)`: operands inputs then inits, their split kept as the
/// generic form's `operandSegmentSizes`.
fn scan(c: &mut Cursor<'_>, op: &mut Operation, depth: usize) -> Result<()> {
    c.expect("(")?;
    op.operands = value_list(c, ")")?;
    let m = op.operands.len() as i64;
    if !c.eat_keyword("inits") {
        return Err(c.err("expected `inits(...)`"));
    }
    c.expect("(")?;
    let inits = value_list(c, ")")?;
    let k = inits.len() as i64;
    op.operands.extend(inits);
    op.attrs
        .push(("operandSegmentSizes".into(), Attr::Array(vec![m, k])));
    if !c.eat_keyword("dimension") {
        return Err(c.err("expected `dimension=`"));
    }
    c.expect("=")?;
    let d = c.expect_integer("the scan dimension")?;
    op.attrs
        .push(("dimension".into(), Attr::Int(i128::from(d))));
    if c.eat_keyword("attributes") {
        c.expect("{")?;
        op.attrs.extend(fields(c, "}")?);
    }
    op.regions.push(region(c, depth + 1)?);
    c.expect(":")?;
    op.result_types = signature(c, &op.name)?;
    Ok(())
}
