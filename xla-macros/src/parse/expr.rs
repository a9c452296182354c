//! Expressions: precedence climbing over binary and unary operators, postfix `.0`, op
//! applications with positional and named arguments, closures, literals, constant paths.

use super::*;

/// Parse an expression at the lowest precedence.
pub(super) fn parse_expr(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    if depth > MAX_DEPTH {
        return Err(input.error(format!(
            "expression nested more than {MAX_DEPTH} levels deep"
        )));
    }
    let lhs = parse_unary(input, depth)?;
    parse_binary_rhs(input, depth, lhs, 1)
}

/// Precedence climbing: fold operators binding at least `min_prec`.
pub(super) fn parse_binary_rhs(
    input: ParseStream,
    depth: usize,
    mut lhs: Expr,
    min_prec: u8,
) -> syn::Result<Expr> {
    loop {
        let Some((op, op_sp)) = peek_binop(input)? else {
            return Ok(lhs);
        };
        if op.precedence() < min_prec {
            return Ok(lhs);
        }
        consume_binop(input, op)?;
        let mut rhs = parse_unary(input, depth)?;
        while let Some((next, _)) = peek_binop(input)? {
            if next.precedence() > op.precedence() {
                rhs = parse_binary_rhs(input, depth + 1, rhs, op.precedence() + 1)?;
            } else {
                break;
            }
        }
        if op.precedence() == 1 {
            if let Some((next, next_sp)) = peek_binop(input)? {
                if next.precedence() == 1 {
                    return Err(
                        next_sp.error("comparison operators cannot be chained: add parentheses")
                    );
                }
            }
        }
        let sp = lhs.sp.to(rhs.sp);
        lhs = Expr {
            kind: ExprKind::Binary {
                op,
                op_sp,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            sp,
        };
    }
}

/// The binary operator at the cursor, if any (longest match first).
pub(super) fn peek_binop(input: ParseStream) -> syn::Result<Option<(BinTok, Sp)>> {
    let span = input.span();
    let sp = Sp::one(span);
    if input.peek(Token![&&]) || input.peek(Token![||]) {
        return Err(input.error("`&&` and `||` are not XLA ops: use `&` / `|` (And / Or) on pred"));
    }
    if input.peek(Token![<<=])
        || input.peek(Token![>>=])
        || input.peek(Token![+=])
        || input.peek(Token![-=])
    {
        return Err(input.error("assignment operators are not supported: XLA values are immutable"));
    }
    let op = if input.peek(Token![<<]) {
        BinTok::Shl
    } else if input.peek(Token![>>]) {
        BinTok::Shr
    } else if input.peek(Token![==]) {
        BinTok::Eq
    } else if input.peek(Token![!=]) {
        BinTok::Ne
    } else if input.peek(Token![<=]) {
        BinTok::Le
    } else if input.peek(Token![>=]) {
        BinTok::Ge
    } else if input.peek(Token![<]) {
        BinTok::Lt
    } else if input.peek(Token![>]) {
        BinTok::Gt
    } else if input.peek(Token![+]) {
        BinTok::Add
    } else if input.peek(Token![-]) && !input.peek(Token![->]) {
        BinTok::Sub
    } else if input.peek(Token![*]) {
        BinTok::Mul
    } else if input.peek(Token![/]) {
        BinTok::Div
    } else if input.peek(Token![%]) {
        BinTok::Rem
    } else if input.peek(Token![&]) {
        BinTok::BitAnd
    } else if input.peek(Token![|]) {
        BinTok::BitOr
    } else if input.peek(Token![^]) {
        BinTok::BitXor
    } else {
        return Ok(None);
    };
    Ok(Some((op, sp)))
}

pub(super) fn consume_binop(input: ParseStream, op: BinTok) -> syn::Result<()> {
    match op {
        BinTok::Add => input.parse::<Token![+]>().map(drop),
        BinTok::Sub => input.parse::<Token![-]>().map(drop),
        BinTok::Mul => input.parse::<Token![*]>().map(drop),
        BinTok::Div => input.parse::<Token![/]>().map(drop),
        BinTok::Rem => input.parse::<Token![%]>().map(drop),
        BinTok::BitAnd => input.parse::<Token![&]>().map(drop),
        BinTok::BitOr => input.parse::<Token![|]>().map(drop),
        BinTok::BitXor => input.parse::<Token![^]>().map(drop),
        BinTok::Shl => input.parse::<Token![<<]>().map(drop),
        BinTok::Shr => input.parse::<Token![>>]>().map(drop),
        BinTok::Eq => input.parse::<Token![==]>().map(drop),
        BinTok::Ne => input.parse::<Token![!=]>().map(drop),
        BinTok::Lt => input.parse::<Token![<]>().map(drop),
        BinTok::Le => input.parse::<Token![<=]>().map(drop),
        BinTok::Gt => input.parse::<Token![>]>().map(drop),
        BinTok::Ge => input.parse::<Token![>=]>().map(drop),
    }
}

pub(super) fn parse_unary(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    if depth > MAX_DEPTH {
        return Err(input.error(format!(
            "expression nested more than {MAX_DEPTH} levels deep"
        )));
    }
    let op = if input.peek(Token![-]) {
        UnTok::Neg
    } else if input.peek(Token![!]) {
        UnTok::Not
    } else if input.peek(Token![~]) {
        return Err(input.error("use `!x` (or Not(x)) for bitwise/logical not"));
    } else {
        return parse_postfix(input, depth);
    };
    let op_sp = Sp::one(input.span());
    match op {
        UnTok::Neg => input.parse::<Token![-]>().map(drop)?,
        UnTok::Not => input.parse::<Token![!]>().map(drop)?,
    }
    let operand = parse_unary(input, depth + 1)?;
    let sp = op_sp.to(operand.sp);
    // `-2.5` is one literal, so that it can take an unsigned type's error or a float's sign.
    if op == UnTok::Neg {
        if let ExprKind::Lit(lit) = &operand.kind {
            let negated = match lit.value {
                Scalar::Int(v) => Some(Scalar::Int(-v)),
                Scalar::Float(v) => Some(Scalar::Float(-v)),
                Scalar::Bool(_) => None,
            };
            if let Some(value) = negated {
                let lit = LitVal {
                    value,
                    ty: lit.ty,
                    text: format!("-{}", lit.text),
                };
                return Ok(Expr {
                    kind: ExprKind::Lit(lit),
                    sp,
                });
            }
        }
    }
    Ok(Expr {
        kind: ExprKind::Unary {
            op,
            op_sp,
            operand: Box::new(operand),
        },
        sp,
    })
}

pub(super) fn parse_postfix(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    let mut e = parse_primary(input, depth)?;
    while input.peek(Token![.]) && !input.peek(Token![..]) {
        input.parse::<Token![.]>()?;
        if input.peek(syn::LitFloat) {
            return Err(input.error("write nested tuple access as `(t.0).1`"));
        }
        let lit: syn::LitInt = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a tuple index such as `.0`; xla! values have no methods or fields",
            )
        })?;
        let index = lit
            .base10_parse::<u32>()
            .map_err(|_| syn::Error::new(lit.span(), "tuple index out of range"))?;
        let index_sp = Sp::one(lit.span());
        let sp = e.sp.to(index_sp);
        e = Expr {
            kind: ExprKind::Field {
                base: Box::new(e),
                index,
                index_sp,
            },
            sp,
        };
    }
    Ok(e)
}

