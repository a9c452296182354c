//! The module structure: `module`, `func.func`, regions and blocks, operation results, and
//! MLIR's generic operation form `"dialect.op"(%a, %b) <{props}> ({regions}) {attrs} : (types)
//! -> types`; pretty forms are read by `pretty.rs`.

use super::ast::{Func, Operation, Region, Type};
use super::attrs::{fields, parse_attr};
use super::cursor::Cursor;
use super::types::{parse_type, skip_arg_attrs, type_list};
use super::{pretty, ImportError, Result};

/// Regions nest at most this deep (a guard against hostile input overflowing the stack).
const MAX_DEPTH: usize = 64;

/// The functions of a module (or of bare `func.func`s), in order.
pub(super) fn parse(text: &str) -> Result<Vec<Func>> {
    let mut c = Cursor::new(text);
    let mut funcs = Vec::new();
    skip_aliases(&mut c)?;
    if c.eat_keyword("module") {
        c.symbol()?;
        if c.eat_keyword("attributes") {
            c.expect("{")?;
            fields(&mut c, "}")?;
        }
        c.expect("{")?;
        while !c.eat("}") {
            if c.at_end() {
                return Err(c.err("expected `}` closing the module"));
            }
            funcs.push(func(&mut c)?);
        }
        skip_loc(&mut c)?;
    }
    loop {
        skip_aliases(&mut c)?;
        if c.at_end() {
            break;
        }
        funcs.push(func(&mut c)?);
    }
    if funcs.is_empty() {
        return Err(c.err("expected `module` or `func.func`"));
    }
    Ok(funcs)
}

/// Skips top-level `#alias = value` definitions (`#loc3 = loc(...)`).
fn skip_aliases(c: &mut Cursor<'_>) -> Result<()> {
    while c.looking_at("#") {
        c.expect("#")?;
        c.expect_ident("an alias name")?;
        c.expect("=")?;
        parse_attr(c)?;
    }
    Ok(())
}

/// Skips a trailing `loc(...)`.
pub(super) fn skip_loc(c: &mut Cursor<'_>) -> Result<()> {
    if c.eat_keyword("loc") {
        c.skip_balanced()?;
    }
    Ok(())
}

/// `func.func [visibility] @name(%arg: type, ...) [-> results] [attributes {..}] { body }`.
fn func(c: &mut Cursor<'_>) -> Result<Func> {
    let pos = c.here();
    if !c.eat_keyword("func.func") {
        return Err(c.err("expected `func.func`"));
    }
    let mut public = true;
    for vis in ["public", "private", "nested"] {
        if c.eat_keyword(vis) {
            public = vis != "private";
        }
    }
    let name = c
        .symbol()?
        .ok_or_else(|| c.err("expected the function's `@name`"))?;
    c.expect("(")?;
    let mut args = Vec::new();
    if !c.eat(")") {
        loop {
            let arg = c
                .sigil_name('%')
                .ok_or_else(|| c.err("expected an argument `%name`"))?;
            c.expect(":")?;
            let ty = parse_type(c)?;
            skip_arg_attrs(c)?;
            args.push((arg, ty));
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    // Result attributes only appear inside parentheses: a `{` after a single result type is
    // the body.
    let results = if c.eat("->") {
        type_list(c)?
    } else {
        Vec::new()
    };
    if c.eat_keyword("attributes") {
        c.expect("{")?;
        fields(c, "}")?;
    }
    if !c.looking_at("{") {
        return Err(ImportError::Unsupported {
            feature: format!("function declaration @{name} without a body"),
            pos,
        });
    }
    let mut body = region(c, 0)?;
    if !body.args.is_empty() {
        return Err(c.err("a function body takes its arguments from the signature"));
    }
    body.args = args;
    skip_loc(c)?;
    Ok(Func {
        name,
        public,
        body,
        results,
        pos,
    })
}

/// `{ [^bb0(%a: t, ...):] ops }`.
pub(super) fn region(c: &mut Cursor<'_>, depth: usize) -> Result<Region> {
    if depth > MAX_DEPTH {
        return Err(c.err("regions nested too deeply"));
    }
    c.expect("{")?;
    let mut r = Region::default();
    if c.sigil_name('^').is_some() {
        if c.eat("(") && !c.eat(")") {
            loop {
                let name = c
                    .sigil_name('%')
                    .ok_or_else(|| c.err("expected a block argument"))?;
                c.expect(":")?;
                let ty = parse_type(c)?;
                skip_loc(c)?;
                r.args.push((name, ty));
                if c.eat(")") {
                    break;
                }
                c.expect(",")?;
            }
        }
        c.expect(":")?;
    }
    while !c.eat("}") {
        if c.at_end() {
            return Err(c.err("expected `}` closing a region"));
        }
        if c.looking_at("^") {
            let pos = c.here();
            return Err(ImportError::Unsupported {
                feature: "regions of several blocks".into(),
                pos,
            });
        }
        r.ops.push(operation(c, depth)?);
    }
    Ok(r)
}

/// `%name`, `%name#3`: a value reference.
pub(super) fn value_ref(c: &mut Cursor<'_>) -> Result<Option<String>> {
    let Some(mut name) = c.sigil_name('%') else {
        return Ok(None);
    };
    if c.rest().starts_with('#') {
        c.expect("#")?;
        let n = c.expect_integer("a result number")?;
        name = format!("{name}#{n}");
    }
    Ok(Some(name))
}

/// `%a, %b, ...` until `close` (the opening bracket already read).
pub(super) fn value_list(c: &mut Cursor<'_>, close: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    if c.eat(close) {
        return Ok(out);
    }
    loop {
        out.push(value_ref(c)?.ok_or_else(|| c.err("expected a value `%name`"))?);
        if c.eat(close) {
            return Ok(out);
        }
        c.expect(",")?;
    }
}

/// The results before `=`: `%a, %b` or `%r:2` (as `%r#0`, `%r#1`).
fn results(c: &mut Cursor<'_>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    while let Some(name) = c.sigil_name('%') {
        if c.eat(":") {
            let n = c.expect_integer("a result count")?;
            if !(0..=4096).contains(&n) {
                return Err(c.err("result count out of range"));
            }
            out.extend((0..n).map(|i| format!("{name}#{i}")));
        } else {
            out.push(name);
        }
        if !c.eat(",") {
            break;
        }
    }
    if !out.is_empty() {
        c.expect("=")?;
    }
    Ok(out)
}

