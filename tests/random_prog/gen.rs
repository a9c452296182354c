//! The program generator: values, their shapes (from the `Builder`, i.e. from xla-core's
//! inference rules) and what is known about their elements ([`Info`]), the program's source
//! text, and the driver that draws ops ([`generate`]). The ops themselves are in `ops.rs`.
//!
//! The generator knows XLA's rules on its own (which element types each op takes, what
//! `preferred_element_type` may be, ...): every op it draws is valid for XLA, so a `Builder`
//! error is reported as a rejected valid program ([`Rejected`]), never skipped.

use xla_aot::core::builder::{Builder, XlaOp};
use xla_aot::core::{ArrayShape, Computation, ElementType, Error, Shape};
use ElementType::*;

use super::{Data, Rng, Tol};

/// Every integer type.
pub const INTS: [ElementType; 8] = [S8, S16, S32, S64, U8, U16, U32, U64];
/// Every real float type.
pub const FLOATS: [ElementType; 4] = [F16, Bf16, F32, F64];

/// Largest element count of any value, so that programs stay fast to run.
const MAX_ELEMENTS: i64 = 1536;

/// A generated program: source text, the computation built from it and how to check it.
pub struct Program {
    /// The fn's name (`rp_<seed>`).
    pub name: String,
    /// The seed it was drawn from.
    pub seed: u64,
    /// Parameter shapes and how their arguments are drawn.
    pub params: Vec<(ArrayShape, Data)>,
    /// `let` lines of the body.
    pub body: Vec<String>,
    /// The body's final expression.
    pub result: String,
    /// Bound of each result leaf.
    pub tol: Vec<Tol>,
    /// The program as built through the `Builder`.
    pub computation: Computation,
}

impl Program {
    /// The program as an `xla!` fn.
    pub fn source(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, (s, _))| format!("p{i}: {s}"))
            .collect();
        let mut s = format!(
            "pub fn {}({}) -> {} {{\n",
            self.name,
            params.join(", "),
            self.computation.result_shape()
        );
        for line in &self.body {
            s.push_str(&format!("    {line}\n"));
        }
        s.push_str(&format!("    {}\n}}\n", self.result));
        s
    }

    /// Parameter shapes.
    pub fn shapes(&self) -> Vec<Shape> {
        self.params
            .iter()
            .map(|(s, _)| Shape::Array(s.clone()))
            .collect()
    }

    /// How each parameter is drawn.
    pub fn data(&self) -> Vec<Data> {
        self.params.iter().map(|&(_, d)| d).collect()
    }
}

/// A valid program that xla-core's Builder refused: the source up to the refused op, and why.
#[derive(Debug)]
pub struct Rejected {
    pub source: String,
    pub error: String,
}

/// What is known of a value's elements, which decides the ops it may feed and the bound its
/// results are checked with.
#[derive(Clone, Copy, Debug)]
pub struct Info {
    /// Ulps (of its own type) by which ours may differ from XLA's (0: bit-exact).
    pub tol: u64,
    /// `Some(m)`: every element is finite with magnitude at most `m` (None: unknown, NaN and
    /// infinities possible).
    pub mag: Option<f64>,
    /// Every finite element is an integer.
    pub int: bool,
    /// A float product that may have been rounded: XLA:CPU may contract it with a following
    /// add into one FMA, so it must not feed Add or Sub.
    pub mul: bool,
    /// Made by a broadcast (through shape-only ops), an exp, a pow or a (reciprocal) square
    /// root: XLA rewrites a division by it as a multiplication (by the reciprocal, by
    /// `exp(-x)`, `pow(x, -y)`, `rsqrt`/`sqrt`).
    pub bcast: bool,
    /// The sign of a zero may differ from XLA's: a float sum or dot whose terms are all -0 is
    /// +0 for ours (a sum from the init +0, as the StableHLO spec's reduce) but often -0 for
    /// XLA:CPU (a dot computed as a multiplication, some dots of converted integers, reduces).
    /// Such values only feed ops that carry the sign along, and are compared up to it.
    pub zsign: bool,
    /// May be a compile-time constant for XLA (constants, iotas, `x ^ x`, ...): XLA:CPU dies of
    /// SIGFPE when it folds an integer division by a constant zero, so no integer Div or Rem
    /// gets two of them.
    pub konst: bool,
    /// Its NaNs are the arguments' (moved, negated or made absolute, never computed): a NaN
    /// an op computes has an unspecified sign (XLA:CPU's is x86's negative default NaN), which
    /// TotalOrder tells apart.
    pub raw: bool,
    /// An integer Pow (moved or negated): XLA:CPU miscompiles an integer division of it
    /// (`pow(a, b) / pow(a, b)` is 0 for 4 / 4 in u8, seed 101451), so it feeds no Div or Rem.
    pub ipow: bool,
    /// May hold a subnormal: XLA:CPU reads it as zero (denormals-are-zero), so it only feeds
    /// ops continuous at zero (seed 402498: cbrt of a subnormal quotient).
    pub sub: bool,
}

