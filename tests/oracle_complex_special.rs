//! Oracle test of every complex unary op on special and large components: each op XLA accepts
//! for c64/c128 (Abs Cos Cosh Exp Expm1 Imag Log Log1p Logistic Neg Real Rsqrt Sign Sin Sqrt
//! Tan Tanh; XLA rejects Cbrt and IsFinite for complex) is run on the 17 x 17 grid of
//! components {±0, ±1, ±inf, NaN, ±0.5, ±3, ±100, ±200, ±1e10} through the generated code of an
//! `xla!` fn, the evaluator and XLA:CPU.
//!
//! XLA does not follow C99 Annex G here (`|inf + NaN i| = NaN`, `sqrt(-4 - 0i) = 2i`,
//! `exp(-inf + inf i) = NaN + NaN i`, `tanh(100 + i) = 1` in c64), so these cases pin its
//! semantics. Per result element, a component that is NaN, infinite or zero on either side must
//! match exactly (any NaN matches any NaN; our subnormal matches XLA's flushed zero of the same
//! sign, as everywhere in the oracle); the element as a whole must then be within the op's ulp
//! bound of `xla_oracle::bounds` (exact for ops without one), unless all of XLA's components are
//! special.
//!
//! Run: `cargo test -p xla-aot --test oracle_complex_special` (the oracle venv: `bash
//! oracle/setup.sh`).

// The allocating `fn name(&Tensor..)` wrappers are not called here: the cases run the generated
// code through `name::run_literals`.
#![allow(dead_code)]

mod common;

use common::Gen;
use num_complex::Complex;
use xla_aot::core::eval::evaluate;
use xla_aot::core::stablehlo::try_to_stablehlo;
use xla_aot::core::{ArrayData, ArrayElement, ElementType, Literal};
use xla_oracle::{bounds, check_close, Oracle, Tolerance};

/// The components of the grid: the special values and large finite ones (where `e^±2re`,
/// `e^±im` overflow or underflow, in f32 or f64) next to small ones.
const PARTS: [f64; 17] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    0.5,
    -0.5,
    3.0,
    -3.0,
    100.0,
    -100.0,
    200.0,
    -200.0,
    1e10,
    -1e10,
];

/// Stamps out, per `module Op "key" => c64 result, c128 result;`, a module with
/// `c64::f(x: c64[17, 17]) -> R[17, 17] { Op(x) }` and the same for c128, and `fn ops()`
/// listing `(key, c64 fn, c128 fn)`.
macro_rules! complex_ops {
    ($( $m:ident $op:ident $key:literal => $r64:ident, $r128:ident; )*) => {
        $(
            mod $m {
                pub mod c64 {
                    xla_aot::xla! {
                        pub fn f(x: c64[17, 17]) -> $r64[17, 17] {
                            $op(x)
                        }
                    }
                }
                pub mod c128 {
                    xla_aot::xla! {
                        pub fn f(x: c128[17, 17]) -> $r128[17, 17] {
                            $op(x)
                        }
                    }
                }
            }
        )*
        fn ops() -> Vec<(&'static str, Gen, Gen)> {
            vec![$((
                $key,
                gen!(concat!($key, "/c64"), $m::c64::f),
                gen!(concat!($key, "/c128"), $m::c128::f),
            ),)*]
        }
    };
}

complex_ops! {
    abs Abs "abs" => f32, f64;
    cos Cos "cos" => c64, c128;
    cosh Cosh "cosh" => c64, c128;
    exp Exp "exp" => c64, c128;
    expm1 Expm1 "expm1" => c64, c128;
    imag Imag "imag" => f32, f64;
    log Log "log" => c64, c128;
    log1p Log1p "log1p" => c64, c128;
    logistic Logistic "logistic" => c64, c128;
    neg Neg "neg" => c64, c128;
    real Real "real" => f32, f64;
    rsqrt Rsqrt "rsqrt" => c64, c128;
    sign Sign "sign" => c64, c128;
    sin Sin "sin" => c64, c128;
    sqrt Sqrt "sqrt" => c64, c128;
    tan Tan "tan" => c64, c128;
    tanh Tanh "tanh" => c64, c128;
}

