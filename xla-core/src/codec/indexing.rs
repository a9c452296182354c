//! Gather's and Scatter's attributes in the byte form (see the parent module).

use super::{Reader, Writer};
use crate::error::Result;
use crate::ir::{GatherDimensionNumbers, ScatterDimensionNumbers};

impl Writer {
    /// Gather: the six dimension-number fields, then the slice sizes and the sorted flag.
    pub(super) fn gather(&mut self, d: &GatherDimensionNumbers, slice_sizes: &[i64], sorted: bool) {
        self.ints(&d.offset_dims);
        self.ints(&d.collapsed_slice_dims);
        self.ints(&d.operand_batching_dims);
        self.ints(&d.start_indices_batching_dims);
        self.ints(&d.start_index_map);
        self.i(d.index_vector_dim);
        self.ints(slice_sizes);
        self.u(u64::from(sorted));
    }

    /// Scatter: the six dimension-number fields and the two flags (the computation follows).
    pub(super) fn scatter(&mut self, d: &ScatterDimensionNumbers, sorted: bool, unique: bool) {
        self.ints(&d.update_window_dims);
        self.ints(&d.inserted_window_dims);
        self.ints(&d.input_batching_dims);
        self.ints(&d.scatter_indices_batching_dims);
        self.ints(&d.scatter_dims_to_operand_dims);
        self.i(d.index_vector_dim);
        self.u(u64::from(sorted));
        self.u(u64::from(unique));
    }
}

impl Reader<'_> {
    /// What [`Writer::gather`] wrote.
    pub(super) fn gather(&mut self) -> Result<(GatherDimensionNumbers, Vec<i64>, bool)> {
        let d = GatherDimensionNumbers {
            offset_dims: self.ints()?,
            collapsed_slice_dims: self.ints()?,
            operand_batching_dims: self.ints()?,
            start_indices_batching_dims: self.ints()?,
            start_index_map: self.ints()?,
            index_vector_dim: self.i()?,
        };
        Ok((d, self.ints()?, self.bool()?))
    }

    /// What [`Writer::scatter`] wrote.
    pub(super) fn scatter(&mut self) -> Result<(ScatterDimensionNumbers, bool, bool)> {
        let d = ScatterDimensionNumbers {
            update_window_dims: self.ints()?,
            inserted_window_dims: self.ints()?,
            input_batching_dims: self.ints()?,
            scatter_indices_batching_dims: self.ints()?,
            scatter_dims_to_operand_dims: self.ints()?,
            index_vector_dim: self.i()?,
        };
        Ok((d, self.bool()?, self.bool()?))
    }
}
