//! Operand groups (literals typed by their neighbours), calls of fns of the block and
//! closures built as nested computations.

use super::*;

impl Checker<'_> {
    /// Evaluate operands whose literals take the element type of the first operand that is not
    /// a literal (XLA requires them to agree): those first, then suffixed literals (which fix the
    /// type if nothing else did, and must agree with it), then the rest. `op` names the op in
    /// messages; `outer` is used when every operand is an unsuffixed literal.
    pub fn eval_group(
        &mut self,
        cx: &mut Cx,
        exprs: &[&Expr],
        op: &str,
        outer: Option<Hint>,
    ) -> Option<Vec<XlaOp>> {
        let mut vals: Vec<Option<XlaOp>> = vec![None; exprs.len()];
        let mut hint: Option<Hint> = None;
        // Pass 0: typed operands; 1: suffixed literals; 2: literals taking the type (a deferred
        // literal-only `let` among them).
        let class: Vec<usize> = exprs
            .iter()
            .map(|e| {
                if needs_hint(e) || cx.is_deferred(e) {
                    2
                } else if is_literal(e) {
                    1
                } else {
                    0
                }
            })
            .collect();
        for pass in 0..3 {
            let select = |i: usize| class[i] == pass;
            if pass == 2 && hint.is_none() {
                hint = outer.clone();
            }
            for (i, e) in exprs.iter().enumerate() {
                if !select(i) {
                    continue;
                }
                let v = self.eval(cx, e, if pass == 0 { None } else { hint.clone() });
                if hint.is_none() {
                    hint = v.and_then(|v| hint_from(cx, v, format!("operand {i} of {op} is")));
                }
                vals[i] = v;
            }
            // A failed operand already has its message; literals would only add noise.
            if vals
                .iter()
                .enumerate()
                .any(|(i, v)| v.is_none() && select(i))
            {
                return None;
            }
        }
        vals.into_iter().collect()
    }

    pub(super) fn call(
        &mut self,
        cx: &mut Cx,
        name: &syn::Ident,
        args: &[Arg],
        sp: Sp,
        hint: Option<Hint>,
    ) -> Option<XlaOp> {
        let n = name.to_string();
        if let Some(spec) = ops::lookup(&n) {
            return self.apply_op(cx, spec, name, args, sp, hint);
        }
        if let Some(f) = self.fn_item(&n) {
            return self.call_fn(cx, f, args, Sp::one(name.span()), None);
        }
        let fn_names: Vec<String> = self.block.fns.iter().map(|f| f.name.to_string()).collect();
        let mut candidates: Vec<&str> = ops::names().collect();
        candidates.extend(fn_names.iter().map(String::as_str));
        let help = match xla_core::registry::alias(&n)
            .map(str::to_string)
            .or_else(|| closest(&n, candidates.into_iter()))
        {
            Some(c) => format!("\nhelp: did you mean `{c}`?"),
            None => "\nhelp: ops are named as in XLA's operation semantics (Add, Dot, Reduce, ...)"
                .to_string(),
        };
        self.error(
            Sp::one(name.span()),
            format!("unknown op `{n}`: not an XLA op nor a fn of this block{help}"),
        );
        None
    }

    /// Call fn `f` with `args` (positional only).
    /// `f(args...)` / `Call(f, args...)`, or `CompositeCall(f, args..., name = ...)` when
    /// `composite` (its attributes' spans with it) is given.
    pub fn call_fn(
        &mut self,
        cx: &mut Cx,
        f: &FnItem,
        args: &[Arg],
        op_sp: Sp,
        composite: Option<(Composite, Vec<(String, Sp)>)>,
    ) -> Option<XlaOp> {
        let fname = f.name.to_string();
        let mut ops_ = Vec::new();
        let mut spans = Vec::new();
        let mut failed = false;
        for (i, a) in args.iter().enumerate() {
            match a {
                Arg::Pos(e) => {
                    let h = f.params.get(i).and_then(|p| {
                        result_hint(
                            &p.ty.shape,
                            format!("parameter `{}` of fn `{fname}` is {}", p.name, p.ty.shape),
                        )
                    });
                    spans.push(e.sp);
                    match self.eval(cx, e, h) {
                        Some(v) => ops_.push(v),
                        None => failed = true,
                    }
                }
                // CompositeCall's attributes, parsed by the caller.
                Arg::Attr { .. } if composite.is_some() => {}
                Arg::Attr { name, sp, .. } => {
                    self.error(*sp, format!("fn `{fname}` takes no attributes (`{name} = ...`); pass its parameters positionally"));
                    failed = true;
                }
            }
        }
        let computation = self.built.get(&fname).cloned().flatten();
        let computation = computation?;
        if failed {
            return None;
        }
        let (composite, attrs) = match composite {
            Some((c, attrs)) => (Some(c), attrs),
            None => (None, Vec::new()),
        };
        let site = Site {
            op: op_sp,
            operands: spans,
            attrs,
            computations: vec![op_sp],
        };
        let r = match composite {
            Some(c) => cx.b.composite_call(&computation, &ops_, c),
            None => cx.b.call(&computation, &ops_),
        };
        self.done(r, &site)
    }

    /// A unique name for a nested computation of the current fn.
    pub fn nested_name(&mut self, cx: &Cx, what: &str) -> String {
        self.counter += 1;
        format!("{}_{what}_{}", cx.fn_name, self.counter)
    }

    /// Build a closure as a computation with the given parameter shapes (closure annotations
    /// win, so the op's own check reports a mismatch).
    pub fn closure(
        &mut self,
        cx: &Cx,
        e: &Expr,
        param_shapes: &[Shape],
        what: &str,
    ) -> Option<Arc<Computation>> {
        let ExprKind::Closure { params, body } = &e.kind else {
            return None;
        };
        let name = self.nested_name(cx, what);
        let mut outer = cx.outer.clone();
        outer.extend(cx.scopes.iter().map(|(n, _)| n.clone()));
        let mut inner = Cx {
            b: Builder::new(name),
            scopes: Vec::new(),
            deferred: Vec::new(),
            outer,
            fn_name: cx.fn_name.clone(),
        };
        for (i, p) in params.iter().enumerate() {
            let shape = match (&p.ty, param_shapes.get(i)) {
                (Some(t), _) => t.shape.clone(),
                (None, Some(s)) => s.clone(),
                (None, None) => return None,
            };
            let pname = p.name.to_string();
            let sp = p.ty.as_ref().map_or(Sp::one(p.name.span()), |t| t.sp);
            match inner.b.parameter(i, shape, &pname) {
                Ok(op) => inner.scopes.push((pname, Some(op))),
                Err(err) => {
                    self.report(err, &Site::op(sp));
                    return None;
                }
            }
        }
        let root = match &body.kind {
            ExprKind::Block(b) => self.eval_body(&mut inner, b, None),
            _ => self.eval(&mut inner, body, None),
        }?;
        match inner.b.build(root) {
            Ok(c) => Some(Arc::new(c)),
            Err(err) => {
                self.report(err, &Site::op(e.sp));
                None
            }
        }
    }
}
