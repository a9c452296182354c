//! The generator's knowledge of XLA's rules: which element types each op takes, and the
//! [`Info`] of an op's result (the bound it is checked with), or None when an operand may not
//! feed it.

use xla_aot::core::{BinaryOp, ElementType, UnaryOp};
use xla_oracle::Tolerance;
use ElementType::*;

use super::gen::{exact_limit, fin, int_max, is_floaty, precision, Info};

/// The generated code's ulp bound for op `key` on `ty` (`xla_oracle::bounds`; 0: exact).
pub fn bound(key: &str, ty: ElementType) -> u64 {
    match xla_oracle::bounds::gen_bound(key, ty) {
        Tolerance::Ulp(n) => n,
        _ => 0,
    }
}

/// The larger of two optional magnitudes (None: unknown).
pub fn max_mag(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(a?.max(b?))
}

/// `f(a, b)` when both are known.
pub fn mag2(a: Option<f64>, b: Option<f64>, f: impl Fn(f64, f64) -> f64) -> Option<f64> {
    Some(f(a?, b?))
}

/// An integer magnitude after an op that may wrap: unknown past the type's range.
pub fn wrap(m: Option<f64>, ty: ElementType) -> Option<f64> {
    m.filter(|&m| m <= int_max(ty))
}

pub const UNARY: [UnaryOp; 24] = [
    UnaryOp::Abs,
    UnaryOp::Neg,
    UnaryOp::Sign,
    UnaryOp::Not,
    UnaryOp::Floor,
    UnaryOp::Ceil,
    UnaryOp::RoundNearestAfz,
    UnaryOp::RoundNearestEven,
    UnaryOp::IsFinite,
    UnaryOp::Clz,
    UnaryOp::PopulationCount,
    UnaryOp::Real,
    UnaryOp::Imag,
    UnaryOp::Exp,
    UnaryOp::Expm1,
    UnaryOp::Log,
    UnaryOp::Log1p,
    UnaryOp::Sqrt,
    UnaryOp::Rsqrt,
    UnaryOp::Cbrt,
    UnaryOp::Sin,
    UnaryOp::Cos,
    UnaryOp::Tanh,
    UnaryOp::Logistic,
];

/// XLA's element types of a one-operand op (Cbrt and Erf: reals only on XLA:CPU).
pub fn unary_takes(op: UnaryOp, t: ElementType) -> bool {
    let signed = t.is_signed_int() || t.is_float() || t.is_complex();
    match op {
        UnaryOp::Abs | UnaryOp::Sign => signed,
        UnaryOp::Neg => t != Pred,
        UnaryOp::Not => t == Pred || t.is_integral(),
        UnaryOp::Clz | UnaryOp::PopulationCount => t.is_integral(),
        UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::RoundNearestAfz
        | UnaryOp::RoundNearestEven
        | UnaryOp::IsFinite
        | UnaryOp::Cbrt
        | UnaryOp::Erf => t.is_float(),
        _ => is_floaty(t),
    }
}

/// XLA's element types of a two-operand op.
pub fn binary_takes(op: BinaryOp, t: ElementType) -> bool {
    match op {
        BinaryOp::Add | BinaryOp::Mul => true,
        BinaryOp::Max | BinaryOp::Min => !t.is_complex(),
        BinaryOp::Sub | BinaryOp::Div | BinaryOp::Pow => t != Pred,
        BinaryOp::Rem => t != Pred && !t.is_complex(),
        BinaryOp::Atan2 => t.is_float(),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => t == Pred || t.is_integral(),
        BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical => {
            t.is_integral()
        }
        BinaryOp::Complex => t == F32 || t == F64,
    }
}

