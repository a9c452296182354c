//! Oracle test of the generated code for the view ops, all bit-exact: Rev, Slice, Pad (edge
//! padding, negative too, and interior padding) and ConcatInDim, alone and fused with elementwise ops, broadcasts
//! and transposes (no intermediate buffer: each folds into the consumer's loop as an index
//! map with offsets, negative strides and guards), on every element type. Each case runs the
//! generated code, the evaluator and XLA:CPU.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_views`.

// The allocating `fn name(&Tensor..)` wrappers are not called here: the cases run the generated
// code through `name::run_literals`.
#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_oracle::Dist;

/// Per type: every view op, plain and fused.
macro_rules! views {
    ($( $t:ident ),+ ; float: $( $f:ident ),+ ;) => {
        mod plain {
            $(
                pub mod $t {
                    xla_aot::xla! {
                        pub fn rev_both(x: $t[5, 37]) -> $t[5, 37] {
                            Rev(x, dimensions = [0, 1])
                        }
                        pub fn rev_outer(x: $t[4, 3, 6]) -> $t[4, 3, 6] {
                            Rev(x, dimensions = [1])
                        }
                        pub fn slice_strided(x: $t[9, 40]) -> $t[3, 12] {
                            Slice(x, start_indices = [1, 3], limit_indices = [9, 39], strides = [3, 3])
                        }
                        pub fn slice_box(x: $t[9, 40]) -> $t[4, 33] {
                            Slice(x, start_indices = [2, 5], limit_indices = [6, 38])
                        }
                        pub fn slice_empty(x: $t[9, 40]) -> $t[0, 40] {
                            Slice(x, start_indices = [4, 0], limit_indices = [4, 40])
                        }
                        pub fn pad_edges(x: $t[3, 17], v: $t[]) -> $t[6, 21] {
                            Pad(x, v, padding_config = [[1, 2, 0], [3, 1, 0]])
                        }
                        pub fn pad_negative(x: $t[6, 17], v: $t[]) -> $t[4, 19] {
                            Pad(x, v, padding_config = [[-2, 0, 0], [4, -2, 0]])
                        }
                        pub fn pad_interior(x: $t[3, 4], v: $t[]) -> $t[7, 8] {
                            Pad(x, v, padding_config = [[1, -1, 2], [0, 1, 1]])
                        }
                        pub fn pad_interior_negative(x: $t[5], v: $t[]) -> $t[6] {
                            Pad(x, v, padding_config = [[-2, -1, 1]])
                        }
                        pub fn pad_scalar_operand(x: $t[], v: $t[]) -> $t[3] {
                            Pad(Reshape(x, new_sizes = [1]), v, padding_config = [[1, 1, 0]])
                        }
                        pub fn concat_outer(a: $t[2, 19], b: $t[3, 19], c: $t[1, 19]) -> $t[6, 19] {
                            ConcatInDim(a, b, c, dimension = 0)
                        }
                        pub fn concat_inner(a: $t[4, 5], b: $t[4, 0], c: $t[4, 30]) -> $t[4, 35] {
                            ConcatInDim(a, b, c, dimension = 1)
                        }
                        pub fn concat_of_views(x: $t[4, 6]) -> $t[4, 12] {
                            ConcatInDim(Rev(x, dimensions = [1]), x, dimension = 1)
                        }
                        pub fn views_of_views(x: $t[8, 10], v: $t[]) -> $t[5, 8] {
                            let t = Transpose(Rev(x, dimensions = [0]), permutation = [1, 0]);
                            let s = Slice(t, start_indices = [1, 0], limit_indices = [10, 8], strides = [2, 1]);
                            Pad(s, v, padding_config = [[0, 0, 0], [1, -1, 0]])
                        }
                        pub fn broadcast_then_slice(x: $t[7]) -> $t[3, 5] {
                            Slice(Broadcast(x, broadcast_sizes = [4]), start_indices = [1, 2], limit_indices = [4, 7])
                        }
                    }
                }
            )+
        }
        mod fused {
            $(
                pub mod $f {
                    xla_aot::xla! {
                        /// Vector path: the reversed read runs along the innermost dim.
                        pub fn add_rev(x: $f[3, 37]) -> $f[3, 37] {
                            Add(x, Rev(x, dimensions = [1]))
                        }
                        pub fn exp_of_slice(x: $f[6, 40]) -> $f[3, 36] {
                            Exp(Slice(x, start_indices = [0, 4], limit_indices = [6, 40], strides = [2, 1]))
                        }
                        /// Padding of a computed value: the guard selects whole rows.
                        pub fn pad_rows_of_tanh(x: $f[3, 33]) -> $f[6, 33] {
                            Pad(Tanh(x), 0.0, padding_config = [[2, 1, 0], [0, 0, 0]])
                        }
                        pub fn pad_cols_of_mul(x: $f[3, 33], y: $f[3, 33]) -> $f[3, 40] {
                            Pad(Mul(x, y), 1.0, padding_config = [[0, 0, 0], [4, 3, 0]])
                        }
                        pub fn concat_then_sum(x: $f[4, 9], y: $f[4, 7]) -> $f[4] {
                            Reduce(ConcatInDim(Mul(x, x), y, dimension = 1), 0.0, dimensions = [1], |a, b| a + b)
                        }
                        pub fn slice_into_dot(x: $f[6, 8], w: $f[8, 5]) -> $f[3, 5] {
                            Dot(Slice(x, start_indices = [1, 0], limit_indices = [6, 8], strides = [2, 1]), w)
                        }
                    }
                }
            )+
        }
        fn view_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                let gens = [
                    gen!(concat!("rev_both/", stringify!($t)), plain::$t::rev_both),
                    gen!(concat!("rev_outer/", stringify!($t)), plain::$t::rev_outer),
                    gen!(concat!("slice_strided/", stringify!($t)), plain::$t::slice_strided),
                    gen!(concat!("slice_box/", stringify!($t)), plain::$t::slice_box),
                    gen!(concat!("slice_empty/", stringify!($t)), plain::$t::slice_empty),
                    gen!(concat!("pad_edges/", stringify!($t)), plain::$t::pad_edges),
                    gen!(concat!("pad_negative/", stringify!($t)), plain::$t::pad_negative),
                    gen!(concat!("pad_scalar_operand/", stringify!($t)), plain::$t::pad_scalar_operand),
                    gen!(concat!("pad_interior/", stringify!($t)), plain::$t::pad_interior),
                    gen!(concat!("pad_interior_negative/", stringify!($t)), plain::$t::pad_interior_negative),
                    gen!(concat!("concat_outer/", stringify!($t)), plain::$t::concat_outer),
                    gen!(concat!("concat_inner/", stringify!($t)), plain::$t::concat_inner),
                    gen!(concat!("concat_of_views/", stringify!($t)), plain::$t::concat_of_views),
                    gen!(concat!("views_of_views/", stringify!($t)), plain::$t::views_of_views),
                    gen!(concat!("broadcast_then_slice/", stringify!($t)), plain::$t::broadcast_then_slice),
                ];
                for g in gens {
                    v.push(Case::random(g, &[Dist::Any], 11, Tol::Exact));
                }
            )+
            $(
                let exact = [
                    gen!(concat!("add_rev/", stringify!($f)), fused::$f::add_rev),
                    gen!(concat!("pad_cols_of_mul/", stringify!($f)), fused::$f::pad_cols_of_mul),
                ];
                for g in exact {
                    v.push(Case::random(g, &[Dist::Any], 12, Tol::Exact));
                }
                let ty = xla_aot::core::ElementType::from_name(stringify!($f)).expect("a type name");
                let exp = gen!(concat!("exp_of_slice/", stringify!($f)), fused::$f::exp_of_slice);
                v.push(Case::op(exp, "exp", ty, &[Dist::Range(-20.0, 20.0)], 13));
                let tanh = gen!(concat!("pad_rows_of_tanh/", stringify!($f)), fused::$f::pad_rows_of_tanh);
                v.push(Case::op(tanh, "tanh", ty, &[Dist::Range(-5.0, 5.0)], 14));
                let sum = gen!(concat!("concat_then_sum/", stringify!($f)), fused::$f::concat_then_sum);
                v.push(Case::random(sum, &[Dist::Any], 15, common::reduce_tol(ty)));
                // Small integers: every product and sum is exact, so the GEMM must match XLA's bits.
                let dot = gen!(concat!("slice_into_dot/", stringify!($f)), fused::$f::slice_into_dot);
                let args = common::args_with(dot, |i, a| common::int_valued(a.ty, &a.dims, 16 + i as u64, 4.0));
                v.push(Case::new(dot, "ints", args, Tol::Exact));
            )+
            v
        }
    };
}

views! {
    pred, s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128;
    float: f32, f64;
}

#[test]
fn generated_views_match_xla() {
    check_all("generated view ops", view_cases());
}
