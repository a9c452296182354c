//! `stablehlo.composite`: a CompositeCall of the decomposition function, keeping the
//! composite's name, version and attributes (printed back as an MLIR dictionary: integers as
//! i64 and floats as f64, whatever width the text gave; they do not change what the call
//! computes).

use std::sync::Arc;

use super::super::ast::{Attr, Operation};
use super::super::{ImportError, Result};
use super::{bind_results, shape_err, Lowerer, Scope};
use crate::ir::Composite;

impl Lowerer<'_> {
    /// `stablehlo.composite "name" %a... {decomposition = @f, composite_attributes = {...},
    /// version = N}`.
    pub(super) fn composite(&mut self, s: &mut Scope, op: &Operation) -> Result<()> {
        let missing = |what: &str| ImportError::Invalid {
            message: format!("{}: missing {what}", op.name),
            pos: op.pos,
        };
        let Some(Attr::Symbol(callee)) = op.attr("decomposition") else {
            return Err(missing("`decomposition = @fn`"));
        };
        let Some(Attr::Str(name)) = op.attr("name") else {
            return Err(missing("its name"));
        };
        let version = match op.attr("version") {
            None => 0,
            Some(Attr::Int(v)) => i64::try_from(*v).map_err(|_| missing("a version that fits"))?,
            Some(_) => return Err(missing("an integer version")),
        };
        let attributes = match op.attr("composite_attributes") {
            None => String::new(),
            Some(a) => print(a).ok_or_else(|| ImportError::Unsupported {
                feature: format!("a composite attribute of {name} other than integers, floats, booleans, strings, arrays, lists and dictionaries"),
                pos: op.pos,
            })?,
        };
        let f = self.function(callee, op.pos)?;
        let (comp, tupled) = (Arc::clone(&f.computation), f.tupled());
        let args = op
            .operands
            .iter()
            .map(|n| s.get(n, op.pos))
            .collect::<Result<Vec<_>>>()?;
        let composite = Composite {
            name: name.clone(),
            attributes,
            version,
        };
        let r =
            s.b.composite_call(&comp, &args, composite)
                .map_err(|e| shape_err(&op.name, e, op.pos))?;
        bind_results(s, op, r, tupled)
    }
}

/// `a` as MLIR attribute text, for the kinds a composite's attributes usually hold.
fn print(a: &Attr) -> Option<String> {
    Some(match a {
        Attr::Int(v) => format!("{v} : i64"),
        // MLIR's float literals need a `.` (`1.0e-6`, not `1e-6`).
        Attr::Float(v) if v.is_finite() => {
            let t = format!("{v:e}");
            let (mantissa, exp) = t.split_once('e').unwrap_or((&t, "0"));
            let dot = if mantissa.contains('.') { "" } else { ".0" };
            format!("{mantissa}{dot}e{exp} : f64")
        }
        Attr::Bool(b) => b.to_string(),
        Attr::Str(s) => format!("{s:?}"),
        Attr::Array(v) => {
            let v: Vec<String> = v.iter().map(i64::to_string).collect();
            format!("array<i64: {}>", v.join(", "))
        }
        Attr::List(xs) => {
            let xs: Option<Vec<String>> = xs.iter().map(print).collect();
            format!("[{}]", xs?.join(", "))
        }
        Attr::Dict(fields) => {
            let fs: Option<Vec<String>> = fields
                .iter()
                .map(|(k, v)| match v {
                    Attr::Unit => Some(k.clone()),
                    _ => Some(format!("{k} = {}", print(v)?)),
                })
                .collect();
            format!("{{{}}}", fs?.join(", "))
        }
        Attr::Float(_)
        | Attr::Unit
        | Attr::Symbol(_)
        | Attr::Dense(..)
        | Attr::Enum(..)
        | Attr::Struct(..)
        | Attr::Conv(_)
        | Attr::Type(_)
        | Attr::Opaque(_) => return None,
    })
}