impl Info {
    /// An exact value with magnitude bound `mag`.
    pub fn exact(mag: Option<f64>, int: bool) -> Info {
        Info {
            tol: 0,
            mag,
            int,
            mul: false,
            bcast: false,
            zsign: false,
            konst: false,
            raw: false,
            ipow: false,
            sub: false,
        }
    }

    /// May be ordered by TotalOrder with the same result as XLA: no NaN, or only the
    /// arguments' NaNs.
    pub fn total_orderable(&self) -> bool {
        self.mag.is_some() || self.raw
    }

    /// True when sums of `terms` products of this and `other` (magnitudes multiplied) are
    /// exact in type `ty` whatever the order: integer-valued, and every partial sum below
    /// `2^precision`.
    pub fn summable(&self, other: &Info, terms: i64, ty: ElementType) -> bool {
        if !is_floaty(ty) {
            return true;
        }
        match (self.mag, other.mag) {
            (Some(a), Some(b)) if self.int && other.int && self.tol == 0 && other.tol == 0 => {
                !self.mul && !other.mul && terms.max(1) as f64 * a * b <= exact_limit(ty)
            }
            _ => false,
        }
    }
}

/// Float or complex.
pub fn is_floaty(t: ElementType) -> bool {
    t.is_float() || t.is_complex()
}

/// Bits of precision of a float (complex: of a component), integers 64.
pub fn precision(t: ElementType) -> u32 {
    match t.complex_component().unwrap_or(t).float_bits() {
        Some((_, m)) => m + 1,
        None => 64,
    }
}

/// `2^precision`: every integer up to it is exact in `t`.
pub fn exact_limit(t: ElementType) -> f64 {
    2f64.powi(precision(t) as i32)
}

/// `mag` if a float (complex: component) of type `t` holds it without overflowing; integer
/// types always do (they wrap, which their own rules account for).
pub fn fin(mag: Option<f64>, t: ElementType) -> Option<f64> {
    let max = match t.complex_component().unwrap_or(t) {
        F16 => 65504.0,
        Bf16 | F32 => f64::from(f32::MAX),
        F64 => f64::MAX,
        _ => return mag,
    };
    mag.filter(|&m| m <= max)
}

/// Largest value of an integer type (pred 1) as f64.
pub fn int_max(t: ElementType) -> f64 {
    match t {
        Pred => 1.0,
        _ if t.is_signed_int() => 2f64.powi(t.bit_width() as i32 - 1) - 1.0,
        _ => 2f64.powi(t.bit_width() as i32) - 1.0,
    }
}

/// One value of the program.
pub struct Val {
    /// Its name in the source (`p0`, `v3`).
    pub name: String,
    pub op: XlaOp,
    pub shape: ArrayShape,
    pub info: Info,
    /// How many ops read it.
    pub uses: u32,
}

