//! Oracle test of the generated code for every unary elementwise op on every element type XLA
//! allows it on: one `xla!` fn per (op, type) on `T[3, 33]` (99 elements: vector body plus a
//! scalar tail), run through the generated code, the evaluator and XLA:CPU on deterministic
//! inputs (typical range and special values) and compared (see `common`). Exact unless the op
//! has an ulp bound in `xla_oracle::bounds` (`ULP_BOUNDS`, `GEN_ULP_BOUNDS`).
//!
//! Run: `cargo test -p xla-aot --test oracle_gen_unary` (the oracle venv: `bash oracle/setup.sh`).

// The allocating `fn name(&Tensor..)` wrappers are not called here: the cases run the generated
// code through `name::run_literals` (which calls `name::into`).
#![allow(dead_code)]

mod common;

use common::{check_all, eval_bound, gen_bound, Case, Gen};
use xla_aot::core::ElementType;
use xla_oracle::Dist;

/// Input ranges: any values, and the special ones (0, -0, ±inf, NaN, ±max, ±1).
const ANY: &[Dist] = &[Dist::Any, Dist::Special];

/// Stamps out, per `op_module Op "key" [dists]: type -> result_type, ...;`, a module `op_module`
/// with one submodule per input type holding `fn f(x: T[3, 33]) -> R[3, 33] { Op(x) }`, and
/// `fn cases()` listing every (op, type, dist) case.
macro_rules! unary_ops {
    ($( $m:ident $op:ident $key:literal $dists:expr => $( $t:ident -> $r:ident ),+ ; )*) => {
        $(
            mod $m {
                #[allow(unused_imports)]
                use super::{Dist, ANY};
                pub const KEY: &str = $key;
                pub const DISTS: &[Dist] = $dists;
                $(
                    #[allow(dead_code)]
                    pub mod $t {
                        xla_aot::xla! {
                            pub fn f(x: $t[3, 33]) -> $r[3, 33] {
                                $op(x)
                            }
                        }
                    }
                )+
            }
        )*
        fn cases() -> Vec<Case> {
            let mut v = Vec::new();
            $( $(
                push_cases(
                    &mut v,
                    gen!(concat!($key, "/", stringify!($t)), $m::$t::f),
                    $m::KEY,
                    $m::DISTS,
                );
            )+ )*
            v
        }
    };
}

/// One case per input distribution, special values included for complex too (ours follows
/// XLA's complex formulas; `tests/oracle_complex_special.rs` sweeps them exhaustively).
fn push_cases(v: &mut Vec<Case>, gen: Gen, key: &str, dists: &[Dist]) {
    let comp = (gen.computation)();
    let ty = match comp.params.first() {
        Some(xla_aot::Shape::Array(a)) => a.ty,
        other => panic!("{}: unexpected parameter {other:?}", gen.name),
    };
    for (j, d) in dists.iter().enumerate() {
        let mut c = Case::random(gen, &[*d], 7 + j as u64, eval_bound(key, ty));
        c.gen_tol = gen_bound(key, ty);
        v.push(c);
    }
}

