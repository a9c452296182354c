//! Checking a parsed block: every fn is built through xla-core's [`Builder`] (which owns every
//! shape rule and its message) in dependency order, and every `xla_core::Error` is mapped to the
//! span of the user's token it blames. All errors of the block are collected; a failed `let`
//! poisons its dependents silently so one mistake gives one message.

mod calls;
mod hints;
mod lit;
mod ops;

use std::collections::HashMap;
use std::sync::Arc;

use xla_core::builder::{Builder, XlaOp};
use xla_core::{Blame, Composite, Computation, ElementType, Shape};

use crate::model;
use crate::parse::{Arg, BinTok, Block, Body, Expr, ExprKind, FnItem, LitVal, Sp, UnTok};

use hints::*;
pub(crate) use hints::{closest, hint_from, needs_hint};

/// Check a block: the program for the back end, or every error found.
pub fn check(block: &Block) -> Result<model::Program, Vec<syn::Error>> {
    let mut ck = Checker::new(block);
    ck.check_names();
    let order = ck.order();
    for i in order {
        if let Some(f) = block.fns.get(i) {
            let built = ck.build_fn(f);
            ck.built.insert(f.name.to_string(), built);
        }
    }
    if !ck.errors.is_empty() {
        return Err(ck.errors);
    }
    let mut fns = Vec::new();
    for f in &block.fns {
        let Some(Some(computation)) = ck.built.get(&f.name.to_string()) else {
            // Unreachable when no error was reported; stay total anyway.
            return Err(vec![
                Sp::one(f.name.span()).error(format!("fn `{}` was not built", f.name))
            ]);
        };
        fns.push(model::FnDef {
            attrs: f.attrs.clone(),
            vis: f.vis.clone(),
            name: f.name.clone(),
            params: f
                .params
                .iter()
                .map(|p| (p.name.clone(), p.ty.shape.clone()))
                .collect(),
            result: f.ret.shape.clone(),
            computation: computation.clone(),
        });
    }
    Ok(model::Program {
        fns,
        macro_name: "xla!",
        targets: ck.targets,
    })
}

/// The element type a literal without a suffix should take, and why (for messages).
#[derive(Clone, Debug)]
pub(crate) struct Hint {
    pub ty: ElementType,
    pub why: String,
}

/// Spans of the parts of one op application, for mapping `Blame` to a token.
pub(crate) struct Site {
    pub op: Sp,
    pub operands: Vec<Sp>,
    pub attrs: Vec<(String, Sp)>,
    /// The computations' spans, in the order the op takes them.
    pub computations: Vec<Sp>,
}

impl Site {
    /// A site with only the op's own span.
    pub fn op(op: Sp) -> Self {
        Site {
            op,
            operands: Vec::new(),
            attrs: Vec::new(),
            computations: Vec::new(),
        }
    }
}

/// The builder of one computation and the names visible in it.
pub(crate) struct Cx {
    pub b: Builder,
    /// Bindings, innermost last; `None` marks a binding whose value failed (poisoned) or is
    /// deferred.
    scopes: Vec<(String, Option<XlaOp>)>,
    /// `let`s of literal-only values (`let y = Broadcast(1.0, ..)`) not yet evaluated, by
    /// scope index: the first use gives them their element type, as an operand's literal.
    deferred: Vec<(usize, Expr)>,
    /// Names bound outside the closure being built: referring to them is a capture error.
    outer: Vec<String>,
    /// The enclosing fn's name, to name nested computations.
    pub fn_name: String,
}

impl Cx {
    /// The scope index of `name`, innermost first.
    fn position(&self, name: &str) -> Option<usize> {
        self.scopes.iter().rposition(|(n, _)| n == name)
    }

    /// True when `e` names a deferred `let`.
    fn is_deferred(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(n) => self
                .position(&n.to_string())
                .is_some_and(|i| self.deferred.iter().any(|(d, _)| *d == i)),
            _ => false,
        }
    }

    fn lookup(&self, name: &str) -> Option<Option<XlaOp>> {
        self.scopes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

pub(crate) struct Checker<'a> {
    block: &'a Block,
    /// Computations of the fns built so far; `None` for a fn that failed.
    pub built: HashMap<String, Option<Arc<Computation>>>,
    pub errors: Vec<syn::Error>,
    /// Counter for unique nested computation names.
    pub counter: usize,
    /// CustomCall targets and where they were named.
    pub targets: Vec<(String, proc_macro2::Span)>,
}

