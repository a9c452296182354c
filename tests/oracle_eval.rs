//! Oracle tests: every op of the IR on every element type XLA allows it on, run through our
//! reference evaluator (`xla_core::eval::evaluate`) and through XLA:CPU (the exported StableHLO,
//! compiled by jaxlib in `target/oracle-venv`), on deterministic random inputs including special
//! values.
//!
//! Integers, pred, bit ops, data movement and + - * / (floats included, f16/bf16 too) must be
//! bit-exact (NaN matches any NaN); transcendental functions and float reductions must be within
//! the ulp bounds of `xla_oracle::bounds::ULP_BOUNDS`. If XLA cannot be started every test FAILS, saying why.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test oracle_eval`
//! (`bash oracle/setup.sh` creates the venv). With `XLA_ORACLE_MEASURE=1` each case prints the
//! largest ulp distance it saw, which is how the bounds below were measured.

use std::sync::Arc;

use xla_aot::core::{
    ArrayShape, BinaryOp, ComparisonDirection, Computation, DotDimensionNumbers, ElementType,
    InstrId, Instruction, Literal, Op, Shape, UnaryOp,
};
use xla_oracle::{check_shared, random_literal, shared, started, Dist, EvalCase, Tolerance};

use xla_oracle::Check::Close;
use ElementType::*;

/// Cases per XLA compilation: compiling dominates the run time, so cases are merged into one
/// computation returning a tuple of their results (see [`xla_oracle::merge`]).
const CHUNK: usize = 48;

/// A computation being written by hand (the builder is another helper's work in progress).
struct B {
    instrs: Vec<Instruction>,
    params: Vec<Shape>,
}

impl B {
    fn new() -> Self {
        B {
            instrs: Vec::new(),
            params: Vec::new(),
        }
    }

    fn push(&mut self, op: Op, operands: &[InstrId], shape: Shape) -> InstrId {
        self.instrs.push(Instruction {
            op,
            operands: operands.to_vec(),
            shape,
        });
        InstrId(self.instrs.len() as u32 - 1)
    }

    fn param(&mut self, shape: Shape) -> InstrId {
        let index = self.params.len();
        self.params.push(shape.clone());
        self.push(
            Op::Parameter {
                index,
                name: format!("p{index}"),
            },
            &[],
            shape,
        )
    }

    /// The computation whose root is the last instruction.
    fn finish(self, name: &str) -> Computation {
        let root = InstrId(self.instrs.len() as u32 - 1);
        Computation {
            name: name.to_string(),
            params: self.params,
            instrs: self.instrs,
            root,
        }
    }
}

fn arr(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims)
}

/// Random inputs; `XLA_ORACLE_SALT=n` shifts every seed, to measure bounds on other samples.
fn rand(ty: ElementType, dims: &[i64], seed: u64, dist: Dist) -> Literal {
    let salt: u64 = std::env::var("XLA_ORACLE_SALT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    random_literal(
        &ArrayShape::new(ty, dims),
        seed.wrapping_add(salt.wrapping_mul(0x1_0000_0001)),
        dist,
    )
}

/// The bound for (`op`, `ty`) in the one table (`xla_oracle::bounds::ULP_BOUNDS`), or exact.
fn bound(op: &str, ty: ElementType) -> Tolerance {
    xla_oracle::bounds::eval_bound(op, ty)
}

const INTS: [ElementType; 8] = [S8, S16, S32, S64, U8, U16, U32, U64];
const SINTS: [ElementType; 4] = [S8, S16, S32, S64];
const FLOATS: [ElementType; 4] = [F16, Bf16, F32, F64];
const COMPLEX: [ElementType; 2] = [C64, C128];

fn cat(parts: &[&[ElementType]]) -> Vec<ElementType> {
    parts.concat()
}

/// The element types XLA allows each unary op on, the input ranges to try, and the op's name in
/// `xla_oracle::bounds::ULP_BOUNDS`.
fn unary_spec(u: UnaryOp) -> (&'static str, Vec<ElementType>, Vec<Dist>) {
    let fc = cat(&[&FLOATS, &COMPLEX]);
    let any = || vec![Dist::Any, Dist::Special];
    match u {
        UnaryOp::Abs => ("abs", cat(&[&SINTS, &FLOATS, &COMPLEX]), any()),
        UnaryOp::Cbrt => ("cbrt", FLOATS.to_vec(), any()),
        UnaryOp::Ceil => ("ceil", FLOATS.to_vec(), any()),
        UnaryOp::Clz => ("clz", INTS.to_vec(), any()),
        UnaryOp::Cos => ("cos", fc, any()),
        UnaryOp::Cosh => (
            "cosh",
            fc.clone(),
            vec![Dist::Range(-5.0, 5.0), Dist::Special],
        ),
        UnaryOp::Erf => (
            "erf",
            FLOATS.to_vec(),
            vec![Dist::Range(-4.0, 4.0), Dist::Special],
        ),
        UnaryOp::Exp => ("exp", fc, vec![Dist::Range(-5.0, 5.0), Dist::Special]),
        UnaryOp::Expm1 => ("expm1", fc, vec![Dist::Range(-2.0, 2.0), Dist::Special]),
        UnaryOp::Floor => ("floor", FLOATS.to_vec(), any()),
        UnaryOp::Imag => ("imag", fc, any()),
        UnaryOp::IsFinite => ("is_finite", FLOATS.to_vec(), any()),
        UnaryOp::Log => ("log", fc, vec![Dist::Range(0.001, 1000.0), Dist::Special]),
        UnaryOp::Log1p => ("log1p", fc, vec![Dist::Range(-0.9, 100.0), Dist::Special]),
        UnaryOp::Logistic => ("logistic", fc, any()),
        UnaryOp::Neg => ("neg", cat(&[&INTS, &FLOATS, &COMPLEX]), any()),
        UnaryOp::Not => ("not", cat(&[&[Pred], &INTS]), any()),
        UnaryOp::PopulationCount => ("popcnt", INTS.to_vec(), any()),
        UnaryOp::Real => ("real", fc, any()),
        UnaryOp::RoundNearestAfz => ("round_afz", FLOATS.to_vec(), any()),
        UnaryOp::RoundNearestEven => ("round_even", FLOATS.to_vec(), any()),
        UnaryOp::Rsqrt => ("rsqrt", fc, vec![Dist::Range(0.001, 1000.0), Dist::Special]),
        UnaryOp::Sign => ("sign", cat(&[&SINTS, &FLOATS, &COMPLEX]), any()),
        UnaryOp::Sin => ("sin", fc, any()),
        UnaryOp::Sqrt => ("sqrt", fc, vec![Dist::Range(0.0, 1000.0), Dist::Special]),
        // Complex tan/tanh have poles (tanh at i*pi/2): near them no ulp bound holds, so the
        // range keeps both components within 1.
        UnaryOp::Tan => ("tan", fc, vec![Dist::Range(-1.0, 1.0), Dist::Special]),
        UnaryOp::Tanh => (
            "tanh",
            fc,
            vec![Dist::Range(-1.0, 1.0), Dist::Any, Dist::Special],
        ),
    }
}

