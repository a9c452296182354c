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
use super::program::program;

/// A nested program's module, and the Rust types of its parameter and result leaves.
struct Nested {
    module: Ident,
    item: TokenStream,
    params: Vec<ElementType>,
    results: Vec<(ElementType, i64)>,
    /// Per result leaf: updated in place (its parameter leaf is the output; `run` takes no
    /// parameter for it).
    in_place: Vec<bool>,
    /// The program has collectives: `run` takes the device's `ctx` first and returns the
    /// transport's Result.
    spmd: bool,
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
    let in_place = if state && c.params.len() == 1 {
        super::plan::state_in_place(&fused, &mut plan, &state_paths)
    } else {
        Vec::new()
    };
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
            quote!(#o: &mut [#t])
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
        in_place: (0..results.len())
            .map(|i| in_place.get(i).copied().unwrap_or(false))
            .collect(),
        results,
        spmd,
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

/// `While`: the state lives in two scratch buffers per leaf, initialised from the inputs; each
/// step runs the condition into a one-element flag, then the body from one buffer into the
/// other, and swaps them; the final state is copied into the node's outputs.
pub(crate) fn while_loop(
    f: &Fused,
    k: &Kernel,
    ins: &[Ident],
    condition: &Computation,
    body: &Computation,
    ws: &[Ident],
    id: usize,
) -> Result<CallCode, String> {
    let cond = nested(condition, format_ident!("k{}_condition", id), false)?;
    let step = nested(body, format_ident!("k{}_body", id), true)?;
    if cond.results.len() != 1 || cond.results[0].0 != ElementType::Pred {
        return Err("While: the condition must return one pred".into());
    }
    let n = ws.len();
    let kept = step.in_place.iter().filter(|&&p| !p).count();
    if step.results.len() != n || cond.params.len() != n || step.params.len() != kept {
        return Err("internal: While state leaves differ between condition, body and init".into());
    }
    let _ = f.graph.shape(k.outputs[0]);
    let mut scratch = vec![scratch_of(&cond, "condition"), scratch_of(&step, "body")];
    // The state in two buffers per leaf, swapped after each step (the body reads one and
    // writes the other): O(1) per iteration whatever the state's size; the node's outputs get
    // the final state once. A leaf the body updates in place has one buffer, which the body
    // both reads and writes (no swap).
    let curs: Vec<Ident> = (0..n).map(|i| format_ident!("cur{}", i)).collect();
    let nexts: Vec<Ident> = (0..n).map(|i| format_ident!("next{}", i)).collect();
    for (i, (ty, len)) in step.results.iter().enumerate() {
        let t = rust_type(*ty);
        let len = lit_usize(*len);
        let names = if step.in_place[i] {
            vec![&curs[i]]
        } else {
            vec![&curs[i], &nexts[i]]
        };
        for name in names {
            scratch.push(ScratchField {
                name: name.clone(),
                ty: quote!(::std::vec::Vec<#t>),
                init: quote!(::std::vec![<#t as ::core::default::Default>::default(); #len]),
                shared: false,
            });
        }
    }
    let kept = |i: &usize| !step.in_place[*i];
    let reads: Vec<&Ident> = (0..n).filter(kept).map(|i| &curs[i]).collect();
    let writes: Vec<&Ident> = (0..n)
        .map(|i| {
            if step.in_place[i] {
                &curs[i]
            } else {
                &nexts[i]
            }
        })
        .collect();
    let (swap_c, swap_n): (Vec<&Ident>, Vec<&Ident>) =
        (0..n).filter(kept).map(|i| (&curs[i], &nexts[i])).unzip();
    let run_cond = cond.call(quote!(#(&#curs[..],)* &mut flag, condition));
    let run_body = step.call(quote!(#(&#reads[..],)* #(&mut #writes[..],)* body));
    let ok = if cond.spmd || step.spmd {
        quote!(::core::result::Result::Ok(()))
    } else {
        quote!()
    };
    let body_code = quote! {
        #(#curs.copy_from_slice(#ins);)*
        loop {
            let mut flag = [false];
            #run_cond;
            if !flag[0] {
                break;
            }
            #run_body;
            #(::core::mem::swap(#swap_c, #swap_n);)*
        }
        #(#ws.copy_from_slice(&#curs[..]);)*
        #ok
    };
    let (ci, bi) = (cond.item, step.item);
    Ok(CallCode {
        scratch,
        items: quote!(#ci #bi),
        body: body_code,
    })
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
) -> Result<CallCode, String> {
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
        items.extend(prog.item);
    }
    Ok(CallCode {
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
    })
}
