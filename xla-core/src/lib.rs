//! xla-core: XLA's element types, shapes and layouts, broadcasting rules, an HLO-like IR with a
//! builder, shape inference (the single source of truth for every rule and its error message),
//! a reference evaluator and StableHLO text export.
//!
//! Used twice: by the `xla!` proc-macro at compile time (to check programs) and at run time (the
//! builder, evaluator and export are an ordinary library).

// Every public item states what it is (its maths, where it has some) in its first line.
#![deny(missing_docs)]

pub mod broadcast;
pub mod builder;
pub mod codec;
pub mod element;
pub mod error;
pub mod eval;
pub mod index;
pub mod infer;
pub mod ir;
pub mod layout;
pub mod literal;
pub mod padder;
pub mod reduce_order;
pub mod registry;
pub mod rng;
pub mod scalar;
pub mod shape;
pub mod spmd;
pub mod stablehlo;

pub use element::{ElementType, NativeType};
pub use error::{Blame, Error, Result};
pub use ir::{
    BatchNormKind, BinaryOp, Collective, CollectiveKind, ComparisonDirection, Composite,
    Computation, ConvDimensionNumbers, ConvWindow, DotDimensionNumbers, FftType,
    GatherDimensionNumbers, GroupMode, HostIo, InstrId, Instruction, Op, PadDim,
    RaggedDotDimensionNumbers, RandomAlgorithm, RngDistribution, ScatterDimensionNumbers, UnaryOp,
    Window,
};
pub use layout::Layout;
pub use literal::{ArrayData, ArrayElement, Literal};
pub use shape::{parse_shape, ArrayShape, Shape};

#[doc(hidden)]
pub use half as __half;
#[doc(hidden)]
pub use num_complex as __num_complex;