fn unary_result(u: UnaryOp, ty: ElementType) -> ElementType {
    match u {
        UnaryOp::IsFinite => Pred,
        UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => ty.complex_component().unwrap_or(ty),
        _ => ty,
    }
}

#[test]
fn unary_ops_match_xla() {
    let dims = [32i64, 32];
    let mut cases = Vec::new();
    for (k, u) in UnaryOp::ALL.into_iter().enumerate() {
        let (name, types, dists) = unary_spec(u);
        for ty in types {
            for (j, dist) in dists.iter().enumerate() {
                // Complex special values (infinite or NaN components, huge moduli) follow XLA's
                // own formulas (xla_core's scalar/complex/math.rs), so they are compared too;
                // complex tan/tanh on [-10, 10] meet poles where both sides lose all accuracy.
                let pole = matches!(u, UnaryOp::Tan | UnaryOp::Tanh) && *dist == Dist::Any;
                if ty.is_complex() && pole {
                    continue;
                }
                let mut b = B::new();
                let x = b.param(arr(ty, &dims));
                b.push(Op::Unary(u), &[x], arr(unary_result(u, ty), &dims));
                cases.push(EvalCase {
                    name: format!("{name}/{ty}/{dist:?}"),
                    comp: b.finish(name),
                    args: vec![rand(ty, &dims, (k * 100 + j) as u64, *dist)],
                    check: Close(bound(name, ty)),
                });
            }
        }
    }
    check_shared("unary", cases, CHUNK);
}

/// Element types per binary op, the rhs distribution, and the name in `xla_oracle::bounds::ULP_BOUNDS`.
fn binary_spec(op: BinaryOp) -> (&'static str, Vec<ElementType>) {
    let num = cat(&[&INTS, &FLOATS, &COMPLEX]);
    match op {
        BinaryOp::Add => ("add", num),
        BinaryOp::Sub => ("sub", num),
        BinaryOp::Mul => ("mul", num),
        BinaryOp::Div => ("div", num),
        BinaryOp::Rem => ("rem", cat(&[&INTS, &FLOATS])),
        BinaryOp::Max => ("max", cat(&[&INTS, &FLOATS])),
        BinaryOp::Min => ("min", cat(&[&INTS, &FLOATS])),
        BinaryOp::Pow => ("pow", cat(&[&INTS, &FLOATS, &COMPLEX])),
        BinaryOp::Atan2 => ("atan2", FLOATS.to_vec()),
        BinaryOp::And => ("and", cat(&[&[Pred], &INTS])),
        BinaryOp::Or => ("or", cat(&[&[Pred], &INTS])),
        BinaryOp::Xor => ("xor", cat(&[&[Pred], &INTS])),
        BinaryOp::ShiftLeft => ("shl", INTS.to_vec()),
        BinaryOp::ShiftRightArithmetic => ("shra", INTS.to_vec()),
        BinaryOp::ShiftRightLogical => ("shrl", INTS.to_vec()),
        BinaryOp::Complex => ("complex", vec![F32, F64]),
    }
}

/// Input pairs for a binary op: random values with special ones (0, -1, min, inf, NaN...), plus
/// an op-specific typical range (shift amounts around the bit width, small integer powers).
fn binary_inputs(
    op: BinaryOp,
    ty: ElementType,
    dims: &[i64],
    seed: u64,
) -> Vec<(Dist, Literal, Literal)> {
    let bits = ty.bit_width() as f64;
    let mut v = vec![(
        Dist::Special,
        rand(ty, dims, seed, Dist::Special),
        rand(ty, dims, seed + 1, Dist::Special),
    )];
    match op {
        BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical => {
            let r = Dist::Range(0.0, bits + 2.0);
            v.push((
                r,
                rand(ty, dims, seed + 2, Dist::Any),
                rand(ty, dims, seed + 3, r),
            ));
        }
        BinaryOp::Pow if ty.is_integral() => {
            let base = Dist::Range(-4.0, 4.0);
            v.push((
                base,
                rand(ty, dims, seed + 2, base),
                rand(ty, dims, seed + 3, Dist::Range(-2.0, 9.0)),
            ));
        }
        BinaryOp::Pow => {
            let base = Dist::Range(0.0, 4.0);
            v.push((
                base,
                rand(ty, dims, seed + 2, base),
                rand(ty, dims, seed + 3, Dist::Range(-3.0, 3.0)),
            ));
        }
        _ => v.push((
            Dist::Any,
            rand(ty, dims, seed + 2, Dist::Any),
            rand(ty, dims, seed + 3, Dist::Any),
        )),
    }
    v
}

