//! Host I/O: Infeed, Outfeed, Send, Recv. Each takes a token (last operand) and returns one,
//! which orders it among the program's side effects; the data is static arrays (Infeed and
//! Recv: an array or a tuple of arrays, XLA taking no nested tuples).

use crate::error::{Blame, Error, Result};
use crate::ir::HostIo;
use crate::shape::Shape;

/// The result of `h` on `operands`; `shape` is the data shape `T` Infeed and Recv read (their
/// `shape` attribute), ignored by the others.
pub fn host_io(h: &HostIo, operands: &[&Shape], shape: Option<&Shape>) -> Result<Shape> {
    let op = h.name();
    let n = operands.len();
    let token_last = |want: &str| -> Result<()> {
        match operands.last() {
            Some(Shape::Token) => Ok(()),
            Some(s) => Err(Error::new(
                op,
                format!(
                    "{} must be the token that orders it ({want}), got {s}; make one with \
                     AfterAll()",
                    if n == 1 {
                        "its operand"
                    } else {
                        "the last operand"
                    }
                ),
            )
            .blame(Blame::Operand(n - 1))),
            None => Err(Error::new(
                op,
                format!("needs a token operand ({want}); make one with AfterAll()"),
            )
            .blame(Blame::Op)),
        }
    };
    let data = |s: &Shape, i: usize| -> Result<()> {
        match s {
            Shape::Array(a) if !a.is_dynamic() => Ok(()),
            _ => Err(Error::new(
                op,
                format!("operand {i} must be a static array (the data moved), got {s}"),
            )
            .blame(Blame::Operand(i))),
        }
    };
    let channel = |id: i64| -> Result<()> {
        if id < 0 {
            return Err(Error::new(
                op,
                format!("channel_id = {id} must be non-negative (it names the channel)"),
            )
            .blame(Blame::Attribute("channel_id")));
        }
        Ok(())
    };
    match h {
        HostIo::Infeed { .. } | HostIo::Recv { .. } => {
            if let HostIo::Recv { channel_id, .. } = h {
                channel(*channel_id)?;
            }
            if n != 1 {
                return Err(
                    Error::new(op, format!("takes one operand, the token, got {n}"))
                        .blame(Blame::Op),
                );
            }
            token_last("`(token, shape = T)`")?;
            let t = shape.ok_or_else(|| {
                Error::new(op, "missing attribute `shape = ...` (the type read)")
                    .blame(Blame::Attribute("shape"))
            })?;
            read_shape(op, t)?;
            Ok(Shape::Tuple(vec![t.clone(), Shape::Token]))
        }
        HostIo::Outfeed { .. } => {
            if n != 2 {
                return Err(Error::new(
                    op,
                    format!("takes two operands, `(operand, token)`, got {n}"),
                )
                .blame(Blame::Op));
            }
            token_last("`(operand, token)`")?;
            let ok = match operands[0] {
                Shape::Array(a) => !a.is_dynamic(),
                Shape::Tuple(ts) => ts
                    .iter()
                    .all(|t| matches!(t, Shape::Array(a) if !a.is_dynamic())),
                Shape::Token => false,
            };
            if !ok {
                return Err(Error::new(
                    op,
                    format!(
                        "the operand must be the data written, a static array or a tuple of \
                         them, got {}",
                        operands[0]
                    ),
                )
                .blame(Blame::Operand(0)));
            }
            Ok(Shape::Token)
        }
        HostIo::Send { channel_id, .. } => {
            channel(*channel_id)?;
            token_last("`(operands..., token)`")?;
            for (i, s) in operands[..n - 1].iter().enumerate() {
                data(s, i)?;
            }
            Ok(Shape::Token)
        }
    }
}

/// Infeed's and Recv's data shape: a static array or a tuple of them.
fn read_shape(op: &str, t: &Shape) -> Result<()> {
    let ok = match t {
        Shape::Array(a) => !a.is_dynamic(),
        Shape::Tuple(ts) => ts
            .iter()
            .all(|e| matches!(e, Shape::Array(a) if !a.is_dynamic())),
        Shape::Token => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            op,
            format!(
                "shape {t} must be a static array or a tuple of them (no token, no nested \
                 tuple)"
            ),
        )
        .blame(Blame::Attribute("shape")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::ElementType;

    fn f32s(d: &[i64]) -> Shape {
        Shape::array(ElementType::F32, d)
    }

    #[test]
    fn results_and_rules() {
        let inf = HostIo::Infeed {
            config: String::new(),
        };
        let t = f32s(&[2, 3]);
        assert_eq!(
            host_io(&inf, &[&Shape::Token], Some(&t)).unwrap(),
            Shape::Tuple(vec![t.clone(), Shape::Token])
        );
        let e = host_io(&inf, &[&t], Some(&t)).unwrap_err();
        assert_eq!(e.blame, Blame::Operand(0));
        assert!(e.message.contains("token"), "{}", e.message);
        let e = host_io(&inf, &[&Shape::Token], None).unwrap_err();
        assert_eq!(e.blame, Blame::Attribute("shape"));
        let e = host_io(&inf, &[&Shape::Token], Some(&Shape::Token)).unwrap_err();
        assert_eq!(e.blame, Blame::Attribute("shape"));

        let out = HostIo::Outfeed {
            config: String::new(),
        };
        assert_eq!(
            host_io(&out, &[&t, &Shape::Token], None).unwrap(),
            Shape::Token
        );
        let e = host_io(&out, &[&Shape::Token, &Shape::Token], None).unwrap_err();
        assert_eq!(e.blame, Blame::Operand(0));

        let send = HostIo::Send {
            channel_id: 1,
            is_host_transfer: true,
        };
        assert_eq!(
            host_io(&send, &[&t, &t, &Shape::Token], None).unwrap(),
            Shape::Token
        );
        let bad = HostIo::Send {
            channel_id: -1,
            is_host_transfer: true,
        };
        let e = host_io(&bad, &[&t, &Shape::Token], None).unwrap_err();
        assert_eq!(e.blame, Blame::Attribute("channel_id"));
        let recv = HostIo::Recv {
            channel_id: 2,
            is_host_transfer: false,
        };
        let tup = Shape::Tuple(vec![t.clone(), f32s(&[])]);
        assert_eq!(
            host_io(&recv, &[&Shape::Token], Some(&tup)).unwrap(),
            Shape::Tuple(vec![tup.clone(), Shape::Token])
        );
    }
}
