//! Programs nested in programs: a computation used as a loop condition or body or as a branch
//! compiles, through the same pipeline as a fn (graph, fusion, plan, kernels), to a module of
//! its own inside the parent's companion module: `Scratch`, and
//! `run(params.., outs.., scratch)` over plain slices. The parent's kernel keeps the nested
//! `Scratch` in its own scratch, so a loop allocates nothing per iteration.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{Computation, ElementType, Shape};

use super::calls::{CallCode, ScratchField};
use super::codegen_rt::{lit_usize, module_imports, param_ident, rust_type};
use super::fuse::{Fused, Kernel};
use super::plan::{Plan, StateLeaf};
use super::program::{program, Largest};

/// A nested program's module, and the Rust types of its parameter and result leaves.
struct Nested {
    module: Ident,
    item: TokenStream,
    params: Vec<ElementType>,
    results: Vec<(ElementType, i64)>,
    /// Per result leaf of a While body: how the state leaf is kept. `Updated` and `Unchanged`
    /// leaves are in place (the output is the parameter leaf; `run` takes no parameter for
    /// it), and an `Unchanged` output is only read (`&[T]`).
    state: Vec<StateLeaf>,
    /// The program has collectives: `run` takes the device's `ctx` first and returns the
    /// transport's Result.
    spmd: bool,
    /// Its kernels' sizes, which decide whether the enclosing program enters rayon's pool.
    largest: Largest,
}