#[test]
fn binary_ops_match_xla() {
    let dims = [32i64, 32];
    let mut cases = Vec::new();
    for (k, op) in BinaryOp::ALL.into_iter().enumerate() {
        let (name, types) = binary_spec(op);
        for ty in types {
            let out = if op == BinaryOp::Complex {
                ty.complex_of().unwrap_or(ty)
            } else {
                ty
            };
            for (dist, l, r) in binary_inputs(op, ty, &dims, k as u64 * 1000) {
                let mut b = B::new();
                // XLA multiplies, divides and raises complex numbers with textbook formulas
                // that turn infinite components into NaN where C's Annex G recovers infinities;
                // complex * / pow are compared on finite inputs only.
                let naive = matches!(op, BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow);
                if ty.is_complex() && naive && dist == Dist::Special {
                    continue;
                }
                let x = b.param(arr(ty, &dims));
                let y = b.param(arr(ty, &dims));
                b.push(Op::Binary(op), &[x, y], arr(out, &dims));
                cases.push(EvalCase {
                    name: format!("{name}/{ty}/{dist:?}"),
                    comp: b.finish(name),
                    args: vec![l, r],
                    check: Close(bound(name, ty)),
                });
            }
        }
    }
    check_shared("binary", cases, CHUNK);
}

#[test]
fn compare_select_clamp_match_xla() {
    use ComparisonDirection::*;
    let dims = [64i64];
    let mut cases = Vec::new();
    let all: Vec<ElementType> = ElementType::ALL.to_vec();
    for (k, ty) in all.iter().copied().enumerate() {
        let dirs: &[ComparisonDirection] = if ty.is_complex() {
            &[Eq, Ne]
        } else {
            &[Eq, Ne, Ge, Gt, Le, Lt]
        };
        // Equal elements matter for EQ/GE/LE: compare the input with a partly equal copy.
        let l = rand(ty, &dims, k as u64, Dist::Special);
        let r = rand(ty, &dims, k as u64 + 7, Dist::Special);
        let mixed = mix(&l, &r);
        for &d in dirs {
            for total_order in if ty.is_float() {
                vec![false, true]
            } else {
                vec![false]
            } {
                let mut b = B::new();
                let x = b.param(arr(ty, &dims));
                let y = b.param(arr(ty, &dims));
                b.push(
                    Op::Compare {
                        direction: d,
                        total_order,
                    },
                    &[x, y],
                    arr(Pred, &dims),
                );
                cases.push(EvalCase {
                    name: format!("compare/{d:?}/total={total_order}/{ty}"),
                    comp: b.finish("cmp"),
                    args: vec![l.clone(), mixed.clone()],
                    check: Close(Tolerance::Exact),
                });
            }
        }
        let mut b = B::new();
        let p = b.param(arr(Pred, &dims));
        let x = b.param(arr(ty, &dims));
        let y = b.param(arr(ty, &dims));
        b.push(Op::Select, &[p, x, y], arr(ty, &dims));
        cases.push(EvalCase {
            name: format!("select/{ty}"),
            comp: b.finish("select"),
            args: vec![rand(Pred, &dims, k as u64, Dist::Any), l.clone(), r.clone()],
            check: Close(Tolerance::Exact),
        });
        if !ty.is_complex() && !ty.is_pred() {
            let mut b = B::new();
            let lo = b.param(arr(ty, &dims));
            let x = b.param(arr(ty, &dims));
            let hi = b.param(arr(ty, &dims));
            b.push(Op::Clamp, &[lo, x, hi], arr(ty, &dims));
            cases.push(EvalCase {
                name: format!("clamp/{ty}"),
                comp: b.finish("clamp"),
                args: vec![
                    l.clone(),
                    rand(ty, &dims, k as u64 + 3, Dist::Special),
                    r.clone(),
                ],
                check: Close(Tolerance::Exact),
            });
        }
    }
    check_shared("compare/select/clamp", cases, CHUNK);
}

/// Elements of `a` at even indices, of `b` at odd ones.
fn mix(a: &Literal, b: &Literal) -> Literal {
    let (Some((sa, da)), Some((_, db))) = (a.as_array(), b.as_array()) else {
        return a.clone();
    };
    let pick = |i: usize| if i.is_multiple_of(2) { 0 } else { 1 };
    macro_rules! m {
        ($($v:ident),*) => {
            match (da, db) {
                $((xla_aot::core::ArrayData::$v(x), xla_aot::core::ArrayData::$v(y)) => xla_aot::core::ArrayData::$v(
                    (0..x.len()).map(|i| if pick(i) == 0 { x[i] } else { y[i] }).collect(),
                ),)*
                _ => da.clone(),
            }
        };
    }
    let data = m!(Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, Bf16, F32, F64, C64, C128);
    Literal::Array {
        shape: sa.clone(),
        data,
    }
}

#[test]
fn conversions_match_xla() {
    let dims = [64i64];
    let mut cases = Vec::new();
    for (i, from) in ElementType::ALL.into_iter().enumerate() {
        for to in ElementType::ALL {
            // Complex to real is not defined by StableHLO (XLA takes the real part); skip it.
            if from.is_complex() && !to.is_complex() {
                continue;
            }
            let mut b = B::new();
            let x = b.param(arr(from, &dims));
            b.push(Op::ConvertElementType, &[x], arr(to, &dims));
            cases.push(EvalCase {
                name: format!("convert/{from}->{to}"),
                comp: b.finish("convert"),
                args: vec![rand(from, &dims, i as u64, Dist::Special)],
                check: Close(Tolerance::Exact),
            });
        }
    }
    // Bitcasts: same width, and width changes through a new minor dimension.
    let same: &[(ElementType, ElementType)] = &[
        (F32, S32),
        (S32, F32),
        (F32, U32),
        (F16, S16),
        (Bf16, F16),
        (U16, Bf16),
        (F64, S64),
        (U64, F64),
        (S8, U8),
    ];
    for (k, &(from, to)) in same.iter().enumerate() {
        let mut b = B::new();
        let x = b.param(arr(from, &dims));
        b.push(Op::BitcastConvertType, &[x], arr(to, &dims));
        cases.push(EvalCase {
            name: format!("bitcast/{from}->{to}"),
            comp: b.finish("bitcast"),
            args: vec![rand(from, &dims, k as u64, Dist::Bits)],
            check: Close(Tolerance::Exact),
        });
    }
    let wide: &[(ElementType, ElementType)] = &[(F32, U8), (F64, S16), (S32, S8), (U64, F32)];
    for (k, &(from, to)) in wide.iter().enumerate() {
        let ratio = from.byte_width() as i64 / to.byte_width() as i64;
        let mut b = B::new();
        let x = b.param(arr(from, &[8]));
        b.push(Op::BitcastConvertType, &[x], arr(to, &[8, ratio]));
        cases.push(EvalCase {
            name: format!("bitcast/{from}[8]->{to}[8,{ratio}]"),
            comp: b.finish("bitcast"),
            args: vec![rand(from, &[8], k as u64, Dist::Bits)],
            check: Close(Tolerance::Exact),
        });
        let mut b = B::new();
        let x = b.param(arr(to, &[8, ratio]));
        b.push(Op::BitcastConvertType, &[x], arr(from, &[8]));
        cases.push(EvalCase {
            name: format!("bitcast/{to}[8,{ratio}]->{from}[8]"),
            comp: b.finish("bitcast"),
            args: vec![rand(to, &[8, ratio], k as u64, Dist::Bits)],
            check: Close(Tolerance::Exact),
        });
    }
    let rp: &[(ElementType, u32, u32)] = &[
        (F32, 5, 10),
        (F32, 8, 7),
        (F32, 3, 2),
        (F64, 8, 23),
        (F64, 5, 10),
        (F16, 4, 3),
        (Bf16, 5, 2),
    ];
    for (k, &(ty, e, m)) in rp.iter().enumerate() {
        for dist in [Dist::Bits, Dist::Special] {
            let mut b = B::new();
            let x = b.param(arr(ty, &dims));
            b.push(
                Op::ReducePrecision {
                    exponent_bits: e,
                    mantissa_bits: m,
                },
                &[x],
                arr(ty, &dims),
            );
            cases.push(EvalCase {
                name: format!("reduce_precision/{ty}/e{e}m{m}/{dist:?}"),
                comp: b.finish("rp"),
                args: vec![rand(ty, &dims, k as u64, dist)],
                check: Close(Tolerance::Exact),
            });
        }
    }
    check_shared("conversions", cases, CHUNK);
}

