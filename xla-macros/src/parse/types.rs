//! Types: element type names, `f32[2,3]{0,1}`, tuples of types, dimensions.

use super::*;

/// Element type names accepted in types, suffixes and constant paths: XLA's (`s32`) and
/// Rust's (`i32`, `bool` and half's `f16`/`bf16`).
pub fn element_type_from_any(name: &str) -> Option<ElementType> {
    if let Some(t) = ElementType::from_name(name) {
        return Some(t);
    }
    Some(match name {
        "bool" => ElementType::Pred,
        "i8" => ElementType::S8,
        "i16" => ElementType::S16,
        "i32" => ElementType::S32,
        "i64" => ElementType::S64,
        _ => return None,
    })
}

pub(super) fn all_type_names() -> String {
    ElementType::ALL
        .iter()
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a `{...}` after a type's dimensions is its layout.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum LayoutBrace {
    Always,
    /// After a fn's result type: only when the body's `{...}` follows it.
    IfBodyFollows,
}

/// Parse a type such as `f32[2,3]{0,1}` or `(f32[2], s32[])`.
pub(super) fn parse_type(input: ParseStream, layout_brace: LayoutBrace) -> syn::Result<TypeAst> {
    if input.peek(token::Paren) {
        let content;
        let paren = parenthesized!(content in input);
        let mut elems = Vec::new();
        while !content.is_empty() {
            elems.push(parse_type(&content, LayoutBrace::Always)?.shape);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        let sp = Sp {
            start: paren.span.open(),
            end: paren.span.close(),
        };
        return Ok(TypeAst {
            shape: Shape::Tuple(elems),
            sp,
        });
    }
    let ty_ident: Ident = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected a type such as `f32[2,3]`, `s32[]`, `(f32[2], s32[])` or `token`",
        )
    })?;
    let tname = ty_ident.to_string();
    if tname == "token" {
        // XLA's token type: no dimensions, orders side effects (`AfterAll`).
        if input.peek(token::Bracket) {
            return Err(Sp::one(ty_ident.span())
                .error("`token` has no dimensions or element type: write `token` alone"));
        }
        return Ok(TypeAst {
            shape: Shape::Token,
            sp: Sp::one(ty_ident.span()),
        });
    }
    let Some(ty) = ElementType::from_name(&tname) else {
        let hint = match element_type_from_any(&tname) {
            Some(t) => format!("; XLA calls `{tname}` `{}`", t.name()),
            None => String::new(),
        };
        return Err(Sp::one(ty_ident.span()).error(format!(
            "unknown element type `{tname}`{hint}; expected one of {}",
            all_type_names()
        )));
    };
    if !input.peek(token::Bracket) {
        return Err(Sp::one(ty_ident.span()).error(format!(
            "`{tname}` needs its dimensions: `{tname}[2,3]`, or `{tname}[]` for a scalar"
        )));
    }
    let content;
    let bracket = bracketed!(content in input);
    let mut dims = Vec::new();
    let mut dynamic = Vec::new();
    while !content.is_empty() {
        // `<=N`: a bounded dynamic dimension, as HLO text prints it.
        let is_dynamic = content.peek(Token![<=]);
        if is_dynamic {
            content.parse::<Token![<=]>()?;
        } else if content.peek(Token![<]) {
            return Err(content.error("a dynamic dimension is written `<=N`, its bound N"));
        }
        dynamic.push(is_dynamic);
        dims.push(parse_dim(&content)?);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    let mut sp = Sp {
        start: ty_ident.span(),
        end: bracket.span.close(),
    };
    if dims.len() > MAX_RANK {
        return Err(sp.error(format!(
            "rank {} is more than the {MAX_RANK} dimensions xla! supports",
            dims.len()
        )));
    }
    let mut count: i64 = 1;
    for &d in &dims {
        count = match count.checked_mul(d) {
            Some(c) => c,
            None => return Err(sp.error("the element count of this shape overflows i64")),
        };
    }
    let mut shape = ArrayShape::new(ty, &dims);
    shape.dynamic = dynamic;
    let is_layout = match layout_brace {
        LayoutBrace::Always => input.peek(token::Brace),
        LayoutBrace::IfBodyFollows => brace_then_brace(input),
    };
    if is_layout {
        let content;
        let brace = braced!(content in input);
        let mut m2m = Vec::new();
        while !content.is_empty() {
            let lit: syn::LitInt = content.parse()?;
            m2m.push(lit.base10_parse::<i64>()?);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        sp.end = brace.span.close();
        let mut sorted = m2m.clone();
        sorted.sort_unstable();
        if sorted != (0..dims.len() as i64).collect::<Vec<_>>() {
            return Err(sp.error(format!(
                "layout {{{}}} is not a permutation of the {} dimension numbers 0..{}: \
                 minor_to_major lists every dimension once, fastest-varying first",
                m2m.iter().map(i64::to_string).collect::<Vec<_>>().join(","),
                dims.len(),
                dims.len()
            )));
        }
        shape.layout = Some(Layout::new(&m2m));
    }
    Ok(TypeAst {
        shape: Shape::Array(shape),
        sp,
    })
}

pub(super) fn parse_dim(input: ParseStream) -> syn::Result<i64> {
    if input.peek(Token![-]) {
        return Err(input.error("dimension sizes cannot be negative"));
    }
    let lit: syn::LitInt = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), "expected a dimension size (an integer literal)"))?;
    if !lit.suffix().is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            "dimension sizes take no suffix",
        ));
    }
    lit.base10_parse::<i64>().map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!("dimension size {lit} does not fit in i64"),
        )
    })
}
