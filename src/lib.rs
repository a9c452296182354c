//! `xla-aot`: XLA's operation set inside Rust, checked and compiled ahead of time.
//!
//! Write a program inside [`xla!`]; every shape is inferred with XLA's rules at compile time,
//! every violation is a compile error at the offending token, and the program expands to
//! shape-specialised SIMD loops calling [`kernels`].
//!
//! This crate is the single dependency a user adds; generated code refers to items through
//! `::xla_aot::...` paths only.

pub use xla_core as core;
pub use xla_kernels as kernels;
pub use xla_macros::xla;

pub use xla_core::{ElementType, Literal, Shape};
pub use xla_kernels::tensor::*;

/// Re-exports used by generated code; not a stable API.
#[doc(hidden)]
pub mod __rt {
    pub use half;
    pub use num_complex;
    pub use rayon;
    pub use wide;
    pub use xla_core;
    pub use xla_kernels;
}
