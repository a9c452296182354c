//! xla-kernels: the runtime library generated code calls into.

pub mod tensor;
