//! Parsing an `xla! { ... }` block into a syntax tree that keeps a span range for every node.
//!
//! The surface is not Rust (`f32[2,3]` is a type, `|a: f32[], b: f32[]|` a closure, `Iota(s32[4],
//! iota_dimension = 0)` takes a type as an argument), so expressions are parsed by a small
//! precedence-climbing parser on top of syn's `ParseStream` rather than by `syn::Expr`. Nothing
//! here knows an op's rules: names are kept as written and resolved by `check`.

use proc_macro2::{Span, TokenStream};
use syn::parse::discouraged::Speculative;
use syn::parse::{Parse, ParseStream};
use syn::{braced, bracketed, parenthesized, token, Ident, Token};
use xla_core::{ArrayShape, ElementType, Layout, Shape};

use xla_core::shape::MAX_RANK;

/// How deeply expressions may nest (open parentheses, call arguments, lists, blocks, closures,
/// unary operators and operands of a tighter binary operator each count one level); deeper
/// input is an error rather than a stack overflow.
const MAX_DEPTH: usize = 96;

/// A source range: the first and the last token of a node. Errors underline the whole range
/// (syn spreads a `compile_error!` over the two spans, which works on stable Rust).
#[derive(Clone, Copy, Debug)]
pub struct Sp {
    pub start: Span,
    pub end: Span,
}

impl Sp {
    /// The range of one token.
    pub fn one(span: Span) -> Sp {
        Sp {
            start: span,
            end: span,
        }
    }

    /// From the start of `self` to the end of `other`.
    pub fn to(self, other: Sp) -> Sp {
        Sp {
            start: self.start,
            end: other.end,
        }
    }

    /// An error underlining this range.
    pub fn error(self, message: impl std::fmt::Display) -> syn::Error {
        let mut ts = TokenStream::new();
        ts.extend([proc_macro2::TokenTree::Ident(Ident::new(
            "start", self.start,
        ))]);
        ts.extend([proc_macro2::TokenTree::Ident(Ident::new("end", self.end))]);
        syn::Error::new_spanned(ts, message)
    }
}

/// A whole `xla!` block: its fns in source order.
pub struct Block {
    pub fns: Vec<FnItem>,
}

/// `[attrs] [vis] fn name(params) -> TYPE { body }`.
pub struct FnItem {
    pub attrs: Vec<syn::Attribute>,
    pub vis: syn::Visibility,
    pub name: Ident,
    pub params: Vec<Param>,
    pub ret: TypeAst,
    pub body: Body,
}

/// `name: TYPE`.
pub struct Param {
    pub name: Ident,
    pub ty: TypeAst,
}

/// A shape written by the user, with its range.
#[derive(Clone, Debug)]
pub struct TypeAst {
    pub shape: Shape,
    pub sp: Sp,
}

/// `{ let a = e; ...; result }`.
#[derive(Clone, Debug)]
pub struct Body {
    pub lets: Vec<Let>,
    pub result: Box<Expr>,
}

/// `let name [: TYPE] = value;`
#[derive(Clone, Debug)]
pub struct Let {
    pub name: Ident,
    pub ty: Option<TypeAst>,
    pub value: Expr,
}

/// An expression and its range.
#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub sp: Sp,
}

/// A scalar value as written: the literal's own value before any element type is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    /// Integers keep their exact value; `i128` holds every u64 and i64 and their negations.
    Int(i128),
    Float(f64),
}

/// A scalar literal (`2`, `-0.5`, `2i32`, `true`, `f32::NEG_INFINITY`).
#[derive(Clone, Debug)]
pub struct LitVal {
    pub value: Scalar,
    /// The element type fixed by a suffix or a path (`2i32`, `f32::MAX`); `None` takes the
    /// type from the context.
    pub ty: Option<ElementType>,
    /// The literal as written, for messages.
    pub text: String,
}

/// Binary operator sugar, each meaning a named op without `broadcast_dimensions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinTok {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinTok {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinTok::Add => "+",
            BinTok::Sub => "-",
            BinTok::Mul => "*",
            BinTok::Div => "/",
            BinTok::Rem => "%",
            BinTok::BitAnd => "&",
            BinTok::BitOr => "|",
            BinTok::BitXor => "^",
            BinTok::Shl => "<<",
            BinTok::Shr => ">>",
            BinTok::Eq => "==",
            BinTok::Ne => "!=",
            BinTok::Lt => "<",
            BinTok::Le => "<=",
            BinTok::Gt => ">",
            BinTok::Ge => ">=",
        }
    }

    /// Binding strength as in Rust: higher binds tighter.
    fn precedence(self) -> u8 {
        match self {
            BinTok::Eq | BinTok::Ne | BinTok::Lt | BinTok::Le | BinTok::Gt | BinTok::Ge => 1,
            BinTok::BitOr => 2,
            BinTok::BitXor => 3,
            BinTok::BitAnd => 4,
            BinTok::Shl | BinTok::Shr => 5,
            BinTok::Add | BinTok::Sub => 6,
            BinTok::Mul | BinTok::Div | BinTok::Rem => 7,
        }
    }
}

