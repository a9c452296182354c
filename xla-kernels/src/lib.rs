//! xla-kernels: the runtime library generated code calls into.
//!
//! - [`tensor`]: statically shaped tensors over aligned buffers;
//! - [`par`]: deterministic data-parallel helpers on rayon;
//! - [`display`]: numpy-style array printing.
//! - [`simd`]: the `VFloat` vector trait generated code is written against ([`math`]: its
//!   vector transcendental functions);
//! - [`gemm`]: strided batched matrix multiplication for every XLA element type;
//! - [`reduce`]: reductions over any set of dims of any rank (fast f32/f64 sum/max/min,
//!   generic combiners, variadic);
//! - [`transpose`]: any permutation, cache-blocked, and strided copies;
//! - [`gather`], [`scatter`]: XLA's Gather (starts clamped) and Scatter (windows outside the
//!   operand skipped, updates applied in index order) with any dimension numbers;
//! - [`sort`]: sort along any dimension (radix on total-order keys, comparator sorts,
//!   permutations for multi-operand sorts) and TopK;
//! - [`error`]: [`KernelError`], returned by the shape-checked kernels;
//! - [`io`]: tensors in and out of `.npy`, `.npz` and (feature `safetensors`) safetensors files.
//! - [`collectives`]: the SPMD collectives over a transport: threads, or (feature `mpi`,
//!   `collectives::mpi`) one MPI rank per device.

// Every public item states what it is (its maths, where it has some) in its first line.
#![deny(missing_docs)]

pub mod aligned;
pub mod collectives;
pub mod cpu;
pub mod display;
pub mod dynamic_slice;
pub mod error;
pub mod fft;
pub mod fused;
pub mod gather;
pub mod gemm;
pub mod io;
pub mod linalg;
pub mod math;
pub mod par;
pub mod simd;
pub mod tensor;
pub use error::KernelError;
pub mod conv;
pub mod reduce;
pub mod rng;
pub mod scatter;
pub mod sort;
pub mod transpose;
pub mod window;