/// The generator's state for one program.
pub struct G {
    pub rng: Rng,
    pub b: Builder,
    pub vals: Vec<Val>,
    pub params: Vec<(ArrayShape, Data)>,
    pub body: Vec<String>,
    next: usize,
    /// The first Builder error: the program is then a [`Rejected`] one.
    pub error: Option<String>,
}

impl G {
    /// A fresh name for a `let`.
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    /// Records `expr` as `let name = expr;` when the Builder accepted it (`r`); otherwise
    /// remembers the error. Returns the new value's index.
    pub fn add(
        &mut self,
        expr: String,
        r: Result<XlaOp, Error>,
        info: Info,
        reads: &[usize],
    ) -> Option<usize> {
        let op = match r {
            Ok(op) => op,
            Err(e) => {
                self.error.get_or_insert(format!("{expr}: {e}"));
                return None;
            }
        };
        let name = self.fresh("v");
        self.body.push(format!("let {name} = {expr};"));
        Some(self.push(name, op, info, reads))
    }

    /// Adds a value already built (`op`) under `name`.
    pub fn push(&mut self, name: String, op: XlaOp, info: Info, reads: &[usize]) -> usize {
        for &r in reads {
            self.vals[r].uses += 1;
        }
        let shape = match self.b.shape(op) {
            Shape::Array(a) => a.clone(),
            other => panic!("generator: value {name} is {other}, not an array"),
        };
        self.vals.push(Val {
            name,
            op,
            shape,
            info,
            uses: 0,
        });
        self.vals.len() - 1
    }

    /// A new parameter of `shape`, drawn by `data`.
    pub fn param(&mut self, shape: ArrayShape, data: Data) -> Option<usize> {
        let i = self.params.len();
        let name = format!("p{i}");
        let r = self.b.parameter(i, Shape::Array(shape.clone()), &name);
        let op = match r {
            Ok(op) => op,
            Err(e) => {
                self.error
                    .get_or_insert(format!("parameter {name}: {shape}: {e}"));
                return None;
            }
        };
        let info = match (data, shape.ty) {
            (_, Pred) => Info::exact(Some(1.0), true),
            (Data::S(r), _) => Info::exact(Some(f64::from(r)), true),
            (Data::F, t) if t.is_integral() => Info::exact(Some(int_max(t)), true),
            (Data::F, _) => Info::exact(None, false),
        };
        self.params.push((shape, data));
        let info = Info { raw: true, ..info };
        Some(self.push(name, op, info, &[]))
    }

    /// A new parameter of `shape` with small integer data (what sums and dots can take).
    pub fn small_param(&mut self, shape: ArrayShape) -> Option<usize> {
        let r = self.rng.pick(&[1, 2, 3, 4]);
        self.param(shape, Data::S(r))
    }

    /// A random value index satisfying `ok`, preferring recent and unread values.
    pub fn pick(&mut self, ok: impl Fn(&Val) -> bool) -> Option<usize> {
        let cands: Vec<usize> = (0..self.vals.len())
            .filter(|&i| ok(&self.vals[i]))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let fresh: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|&i| self.vals[i].uses == 0)
            .collect();
        if !fresh.is_empty() && self.rng.pct(60) {
            return Some(self.rng.pick(&fresh));
        }
        Some(self.rng.pick(&cands))
    }

    /// A random element type (every type equally likely).
    pub fn any_type(&mut self) -> ElementType {
        self.rng.pick(&ElementType::ALL)
    }

    /// A random size of one dimension: mostly 1..8, sometimes 0 or a size past a vector width.
    pub fn dim(&mut self) -> i64 {
        match self.rng.below(100) {
            0..=3 => 0,
            4..=8 => self.rng.pick(&[9, 16, 17, 33]),
            _ => self.rng.range(1, 8),
        }
    }

    /// Random dims of `rank`, with at most `MAX_ELEMENTS` elements.
    pub fn dims(&mut self, rank: usize) -> Vec<i64> {
        let mut d: Vec<i64> = (0..rank).map(|_| self.dim()).collect();
        while d.iter().product::<i64>() > MAX_ELEMENTS {
            let i = self.rng.below(rank);
            d[i] = (d[i] / 2).max(1);
        }
        d
    }

    /// A random rank (0..=4, mostly 1..=3).
    pub fn rank(&mut self) -> usize {
        self.rng.pick(&[0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4])
    }

    /// A new parameter of a random shape and type.
    pub fn random_param(&mut self) -> Option<usize> {
        let ty = self.any_type();
        let rank = self.rank();
        let dims = self.dims(rank);
        let data = if ty.is_complex() || self.rng.pct(60) {
            Data::S(self.rng.pick(&[1, 2, 3, 4, 8]))
        } else {
            Data::F
        };
        self.param(ArrayShape::new(ty, &dims), data)
    }

    /// Whether an `n`-element value may be added.
    pub fn fits(n: i64) -> bool {
        n <= MAX_ELEMENTS
    }
}

