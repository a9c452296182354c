//! Reductions: one loop nest over the operand space with the kept dims outside (one output
//! element per iteration of them) and the reduced dims inside; the operands' elementwise
//! producers are evaluated in the inner loop (never stored). The reducer computation is
//! inlined as scalar code; `add`/`max`/`min` reducers of f32/f64 whose innermost operand dim
//! is reduced run in vector mode with four per-lane partial accumulators, combined in a fixed
//! order, then the scalar tail, then the init value (folded once per output element).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{BinaryOp, Computation, ElementType, Op};

use super::codegen_expr::reachable;
use super::codegen_expr::{
    no_local, scalar_stmts, var, vector_stmts, vector_tail_stmts, vectorisable, Access,
};
use super::codegen_loops::{
    access_vectors, bind_groups, dispatch, isa_lanes, worth_reduce_dispatch, Space,
};
use super::codegen_rt::{
    f32_tokens, f64_tokens, lanes_of, lit_usize, max_lanes, offset_tokens, rust_type, scalar_of,
    src_ident, vector_type, vfloat_of,
};
use super::codegen_tree::{windows, Tree};
use super::fuse::{Expr, ExprId, Fused, Kernel, Src};
use super::graph::{row_major_strides, Kind, Value};
use super::inline::reducer_update;
use super::plan::Plan;

mod pair;

/// Work (operand elements) per parallel task of a reduction, from the total: about
/// `REDUCE_TASKS` tasks, each between 2^15 elements (128 KiB of f32: 10-60 us, far above
/// rayon's ~1 us per task; a 256x1024 softmax is 8 tasks, so its exp-and-sum pass uses every
/// thread) and 2^18 (a 4096x4096 row sum is 64 tasks, not 512 whose overhead showed in this
/// memory-bound stream). Depends only on sizes, so results do not depend on the thread count.
fn reduce_task_work(total: i64) -> i64 {
    (total / REDUCE_TASKS).clamp(1 << 15, 1 << 18)
}

/// Target number of tasks of a large reduction (several per thread, for balance).
const REDUCE_TASKS: i64 = 64;

/// `a op b` for the reducers the vector path recognises: `add`, `max`, `min` of the two
/// parameters (either order).
fn recognise(c: &Computation) -> Option<BinaryOp> {
    if c.params.len() != 2 {
        return None;
    }
    let root = c.instr(c.root);
    let Op::Binary(b) = root.op else { return None };
    let params: Vec<usize> = root
        .operands
        .iter()
        .filter_map(|&id| {
            if let Op::Parameter { index, .. } = c.instr(id).op {
                Some(index)
            } else {
                None
            }
        })
        .collect();
    let both = params.len() == 2 && params.contains(&0) && params.contains(&1);
    (both && matches!(b, BinaryOp::Add | BinaryOp::Max | BinaryOp::Min)).then_some(b)
}

