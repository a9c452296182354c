//! The dot products' attributes: [`DotDimensionNumbers`] and [`RaggedDotDimensionNumbers`].

/// DotGeneral's dimension numbers. Result dims: batch, lhs free (in order), rhs free (in order).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDimensionNumbers {
    /// Dimensions of the lhs summed over (paired in order with the rhs ones).
    pub lhs_contracting_dimensions: Vec<i64>,
    /// Dimensions of the rhs summed over.
    pub rhs_contracting_dimensions: Vec<i64>,
    /// Dimensions of the lhs matched one-to-one with the rhs batch dimensions (the leading
    /// result dimensions).
    pub lhs_batch_dimensions: Vec<i64>,
    /// Dimensions of the rhs matched with the lhs batch dimensions.
    pub rhs_batch_dimensions: Vec<i64>,
}

/// RaggedDot's dimension numbers (XLA's `RaggedDotDimensionNumbers`): DotGeneral's, plus the
/// one lhs dimension split into groups by `group_sizes` and the rhs dimension that indexes the
/// groups (mode 1 only). The ragged dimension's kind fixes the mode: non-contracting (1: rows of
/// each group times its own rhs slice), contracting (2: each group contracts its own range of
/// `k`, result `[g, ...]`), batch (3: a DotGeneral).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct RaggedDotDimensionNumbers {
    /// The dot's batch and contracting dimensions.
    pub dot: DotDimensionNumbers,
    /// The lhs dimension split into groups (exactly one).
    pub lhs_ragged_dimensions: Vec<i64>,
    /// The rhs dimension indexing the groups (one in mode 1, none otherwise).
    pub rhs_group_dimensions: Vec<i64>,
}

impl RaggedDotDimensionNumbers {
    /// `jax.lax.ragged_dot`'s: `lhs[m, k]` ragged along `m`, `rhs[g, k, n]`.
    pub fn jax_default() -> Self {
        RaggedDotDimensionNumbers {
            dot: DotDimensionNumbers {
                lhs_contracting_dimensions: vec![1],
                rhs_contracting_dimensions: vec![1],
                lhs_batch_dimensions: vec![],
                rhs_batch_dimensions: vec![],
            },
            lhs_ragged_dimensions: vec![0],
            rhs_group_dimensions: vec![0],
        }
    }
}
