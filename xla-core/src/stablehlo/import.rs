//! StableHLO import: MLIR text, as `jax.jit(f).lower(...).as_text()`, `jax.export` and our own
//! exporter print it, parsed and lowered into [`Computation`]s through the [`Builder`], so every
//! shape rule is checked by the same inference as the `xla!` macro.
//!
//! Three steps, one file each:
//! - `cursor.rs`, `types.rs`, `attrs.rs`, `dense.rs`, `parser.rs`, `pretty.rs`: the text as a
//!   syntax tree (`ast.rs`) of functions, operations, regions and attributes, in MLIR's generic
//!   form (`"stablehlo.add"(%a, %b) : (..) -> ..`) or the pretty forms StableHLO prints;
//! - `lower.rs`, `lower/*.rs`: each operation through the op registry (its StableHLO names are
//!   the one table of names) and [`registry::build`](crate::registry::build), control flow
//!   (`while`, `if`, `case`) with the values its regions capture passed as explicit state;
//! - this file: the [`Module`] of lowered functions and running them with the evaluator.
//!
//! Every problem is an [`ImportError`] with the line and column of the op (or token) it is
//! about; unsupported ops, attributes and types are [`ImportError::Unsupported`] naming them.
//! Sharding and frontend attributes (`mhlo.*`, `jax.*`, `sdy.*`) are ignored.
//!
//! The `check` dialect of StableHLO's interpreter tests (`check.expect_eq_const` and friends)
//! is read too: each assertion becomes a [`Check`], and the values it inspects become extra
//! results of the function's computation (see [`Function::run_checked`]), and so is
//! `"interpreter.run_parallel"`, which runs several functions as the devices of one SPMD run on
//! threads (`parallel.rs`).

mod ast;
mod attrs;
mod cursor;
mod dense;
mod lower;
mod parallel;
mod parser;
mod pretty;
mod types;

use std::fmt;
use std::sync::Arc;

use crate::error::Error;
use crate::eval::evaluate;
use crate::ir::Computation;
use crate::literal::Literal;

pub use parallel::{Parallel, Program};

/// Where in the text something is: 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column (in characters), from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Why StableHLO text could not be imported or run.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportError {
    /// The text is not valid MLIR as far as the importer reads it.
    Syntax {
        /// What was expected or found.
        message: String,
        /// Where.
        pos: Pos,
    },
    /// A valid construct the importer does not handle: an op, an attribute, an element type.
    Unsupported {
        /// Its name (`stablehlo.fft`, `element type i4`, `attribute foo of stablehlo.add`).
        feature: String,
        /// Where.
        pos: Pos,
    },
    /// An op the builder rejected: a shape or type rule, with the builder's message.
    Shape {
        /// The StableHLO op.
        op: String,
        /// The rule broken, as xla-core's inference states it.
        error: Box<Error>,
        /// Where the op is.
        pos: Pos,
    },
    /// A declared result type that differs from the inferred one.
    TypeMismatch {
        /// The StableHLO op.
        op: String,
        /// The type the text declares.
        declared: String,
        /// The type inference gives.
        inferred: String,
        /// Where the op is.
        pos: Pos,
    },
    /// A well-formed program that is still wrong: an undefined value or function, an operand
    /// count, a missing function to run.
    Invalid {
        /// What is wrong.
        message: String,
        /// Where.
        pos: Pos,
    },
    /// The evaluator failed while running an imported function.
    Eval(Box<Error>),
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Syntax { message, pos } => write!(f, "{pos}: syntax: {message}"),
            ImportError::Unsupported { feature, pos } => write!(f, "{pos}: unsupported: {feature}"),
            ImportError::Shape { op, error, pos } => write!(f, "{pos}: {op}: {error}"),
            ImportError::TypeMismatch {
                op,
                declared,
                inferred,
                pos,
            } => write!(
                f,
                "{pos}: {op}: declared result type {declared} but inference gives {inferred}"
            ),
            ImportError::Invalid { message, pos } => write!(f, "{pos}: {message}"),
            ImportError::Eval(e) => write!(f, "evaluation: {e}"),
        }
    }
}

impl std::error::Error for ImportError {}

impl ImportError {
    /// The position the error points at (none for evaluation errors).
    pub fn pos(&self) -> Option<Pos> {
        match self {
            ImportError::Syntax { pos, .. }
            | ImportError::Unsupported { pos, .. }
            | ImportError::Shape { pos, .. }
            | ImportError::TypeMismatch { pos, .. }
            | ImportError::Invalid { pos, .. } => Some(*pos),
            ImportError::Eval(_) => None,
        }
    }
}