impl<'a> Checker<'a> {
    fn new(block: &'a Block) -> Self {
        Checker {
            block,
            built: HashMap::new(),
            errors: Vec::new(),
            counter: 0,
            targets: Vec::new(),
        }
    }

    /// Report `message` at `sp`.
    pub fn error(&mut self, sp: Sp, message: impl std::fmt::Display) {
        self.errors.push(sp.error(message));
    }

    /// Report an xla-core error at the token it blames.
    pub fn report(&mut self, e: xla_core::Error, site: &Site) {
        let sp = match &e.blame {
            Blame::Op | Blame::Result => site.op,
            Blame::Operand(i) => site.operands.get(*i).copied().unwrap_or(site.op),
            Blame::Attribute(name) => site
                .attrs
                .iter()
                .find(|(n, _)| n == name)
                .map_or(site.op, |(_, s)| *s),
            Blame::Computation => site.computations.first().copied().unwrap_or(site.op),
            Blame::ComputationAt(i) => site.computations.get(*i).copied().unwrap_or(site.op),
        };
        let mut msg = format!("{}: {}", e.op, e.message);
        if let Some(h) = &e.help {
            msg.push_str(&format!("\nhelp: {h}"));
        }
        self.error(sp, msg);
    }

    /// The fn of the block called `name`.
    pub fn fn_item(&self, name: &str) -> Option<&'a FnItem> {
        self.block.fns.iter().find(|f| f.name == name)
    }

    /// Duplicate fn names and fns named like ops.
    fn check_names(&mut self) {
        let mut seen: Vec<String> = Vec::new();
        for f in &self.block.fns {
            let name = f.name.to_string();
            if seen.contains(&name) {
                self.error(
                    Sp::one(f.name.span()),
                    format!("fn `{name}` is defined twice in this block"),
                );
            } else if ops::lookup(&name).is_some() {
                self.error(
                    Sp::one(f.name.span()),
                    format!("fn `{name}` has the name of an XLA op; rename it so calls are not ambiguous"),
                );
            }
            seen.push(name);
        }
    }

    /// Fn indices in an order where callees come first; recursion is reported and its fns are
    /// left out (callers of them are then skipped silently).
    fn order(&mut self) -> Vec<usize> {
        let fns = &self.block.fns;
        let deps: Vec<Vec<usize>> = fns
            .iter()
            .map(|f| {
                let mut names = Vec::new();
                let mut bound: Vec<String> = f.params.iter().map(|p| p.name.to_string()).collect();
                collect_body(&f.body, &mut bound, &mut names);
                let mut idx: Vec<usize> = names
                    .iter()
                    .filter_map(|n| fns.iter().position(|g| g.name == n.as_str()))
                    .collect();
                idx.dedup();
                idx
            })
            .collect();
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; fns.len()];
        let mut order = Vec::new();
        let mut stack = Vec::new();
        for i in 0..fns.len() {
            self.visit(i, &deps, &mut state, &mut stack, &mut order);
        }
        order
    }

    fn visit(
        &mut self,
        i: usize,
        deps: &[Vec<usize>],
        state: &mut [u8],
        stack: &mut Vec<usize>,
        order: &mut Vec<usize>,
    ) {
        match state.get(i).copied() {
            Some(0) => {}
            Some(_) | None => return,
        }
        state[i] = 1;
        stack.push(i);
        for &d in deps.get(i).map(Vec::as_slice).unwrap_or(&[]) {
            if state.get(d) == Some(&1) {
                let start = stack.iter().position(|&s| s == d).unwrap_or(0);
                let cycle: Vec<String> = stack[start..]
                    .iter()
                    .chain(std::iter::once(&d))
                    .filter_map(|&k| self.block.fns.get(k).map(|f| f.name.to_string()))
                    .collect();
                if let Some(f) = self.block.fns.get(d) {
                    self.error(
                        Sp::one(f.name.span()),
                        format!(
                            "fn `{}` is recursive ({}): XLA computations cannot call themselves",
                            f.name,
                            cycle.join(" -> ")
                        ),
                    );
                    self.built.insert(f.name.to_string(), None);
                }
                continue;
            }
            self.visit(d, deps, state, stack, order);
        }
        stack.pop();
        state[i] = 2;
        order.push(i);
    }

    /// Build one fn; `None` after reporting its errors.
    fn build_fn(&mut self, f: &FnItem) -> Option<Arc<Computation>> {
        let name = f.name.to_string();
        if self.built.contains_key(&name) {
            // Recursive (already reported): skip.
            return None;
        }
        let mut cx = Cx {
            b: Builder::new(name.clone()),
            scopes: Vec::new(),
            deferred: Vec::new(),
            outer: Vec::new(),
            fn_name: name.clone(),
        };
        let mut ok = true;
        for (i, p) in f.params.iter().enumerate() {
            let pname = p.name.to_string();
            if cx.scopes.iter().any(|(n, _)| *n == pname) {
                self.error(
                    Sp::one(p.name.span()),
                    format!("parameter `{pname}` is declared twice"),
                );
                ok = false;
                continue;
            }
            match cx.b.parameter(i, p.ty.shape.clone(), &pname) {
                Ok(op) => cx.scopes.push((pname, Some(op))),
                Err(e) => {
                    self.report(e, &Site::op(p.ty.sp));
                    cx.scopes.push((pname, None));
                    ok = false;
                }
            }
        }
        let hint = result_hint(&f.ret.shape, format!("fn `{name}` returns {}", f.ret.shape));
        let root = self.eval_body(&mut cx, &f.body, hint);
        let root = root.filter(|_| ok)?;
        let inferred = cx.b.shape(root).clone();
        if !xla_core::infer::compatible(&inferred, &f.ret.shape) {
            self.error(
                f.ret.sp,
                format!(
                    "fn `{name}` declares {} but its body has type {inferred}{}",
                    f.ret.shape,
                    convert_hint(&inferred, &f.ret.shape)
                ),
            );
            return None;
        }
        match cx.b.build(root) {
            Ok(c) => Some(Arc::new(c)),
            Err(e) => {
                self.report(e, &Site::op(Sp::one(f.name.span())));
                None
            }
        }
    }

    /// `{ let ...; result }`: the result's value, or `None` if it failed.
    pub fn eval_body(&mut self, cx: &mut Cx, body: &Body, hint: Option<Hint>) -> Option<XlaOp> {
        let depth = cx.scopes.len();
        for l in &body.lets {
            let name = l.name.to_string();
            if l.ty.is_none() && needs_hint(&l.value) {
                // Typed by its first use (a literal has no type of its own).
                cx.deferred.push((cx.scopes.len(), l.value.clone()));
                cx.scopes.push((name, None));
                continue;
            }
            let lhint = l.ty.as_ref().and_then(|t| {
                result_hint(&t.shape, format!("`let {name}` is declared {}", t.shape))
            });
            let mut value = self.eval(cx, &l.value, lhint);
            if let (Some(v), Some(t)) = (value, &l.ty) {
                let got = cx.b.shape(v).clone();
                if !xla_core::infer::compatible(&got, &t.shape) {
                    self.error(
                        t.sp,
                        format!(
                            "`let {name}` declares {} but its value has type {got}{}",
                            t.shape,
                            convert_hint(&got, &t.shape)
                        ),
                    );
                    value = None;
                }
            }
            cx.scopes.push((name, value));
        }
        let r = self.eval(cx, &body.result, hint);
        cx.scopes.truncate(depth);
        cx.deferred.retain(|(i, _)| *i < depth);
        r
    }

    /// Evaluate an expression into the builder; `None` if it (or something it uses) failed.
    pub fn eval(&mut self, cx: &mut Cx, e: &Expr, hint: Option<Hint>) -> Option<XlaOp> {
        match &e.kind {
            ExprKind::Lit(l) => self.literal(cx, l, e.sp, hint.as_ref()),
            ExprKind::Var(name) => self.var(cx, name, e.sp, hint),
            ExprKind::Paren(inner) => self.eval(cx, inner, hint),
            ExprKind::Block(body) => self.eval_body(cx, body, hint),
            ExprKind::Unary { op, op_sp, operand } => {
                let x = self.eval(cx, operand, hint)?;
                let uop = match op {
                    UnTok::Neg => xla_core::UnaryOp::Neg,
                    UnTok::Not => xla_core::UnaryOp::Not,
                };
                let site = Site {
                    op: *op_sp,
                    operands: vec![operand.sp],
                    attrs: Vec::new(),
                    computations: Vec::new(),
                };
                let r = cx.b.unary(uop, x);
                self.done(r, &site)
            }
            ExprKind::Binary {
                op,
                op_sp,
                lhs,
                rhs,
            } => self.binary(cx, *op, *op_sp, lhs, rhs, hint),
            ExprKind::Field {
                base,
                index,
                index_sp,
            } => {
                let t = self.eval(cx, base, None)?;
                let site = Site {
                    op: *index_sp,
                    operands: vec![base.sp],
                    attrs: vec![("index".to_string(), *index_sp)],
                    computations: Vec::new(),
                };
                let r = cx.b.get_tuple_element(t, i64::from(*index));
                self.done(r, &site)
            }
            ExprKind::Call { name, args } => self.call(cx, name, args, e.sp, hint),
            ExprKind::Closure { .. } => {
                self.error(e.sp, "a computation (closure) is only an argument of an op that takes one, such as Reduce");
                None
            }
            ExprKind::List(_) => {
                self.error(e.sp, "a list `[...]` is an attribute value or a constant's elements; an array value is `Constant(f32[2], [1.0, 2.0])`");
                None
            }
            ExprKind::Type(t) => {
                self.error(e.sp, format!("the type {} is not a value here; an array of it is made by an op such as `Iota({}, iota_dimension = 0)`", t.shape, t.shape));
                None
            }
            ExprKind::Str(_) => {
                self.error(e.sp, "a string is an attribute value (CompositeCall's `name = \"my_lib.op\"`), not an array");
                None
            }
        }
    }

    /// Map a builder result, reporting its error at the site.
    pub fn done(&mut self, r: xla_core::Result<XlaOp>, site: &Site) -> Option<XlaOp> {
        match r {
            Ok(op) => Some(op),
            Err(e) => {
                self.report(e, site);
                None
            }
        }
    }

    fn literal(&mut self, cx: &mut Cx, l: &LitVal, sp: Sp, hint: Option<&Hint>) -> Option<XlaOp> {
        let ty = match (l.ty, hint) {
            (Some(t), Some(h)) if t != h.ty => {
                self.error(
                    sp,
                    format!(
                        "literal `{}` has type {t} but {}: element types must match",
                        l.text, h.why
                    ),
                );
                return None;
            }
            (Some(t), _) => t,
            (None, Some(h)) => h.ty,
            (None, None) => {
                let example = match l.value {
                    crate::parse::Scalar::Float(_) => format!("`{}f32`", l.text),
                    crate::parse::Scalar::Int(_) => format!("`{}i32`", l.text),
                    crate::parse::Scalar::Bool(_) => "`Constant(pred[], true)`".to_string(),
                };
                self.error(sp, format!("cannot infer the element type of literal `{}`: no other operand gives it; add a suffix such as {example}", l.text));
                return None;
            }
        };
        match lit::scalar_literal(l.value, ty) {
            Ok(value) => Some(cx.b.constant(value)),
            Err(m) => {
                let why = match hint.filter(|_| l.ty.is_none()) {
                    Some(h) => format!("; it is {ty} because {}", h.why),
                    None => String::new(),
                };
                self.error(sp, format!("literal `{}` {m}{why}", l.text));
                None
            }
        }
    }

    fn var(&mut self, cx: &mut Cx, name: &syn::Ident, sp: Sp, hint: Option<Hint>) -> Option<XlaOp> {
        let n = name.to_string();
        if let Some(i) = cx.position(&n) {
            if let Some(k) = cx.deferred.iter().position(|(d, _)| *d == i) {
                // A literal-only `let`: evaluated at its first use, with the use's type (a
                // literal needs no names, so the scopes bound since do not matter).
                let (_, e) = cx.deferred.remove(k);
                let v = self.eval(cx, &e, hint);
                cx.scopes[i].1 = v;
                return v;
            }
        }
        if let Some(v) = cx.lookup(&n) {
            return v;
        }
        if cx.outer.contains(&n) {
            self.error(
                sp,
                format!("a computation cannot capture `{n}`: it only sees its own parameters"),
            );
        } else if self.fn_item(&n).is_some() {
            self.error(
                sp,
                format!("`{n}` is a fn of this block: call it, `{n}(...)`"),
            );
        } else {
            let names: Vec<&str> = cx.scopes.iter().map(|(s, _)| s.as_str()).collect();
            let help = match closest(&n, names.iter().copied()) {
                Some(c) => format!("\nhelp: did you mean `{c}`?"),
                None => String::new(),
            };
            self.error(
                sp,
                format!("unknown name `{n}`: not a parameter or a `let` of this fn{help}"),
            );
        }
        None
    }

    fn binary(
        &mut self,
        cx: &mut Cx,
        op: BinTok,
        op_sp: Sp,
        lhs: &Expr,
        rhs: &Expr,
        hint: Option<Hint>,
    ) -> Option<XlaOp> {
        let is_cmp = matches!(
            op,
            BinTok::Eq | BinTok::Ne | BinTok::Lt | BinTok::Le | BinTok::Gt | BinTok::Ge
        );
        let outer = if is_cmp { None } else { hint };
        let name = format!("`{}`", op.symbol());
        let v = self.eval_group(cx, &[lhs, rhs], &name, outer)?;
        let (&a, &b) = (v.first()?, v.get(1)?);
        let site = Site {
            op: op_sp,
            operands: vec![lhs.sp, rhs.sp],
            attrs: Vec::new(),
            computations: Vec::new(),
        };
        use xla_core::{BinaryOp as B, ComparisonDirection as D};
        /// What an operator token lowers to.
        enum Lowered {
            Bin(B),
            Cmp(D),
        }
        let bin = |o: B| Some(Lowered::Bin(o));
        let cmp = |d: D| Some(Lowered::Cmp(d));
        let r = match op {
            BinTok::Add => bin(B::Add),
            BinTok::Sub => bin(B::Sub),
            BinTok::Mul => bin(B::Mul),
            BinTok::Div => bin(B::Div),
            BinTok::Rem => bin(B::Rem),
            BinTok::BitAnd => bin(B::And),
            BinTok::BitOr => bin(B::Or),
            BinTok::BitXor => bin(B::Xor),
            BinTok::Shl => bin(B::ShiftLeft),
            BinTok::Shr => {
                // As XLA's C++ `operator>>`: arithmetic for signed, logical for unsigned.
                let s = cx.b.shape(a).clone();
                match s.as_array().map(|x| x.ty) {
                    Some(t) if t.is_signed_int() => bin(B::ShiftRightArithmetic),
                    Some(t) if t.is_unsigned_int() => bin(B::ShiftRightLogical),
                    Some(_) | None => {
                        self.error(op_sp, format!("`>>`: the operand does not have an integral type ({s}); `>>` shifts integers"));
                        return None;
                    }
                }
            }
            BinTok::Eq => cmp(D::Eq),
            BinTok::Ne => cmp(D::Ne),
            BinTok::Lt => cmp(D::Lt),
            BinTok::Le => cmp(D::Le),
            BinTok::Gt => cmp(D::Gt),
            BinTok::Ge => cmp(D::Ge),
        };
        let res = match r? {
            Lowered::Bin(o) => cx.b.binary(o, a, b, None),
            Lowered::Cmp(d) => cx.b.compare(d, false, a, b, None),
        };
        self.done(res, &site)
    }
}

#[cfg(test)]
mod tests;