#[test]
fn data_movement_and_constants_match_xla() {
    let mut cases = Vec::new();
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        let seed = k as u64;
        if !ty.is_pred() {
            let mut b = B::new();
            b.push(Op::Iota { dimension: 1 }, &[], arr(ty, &[3, 5]));
            cases.push(EvalCase {
                name: format!("iota/{ty}"),
                comp: b.finish("iota"),
                args: vec![],
                check: Close(Tolerance::Exact),
            });
        }
        // A constant (special values, bit-exact through the hex text) added to zero... no:
        // returned as is, so the text round trip itself is checked.
        let lit = rand(ty, &[2, 3], seed, Dist::Special);
        let mut b = B::new();
        b.push(Op::Constant(lit.clone()), &[], lit.shape());
        cases.push(EvalCase {
            name: format!("constant/{ty}"),
            comp: b.finish("k"),
            args: vec![],
            check: Close(Tolerance::Exact),
        });

        let x3 = rand(ty, &[2, 3, 4], seed, Dist::Special);
        let mut b = B::new();
        let x = b.param(arr(ty, &[3, 1]));
        b.push(
            Op::BroadcastInDim {
                broadcast_dimensions: vec![1, 2],
            },
            &[x],
            arr(ty, &[2, 3, 4]),
        );
        cases.push(EvalCase {
            name: format!("broadcast_in_dim/{ty}"),
            comp: b.finish("bcast"),
            args: vec![rand(ty, &[3, 1], seed, Dist::Special)],
            check: Close(Tolerance::Exact),
        });
        let mut b = B::new();
        let x = b.param(arr(ty, &[2, 3, 4]));
        b.push(Op::Reshape, &[x], arr(ty, &[4, 6]));
        cases.push(EvalCase {
            name: format!("reshape/{ty}"),
            comp: b.finish("reshape"),
            args: vec![x3.clone()],
            check: Close(Tolerance::Exact),
        });
        let mut b = B::new();
        let x = b.param(arr(ty, &[2, 3, 4]));
        b.push(
            Op::Transpose {
                permutation: vec![2, 0, 1],
            },
            &[x],
            arr(ty, &[4, 2, 3]),
        );
        cases.push(EvalCase {
            name: format!("transpose/{ty}"),
            comp: b.finish("transpose"),
            args: vec![x3],
            check: Close(Tolerance::Exact),
        });
    }
    check_shared("data movement", cases, CHUNK);
}

/// A two-parameter scalar reducer computing `op`.
fn reducer(op: BinaryOp, ty: ElementType) -> Arc<Computation> {
    let mut b = B::new();
    let a = b.param(arr(ty, &[]));
    let c = b.param(arr(ty, &[]));
    b.push(Op::Binary(op), &[a, c], arr(ty, &[]));
    Arc::new(b.finish(&format!("reduce_{op:?}_{ty}").to_lowercase()))
}

/// `Reduce(x, init, dimensions, op)` on `x: ty[dims]`.
#[allow(clippy::too_many_arguments)] // one argument per field of the case, named at call sites
fn reduce_case(
    name: &str,
    ty: ElementType,
    dims: &[i64],
    rdims: &[i64],
    op: BinaryOp,
    init: Literal,
    x: Literal,
    tol: Tolerance,
) -> EvalCase {
    let out: Vec<i64> = dims
        .iter()
        .enumerate()
        .filter(|(i, _)| !rdims.contains(&(*i as i64)))
        .map(|(_, &d)| d)
        .collect();
    let mut b = B::new();
    let p = b.param(arr(ty, dims));
    let i = b.push(Op::Constant(init), &[], arr(ty, &[]));
    b.push(
        Op::Reduce {
            dimensions: rdims.to_vec(),
            computation: reducer(op, ty),
        },
        &[p, i],
        arr(ty, &out),
    );
    EvalCase {
        name: format!("{name}/{ty}/{rdims:?}"),
        comp: b.finish(name),
        args: vec![x],
        check: Close(tol),
    }
}