unary_ops! {
    abs Abs "abs" ANY => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64, c64 -> f32, c128 -> f64;
    cbrt Cbrt "cbrt" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64;
    ceil Ceil "ceil" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64;
    clz Clz "clz" ANY => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64;
    cos Cos "cos" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
    cosh Cosh "cosh" &[Dist::Range(-5.0, 5.0), Dist::Special] => f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64;
    erf Erf "erf" &[Dist::Range(-4.0, 4.0), Dist::Special] => f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64;
    exp Exp "exp" &[Dist::Range(-5.0, 5.0), Dist::Special] => f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64, c64 -> c64, c128 -> c128;
    expm1 Expm1 "expm1" &[Dist::Range(-2.0, 2.0), Dist::Special] => f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64, c64 -> c64, c128 -> c128;
    floor Floor "floor" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64;
    imag Imag "imag" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> f32,
        c128 -> f64;
    is_finite IsFinite "is_finite" ANY => f16 -> pred, bf16 -> pred, f32 -> pred, f64 -> pred;
    log Log "log" &[Dist::Range(0.001, 1000.0), Dist::Special] => f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64, c64 -> c64, c128 -> c128;
    log1p Log1p "log1p" &[Dist::Range(-0.9, 100.0), Dist::Special] => f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64, c64 -> c64, c128 -> c128;
    logistic Logistic "logistic" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64,
        c64 -> c64, c128 -> c128;
    neg Neg "neg" ANY => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8, u16 -> u16,
        u32 -> u32, u64 -> u64, f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
    not Not "not" ANY => pred -> pred, s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, u8 -> u8,
        u16 -> u16, u32 -> u32, u64 -> u64;
    popcnt PopulationCount "popcnt" ANY => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64,
        u8 -> u8, u16 -> u16, u32 -> u32, u64 -> u64;
    real Real "real" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> f32,
        c128 -> f64;
    round_afz RoundNearestAfz "round_afz" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32,
        f64 -> f64;
    round_even RoundNearestEven "round_even" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32,
        f64 -> f64;
    rsqrt Rsqrt "rsqrt" &[Dist::Range(0.001, 1000.0), Dist::Special] => f16 -> f16,
        bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64, c128 -> c128;
    sign Sign "sign" ANY => s8 -> s8, s16 -> s16, s32 -> s32, s64 -> s64, f16 -> f16,
        bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64, c128 -> c128;
    sin Sin "sin" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
    sqrt Sqrt "sqrt" &[Dist::Range(0.0, 1000.0), Dist::Special] => f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64, c64 -> c64, c128 -> c128;
    tan Tan "tan" &[Dist::Range(-1.5, 1.5), Dist::Special] => f16 -> f16, bf16 -> bf16,
        f32 -> f32, f64 -> f64, c64 -> c64, c128 -> c128;
    tanh Tanh "tanh" ANY => f16 -> f16, bf16 -> bf16, f32 -> f32, f64 -> f64, c64 -> c64,
        c128 -> c128;
}

// Other sizes of the vectorised f32/f64 functions: a single element (no vector body at all), a
// vector and a tail, an exact number of vectors.
xla_aot::xla! {
    pub fn exp_1(x: f32[1]) -> f32[1] { Exp(x) }
    pub fn tanh_17(x: f32[17]) -> f32[17] { Tanh(x) }
    pub fn log_64(x: f32[64]) -> f32[64] { Log(x) }
    pub fn logistic_100(x: f64[100]) -> f64[100] { Logistic(x) }
    pub fn scalar_sqrt(x: f32[]) -> f32[] { Sqrt(x) }
}

fn size_cases() -> Vec<Case> {
    let t = |op: &str, ty| (eval_bound(op, ty), gen_bound(op, ty));
    let mut v = Vec::new();
    let mut push = |gen: Gen, key: &str, ty: ElementType, d: Dist| {
        let (e, g) = t(key, ty);
        let mut c = Case::random(gen, &[d], 3, e);
        c.gen_tol = g;
        v.push(c);
    };
    use ElementType::{F32, F64};
    push(
        gen!("exp/f32[1]", exp_1),
        "exp",
        F32,
        Dist::Range(-5.0, 5.0),
    );
    push(gen!("tanh/f32[17]", tanh_17), "tanh", F32, Dist::Special);
    push(
        gen!("log/f32[64]", log_64),
        "log",
        F32,
        Dist::Range(0.001, 1000.0),
    );
    push(
        gen!("logistic/f64[100]", logistic_100),
        "logistic",
        F64,
        Dist::Special,
    );
    push(
        gen!("sqrt/f32[]", scalar_sqrt),
        "sqrt",
        F32,
        Dist::Range(0.0, 100.0),
    );
    v
}

#[test]
fn generated_unary_ops_match_xla() {
    let mut v = cases();
    v.extend(size_cases());
    check_all("generated unary ops", v);
}

/// The bounds come from the one table in tests/oracle_eval.rs: it must be found and read (an
/// empty parse would silently make every transcendental case exact, and fail for that reason).
#[test]
fn the_shared_ulp_table_is_read() {
    use xla_aot::core::ElementType::{F32, S32};
    assert!(matches!(eval_bound("exp", F32), common::Tol::Ulp(n) if n > 0));
    assert_eq!(eval_bound("add", F32), common::Tol::Exact);
    assert_eq!(eval_bound("exp", S32), common::Tol::Exact);
    assert!(matches!(gen_bound("logistic", F32), common::Tol::Ulp(n) if n >= 2));
}
