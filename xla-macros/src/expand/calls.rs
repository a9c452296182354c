//! The kernel contract: an op the fused loops do not compute themselves (Sort, TopK, Fft, Conv,
//! Gather, Scatter, While, Conditional, Cholesky, TriangularSolve, RaggedDot, the Rng ops) becomes a [`KernelKind::Call`]: its inputs are dense
//! row-major buffers, its outputs the node's outputs, and it declares here the scratch it keeps
//! across calls (fields of the fn's `Scratch`), the items it needs (nested programs' modules)
//! and its body.
//! `items.rs` turns that into a `kernel_N` fn like every other kernel.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{ComparisonDirection, Computation, ElementType, Op};

use super::codegen_rt::{lit_usize, src_ident};
use super::fuse::{Expr, ExprId, Fused, Kernel};
use super::graph::Kind;
use super::plan::Plan;
use super::program::Largest;

mod collective;
pub(crate) mod custom;
mod dynamic;
mod fft;
mod host_io;
mod indexing;
mod linalg;
pub(crate) mod ragged;
mod rng;
pub(crate) mod scan;
mod window;

/// One scratch field a kernel keeps across calls: name (unique within the kernel), type,
/// initialiser; a `shared` field is one per program whatever the number of kernels using it
/// (GEMM's packing space), the others one per kernel.
pub(crate) struct ScratchField {
    pub name: Ident,
    pub ty: TokenStream,
    pub init: TokenStream,
    pub shared: bool,
}

/// What a call kernel contributes: scratch fields (bound in its body as `&mut` variables of
/// the same name), module items, and the body, which reads its inputs through `inputs` (the
/// slice variables of the input leaves) and writes `w0..`.
pub(crate) struct CallCode {
    pub scratch: Vec<ScratchField>,
    pub items: TokenStream,
    pub body: TokenStream,
}

