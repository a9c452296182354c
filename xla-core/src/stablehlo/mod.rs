//! StableHLO export: a [`Computation`] as MLIR text that XLA (or any StableHLO consumer)
//! compiles, e.g. the XLA oracle of the tests.
//!
//! Shape of the output:
//! - `func.func public @main(%arg0: tensor<2x3xf32>, ...) -> (...)`: tuple parameters are
//!   flattened into one argument per leaf, a tuple result becomes several results, because
//!   StableHLO programs do not pass tuples in practice and XLA's entry points prefer flat
//!   arguments;
//! - one `func.func private` per distinct computation reached through `Call`;
//! - reducers are inlined as the region of `stablehlo.reduce`;
//! - constants are bit-exact (floats in hexadecimal), layouts are dropped (XLA picks its own).
//!
//! Inside a function, tuples never reach MLIR: every instruction maps to a tree of SSA values
//! (`Val`), `Tuple` builds a node, `GetTupleElement` picks a child.

mod control;
pub mod import;
mod ops;
#[cfg(test)]
mod tests;
mod text;

use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::ir::Computation;
use crate::shape::Shape;

pub use text::{dense, tensor_type};

/// The module text for `c` as the entry computation `@main`.
///
/// IR made by the builder is always exportable; for a malformed hand-made IR (an operand of the
/// wrong kind, a constant whose data does not fill its shape...) the result is a one-line MLIR
/// comment naming the problem, which XLA then rejects. Use [`try_to_stablehlo`] to get the
/// error as a value.
pub fn to_stablehlo(c: &Computation) -> String {
    try_to_stablehlo(c).unwrap_or_else(|e| format!("// StableHLO export failed: {e}\n"))
}

/// The module text for `c` as `@main`, or the reason the IR cannot be exported.
pub fn try_to_stablehlo(c: &Computation) -> Result<String> {
    let mut m = Module::default();
    m.used_names.insert("main".to_string());
    let main = m.function(c, "main", "public")?;
    let mut out = main;
    for f in &m.funcs {
        out.push_str(f);
    }
    Ok(out)
}

/// The module text for `c` as `@main` of an SPMD program run by `num_replicas x
/// num_partitions` devices: a `module` carrying `mhlo.num_replicas` and `mhlo.num_partitions`,
/// which XLA reads for its collectives.
pub fn try_to_stablehlo_spmd(
    c: &Computation,
    num_replicas: u32,
    num_partitions: u32,
) -> Result<String> {
    let body = try_to_stablehlo(c)?;
    Ok(format!(
        "module @main attributes {{mhlo.num_replicas = {num_replicas} : i32, \
         mhlo.num_partitions = {num_partitions} : i32}} {{\n{body}}}\n"
    ))
}

/// The SSA values an instruction evaluates to: one value for an array, a tree for a tuple.
#[derive(Clone, Debug)]
enum Val {
    /// One SSA value (`%3`, `%arg0`, `%5#1`) and its MLIR type.
    Leaf { name: String, ty: String },
    /// The elements of a tuple.
    Tuple(Vec<Val>),
}

impl Val {
    /// Leaves in order, depth first.
    fn flatten<'a>(&'a self, out: &mut Vec<&'a Val>) {
        match self {
            Val::Leaf { .. } => out.push(self),
            Val::Tuple(elems) => elems.iter().for_each(|e| e.flatten(out)),
        }
    }

    /// `(names, types)` of the leaves, each joined with `", "`.
    fn names_and_types(&self) -> (String, String) {
        let mut leaves = Vec::new();
        self.flatten(&mut leaves);
        let mut names = Vec::new();
        let mut types = Vec::new();
        for l in leaves {
            if let Val::Leaf { name, ty } = l {
                names.push(name.as_str());
                types.push(ty.as_str());
            }
        }
        (names.join(", "), types.join(", "))
    }

    /// The single value of an array operand, or an error naming the op.
    fn leaf(&self, op: &str) -> Result<(&str, &str)> {
        match self {
            Val::Leaf { name, ty } => Ok((name, ty)),
            Val::Tuple(_) => Err(Error::new(
                op,
                "StableHLO export: operand is a tuple, expected an array",
            )),
        }
    }
}

/// Builds a value tree of `shape` whose leaves are named by `name(i)` for leaf number `i`.
fn tree(shape: &Shape, name: &mut dyn FnMut() -> String) -> Val {
    match shape {
        Shape::Tuple(elems) => Val::Tuple(elems.iter().map(|e| tree(e, name)).collect()),
        Shape::Array(_) | Shape::Token => {
            let ty = text::leaf_type(shape).unwrap_or_default();
            Val::Leaf { name: name(), ty }
        }
    }
}

