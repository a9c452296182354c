//! The Constant form: a type and a nested list of literals whose nesting matches its shape.

use xla_core::builder::XlaOp;
use xla_core::ElementType;

use super::super::lit;
use super::{Args, Checker, Cx};
use crate::parse::{Expr, ExprKind, Scalar, Sp};

impl Checker<'_> {
    /// `Constant(f32[2, 2], [[1.0, 2.0], [3.0, 4.0]])` or `Constant(f32[], 2.5)`.
    pub(super) fn constant(&mut self, cx: &mut Cx, a: &Args) -> Option<XlaOp> {
        let example = "Constant(f32[2], [1.0, 2.0])";
        let shape = self.type_arg("Constant", a.pos.first()?, example)?;
        let Some(arr) = shape.as_array() else {
            self.error(
                a.pos.first()?.sp,
                "Constant: the type must be an array type; build tuples with Tuple(...)",
            );
            return None;
        };
        let value = a.pos.get(1)?;
        let mut leaves = Vec::new();
        self.flatten(value, arr.ty, &arr.dims, &mut leaves)?;
        let vals: Vec<Scalar> = leaves.iter().map(|(s, _, _)| *s).collect();
        match lit::array_literal(&vals, arr.ty, &arr.dims) {
            Ok(l) => Some(cx.b.constant(l)),
            Err((i, m)) => {
                let (sp, text) = leaves
                    .get(i)
                    .map_or((value.sp, String::new()), |(_, sp, t)| (*sp, t.clone()));
                self.error(sp, format!("Constant: element `{text}` {m}"));
                None
            }
        }
    }

    /// Row-major leaves of a nested list whose nesting must match `dims`.
    fn flatten(
        &mut self,
        e: &Expr,
        ty: ElementType,
        dims: &[i64],
        out: &mut Vec<(Scalar, Sp, String)>,
    ) -> Option<()> {
        match (dims.split_first(), &e.kind) {
            (None, ExprKind::Lit(l)) => {
                if let Some(t) = l.ty {
                    if t != ty {
                        self.error(
                            e.sp,
                            format!(
                                "Constant: element `{}` has type {t} but the constant is {ty}",
                                l.text
                            ),
                        );
                        return None;
                    }
                }
                out.push((l.value, e.sp, l.text.clone()));
                Some(())
            }
            (None, _) => {
                self.error(e.sp, "Constant: expected a number or `true`/`false` here (the shape has no more dimensions)");
                None
            }
            (Some((&n, rest)), ExprKind::List(xs)) => {
                if xs.len() as i64 != n {
                    self.error(
                        e.sp,
                        format!(
                            "Constant: this list has {} but the dimension has size {n}",
                            xla_core::error::count(xs.len(), "element", "elements")
                        ),
                    );
                    return None;
                }
                for x in xs {
                    self.flatten(x, ty, rest, out)?;
                }
                Some(())
            }
            (Some((&n, _)), _) => {
                self.error(
                    e.sp,
                    format!("Constant: expected a list `[...]` of {n} elements here"),
                );
                None
            }
        }
    }
}