/// The grid: element `(i, j)` is `PARTS[i] + PARTS[j] i`, in the complex type `ty`.
fn grid(ty: ElementType) -> Literal {
    let pairs = || {
        PARTS
            .iter()
            .flat_map(|&re| PARTS.iter().map(move |&im| (re, im)))
    };
    let lit = match ty {
        ElementType::C64 => Literal::from_vec(
            &[17, 17],
            pairs()
                .map(|(re, im)| Complex::new(re as f32, im as f32))
                .collect(),
        ),
        _ => Literal::from_vec(
            &[17, 17],
            pairs().map(|(re, im)| Complex::new(re, im)).collect(),
        ),
    };
    lit.unwrap_or_else(|e| panic!("grid: {e}"))
}

/// A result component: f32 or f64.
trait Part: ArrayElement + Copy {
    /// NaN, an infinity or a zero: the components compared bit for bit.
    fn special(self) -> bool;
}

impl Part for f32 {
    fn special(self) -> bool {
        !self.is_finite() || self == 0.0
    }
}

impl Part for f64 {
    fn special(self) -> bool {
        !self.is_finite() || self == 0.0
    }
}

/// One element `ours` against XLA's `xla`, given as its components (`parts`): special
/// components exactly, then the element within `bound` unless all of XLA's components are
/// special.
fn check_elem<T, F>(
    label: &str,
    ours: T,
    xla: T,
    parts: fn(T) -> Vec<F>,
    bound: Tolerance,
) -> Result<(), String>
where
    T: ArrayElement + Copy,
    F: Part,
{
    let one = |v: Vec<F>| Literal::from_vec(&[1], v).map_err(|e| format!("{label}: {e}"));
    let (po, px) = (parts(ours), parts(xla));
    let mut all_special = true;
    for (k, (&o, &x)) in po.iter().zip(&px).enumerate() {
        if o.special() || x.special() {
            let part = match (po.len(), k) {
                (1, _) => "",
                (_, 0) => " (re)",
                _ => " (im)",
            };
            check_close(
                &format!("{label}{part}"),
                &one(vec![o])?,
                &one(vec![x])?,
                Tolerance::Exact,
            )?;
        }
        all_special &= x.special();
    }
    if !all_special {
        let whole = |v: T| Literal::from_vec(&[1], vec![v]).map_err(|e| format!("{label}: {e}"));
        check_close(label, &whole(ours)?, &whole(xla)?, bound)?;
    }
    Ok(())
}

/// Every element of `ours` against `xla` (results of `name` on [`grid`]); the failures, each
/// naming the input.
fn check_grid(name: &str, ours: &Literal, xla: &Literal, bound: Tolerance) -> Vec<String> {
    let (Some((so, a)), Some((sx, b))) = (ours.as_array(), xla.as_array()) else {
        return vec![format!("{name}: not arrays")];
    };
    if so != sx || a.len() != PARTS.len() * PARTS.len() {
        return vec![format!("{name}: shape {so:?} vs XLA's {sx:?}")];
    }
    let label = |i: usize| {
        format!(
            "{name} at ({:?}, {:?})",
            PARTS[i / PARTS.len()],
            PARTS[i % PARTS.len()]
        )
    };
    fn cx<F: Copy>(z: Complex<F>) -> Vec<F> {
        vec![z.re, z.im]
    }
    fn re<F: Copy>(x: F) -> Vec<F> {
        vec![x]
    }
    let results: Vec<Result<(), String>> = match (a, b) {
        (ArrayData::C64(a), ArrayData::C64(b)) => (0..a.len())
            .map(|i| check_elem(&label(i), a[i], b[i], cx, bound))
            .collect(),
        (ArrayData::C128(a), ArrayData::C128(b)) => (0..a.len())
            .map(|i| check_elem(&label(i), a[i], b[i], cx, bound))
            .collect(),
        (ArrayData::F32(a), ArrayData::F32(b)) => (0..a.len())
            .map(|i| check_elem(&label(i), a[i], b[i], re, bound))
            .collect(),
        (ArrayData::F64(a), ArrayData::F64(b)) => (0..a.len())
            .map(|i| check_elem(&label(i), a[i], b[i], re, bound))
            .collect(),
        _ => return vec![format!("{name}: element types differ")],
    };
    results.into_iter().filter_map(Result::err).collect()
}