pub(super) fn parse_primary(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    if depth > MAX_DEPTH {
        return Err(input.error(format!(
            "expression nested more than {MAX_DEPTH} levels deep"
        )));
    }
    if input.peek(token::Paren) {
        if let Some(ty) = tuple_type(input) {
            return Ok(Expr {
                sp: ty.sp,
                kind: ExprKind::Type(ty),
            });
        }
        let content;
        let paren = parenthesized!(content in input);
        let sp = Sp {
            start: paren.span.open(),
            end: paren.span.close(),
        };
        if content.is_empty() {
            return Err(sp.error("`()` is not a value; an empty tuple is `Tuple()`"));
        }
        let inner = parse_expr(&content, depth + 1)?;
        if content.peek(Token![,]) {
            return Err(sp.error("tuple expressions are written `Tuple(a, b)`"));
        }
        if !content.is_empty() {
            return Err(content.error("expected `)`"));
        }
        return Ok(Expr {
            kind: ExprKind::Paren(Box::new(inner)),
            sp,
        });
    }
    if input.peek(token::Bracket) {
        let content;
        let bracket = bracketed!(content in input);
        let sp = Sp {
            start: bracket.span.open(),
            end: bracket.span.close(),
        };
        let mut elems = Vec::new();
        while !content.is_empty() {
            elems.push(parse_expr(&content, depth + 1)?);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        return Ok(Expr {
            kind: ExprKind::List(elems),
            sp,
        });
    }
    if input.peek(token::Brace) {
        let content;
        let brace = braced!(content in input);
        let sp = Sp {
            start: brace.span.open(),
            end: brace.span.close(),
        };
        let body = parse_body(&content, depth + 1)?;
        return Ok(Expr {
            kind: ExprKind::Block(body),
            sp,
        });
    }
    if input.peek(Token![||]) {
        return Err(input.error("a computation takes parameters: `|a, b| ...`"));
    }
    if input.peek(Token![|]) {
        return parse_closure(input, depth);
    }
    if input.peek(syn::Lit) {
        let lit: syn::Lit = input.parse()?;
        return parse_lit(lit);
    }
    if input.peek(Ident) && input.peek2(token::Bracket) && starts_with_element_type(input) {
        let ty = parse_type(input, LayoutBrace::Always)?;
        return Ok(Expr {
            sp: ty.sp,
            kind: ExprKind::Type(ty),
        });
    }
    if input.peek(Ident) && !input.peek(Token![let]) && !input.peek(Token![fn]) {
        return parse_name(input, depth);
    }
    Err(input.error("expected an expression: an op call `Add(x, y)`, a name, a literal or `(...)`"))
}

/// A tuple type used as a value (CustomCall's `shape = (f32[2, 3], s32[])`): parentheses
/// holding a top-level comma whose content parses as types. Anything else is left to the
/// expression parser, so `(x, y)` keeps its message about `Tuple(a, b)`.
pub(super) fn tuple_type(input: ParseStream) -> Option<TypeAst> {
    let (inner, _, _) = input.cursor().group(proc_macro2::Delimiter::Parenthesis)?;
    let mut c = inner;
    let mut comma = false;
    while let Some((tt, next)) = c.token_tree() {
        comma |= matches!(&tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',');
        c = next;
    }
    if !comma {
        return None;
    }
    let fork = input.fork();
    let ty = parse_type(&fork, LayoutBrace::Always).ok()?;
    input.advance_to(&fork);
    Some(ty)
}

/// True when the next token is an element type name (`f32`, `pred`, ...).
pub(super) fn starts_with_element_type(input: ParseStream) -> bool {
    let fork = input.fork();
    let ident: syn::Result<Ident> = fork.parse();
    ident.is_ok_and(|i| ElementType::from_name(&i.to_string()).is_some())
}

pub(super) fn parse_closure(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    let open: Token![|] = input.parse()?;
    let mut params = Vec::new();
    while !input.peek(Token![|]) {
        if input.is_empty() {
            return Err(input.error("expected `|` closing the computation's parameters"));
        }
        let name: Ident = input.parse()?;
        let ty = if input.peek(Token![:]) {
            input.parse::<Token![:]>()?;
            Some(parse_type(input, LayoutBrace::Always)?)
        } else {
            None
        };
        params.push(ClosureParam { name, ty });
        if input.peek(Token![|]) {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    input.parse::<Token![|]>()?;
    let body = parse_expr(input, depth + 1)?;
    let sp = Sp::one(open.span).to(body.sp);
    Ok(Expr {
        kind: ExprKind::Closure {
            params,
            body: Box::new(body),
        },
        sp,
    })
}

/// A literal's element type from its suffix (`2i32`, `1.5f64`, `3s8`).
pub(super) fn suffix_type(suffix: &str, span: Span) -> syn::Result<Option<ElementType>> {
    if suffix.is_empty() {
        return Ok(None);
    }
    match element_type_from_any(suffix) {
        Some(t) => Ok(Some(t)),
        None => Err(syn::Error::new(
            span,
            format!("unknown literal suffix `{suffix}`; expected an element type such as `f32`, `i32`/`s32`, `u8`"),
        )),
    }
}

pub(super) fn parse_lit(lit: syn::Lit) -> syn::Result<Expr> {
    let sp = Sp::one(lit.span());
    let (value, ty, text) = match &lit {
        syn::Lit::Int(i) => {
            let ty = suffix_type(i.suffix(), i.span())?;
            let v = i
                .base10_parse::<u128>()
                .ok()
                .and_then(|v| i128::try_from(v).ok());
            let Some(v) = v else {
                return Err(sp.error(format!(
                    "integer literal `{}` is too large",
                    i.base10_digits()
                )));
            };
            (Scalar::Int(v), ty, i.to_string())
        }
        syn::Lit::Float(f) => {
            let ty = suffix_type(f.suffix(), f.span())?;
            let v: f64 = f.base10_parse()?;
            if !v.is_finite() {
                return Err(sp.error(format!(
                    "float literal `{}` is out of range; use f64::INFINITY for infinity",
                    f.base10_digits()
                )));
            }
            (Scalar::Float(v), ty, f.to_string())
        }
        syn::Lit::Bool(b) => (Scalar::Bool(b.value), None, b.value.to_string()),
        syn::Lit::Str(s) => {
            return Ok(Expr {
                kind: ExprKind::Str(s.value()),
                sp,
            })
        }
        syn::Lit::ByteStr(_) | syn::Lit::CStr(_) | syn::Lit::Byte(_) | syn::Lit::Char(_) => {
            return Err(
                sp.error("xla! literals are numbers, `true` / `false` and strings (attributes)")
            );
        }
        syn::Lit::Verbatim(_) => return Err(sp.error("unsupported literal")),
        _ => return Err(sp.error("unsupported literal")),
    };
    Ok(Expr {
        kind: ExprKind::Lit(LitVal { value, ty, text }),
        sp,
    })
}

pub(super) fn parse_name(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    let name: Ident = input.call(syn::ext::IdentExt::parse_any)?;
    let name_sp = Sp::one(name.span());
    if input.peek(Token![::]) {
        let mut segs = vec![name];
        while input.peek(Token![::]) {
            input.parse::<Token![::]>()?;
            segs.push(input.call(syn::ext::IdentExt::parse_any)?);
        }
        let sp = name_sp.to(Sp::one(segs.last().map_or(name_sp.end, Ident::span)));
        return path_constant(&segs, sp);
    }
    if input.peek(token::Paren) {
        let content;
        let paren = parenthesized!(content in input);
        let mut args = Vec::new();
        while !content.is_empty() {
            args.push(parse_arg(&content, depth + 1)?);
            if content.is_empty() {
                break;
            }
            if !content.peek(Token![,]) {
                // Say what was expected in the language's terms, not only syn's "expected `,`".
                let what = match args.last() {
                    Some(Arg::Attr { name: a, .. }) => format!("after attribute `{a}` of {name}"),
                    Some(Arg::Pos(_)) | None => format!("between operands of {name}"),
                };
                return Err(content.error(format!(
                    "expected `,` {what}; attributes are written `name = value`"
                )));
            }
            content.parse::<Token![,]>()?;
        }
        let sp = name_sp.to(Sp::one(paren.span.close()));
        return Ok(Expr {
            kind: ExprKind::Call { name, args },
            sp,
        });
    }
    if input.peek(Token![!]) && !input.peek(Token![!=]) {
        return Err(input.error("macros are not supported inside xla!"));
    }
    Ok(Expr {
        kind: ExprKind::Var(name),
        sp: name_sp,
    })
}

pub(super) fn parse_arg(input: ParseStream, depth: usize) -> syn::Result<Arg> {
    if input.peek(Ident)
        && input.peek2(Token![=])
        && !input.peek2(Token![==])
        && !input.peek2(Token![=>])
    {
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let value = parse_expr(input, depth)?;
        let sp = Sp::one(name.span()).to(value.sp);
        return Ok(Arg::Attr { name, value, sp });
    }
    Ok(Arg::Pos(parse_expr(input, depth)?))
}

/// `f32::MAX`, `f32::consts::PI`, `i32::MIN`, ...: a typed scalar literal.
pub(super) fn path_constant(segs: &[Ident], sp: Sp) -> syn::Result<Expr> {
    let names: Vec<String> = segs.iter().map(Ident::to_string).collect();
    let text = names.join("::");
    let unknown = || {
        sp.error(format!("unknown constant `{text}`; expected e.g. f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, f32::MIN, i32::MAX, f64::consts::PI"))
    };
    let ty = match names.first().and_then(|n| element_type_from_any(n)) {
        Some(t) => t,
        None => return Err(unknown()),
    };
    let tail: Vec<&str> = names.iter().skip(1).map(String::as_str).collect();
    let value = match (ty, tail.as_slice()) {
        (t, ["MAX"]) | (t, ["MIN"]) if t.is_integral() => {
            let bits = t.bit_width();
            let max_flag = tail == ["MAX"];
            let v: i128 = match (t.is_signed_int(), max_flag) {
                (true, true) => (1i128 << (bits - 1)) - 1,
                (true, false) => -(1i128 << (bits - 1)),
                (false, true) => (1i128 << bits) - 1,
                (false, false) => 0,
            };
            Scalar::Int(v)
        }
        (t, [name]) if t.is_float() => Scalar::Float(match *name {
            "INFINITY" => f64::INFINITY,
            "NEG_INFINITY" => f64::NEG_INFINITY,
            "NAN" => f64::NAN,
            "MAX" => float_max(t),
            "MIN" => -float_max(t),
            "MIN_POSITIVE" => float_min_positive(t),
            "EPSILON" => float_epsilon(t),
            _ => return Err(unknown()),
        }),
        (t, ["consts", name]) if t.is_float() => Scalar::Float(match *name {
            "PI" => std::f64::consts::PI,
            "E" => std::f64::consts::E,
            "TAU" => std::f64::consts::TAU,
            "LN_2" => std::f64::consts::LN_2,
            "LN_10" => std::f64::consts::LN_10,
            "SQRT_2" => std::f64::consts::SQRT_2,
            "FRAC_1_SQRT_2" => std::f64::consts::FRAC_1_SQRT_2,
            "FRAC_PI_2" => std::f64::consts::FRAC_PI_2,
            "FRAC_2_SQRT_PI" => std::f64::consts::FRAC_2_SQRT_PI,
            "LOG2_E" => std::f64::consts::LOG2_E,
            "LOG10_E" => std::f64::consts::LOG10_E,
            _ => return Err(unknown()),
        }),
        _ => return Err(unknown()),
    };
    Ok(Expr {
        kind: ExprKind::Lit(LitVal {
            value,
            ty: Some(ty),
            text,
        }),
        sp,
    })
}

/// Largest finite value of a real float type (xla-core owns the formats).
pub(super) fn float_max(t: ElementType) -> f64 {
    t.largest_finite().unwrap_or(f64::MAX)
}

/// Smallest positive normal value of a real float type.
pub(super) fn float_min_positive(t: ElementType) -> f64 {
    t.smallest_normal().unwrap_or(f64::MIN_POSITIVE)
}

/// Machine epsilon (2^-mantissa_bits) of a real float type.
pub(super) fn float_epsilon(t: ElementType) -> f64 {
    t.epsilon().unwrap_or(f64::EPSILON)
}