/// Unary operator sugar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnTok {
    /// `-x`: Neg.
    Neg,
    /// `!x`: Not.
    Not,
}

/// An argument of a call: positional, or an attribute `name = value`.
#[derive(Clone, Debug)]
pub enum Arg {
    Pos(Expr),
    Attr { name: Ident, value: Expr, sp: Sp },
}

/// A closure parameter `a` or `a: f32[]`.
#[derive(Clone, Debug)]
pub struct ClosureParam {
    pub name: Ident,
    pub ty: Option<TypeAst>,
}

/// Expression forms.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A scalar literal or a constant path.
    Lit(LitVal),
    /// A variable (fn parameter or `let`), or a bare name such as `f32` / `GT` in attributes.
    Var(Ident),
    /// `Name(args...)`: an op or a fn of the block. `close` is the closing parenthesis.
    Call { name: Ident, args: Vec<Arg> },
    /// `lhs op rhs`.
    Binary {
        op: BinTok,
        op_sp: Sp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `-x`, `!x`.
    Unary {
        op: UnTok,
        op_sp: Sp,
        operand: Box<Expr>,
    },
    /// `t.0`: GetTupleElement sugar.
    Field {
        base: Box<Expr>,
        index: u32,
        index_sp: Sp,
    },
    /// `|a, b| body`.
    Closure {
        params: Vec<ClosureParam>,
        body: Box<Expr>,
    },
    /// `[a, b, ...]`: attribute lists and constant arrays.
    List(Vec<Expr>),
    /// A shape used as a value (`Iota(s32[4], ...)`, `Constant(f32[2], [...])`).
    Type(TypeAst),
    /// `"text"`: a string attribute (CompositeCall's `name`).
    Str(String),
    /// `{ let ...; e }`.
    Block(Body),
    /// `(e)`: kept so messages can point at the parentheses.
    Paren(Box<Expr>),
}

/// Parse a whole block.
pub fn parse_block(tokens: TokenStream) -> syn::Result<Block> {
    syn::parse2::<Block>(tokens)
}

/// Parse one type, e.g. `f32[2,3]{0,1}` (for tests and tools).
#[cfg(test)]
pub fn parse_type_tokens(tokens: TokenStream) -> syn::Result<TypeAst> {
    syn::parse::Parser::parse2(
        |input: ParseStream| parse_type(input, LayoutBrace::Always),
        tokens,
    )
}

/// Parse one expression (for tests).
#[cfg(test)]
pub fn parse_expr_tokens(tokens: TokenStream) -> syn::Result<Expr> {
    syn::parse::Parser::parse2(|input: ParseStream| parse_expr(input, 0), tokens)
}

impl Parse for Block {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut fns = Vec::new();
        while !input.is_empty() {
            fns.push(parse_fn(input)?);
        }
        Ok(Block { fns })
    }
}

