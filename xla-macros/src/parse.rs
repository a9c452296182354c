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

mod expr;
mod types;

use expr::*;
pub use types::element_type_from_any;
use types::*;

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

#[cfg(test)]
mod tests;