/// The info of `op` on an operand with info `a` of type `t`, or None when the operand may not
/// feed it (its error could grow without bound).
pub fn unary_info(op: UnaryOp, t: ElementType, a: Info) -> Option<Info> {
    use UnaryOp::*;
    let continuous = matches!(
        op,
        Neg | Abs
            | Exp
            | Expm1
            | Sin
            | Cos
            | Tanh
            | Logistic
            | Erf
            | Log1p
            | Real
            | Imag
            | IsFinite
    );
    if a.sub && !continuous {
        return None;
    }
    let info = unary_info_of(op, t, a)?;
    // Results that may underflow to a subnormal, or carry one along.
    let makes = matches!(op, Exp | Expm1 | Sin | Tanh | Logistic | Erf | Log1p);
    let keeps = matches!(op, Neg | Abs | Real | Imag);
    let sub = is_floaty(t) && !info.int && (makes || (a.sub && (keeps || continuous)));
    Some(Info {
        sub: sub && op != IsFinite,
        ..info
    })
}

fn unary_info_of(op: UnaryOp, t: ElementType, a: Info) -> Option<Info> {
    let exact_in = a.tol == 0;
    let same = Info {
        bcast: a.bcast,
        ..a
    };
    let key = format!("{op:?}").to_lowercase();
    Some(match op {
        UnaryOp::Neg => same,
        UnaryOp::Abs if !t.is_complex() => Info { mul: false, ..same },
        _ if !exact_in => return None,
        UnaryOp::Abs => Info::exact(a.mag.map(|m| m * 1.5), false).with_tol(bound("abs", t)),
        UnaryOp::Sign => {
            Info::exact(a.mag.map(|_| 1.0), !t.is_complex()).with_tol(bound("sign", t))
        }
        UnaryOp::Not => Info::exact(if t == Pred { Some(1.0) } else { None }, true),
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::RoundNearestAfz | UnaryOp::RoundNearestEven => {
            Info::exact(a.mag.map(|m| m + 1.0), true)
        }
        UnaryOp::IsFinite => Info::exact(Some(1.0), true),
        UnaryOp::Clz | UnaryOp::PopulationCount => Info::exact(Some(64.0), true),
        UnaryOp::Real | UnaryOp::Imag => Info::exact(a.mag, a.int),
        UnaryOp::Sqrt if t.is_float() => Info::exact(None, false),
        // Trigonometry of large arguments is outside the range the bounds were measured on.
        UnaryOp::Sin | UnaryOp::Cos if !a.mag.is_some_and(|m| m <= 1e4) => return None,
        // Complex functions: bounds measured on inputs in the typical range.
        _ if t.is_complex() && !a.mag.is_some_and(|m| m <= 8.0) => return None,
        UnaryOp::Sin | UnaryOp::Cos | UnaryOp::Tanh | UnaryOp::Logistic if t.is_float() => {
            Info::exact(a.mag.map(|_| 1.0), false).with_tol(bound(&key, t))
        }
        _ => Info::exact(None, false).with_tol(bound(&key, t)),
    })
}

impl Info {
    /// The same info with ulp bound `tol`.
    pub fn with_tol(self, tol: u64) -> Info {
        Info { tol, ..self }
    }
}

