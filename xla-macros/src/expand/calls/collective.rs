//! Collectives as calls of `xla_kernels::collectives` with the fn's `ctx: &dyn Collectives`:
//! the groups, pairs and dimensions are literals of the call; a reducer is inlined as a
//! closure; AllReduce, AllGather and AllToAll make one call per operand. AllGather,
//! ReduceScatter and AllToAll first check the device's group has the size their result shapes
//! were inferred for (`shard_count`, `split_count`: an `Err` naming the op, not a panic).
//! RaggedAllToAll is one call on its six buffers, its rows (outermost dimensions) literals;
//! its offsets and sizes are checked at run time by the call (`Err` naming them). The kernel
//! returns `Result<(), CollectiveError>` (program.rs adds the `?`).

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use xla_core::{Collective, CollectiveKind, Computation, ElementType, GroupMode};

use super::super::codegen_rt::{lit_usize, rust_type};
use super::CallCode;

fn kernels() -> TokenStream {
    quote!(::xla_aot::__rt::xla_kernels::collectives)
}

fn mode(m: GroupMode) -> TokenStream {
    let k = kernels();
    match m {
        GroupMode::CrossReplica => quote!(#k::GroupMode::CrossReplica),
        GroupMode::CrossPartition => quote!(#k::GroupMode::CrossPartition),
        GroupMode::CrossReplicaAndPartition => quote!(#k::GroupMode::CrossReplicaAndPartition),
        GroupMode::FlattenedIds => quote!(#k::GroupMode::FlattenedIds),
    }
}

/// `&[&[0i64, 1], &[2, 3]]`.
fn groups(c: &Collective) -> TokenStream {
    let rows = c.replica_groups.iter().map(|g| {
        let ids = g.iter().map(|&i| proc_macro2::Literal::i64_suffixed(i));
        quote!(&[#(#ids),*])
    });
    quote!(&[#(#rows),*])
}

/// `Around { outer, extent, inner }` of `dims` around dimension `d`.
fn around(dims: &[i64], d: i64) -> Result<TokenStream, String> {
    let d = usize::try_from(d).map_err(|_| format!("dimension {d}"))?;
    if d >= dims.len() {
        return Err(format!("dimension {d} of a rank-{} array", dims.len()));
    }
    let (outer, extent, inner) = (
        lit_usize(dims[..d].iter().product::<i64>()),
        lit_usize(dims[d]),
        lit_usize(dims[d + 1..].iter().product::<i64>()),
    );
    let k = kernels();
    Ok(quote!(#k::Around { outer: #outer, extent: #extent, inner: #inner }))
}

/// The reducer as a closure `|a: T, b: T| -> T`.
fn closure(f: &Computation, ty: ElementType) -> Result<TokenStream, String> {
    let (stmts, outs) = super::super::inline::scalar_call(f, &[(quote!(a), ty), (quote!(b), ty)])?;
    let (t, o) = (rust_type(ty), &outs[0]);
    Ok(quote!(|a: #t, b: #t| -> #t { #stmts #o }))
}

/// An operand's input, its dimensions and its result.
type Operand<'a> = (&'a Ident, &'a [i64], &'a Ident);

/// `(input, dims, result)` of every operand; `Err` unless there is one result per operand.
fn per_operand<'a>(
    name: &str,
    ins: &'a [Ident],
    in_dims: &'a [Vec<i64>],
    ws: &'a [Ident],
) -> Result<Vec<Operand<'a>>, String> {
    if ins.is_empty() || ins.len() != in_dims.len() || ins.len() != ws.len() {
        return Err(format!(
            "{name}: {} operands, {} results",
            ins.len(),
            ws.len()
        ));
    }
    Ok(ins
        .iter()
        .zip(in_dims)
        .zip(ws)
        .map(|((x, d), w)| (x, d.as_slice(), w))
        .collect())
}

/// The call of collective `c` on inputs `ins` (dims `in_dims`, types `in_tys`) into `ws`.
pub(crate) fn call(
    c: &Collective,
    ins: &[Ident],
    in_dims: &[Vec<i64>],
    in_tys: &[ElementType],
    ws: &[Ident],
) -> Result<CallCode, String> {
    let k = kernels();
    let name = c.kind.name();
    let (m, gs) = (mode(c.mode()), groups(c));
    let group = quote!(let g = #k::group(ctx, #name, #m, #gs)?;);
    // The group of AllGather, ReduceScatter and AllToAll, checked against the size the
    // shapes were inferred for.
    let sized_group = || -> Result<TokenStream, String> {
        let expected =
            xla_core::infer::collective::expected_group_size(c).map_err(|e| e.to_string())?;
        let Some((what, want)) = expected else {
            return Err(format!("{name}: no group size to check"));
        };
        let want = proc_macro2::Literal::i64_suffixed(want);
        Ok(quote! {
            #group
            #k::expect_group_size(#name, #what, &g, #want)?;
        })
    };
    let operands = || per_operand(name, ins, in_dims, ws);
    let first = || -> Result<(&Ident, &Vec<i64>, ElementType, &Ident), String> {
        match (ins.first(), in_dims.first(), in_tys.first(), ws.first()) {
            (Some(x), Some(d), Some(&t), Some(w)) => Ok((x, d, t, w)),
            _ => Err(format!("{name}: an operand and a result")),
        }
    };
    let body = match &c.kind {
        CollectiveKind::ReplicaId => {
            let w = ws.first().ok_or("ReplicaId: a result")?;
            quote!(#w[0] = ctx.replica_id();)
        }
        CollectiveKind::PartitionId => {
            let w = ws.first().ok_or("PartitionId: a result")?;
            quote!(#w[0] = ctx.partition_id();)
        }
        CollectiveKind::AllReduce { computation } => {
            let mut calls = TokenStream::new();
            for ((x, &ty), w) in ins.iter().zip(in_tys).zip(ws) {
                let f = closure(computation, ty)?;
                calls.extend(quote!(#k::all_reduce(ctx, &g, #x, #w, #f)?;));
            }
            quote!(#group #calls)
        }
        CollectiveKind::AllGather { dimension, .. } => {
            let mut calls = sized_group()?;
            for (x, dims, w) in operands()? {
                let a = around(dims, *dimension)?;
                calls.extend(quote!(#k::all_gather(ctx, &g, #x, #a, #w)?;));
            }
            calls
        }
        CollectiveKind::AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
        } => {
            let mut calls = sized_group()?;
            for (x, dims, w) in operands()? {
                let split = around(dims, *split_dimension)?;
                let mut part = dims.to_vec();
                let s = usize::try_from(*split_dimension)
                    .ok()
                    .filter(|&s| s < part.len())
                    .ok_or("split_dimension")?;
                part[s] /= split_count;
                let part = around(&part, *concat_dimension)?;
                calls.extend(quote!(#k::all_to_all(ctx, &g, #x, #split, #part, #w)?;));
            }
            calls
        }
        CollectiveKind::ReduceScatter {
            dimension,
            computation,
            ..
        } => {
            let (x, dims, ty, w) = first()?;
            let a = around(dims, *dimension)?;
            let f = closure(computation, ty)?;
            let g = sized_group()?;
            quote!(#g #k::reduce_scatter(ctx, &g, #x, #a, #w, #f)?;)
        }
        CollectiveKind::CollectivePermute {
            source_target_pairs,
        } => {
            let (x, _, _, w) = first()?;
            let pairs = source_target_pairs.iter().map(|&(s, t)| {
                let (s, t) = (
                    proc_macro2::Literal::i64_suffixed(s),
                    proc_macro2::Literal::i64_suffixed(t),
                );
                quote!((#s, #t))
            });
            quote! {
                let (from, to) = #k::permute_peers(ctx, #m, &[#(#pairs),*])?;
                #k::collective_permute(ctx, from, &to, #x, #w)?;
            }
        }
        CollectiveKind::CollectiveBroadcast => {
            let (x, _, _, w) = first()?;
            quote! {
                let g = #k::group_opt(ctx, #name, #m, #gs)?;
                #k::collective_broadcast(ctx, g.as_deref(), #x, #w)?;
            }
        }
        CollectiveKind::RaggedAllToAll => {
            let ([x, y, io, ss, oo, rs], [in_d, out_d, ..], Some(w)) = (ins, in_dims, ws.first())
            else {
                return Err(format!("{name}: 6 operands and a result"));
            };
            let (Some(&n_in), Some(&n_out)) = (in_d.first(), out_d.first()) else {
                return Err(format!("{name}: rank-0 input or output"));
            };
            let (n_in, n_out, row) = (
                lit_usize(n_in),
                lit_usize(n_out),
                lit_usize(out_d[1..].iter().product::<i64>()),
            );
            quote! {
                #group
                let rows = #k::Rows { input: #n_in, output: #n_out, row: #row };
                #k::ragged_all_to_all(ctx, &g, #x, #y, [#io, #ss, #oo, #rs], rows, #w)?;
            }
        }
    };
    Ok(CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote!(#body ::core::result::Result::Ok(())),
    })
}
