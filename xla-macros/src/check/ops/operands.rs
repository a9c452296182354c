//! Value operands evaluated with the literal typing the registry names (the call's hint, a
//! group of same-typed operands, Select's pred, Clamp's middle operand, Reduce's inits).

use xla_core::builder::XlaOp;
use xla_core::registry::{OpSpec, Typing};
use xla_core::ElementType;

use super::super::hint_from;
use super::{forwards_type, Checker, Cx, Hint};
use crate::parse::Expr;

impl Checker<'_> {
    /// Evaluate the value operands, typing literals by the op's rule.
    pub(super) fn eval_operands(
        &mut self,
        cx: &mut Cx,
        spec: &OpSpec,
        exprs: &[&Expr],
        hint: Option<Hint>,
    ) -> Option<Vec<XlaOp>> {
        let op = spec.name;
        let forwarded = hint.clone().filter(|_| forwards_type(spec));
        match spec.typing {
            Typing::Free => self.eval_each(cx, exprs, |_| None),
            Typing::First | Typing::Unary => {
                let f = forwarded.clone();
                self.eval_each(cx, exprs, move |i| if i == 0 { f.clone() } else { None })
            }
            Typing::Same { with_result } => {
                let outer = if with_result { forwarded } else { None };
                self.eval_group(cx, exprs, op, outer)
            }
            Typing::Select => {
                let pred_hint = Hint {
                    ty: ElementType::Pred,
                    why: format!("the predicate of {op} is pred"),
                };
                let p = self.eval(cx, exprs.first()?, Some(pred_hint));
                let v = self.eval_group(cx, exprs.get(1..)?, op, hint)?;
                Some(vec![p?, *v.first()?, *v.get(1)?])
            }
            Typing::Clamp => {
                // The operand (middle) fixes the type of literal bounds.
                let order = [*exprs.get(1)?, *exprs.first()?, *exprs.get(2)?];
                let v = self.eval_group(cx, &order, op, hint)?;
                Some(vec![*v.get(1)?, *v.first()?, *v.get(2)?])
            }
            Typing::Reduce => self.eval_reduce_operands(cx, exprs),
        }
    }

    /// Each operand on its own, with the hint `hint_of(i)`; every failure reported.
    fn eval_each(
        &mut self,
        cx: &mut Cx,
        exprs: &[&Expr],
        hint_of: impl Fn(usize) -> Option<Hint>,
    ) -> Option<Vec<XlaOp>> {
        let mut v = Vec::with_capacity(exprs.len());
        let mut failed = false;
        for (i, e) in exprs.iter().enumerate() {
            match self.eval(cx, e, hint_of(i)) {
                Some(x) => v.push(x),
                None => failed = true,
            }
        }
        (!failed).then_some(v)
    }

    /// `Reduce`'s operands then init values: init `i` takes operand `i`'s element type.
    fn eval_reduce_operands(&mut self, cx: &mut Cx, exprs: &[&Expr]) -> Option<Vec<XlaOp>> {
        let n = exprs.len() / 2;
        let mut vals = Vec::new();
        let mut failed = false;
        for e in exprs.iter().take(n) {
            let v = self.eval(cx, e, None);
            failed |= v.is_none();
            vals.push(v);
        }
        for (i, e) in exprs.iter().skip(n).take(n).enumerate() {
            let operand = vals.get(i).copied().flatten();
            // An init whose type would come from a failed operand: that operand's error says
            // it all (no "cannot infer the type of literal" after it).
            if operand.is_none() && super::super::needs_hint(e) {
                failed = true;
                continue;
            }
            let h = operand.and_then(|v| hint_from(cx, v, format!("operand {i} of Reduce is")));
            let v = self.eval(cx, e, h);
            failed |= v.is_none();
            vals.push(v);
        }
        if failed {
            return None;
        }
        Some(vals.into_iter().flatten().collect())
    }
}
