//! f16/bf16 reductions in XLA:CPU's tree order (`xla_core::reduce_order`): every application of
//! the reducer rounds to f16/bf16, as in XLA, so a left-to-right fold would lose what XLA's
//! windows of 32 keep (a bf16 running sum of ones stops at 256). The evaluator folds the same
//! levels, so both give XLA's bits for bf16.
//!
//! The levels nest depth-first instead of storing partial results: level `l`'s result at
//! position `q` is
//! `fold_{k in window, row-major} f(acc, level_{l-1}[q * window + k - pad_low])` from `init`,
//! skipping padded positions, and level 0 reads the operand. Each element is computed once,
//! nothing is stored, and each output is a pure function of its inputs (so the split over
//! threads cannot change it).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::reduce_order::{follows_tree, levels, Level};
use xla_core::{Computation, ElementType};

use super::codegen_loops::Space;
use super::codegen_rt::lit_usize;
use super::inline::reducer_update;

/// The loop variable of a reduced group the statements read, with its dims as `(index into the
/// levels' dims, multiplier inside the group)`: the group's row-major position is
/// `sum p[j] * multiplier`.
pub(crate) type Group = (TokenStream, Vec<(usize, i64)>);

/// The levels and the read groups of a reduction over the groups `red` of `space` (loop
/// variables `vars`, `reads(g)`: whether the element or its store reads group `g`), when it
/// folds in XLA:CPU's windows: one f16/bf16 output and a reduced extent above 32. The reduced
/// dims of extent > 1, in order, are the reduced groups' dims (`Space` drops extent-1 dims,
/// which a window of 1 leaves alone anyway).
pub(crate) fn windows(
    space: &Space,
    red: &[usize],
    op_dims: &[i64],
    tys: &[ElementType],
    vars: &[TokenStream],
    reads: &dyn Fn(usize) -> bool,
) -> Option<(Vec<Level>, Vec<Group>)> {
    if !follows_tree(tys) {
        return None;
    }
    let mut extents = Vec::new();
    let mut groups = Vec::new();
    for &g in red {
        let ds = space.groups.get(g)?;
        let mut dims = Vec::with_capacity(ds.len());
        for (k, &d) in ds.iter().enumerate() {
            let below: i64 = ds[k + 1..].iter().filter_map(|&e| op_dims.get(e)).product();
            dims.push((extents.len(), below));
            extents.push(usize::try_from(*op_dims.get(d)?).ok()?);
        }
        if reads(g) {
            groups.push((vars.get(g)?.clone(), dims));
        }
    }
    let levels = levels(&extents);
    (levels.len() > 1).then_some((levels, groups))
}

/// What the tree fold of one output needs from its reduce kernel.
pub(crate) struct Tree<'a> {
    /// `xla_core::reduce_order::levels` of the reduced extents (more than one level).
    pub levels: &'a [Level],
    /// The reduced groups the statements read.
    pub groups: Vec<Group>,
    /// Statements computing the operand element (and storing it) from the group variables.
    pub element: TokenStream,
    /// The operand element's variable.
    pub x: &'a Ident,
    pub init: &'a Ident,
    pub reducer: &'a Computation,
    pub ty: ElementType,
}

impl Tree<'_> {
    /// An expression: the output's value (the last level, a single window).
    pub(crate) fn value(&self) -> Result<TokenStream, String> {
        let top = self.levels.len().saturating_sub(1);
        let rank = self.levels.first().map_or(0, |l| l.dims.len());
        self.level(top, &vec![None; rank])
    }

    /// Whether level `l` needs the positions along dim `j`: some statement reads the operand
    /// along it (through its group's variable), or this or a lower level checks padding there.
    /// Otherwise its windows only repeat the same work, and no position variable is bound (it
    /// would be unused).
    fn needs(&self, l: usize, j: usize) -> bool {
        let read = self
            .groups
            .iter()
            .any(|(_, dims)| dims.iter().any(|&(d, _)| d == j));
        read || self.levels[..=l].iter().any(|lv| lv.padded(j))
    }

    /// Level `l`'s result at position `q` (`None`: position 0).
    fn level(&self, l: usize, q: &[Option<TokenStream>]) -> Result<TokenStream, String> {
        let lv = self
            .levels
            .get(l)
            .ok_or("internal: tree level out of range")?;
        let acc = format_ident!("ta{}", l);
        let (mut loops, mut lets, mut checks) = (Vec::new(), TokenStream::new(), Vec::new());
        let mut p: Vec<Option<TokenStream>> = Vec::with_capacity(lv.dims.len());
        for (j, qj) in q.iter().enumerate().take(lv.dims.len()) {
            let (d, w, lo) = (lv.dims[j], lv.window[j], lv.pad_low[j]);
            if d <= 1 {
                // A single position: 0.
                p.push(None);
                continue;
            }
            let padded = lv.padded(j);
            if !self.needs(l, j) {
                loops.push((quote!(_), lit_usize(w)));
                p.push(None);
                continue;
            }
            let k = format_ident!("tk{}_{}", l, j);
            loops.push((quote!(#k), lit_usize(w)));
            let mut pos = match qj {
                Some(qj) => {
                    let w = lit_usize(w);
                    quote!((#qj * #w + #k))
                }
                None => quote!(#k),
            };
            if lo > 0 {
                // Below 0 wraps to a huge index, which the range check rejects too.
                let lo = lit_usize(lo);
                pos = quote!(#pos.wrapping_sub(#lo));
            }
            if qj.is_none() && lo == 0 {
                p.push(Some(quote!(#k)));
            } else {
                let pid = format_ident!("tp{}_{}", l, j);
                lets.extend(quote!(let #pid = #pos;));
                p.push(Some(quote!(#pid)));
            }
            if padded {
                let (pj, d) = (p[j].clone(), lit_usize(d));
                checks.push(quote!(#pj < #d));
            }
        }
        let body = if l == 0 {
            let mut binds = TokenStream::new();
            for (var, dims) in &self.groups {
                let terms: Vec<TokenStream> = dims
                    .iter()
                    .filter_map(|&(j, m)| {
                        let pj = p.get(j).cloned().flatten()?;
                        Some(if m == 1 {
                            pj
                        } else {
                            let m = lit_usize(m);
                            quote!(#pj * #m)
                        })
                    })
                    .collect();
                let value = if terms.is_empty() {
                    quote!(0usize)
                } else {
                    quote!(#(#terms)+*)
                };
                binds.extend(quote!(let #var = #value;));
            }
            let update = reducer_update(
                self.reducer,
                std::slice::from_ref(&acc),
                std::slice::from_ref(self.x),
                &[self.ty],
            )?;
            let element = &self.element;
            quote!(#binds #element #update)
        } else {
            let x = format_ident!("tx{}", l);
            let below = self.level(l - 1, &p)?;
            let update = reducer_update(
                self.reducer,
                std::slice::from_ref(&acc),
                std::slice::from_ref(&x),
                &[self.ty],
            )?;
            quote!(let #x = #below; #update)
        };
        let mut inner = if checks.is_empty() {
            quote!(#lets #body)
        } else {
            quote!(#lets if #(#checks)&&* { #body })
        };
        for (k, w) in loops.iter().rev() {
            inner = quote!(for #k in 0..#w { #inner });
        }
        let init = self.init;
        Ok(quote!({
            let mut #acc = #init;
            #inner
            #acc
        }))
    }
}
