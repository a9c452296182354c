//! The code of one fused program, shared by a fn's entry point and the programs nested in it:
//! one module-level `kernel_N` fn per kernel (never inlined, so rustc and LLVM work one kernel
//! at a time and build time grows linearly), the sequence of their calls, the statics of its
//! constants and the fields of its `Scratch` (buffers, GEMM packing space, call kernels' own
//! scratch and nested programs' scratch).

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::calls::ScratchField;
use super::codegen_dot::{bitcast_resize_kernel, dot_kernel};
use super::codegen_expr::reachable;
use super::codegen_loops::loop_kernel;
use super::codegen_reduce::reduce_kernel;
use super::codegen_rt::{element, lit_usize, param_ident, rust_type, src_ident};
use super::fuse::{kernel_reads, Expr, Fused, Kernel, KernelKind, Src};
use super::graph::Kind;
use super::plan::{Plan, Storage};

/// Every stored source a kernel reads (a DynamicSlice box's base and starts, not the box).
fn kernel_srcs(k: &Kernel) -> Vec<Src> {
    leaf_srcs(k)
        .iter()
        .flat_map(|s| s.parts().into_iter().cloned())
        .collect()
}

/// The bindings of the DynamicSlice boxes a kernel reads, at the start of its body: the
/// clamped starts read once, the box a subslice of its base from the offset they give.
fn box_bindings(f: &Fused, plan: &Plan, k: &Kernel) -> TokenStream {
    let mut seen = BTreeSet::new();
    let mut out = TokenStream::new();
    for src in leaf_srcs(k) {
        let Src::Dyn(d) = &src else { continue };
        if !seen.insert(d.node) {
            continue;
        }
        let name = src_ident(plan, &src);
        let base = src_ident(plan, &d.base);
        let ty = rust_type(f.graph.nodes[d.node].shapes[0].ty);
        // No `0 +` or `* 1` terms: generated code passes clippy's identity_op.
        let terms: Vec<TokenStream> = d
            .starts
            .iter()
            .zip(&d.strides)
            .zip(&d.max)
            .map(|(((s, _), &stride), &max)| {
                let s = src_ident(plan, s);
                let max = proc_macro2::Literal::i128_suffixed(i128::from(max));
                let start = quote!(i128::from(#s[0]).clamp(0, #max) as usize);
                match stride {
                    1 => start,
                    _ => {
                        let stride = lit_usize(stride);
                        quote!(#start * #stride)
                    }
                }
            })
            .collect();
        let off = if terms.is_empty() {
            quote!(0usize)
        } else {
            quote!(#(#terms)+*)
        };
        let off_name = format_ident!("{}_off", name);
        out.extend(quote! {
            let #off_name: usize = #off;
            let #name: &[#ty] = &#base[#off_name..];
        });
    }
    out
}

/// Every leaf source a kernel reads.
fn leaf_srcs(k: &Kernel) -> Vec<Src> {
    let roots = match &k.kind {
        KernelKind::Loop { root } => vec![*root],
        KernelKind::Reduce {
            operands,
            inits,
            stores,
        } => operands
            .iter()
            .chain(inits)
            .copied()
            .chain(stores.iter().map(|s| s.0))
            .collect(),
        KernelKind::BitcastResize { src } => vec![*src],
        KernelKind::Call { inputs } => inputs.clone(),
        KernelKind::Dot { .. } => Vec::new(),
    };
    let live = reachable(&k.exprs, &roots);
    let mut out: Vec<Src> = k
        .exprs
        .iter()
        .zip(&live)
        .filter(|(_, &l)| l)
        .filter_map(|(e, _)| match e {
            Expr::Leaf { src, .. } => Some(src.clone()),
            Expr::Index { .. } | Expr::Scalar(_) | Expr::Op { .. } | Expr::Guard { .. } => None,
        })
        .collect();
    if let KernelKind::Dot { lhs, rhs, .. } = &k.kind {
        out.push(lhs.src.clone());
        out.push(rhs.src.clone());
    }
    out
}

/// One kernel as a module-level fn of its own and the block that calls it: read-only bindings
/// of the buffers it reads, the mutable binding(s) of what it writes, then the call. A fn per
/// kernel (never inlined) keeps the entry point a short sequence of calls, so rustc type-checks
/// and LLVM optimises one kernel at a time and build time grows linearly with the program.
fn kernel_block(f: &Fused, plan: &Plan, k: &Kernel, id: usize) -> Result<KernelCode, String> {
    let mut binds = TokenStream::new();
    // The kernel fn's parameters: (name, type) of every binding its body reads or writes.
    let mut params: Vec<(Ident, TokenStream)> = Vec::new();
    let written: Vec<Option<&Storage>> = k.outputs.iter().map(|v| plan.storage.get(v)).collect();
    for src in kernel_srcs(k) {
        if let Src::Param { index, path } = src {
            let mut ident = param_ident(index, &path);
            if let Some(&slot) = plan.params_in_place.get(&(index, path.clone())) {
                // A state leaf updated in place: read through its output slot, or through
                // the kernel's own output when the kernel writes it.
                if written.contains(&Some(&Storage::Out(slot))) {
                    continue;
                }
                let (r, o) = (format_ident!("r_out{}", slot), format_ident!("out{}", slot));
                if !params.iter().any(|(p, _)| *p == r) {
                    binds.extend(quote!(let #r = &*#o;));
                    ident = r;
                } else {
                    continue;
                }
            }
            if params.iter().any(|(p, _)| *p == ident) {
                continue;
            }
            let ty = f
                .graph
                .nodes
                .iter()
                .find(|n| matches!(&n.kind, Kind::Param { index: i, path: q } if *i == index && *q == path))
                .and_then(|n| n.shapes.first())
                .map(|a| rust_type(a.ty))
                .ok_or("internal: a kernel reads a parameter leaf the graph does not have")?;
            params.push((ident, quote!(&[#ty])));
        }
    }
    for v in kernel_reads(k) {
        let ty = rust_type(f.graph.shape(v).ty);
        if written.contains(&plan.storage.get(&v)) {
            continue; // read in place through the output slice (see `plan::in_place`)
        }
        match plan.storage.get(&v) {
            Some(Storage::Out(slot)) => {
                let (r, o) = (format_ident!("r_out{}", slot), format_ident!("out{}", slot));
                binds.extend(quote!(let #r: &[#ty] = &*#o;));
                params.push((r, quote!(&[#ty])));
            }
            Some(Storage::Scratch(b)) => {
                let (r, s) = (format_ident!("r_b{}", b), format_ident!("b{}", b));
                binds.extend(quote!(let #r: &[#ty] = scratch.#s.as_slice();));
                params.push((r, quote!(&[#ty])));
            }
            None => return Err("internal: a value read before any kernel wrote it".into()),
        }
    }
    let mut ws = Vec::new();
    for (i, &v) in k.outputs.iter().enumerate() {
        let shape = f.graph.shape(v);
        let ty = rust_type(shape.ty);
        let len = lit_usize(shape.element_count());
        let w = format_ident!("w{}", i);
        match plan.storage.get(&v) {
            Some(Storage::Out(slot)) => {
                let o = format_ident!("out{}", slot);
                binds.extend(quote!(let #w: &mut [#ty] = &mut *#o;));
            }
            Some(Storage::Scratch(b)) => {
                let s = format_ident!("b{}", b);
                binds.extend(quote!(let #w: &mut [#ty] = &mut scratch.#s.as_mut_slice()[..#len];));
            }
            None => return Err("internal: a kernel output without storage".into()),
        }
        params.push((w.clone(), quote!(&mut [#ty])));
        ws.push(w);
    }
    // What the kernel keeps across calls, declared by the kernel (the contract of calls.rs;
    // GEMM's packing space is one shared field).
    let mut declared = Vec::new();
    let mut items = TokenStream::new();
    let mut nested = Largest::default();
    let body = match &k.kind {
        KernelKind::Call { inputs } => {
            let (code, l) = super::calls::call_kernel(f, plan, k, inputs, id)?;
            nested = l;
            declared = code.scratch;
            items = code.items;
            code.body
        }
        KernelKind::Loop { root } => loop_kernel(f, plan, k, *root, &ws[0]),
        KernelKind::Reduce {
            operands,
            inits,
            stores,
        } => reduce_kernel(f, plan, k, operands, inits, stores, &ws)?,
        KernelKind::Dot { lhs, rhs, sizes } => {
            declared.push(ScratchField {
                name: format_ident!("gemm"),
                ty: quote!(::xla_aot::__rt::xla_kernels::gemm::GemmScratch),
                init: quote!(::xla_aot::__rt::xla_kernels::gemm::GemmScratch::new()),
                shared: true,
            });
            let node = &f.graph.nodes[k.node];
            let bytes = f.graph.shape(node.inputs[0]).ty == xla_core::ElementType::S8
                && node.shapes[0].ty == xla_core::ElementType::S32;
            dot_kernel(plan, lhs, rhs, *sizes, bytes, &ws[0])
        }
        KernelKind::BitcastResize { src } => bitcast_resize_kernel(f, plan, k, *src, &ws[0])?,
    };
    let boxes = box_bindings(f, plan, k);
    let body = quote!(#boxes #body);
    let mut scratch = Vec::with_capacity(declared.len());
    for field in declared {
        let (n, ty) = (&field.name, &field.ty);
        let fname = if field.shared {
            n.clone()
        } else {
            format_ident!("k{}_{}", id, n)
        };
        binds.extend(quote!(let #n = &mut scratch.#fname;));
        params.push((n.clone(), quote!(&mut #ty)));
        scratch.push(ScratchField {
            name: fname,
            ..field
        });
    }
    let name = format_ident!("kernel_{}", id);
    // A collective exchanges through the fn's `ctx` and may fail: its kernel returns the
    // transport's Result, which the sequence of calls passes on with `?`.
    let spmd = kernel_is_spmd(f, k);
    if spmd {
        params.push((format_ident!("ctx"), quote!(&dyn ::xla_aot::Collectives)));
    }
    let (names, types): (Vec<&Ident>, Vec<&TokenStream>) =
        params.iter().map(|(n, t)| (n, t)).unzip();
    let (ret, q) = if spmd {
        (
            quote!(-> ::core::result::Result<(), ::xla_aot::CollectiveError>),
            quote!(?),
        )
    } else {
        (quote!(), quote!())
    };
    let inline = if tiny_kernel(f, k) {
        quote!(#[inline])
    } else {
        quote!(#[inline(never)])
    };
    let item = quote! {
        #inline
        fn #name(#(#names: #types),*) #ret { #body }
        #items
    };
    Ok(KernelCode {
        call: quote!({ #binds #name(#(#names),*)#q; }),
        item,
        scratch,
        nested,
    })
}

/// Output elements up to which an elementwise or reduce kernel is left for LLVM to inline:
/// a While step on a small state (a counter, a vector of 16) is then one loop body with the
/// state in registers, not three calls passing it through memory (`while_1000` in
/// `benches/vs_xla.rs`). Such a kernel is a few instructions, so build time stays linear.
const TINY_KERNEL_ELEMENTS: i64 = 64;

/// Whether `k` is an elementwise or reduce kernel writing at most [`TINY_KERNEL_ELEMENTS`].
fn tiny_kernel(f: &Fused, k: &Kernel) -> bool {
    // Reductions read more than they write: count the largest operand too.
    let read = f.graph.nodes[k.node]
        .inputs
        .iter()
        .map(|&u| f.graph.shape(u).element_count())
        .max()
        .unwrap_or(0);
    let small = k
        .outputs
        .iter()
        .all(|&v| f.graph.shape(v).element_count().max(read) <= TINY_KERNEL_ELEMENTS);
    small && matches!(k.kind, KernelKind::Loop { .. } | KernelKind::Reduce { .. })
}

/// A collective or host I/O, or a While or Conditional whose computations hold one: the kernel needs the
/// fn's `ctx` and returns the transport's Result.
fn kernel_is_spmd(f: &Fused, k: &Kernel) -> bool {
    let kind = &f.graph.nodes[k.node].kind;
    if let Kind::While { condition, body } = kind {
        return condition.uses_collectives() || body.uses_collectives();
    }
    if let Kind::Conditional { branches, .. } = kind {
        return branches.iter().any(|b| b.uses_collectives());
    }
    matches!(kind, Kind::Collective(_) | Kind::HostIo { .. })
}

/// One kernel's pieces: its call (in the entry point), its fn and any items it needs, and the
/// scratch fields it keeps.
struct KernelCode {
    call: TokenStream,
    item: TokenStream,
    scratch: Vec<ScratchField>,
    /// A While's or Conditional's nested programs' [`Largest`] (from their own `program`).
    nested: Largest,
}

/// The code of a fused program, shared by a fn's entry point and nested programs.
pub(crate) struct ProgramCode {
    /// Module-level items: constants' statics, kernel fns, nested programs' modules.
    pub items: TokenStream,
    /// The kernel calls in order. They expect the parameter leaves' slices
    /// (`param_ident`), the output slots as `out{slot}: &mut [T]` and `scratch: &mut Scratch`.
    pub calls: TokenStream,
    /// The fields of `Scratch`.
    pub fields: Vec<ScratchField>,
    /// The parameter leaves the kernels read.
    pub used_params: BTreeSet<(usize, Vec<usize>)>,
    /// A kernel is a collective: the calls need `ctx` and run in a fn returning
    /// `Result<_, CollectiveError>`.
    pub spmd: bool,
    /// The most elements one kernel reads or writes, the most flops of one product and the
    /// most bytes of one `par::copy`: what `xla_kernels::par::run_program` compares with the
    /// library's parallel thresholds.
    pub largest: Largest,
}

/// Kernels, statics and scratch of a fused program.
pub(crate) fn program(fused: &Fused, plan: &Plan) -> Result<ProgramCode, String> {
    let mut used_params: BTreeSet<(usize, Vec<usize>)> = BTreeSet::new();
    let mut used_consts: BTreeSet<usize> = BTreeSet::new();
    for k in &fused.kernels {
        for s in kernel_srcs(k) {
            match s {
                Src::Param { index, path } => {
                    used_params.insert((index, path));
                }
                Src::Const(n) => {
                    used_consts.insert(n);
                }
                Src::Buf(_) | Src::Dyn(_) => {}
            }
        }
    }
    let mut calls = TokenStream::new();
    let mut items = TokenStream::new();
    let mut fields: Vec<ScratchField> = plan
        .buffers
        .iter()
        .enumerate()
        .map(|(b, buf)| {
            let t = rust_type(buf.ty);
            let len = lit_usize(buf.len);
            ScratchField {
                name: format_ident!("b{}", b),
                ty: quote!(::xla_aot::__rt::xla_kernels::aligned::AlignedBuf<#t>),
                init: quote!(::xla_aot::__rt::xla_kernels::aligned::AlignedBuf::filled(<#t as ::core::default::Default>::default(), #len)),
                shared: false,
            }
        })
        .collect();
    let mut nested = Largest::default();
    for (i, k) in fused.kernels.iter().enumerate() {
        if plan.unchanged.contains(&i) {
            continue;
        }
        let code = kernel_block(fused, plan, k, i)?;
        nested = nested.max(code.nested);
        calls.extend(code.call);
        items.extend(code.item);
        for field in code.scratch {
            // A shared field once per program.
            if !(field.shared && fields.iter().any(|f| f.name == field.name)) {
                fields.push(field);
            }
        }
    }
    for &n in &used_consts {
        let super::graph::Kind::Constant(lit) = &fused.graph.nodes[n].kind else {
            return Err("internal: constant source of a non-constant".to_string());
        };
        let shape = &fused.graph.nodes[n].shapes[0];
        let count = usize::try_from(shape.element_count()).unwrap_or(0);
        let ty = rust_type(shape.ty);
        let elems: Vec<TokenStream> = (0..count).map(|i| element(lit, i)).collect();
        let id = format_ident!("C{}", n);
        let len = lit_usize(count);
        items.extend(quote!(static #id: [#ty; #len] = [#(#elems),*];));
    }
    let spmd = fused.kernels.iter().any(|k| kernel_is_spmd(fused, k));
    Ok(ProgramCode {
        items,
        calls,
        fields,
        spmd,
        used_params,
        largest: largest(fused).max(nested),
    })
}

/// What decides whether a program enters rayon's pool ([`ProgramCode::largest`]).
#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub(crate) struct Largest {
    /// The most elements one kernel writes or reads (a product counts only its result).
    pub elements: u64,
    /// The most flops of one product (`2 batch m n k`).
    pub flops: u128,
    /// The most bytes `par::copy` moves at once: a While state leaf (copied in and out), a
    /// DynamicUpdateSlice's operand.
    pub copy_bytes: u64,
}

impl Largest {
    pub(crate) fn max(self, o: Largest) -> Largest {
        Largest {
            elements: self.elements.max(o.elements),
            flops: self.flops.max(o.flops),
            copy_bytes: self.copy_bytes.max(o.copy_bytes),
        }
    }
}

/// The most elements a kernel writes or reads (any of its node's inputs and outputs), the most
/// flops of one of its products (`2 batch m n k`) and the largest copy by `par::copy`. A While
/// counts only its state's copies here and a Conditional nothing: their nested programs'
/// kernels come from those programs' own `program` ([`KernelCode::nested`]), and a While's own
/// work is copies, which fork only from `par::copy`'s size. A DynamicUpdateSlice writes its
/// update on one thread after such a copy (a While writing rows of a 1 MiB state entered the
/// pool for nothing, 10-20 us per call on the Xeon).
fn largest(fused: &Fused) -> Largest {
    let g = &fused.graph;
    let count = |s: &xla_core::ArrayShape| u64::try_from(s.element_count()).unwrap_or(0);
    let bytes = |s: &xla_core::ArrayShape| count(s).saturating_mul(s.ty.byte_width() as u64);
    let mut most = Largest::default();
    for k in &fused.kernels {
        let node = &g.nodes[k.node];
        match &node.kind {
            Kind::While { .. } => {
                most.copy_bytes = node
                    .shapes
                    .iter()
                    .map(bytes)
                    .fold(most.copy_bytes, u64::max);
                continue;
            }
            Kind::Conditional { .. } => continue,
            // Writes the update's rows on this thread; copies its operand (when not in place)
            // by `par::copy`.
            Kind::DynamicUpdateSlice => {
                let operand = &g.nodes[node.inputs[0].node].shapes[node.inputs[0].out];
                most.copy_bytes = most.copy_bytes.max(bytes(operand));
                continue;
            }
            _ => {}
        }
        let outs = node.shapes.iter().map(count);
        let ins = node
            .inputs
            .iter()
            .map(|v| count(&g.nodes[v.node].shapes[v.out]));
        // A product forks by its flops alone (its operands are read by the threads it
        // splits into, never split by size), so only its result counts as elements.
        let reads_split = !matches!(k.kind, KernelKind::Dot { .. });
        most.elements = outs.fold(most.elements, u64::max);
        if reads_split {
            most.elements = ins.fold(most.elements, u64::max);
        }
        if let KernelKind::Dot { sizes, .. } = &k.kind {
            let flops = sizes
                .iter()
                .fold(2u128, |f, &d| f * u128::try_from(d).unwrap_or(0));
            most.flops = most.flops.max(flops);
        }
    }
    most
}
