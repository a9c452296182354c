//! Free helpers of the checker: which expressions are literals, the type hints literals take,
//! the names an expression uses, and "did you mean" suggestions.

use super::*;

/// A scalar literal, possibly parenthesised or combined with other literals, or an op that
/// keeps its operand's element type (`BroadcastInDim(0.0, ...)`) applied to such.
pub(super) fn is_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_) => true,
        ExprKind::Paren(x) | ExprKind::Unary { operand: x, .. } => is_literal(x),
        ExprKind::Binary { lhs, rhs, .. } => is_literal(lhs) && is_literal(rhs),
        ExprKind::Call { .. } => {
            forwarded_operands(e).is_some_and(|xs| xs.iter().all(|x| is_literal(x)))
        }
        ExprKind::Var(_)
        | ExprKind::Field { .. }
        | ExprKind::Closure { .. }
        | ExprKind::List(_)
        | ExprKind::Type(_)
        | ExprKind::Str(_)
        | ExprKind::Block(_) => false,
    }
}

/// The positional operands of a call of an op whose result element type is its operands' (and
/// which passes an expected type on to them): shape ops, type-keeping unary ops, same-type binary
/// ops. `None` for anything else (other ops, fns of the block, attributes' values).
pub(super) fn forwarded_operands(e: &Expr) -> Option<Vec<&Expr>> {
    let ExprKind::Call { name, args } = &e.kind else {
        return None;
    };
    let forwards = ops::forwards_type(ops::lookup(&name.to_string())?);
    forwards.then(|| {
        args.iter()
            .filter_map(|a| match a {
                Arg::Pos(x) => Some(x),
                Arg::Attr { .. } => None,
            })
            .collect()
    })
}

/// True when the expression's element type comes from its context (an unsuffixed literal,
/// possibly negated, parenthesised or combined with other such literals).
pub(crate) fn needs_hint(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(l) => l.ty.is_none(),
        ExprKind::Paren(x) => needs_hint(x),
        ExprKind::Unary { operand, .. } => needs_hint(operand),
        ExprKind::Binary { op, lhs, rhs, .. } => {
            !matches!(
                op,
                BinTok::Eq | BinTok::Ne | BinTok::Lt | BinTok::Le | BinTok::Gt | BinTok::Ge
            ) && needs_hint(lhs)
                && needs_hint(rhs)
        }
        // `BroadcastInDim(0.0, ...)`, `Neg(Reshape(1.0, ...))`: the type flows through.
        ExprKind::Call { .. } => forwarded_operands(e)
            .is_some_and(|xs| !xs.is_empty() && xs.iter().all(|x| needs_hint(x))),
        ExprKind::Var(_)
        | ExprKind::Field { .. }
        | ExprKind::Closure { .. }
        | ExprKind::List(_)
        | ExprKind::Type(_)
        | ExprKind::Str(_)
        | ExprKind::Block(_) => false,
    }
}

/// The element type of `op` as a hint, `why` followed by its shape.
pub(crate) fn hint_from(cx: &Cx, op: XlaOp, why: String) -> Option<Hint> {
    let s = cx.b.shape(op);
    s.as_array().map(|a| Hint {
        ty: a.ty,
        why: format!("{why} {s}"),
    })
}

/// A hint from a declared array shape.
pub(super) fn result_hint(s: &Shape, why: String) -> Option<Hint> {
    s.as_array().map(|a| Hint { ty: a.ty, why })
}

/// Names a body refers to (calls and bare names not bound locally), for the call graph.
pub(super) fn collect_body(body: &Body, bound: &mut Vec<String>, out: &mut Vec<String>) {
    let depth = bound.len();
    for l in &body.lets {
        collect(&l.value, bound, out);
        bound.push(l.name.to_string());
    }
    collect(&body.result, bound, out);
    bound.truncate(depth);
}

pub(super) fn collect(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Var(n) => {
            let n = n.to_string();
            if !bound.contains(&n) {
                out.push(n);
            }
        }
        ExprKind::Call { name, args } => {
            out.push(name.to_string());
            for a in args {
                match a {
                    Arg::Pos(x) => collect(x, bound, out),
                    Arg::Attr { value, .. } => collect(value, bound, out),
                }
            }
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            collect(lhs, bound, out);
            collect(rhs, bound, out);
        }
        ExprKind::Unary { operand, .. } => collect(operand, bound, out),
        ExprKind::Field { base, .. } => collect(base, bound, out),
        ExprKind::Paren(x) => collect(x, bound, out),
        ExprKind::Closure { params, body } => {
            let depth = bound.len();
            bound.extend(params.iter().map(|p| p.name.to_string()));
            collect(body, bound, out);
            bound.truncate(depth);
        }
        ExprKind::List(xs) => xs.iter().for_each(|x| collect(x, bound, out)),
        ExprKind::Block(b) => collect_body(b, bound, out),
        ExprKind::Lit(_) | ExprKind::Type(_) | ExprKind::Str(_) => {}
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
pub(super) fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `name`: a case-insensitive match, else within a third of its length.
/// `\nhelp: ConvertElementType(..)` when `got` and `want` differ only in element type.
pub(super) fn convert_hint(got: &Shape, want: &Shape) -> String {
    match (got, want) {
        (Shape::Array(g), Shape::Array(w)) if g.ty != w.ty && g.dims == w.dims => format!(
            "\nhelp: the shapes differ only in element type: convert with \
             `ConvertElementType(.., new_element_type = {})`",
            w.ty
        ),
        _ => String::new(),
    }
}

pub(crate) fn closest<'s>(name: &str, candidates: impl Iterator<Item = &'s str>) -> Option<String> {
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = if c.to_lowercase() == lower {
            0
        } else {
            distance(&lower, &c.to_lowercase())
        };
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.filter(|(d, _)| *d <= (name.len() / 3).max(1))
        .map(|(_, c)| c.to_string())
}
