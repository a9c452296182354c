//! The error every shape-checked kernel returns for a bad descriptor or buffer (nothing is
//! written then). Kernels check everything up front, so they never panic on caller input.

use std::fmt;

/// Why a kernel refused its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelError {
    /// A buffer's length differs from what its shape needs.
    BufferLength {
        /// The kernel (`"transpose"`, `"sort"`, `"reduce"`, `"conv"`, ...).
        op: &'static str,
        /// Which buffer (`"src"`, `"dst"`, `"keys"`, `"input"`, ...).
        operand: &'static str,
        /// Elements the shape holds.
        expected: usize,
        /// Elements given.
        actual: usize,
    },
    /// A descriptor is malformed (a permutation that is not one, a dimension out of range, an
    /// element count that overflows `usize`, ...).
    Invalid {
        /// The kernel.
        op: &'static str,
        /// What is wrong, naming the rule and the values (`"perm [0,0] is not a permutation of
        /// 0..2"`).
        reason: String,
    },
}

impl KernelError {
    /// Shorthand for [`KernelError::Invalid`].
    pub fn invalid(op: &'static str, reason: impl Into<String>) -> Self {
        KernelError::Invalid {
            op,
            reason: reason.into(),
        }
    }

    /// `Ok(())` if `actual == expected`, else [`KernelError::BufferLength`].
    pub fn check_len(
        op: &'static str,
        operand: &'static str,
        expected: usize,
        actual: usize,
    ) -> Result<(), Self> {
        if expected == actual {
            Ok(())
        } else {
            Err(KernelError::BufferLength {
                op,
                operand,
                expected,
                actual,
            })
        }
    }
}

/// Product of `dims` (the element count of a row-major array), or an error on overflow.
pub fn element_count(op: &'static str, dims: &[usize]) -> Result<usize, KernelError> {
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            KernelError::invalid(
                op,
                format!("the element count of dims {dims:?} overflows usize"),
            )
        })
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::BufferLength {
                op,
                operand,
                expected,
                actual,
            } => write!(
                f,
                "{op}: buffer `{operand}` has {actual} elements but its shape holds {expected}"
            ),
            KernelError::Invalid { op, reason } => write!(f, "{op}: {reason}"),
        }
    }
}

impl std::error::Error for KernelError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_op_and_values() {
        let e = KernelError::check_len("transpose", "dst", 6, 5).unwrap_err();
        assert_eq!(
            e.to_string(),
            "transpose: buffer `dst` has 5 elements but its shape holds 6"
        );
        assert!(KernelError::check_len("sort", "keys", 3, 3).is_ok());
        let e = element_count("reduce", &[usize::MAX, 2]).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("reduce: the element count of dims"));
        assert_eq!(element_count("reduce", &[]).unwrap(), 1);
        assert_eq!(element_count("reduce", &[2, 0, 3]).unwrap(), 0);
    }
}
