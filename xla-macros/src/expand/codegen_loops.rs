//! Loop nests: the iteration-space machinery shared by every kernel (collapsing nested dims,
//! offsets as constant-stride sums, the deterministic rayon split) and the elementwise loop
//! kernel itself (one loop nest over its output; `wide` vectors on the innermost dim when the
//! whole expression has a vector form, then a scalar tail).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::codegen_expr::{
    reachable, scalar_stmts, var, vector_stmts, vector_tail_stmts, vectorisable, Access, Local,
};
use super::codegen_rt::{
    lanes_of, lit_usize, max_lanes, offset_tokens, rust_type, src_ident, vector_type, vfloat_of,
};
use super::fuse::{Cond, Expr, ExprId, Fused, Kernel, Src};
use super::graph::{row_major_strides, storage_strides, Kind};
use super::plan::Plan;

/// Groups of consecutive original dims that iterate as one: extent-1 dims are dropped and a dim
/// joins the group to its right when every access vector nests across the pair
/// (`c[d] == c[d+1]·n[d+1]`) and both dims have the same class (kept/reduced for reductions).
pub(crate) fn collapse(ext: &[i64], class: &[u8], coefs: &[Vec<i64>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // (extent, coefs of the group's innermost dim) of the group being grown.
    let mut cur: Option<(i64, usize)> = None;
    for d in (0..ext.len()).rev() {
        if ext[d] == 1 {
            continue;
        }
        let joins = cur.is_some_and(|(e, inner)| {
            class[d] == class[inner] && coefs.iter().all(|c| c[d] == c[inner] * e)
        });
        match (joins, groups.last_mut(), cur.as_mut()) {
            (true, Some(g), Some((e, _))) => {
                g.insert(0, d);
                *e *= ext[d];
            }
            _ => {
                groups.push(vec![d]);
                cur = Some((ext[d], d));
            }
        }
    }
    groups.reverse();
    groups
}

/// A collapsed iteration space: extents of the groups and the class of each.
pub(crate) struct Space {
    pub groups: Vec<Vec<usize>>,
    pub ext: Vec<i64>,
}

impl Space {
    pub fn new(ext: &[i64], class: &[u8], coefs: &[Vec<i64>]) -> Space {
        let groups = collapse(ext, class, coefs);
        let e = groups
            .iter()
            .map(|g| g.iter().map(|&d| ext[d]).product())
            .collect();
        Space { groups, ext: e }
    }

    /// An access vector over the original dims as one over the groups.
    pub fn map(&self, coef: &[i64]) -> Vec<i64> {
        self.groups
            .iter()
            .map(|g| g.last().map_or(0, |&d| coef.get(d).copied().unwrap_or(0)))
            .collect()
    }

    /// The expressions with every access vector mapped onto the groups.
    pub fn map_exprs(&self, exprs: &[Expr]) -> Vec<Expr> {
        exprs
            .iter()
            .map(|e| match e {
                Expr::Leaf {
                    src,
                    ty,
                    coef,
                    off,
                    guarded,
                } => Expr::Leaf {
                    src: src.clone(),
                    ty: *ty,
                    coef: self.map(coef),
                    off: *off,
                    guarded: *guarded,
                },
                Expr::Index { coef, off, ty } => Expr::Index {
                    coef: self.map(coef),
                    off: *off,
                    ty: *ty,
                },
                Expr::Guard {
                    conds,
                    value,
                    fill,
                    ty,
                } => Expr::Guard {
                    conds: conds
                        .iter()
                        .map(|c| Cond {
                            coef: self.map(&c.coef),
                            ..c.clone()
                        })
                        .collect(),
                    value: *value,
                    fill: *fill,
                    ty: *ty,
                },
                Expr::Scalar(_) | Expr::Op { .. } => e.clone(),
            })
            .collect()
    }
}

/// Access vectors (leaf and iota coefficients) of the expressions reachable from `roots`.
pub(crate) fn access_vectors(exprs: &[Expr], roots: &[ExprId]) -> Vec<Vec<i64>> {
    let live = reachable(exprs, roots);
    exprs
        .iter()
        .zip(&live)
        .filter(|(_, &l)| l)
        .flat_map(|(e, _)| match e {
            Expr::Leaf { coef, .. } | Expr::Index { coef, .. } => vec![coef.clone()],
            Expr::Guard { conds, .. } => conds.iter().map(|c| c.coef.clone()).collect(),
            Expr::Scalar(_) | Expr::Op { .. } => Vec::new(),
        })
        .collect()
}

/// Dims (of the collapsed space) that some reachable access vector depends on.
pub(crate) fn used_dims(exprs: &[Expr], roots: &[ExprId], rank: usize) -> Vec<bool> {
    let mut used = vec![false; rank];
    for c in access_vectors(exprs, roots) {
        for (u, &x) in used.iter_mut().zip(&c) {
            *u |= x != 0;
        }
    }
    used
}

/// Bindings `let var = from / below % ext;` of the variables of `groups` (dims of a row-major
/// space of extents `ext`, outermost first) from the flat index `from` over those groups; only
/// for the groups `used` admits (the outermost needs no `%`).
pub(crate) fn bind_groups(
    groups: &[usize],
    ext: &[i64],
    vars: &[TokenStream],
    used: &dyn Fn(usize) -> bool,
    from: &TokenStream,
) -> TokenStream {
    let mut out = TokenStream::new();
    for (pos, &d) in groups.iter().enumerate() {
        if !used(d) {
            continue;
        }
        let below: i64 = groups[pos + 1..].iter().map(|&x| ext[x]).product();
        let (b, e, v) = (lit_usize(below), lit_usize(ext[d]), &vars[d]);
        out.extend(if pos == 0 {
            quote!(let #v = #from / #b;)
        } else {
            quote!(let #v = #from / #b % #e;)
        });
    }
    out
}

/// Bindings of the outer index variables `i{d}` (d < `upto`) from the flat row number `g` of a
/// row-major space; only for the dims in `used`.
pub(crate) fn decompose(ext: &[i64], upto: usize, used: &[bool], g: &TokenStream) -> TokenStream {
    let vars: Vec<TokenStream> = (0..upto)
        .map(|d| {
            let i = format_ident!("i{}", d);
            quote!(#i)
        })
        .collect();
    let dims: Vec<usize> = (0..upto).collect();
    bind_groups(&dims, ext, &vars, &|d| used[d], g)
}

/// Runs `kern(first, block)` over `w` cut into chunks of `chunk` elements (`first` advancing by
/// `first_step` per chunk), on rayon when `work` (elements of work in total) reaches
/// `PAR_MIN_ELEMENTS`, otherwise as one inline call. The cut depends only on sizes, so the
/// result is the same for any thread count.
pub(crate) fn dispatch(
    w: &Ident,
    kern: &Ident,
    chunk: &TokenStream,
    first_step: &TokenStream,
    work: i64,
) -> TokenStream {
    let work = lit_usize(work);
    quote! {
        if #work >= ::xla_aot::__rt::xla_kernels::par::PAR_MIN_ELEMENTS {
            use ::xla_aot::__rt::rayon::prelude::*;
            #w.par_chunks_mut(#chunk).enumerate().for_each(|(b, blk)| #kern(b * #first_step, blk));
        } else {
            #kern(0, #w);
        }
    }
}

/// Output elements from which a loop of costly vector code gets the run-time dispatch of
/// `xla_kernels::fused::isa` (three bodies, one per instruction-set level): from 4K elements
/// (a step of an RNN's tanh over 32 x 256 states, run 64 times, is 8K) the wider vectors save
/// more than the three copies cost to compile; below, the loop runs in a microsecond or two.
const ISA_MIN_ELEMENTS: i64 = 1 << 12;

/// Elements from which any elementwise loop gets the run-time dispatch, whatever it computes,
/// and so does a reduction by max, min or sum: a default build's SSE2 code is compute-bound
/// well before memory is (BatchNormTraining's normalize over f32[32,64,56,56]: 1.8x slower than
/// AVX-512; a row max with XLA's NaN rule over f32[256,1024]: a quarter of row_softmax's
/// time). Sums joined once `simd::Lanes` built its vectors by plain loops (with
/// `core::array::from_fn` their accumulators had vectorized 2 lanes wide: row sum over
/// f32[4096,4096] 1.24 -> 1.51 ms); now, on the AVX-512 Xeon, default build, row sum 1.36 ->
/// 1.28-1.29 ms and column sum 1.36 -> 1.21-1.27 (native 1.22 / 1.20-1.24).
/// The value is `xla_core::reduce_order::RUN_TIME_WIDTH_MIN_ELEMENTS`, which
/// `xla_kernels::reduce` follows too, so library and generated reductions give the same bits.
const ISA_ANY_MIN_ELEMENTS: i64 = xla_core::reduce_order::RUN_TIME_WIDTH_MIN_ELEMENTS as i64;

/// Whether an elementwise loop of `total` elements computing the `live` expressions gets the
/// run-time dispatch: from [`ISA_ANY_MIN_ELEMENTS`] always, else as [`worth_costly_dispatch`].
pub(super) fn worth_isa_dispatch(exprs: &[Expr], live: &[bool], total: i64) -> bool {
    total >= ISA_ANY_MIN_ELEMENTS || worth_costly_dispatch(exprs, live, total)
}

/// Whether a reduction by `bop` of `total` elements computing the `live` expressions gets the
/// run-time dispatch: a max, min or sum from [`ISA_ANY_MIN_ELEMENTS`], else as
/// [`worth_costly_dispatch`].
pub(super) fn worth_reduce_dispatch(
    exprs: &[Expr],
    live: &[bool],
    total: i64,
    bop: xla_core::BinaryOp,
) -> bool {
    use xla_core::BinaryOp as B;
    (total >= ISA_ANY_MIN_ELEMENTS && matches!(bop, B::Max | B::Min | B::Add))
        || worth_costly_dispatch(exprs, live, total)
}

/// From [`ISA_MIN_ELEMENTS`], with an op whose vector code is long enough (the transcendental
/// functions, roots, divisions) for vector width to matter even on small arrays.
fn worth_costly_dispatch(exprs: &[Expr], live: &[bool], total: i64) -> bool {
    use xla_core::{BinaryOp as B, UnaryOp as U};
    total >= ISA_MIN_ELEMENTS
        && exprs.iter().zip(live).any(|(e, &l)| {
            l && matches!(
                e,
                Expr::Op {
                    kind: Kind::Unary(
                        U::Exp
                            | U::Expm1
                            | U::Log
                            | U::Log1p
                            | U::Logistic
                            | U::Tanh
                            | U::Erf
                            | U::Sin
                            | U::Cos
                            | U::Tan
                            | U::Cbrt
                            | U::Sqrt
                            | U::Rsqrt
                    ) | Kind::Binary(B::Pow | B::Atan2 | B::Div),
                    ..
                }
            )
        })
}

/// The AVX2 and AVX-512 vector types of a dispatched loop over `t` (f32 or f64).
pub(super) fn isa_lanes(t: xla_core::ElementType) -> (TokenStream, TokenStream) {
    let simd = quote!(::xla_aot::__rt::xla_kernels::simd);
    if t == xla_core::ElementType::F64 {
        (quote!(#simd::L4F64), quote!(#simd::L8F64))
    } else {
        (quote!(#simd::L8F32), quote!(#simd::L16F32))
    }
}

/// The code of a loop kernel: computes `root` at every index of the output and writes it to the
/// slice `w` (the output's storage, its layout's strides).
pub(crate) fn loop_kernel(
    f: &Fused,
    plan: &Plan,
    k: &Kernel,
    root: ExprId,
    w: &Ident,
) -> TokenStream {
    let v = k.outputs[0];
    let shape = f.graph.shape(v);
    let out_coef = storage_strides(&f.graph, v);
    let mut coefs = access_vectors(&k.exprs, &[root]);
    coefs.push(out_coef.clone());
    let class = vec![0u8; shape.rank()];
    let space = Space::new(&shape.dims, &class, &coefs);
    let exprs = space.map_exprs(&k.exprs);
    let out_c = space.map(&out_coef);
    let ext = if space.ext.is_empty() {
        vec![1]
    } else {
        space.ext.clone()
    };
    let out_c = if out_c.is_empty() { vec![1] } else { out_c };
    let exprs = if space.ext.is_empty() {
        pad_rank(&exprs)
    } else {
        exprs
    };
    let total: i64 = ext.iter().product();
    if total == 0 {
        // Nothing to compute (and no zero-length rows to cut).
        return quote!(let _ = #w;);
    }
    let row_major = out_c == row_major_strides(&ext);
    // Values stored in this kernel's own output slot are read in place, at the element being
    // written (see `plan::in_place`).
    let own_storage = plan.storage.get(&v);
    let own = |s: &Src| matches!(s, Src::Buf(u) if plan.storage.get(u) == own_storage);
    let slice = |s: &Src| {
        let id = src_ident(plan, s);
        quote!(#id)
    };
    if !row_major {
        return serial_nest(&exprs, root, &ext, &out_c, w, &slice, &own);
    }
    let t = shape.ty;
    let rank = ext.len();
    let inner = rank - 1;
    let used = used_dims(&exprs, &[root], rank);
    let vector = vectorisable(&exprs, &[root], t)
        .then(|| vector_type(t))
        .flatten();
    let live = reachable(&exprs, &[root]);
    let has_own = exprs
        .iter()
        .zip(&live)
        .any(|(e, &l)| l && matches!(e, Expr::Leaf { src, .. } if own(src)));
    // A flat space is indexed by the element number `g`; rows by the row number `g` (outer
    // indices derived from it) and the column `j`.
    let flat = rank == 1;
    let mut vars: Vec<TokenStream> = (0..inner)
        .map(|d| {
            let i = format_ident!("i{}", d);
            quote!(#i)
        })
        .collect();
    vars.push(if flat { quote!(g) } else { quote!(j) });
    let binds = decompose(&ext, inner, &used, &quote!(g));
    let row = if flat { 1 } else { ext[inner] };
    let rl = lit_usize(row);
    // In-place reads take the value the driver loaded at the element being written.
    let acc = Access {
        slice: &slice,
        vars: &vars,
        local: &|s: &Src| own(s).then(|| Local::Value(quote!(cur))),
    };
    let r = var(root);
    let fz = quote!(fused);
    match &vector {
        // The loop drivers need a whole vector per row (per block when flat); any target's
        // vector fits once the row holds the widest one.
        Some(vt) if ext[inner] >= max_lanes(t) => {
            // A dispatched body is written once, over the vector type `V` that `__isa_map!`
            // names three times.
            let dispatch = worth_isa_dispatch(&exprs, &live, total);
            let bv = if dispatch { quote!(V) } else { vt.clone() };
            let v_stmts = vector_stmts(&exprs, &[root], &acc, &bv, inner);
            let body = quote!({ #binds #v_stmts #r });
            let (driver, args, params) = match (flat, has_own) {
                (true, false) => (quote!(map_flat), quote!(#w), quote!(g)),
                (true, true) => (quote!(map_flat_in_place), quote!(#w), quote!(g, cur)),
                (false, false) => (quote!(map_rows), quote!(#w, #rl), quote!(g, j)),
                (false, true) => (
                    quote!(map_rows_in_place),
                    quote!(#w, #rl),
                    quote!(g, j, cur),
                ),
            };
            if dispatch {
                let (l2, l5) = isa_lanes(t);
                quote! {
                    ::xla_aot::__rt::xla_kernels::__isa_map!(
                        #driver, [V = #vt, #l2, #l5], (#args), |#params| -> V #body
                    );
                }
            } else {
                quote!(#fz::#driver::<#vt>(#args, |#params| #body);)
            }
        }
        Some(vt) => short_rows(
            &exprs,
            root,
            &ext,
            &used,
            w,
            vt,
            &slice,
            &own,
            &rust_type(t),
        ),
        None => {
            let s_stmts = scalar_stmts(&exprs, &[root], &acc);
            let body = quote!({ #binds #s_stmts #r });
            if has_own {
                quote!(#fz::map_elems_in_place(#w, #rl, |g, j, cur| #body);)
            } else {
                quote!(#fz::map_elems(#w, #rl, |g, j| #body);)
            }
        }
    }
}

/// Rows shorter than the widest vector (a flat space as one row): full vectors, then the same
/// code on the valid lanes of a partial one, so every element still gets the vector code.
#[allow(clippy::too_many_arguments)]
fn short_rows(
    exprs: &[Expr],
    root: ExprId,
    ext: &[i64],
    used: &[bool],
    w: &Ident,
    vt: &TokenStream,
    slice: &dyn Fn(&Src) -> TokenStream,
    own: &dyn Fn(&Src) -> bool,
    elem_t: &TokenStream,
) -> TokenStream {
    let (inner, t_row) = (ext.len() - 1, ext[ext.len() - 1]);
    let mut vars: Vec<TokenStream> = (0..inner)
        .map(|d| {
            let i = format_ident!("i{}", d);
            quote!(#i)
        })
        .collect();
    vars.push(quote!(j));
    let acc = Access {
        slice,
        vars: &vars,
        local: &|s: &Src| own(s).then(|| Local::At(quote!(row), quote!(j))),
    };
    let (vf, l, r) = (vfloat_of(vt), lanes_of(vt), var(root));
    let v_stmts = vector_stmts(exprs, &[root], &acc, vt, inner);
    let t_stmts = vector_tail_stmts(exprs, &[root], &acc, vt, inner, &quote!(rem));
    let row = lit_usize(t_row);
    let binds = decompose(ext, inner, used, &quote!(g));
    let kern = format_ident!("kern");
    let rows_per = quote!({
        let r = ::xla_aot::__rt::xla_kernels::par::PAR_BLOCK_ELEMENTS / #row;
        if r == 0 { 1 } else { r }
    });
    let chunk = quote!((#rows_per * #row));
    let disp = dispatch(w, &kern, &chunk, &rows_per, ext.iter().product());
    quote! {
        let #kern = |first: usize, blk: &mut [#elem_t]| {
            for (r, row) in blk.chunks_exact_mut(#row).enumerate() {
                let g = first + r;
                #binds
                for jv in 0..#row / #l {
                    let j = jv * #l;
                    #v_stmts
                    #vf::store(#r, &mut row[j..]);
                }
                let j = (#row / #l) * #l;
                if j < #row {
                    let rem = #row - j;
                    #t_stmts
                    let mut tail = [<#elem_t as ::core::default::Default>::default(); #l];
                    #vf::store(#r, &mut tail[..]);
                    row[j..#row].copy_from_slice(&tail[..rem]);
                }
            }
        };
        #disp
    }
}

/// Rank-0 spaces iterate as `[1]`: every access vector gets one zero coefficient.
fn pad_rank(exprs: &[Expr]) -> Vec<Expr> {
    exprs
        .iter()
        .map(|e| match e {
            Expr::Leaf {
                src,
                ty,
                off,
                guarded,
                ..
            } => Expr::Leaf {
                src: src.clone(),
                ty: *ty,
                coef: vec![0],
                off: *off,
                guarded: *guarded,
            },
            Expr::Index { ty, off, .. } => Expr::Index {
                coef: vec![0],
                off: *off,
                ty: *ty,
            },
            Expr::Guard {
                conds,
                value,
                fill,
                ty,
            } => Expr::Guard {
                conds: conds
                    .iter()
                    .map(|c| Cond {
                        coef: vec![0],
                        ..c.clone()
                    })
                    .collect(),
                value: *value,
                fill: *fill,
                ty: *ty,
            },
            Expr::Scalar(_) | Expr::Op { .. } => e.clone(),
        })
        .collect()
}

/// A plain serial loop nest in scalar mode writing through arbitrary output strides (outputs
/// stored with a non-default layout).
fn serial_nest(
    exprs: &[Expr],
    root: ExprId,
    ext: &[i64],
    out_c: &[i64],
    w: &Ident,
    slice: &dyn Fn(&Src) -> TokenStream,
    own: &dyn Fn(&Src) -> bool,
) -> TokenStream {
    let vars: Vec<TokenStream> = (0..ext.len())
        .map(|d| {
            let i = format_ident!("i{}", d);
            quote!(#i)
        })
        .collect();
    let acc = Access {
        slice,
        vars: &vars,
        local: &|s: &Src| own(s).then(|| Local::At(quote!(#w), offset_tokens(out_c, 0, &vars))),
    };
    let stmts = scalar_stmts(exprs, &[root], &acc);
    let r = var(root);
    let o = offset_tokens(out_c, 0, &vars);
    let mut body = quote! { #stmts #w[#o] = #r; };
    for d in (0..ext.len()).rev() {
        let i = &vars[d];
        let e = lit_usize(ext[d]);
        body = quote! { for #i in 0..#e { #body } };
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapse_merges_nested_dims_only() {
        // Row-major [2,3,4] read contiguously: one group.
        let c = vec![vec![12, 4, 1]];
        assert_eq!(collapse(&[2, 3, 4], &[0, 0, 0], &c), vec![vec![0, 1, 2]]);
        // A broadcast along dim 1 (stride 0) splits it from its neighbours.
        let c = vec![vec![12, 4, 1], vec![4, 0, 1]];
        assert_eq!(
            collapse(&[2, 3, 4], &[0, 0, 0], &c),
            vec![vec![0], vec![1], vec![2]]
        );
        // Extent-1 dims disappear; classes never merge.
        let c = vec![vec![4, 4, 1]];
        assert_eq!(collapse(&[2, 1, 4], &[0, 0, 1], &c), vec![vec![0], vec![2]]);
        assert_eq!(collapse(&[2, 1, 4], &[0, 0, 0], &c), vec![vec![0, 2]]);
    }

    #[test]
    fn offsets_skip_zero_terms() {
        let vars = vec![quote!(i0), quote!(j)];
        assert_eq!(offset_tokens(&[0, 0], 0, &vars).to_string(), "0usize");
        assert_eq!(
            offset_tokens(&[3, 1], 0, &vars).to_string(),
            "(i0 * 3usize + j)"
        );
        // Reversed and shifted views: positive terms first, then the negative ones subtracted.
        assert_eq!(
            offset_tokens(&[3, -1], 7, &vars).to_string(),
            "((i0 * 3usize + 7usize) - (j))"
        );
    }
}
