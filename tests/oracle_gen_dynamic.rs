//! Oracle test of the generated code for DynamicSlice (a view whose origin is read when its
//! kernel starts) and DynamicUpdateSlice (a kernel, in place when its operand dies there): on
//! every element type, start types s8..u64, starts in range, negative and too large (clamped
//! into `[0, dim - size]`), a box of whole rows, a box fused under Rev and Transpose, updates
//! into a parameter (copied), into a stored value in the output (in place) and into a scratch
//! value read again (in place), then f32 programs: a box fused into an elementwise loop, a
//! computed start, and a While loop writing one row per step. Each case runs the generated
//! code, the evaluator and XLA:CPU.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_dynamic`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::{ElementType, Literal, Shape};
use xla_oracle::{index_literal, Dist};

/// Per type: three slices and three updates (see the module docs).
macro_rules! per_type {
    ($($t:ident),+) => {
        mod typed {
            $(
                pub mod $t {
                    xla_aot::xla! {
                        pub fn slice_rows(x: $t[6, 4], i: s32[], j: s32[]) -> $t[2, 4] {
                            DynamicSlice(x, i, j, slice_sizes = [2, 4])
                        }
                        pub fn slice_box(x: $t[5, 6], i: u8[], j: u8[]) -> $t[3, 2] {
                            Rev(DynamicSlice(x, i, j, slice_sizes = [3, 2]), dimensions = [0])
                        }
                        pub fn slice_t(x: $t[4, 5, 3], i: s16[], j: s16[], k: s16[]) -> $t[3, 2, 2] {
                            Transpose(DynamicSlice(x, i, j, k, slice_sizes = [2, 2, 3]),
                                permutation = [2, 0, 1])
                        }
                        pub fn update(x: $t[5, 6], u: $t[2, 3], i: s64[], j: s64[]) -> $t[5, 6] {
                            DynamicUpdateSlice(x, u, i, j)
                        }
                        pub fn update_stored(x: $t[5, 6], u: $t[2, 3], i: u16[], j: u16[]) -> $t[5, 6] {
                            DynamicUpdateSlice(Rev(x, dimensions = [1]), u, i, j)
                        }
                        pub fn update_scratch(x: $t[5, 6], u: $t[5, 1], i: s8[], j: s8[]) -> $t[5, 6] {
                            Rev(DynamicUpdateSlice(Rev(x, dimensions = [1]), u, i, j), dimensions = [0])
                        }
                    }
                }
            )+
        }

        fn typed_cases() -> Vec<Case> {
            use ElementType::*;
            let mut v = Vec::new();
            $(
                // (start values, label): in range, negative, too large.
                let sets: [(&[i64], &str); 3] = [(&[1, 2, 1], "in"), (&[-3, -1, -9], "neg"), (&[9, 100, 4], "big")];
                for (k, (s, label)) in sets.into_iter().enumerate() {
                    let seed = 10 * k as u64;
                    let mut push = |g: common::Gen, first: usize, ty: ElementType| {
                        let mut args = common::args_with(g, |i, a| {
                            common::random_arg(&Shape::Array(a.clone()), seed + i as u64, Dist::Any)
                        });
                        for d in 0..args.len() - first {
                            // Unsigned starts take 200 for a negative one (too large instead).
                            let x = if s[d] < 0 && !ty.is_signed_int() { 200 } else { s[d] };
                            args[first + d] = index_literal(ty, &[], &[x]);
                        }
                        v.push(Case::new(g, label, args, Tol::Exact));
                    };
                    push(gen!(concat!("slice_rows/", stringify!($t)), typed::$t::slice_rows), 1, S32);
                    push(gen!(concat!("slice_box/", stringify!($t)), typed::$t::slice_box), 1, U8);
                    push(gen!(concat!("slice_t/", stringify!($t)), typed::$t::slice_t), 1, S16);
                    push(gen!(concat!("update/", stringify!($t)), typed::$t::update), 2, S64);
                    push(gen!(concat!("update_stored/", stringify!($t)), typed::$t::update_stored), 2, U16);
                    push(gen!(concat!("update_scratch/", stringify!($t)), typed::$t::update_scratch), 2, S8);
                }
            )+
            v
        }
    };
}

per_type!(pred, s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128);

