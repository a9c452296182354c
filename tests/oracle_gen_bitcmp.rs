//! Oracle test of the generated code for the bit ops (And Or Xor, the three shifts), every
//! comparison (the six directions in the default order and in total order, the `Compare` form
//! with attributes), Select (tensor predicate) and Clamp (tensor and literal bounds), on every
//! element type XLA allows them on, and the scalar `pred[]` predicate / `T[]` bounds on `T[33]`
//! (on `T[3, 33]` the macro panics today: a rank-0 parameter broadcast to rank 2; reported to the
//! lead). All are bit-exact. Binary ops come in every form of `common::binary_forms!`; comparisons on
//! `T[3, 33]`, with and without broadcast_dimensions and against a literal.
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_bitcmp`.

// The allocating `fn name(&Tensor..)` wrappers are not called here: the cases run the generated
// code through `name::run_literals` (which calls `name::into`).
#![allow(dead_code)]

mod common;

use common::{check_all, mix, random_arg, Case, Form, Gen, Tol};
use xla_aot::{Literal, Shape};
use xla_oracle::Dist;

/// Special values on both sides; for shifts also amounts around the bit width.
fn push_cases(v: &mut Vec<Case>, key: &str, form: Form, gen: Gen) {
    let comp = (gen.computation)();
    let ty = match comp.params.last() {
        Some(Shape::Array(a)) => a.ty,
        other => panic!("{}: unexpected parameter {other:?}", gen.name),
    };
    let mut pairs = vec![[Dist::Special, Dist::Special]];
    if key.starts_with("sh") {
        pairs.push([Dist::Any, Dist::Range(0.0, f64::from(ty.bit_width()) + 2.0)]);
    } else {
        pairs.push([Dist::Any, Dist::Any]);
    }
    for (j, [l, r]) in pairs.into_iter().enumerate() {
        let d = match form {
            Form::Pair => vec![l, r],
            Form::LitRight => vec![l],
            Form::LitLeft => vec![r],
        };
        v.push(Case::op(gen, key, ty, &d, 200 + j as u64));
    }
}

binary_forms! {
    and_p And "and" (true) => pred -> pred;
    or_p Or "or" (true) => pred -> pred;
    xor_p Xor "xor" (true) => pred -> pred;
    and And "and" (5) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64;
    or Or "or" (5) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64;
    xor Xor "xor" (5) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64;
    shl ShiftLeft "shl" (3) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8,
        u16 -> u16, u32 -> u32, u64 -> u64;
    shra ShiftRightArithmetic "shra" (3) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64,
        u8 -> u8, u16 -> u16, u32 -> u32, u64 -> u64;
    shrl ShiftRightLogical "shrl" (3) => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8,
        u16 -> u16, u32 -> u32, u64 -> u64;
}

/// Per `module Op (literal) => types;`: `ff(x, y)`, `bd(x: T[3,33], y: T[33])` and
/// `lit(x) = Op(x, literal)`, all to `pred[3, 33]`.
macro_rules! compares {
    ($( $m:ident $op:ident ($lit:tt) => $( $t:ident ),+ ; )*) => {
        $(
            mod $m {
                $(
                    #[allow(dead_code)]
                    pub mod $t {
                        xla_aot::xla! {
                            pub fn ff(x: $t[3, 33], y: $t[3, 33]) -> pred[3, 33] { $op(x, y) }
                            pub fn bd(x: $t[3, 33], y: $t[33]) -> pred[3, 33] {
                                $op(x, y, broadcast_dimensions = [1])
                            }
                            pub fn lit(x: $t[3, 33]) -> pred[3, 33] { $op(x, $lit) }
                        }
                    }
                )+
            }
        )*
        fn compare_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $( $(
                compare_case(&mut v, gen!(concat!(stringify!($op), "/", stringify!($t), "/ff"), $m::$t::ff));
                compare_case(&mut v, gen!(concat!(stringify!($op), "/", stringify!($t), "/bd"), $m::$t::bd));
                compare_case(&mut v, gen!(concat!(stringify!($op), "/", stringify!($t), "/lit"), $m::$t::lit));
            )+ )*
            v
        }
    };
}

/// Special values against a partly equal copy (every third element equal: EQ/GE/LE ties,
/// -0 vs +0, NaN vs NaN in total order).
fn compare_case(v: &mut Vec<Case>, gen: Gen) {
    let comp = (gen.computation)();
    let seed = v.len() as u64;
    let x = random_arg(&comp.params[0], seed, Dist::Special);
    let args = match comp.params.get(1) {
        None => vec![x],
        Some(s) => {
            let y = random_arg(s, seed + 1, Dist::Special);
            if s == &comp.params[0] {
                let y = mix(&y, &x);
                vec![x, y]
            } else {
                vec![x, y]
            }
        }
    };
    v.push(Case::new(gen, "special", args, Tol::Exact));
}

compares! {
    eq Eq (0) => s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128;
    ne Ne (0) => s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128;
    ge Ge (1) => s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64;
    gt Gt (1) => s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64;
    le Le (1) => s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64;
    lt Lt (1) => s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64;
    eq_p Eq (true) => pred;
    ne_p Ne (true) => pred;
    ge_p Ge (false) => pred;
    gt_p Gt (false) => pred;
    le_p Le (true) => pred;
    lt_p Lt (true) => pred;
    eq_t EqTotalOrder (0) => f16, bf16, f32, f64;
    ne_t NeTotalOrder (0) => f16, bf16, f32, f64;
    ge_t GeTotalOrder (0) => f16, bf16, f32, f64;
    gt_t GtTotalOrder (0) => f16, bf16, f32, f64;
    le_t LeTotalOrder (0) => f16, bf16, f32, f64;
    lt_t LtTotalOrder (0) => f16, bf16, f32, f64;
}

// The attribute form of Compare.
xla_aot::xla! {
    pub fn cmp_gt_total(x: f32[3, 33], y: f32[3, 33]) -> pred[3, 33] {
        Compare(x, y, direction = GT, comparison_type = TOTALORDER)
    }
    pub fn cmp_le_float(x: bf16[3, 33], y: bf16[33]) -> pred[3, 33] {
        Compare(x, y, direction = LE, comparison_type = FLOAT, broadcast_dimensions = [1])
    }
    pub fn cmp_lt_unsigned(x: u32[3, 33], y: u32[3, 33]) -> pred[3, 33] {
        Compare(x, y, direction = LT)
    }
    pub fn cmp_ne_total_f64(x: f64[3, 33], y: f64[3, 33]) -> pred[3, 33] {
        Compare(x, y, direction = NE, comparison_type = TOTALORDER)
    }
}

/// Select and Clamp per type: tensor predicate / bounds, literal bounds.
macro_rules! select_clamp {
    (select: $( $t:ident ),+ ; clamp: $( $c:ident ),+ ;) => {
        mod select {
            $(
                #[allow(dead_code)]
                pub mod $t {
                    xla_aot::xla! {
                        pub fn tensor(p: pred[3, 33], x: $t[3, 33], y: $t[3, 33]) -> $t[3, 33] {
                            Select(p, x, y)
                        }
                        pub fn scalar(p: pred[], x: $t[33], y: $t[33]) -> $t[33] {
                            Select(p, x, y)
                        }
                    }
                }
            )+
        }
        mod clamp {
            $(
                #[allow(dead_code)]
                pub mod $c {
                    xla_aot::xla! {
                        pub fn tensor(lo: $c[3, 33], x: $c[3, 33], hi: $c[3, 33]) -> $c[3, 33] {
                            Clamp(lo, x, hi)
                        }
                        pub fn scalar(lo: $c[], x: $c[33], hi: $c[]) -> $c[33] {
                            Clamp(lo, x, hi)
                        }
                        pub fn literal(x: $c[3, 33]) -> $c[3, 33] {
                            Clamp(1, x, 5)
                        }
                    }
                }
            )+
        }
        fn select_clamp_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                v.push(Case::random(gen!(concat!("select/", stringify!($t), "/tensor"), select::$t::tensor), &[Dist::Any, Dist::Special], 1, Tol::Exact));
                scalar_select_cases(&mut v, gen!(concat!("select/", stringify!($t), "/scalar"), select::$t::scalar));
            )+
            $(
                v.push(Case::random(gen!(concat!("clamp/", stringify!($c), "/tensor"), clamp::$c::tensor), &[Dist::Special], 3, Tol::Exact));
                v.push(Case::random(gen!(concat!("clamp/", stringify!($c), "/scalar"), clamp::$c::scalar), &[Dist::Range(-3.0, 2.0), Dist::Special, Dist::Range(0.0, 7.0)], 4, Tol::Exact));
                v.push(Case::random(gen!(concat!("clamp/", stringify!($c), "/literal"), clamp::$c::literal), &[Dist::Special], 6, Tol::Exact));
            )+
            v
        }
    };
}

/// Both values of the scalar predicate.
fn scalar_select_cases(v: &mut Vec<Case>, gen: Gen) {
    let comp = (gen.computation)();
    for p in [true, false] {
        let x = random_arg(&comp.params[1], 21, Dist::Special);
        let y = random_arg(&comp.params[2], 22, Dist::Special);
        v.push(Case::new(
            gen,
            &format!("pred={p}"),
            vec![Literal::scalar(p), x, y],
            Tol::Exact,
        ));
    }
}

select_clamp! {
    select: pred, s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128;
    clamp: s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64;
}

fn misc_cases() -> Vec<Case> {
    let special = |gen: Gen| {
        let comp = (gen.computation)();
        let x = random_arg(&comp.params[0], 11, Dist::Special);
        let y = random_arg(&comp.params[1], 12, Dist::Special);
        let y = if comp.params[0] == comp.params[1] {
            mix(&y, &x)
        } else {
            y
        };
        Case::new(gen, "special", vec![x, y], Tol::Exact)
    };
    vec![
        special(gen!("compare/GT/TOTALORDER/f32", cmp_gt_total)),
        special(gen!("compare/LE/FLOAT/bd/bf16", cmp_le_float)),
        special(gen!("compare/LT/u32", cmp_lt_unsigned)),
        special(gen!("compare/NE/TOTALORDER/f64", cmp_ne_total_f64)),
    ]
}

#[test]
fn generated_bit_ops_comparisons_select_clamp_match_xla() {
    let mut v = cases();
    v.extend(compare_cases());
    v.extend(select_clamp_cases());
    v.extend(misc_cases());
    check_all("generated bit ops, comparisons, select, clamp", v);
}
