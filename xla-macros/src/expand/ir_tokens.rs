//! The checked IR as Rust expressions, so a generated module can rebuild its `Computation` at
//! run time (for the evaluator, StableHLO export and harnesses) exactly as the macro saw it.
//! Every IR type has public fields; sub-computations become `Arc::new(..)`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use xla_core::{ArrayShape, Computation, ElementType, Literal, Op, Shape};

use super::codegen_rt::element;

const CORE: &str = "::xla_aot::__rt::xla_core";

fn core() -> TokenStream {
    CORE.parse().unwrap_or_default()
}

fn i64s(v: &[i64]) -> TokenStream {
    let l = v.iter().map(|&x| proc_macro2::Literal::i64_suffixed(x));
    quote!(vec![#(#l),*])
}

fn element_type(t: ElementType) -> TokenStream {
    let c = core();
    let v = format_ident!("{}", format!("{t:?}"));
    quote!(#c::ElementType::#v)
}

fn array_shape(a: &ArrayShape) -> TokenStream {
    let c = core();
    let ty = element_type(a.ty);
    let dims = i64s(&a.dims);
    let dynamic = a
        .dynamic
        .iter()
        .map(|&b| if b { quote!(true) } else { quote!(false) });
    let layout = match &a.layout {
        None => quote!(::core::option::Option::None),
        Some(l) => {
            let m = i64s(&l.minor_to_major);
            let p = match &l.padded_dimensions {
                None => quote!(::core::option::Option::None),
                Some(p) => {
                    let p = i64s(p);
                    quote!(::core::option::Option::Some(#p))
                }
            };
            quote!(::core::option::Option::Some(#c::Layout { minor_to_major: #m, padded_dimensions: #p }))
        }
    };
    quote!(#c::ArrayShape { ty: #ty, dims: #dims, dynamic: vec![#(#dynamic),*], layout: #layout })
}

/// A `Shape` as an expression building it.
pub(crate) fn shape(s: &Shape) -> TokenStream {
    let c = core();
    match s {
        Shape::Array(a) => {
            let a = array_shape(a);
            quote!(#c::Shape::Array(#a))
        }
        Shape::Tuple(ts) => {
            let e = ts.iter().map(shape);
            quote!(#c::Shape::Tuple(vec![#(#e),*]))
        }
        Shape::Token => quote!(#c::Shape::Token),
    }
}

fn literal(l: &Literal) -> TokenStream {
    let c = core();
    match l {
        Literal::Array { shape: s, data } => {
            let sh = array_shape(s);
            let v = format_ident!("{}", format!("{:?}", data.element_type()));
            let elems = (0..data.len()).map(|i| element(l, i));
            quote!(#c::Literal::Array { shape: #sh, data: #c::ArrayData::#v(vec![#(#elems),*]) })
        }
        Literal::Tuple(ts) => {
            let e = ts.iter().map(literal);
            quote!(#c::Literal::Tuple(vec![#(#e),*]))
        }
        Literal::Token => quote!(#c::Literal::Token),
    }
}

fn op(o: &Op) -> TokenStream {
    let c = core();
    match o {
        Op::Parameter { index, name } => {
            let i = proc_macro2::Literal::usize_suffixed(*index);
            quote!(#c::Op::Parameter { index: #i, name: ::std::string::String::from(#name) })
        }
        Op::Constant(l) => {
            let l = literal(l);
            quote!(#c::Op::Constant(#l))
        }
        Op::Iota { dimension } => {
            let d = proc_macro2::Literal::usize_suffixed(*dimension);
            quote!(#c::Op::Iota { dimension: #d })
        }
        Op::Unary(u) => {
            let v = format_ident!("{}", format!("{u:?}"));
            quote!(#c::Op::Unary(#c::UnaryOp::#v))
        }
        Op::Binary(b) => {
            let v = format_ident!("{}", format!("{b:?}"));
            quote!(#c::Op::Binary(#c::BinaryOp::#v))
        }
        Op::Compare {
            direction,
            total_order,
        } => {
            let v = format_ident!("{}", format!("{direction:?}"));
            quote!(#c::Op::Compare { direction: #c::ComparisonDirection::#v, total_order: #total_order })
        }
        Op::Select => quote!(#c::Op::Select),
        Op::Clamp => quote!(#c::Op::Clamp),
        Op::ConvertElementType => quote!(#c::Op::ConvertElementType),
        Op::BitcastConvertType => quote!(#c::Op::BitcastConvertType),
        Op::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => {
            quote!(#c::Op::ReducePrecision { exponent_bits: #exponent_bits, mantissa_bits: #mantissa_bits })
        }
        Op::BroadcastInDim {
            broadcast_dimensions,
        } => {
            let d = i64s(broadcast_dimensions);
            quote!(#c::Op::BroadcastInDim { broadcast_dimensions: #d })
        }
        Op::Reshape => quote!(#c::Op::Reshape),
        Op::Transpose { permutation } => {
            let p = i64s(permutation);
            quote!(#c::Op::Transpose { permutation: #p })
        }
        Op::Reduce {
            dimensions,
            computation,
        } => {
            let d = i64s(dimensions);
            let sub = computation_tokens(computation);
            quote!(#c::Op::Reduce { dimensions: #d, computation: ::std::sync::Arc::new(#sub) })
        }
        Op::DotGeneral {
            dimension_numbers: dn,
            preferred_element_type,
        } => {
            let (lc, rc) = (
                i64s(&dn.lhs_contracting_dimensions),
                i64s(&dn.rhs_contracting_dimensions),
            );
            let (lb, rb) = (
                i64s(&dn.lhs_batch_dimensions),
                i64s(&dn.rhs_batch_dimensions),
            );
            let p = match preferred_element_type {
                None => quote!(::core::option::Option::None),
                Some(t) => {
                    let t = element_type(*t);
                    quote!(::core::option::Option::Some(#t))
                }
            };
            quote!(#c::Op::DotGeneral {
                dimension_numbers: #c::DotDimensionNumbers {
                    lhs_contracting_dimensions: #lc,
                    rhs_contracting_dimensions: #rc,
                    lhs_batch_dimensions: #lb,
                    rhs_batch_dimensions: #rb,
                },
                preferred_element_type: #p,
            })
        }
        Op::Tuple => quote!(#c::Op::Tuple),
        Op::GetTupleElement { index } => {
            let i = proc_macro2::Literal::usize_suffixed(*index);
            quote!(#c::Op::GetTupleElement { index: #i })
        }
        Op::Call { computation } => {
            let sub = computation_tokens(computation);
            quote!(#c::Op::Call { computation: ::std::sync::Arc::new(#sub) })
        }
    }
}

/// An expression of type `xla_core::Computation` equal to `comp`.
pub(crate) fn computation_tokens(comp: &Computation) -> TokenStream {
    let c = core();
    let name = &comp.name;
    let params = comp.params.iter().map(shape);
    let instrs = comp.instrs.iter().map(|i| {
        let o = op(&i.op);
        let operands = i.operands.iter().map(|x| {
            let l = proc_macro2::Literal::u32_suffixed(x.0);
            quote!(#c::InstrId(#l))
        });
        let s = shape(&i.shape);
        quote!(#c::Instruction {
            op: #o,
            operands: vec![#(#operands),*],
            shape: #s,
        })
    });
    let root = proc_macro2::Literal::u32_suffixed(comp.root.0);
    quote!(#c::Computation {
        name: ::std::string::String::from(#name),
        params: vec![#(#params),*],
        instrs: vec![#(#instrs),*],
        root: #c::InstrId(#root),
    })
}
