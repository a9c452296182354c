//! Gather's and Scatter's attributes: [`GatherDimensionNumbers`] and
//! [`ScatterDimensionNumbers`].

/// Gather's dimension numbers (XLA's `GatherDimensionNumbers`): how an output index splits into
/// a batch position (which start index vector) and an offset inside the gathered slice.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDimensionNumbers {
    /// Output dimensions that index inside the slice (ascending); the others are batch dims.
    pub offset_dims: Vec<i64>,
    /// Operand dimensions of slice size 1 left out of the output (ascending).
    pub collapsed_slice_dims: Vec<i64>,
    /// Operand dimensions indexed by the batch position itself (ascending, slice size 0 or 1).
    pub operand_batching_dims: Vec<i64>,
    /// The start-indices dimensions paired with `operand_batching_dims`, in that order.
    pub start_indices_batching_dims: Vec<i64>,
    /// `start_index_map[k]` is the operand dimension component `k` of a start vector indexes.
    pub start_index_map: Vec<i64>,
    /// The start-indices dimension holding the vectors (= its rank: an implicit trailing 1).
    pub index_vector_dim: i64,
}

/// Scatter's dimension numbers (XLA's `ScatterDimensionNumbers`): how an update index splits
/// into a scatter position (which index vector) and an offset inside the updated window.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDimensionNumbers {
    /// Update dimensions that index inside the window (ascending); the others are scatter dims.
    pub update_window_dims: Vec<i64>,
    /// Operand dimensions of window size 1 absent from the updates (ascending).
    pub inserted_window_dims: Vec<i64>,
    /// Operand dimensions indexed by the scatter position itself (ascending).
    pub input_batching_dims: Vec<i64>,
    /// The scatter-indices dimensions paired with `input_batching_dims`, in that order.
    pub scatter_indices_batching_dims: Vec<i64>,
    /// `scatter_dims_to_operand_dims[k]`: the operand dimension component `k` of an index
    /// vector indexes.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// The scatter-indices dimension holding the vectors (= its rank: an implicit trailing 1).
    pub index_vector_dim: i64,
}

impl GatherDimensionNumbers {
    /// Dimension numbers without batching dims: `offset_dims`, `collapsed_slice_dims`,
    /// `start_index_map`, `index_vector_dim` (XLA's order of them).
    pub fn new(offset: &[i64], collapsed: &[i64], map: &[i64], index_vector_dim: i64) -> Self {
        GatherDimensionNumbers {
            offset_dims: offset.to_vec(),
            collapsed_slice_dims: collapsed.to_vec(),
            start_index_map: map.to_vec(),
            index_vector_dim,
            ..Self::default()
        }
    }

    /// These with operand batching dims `operand` paired with start-indices dims `indices`.
    pub fn with_batching(self, operand: &[i64], indices: &[i64]) -> Self {
        GatherDimensionNumbers {
            operand_batching_dims: operand.to_vec(),
            start_indices_batching_dims: indices.to_vec(),
            ..self
        }
    }
}

impl ScatterDimensionNumbers {
    /// Dimension numbers without batching dims: `update_window_dims`, `inserted_window_dims`,
    /// `scatter_dims_to_operand_dims`, `index_vector_dim` (XLA's order of them).
    pub fn new(window: &[i64], inserted: &[i64], map: &[i64], index_vector_dim: i64) -> Self {
        ScatterDimensionNumbers {
            update_window_dims: window.to_vec(),
            inserted_window_dims: inserted.to_vec(),
            scatter_dims_to_operand_dims: map.to_vec(),
            index_vector_dim,
            ..Self::default()
        }
    }

    /// These with input batching dims `input` paired with scatter-indices dims `indices`.
    pub fn with_batching(self, input: &[i64], indices: &[i64]) -> Self {
        ScatterDimensionNumbers {
            input_batching_dims: input.to_vec(),
            scatter_indices_batching_dims: indices.to_vec(),
            ..self
        }
    }
}