/// Runs `gen` on the grid through XLA, the generated code and the evaluator; the failures.
fn run_case(oracle: &mut Oracle, key: &str, gen: Gen, ty: ElementType) -> Vec<String> {
    let comp = (gen.computation)();
    let hlo = (gen.stablehlo)();
    match try_to_stablehlo(&comp) {
        Ok(t) if t == hlo => {}
        _ => return vec![format!("{}: stablehlo() is not the export", gen.name)],
    }
    let args = [grid(ty)];
    let xla = match oracle.run(&hlo, &args) {
        Ok(mut v) if v.len() == 1 => v.remove(0),
        Ok(v) => return vec![format!("{}: XLA returned {} results", gen.name, v.len())],
        Err(e) => return vec![format!("{}: XLA failed: {e}", gen.name)],
    };
    let mut fails = Vec::new();
    match (gen.run)(&args) {
        Ok(ours) => fails.extend(check_grid(
            &format!("{} [generated]", gen.name),
            &ours,
            &xla,
            bounds::gen_bound(key, ty),
        )),
        Err(e) => fails.push(format!("{} [generated]: {e}", gen.name)),
    }
    match evaluate(&comp, &args) {
        Ok(ours) => fails.extend(check_grid(
            &format!("{} [evaluator]", gen.name),
            &ours,
            &xla,
            bounds::eval_bound(key, ty),
        )),
        Err(e) => fails.push(format!("{} [evaluator]: {e}", gen.name)),
    }
    fails
}

#[test]
fn complex_unary_ops_match_xla_on_special_and_large_components() {
    let mut oracle = Oracle::start().unwrap_or_else(|e| {
        panic!("the XLA oracle cannot start, so complex special values cannot be checked:\n{e}")
    });
    let mut fails = Vec::new();
    let mut cases = 0;
    for (key, c64, c128) in ops() {
        for (gen, ty) in [(c64, ElementType::C64), (c128, ElementType::C128)] {
            fails.extend(run_case(&mut oracle, key, gen, ty));
            cases += 1;
        }
    }
    assert!(
        fails.is_empty(),
        "{} elements differ from XLA:\n{}",
        fails.len(),
        fails.join("\n")
    );
    assert_eq!(cases, 34, "17 ops x 2 types");
}

/// The element check is not vacuous: classes must match bit for bit, finite values only within
/// the bound, and a flushed subnormal is accepted only with the right sign.
#[test]
fn the_element_check_is_exact_on_special_components() {
    fn cx<F: Copy>(z: Complex<F>) -> Vec<F> {
        vec![z.re, z.im]
    }
    let c = Complex::new;
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let ok = |o: Complex<f32>, x: Complex<f32>, t: Tolerance| check_elem("t", o, x, cx, t).is_ok();
    let u4 = Tolerance::Ulp(4);
    // Any NaN matches any NaN; inf only the same inf; -0 and +0 differ.
    assert!(ok(c(nan, 1.0), c(-nan, 1.0), u4));
    assert!(!ok(c(inf, 0.0), c(nan, 0.0), u4));
    assert!(!ok(c(inf, 0.0), c(-inf, 0.0), u4));
    assert!(!ok(c(1.0, -0.0), c(1.0, 0.0), u4));
    // Ours zero where XLA's is tiny but nonzero is a different class.
    assert!(!ok(c(1.0, 0.0), c(1.0, 1e-30), u4));
    // Finite components within the bound (normwise), not beyond.
    let next = f32::from_bits(1.5f32.to_bits() + 3);
    assert!(ok(c(next, 2.0), c(1.5, 2.0), u4));
    assert!(!ok(c(next, 2.0), c(1.5, 2.0), Tolerance::Ulp(1)));
    // Our subnormal against XLA's flushed zero: same sign only.
    let sub = f32::from_bits(3);
    assert!(ok(c(sub, -sub), c(0.0, -0.0), Tolerance::Exact));
    assert!(!ok(c(sub, 1.0), c(-0.0, 1.0), u4));
    // Real results (Abs, Real, Imag).
    let re = |x: f32| vec![x];
    assert!(check_elem("t", nan, -nan, re, Tolerance::Exact).is_ok());
    assert!(check_elem("t", inf, nan, re, u4).is_err());
}