/// The code of call kernel `k` (its node's kind says which call), and for a While or
/// Conditional its nested programs' kernel sizes (`program::largest` counts the rest).
pub(crate) fn call_kernel(
    f: &Fused,
    plan: &Plan,
    k: &Kernel,
    inputs: &[ExprId],
    id: usize,
) -> Result<(CallCode, Largest), String> {
    let node = &f.graph.nodes[k.node];
    let ins: Vec<Ident> = inputs
        .iter()
        .map(|&e| match &k.exprs[e] {
            Expr::Leaf { src, .. } => Ok(src_ident(plan, src)),
            Expr::Index { .. } | Expr::Scalar(_) | Expr::Op { .. } | Expr::Guard { .. } => {
                Err("internal: a call kernel input is not a buffer".to_string())
            }
        })
        .collect::<Result<_, _>>()?;
    let in_dims: Vec<Vec<i64>> = node
        .inputs
        .iter()
        .map(|&v| f.graph.shape(v).dims.clone())
        .collect();
    let in_tys: Vec<ElementType> = node.inputs.iter().map(|&v| f.graph.shape(v).ty).collect();
    let ws: Vec<Ident> = (0..k.outputs.len())
        .map(|i| format_ident!("w{}", i))
        .collect();
    // Every input cut to its value's length first: a scratch buffer can be longer, reused from
    // a larger value that died before (a Sort copying its whole input panicked on that).
    let mut cuts = TokenStream::new();
    // An input stored where the kernel writes is read through its output (in place): no
    // binding of its own to cut.
    let written: Vec<_> = k.outputs.iter().map(|v| plan.storage.get(v)).collect();
    let in_place: Vec<bool> = node
        .inputs
        .iter()
        .map(|v| written.contains(&plan.storage.get(v)))
        .collect();
    for ((x, dims), _) in ins.iter().zip(&in_dims).zip(&in_place).filter(|(_, &p)| !p) {
        let n = lit_usize(dims.iter().product::<i64>());
        cuts.extend(quote!(let #x = &#x[..#n];));
    }
    let (ins, in_dims, in_tys, ws) = (&ins[..], &in_dims[..], &in_tys[..], &ws[..]);
    let mut nested = Largest::default();
    let mut code = match &node.kind {
        Kind::Sort {
            dim,
            stable,
            comparator,
        } => {
            let (ins, canon) = canonical_bf16(ins, in_dims, in_tys);
            let code = sort(&ins, &in_dims[0], in_tys, *dim, *stable, comparator, ws)?;
            Ok(canon.prepend(code))
        }
        Kind::TopK { k: kk, largest } => {
            let (ins, canon) = canonical_bf16(ins, in_dims, in_tys);
            Ok(canon.prepend(top_k(&ins[0], &in_dims[0], *kk, *largest, ws)))
        }
        Kind::Cholesky { lower } => Ok(linalg::cholesky(
            &ins[0],
            &in_dims[0],
            in_tys[0],
            *lower,
            &ws[0],
        )),
        Kind::RaggedDot(p) => Ok(ragged::ragged_dot(ins, p, &ws[0])),
        Kind::TriangularSolve {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        } => Ok(linalg::triangular_solve(
            ins,
            in_dims,
            in_tys[0],
            (*left_side, *lower, *unit_diagonal),
            *transpose_a,
            &ws[0],
        )),
        Kind::Collective(c) => collective::call(c, ins, in_dims, in_tys, ws),
        Kind::HostIo { op, data_outputs } => {
            let out_dims: Vec<Vec<i64>> = node.shapes.iter().map(|s| s.dims.clone()).collect();
            let out_tys: Vec<ElementType> = node.shapes.iter().map(|s| s.ty).collect();
            host_io::call(
                op,
                *data_outputs,
                ins,
                in_dims,
                in_tys,
                ws,
                &out_dims,
                &out_tys,
            )
        }
        Kind::Fft {
            fft_type,
            fft_length,
        } => fft::fft(
            &ins[0],
            &in_dims[0],
            in_tys[0],
            *fft_type,
            fft_length,
            &ws[0],
        ),
        Kind::Conv {
            window,
            dn,
            feature_group_count,
            batch_group_count,
        } => conv(
            ins,
            in_dims,
            window,
            dn,
            *feature_group_count,
            *batch_group_count,
            ws,
        ),
        Kind::Gather { dn, slice_sizes } => Ok(indexing::gather(
            ins,
            in_dims,
            &node.shapes[0].dims,
            dn,
            slice_sizes,
            &ws[0],
        )),
        Kind::Scatter { dn, computation } => {
            indexing::scatter(ins, in_dims, in_tys, dn, computation, ws)
        }
        Kind::DynamicUpdateSlice => Ok(dynamic::update_slice(ins, in_dims, in_place[0], &ws[0])),
        Kind::SelectAndScatter {
            window: win,
            select,
            scatter,
        } => window::select_and_scatter(ins, in_dims, in_tys[0], win, select, scatter, &ws[0]),
        Kind::CumScan {
            op,
            carry_first,
            dim,
            reverse,
        } => scan::cum_scan(
            ins,
            &in_dims[0],
            in_tys[0],
            (*op, *carry_first),
            *dim,
            *reverse,
            ws,
        ),
        Kind::ReduceWindow {
            window: win,
            computation,
        } => window::reduce_window(
            ins,
            in_dims,
            &node.shapes[0].dims,
            in_tys,
            win,
            computation,
            ws,
        ),
        Kind::RngBitGenerator { algorithm } => Ok(rng::bit_generator(
            *algorithm,
            &ins[0],
            in_dims[0].iter().product(),
            &node.shapes[1].dims,
            in_place[0],
            ws,
        )),
        Kind::Rng { distribution, seed } => Ok(rng::rng(*distribution, *seed, ins, &ws[0])),
        Kind::While { condition, body } => {
            let (code, l) = super::nested::while_loop(f, plan, k, ins, condition, body, ws, id)?;
            nested = l;
            Ok(code)
        }
        Kind::Conditional { branches, arity } => {
            let (code, l) = super::nested::conditional(f, k, ins, in_tys, branches, arity, ws, id)?;
            nested = l;
            Ok(code)
        }
        Kind::CustomCall { target, .. } => {
            let outs: Vec<_> = k
                .outputs
                .iter()
                .map(|&v| f.graph.shape(v).clone())
                .collect();
            custom::call(target, ins, in_dims, in_tys, &outs, ws)
        }
        Kind::Param { .. }
        | Kind::Constant(_)
        | Kind::Iota { .. }
        | Kind::Unary(_)
        | Kind::Binary(_)
        | Kind::Compare { .. }
        | Kind::Select
        | Kind::Clamp
        | Kind::Convert
        | Kind::Bitcast
        | Kind::ReducePrecision { .. }
        | Kind::BroadcastInDim { .. }
        | Kind::Reshape
        | Kind::Transpose { .. }
        | Kind::Rev { .. }
        | Kind::Slice { .. }
        | Kind::DynamicSlice { .. }
        | Kind::Pad { .. }
        | Kind::Concat { .. }
        | Kind::Copy
        | Kind::BitcastResize
        | Kind::Reduce { .. }
        | Kind::Dot { .. } => Err(format!("internal: node {} is not a call kernel", k.node)),
    }?;
    let body = code.body;
    code.body = quote!(#cuts #body);
    Ok((code, nested))
}

/// Copies of bf16 inputs with every NaN made the plain NaN of its sign, and the code filling
/// them: XLA:CPU canonicalises bf16 NaNs in Sort and TopK operands (keys and payloads) before
/// comparing, so NaNs of one sign tie and come out canonical.
struct Canonical {
    scratch: Vec<ScratchField>,
    fill: TokenStream,
}

impl Canonical {
    fn prepend(self, mut code: CallCode) -> CallCode {
        let fill = self.fill;
        let body = code.body;
        code.body = quote!(#fill #body);
        code.scratch.extend(self.scratch);
        code
    }
}

fn canonical_bf16(
    ins: &[Ident],
    dims: &[Vec<i64>],
    tys: &[ElementType],
) -> (Vec<Ident>, Canonical) {
    let mut out = Vec::with_capacity(ins.len());
    let mut canon = Canonical {
        scratch: Vec::new(),
        fill: TokenStream::new(),
    };
    for (i, (x, &ty)) in ins.iter().zip(tys).enumerate() {
        if ty != ElementType::Bf16 {
            out.push(x.clone());
            continue;
        }
        let c = format_ident!("canon{}", i);
        let len = lit_usize(dims[i].iter().product::<i64>());
        let bf = quote!(::xla_aot::__rt::xla_core::__half::bf16);
        canon.scratch.push(ScratchField {
            name: c.clone(),
            ty: quote!(::std::vec::Vec<#bf>),
            init: quote!(::std::vec![#bf::ZERO; #len]),
            shared: false,
        });
        canon.fill.extend(quote! {
            for (d, &v) in #c.iter_mut().zip(#x) {
                *d = if !v.is_nan() {
                    v
                } else if v.is_sign_negative() {
                    -#bf::NAN
                } else {
                    #bf::NAN
                };
            }
            let #c: &[#bf] = &#c[..];
        });
        out.push(c);
    }
    (out, canon)
}

fn usizes(d: &[i64]) -> Vec<TokenStream> {
    d.iter().map(|&x| lit_usize(x)).collect()
}

/// A comparator that is one comparison of operand 0's pair, `Lt` or `Gt` (either parameter
/// order): the sort order the library's key sort gives, when `total` (the total order of
/// floats, or any integer or pred) holds. `None` for anything else.
fn key_order(c: &Computation, ty: ElementType) -> Option<TokenStream> {
    let root = c.instr(c.root);
    let Op::Compare {
        direction,
        total_order,
    } = root.op
    else {
        return None;
    };
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
    let swapped = match params.as_slice() {
        [0, 1] => false,
        [1, 0] => true,
        _ => return None,
    };
    // IEEE `<` on floats is not the key order (NaN, -0 vs +0): only the total order is.
    let total = total_order || !ty.is_float_or_complex();
    if !total || ty.is_complex() {
        return None;
    }
    let ascending = match (direction, swapped) {
        (ComparisonDirection::Lt, false) | (ComparisonDirection::Gt, true) => true,
        (ComparisonDirection::Gt, false) | (ComparisonDirection::Lt, true) => false,
        (
            ComparisonDirection::Eq
            | ComparisonDirection::Ne
            | ComparisonDirection::Ge
            | ComparisonDirection::Le,
            _,
        ) => return None,
    };
    Some(if ascending {
        quote!(::xla_aot::__rt::xla_kernels::sort::Order::Ascending)
    } else {
        quote!(::xla_aot::__rt::xla_kernels::sort::Order::Descending)
    })
}

/// Sort: one operand with a key comparator sorts in place (radix for long rows); several with
/// a key comparator on operand 0 sort a permutation by it and apply it to each; any other
/// comparator sorts a permutation by the comparator itself, inlined as scalar code.
fn sort(
    ins: &[Ident],
    dims: &[i64],
    tys: &[ElementType],
    dim: usize,
    stable: bool,
    comparator: &Computation,
    ws: &[Ident],
) -> Result<CallCode, String> {
    let d = usizes(dims);
    let dim_l = lit_usize(dim as i64);
    let total = lit_usize(dims.iter().product::<i64>());
    let kern = quote!(::xla_aot::__rt::xla_kernels::sort);
    let fail = quote!(panic!(
        "xla!: internal error: the sort kernel rejected its compile-time shape"
    ));
    let order = key_order(comparator, tys[0]);
    if let (Some(order), 1) = (&order, ins.len()) {
        let (x, w) = (&ins[0], &ws[0]);
        return Ok(CallCode {
            scratch: vec![ScratchField {
                name: format_ident!("keys"),
                ty: quote!(#kern::SortScratch),
                init: quote!(#kern::SortScratch::new()),
                shared: false,
            }],
            items: quote!(),
            body: quote! {
                #w.copy_from_slice(#x);
                if #kern::sort_with_scratch(#w, &[#(#d),*], #dim_l, #order, keys).is_err() { #fail }
            },
        });
    }
    let perm_field = ScratchField {
        name: format_ident!("perm"),
        ty: quote!(::std::vec::Vec<u32>),
        init: quote!(::std::vec![0u32; #total]),
        shared: false,
    };
    let permute = match order {
        Some(order) if !stable || ins.len() > 1 => {
            let x = &ins[0];
            quote!(#kern::sort_permutation(#x, &[#(#d),*], #dim_l, #order, perm))
        }
        Some(_) | None => {
            // The comparator on operands at flat indices a and b.
            let mut args = Vec::new();
            for (x, &t) in ins.iter().zip(tys) {
                args.push((quote!(#x[a]), t));
                args.push((quote!(#x[b]), t));
            }
            let (stmts, outs) = super::inline::scalar_call(comparator, &args)?;
            let [less] = outs.as_slice() else {
                return Err("Sort: the comparator must return one pred".into());
            };
            quote!(#kern::sort_permutation_by(&[#(#d),*], #dim_l, #stable, |a: usize, b: usize| { #stmts #less }, perm))
        }
    };
    let applies = ins.iter().zip(ws).map(|(x, w)| {
        quote!(if #kern::apply_permutation(#x, &[#(#d),*], #dim_l, perm, #w).is_err() { #fail })
    });
    Ok(CallCode {
        scratch: vec![perm_field],
        items: quote!(),
        body: quote! {
            if #permute.is_err() { #fail }
            #(#applies)*
        },
    })
}

/// TopK through the library's one-pass selection.
fn top_k(x: &Ident, dims: &[i64], k: usize, largest: bool, ws: &[Ident]) -> CallCode {
    let d = usizes(dims);
    let kk = lit_usize(k as i64);
    let (values, indices) = (&ws[0], &ws[1]);
    CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote! {
            if ::xla_aot::__rt::xla_kernels::sort::top_k(#x, &[#(#d),*], #kk, #largest, #values, #indices).is_err() {
                panic!("xla!: internal error: the top_k kernel rejected its compile-time shape");
            }
        },
    }
}

/// Convolution through `xla_kernels::conv` (direct, Winograd, depthwise or im2col + GEMM,
/// chosen by the library), its scratch kept across calls.
fn conv(
    ins: &[Ident],
    dims: &[Vec<i64>],
    window: &xla_core::ConvWindow,
    dn: &xla_core::ConvDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
    ws: &[Ident],
) -> Result<CallCode, String> {
    let n = dn.input_spatial_dimensions.len();
    if n == 0 || n > 3 {
        return Err(format!(
            "ConvGeneralDilated: {n} spatial dimensions have no code generation (1 to 3 do)"
        ));
    }
    let idx = |v: &[i64]| -> Vec<TokenStream> {
        let mut out: Vec<TokenStream> = v.iter().map(|&x| lit_usize(x)).collect();
        out.resize(3, lit_usize(0));
        out
    };
    let u = |x: i64| lit_usize(x);
    let (isp, ksp, osp) = (
        idx(&dn.input_spatial_dimensions),
        idx(&dn.kernel_spatial_dimensions),
        idx(&dn.output_spatial_dimensions),
    );
    let (ib, ifeat, ki, ko, ob, of) = (
        u(dn.input_batch_dimension),
        u(dn.input_feature_dimension),
        u(dn.kernel_input_feature_dimension),
        u(dn.kernel_output_feature_dimension),
        u(dn.output_batch_dimension),
        u(dn.output_feature_dimension),
    );
    let (li, lk) = (usizes(&dims[0]), usizes(&dims[1]));
    let strides = usizes(&window.strides);
    let lhs_d = usizes(&window.lhs_dilation);
    let rhs_d = usizes(&window.rhs_dilation);
    let pads: Vec<TokenStream> = window
        .padding
        .iter()
        .map(|&(lo, hi)| {
            let (lo, hi) = (
                proc_macro2::Literal::i64_suffixed(lo),
                proc_macro2::Literal::i64_suffixed(hi),
            );
            quote!((#lo, #hi))
        })
        .collect();
    let rev = &window.window_reversal;
    let (fg, bg) = (u(feature_group_count), u(batch_group_count));
    let (a, b, w) = (&ins[0], &ins[1], &ws[0]);
    let c = quote!(::xla_aot::__rt::xla_kernels::conv);
    Ok(CallCode {
        scratch: vec![ScratchField {
            name: format_ident!("conv"),
            ty: quote!(#c::ConvScratch),
            init: quote!(#c::ConvScratch::new()),
            shared: false,
        }],
        items: quote!(),
        body: quote! {
            let dims = #c::ConvDims {
                input_batch: #ib,
                input_feature: #ifeat,
                input_spatial: [#(#isp),*],
                kernel_input_feature: #ki,
                kernel_output_feature: #ko,
                kernel_spatial: [#(#ksp),*],
                output_batch: #ob,
                output_feature: #of,
                output_spatial: [#(#osp),*],
            };
            let desc = #c::ConvDesc::new(&[#(#li),*], &[#(#lk),*], dims)
                .with_strides(&[#(#strides),*])
                .with_padding(&[#(#pads),*])
                .with_lhs_dilation(&[#(#lhs_d),*])
                .with_rhs_dilation(&[#(#rhs_d),*])
                .with_window_reversal(&[#(#rev),*])
                .with_groups(#fg, #bg);
            // The shapes were checked by shape inference; the library cannot reject them.
            if #c::conv(&desc, #a, #b, #w, conv).is_err() {
                panic!("xla!: internal error: the conv kernel rejected its compile-time shapes");
            }
        },
    })
}