#[test]
fn reductions_match_xla() {
    let mut cases = Vec::new();
    let dims = [3i64, 40, 5];
    for (k, ty) in cat(&[&INTS, &FLOATS]).into_iter().enumerate() {
        let seed = k as u64;
        for rdims in [vec![1], vec![0, 2], vec![0, 1, 2]] {
            // Integer sums wrap identically in any order; float max/min are order-free.
            let zero = Literal::Array {
                shape: ArrayShape::scalar(ty),
                data: xla_aot::core::ArrayData::zeros(ty, 1),
            };
            if ty.is_integral() {
                let x = rand(ty, &dims, seed, Dist::Special);
                cases.push(reduce_case(
                    "sum",
                    ty,
                    &dims,
                    &rdims,
                    BinaryOp::Add,
                    zero.clone(),
                    x.clone(),
                    Tolerance::Exact,
                ));
                cases.push(reduce_case(
                    "max",
                    ty,
                    &dims,
                    &rdims,
                    BinaryOp::Max,
                    zero,
                    x,
                    Tolerance::Exact,
                ));
            } else {
                // Values in {-1, 0, 1}: every partial sum is a small integer, exact in any
                // order and any float type, so the sum is bit-exact.
                let x = int_valued(ty, &dims, seed, 1.0);
                cases.push(reduce_case(
                    "sum_int",
                    ty,
                    &dims,
                    &rdims,
                    BinaryOp::Add,
                    zero.clone(),
                    x,
                    Tolerance::Exact,
                ));
                // Real values of both signs: the order matters (XLA:CPU splits large reductions
                // into a tree of partial sums, and its loops differ per ISA), so every float
                // type is held to the forward-error bound of a sum in any order; f16/bf16 round
                // every step but fold in XLA's tree of windows of 32 (xla_core::reduce_order).
                let x = rand(ty, &dims, seed, Dist::Range(-1.0, 1.0));
                cases.push(reduce_case(
                    "sum",
                    ty,
                    &dims,
                    &rdims,
                    BinaryOp::Add,
                    zero.clone(),
                    x,
                    Tolerance::Forward,
                ));
                let neg_inf = float_scalar(ty, f64::NEG_INFINITY);
                let x = rand(ty, &dims, seed, Dist::Special);
                cases.push(reduce_case(
                    "max",
                    ty,
                    &dims,
                    &rdims,
                    BinaryOp::Max,
                    neg_inf,
                    x,
                    Tolerance::Exact,
                ));
            }
        }
    }
    // Long sums of values near 1: folded left to right in f16/bf16 (instead of in XLA's tree of
    // windows of 32) they are far outside the bound here (a bf16 running sum stops growing at
    // 256, where its spacing reaches 2); in the tree the bound is the tree's depth times eps.
    for (k, ty) in FLOATS.into_iter().enumerate() {
        let zero = float_scalar(ty, 0.0);
        for n in [1024i64, 4099] {
            let x = rand(ty, &[2, n], 60 + k as u64, Dist::Range(0.5, 1.5));
            cases.push(reduce_case(
                &format!("long_sum{n}"),
                ty,
                &[2, n],
                &[1],
                BinaryOp::Add,
                zero.clone(),
                x,
                Tolerance::Forward,
            ));
        }
    }
    // pred reductions (any / all) and complex sums of integer-valued components (exact in any
    // order).
    for (k, rdims) in [vec![1], vec![0, 1, 2]].into_iter().enumerate() {
        let x = rand(Pred, &dims, 40 + k as u64, Dist::Any);
        let (t, f) = (Literal::scalar(true), Literal::scalar(false));
        cases.push(reduce_case(
            "any",
            Pred,
            &dims,
            &rdims,
            BinaryOp::Or,
            f,
            x.clone(),
            Tolerance::Exact,
        ));
        cases.push(reduce_case(
            "all",
            Pred,
            &dims,
            &rdims,
            BinaryOp::And,
            t,
            x,
            Tolerance::Exact,
        ));
        for ty in COMPLEX {
            let zero = Literal::Array {
                shape: ArrayShape::scalar(ty),
                data: xla_aot::core::ArrayData::zeros(ty, 1),
            };
            let x = int_valued(ty, &dims, 50 + k as u64, 100.0);
            cases.push(reduce_case(
                "sum",
                ty,
                &dims,
                &rdims,
                BinaryOp::Add,
                zero,
                x,
                Tolerance::Exact,
            ));
        }
    }
    // Variadic: argmax over rows of an f32 matrix with ties broken towards the lower index.
    let s = |ty| arr(ty, &[]);
    let mut r = B::new();
    let (av, ai, bv, bi) = (
        r.param(s(F32)),
        r.param(s(S32)),
        r.param(s(F32)),
        r.param(s(S32)),
    );
    let gt = r.push(
        Op::Compare {
            direction: ComparisonDirection::Gt,
            total_order: false,
        },
        &[av, bv],
        s(Pred),
    );
    let eq = r.push(
        Op::Compare {
            direction: ComparisonDirection::Eq,
            total_order: false,
        },
        &[av, bv],
        s(Pred),
    );
    let lt = r.push(
        Op::Compare {
            direction: ComparisonDirection::Lt,
            total_order: false,
        },
        &[ai, bi],
        s(Pred),
    );
    let tie = r.push(Op::Binary(BinaryOp::And), &[eq, lt], s(Pred));
    let take_a = r.push(Op::Binary(BinaryOp::Or), &[gt, tie], s(Pred));
    let v = r.push(Op::Select, &[take_a, av, bv], s(F32));
    let i = r.push(Op::Select, &[take_a, ai, bi], s(S32));
    r.push(Op::Tuple, &[v, i], Shape::Tuple(vec![s(F32), s(S32)]));
    let argmax = Arc::new(r.finish("argmax"));
    let mut b = B::new();
    let x = b.param(arr(F32, &[6, 33]));
    let iota = b.push(Op::Iota { dimension: 1 }, &[], arr(S32, &[6, 33]));
    let init_v = b.push(
        Op::Constant(Literal::scalar(f32::NEG_INFINITY)),
        &[],
        s(F32),
    );
    let init_i = b.push(Op::Constant(Literal::scalar(0i32)), &[], s(S32));
    b.push(
        Op::Reduce {
            dimensions: vec![1],
            computation: argmax,
        },
        &[x, iota, init_v, init_i],
        Shape::Tuple(vec![arr(F32, &[6]), arr(S32, &[6])]),
    );
    // Few distinct values so that ties happen.
    let vals = rand(S8, &[6, 33], 5, Dist::Range(0.0, 6.0));
    let vals: Vec<f32> = vals
        .as_slice::<i8>()
        .unwrap_or(&[])
        .iter()
        .map(|&v| v as f32)
        .collect();
    cases.push(EvalCase {
        name: "argmax/variadic".into(),
        comp: b.finish("argmax_rows"),
        args: vec![Literal::from_vec(&[6, 33], vals).expect("6*33 values")],
        check: Close(Tolerance::Exact),
    });
    check_shared("reductions", cases, CHUNK);
}

