//! `stablehlo.custom_call @ragged_all_to_all`, as `jax.lax.ragged_all_to_all` writes it
//! (StableHLO has no ragged all-to-all; XLA's MLIR-to-HLO conversion reads this call as its
//! `ragged-all-to-all`), becomes our RaggedAllToAll:
//!
//! ```text
//! %r = stablehlo.custom_call @ragged_all_to_all(%input, %output, %input_offsets, %send_sizes,
//!        %output_offsets, %recv_sizes) {api_version = 4 : i32, backend_config = {channel_id =
//!        1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (...) -> tensor<4xf32>
//! ```
//!
//! The operands in that order (XLA HLO's); `replica_groups` and the optional `channel_id` from
//! the backend_config dictionary (or `mhlo.backend_config`). Any other attribute or
//! configuration entry that could change the values is an error.

use super::super::ast::{Attr, Operation};
use super::super::{ImportError, Result};
use super::attrs::{groups, ignorable};
use super::custom::{attr_text, row_major_operands};
use super::{bind_results, shape_err, Scope};
use crate::registry::{self, Applied, AttrValue, Attrs};

/// The call target JAX names it by.
pub(super) const TARGET: &str = "ragged_all_to_all";

/// Lowers one `stablehlo.custom_call @ragged_all_to_all`.
pub(super) fn lower(s: &mut Scope, op: &Operation) -> Result<()> {
    let unsupported = |feature: String| ImportError::Unsupported {
        feature: format!("stablehlo.custom_call @{TARGET}: {feature}"),
        pos: op.pos,
    };
    let invalid = |message: String| ImportError::Invalid {
        message: format!("stablehlo.custom_call @{TARGET}: {message}"),
        pos: op.pos,
    };
    let mut config: Option<&[(String, Attr)]> = None;
    for (name, a) in &op.attrs {
        match (name.as_str(), a) {
            ("call_target_name" | "output_operand_aliases", _) => {}
            ("api_version", Attr::Int(0..=4)) => {}
            ("api_version", Attr::Enum(_, v)) if v.starts_with("API_VERSION_") => {}
            ("has_side_effect", Attr::Bool(false)) => {}
            ("called_computations", Attr::List(l)) if l.is_empty() => {}
            ("operand_layouts" | "result_layouts", _) => {}
            ("backend_config" | "mhlo.backend_config", Attr::Dict(d)) => {
                if config.is_none() || name == "backend_config" {
                    config = Some(d);
                }
            }
            ("backend_config", Attr::Str(t)) if t.is_empty() => {}
            (n, _) if ignorable(n) => {}
            (n, a) => return Err(unsupported(format!("attribute `{n} = {}`", attr_text(a)))),
        }
    }
    let mut attrs = Attrs::default();
    for (name, a) in config.unwrap_or_default() {
        match (name.as_str(), a) {
            ("replica_groups", g) => {
                let g = groups(g).ok_or_else(|| {
                    invalid(format!(
                        "replica_groups = {} is not a list of groups",
                        attr_text(g)
                    ))
                })?;
                attrs.set("replica_groups", AttrValue::Groups(g));
            }
            ("channel_id", Attr::Int(v)) => {
                let v = i64::try_from(*v).map_err(|_| invalid(format!("channel_id = {v}")))?;
                attrs.set("channel_id", AttrValue::Int(v));
            }
            (n, a) => {
                return Err(unsupported(format!(
                    "backend_config entry `{n} = {}`",
                    attr_text(a)
                )))
            }
        }
    }
    let operands = row_major_operands(s, op, &unsupported)?;
    let spec =
        registry::lookup("RaggedAllToAll").ok_or_else(|| invalid("not registered".into()))?;
    let applied = Applied {
        operands: &operands,
        attrs,
        ..Applied::default()
    };
    let r =
        registry::build(&mut s.b, spec, &applied).map_err(|e| shape_err(&op.name, e, op.pos))?;
    bind_results(s, op, r, false)
}