xla_aot::xla! {
    /// A box of a wide array added to another array: one vector loop reading the box.
    pub fn slice_add(x: f32[64, 40], y: f32[16, 32], i: s32[], j: s32[]) -> f32[16, 32] {
        Add(DynamicSlice(x, i, j, slice_sizes = [16, 32]), y)
    }
    /// Computed starts (stored before the loop reads them) and a box of a computed operand.
    pub fn slice_computed(x: f32[10, 12], i: s32[]) -> f32[3, 4] {
        DynamicSlice(Neg(x), Add(i, 2i32), Mul(i, 3i32), slice_sizes = [3, 4])
    }
    /// u32 and u64 starts (the two index types the per-type programs leave out).
    pub fn wide_starts(x: s32[5, 6], u: s32[2, 2], i: u32[], j: u32[], k: u64[], l: u64[])
        -> (s32[2, 3], s32[5, 6]) {
        Tuple(DynamicSlice(x, i, j, slice_sizes = [2, 3]), DynamicUpdateSlice(x, u, k, l))
    }
    /// A scalar operand: no starts.
    pub fn slice_scalar(x: f64[]) -> f64[] {
        DynamicSlice(x, slice_sizes = [])
    }
    /// Row i of the state set to 2 * row i of x, for i in 0..16: one row written per step.
    pub fn rows_loop(x: f32[16, 8]) -> f32[16, 8] {
        let s = While(
            |s| Lt(s.0, 16i32),
            |s| {
                let row = DynamicSlice(s.2, s.0, 0i32, slice_sizes = [1, 8]);
                Tuple(Add(s.0, 1i32), DynamicUpdateSlice(s.1, Add(row, row), s.0, 0i32), s.2)
            },
            Tuple(0i32, Broadcast(0.0f32, broadcast_sizes = [16, 8]), x));
        s.1
    }
}

#[test]
fn generated_dynamic_slices_on_every_type_match_xla() {
    check_all("generated dynamic slices per type", typed_cases());
}

#[test]
fn generated_dynamic_slice_programs_match_xla() {
    let mut v = Vec::new();
    for (i, j) in [(3i32, 5i32), (-4, 100), (60, -1), (48, 8)] {
        let g = gen!("slice_add", slice_add);
        let mut args = common::args_with(g, |k, a| {
            common::random_arg(&Shape::Array(a.clone()), 50 + k as u64, Dist::Any)
        });
        args[2] = Literal::scalar(i);
        args[3] = Literal::scalar(j);
        v.push(Case::new(g, &format!("{i},{j}"), args, Tol::Exact));
    }
    for i in [-5i32, 0, 2, 7] {
        let g = gen!("slice_computed", slice_computed);
        let mut args = common::args_with(g, |k, a| {
            common::random_arg(
                &Shape::Array(a.clone()),
                60 + k as u64,
                Dist::Range(-2.0, 2.0),
            )
        });
        args[1] = Literal::scalar(i);
        v.push(Case::new(g, &format!("{i}"), args, Tol::Exact));
    }
    for (a, b) in [(1i64, 2i64), (4_000_000_000, 0), (0, 3), (7, 9)] {
        let g = gen!("wide_starts", wide_starts);
        let mut args = common::args_with(g, |k, a| {
            common::random_arg(&Shape::Array(a.clone()), 80 + k as u64, Dist::Any)
        });
        args[2] = index_literal(ElementType::U32, &[], &[a]);
        args[3] = index_literal(ElementType::U32, &[], &[b]);
        args[4] = index_literal(ElementType::U64, &[], &[b]);
        args[5] = index_literal(ElementType::U64, &[], &[a]);
        v.push(Case::new(g, &format!("{a},{b}"), args, Tol::Exact));
    }
    let g = gen!("slice_scalar", slice_scalar);
    v.push(Case::new(g, "x", vec![Literal::scalar(1.5f64)], Tol::Exact));
    let g = gen!("rows_loop", rows_loop);
    let args = common::args_with(g, |k, a| {
        common::random_arg(&Shape::Array(a.clone()), 70 + k as u64, Dist::Any)
    });
    v.push(Case::new(g, "x", args, Tol::Exact));
    check_all("generated dynamic slice programs", v);
}
