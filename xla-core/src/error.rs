//! The one error type of xla-core: which op, which rule, both shapes, and what to blame.

use std::fmt;

/// Which part of an op a diagnostic points at, so the macro can underline the user's own token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blame {
    /// The op as a whole (its name).
    Op,
    /// Operand number `i` (0-based, in the order the user wrote them).
    Operand(usize),
    /// The attribute with this name (`broadcast_dimensions`, `dimensions`, ...).
    Attribute(&'static str),
    /// The computation (closure or fn name) passed to the op; its first when it takes several.
    Computation,
    /// Computation number `i` of an op that takes several (While: condition 0, body 1;
    /// Conditional: its branches in order).
    ComputationAt(usize),
    /// The declared result type of a fn or the type of a parameter.
    Result,
}

/// A violated rule: `op` names the user-facing op (`Add`, `Collapse`, `Dot`), `message` states
/// the rule and prints the shapes involved (`f32[2,3] vs f32[3]`), `help` optionally suggests a
/// fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// User-facing op name.
    pub op: String,
    /// The rule and the shapes involved.
    pub message: String,
    /// What to underline.
    pub blame: Blame,
    /// A suggested fix, if there is an obvious one.
    pub help: Option<String>,
}

impl Error {
    /// An error blamed on the op as a whole.
    pub fn new(op: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            op: op.into(),
            message: message.into(),
            blame: Blame::Op,
            help: None,
        }
    }

    /// Set what the error points at.
    pub fn blame(mut self, blame: Blame) -> Self {
        self.blame = blame;
        self
    }

    /// Attach a suggested fix.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.message)?;
        if let Some(h) = &self.help {
            write!(f, "; help: {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `n` and the noun in the right number: `count(1, "entry", "entries")` is `1 entry`,
/// `count(2, "entry", "entries")` is `2 entries`; for messages that print counts.
pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