/// The code of a reduce kernel writing output `i` to slice `ws[i]` (row-major over the kept
/// dims).
pub(crate) fn reduce_kernel(
    f: &Fused,
    plan: &Plan,
    k: &Kernel,
    operands: &[ExprId],
    inits: &[ExprId],
    stores: &[(ExprId, Value)],
    ws: &[Ident],
) -> Result<TokenStream, String> {
    let node = &f.graph.nodes[k.node];
    let Kind::Reduce { dims, computation } = &node.kind else {
        return Err("internal: reduce kernel of a non-reduce node".into());
    };
    let op_dims = f.graph.shape(node.inputs[0]).dims.clone();
    let class: Vec<u8> = (0..op_dims.len())
        .map(|d| u8::from(dims.contains(&d)))
        .collect();
    let mut coefs = access_vectors(&k.exprs, operands);
    // A stored value is written row-major over the operand dims.
    let store_rm = row_major_strides(&op_dims);
    if !stores.is_empty() {
        coefs.push(store_rm.clone());
    }
    let space = Space::new(&op_dims, &class, &coefs);
    let exprs = space.map_exprs(&k.exprs);
    let gclass: Vec<u8> = space.groups.iter().map(|g| class[g[0]]).collect();
    let rank = space.ext.len();
    let kept: Vec<usize> = (0..rank).filter(|&g| gclass[g] == 0).collect();
    let red: Vec<usize> = (0..rank).filter(|&g| gclass[g] == 1).collect();
    let out_n: i64 = kept.iter().map(|&g| space.ext[g]).product();
    let red_n: i64 = red.iter().map(|&g| space.ext[g]).product();
    let tys: Vec<ElementType> = node.shapes.iter().map(|s| s.ty).collect();
    let n = tys.len();

    let vars: Vec<TokenStream> = (0..rank)
        .map(|g| {
            let i = format_ident!("i{}", g);
            quote!(#i)
        })
        .collect();
    let slice = |s: &Src| {
        let id = src_ident(plan, s);
        quote!(#id)
    };
    let acc = Access {
        slice: &slice,
        vars: &vars,
        local: &no_local,
    };
    let init_stmts = scalar_stmts(&exprs, inits, &acc);
    let used: Vec<bool> = {
        let mut u = vec![false; rank];
        for c in access_vectors(&exprs, operands) {
            for (x, &y) in u.iter_mut().zip(&c) {
                *x |= y != 0;
            }
        }
        u
    };
    // Kept-dim variables from the flat output index `g` (row-major over the kept groups).
    let binds = bind_groups(&kept, &space.ext, &vars, &|g| used[g], &quote!(g));
    let g_used = kept.iter().any(|&g| used[g]);
    let accs: Vec<Ident> = (0..n).map(|i| format_ident!("a{}", i)).collect();
    let xs: Vec<Ident> = operands.iter().map(|&e| var(e)).collect();
    let init_vals: Vec<Ident> = inits.iter().map(|&e| var(e)).collect();
    let update = reducer_update(computation, &accs, &xs, &tys)?;
    let t = tys[0];
    let vop = recognise(computation)
        .filter(|_| n == 1 && red.last() == Some(&(rank.wrapping_sub(1))) && rank > 0);
    let stores_t = stores.iter().all(|&(_, u)| f.graph.shape(u).ty == t);
    let vt =
        vector_type(t).filter(|_| vop.is_some() && stores_t && vectorisable(&exprs, operands, t));
    if stores.len() > 1 || (!stores.is_empty() && (n != 1 || red_n == 0)) {
        return Err(
            "internal: a reduction stores at most one value, over a non-empty operand".into(),
        );
    }
    // Offset of the stored element inside the current output's contiguous run (the reduced
    // dims are trailing, so the kept part is the run's position).
    let store_coef: Vec<i64> = {
        let c = space.map(&store_rm);
        c.iter()
            .zip(&gclass)
            .map(|(&x, &cl)| if cl == 1 { x } else { 0 })
            .collect()
    };
    let store_stmt = |vars: &[TokenStream], vector: Option<&TokenStream>| -> TokenStream {
        let Some(&(e, _)) = stores.first() else {
            return quote!();
        };
        let x = var(e);
        let off = offset_tokens(&store_coef, 0, vars);
        match vector {
            Some(vf) => quote!(#vf::store(#x, &mut urow[#off..]);),
            None => quote!(urow[#off] = #x;),
        }
    };

    // Loops over the reduced groups (all of them, or all but the innermost for vector mode).
    let wrap_red = |body: TokenStream, groups: &[usize]| -> TokenStream {
        let mut b = body;
        for &gi in groups.iter().rev() {
            let i = &vars[gi];
            let e = lit_usize(space.ext[gi]);
            b = quote!(for #i in 0..#e { #b });
        }
        b
    };
    if out_n == 0 {
        let w = &ws[0];
        return Ok(quote!(let _ = #w;));
    }
    // Column mode: the innermost dim is kept and some dim is reduced.
    let col_op = recognise(computation).filter(|_| {
        n == 1
            && stores.is_empty()
            && rank > 0
            && kept.last() == Some(&(rank - 1))
            && !red.is_empty()
    });
    if let (Some(bop), Some(cvt)) = (col_op, vector_type(t)) {
        if vectorisable(&exprs, operands, t) {
            let c = ColumnReduce {
                space: &space,
                kept: &kept,
                red: &red,
                vars: &vars,
                exprs: &exprs,
                operand: operands[0],
                init: &init_vals[0],
                t,
                vt: cvt,
                bop,
                out_n,
                red_n,
            };
            let code = column_reduce(&c, &slice, &ws[0]);
            return Ok(quote!(#init_stmts #code));
        }
    }
    if let (Some(bop), Some(vt)) = (vop, &vt) {
        if let Some(code) = driven_rows(&DrivenRows {
            space: &space,
            red: &red,
            vars: &vars,
            exprs: &exprs,
            operand: operands[0],
            store: stores.first().map(|&(e, _)| e),
            store_coef: &store_coef,
            init: &init_vals[0],
            binds: &binds,
            bop,
            t,
            vt,
            ws,
            out_n,
            red_n,
            slice: &slice,
        }) {
            return Ok(quote!(#init_stmts #code));
        }
    }
    if n == 2 && stores.is_empty() {
        let per_task = (reduce_task_work(out_n * red_n) / red_n.max(1)).max(1);
        if let Some(code) = pair::pair_rows(&pair::Pair {
            space: &space,
            red: &red,
            vars: &vars,
            exprs: &exprs,
            operands,
            inits: &init_vals,
            binds: &binds,
            g_used,
            computation,
            tys: &tys,
            ws,
            out_n,
            red_n,
            per_task,
            slice: &slice,
        }) {
            return Ok(quote!(#init_stmts #code));
        }
    }
    let is_vec = vop.is_some() && vt.is_some();
    let per_output = match (vop, vt) {
        (Some(bop), Some(vt)) => {
            let inner = rank - 1;
            let vf = vfloat_of(&vt);
            let l = lanes_of(&vt);
            let rl = lit_usize(space.ext[inner]);
            let mut vars_v = vars.clone();
            vars_v[inner] = quote!(j);
            let acc_v = Access {
                slice: &slice,
                vars: &vars_v,
                local: &no_local,
            };
            let v_stmts = vector_stmts(&exprs, operands, &acc_v, &vt, inner);
            let t_stmts = vector_tail_stmts(&exprs, operands, &acc_v, &vt, inner, &quote!(rem));
            let et = rust_type(t);
            let v_store = store_stmt(&vars_v, Some(&vf));
            let s_store = store_stmt(&vars_v, None);
            let x = &xs[0];
            let (id, vcomb, vred, scomb) = combiners(bop, t, &vf);
            let unrolled: Vec<TokenStream> = (0..4usize)
                .map(|u| {
                    let vacc = format_ident!("v{}", u);
                    let lane_off = if u == 0 {
                        quote!()
                    } else {
                        let u = lit_usize(u);
                        quote!(+ #u * #l)
                    };
                    quote!({ let j = jb * 4 * #l #lane_off; #v_stmts #v_store #vacc = #vcomb(#vacc, #x); })
                })
                .collect();
            let fold_lanes = quote! {
                let mut tail = [<#et as ::core::default::Default>::default(); #l];
                #vf::store(#x, &mut tail[..]);
                let j0 = j;
                for q in lo..#l {
                    let j = j0 + q;
                    let #x = tail[q];
                    #s_store
                    s = #scomb(s, #x);
                }
            };
            let inner_loops = if space.ext[inner] >= max_lanes(t) {
                // The last partial vector is the full vectors' code at the window ending at
                // the row's end; its lanes before `lo` belong to the previous vector and are
                // skipped, the others fold one by one as a scalar tail would.
                quote! {
                    for jb in 0..#rl / (4 * #l) { #(#unrolled)* }
                    for jv in (#rl / (4 * #l)) * 4..#rl.div_ceil(#l) {
                        let (j, lo) = window(jv, #l, #rl);
                        #v_stmts
                        if lo == 0 {
                            #v_store
                            v0 = #vcomb(v0, #x);
                        } else {
                            #fold_lanes
                        }
                    }
                }
            } else {
                // A row shorter than a vector may be: full vectors, then the same code on the
                // valid lanes of a partial one.
                quote! {
                    for jb in 0..#rl / (4 * #l) { #(#unrolled)* }
                    for jv in (#rl / (4 * #l)) * 4..#rl / #l {
                        let j = jv * #l;
                        #v_stmts
                        #v_store
                        v0 = #vcomb(v0, #x);
                    }
                    let j = (#rl / #l) * #l;
                    if j < #rl {
                        let rem = #rl - j;
                        #t_stmts
                        let mut tail = [<#et as ::core::default::Default>::default(); #l];
                        #vf::store(#x, &mut tail[..]);
                        let j0 = j;
                        for q in 0..rem {
                            let j = j0 + q;
                            let #x = tail[q];
                            #s_store
                            s = #scomb(s, #x);
                        }
                    }
                }
            };
            let loops = wrap_red(inner_loops, &red[..red.len() - 1]);
            let init = &init_vals[0];
            quote! {
                let mut v0 = #vf::splat(#id);
                let mut v1 = #vf::splat(#id);
                let mut v2 = #vf::splat(#id);
                let mut v3 = #vf::splat(#id);
                let mut s = #id;
                #loops
                let t = #vred(#vcomb(#vcomb(v0, v1), #vcomb(v2, v3)));
                #scomb(#init, #scomb(t, s))
            }
        }
        _ => {
            let stmts = scalar_stmts(&exprs, operands, &acc);
            let st = store_stmt(&vars, None);
            // f16/bf16 round every reducer step, so they fold in XLA:CPU's windows of 32.
            let reads = |g: usize| used[g] || (!stores.is_empty() && store_coef[g] != 0);
            if let Some((levels, groups)) = windows(&space, &red, &op_dims, &tys, &vars, &reads) {
                let tree = Tree {
                    levels: &levels,
                    groups,
                    element: quote!(#stmts #st),
                    x: &xs[0],
                    init: &init_vals[0],
                    reducer: computation,
                    ty: t,
                };
                let value = tree.value()?;
                quote!((#value,))
            } else {
                let loops = wrap_red(quote!({ #stmts #st #update }), &red);
                quote! {
                    #(let mut #accs = #init_vals;)*
                    #loops
                    (#(#accs,)*)
                }
            }
        }
    };
    if n == 1 {
        let elem = rust_type(t);
        let kern = format_ident!("kern");
        let w = &ws[0];
        let red_l = lit_usize(red_n);
        let items = if stores.is_empty() {
            quote!(o)
        } else {
            quote!((o, urow))
        };
        let it = if stores.is_empty() {
            quote!(blk.iter_mut())
        } else {
            quote!(blk.iter_mut().zip(ublk.chunks_exact_mut(#red_l)))
        };
        let (first, g_bind, iter) = if g_used {
            (
                quote!(first),
                quote!(let g = first + r; #binds),
                quote!((r, #items) in #it.enumerate()),
            )
        } else {
            (quote!(_first), quote!(), quote!(#items in #it))
        };
        let value = if is_vec {
            quote!({ #per_output })
        } else {
            quote!({ #per_output }.0)
        };
        let per_task = lit_usize((reduce_task_work(out_n * red_n) / red_n.max(1)).max(1));
        if let Some(&(_, u)) = stores.first() {
            // The stored value's rows travel with their outputs: chunk both at the same outputs.
            let ut = rust_type(f.graph.shape(u).ty);
            let wu = &ws[1];
            let work = lit_usize(out_n * red_n);
            return Ok(quote! {
                #init_stmts
                let #kern = |#first: usize, blk: &mut [#elem], ublk: &mut [#ut]| {
                    for #iter {
                        #g_bind
                        *o = #value;
                    }
                };
                if #work >= ::xla_aot::__rt::xla_kernels::par::PAR_MIN_ELEMENTS {
                    use ::xla_aot::__rt::rayon::prelude::*;
                    #w.par_chunks_mut(#per_task)
                        .zip(#wu.par_chunks_mut(#per_task * #red_l))
                        .enumerate()
                        .for_each(|(b, (blk, ublk))| #kern(b * #per_task, blk, ublk));
                } else {
                    #kern(0, #w, #wu);
                }
            });
        }
        let disp = dispatch(w, &kern, &per_task, &per_task, out_n * red_n.max(1));
        Ok(quote! {
            #init_stmts
            let #kern = |#first: usize, blk: &mut [#elem]| {
                for #iter {
                    #g_bind
                    *o = #value;
                }
            };
            #disp
        })
    } else {
        // Variadic: one serial pass writing every output.
        let outs: Vec<Ident> = (0..n).map(|i| format_ident!("res{}", i)).collect();
        let on = lit_usize(out_n);
        Ok(quote! {
            #init_stmts
            for g in 0..#on {
                #binds
                let (#(#outs,)*) = { #per_output };
                #(#ws[g] = #outs;)*
            }
        })
    }
}

/// What [`driven_rows`] reads of a reduce kernel.
struct DrivenRows<'a> {
    space: &'a Space,
    red: &'a [usize],
    vars: &'a [TokenStream],
    exprs: &'a [Expr],
    operand: ExprId,
    store: Option<ExprId>,
    store_coef: &'a [i64],
    init: &'a Ident,
    binds: &'a TokenStream,
    bop: BinaryOp,
    t: ElementType,
    vt: &'a TokenStream,
    ws: &'a [Ident],
    out_n: i64,
    red_n: i64,
    slice: &'a dyn Fn(&Src) -> TokenStream,
}

/// A reduction over one contiguous trailing group of at least the widest vector, through the
/// library's row driver (`fused::reduce_rows`): the generated code is only the per-element
/// closure. `None` for shapes the driver does not take (several reduced groups, short rows, a
/// stored value not contiguous with its row).
fn driven_rows(d: &DrivenRows<'_>) -> Option<TokenStream> {
    let rank = d.space.ext.len();
    let inner = rank.checked_sub(1)?;
    let row = d.space.ext[inner];
    let contiguous_store = d.store.is_none() || d.store_coef[inner] == 1;
    if d.red != [inner] || row < max_lanes(d.t) || !contiguous_store {
        return None;
    }
    let mut vars_v = d.vars.to_vec();
    vars_v[inner] = quote!(j);
    let acc = Access {
        slice: d.slice,
        vars: &vars_v,
        local: &no_local,
    };
    let roots: Vec<ExprId> = [d.operand].into_iter().chain(d.store).collect();
    let live = reachable(d.exprs, &roots);
    let dispatch = worth_reduce_dispatch(d.exprs, &live, d.out_n * d.red_n, d.bop);
    let bv = if dispatch { quote!(V) } else { d.vt.clone() };
    let v_stmts = vector_stmts(d.exprs, &roots, &acc, &bv, inner);
    let (x, binds, init) = (var(d.operand), d.binds, d.init);
    let (w, rl) = (&d.ws[0], lit_usize(row));
    // The storing driver takes the pair (reduced, stored): the stored value may be one the
    // reduced value is computed from (LayerNorm's `x - mean`, whose square is reduced).
    let (driver, store, result, ret) = match d.store {
        Some(e) => {
            let (wu, s) = (&d.ws[1], var(e));
            let pair = quote!((#bv, #bv));
            (
                quote!(reduce_rows_storing),
                quote!(#wu,),
                quote!((#x, #s)),
                pair,
            )
        }
        None => (quote!(reduce_rows), quote!(), quote!(#x), bv.clone()),
    };
    let per_task = lit_usize((reduce_task_work(d.out_n * d.red_n) / d.red_n.max(1)).max(1));
    Some(driver_call(&DriverCall {
        dispatch,
        t: d.t,
        vt: d.vt,
        bop: d.bop,
        driver,
        args: quote!(#w, #store #rl, #per_task, #init),
        params: quote!(g, j),
        ret,
        body: quote!(#binds #v_stmts #result),
    }))
}

/// A call of one of the library's reduction drivers (`fused::reduce_rows`, ...).
struct DriverCall<'a> {
    /// Whether through `__isa_map!` (a body worth the run-time level's vectors).
    dispatch: bool,
    t: ElementType,
    /// The build's vector type of `t`.
    vt: &'a TokenStream,
    bop: BinaryOp,
    driver: TokenStream,
    /// The driver's arguments before the reducer.
    args: TokenStream,
    /// The per-element closure: its parameters, return type and body, written over `V` when
    /// `dispatch`, else over `vt`.
    params: TokenStream,
    ret: TokenStream,
    body: TokenStream,
}

/// The driver called with the reducer's [`combiners`] and the per-element closure: plainly over
/// the build's vectors, or through `__isa_map!`, which writes reducer and closure once per
/// instruction-set level (the reducer over each level's `V`).
fn driver_call(c: &DriverCall<'_>) -> TokenStream {
    let bv = if c.dispatch { quote!(V) } else { c.vt.clone() };
    let (id, vcomb, vred, scomb) = combiners(c.bop, c.t, &vfloat_of(&bv));
    // Closures marked inline rather than the functions' paths: a path is called through its
    // `Fn::call` shim, compiled on its own with the build's features, which LLVM need not
    // inline into the level's function (a row max at AVX-512 ran its combine as SSE2 code).
    let st = rust_type(c.t);
    let comb = quote!(fused::Combine::new(
        #id,
        #[inline(always)] |a: #bv, b: #bv| -> #bv { #vcomb(a, b) },
        #[inline(always)] |x: #bv| -> #st { #vred(x) },
        #[inline(always)] |a: #st, b: #st| -> #st { #scomb(a, b) },
    ));
    let (driver, args, params, ret, body) = (&c.driver, &c.args, &c.params, &c.ret, &c.body);
    if c.dispatch {
        let (vt, (l2, l5)) = (c.vt, isa_lanes(c.t));
        quote! {
            ::xla_aot::__rt::xla_kernels::__isa_map!(
                #driver, [V = #vt, #l2, #l5], (#args), per_level(#comb),
                |#params| -> #ret { #body }
            );
        }
    } else {
        quote!(fused::#driver(#args, #comb, |#params| -> #ret { #body });)
    }
}

/// For a recognised reducer over f32/f64: the identity (folded into lane accumulators, never
/// into results: `init` is combined once at the end), the vector combine, the lane reduction
/// and the scalar combine.
fn combiners(
    bop: BinaryOp,
    t: ElementType,
    vf: &TokenStream,
) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let s = scalar_of(t);
    let f32_ty = t == ElementType::F32;
    if bop == BinaryOp::Max {
        (
            if f32_ty {
                quote!(f32::NEG_INFINITY)
            } else {
                quote!(f64::NEG_INFINITY)
            },
            quote!(#vf::max_xla),
            quote!(#vf::reduce_max_xla),
            quote!(#s::max),
        )
    } else if bop == BinaryOp::Min {
        (
            if f32_ty {
                quote!(f32::INFINITY)
            } else {
                quote!(f64::INFINITY)
            },
            quote!(#vf::min_xla),
            quote!(#vf::reduce_min_xla),
            quote!(#s::min),
        )
    } else {
        // Add ([`recognise`] admits nothing else). -0 is the exact identity of IEEE addition
        // (x + -0 == x for every x).
        (
            if f32_ty {
                f32_tokens(-0.0)
            } else {
                f64_tokens(-0.0)
            },
            quote!(::core::ops::Add::add),
            quote!(#vf::reduce_add),
            quote!(#s::add),
        )
    }
}

/// The parts of a reduction kernel the column mode needs.
struct ColumnReduce<'a> {
    space: &'a Space,
    kept: &'a [usize],
    red: &'a [usize],
    vars: &'a [TokenStream],
    exprs: &'a [super::fuse::Expr],
    operand: ExprId,
    init: &'a Ident,
    t: ElementType,
    vt: TokenStream,
    bop: BinaryOp,
    out_n: i64,
    red_n: i64,
}

/// A column reduction whose output rows hold the widest vector, through the library's driver
/// (`fused::reduce_cols`): the generated code is the per-element closure, which derives the
/// outer kept indices from the output row `g` and the outer reduced ones from `o`.
fn driven_columns(
    c: &ColumnReduce<'_>,
    acc: &Access<'_>,
    outer_red: &[usize],
    last_red: Option<usize>,
    w: &Ident,
) -> TokenStream {
    let inner = c.space.ext.len() - 1;
    let (ext, vars) = (&c.space.ext, c.vars);
    let kept_binds = bind_groups(
        &c.kept[..c.kept.len() - 1],
        ext,
        vars,
        &|_| true,
        &quote!(g),
    );
    let red_binds = bind_groups(outer_red, ext, vars, &|_| true, &quote!(o));
    let iv = last_red.map_or(quote!(_unused), |g| c.vars[g].clone());
    let total = c.out_n * c.red_n;
    let dispatch = worth_reduce_dispatch(c.exprs, &reachable(c.exprs, &[c.operand]), total, c.bop);
    let bv = if dispatch { quote!(V) } else { c.vt.clone() };
    let v_stmts = vector_stmts(c.exprs, &[c.operand], acc, &bv, inner);
    let outer_n: i64 = outer_red.iter().map(|&g| c.space.ext[g]).product();
    let ri = last_red.map_or(1, |g| c.space.ext[g]);
    let (k, on, ri) = (
        lit_usize(c.space.ext[inner]),
        lit_usize(outer_n),
        lit_usize(ri),
    );
    // At least the library's run of outputs per task (`fused::COL_RUN`).
    let run = lit_usize(reduce_task_work(c.out_n * c.red_n) / c.red_n.max(1));
    let run = quote!(fused::COL_RUN.max(#run));
    let (init, x) = (c.init, var(c.operand));
    driver_call(&DriverCall {
        dispatch,
        t: c.t,
        vt: &c.vt,
        bop: c.bop,
        driver: quote!(reduce_cols),
        args: quote!(#w, #k, #on, #ri, #run, #init),
        params: quote!(g, o, i, j),
        ret: bv,
        body: quote!(#kept_binds #red_binds let #iv = i; #v_stmts #x),
    })
}

/// Vector mode when the innermost operand dim is kept (column sums): the outputs themselves
/// are the accumulators. Each task owns a run of outputs (cut only by sizes); for every reduced
/// element, in row-major order, the run is combined with the matching run of operand elements
/// (contiguous when the innermost dim is), so memory streams row after row; then `init` is
/// folded into each output once. Every output sums in the same order as the scalar path.
fn column_reduce(
    c: &ColumnReduce<'_>,
    slice: &dyn Fn(&Src) -> TokenStream,
    w: &Ident,
) -> TokenStream {
    let rank = c.space.ext.len();
    let inner = rank - 1;
    let ki = c.space.ext[inner];
    let vf = vfloat_of(&c.vt);
    let l = lanes_of(&c.vt);
    let (id, vcomb, _, scomb) = combiners(c.bop, c.t, &vf);
    let mut vars_v = c.vars.to_vec();
    vars_v[inner] = quote!(j);
    let acc = Access {
        slice,
        vars: &vars_v,
        local: &no_local,
    };
    let (last_red, outer_red) = c
        .red
        .split_last()
        .map_or((None, &[][..]), |(l, o)| (Some(*l), o));
    if ki >= max_lanes(c.t) {
        return driven_columns(c, &acc, outer_red, last_red, w);
    }
    let v_stmts = vector_stmts(c.exprs, &[c.operand], &acc, &c.vt, inner);
    let t_stmts = vector_tail_stmts(c.exprs, &[c.operand], &acc, &c.vt, inner, &quote!(rem));
    let et = rust_type(c.t);
    let x = var(c.operand);
    let init = c.init;
    // The innermost reduced group runs four elements at a time, combined pairwise
    // (`(x0 + x1) + (x2 + x3)`) before meeting the accumulator: a fixed order, a quarter of
    // the accumulator traffic.
    let ri = last_red.map_or(1, |g| c.space.ext[g]);
    let ri_l = lit_usize(ri);
    let iv = last_red.map_or(quote!(_unused), |g| c.vars[g].clone());
    let quad: Vec<TokenStream> = (0..4usize)
        .map(|q| {
            let xq = format_ident!("x{}", q);
            let ql = lit_usize(q);
            quote!(let #xq = { let #iv = base + #ql; #v_stmts #x };)
        })
        .collect();
    // Partial vectors at the end of a run: the full vectors' code on the valid lanes.
    let quad_t: Vec<TokenStream> = (0..4usize)
        .map(|q| {
            let xq = format_ident!("x{}", q);
            let ql = lit_usize(q);
            quote!(let #xq = {
                let #iv = base + #ql;
                #t_stmts
                let mut tail = [<#et as ::core::default::Default>::default(); #l];
                #vf::store(#x, &mut tail[..]);
                tail
            };)
        })
        .collect();
    // Rows shorter than the widest vector: full vectors, then the valid lanes of a partial one.
    let mut body = quote! {
        for ib in 0..#ri_l / 4 {
            let base = ib * 4;
            for jv in 0..len / #l {
                let jj = jv * #l;
                let j = j_start + jj;
                #(#quad)*
                let q = #vcomb(#vcomb(x0, x1), #vcomb(x2, x3));
                #vf::store(#vcomb(#vf::load(&seg[jj..]), q), &mut seg[jj..]);
            }
            let jj0 = (len / #l) * #l;
            if jj0 < len {
                let rem = len - jj0;
                let j = j_start + jj0;
                #(#quad_t)*
                for q in 0..rem {
                    let jj = jj0 + q;
                    seg[jj] = #scomb(seg[jj], #scomb(#scomb(x0[q], x1[q]), #scomb(x2[q], x3[q])));
                }
            }
        }
        for #iv in (#ri_l / 4) * 4..#ri_l {
            for jv in 0..len / #l {
                let jj = jv * #l;
                let j = j_start + jj;
                #v_stmts
                #vf::store(#vcomb(#vf::load(&seg[jj..]), #x), &mut seg[jj..]);
            }
            let jj0 = (len / #l) * #l;
            if jj0 < len {
                let rem = len - jj0;
                let j = j_start + jj0;
                #t_stmts
                let mut tail = [<#et as ::core::default::Default>::default(); #l];
                #vf::store(#x, &mut tail[..]);
                for q in 0..rem {
                    let jj = jj0 + q;
                    seg[jj] = #scomb(seg[jj], tail[q]);
                }
            }
        }
    };
    for &gi in outer_red.iter().rev() {
        let i = &c.vars[gi];
        let e = lit_usize(c.space.ext[gi]);
        body = quote!(for #i in 0..#e { #body });
    }
    // Outer kept groups from the output row number `g`.
    let outer: Vec<usize> = c.kept[..c.kept.len() - 1].to_vec();
    let used_outer = super::codegen_loops::access_vectors(c.exprs, &[c.operand])
        .iter()
        .any(|co| outer.iter().any(|&gi| co[gi] != 0));
    let binds = bind_groups(&outer, &c.space.ext, c.vars, &|_| used_outer, &quote!(g));
    let kil = lit_usize(ki);
    let g_bind = if used_outer {
        quote!(let g = flat / #kil;)
    } else {
        quote!()
    };
    // A run wide enough (4 KiB of f32) for the hardware prefetcher to stream each row.
    let chunk = lit_usize(reduce_task_work(c.out_n * c.red_n) / c.red_n.max(1));
    let chunk = quote!(fused::COL_RUN.max(#chunk));
    let kern = format_ident!("kern");
    let elem = rust_type(c.t);
    let disp = dispatch(w, &kern, &chunk, &chunk, c.out_n * c.red_n);
    quote! {
        let #kern = |first: usize, blk: &mut [#elem]| {
            let mut pos = 0usize;
            while pos < blk.len() {
                let flat = first + pos;
                #g_bind
                let j_start = flat % #kil;
                let len = (#kil - j_start).min(blk.len() - pos);
                let seg = &mut blk[pos..pos + len];
                #binds
                for o in seg.iter_mut() {
                    *o = #id;
                }
                #body
                for o in seg.iter_mut() {
                    *o = #scomb(#init, *o);
                }
                pos += len;
            }
        };
        #disp
    }
}