/// The info of `op` on operands `a`, `b` of type `t`, or None when they may not feed it.
pub fn binary_info(op: BinaryOp, t: ElementType, a: Info, b: Info) -> Option<Info> {
    let carries_zero_sign = matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min
    ) || op == BinaryOp::Complex;
    if (a.zsign || b.zsign) && !carries_zero_sign {
        return None;
    }
    // XLA folds ops of two constants with its HLO evaluator, which differs from its compiled
    // code: it dies of SIGFPE on an integer division by zero, adds pred as integers mod 2
    // (true + true = false, compiled: true), and gives atan2(0, 0) = NaN (compiled: 0).
    let folded_differently = (!is_floaty(t) && matches!(op, BinaryOp::Div | BinaryOp::Rem))
        || (t == Pred && !matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor))
        || op == BinaryOp::Atan2;
    if folded_differently && a.konst && b.konst {
        return None;
    }
    // XLA's simplifier rewrites a power by a constant (x^-1 as 1 / x: (-1)^-1 = -1 for s32
    // where its compiled integer pow gives 0, seed 200437; x^0.5 as sqrt).
    if op == BinaryOp::Pow && b.konst {
        return None;
    }
    if !is_floaty(t) && matches!(op, BinaryOp::Div | BinaryOp::Rem) && (a.ipow || b.ipow) {
        return None;
    }
    if (a.sub || b.sub)
        && !matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Max | BinaryOp::Min
        )
    {
        return None;
    }
    let info = binary_info_of(op, t, a, b)?;
    let makes = matches!(
        op,
        BinaryOp::Div
            | BinaryOp::Mul
            | BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Pow
            | BinaryOp::Atan2
    );
    let sub = is_floaty(t) && !info.int && (makes || a.sub || b.sub);
    // Near zero, pow and atan2 may give a zero of the other sign (see `unary` in ops.rs).
    let approximate = is_floaty(t) && matches!(op, BinaryOp::Pow | BinaryOp::Atan2);
    let konst = (a.konst && b.konst)
        || (matches!(op, BinaryOp::Mul | BinaryOp::And) && (a.konst || b.konst));
    Some(Info {
        zsign: info.zsign || a.zsign || b.zsign || approximate,
        konst,
        sub,
        ..info
    })
}

fn binary_info_of(op: BinaryOp, t: ElementType, a: Info, b: Info) -> Option<Info> {
    let bcast = a.bcast && b.bcast;
    let exact_in = a.tol == 0 && b.tol == 0;
    if t == Pred {
        return Some(Info::exact(Some(1.0), true));
    }
    if !is_floaty(t) {
        let mag = match op {
            BinaryOp::Add | BinaryOp::Sub => wrap(mag2(a.mag, b.mag, |x, y| x + y), t),
            BinaryOp::Mul => wrap(mag2(a.mag, b.mag, |x, y| x * y), t),
            BinaryOp::Div | BinaryOp::Rem => a.mag,
            BinaryOp::Max | BinaryOp::Min => max_mag(a.mag, b.mag),
            _ => None,
        };
        return Some(Info {
            bcast,
            ipow: op == BinaryOp::Pow,
            ..Info::exact(mag, true)
        });
    }
    let int = a.int && b.int;
    let limit = exact_limit(t);
    let info = match op {
        BinaryOp::Max | BinaryOp::Min => Info {
            tol: a.tol.max(b.tol),
            mag: max_mag(a.mag, b.mag),
            int,
            ..Info::exact(None, false)
        },
        _ if !exact_in => match op {
            // Relative errors add up in a product: ulps of both plus one rounding, doubled
            // for where in its binade each value lies.
            BinaryOp::Mul if t.is_float() => Info {
                tol: 2 * (a.tol + b.tol) + 1,
                mag: fin(mag2(a.mag, b.mag, |x, y| x * y), t),
                mul: true,
                ..Info::exact(None, false)
            },
            _ => return None,
        },
        BinaryOp::Add | BinaryOp::Sub => {
            if a.mul || b.mul {
                return None;
            }
            Info::exact(fin(mag2(a.mag, b.mag, |x, y| x + y), t), int)
        }
        // A complex product of an infinity depends on the formula (XLA's and ours differ).
        BinaryOp::Mul if t.is_complex() && (a.mag.is_none() || b.mag.is_none()) => return None,
        BinaryOp::Mul => {
            let mag = fin(mag2(a.mag, b.mag, |x, y| x * y), t);
            let exact = int && mag.is_some_and(|m| m <= limit);
            let tol = if t.is_complex() && !exact {
                bound("mul", t)
            } else {
                0
            };
            // The sign of a complex product's zero part depends on the formula (seed 41681).
            Info {
                mul: !exact && t.is_float(),
                zsign: t.is_complex(),
                ..Info::exact(mag, int).with_tol(tol)
            }
        }
        // So does a complex quotient by zero, which small integers often are.
        BinaryOp::Div if t.is_complex() => return None,
        // XLA:CPU divides by a broadcast as a multiplication by its reciprocal: two roundings.
        BinaryOp::Div if b.bcast => Info {
            mul: true,
            ..Info::exact(None, false).with_tol(2)
        },
        BinaryOp::Div => Info::exact(None, false),
        // x rem 0 is NaN.
        BinaryOp::Rem => Info::exact(None, int),
        // Complex pow: bounds measured on inputs in the typical range (seed 21495 of
        // `built_programs_match_xla`: 45 ulp on c128 dots of 5 terms; 700285: 20 ulp on parts
        // up to 8).
        BinaryOp::Pow
            if t.is_complex() && !(a.mag.zip(b.mag).is_some_and(|(x, y)| x.max(y) <= 4.0)) =>
        {
            return None
        }
        // f16/bf16 pow is not listed in the bounds (exact on their inputs); seed 21669 found
        // 2 ulp on exp(x)^x near 778.
        BinaryOp::Pow if matches!(t, F16 | Bf16) => Info::exact(None, false).with_tol(2),
        BinaryOp::Pow => Info {
            bcast: true, // a division by it is rewritten, see Info::bcast
            ..Info::exact(None, false).with_tol(bound("pow", t))
        },
        BinaryOp::Atan2 => {
            Info::exact(mag2(a.mag, b.mag, |_, _| 4.0), false).with_tol(bound("atan2", t))
        }
        BinaryOp::Complex => Info::exact(max_mag(a.mag, b.mag), int),
        _ => return None,
    };
    Some(Info { bcast, ..info })
}

