//! Collectives as StableHLO: `stablehlo.replica_id`/`partition_id`, and the generic forms of
//! `all_reduce` and `reduce_scatter` (the reducer as their region), `all_gather`,
//! `all_to_all` (several operands: several results; all_to_all as one op per operand, which
//! XLA runs as the spec says), `collective_permute` and
//! `collective_broadcast`, with `replica_groups` as a `dense<..> : tensor<GxNxi64>`,
//! `channel_handle` and `use_global_device_ids`. StableHLO has no `shard_count`: the result
//! type carries it (the importer derives it back from the types). RaggedAllToAll, which
//! StableHLO lacks, is the `stablehlo.custom_call @ragged_all_to_all` JAX writes (operands
//! in XLA's order; `channel_id` and `replica_groups` in its backend_config dictionary).

use super::super::text::flat_types;
use super::super::{Body, Val};
use crate::error::Result;
use crate::ir::{Collective, CollectiveKind, Instruction};

/// `dense<[[a, b], [c, d]]> : tensor<2x2xi64>` (`tensor<0x0xi64>` for none).
fn int_matrix(rows: &[Vec<i64>]) -> String {
    // AllReduce's groups may differ in size: short rows are padded with -1, as XLA writes them.
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let body: Vec<String> = rows
        .iter()
        .map(|r| {
            let padded = r.iter().copied().chain(std::iter::repeat(-1)).take(width);
            format!(
                "[{}]",
                padded.map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    if rows.is_empty() {
        return "dense<> : tensor<0x0xi64>".to_string();
    }
    format!(
        "dense<[{}]> : tensor<{}x{width}xi64>",
        body.join(", "),
        rows.len()
    )
}

/// `replica_groups = .., channel_handle = .., use_global_device_ids` as `c` has them.
fn group_attrs(c: &Collective, with_groups: bool) -> Vec<String> {
    let mut a = Vec::new();
    if with_groups {
        a.push(format!(
            "replica_groups = {}",
            int_matrix(&c.replica_groups)
        ));
    }
    if let Some(id) = c.channel_id.filter(|&id| id > 0) {
        a.push(format!(
            "channel_handle = #stablehlo.channel_handle<handle = {id}, type = 1>"
        ));
    }
    if c.use_global_device_ids {
        a.push("use_global_device_ids".to_string());
    }
    a
}

impl Body<'_> {
    /// One collective instruction.
    pub(super) fn collective(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        c: &Collective,
        depth: usize,
    ) -> Result<Val> {
        let attrs = |extra: Vec<String>, with_groups: bool| {
            let mut all = extra;
            all.extend(group_attrs(c, with_groups));
            format!(" {{{}}}", all.join(", "))
        };
        match &c.kind {
            CollectiveKind::ReplicaId => Ok(self.single(
                depth,
                "stablehlo.replica_id : tensor<ui32>",
                "tensor<ui32>".into(),
            )),
            CollectiveKind::PartitionId => Ok(self.single(
                depth,
                "stablehlo.partition_id : tensor<ui32>",
                "tensor<ui32>".into(),
            )),
            CollectiveKind::AllReduce { computation } => {
                let a = attrs(vec![], true);
                self.region_op(
                    ins,
                    ops,
                    "stablehlo.all_reduce",
                    computation,
                    a.trim_start(),
                    depth,
                )
            }
            CollectiveKind::ReduceScatter {
                dimension,
                computation,
                ..
            } => {
                let a = attrs(vec![format!("scatter_dimension = {dimension} : i64")], true);
                self.region_op(
                    ins,
                    ops,
                    "stablehlo.reduce_scatter",
                    computation,
                    a.trim_start(),
                    depth,
                )
            }
            CollectiveKind::AllGather { dimension, .. } => {
                let a = attrs(vec![format!("all_gather_dim = {dimension} : i64")], true);
                Ok(self.variadic(ins, ops, "stablehlo.all_gather", &a, depth))
            }
            CollectiveKind::AllToAll {
                split_dimension,
                concat_dimension,
                split_count,
            } => {
                // XLA:CPU crashes on an all_to_all without groups; "every device" is one group
                // of split_count ids there (the run checks the group size is split_count).
                if c.replica_groups.is_empty() {
                    let mut all = c.clone();
                    all.replica_groups = vec![(0..*split_count).collect()];
                    return self.collective(ins, ops, &all, depth);
                }
                let a = attrs(
                    vec![
                        format!("split_dimension = {split_dimension} : i64"),
                        format!("concat_dimension = {concat_dimension} : i64"),
                        format!("split_count = {split_count} : i64"),
                    ],
                    true,
                );
                // Several operands go as one op each, which computes what the spec's variadic
                // all_to_all does (each operand is exchanged on its own): XLA lowers a
                // variadic all_to_all as its tuple all-to-all (operand j sent to member j,
                // results of the operands' shapes), and its verifier wants one shape.
                if ops.len() == 1 {
                    return self.positional(ins, ops, "stablehlo.all_to_all", &a, depth);
                }
                let mut types = Vec::new();
                flat_types(&ins.shape, &mut types);
                let mut vals = Vec::with_capacity(ops.len());
                for (v, result) in ops.iter().zip(types) {
                    let (name, ty) = v.leaf(ins.op.opcode())?;
                    let rhs = format!("\"stablehlo.all_to_all\"({name}){a} : ({ty}) -> {result}");
                    vals.push(self.single(depth, &rhs, result));
                }
                Ok(Val::Tuple(vals))
            }
            CollectiveKind::CollectivePermute {
                source_target_pairs,
            } => {
                let pairs: Vec<Vec<i64>> = source_target_pairs
                    .iter()
                    .map(|&(s, t)| vec![s, t])
                    .collect();
                let pairs = if pairs.is_empty() {
                    "dense<> : tensor<0x2xi64>".to_string()
                } else {
                    int_matrix(&pairs)
                };
                let a = attrs(vec![format!("source_target_pairs = {pairs}")], false);
                self.positional(ins, ops, "stablehlo.collective_permute", &a, depth)
            }
            CollectiveKind::CollectiveBroadcast => {
                let a = attrs(vec![], true);
                self.positional(ins, ops, "stablehlo.collective_broadcast", &a, depth)
            }
            CollectiveKind::RaggedAllToAll => {
                let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
                let mut config = Vec::new();
                if let Some(id) = c.channel_id.filter(|&id| id > 0) {
                    config.push(format!("channel_id = {id} : i64"));
                }
                config.push(format!(
                    "replica_groups = {}",
                    int_matrix(&c.replica_groups)
                ));
                let result = super::super::text::results_type(&ins.shape);
                let rhs = format!(
                    "stablehlo.custom_call @ragged_all_to_all({names}) {{api_version = 4 : i32, \
                     backend_config = {{{}}}}} : ({types}) -> {result}",
                    config.join(", ")
                );
                Ok(self.single(depth, &rhs, result))
            }
        }
    }

    /// `%n:k = "name"(%a, %b, ...) attrs : (A, B, ...) -> (R1, R2, ...)`: an op of array
    /// operands with one result per operand (a tuple in the IR).
    fn variadic(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        name: &str,
        attrs: &str,
        depth: usize,
    ) -> Val {
        let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
        let mut results = Vec::new();
        flat_types(&ins.shape, &mut results);
        let results = match &results[..] {
            [one] => one.clone(),
            many => format!("({})", many.join(", ")),
        };
        let rhs = format!("\"{name}\"({names}){attrs} : ({types}) -> {results}");
        self.multi(depth, &rhs, &ins.shape)
    }
}