fn parse_fn(input: ParseStream) -> syn::Result<FnItem> {
    let attrs = input.call(syn::Attribute::parse_outer)?;
    let vis: syn::Visibility = input.parse()?;
    if !input.peek(Token![fn]) {
        return Err(input.error(
            "expected `fn`: an xla! block holds fns like `pub fn name(x: f32[2]) -> f32[2] { ... }`",
        ));
    }
    input.parse::<Token![fn]>()?;
    let name: Ident = input.parse()?;
    if input.peek(Token![<]) {
        return Err(input.error("xla! fns cannot be generic: every shape is written out"));
    }
    let content;
    parenthesized!(content in input);
    let mut params = Vec::new();
    while !content.is_empty() {
        let pname: Ident = content.parse()?;
        content.parse::<Token![:]>()?;
        let ty = parse_type(&content, LayoutBrace::Always)?;
        params.push(Param { name: pname, ty });
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    if !input.peek(Token![->]) {
        return Err(input.error(format!("fn `{name}` needs a result type: `-> f32[2,3]`")));
    }
    input.parse::<Token![->]>()?;
    let ret = parse_type(input, LayoutBrace::IfBodyFollows)?;
    if !input.peek(token::Brace) {
        return Err(input.error(format!("expected the body of fn `{name}`: `{{ ... }}`")));
    }
    let content;
    braced!(content in input);
    let body = parse_body(&content, 0)?;
    Ok(FnItem {
        attrs,
        vis,
        name,
        params,
        ret,
        body,
    })
}

/// True when the next two token trees are both brace groups.
fn brace_then_brace(input: ParseStream) -> bool {
    let fork = input.fork();
    if !fork.peek(token::Brace) {
        return false;
    }
    let skipped: syn::Result<proc_macro2::TokenTree> = fork.parse();
    skipped.is_ok() && fork.peek(token::Brace)
}

fn parse_body(input: ParseStream, depth: usize) -> syn::Result<Body> {
    let mut lets = Vec::new();
    loop {
        if input.is_empty() {
            return Err(input.error("expected the result expression at the end of the body"));
        }
        if input.peek(Token![let]) {
            input.parse::<Token![let]>()?;
            if input.peek(token::Paren) {
                return Err(input.error(
                    "tuple patterns are not supported: bind the tuple and use `t.0` or GetTupleElement",
                ));
            }
            let name: Ident = input.parse()?;
            let ty = if input.peek(Token![:]) {
                input.parse::<Token![:]>()?;
                Some(parse_type(input, LayoutBrace::Always)?)
            } else {
                None
            };
            input.parse::<Token![=]>()?;
            let value = parse_expr(input, depth)?;
            if !input.peek(Token![;]) {
                return Err(input.error("expected `;` after the `let` binding"));
            }
            input.parse::<Token![;]>()?;
            lets.push(Let { name, ty, value });
            continue;
        }
        let result = parse_expr(input, depth)?;
        if input.peek(Token![;]) {
            return Err(input
                .error("unexpected `;`: the body ends with its result expression, without `;`"));
        }
        if !input.is_empty() {
            return Err(input.error("expected the end of the body after the result expression"));
        }
        return Ok(Body {
            lets,
            result: Box::new(result),
        });
    }
}

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

fn all_type_names() -> String {
    ElementType::ALL
        .iter()
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a `{...}` after a type's dimensions is its layout.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LayoutBrace {
    Always,
    /// After a fn's result type: only when the body's `{...}` follows it.
    IfBodyFollows,
}

/// Parse a type such as `f32[2,3]{0,1}` or `(f32[2], s32[])`.
fn parse_type(input: ParseStream, layout_brace: LayoutBrace) -> syn::Result<TypeAst> {
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
    while !content.is_empty() {
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

fn parse_dim(input: ParseStream) -> syn::Result<i64> {
    if input.peek(Token![-]) {
        return Err(input.error("dimension sizes cannot be negative"));
    }
    if input.peek(Token![<=]) || input.peek(Token![<]) {
        return Err(input.error("dynamic dimensions (`<=N`) are not supported by xla!"));
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

/// Parse an expression at the lowest precedence.
fn parse_expr(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    if depth > MAX_DEPTH {
        return Err(input.error(format!(
            "expression nested more than {MAX_DEPTH} levels deep"
        )));
    }
    let lhs = parse_unary(input, depth)?;
    parse_binary_rhs(input, depth, lhs, 1)
}

/// Precedence climbing: fold operators binding at least `min_prec`.
fn parse_binary_rhs(
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
fn peek_binop(input: ParseStream) -> syn::Result<Option<(BinTok, Sp)>> {
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

fn consume_binop(input: ParseStream, op: BinTok) -> syn::Result<()> {
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

fn parse_unary(input: ParseStream, depth: usize) -> syn::Result<Expr> {
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

fn parse_postfix(input: ParseStream, depth: usize) -> syn::Result<Expr> {
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

fn parse_primary(input: ParseStream, depth: usize) -> syn::Result<Expr> {
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
fn tuple_type(input: ParseStream) -> Option<TypeAst> {
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
fn starts_with_element_type(input: ParseStream) -> bool {
    let fork = input.fork();
    let ident: syn::Result<Ident> = fork.parse();
    ident.is_ok_and(|i| ElementType::from_name(&i.to_string()).is_some())
}

fn parse_closure(input: ParseStream, depth: usize) -> syn::Result<Expr> {
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
fn suffix_type(suffix: &str, span: Span) -> syn::Result<Option<ElementType>> {
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

fn parse_lit(lit: syn::Lit) -> syn::Result<Expr> {
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

fn parse_name(input: ParseStream, depth: usize) -> syn::Result<Expr> {
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

fn parse_arg(input: ParseStream, depth: usize) -> syn::Result<Arg> {
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
fn path_constant(segs: &[Ident], sp: Sp) -> syn::Result<Expr> {
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
fn float_max(t: ElementType) -> f64 {
    t.largest_finite().unwrap_or(f64::MAX)
}

/// Smallest positive normal value of a real float type.
fn float_min_positive(t: ElementType) -> f64 {
    t.smallest_normal().unwrap_or(f64::MIN_POSITIVE)
}

/// Machine epsilon (2^-mantissa_bits) of a real float type.
fn float_epsilon(t: ElementType) -> f64 {
    t.epsilon().unwrap_or(f64::EPSILON)
}

#[cfg(test)]
mod tests;