/// A scalar of real float type `ty` with value `v` (rounded).
fn float_scalar(ty: ElementType, v: f64) -> Literal {
    match ty {
        F16 => Literal::scalar(half::f16::from_f64(v)),
        Bf16 => Literal::scalar(half::bf16::from_f64(v)),
        F32 => Literal::scalar(v as f32),
        _ => Literal::scalar(v),
    }
}

/// Integer-valued floats in [-r, r]: their products and sums are exact in any order, so dots of
/// them are bit-exact whatever the summation order.
fn int_valued(ty: ElementType, dims: &[i64], seed: u64, r: f64) -> Literal {
    let ints = rand(S32, dims, seed, Dist::Range(-r, r));
    xla_oracle::ints_as(ty, &ints).unwrap_or_else(|| rand(ty, dims, seed, Dist::Range(-r, r)))
}

/// (name, lhs dims, rhs dims, result dims, dimension numbers).
type DotCase<'a> = (
    &'a str,
    &'a [i64],
    &'a [i64],
    &'a [i64],
    &'a DotDimensionNumbers,
);

fn dot(
    lhs: &[i64],
    rhs: &[i64],
    out: &[i64],
    dn: DotDimensionNumbers,
    ty: ElementType,
    out_ty: ElementType,
) -> Computation {
    let mut b = B::new();
    let x = b.param(arr(ty, lhs));
    let y = b.param(arr(ty, rhs));
    let pref = if out_ty == ty { None } else { Some(out_ty) };
    b.push(
        Op::DotGeneral {
            dimension_numbers: dn,
            preferred_element_type: pref,
        },
        &[x, y],
        arr(out_ty, out),
    );
    b.finish("dot")
}

#[test]
fn dot_general_matches_xla() {
    let mut cases = Vec::new();
    let mm = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![1],
        rhs_contracting_dimensions: vec![0],
        ..Default::default()
    };
    let bmm = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![2],
        rhs_contracting_dimensions: vec![1],
        lhs_batch_dimensions: vec![0],
        rhs_batch_dimensions: vec![0],
    };
    // Contract lhs dim 0 with rhs dim 1 (a transposed product) and no batch.
    let tmm = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![0],
        rhs_contracting_dimensions: vec![1],
        ..Default::default()
    };
    for (k, ty) in cat(&[&INTS, &FLOATS, &COMPLEX]).into_iter().enumerate() {
        let seed = 10 * k as u64;
        let r = if ty.is_unsigned_int() { 3.0 } else { 4.0 };
        let dot_cases: [DotCase; 4] = [
            ("matmul", &[5, 8], &[8, 3], &[5, 3], &mm),
            ("matvec", &[5, 8], &[8], &[5], &mm),
            ("batch", &[2, 3, 4], &[2, 4, 5], &[2, 3, 5], &bmm),
            ("transposed", &[7, 3], &[2, 7], &[3, 2], &tmm),
        ];
        for (j, (name, l, rr, o, dn)) in dot_cases.into_iter().enumerate() {
            let s = seed + 2 * j as u64;
            cases.push(EvalCase {
                name: format!("dot/{name}/{ty}"),
                comp: dot(l, rr, o, dn.clone(), ty, ty),
                args: vec![int_valued(ty, l, s, r), int_valued(ty, rr, s + 1, r)],
                check: Close(Tolerance::Exact),
            });
        }
    }
    // Preferred element type: s8 x s8 -> s32 and bf16 x bf16 -> f32 accumulate in the wider type.
    for (ty, out) in [(S8, S32), (Bf16, F32), (F16, F32)] {
        cases.push(EvalCase {
            name: format!("dot/preferred/{ty}->{out}"),
            comp: dot(&[4, 64], &[64, 3], &[4, 3], mm.clone(), ty, out),
            args: vec![
                int_valued(ty, &[4, 64], 1, 100.0),
                int_valued(ty, &[64, 3], 2, 100.0),
            ],
            check: Close(Tolerance::Exact),
        });
    }
    // Real-valued products of both signs, every float and complex type: within the forward-error
    // bound of a dot in any summation order (XLA's order differs between AVX2 and AVX-512).
    for (k, ty) in cat(&[&FLOATS, &COMPLEX]).into_iter().enumerate() {
        let d = Dist::Range(-1.0, 1.0);
        let s = 70 + 4 * k as u64;
        for (name, l, r, o, dn) in [
            (
                "random",
                &[6i64, 100][..],
                &[100i64, 7][..],
                &[6i64, 7][..],
                &mm,
            ),
            ("random_batch", &[3, 5, 300], &[3, 300, 4], &[3, 5, 4], &bmm),
        ] {
            cases.push(EvalCase {
                name: format!("dot/{name}/{ty}"),
                comp: dot(l, r, o, dn.clone(), ty, ty),
                args: vec![rand(ty, l, s, d), rand(ty, r, s + 1, d)],
                check: Close(Tolerance::Forward),
            });
        }
    }
    for (ty, out) in [(Bf16, F32), (F16, F32), (F32, F64)] {
        let d = Dist::Range(-1.0, 1.0);
        cases.push(EvalCase {
            name: format!("dot/preferred_random/{ty}->{out}"),
            comp: dot(&[4, 500], &[500, 3], &[4, 3], mm.clone(), ty, out),
            args: vec![rand(ty, &[4, 500], 90, d), rand(ty, &[500, 3], 91, d)],
            check: Close(Tolerance::Forward),
        });
    }
    check_shared("dot_general", cases, CHUNK);
}