/// The functions of the module being printed.
#[derive(Default)]
struct Module {
    /// Private functions already printed, in the order they were finished.
    funcs: Vec<String>,
    /// Symbol of each computation already given a function, by address (one function per
    /// distinct computation, however many `Call`s reach it).
    symbols: HashMap<*const Computation, String>,
    /// Symbols taken.
    used_names: HashSet<String>,
}

impl Module {
    /// The symbol of the private function for `c`, printing the function on first use.
    fn callee(&mut self, c: &Arc<Computation>) -> Result<String> {
        let key = Arc::as_ptr(c);
        if let Some(s) = self.symbols.get(&key) {
            return Ok(s.clone());
        }
        let symbol = self.fresh_symbol(&c.name);
        self.symbols.insert(key, symbol.clone());
        let f = self.function(c, &symbol, "private")?;
        self.funcs.push(f);
        Ok(symbol)
    }

    /// A symbol made of `name`'s identifier characters, suffixed to be unique.
    fn fresh_symbol(&mut self, name: &str) -> String {
        let mut base: String = name
            .chars()
            .map(|ch| {
                if ch.is_ascii_alphanumeric() || ch == '_' {
                    ch
                } else {
                    '_'
                }
            })
            .collect();
        if base.is_empty() || base.starts_with(|ch: char| ch.is_ascii_digit()) {
            base.insert(0, '_');
        }
        let mut symbol = base.clone();
        let mut k = 1;
        while self.used_names.contains(&symbol) {
            symbol = format!("{base}_{k}");
            k += 1;
        }
        self.used_names.insert(symbol.clone());
        symbol
    }

    /// `func.func <visibility> @<symbol>(...) -> (...) { ... }` for `c`.
    fn function(&mut self, c: &Computation, symbol: &str, visibility: &str) -> Result<String> {
        let mut arg = 0usize;
        let args: Vec<Val> = c
            .params
            .iter()
            .map(|p| {
                tree(p, &mut || {
                    arg += 1;
                    format!("%arg{}", arg - 1)
                })
            })
            .collect();
        let mut sig = Vec::new();
        for a in &args {
            let mut leaves = Vec::new();
            a.flatten(&mut leaves);
            for l in leaves {
                if let Val::Leaf { name, ty } = l {
                    sig.push(format!("{name}: {ty}"));
                }
            }
        }
        let mut body = Body {
            module: self,
            text: String::new(),
            next: 0,
        };
        let root = body.computation(c, &args, 1)?;
        let (names, types) = root.names_and_types();
        let results = text::results_type(c.result_shape());
        let mut out = String::new();
        let _ = writeln!(
            out,
            "func.func {visibility} @{symbol}({}) -> {results} {{",
            sig.join(", ")
        );
        out.push_str(&body.text);
        if names.is_empty() {
            out.push_str("  return\n");
        } else {
            let _ = writeln!(out, "  return {names} : {types}");
        }
        out.push_str("}\n");
        Ok(out)
    }
}

/// The body of one function being printed (regions included: SSA names are unique across the
/// whole function, since MLIR forbids a region from redefining a name visible in it).
struct Body<'m> {
    module: &'m mut Module,
    text: String,
    next: usize,
}

impl Body<'_> {
    /// A fresh SSA number.
    fn fresh(&mut self) -> usize {
        self.next += 1;
        self.next - 1
    }

    /// Appends one line at `depth` levels of indentation.
    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.text.push_str("  ");
        }
        self.text.push_str(s);
        self.text.push('\n');
    }

    /// Prints the instructions of `c` with `args` bound to its parameters; returns the root's
    /// value.
    fn computation(&mut self, c: &Computation, args: &[Val], depth: usize) -> Result<Val> {
        let mut vals: Vec<Val> = Vec::with_capacity(c.instrs.len());
        for (i, ins) in c.instrs.iter().enumerate() {
            let mut operands = Vec::with_capacity(ins.operands.len());
            let mut shapes = Vec::with_capacity(ins.operands.len());
            for o in &ins.operands {
                let v = vals
                    .get(o.0 as usize)
                    .filter(|_| (o.0 as usize) < i)
                    .ok_or_else(|| {
                        Error::new(
                            ins.op.opcode(),
                            format!(
                                "StableHLO export: operand %{} used before it is defined",
                                o.0
                            ),
                        )
                    })?;
                operands.push(v.clone());
                shapes.push(&c.instrs[o.0 as usize].shape);
            }
            let v = self.instruction(ins, &operands, &shapes, args, depth)?;
            vals.push(v);
        }
        vals.get(c.root.0 as usize).cloned().ok_or_else(|| {
            Error::new(
                "computation",
                format!("StableHLO export: root %{} does not exist", c.root.0),
            )
        })
    }
}