/// The info of converting a value of `from` (info `a`) to `to`, or None if not generated.
pub fn convert_info(from: ElementType, to: ElementType, a: Info) -> Option<Info> {
    if a.sub {
        return None;
    }
    if from.is_complex() && !to.is_complex() {
        return None; // rejected by our rule (XLA's meaning is not one)
    }
    let int_like = |t: ElementType| t.is_integral() || t == Pred;
    if a.tol > 0 && !(from.is_float() && to.is_float()) {
        return None;
    }
    let mag = a.mag;
    Some(match (from, to) {
        (_, Pred) => Info::exact(Some(1.0), true),
        (Pred, _) => Info::exact(Some(1.0), true),
        (f, t) if int_like(f) && int_like(t) => {
            let keeps = f.is_unsigned_int() || t.is_signed_int();
            Info::exact(if keeps { wrap(mag, t) } else { None }, true)
        }
        (f, t) if f.is_float() && int_like(t) => {
            Info::exact(Some(mag.unwrap_or(f64::MAX).min(int_max(t))), true)
        }
        (f, t) if int_like(f) => {
            // XLA:CPU converts wide integers to bf16 through f32: two roundings.
            let exact = mag.is_some_and(|m| m <= exact_limit(F32));
            let tol = u64::from(t == Bf16 && f.bit_width() >= 32 && !exact);
            Info::exact(fin(mag, t), true).with_tol(tol)
        }
        (f, t) if f.is_float() && t.is_float() => {
            let (pf, pt) = (precision(f), precision(t));
            let tol = if a.tol == 0 {
                // XLA:CPU converts f64 to f16/bf16 through f32: two roundings.
                let exact = a.int && mag.is_some_and(|m| m <= exact_limit(t));
                u64::from(f == F64 && pt < 24 && !exact)
            } else if pt >= pf {
                a.tol << (pt - pf)
            } else {
                (a.tol >> (pf - pt)) + 1
            };
            Info {
                tol,
                mul: false,
                mag: fin(mag, t),
                ..a
            }
        }
        _ => Info::exact(mag, a.int),
    })
}