/// The program of `seed`: 1-3 parameters, then 6-24 random ops, the result 1-3 of the values
/// no op reads (a tuple when more than one).
pub fn generate(seed: u64) -> Result<Program, Rejected> {
    let name = format!("rp_{seed}");
    let mut g = G {
        rng: Rng::new(seed),
        b: Builder::new(name.clone()),
        vals: Vec::new(),
        params: Vec::new(),
        body: Vec::new(),
        next: 0,
        error: None,
    };
    let n_params = g.rng.range(1, 3);
    for _ in 0..n_params {
        g.random_param();
    }
    let target = g.rng.range(6, 24) as usize;
    let mut made = 0;
    let mut attempts = 0;
    while made < target && attempts < 8 * target && g.error.is_none() {
        attempts += 1;
        let before = g.body.len();
        g.random_op();
        if g.body.len() > before {
            made += 1;
        }
    }
    let rejected = |g: &G, e: &str| Rejected {
        source: format!(
            "fn {name}({}) {{\n    {}\n}}",
            g.params
                .iter()
                .enumerate()
                .map(|(i, (s, _))| format!("p{i}: {s}"))
                .collect::<Vec<_>>()
                .join(", "),
            g.body.join("\n    ")
        ),
        error: e.to_string(),
    };
    if let Some(e) = &g.error {
        return Err(rejected(&g, e));
    }
    let results = g.results();
    let tol: Vec<Tol> = results
        .iter()
        .map(|&i| match g.vals[i].info {
            Info {
                tol: 0,
                zsign: false,
                ..
            } => Tol::Exact,
            Info { tol, .. } => Tol::Ulp(tol),
        })
        .collect();
    let names: Vec<String> = results.iter().map(|&i| g.vals[i].name.clone()).collect();
    let ops: Vec<XlaOp> = results.iter().map(|&i| g.vals[i].op).collect();
    let (result, root) = if results.len() == 1 {
        (names[0].clone(), Ok(ops[0]))
    } else {
        (format!("Tuple({})", names.join(", ")), g.b.tuple(&ops))
    };
    let root = root.map_err(|e| rejected(&g, &format!("{result}: {e}")))?;
    let G {
        b, params, body, ..
    } = g;
    let computation = b.build(root).map_err(|e| Rejected {
        source: body.join("\n"),
        error: e.to_string(),
    })?;
    Ok(Program {
        name,
        seed,
        params,
        body,
        result,
        tol,
        computation,
    })
}

impl G {
    /// The result values: the last value, and up to two more no op reads.
    fn results(&mut self) -> Vec<usize> {
        let last = self.vals.len() - 1;
        let mut out = vec![last];
        let sinks: Vec<usize> = (0..last)
            .filter(|&i| self.vals[i].uses == 0 && !self.vals[i].name.starts_with('p'))
            .collect();
        let extra = self.rng.below(3).min(sinks.len());
        let mut sinks = sinks;
        self.rng.shuffle(&mut sinks);
        out.extend(sinks.into_iter().take(extra));
        out
    }
}