#[test]
fn tuples_and_calls_match_xla() {
    let s3 = arr(F32, &[3]);
    // square(x) = x * x, called twice; a tuple parameter and a tuple result.
    let mut q = B::new();
    let x = q.param(s3.clone());
    q.push(Op::Binary(BinaryOp::Mul), &[x, x], s3.clone());
    let square = Arc::new(q.finish("square"));
    let pair = Shape::Tuple(vec![s3.clone(), arr(S32, &[2])]);
    let mut b = B::new();
    let p = b.param(pair.clone());
    let a = b.push(Op::GetTupleElement { index: 0 }, &[p], s3.clone());
    let c1 = b.push(
        Op::Call {
            computation: square.clone(),
            composite: None,
        },
        &[a],
        s3.clone(),
    );
    let c2 = b.push(
        Op::Call {
            computation: square,
            composite: None,
        },
        &[c1],
        s3.clone(),
    );
    let i = b.push(Op::GetTupleElement { index: 1 }, &[p], arr(S32, &[2]));
    let t = b.push(Op::Tuple, &[c2, i], pair.clone());
    let inner = b.push(Op::GetTupleElement { index: 0 }, &[t], s3.clone());
    b.push(Op::Tuple, &[inner, t], Shape::Tuple(vec![s3.clone(), pair]));
    let arg = Literal::Tuple(vec![
        rand(F32, &[3], 1, Dist::Any),
        rand(S32, &[2], 2, Dist::Any),
    ]);
    check_shared(
        "tuples/calls",
        vec![EvalCase {
            name: "tuple_call".into(),
            comp: b.finish("main"),
            args: vec![arg],
            check: Close(Tolerance::Exact),
        }],
        CHUNK,
    );
}

/// XLA:CPU flushes subnormals: a subnormal input reads as zero (DAZ) and a subnormal result is
/// written as zero (FTZ). This is why the inputs of every other test avoid subnormals and the
/// comparison accepts XLA's zero for our subnormal; if a future XLA stops flushing, this test
/// fails and both allowances can go.
#[test]
fn xla_cpu_flushes_subnormals_to_zero() {
    let tiny = f32::from_bits(1); // the smallest positive subnormal
    let mut b = B::new();
    let x = b.param(arr(F32, &[2]));
    let half_ = b.push(
        Op::Constant(Literal::from_vec(&[2], vec![1.0f32, 0.5]).expect("2")),
        &[],
        arr(F32, &[2]),
    );
    let y = b.push(Op::Binary(BinaryOp::Mul), &[x, half_], arr(F32, &[2]));
    let z = b.push(Op::Unary(UnaryOp::Ceil), &[x], arr(F32, &[2]));
    b.push(
        Op::Tuple,
        &[y, z],
        Shape::Tuple(vec![arr(F32, &[2]), arr(F32, &[2])]),
    );
    let comp = b.finish("ftz");
    // x = [tiny, min normal]: tiny * 1 is subnormal (DAZ/FTZ -> 0), ceil(tiny) is 1 in IEEE but
    // ceil(0) = 0 under DAZ; min_normal * 0.5 is a subnormal result (FTZ -> 0).
    let arg = Literal::from_vec(&[2], vec![tiny, f32::MIN_POSITIVE]).expect("2");
    let mut guard = shared();
    let oracle = started(&mut guard, "subnormal flushing");
    let out = oracle
        .run_computation(&comp, &[arg])
        .unwrap_or_else(|e| panic!("{e}"));
    let Literal::Tuple(parts) = out else {
        panic!("expected a tuple, got {}", out.shape())
    };
    assert_eq!(
        parts[0].as_slice::<f32>(),
        Some(&[0.0f32, 0.0][..]),
        "products"
    );
    assert_eq!(parts[1].as_slice::<f32>(), Some(&[0.0f32, 1.0][..]), "ceil");
}

/// The issue's three programs, as the builder lowers them: add_rows, dense_relu, row_softmax.
fn add_rows() -> Computation {
    let mut b = B::new();
    let x = b.param(arr(F32, &[2, 3]));
    let v = b.param(arr(F32, &[3]));
    let vb = b.push(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![1],
        },
        &[v],
        arr(F32, &[2, 3]),
    );
    b.push(Op::Binary(BinaryOp::Add), &[x, vb], arr(F32, &[2, 3]));
    b.finish("add_rows")
}

fn dense_relu(batch: i64) -> Computation {
    let mut b = B::new();
    let x = b.param(arr(F32, &[batch, 784]));
    let w = b.param(arr(F32, &[784, 128]));
    let bias = b.param(arr(F32, &[128]));
    let mm = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![1],
        rhs_contracting_dimensions: vec![0],
        ..Default::default()
    };
    let h = b.push(
        Op::DotGeneral {
            dimension_numbers: mm,
            preferred_element_type: None,
        },
        &[x, w],
        arr(F32, &[batch, 128]),
    );
    let bb = b.push(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![1],
        },
        &[bias],
        arr(F32, &[batch, 128]),
    );
    let h = b.push(Op::Binary(BinaryOp::Add), &[h, bb], arr(F32, &[batch, 128]));
    let zero = b.push(Op::Constant(Literal::scalar(0.0f32)), &[], arr(F32, &[]));
    let zb = b.push(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![],
        },
        &[zero],
        arr(F32, &[batch, 128]),
    );
    b.push(Op::Binary(BinaryOp::Max), &[h, zb], arr(F32, &[batch, 128]));
    b.finish("dense_relu")
}

fn row_softmax(rows: i64, cols: i64) -> Computation {
    let (m, v) = (arr(F32, &[rows, cols]), arr(F32, &[rows]));
    let mut b = B::new();
    let x = b.param(m.clone());
    let ninf = b.push(
        Op::Constant(Literal::scalar(f32::NEG_INFINITY)),
        &[],
        arr(F32, &[]),
    );
    let mx = b.push(
        Op::Reduce {
            dimensions: vec![1],
            computation: reducer(BinaryOp::Max, F32),
        },
        &[x, ninf],
        v.clone(),
    );
    let mxb = b.push(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![0],
        },
        &[mx],
        m.clone(),
    );
    let d = b.push(Op::Binary(BinaryOp::Sub), &[x, mxb], m.clone());
    let e = b.push(Op::Unary(UnaryOp::Exp), &[d], m.clone());
    let zero = b.push(Op::Constant(Literal::scalar(0.0f32)), &[], arr(F32, &[]));
    let s = b.push(
        Op::Reduce {
            dimensions: vec![1],
            computation: reducer(BinaryOp::Add, F32),
        },
        &[e, zero],
        v,
    );
    let sb = b.push(
        Op::BroadcastInDim {
            broadcast_dimensions: vec![0],
        },
        &[s],
        m.clone(),
    );
    b.push(Op::Binary(BinaryOp::Div), &[e, sb], m);
    b.finish("row_softmax")
}