/// Result with [`ImportError`].
pub type Result<T, E = ImportError> = std::result::Result<T, E>;

/// Which assertion of the `check` dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// `check.expect_eq_const %x, dense<...>` and `check.expect_eq %x, %y`: equal bit for bit
    /// except that NaN equals NaN.
    Eq,
    /// `check.expect_almost_eq_const` / `check.expect_almost_eq`: absolute difference within
    /// the tolerance (1e-4 unless given).
    AlmostEq,
    /// `check.expect_close %x, %y, max_ulp_difference = n`: within `n` units in the last place.
    Close,
}

/// One assertion of a test function: the values it inspects are extra results of the
/// function's computation, in the order of the checks ([`Function::run_checked`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// What is asserted.
    pub kind: CheckKind,
    /// The expected constant of the `*_const` forms; `None` when the check compares two
    /// computed values.
    pub expected: Option<Literal>,
    /// `tolerance = t` of the almost-equal forms.
    pub tolerance: Option<f64>,
    /// `(min, max)` ulp difference of `expect_close`.
    pub ulps: (u64, u64),
    /// Where the check is.
    pub pos: Pos,
}

impl Check {
    /// How many computed values the check inspects (1 against a constant, else 2).
    pub fn arity(&self) -> usize {
        if self.expected.is_some() {
            1
        } else {
            2
        }
    }
}

/// One `func.func` of the module, lowered.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its symbol, without `@`.
    pub name: String,
    /// `public` (or no visibility) rather than `private`.
    pub public: bool,
    /// The computation: its parameters are the function's arguments (or, after
    /// `interpreter.run_parallel`s, the last stage's values: see `stages`); its root is the
    /// single result, or a tuple of the results followed by the values of the checks.
    pub computation: Arc<Computation>,
    /// The `interpreter.run_parallel`s of its body, in order, each with the stage before it;
    /// `computation` is the stage after the last (empty for most functions).
    pub stages: Vec<Parallel>,
    /// How many results the function declares.
    pub results: usize,
    /// The `check.*` assertions in its body, in order.
    pub checks: Vec<Check>,
    /// Where `func.func` is.
    pub pos: Pos,
}

impl Function {
    /// Whether the computation's root is a tuple holding the results (and check values).
    fn tupled(&self) -> bool {
        self.results != 1 || !self.checks.is_empty()
    }

    /// Runs the function on `args` with the evaluator: its results (the checks' values left
    /// out).
    pub fn run(&self, args: &[Literal]) -> Result<Vec<Literal>> {
        Ok(self.run_checked(args)?.0)
    }

    /// Runs the function on `args`: its results, and for each check the values it inspects
    /// ([`Check::arity`] of them).
    pub fn run_checked(&self, args: &[Literal]) -> Result<(Vec<Literal>, Vec<Vec<Literal>>)> {
        let mut staged: Vec<Literal>;
        let mut args = args;
        for stage in &self.stages {
            staged = stage.run(args)?;
            args = &staged;
        }
        let out = evaluate(&self.computation, args).map_err(|e| ImportError::Eval(Box::new(e)))?;
        if !self.tupled() {
            return Ok((vec![out], Vec::new()));
        }
        let Literal::Tuple(mut all) = out else {
            return Err(ImportError::Eval(Box::new(Error::new(
                "run",
                "the function's computation did not return a tuple",
            ))));
        };
        let mut checked = all.split_off(self.results.min(all.len())).into_iter();
        let values = self
            .checks
            .iter()
            .map(|c| checked.by_ref().take(c.arity()).collect())
            .collect();
        Ok((all, values))
    }
}

/// A lowered module: every function of the text, in order.
#[derive(Clone, Debug)]
pub struct Module {
    /// The functions.
    pub functions: Vec<Function>,
}

impl Module {
    /// The function called `name` (without `@`).
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}

/// Parses and lowers StableHLO text: a `module { ... }` or bare `func.func`s.
pub fn parse_module(text: &str) -> Result<Module> {
    let funcs = parser::parse(text)?;
    lower::lower_module(&funcs)
}

/// Imports `text` and runs its function `fn_name` on `args` with the evaluator: the results.
pub fn run(text: &str, fn_name: &str, args: &[Literal]) -> Result<Vec<Literal>> {
    let module = parse_module(text)?;
    let f = module
        .function(fn_name)
        .ok_or_else(|| ImportError::Invalid {
            message: format!("no function @{fn_name} in the module"),
            pos: Pos { line: 1, col: 1 },
        })?;
    f.run(args)
}

#[cfg(test)]
mod collective_tests;
#[cfg(test)]
mod custom_tests;
#[cfg(test)]
mod tests;