impl Nested {
    /// `m::run(ctx, args...)?` or `m::run(args...)`.
    fn call(&self, args: TokenStream) -> TokenStream {
        let m = &self.module;
        if self.spmd {
            quote!(#m::run(ctx, #args)?)
        } else {
            quote!(#m::run(#args))
        }
    }
}

fn flat(s: &Shape, out: &mut Vec<(ElementType, i64)>) {
    match s {
        Shape::Array(a) => out.push((a.ty, a.element_count())),
        Shape::Tuple(ts) => ts.iter().for_each(|t| flat(t, out)),
        Shape::Token => {}
    }
}

/// Param leaf paths of `s` in order (`[]` for an array parameter).
fn leaf_paths(s: &Shape, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    match s {
        Shape::Array(_) => out.push(path.clone()),
        Shape::Tuple(ts) => {
            for (i, t) in ts.iter().enumerate() {
                path.push(i);
                leaf_paths(t, path, out);
                path.pop();
            }
        }
        Shape::Token => {}
    }
}

/// Compile `c` into module `name`; a While body (`state`) may update state leaves in place.
fn nested(c: &Computation, name: Ident, state: bool) -> Result<Nested, String> {
    let g = super::graph::Graph::from_computation(c)?;
    let fused = super::fuse::fuse(g, c.result_shape())?;
    let mut plan = super::plan::plan(&fused);
    let mut state_paths = Vec::new();
    if let Some(s) = c.params.first() {
        leaf_paths(s, &mut Vec::new(), &mut state_paths);
    }
    let kept = if state && c.params.len() == 1 {
        super::plan::state_in_place(&fused, &mut plan, &state_paths)
    } else {
        Vec::new()
    };
    let leaf = |i: usize| kept.get(i).copied().unwrap_or(StateLeaf::Swapped);
    let prog = program(&fused, &plan)?;
    let spmd = prog.spmd;
    // Every parameter leaf, read or not, is a parameter of `run`.
    let mut params = Vec::new();
    let mut param_tys = Vec::new();
    for (index, shape) in c.params.iter().enumerate() {
        let mut paths = Vec::new();
        leaf_paths(shape, &mut Vec::new(), &mut paths);
        let mut tys = Vec::new();
        flat(shape, &mut tys);
        for (path, (ty, _)) in paths.iter().zip(tys) {
            if plan.params_in_place.contains_key(&(index, path.clone())) {
                continue;
            }
            let id = param_ident(index, path);
            let t = rust_type(ty);
            params.push(quote!(#id: &[#t]));
            param_tys.push(ty);
        }
    }
    let mut results = Vec::new();
    flat(c.result_shape(), &mut results);
    let outs: Vec<TokenStream> = results
        .iter()
        .enumerate()
        .map(|(i, (ty, _))| {
            let o = format_ident!("out{}", i);
            let t = rust_type(*ty);
            if leaf(i) == StateLeaf::Unchanged {
                quote!(#o: &[#t])
            } else {
                quote!(#o: &mut [#t])
            }
        })
        .collect();
    let items = &prog.items;
    let calls = &prog.calls;
    let fields: Vec<&Ident> = prog.fields.iter().map(|f| &f.name).collect();
    let types: Vec<&TokenStream> = prog.fields.iter().map(|f| &f.ty).collect();
    let inits: Vec<&TokenStream> = prog.fields.iter().map(|f| &f.init).collect();
    let imports = module_imports();
    let (ctx_param, ret, ok) = if spmd {
        (
            quote!(ctx: &dyn ::xla_aot::Collectives,),
            quote!(-> ::core::result::Result<(), ::xla_aot::CollectiveError>),
            quote!(::core::result::Result::Ok(())),
        )
    } else {
        (quote!(), quote!(), quote!())
    };
    let doc = format!("The nested computation `{}`.", c.name);
    let item = quote! {
        #[doc = #doc]
        #[allow(dead_code, non_snake_case, unused_parens, unused_variables)]
        mod #name {
            #imports
            #items

            /// The nested program's buffers, allocated once by its parent's `Scratch::new`.
            pub struct Scratch {
                #(#fields: #types,)*
            }

            impl Scratch {
                /// Allocates every buffer of the nested program.
                pub fn new() -> Self {
                    Scratch { #(#fields: #inits,)* }
                }
            }

            /// Runs the nested program on its parameter leaves, writing its result leaves.
            #[allow(clippy::too_many_arguments)]
            pub fn run(#ctx_param #(#params,)* #(#outs,)* scratch: &mut Scratch) #ret {
                #calls
                #ok
            }
        }
    };
    Ok(Nested {
        module: name,
        item,
        params: param_tys,
        state: (0..results.len()).map(leaf).collect(),
        results,
        spmd,
        largest: prog.largest,
    })
}

fn scratch_of(n: &Nested, field: &str) -> ScratchField {
    let m = &n.module;
    ScratchField {
        name: format_ident!("{}", field),
        ty: quote!(#m::Scratch),
        init: quote!(#m::Scratch::new()),
        shared: false,
    }
}

/// `While`: a state leaf the body replaces lives in two scratch buffers, initialised from the
/// input; each step runs the condition into a one-element flag, then the body from one buffer
/// into the other, and swaps them. A leaf the body updates in place lives in the node's output
/// (one copy in, none out); a leaf it returns unchanged is read from the input itself (a
/// scan's inputs and weights are not copied at all, and copied out only when read later).
#[allow(clippy::too_many_arguments)]
pub(crate) fn while_loop(
    f: &Fused,
    plan: &Plan,
    k: &Kernel,
    ins: &[Ident],
    condition: &Computation,
    body: &Computation,
    ws: &[Ident],
    id: usize,
) -> Result<(CallCode, Largest), String> {
    let cond = nested(condition, format_ident!("k{}_condition", id), false)?;
    let step = nested(body, format_ident!("k{}_body", id), true)?;
    if cond.results.len() != 1 || cond.results[0].0 != ElementType::Pred {
        return Err("While: the condition must return one pred".into());
    }
    let n = ws.len();
    let swapped = |i: &usize| step.state[*i] == StateLeaf::Swapped;
    let kept = (0..n).filter(swapped).count();
    if step.results.len() != n
        || cond.params.len() != n
        || step.params.len() != kept
        || ins.len() != n
        || k.outputs.len() != n
    {
        return Err("internal: While state leaves differ between condition, body and init".into());
    }
    let mut scratch = vec![scratch_of(&cond, "condition"), scratch_of(&step, "body")];
    let curs: Vec<Ident> = (0..n).map(|i| format_ident!("cur{}", i)).collect();
    let nexts: Vec<Ident> = (0..n).map(|i| format_ident!("next{}", i)).collect();
    let (mut init, mut reads, mut body_reads, mut writes, mut swaps, mut fin) = (
        TokenStream::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        TokenStream::new(),
        TokenStream::new(),
    );
    for (i, (ty, len)) in step.results.iter().enumerate() {
        let (x, w, cur, next) = (&ins[i], &ws[i], &curs[i], &nexts[i]);
        let live = plan.live(f, k.outputs[i]);
        match step.state[i] {
            // Two buffers swapped after each step: O(1) per iteration whatever the leaf's
            // size; the output gets the final state once.
            StateLeaf::Swapped => {
                let t = rust_type(*ty);
                let len = lit_usize(*len);
                for name in [cur, next] {
                    scratch.push(ScratchField {
                        name: name.clone(),
                        ty: quote!(::std::vec::Vec<#t>),
                        init: quote!(
                            ::std::vec![<#t as ::core::default::Default>::default(); #len]
                        ),
                        shared: false,
                    });
                }
                init.extend(
                    quote!(::xla_aot::__rt::xla_kernels::par::copy(&mut #cur[..], &#x[..]);),
                );
                reads.push(quote!(&#cur[..]));
                body_reads.push(quote!(&#cur[..]));
                writes.push(quote!(&mut #next[..]));
                swaps.extend(quote!(::core::mem::swap(#cur, #next);));
                if live {
                    fin.extend(quote!(::xla_aot::__rt::xla_kernels::par::copy(#w, &#cur[..]);));
                }
            }
            // The body reads and writes the output itself.
            StateLeaf::Updated => {
                init.extend(quote!(::xla_aot::__rt::xla_kernels::par::copy(#w, &#x[..]);));
                reads.push(quote!(&#w[..]));
                writes.push(quote!(&mut #w[..]));
            }
            // Only read: the input is the state.
            StateLeaf::Unchanged => {
                reads.push(quote!(&#x[..]));
                writes.push(quote!(&#x[..]));
                if live {
                    fin.extend(quote!(::xla_aot::__rt::xla_kernels::par::copy(#w, &#x[..]);));
                }
            }
        }
    }
    let run_cond = cond.call(quote!(#(#reads,)* &mut flag, condition));
    let run_body = step.call(quote!(#(#body_reads,)* #(#writes,)* body));
    let ok = if cond.spmd || step.spmd {
        quote!(::core::result::Result::Ok(()))
    } else {
        quote!()
    };
    let body_code = quote! {
        #init
        loop {
            let mut flag = [false];
            #run_cond;
            if !flag[0] {
                break;
            }
            #run_body;
            #swaps
        }
        #fin
        #ok
    };
    let largest = cond.largest.max(step.largest);
    let (ci, bi) = (cond.item, step.item);
    let code = CallCode {
        scratch,
        items: quote!(#ci #bi),
        body: body_code,
    };
    Ok((code, largest))
}

/// `Conditional`: the selector picks one branch program (a pred picks 0 for true, 1 for false;
/// an index out of range the last branch), which writes the node's outputs directly.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conditional(
    f: &Fused,
    k: &Kernel,
    ins: &[Ident],
    tys: &[ElementType],
    branches: &[std::sync::Arc<Computation>],
    arity: &[usize],
    ws: &[Ident],
    id: usize,
) -> Result<(CallCode, Largest), String> {
    let _ = (f, k);
    let nb = branches.len();
    if nb == 0 || arity.len() != nb {
        return Err("internal: Conditional without branches".into());
    }
    let sel = &ins[0];
    let last = lit_usize(nb as i64 - 1);
    let index = match tys[0] {
        ElementType::Pred => quote!(if #sel[0] { 0usize } else { 1usize }),
        ElementType::S32 => quote!(match usize::try_from(#sel[0]) {
            ::core::result::Result::Ok(i) if i < #last => i,
            _ => #last,
        }),
        t => return Err(format!("Conditional: a {t} selector (pred or s32 only)")),
    };
    let mut scratch = Vec::new();
    let mut items = TokenStream::new();
    let mut arms = TokenStream::new();
    let mut spmd = false;
    let mut largest = Largest::default();
    let mut start = 1;
    for (b, c) in branches.iter().enumerate() {
        let prog = nested(c, format_ident!("k{}_branch{}", id, b), false)?;
        let field = format!("branch{b}");
        scratch.push(scratch_of(&prog, &field));
        let fi = format_ident!("{}", field);
        let args = &ins[start..start + arity[b]];
        start += arity[b];
        if prog.results.len() != ws.len() {
            return Err("internal: a Conditional branch's result differs from the node's".into());
        }
        let bl = lit_usize(b as i64);
        let arm_index = if b + 1 == nb { quote!(_) } else { quote!(#bl) };
        let run = prog.call(quote!(#(#args,)* #(&mut *#ws,)* #fi));
        arms.extend(quote!(#arm_index => #run,));
        spmd |= prog.spmd;
        largest = largest.max(prog.largest);
        items.extend(prog.item);
    }
    let code = CallCode {
        scratch,
        items,
        body: if spmd {
            quote! {
                match #index {
                    #arms
                }
                ::core::result::Result::Ok(())
            }
        } else {
            quote! {
                match #index {
                    #arms
                }
            }
        },
    };
    Ok((code, largest))
}
