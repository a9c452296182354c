//! Kernels that are calls or copies rather than loop nests over an expression: `DotGeneral`
//! (one `xla_kernels::gemm::gemm` call with the operands' strides, transposes folded in) and
//! the width-changing `BitcastConvertType` (bytes split or joined, little-endian as XLA:CPU).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::codegen_loops::decompose;
use super::codegen_rt::{lit_usize, offset_tokens, scalar_of, src_ident};
use super::fuse::{Expr, ExprId, Fused, GemmOperand, Kernel};
use super::plan::Plan;

fn isize_lit(x: i64) -> TokenStream {
    let l = proc_macro2::Literal::isize_suffixed(x as isize);
    quote!(#l)
}

/// `C[b] = A[b]·B[b]` for sizes `[batch, m, n, k]`, C row-major in `w`.
pub(crate) fn dot_kernel(
    plan: &Plan,
    lhs: &GemmOperand,
    rhs: &GemmOperand,
    sizes: [i64; 4],
    s8_s32: bool,
    w: &Ident,
) -> TokenStream {
    let [batch, m, n, k] = sizes;
    // s8 operands into s32 (the graph keeps them bytes): the byte GEMM.
    let gemm_fn = if s8_s32 {
        quote!(gemm_s8_s32)
    } else {
        quote!(gemm)
    };
    let (a, b) = (src_ident(plan, &lhs.src), src_ident(plan, &rhs.src));
    let (ao, bo) = (lit_usize(lhs.off), lit_usize(rhs.off));
    let [ab, ar, ac] = lhs.strides.map(isize_lit);
    let [bb, br, bc] = rhs.strides.map(isize_lit);
    let (cb, cr) = (isize_lit(m * n), isize_lit(n));
    let (batch, m, n, k) = (lit_usize(batch), lit_usize(m), lit_usize(n), lit_usize(k));
    quote! {
        let desc = ::xla_aot::__rt::xla_kernels::gemm::GemmDesc {
            batch: #batch, m: #m, n: #n, k: #k,
            a_batch_stride: #ab, a_row_stride: #ar, a_col_stride: #ac,
            b_batch_stride: #bb, b_row_stride: #br, b_col_stride: #bc,
            c_batch_stride: #cb, c_row_stride: #cr, c_col_stride: 1isize,
            accumulate: false,
        };
        // Extents and strides are compile-time constants that fit the operands by
        // construction, so `gemm` cannot reject them.
        if ::xla_aot::__rt::xla_kernels::gemm::#gemm_fn(&desc, &#a[#ao..], &#b[#bo..], #w, gemm).is_err() {
            panic!("xla!: internal error: GEMM rejected its compile-time extents");
        }
    }
}

/// A width-changing bitcast: `src` is a leaf over the operand's dims.
pub(crate) fn bitcast_resize_kernel(
    f: &Fused,
    plan: &Plan,
    k: &Kernel,
    src: ExprId,
    w: &Ident,
) -> Result<TokenStream, String> {
    let node = &f.graph.nodes[k.node];
    let in_shape = f.graph.shape(node.inputs[0]);
    let out_shape = f.graph.shape(k.outputs[0]);
    let Expr::Leaf {
        src: s,
        coef,
        off: 0,
        guarded: false,
        ..
    } = &k.exprs[src]
    else {
        return Err("internal: bitcast of a non-leaf".into());
    };
    let slice = src_ident(plan, s);
    let (wi, wo) = (
        in_shape.ty.bit_width() as i64,
        out_shape.ty.bit_width() as i64,
    );
    let (si, so) = (scalar_of(in_shape.ty), scalar_of(out_shape.ty));
    let rank = in_shape.rank();
    let vars: Vec<TokenStream> = (0..rank)
        .map(|d| {
            let i = format_ident!("i{}", d);
            quote!(#i)
        })
        .collect();
    let used: Vec<bool> = coef.iter().map(|&c| c != 0).collect();
    if wi > wo {
        // Each input element becomes the K = wi/wo elements of a new minor dim.
        let kk = lit_usize(wi / wo);
        let n = lit_usize(in_shape.element_count());
        let binds = decompose(&in_shape.dims, rank, &used, &quote!(g));
        let off = offset_tokens(coef, 0, &vars);
        let wo_l = lit_usize(wo);
        Ok(quote! {
            for g in 0..#n {
                #binds
                let bits: u128 = #si::to_bits(#slice[#off]);
                for q in 0..#kk {
                    #w[g * #kk + q] = #so::from_bits(bits >> (q * #wo_l));
                }
            }
        })
    } else {
        // The K = wo/wi elements of the input's minor dim join into one output element.
        let kk = lit_usize(wo / wi);
        let n = lit_usize(out_shape.element_count());
        let binds = decompose(&in_shape.dims, rank.saturating_sub(1), &used, &quote!(g));
        let mut vars_q = vars.clone();
        if let Some(last) = vars_q.last_mut() {
            *last = quote!(q);
        }
        let off = offset_tokens(coef, 0, &vars_q);
        let wi_l = lit_usize(wi);
        Ok(quote! {
            for g in 0..#n {
                #binds
                let mut bits: u128 = 0;
                for q in 0..#kk {
                    bits |= #si::to_bits(#slice[#off]) << (q * #wi_l);
                }
                #w[g] = #so::from_bits(bits);
            }
        })
    }
}