#[test]
fn the_issue_programs_match_xla() {
    let any = Dist::Any;
    let cases = vec![
        EvalCase {
            name: "add_rows".into(),
            comp: add_rows(),
            args: vec![rand(F32, &[2, 3], 1, any), rand(F32, &[3], 2, any)],
            check: Close(Tolerance::Exact),
        },
        // Integer-valued operands: every partial sum is exact, so the result is bit-exact.
        EvalCase {
            name: "dense_relu/int-valued/batch8".into(),
            comp: dense_relu(8),
            args: vec![
                int_valued(F32, &[8, 784], 3, 3.0),
                int_valued(F32, &[784, 128], 4, 3.0),
                int_valued(F32, &[128], 5, 50.0),
            ],
            check: Close(Tolerance::Exact),
        },
        EvalCase {
            name: "dense_relu/random/batch1".into(),
            comp: dense_relu(1),
            args: vec![
                rand(F32, &[1, 784], 6, Dist::Range(0.0, 1.0)),
                rand(F32, &[784, 128], 7, Dist::Range(0.0, 0.1)),
                rand(F32, &[128], 8, any),
            ],
            check: Close(Tolerance::Forward),
        },
        EvalCase {
            name: "row_softmax".into(),
            comp: row_softmax(32, 1000),
            args: vec![rand(F32, &[32, 1000], 9, any)],
            check: Close(bound("softmax", F32)),
        },
    ];
    check_shared("programs", cases, CHUNK);
}

/// The timing path the benchmarks use: a median of XLA runs, in seconds.
#[test]
fn oracle_times_a_program() {
    let text = xla_aot::core::stablehlo::to_stablehlo(&add_rows());
    let args = [
        rand(F32, &[2, 3], 1, Dist::Any),
        rand(F32, &[3], 2, Dist::Any),
    ];
    let mut guard = shared();
    let oracle = started(&mut guard, "timing");
    let t = oracle
        .time(&text, &args, 20)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        t > 0.0 && t < 0.1,
        "median time of a 2x3 add on XLA:CPU: {t} s"
    );
}

/// Programs made with the builder, whose lowering of the seed's sugar (implicit broadcasting,
/// degenerate dimensions, Broadcast, Collapse, Reshape with a dimension order, Dot, layouts on
/// parameters) reaches XLA through the export.
#[test]
fn builder_programs_match_xla() -> Result<(), xla_aot::core::Error> {
    use xla_aot::core::builder::Builder;
    use xla_aot::core::parse_shape;
    let mut cases = Vec::new();
    let shape = |s: &str| parse_shape(s);

    // The seed's (2,3) + (3) with broadcast_dimensions = [1], x in column-major layout.
    let mut b = Builder::new("add_rows_layout");
    let x = b.parameter(0, shape("f32[2,3]{0,1}")?, "x")?;
    let v = b.parameter(1, shape("f32[3]")?, "v")?;
    let r = b.binary(BinaryOp::Add, x, v, Some(&[1]))?;
    cases.push(EvalCase {
        name: "builder/add_rows_layout".into(),
        comp: b.build(r)?,
        args: vec![
            rand(F32, &[2, 3], 1, Dist::Any),
            rand(F32, &[3], 2, Dist::Any),
        ],
        check: Close(Tolerance::Exact),
    });

    // Degenerate dimensions (7,1,5) * (7,2,5), and an array minus a scalar.
    let mut b = Builder::new("degenerate");
    let x = b.parameter(0, shape("s32[7,1,5]")?, "x")?;
    let y = b.parameter(1, shape("s32[7,2,5]")?, "y")?;
    let m = b.binary(BinaryOp::Mul, x, y, None)?;
    let k = b.constant(Literal::scalar(3i32));
    let r = b.binary(BinaryOp::Sub, m, k, None)?;
    cases.push(EvalCase {
        name: "builder/degenerate".into(),
        comp: b.build(r)?,
        args: vec![
            rand(S32, &[7, 1, 5], 3, Dist::Special),
            rand(S32, &[7, 2, 5], 4, Dist::Special),
        ],
        check: Close(Tolerance::Exact),
    });

    // Broadcast (new major dims), Collapse, Reshape with a dimension order, Transpose.
    let mut b = Builder::new("movement");
    let x = b.parameter(0, shape("bf16[2,3,4]")?, "x")?;
    let c = b.collapse(x, &[0, 1])?;
    let bc = b.broadcast(c, &[2])?;
    let rs = b.reshape(bc, Some(&[2, 1, 0]), &[4, 12])?;
    let r = b.transpose(rs, &[1, 0])?;
    cases.push(EvalCase {
        name: "builder/movement".into(),
        comp: b.build(r)?,
        args: vec![rand(Bf16, &[2, 3, 4], 5, Dist::Special)],
        check: Close(Tolerance::Exact),
    });

    // Dot (matrix x vector) on integer-valued f64, lowered to DotGeneral.
    let mut b = Builder::new("matvec");
    let a = b.parameter(0, shape("f64[5,9]")?, "a")?;
    let v = b.parameter(1, shape("f64[9]")?, "v")?;
    let r = b.dot(a, v, None)?;
    cases.push(EvalCase {
        name: "builder/matvec".into(),
        comp: b.build(r)?,
        args: vec![
            int_valued(F64, &[5, 9], 6, 9.0),
            int_valued(F64, &[9], 7, 9.0),
        ],
        check: Close(Tolerance::Exact),
    });
    check_shared("builder", cases, CHUNK);
    Ok(())
}