/// One operation, generic or pretty, with its results and trailing `loc(...)`.
fn operation(c: &mut Cursor<'_>, depth: usize) -> Result<Operation> {
    let pos = c.here();
    let results = results(c)?;
    let mut op = if c.looking_at("\"") {
        let name = c.string()?;
        let mut op = Operation::new(name, pos);
        generic(c, &mut op, depth)?;
        op
    } else {
        let name_pos = c.here();
        let name = c.expect_ident("an operation name")?;
        let mut op = Operation::new(name, pos);
        pretty::parse(c, &mut op, name_pos, depth)?;
        op
    };
    op.results = results;
    skip_loc(c)?;
    Ok(op)
}

/// The rest of a generic operation after its quoted name.
fn generic(c: &mut Cursor<'_>, op: &mut Operation, depth: usize) -> Result<()> {
    c.expect("(")?;
    op.operands = value_list(c, ")")?;
    if c.looking_at("[") {
        let pos = c.here();
        return Err(ImportError::Unsupported {
            feature: "successor blocks".into(),
            pos,
        });
    }
    if c.eat("<{") {
        op.attrs.extend(fields(c, "}>")?);
    }
    if c.eat("(") {
        loop {
            op.regions.push(region(c, depth + 1)?);
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    if c.eat("{") {
        op.attrs.extend(fields(c, "}")?);
    }
    c.expect(":")?;
    type_list(c)?;
    c.expect("->")?;
    op.result_types = type_list(c)?;
    Ok(())
}

/// The result types a pretty form's trailing types give: a functional type's results, else
/// the types listed (all of them, or the last for `select`'s `pred_type, type`).
pub(super) fn signature(c: &mut Cursor<'_>, op_name: &str) -> Result<Vec<Type>> {
    if c.looking_at("(") {
        let inputs = type_list(c)?;
        if c.eat("->") {
            return type_list(c);
        }
        return Ok(inputs);
    }
    let mut types = vec![parse_type(c)?];
    if c.eat("->") {
        return type_list(c);
    }
    while c.eat(",") {
        types.push(parse_type(c)?);
    }
    if op_name.ends_with(".select") {
        types.drain(..types.len() - 1);
    }
    Ok(types)
}
