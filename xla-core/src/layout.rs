//! Layouts (`minor_to_major`, `padded_dimensions`) and the index maps between a multi-index and
//! a linear buffer offset, as XLA's `IndexUtil`.

/// Physical arrangement of an array in linear memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Dimension numbers from the fastest-varying (most minor) to the slowest (most major).
    pub minor_to_major: Vec<i64>,
    /// Optional padded size of each dimension (one entry per dimension, each >= the size).
    pub padded_dimensions: Option<Vec<i64>>,
}

impl Layout {
    /// The default layout: dimension `rank-1` is most minor (row-major for rank 2).
    pub fn row_major(rank: usize) -> Self {
        Layout { minor_to_major: (0..rank as i64).rev().collect(), padded_dimensions: None }
    }

    /// A layout with the given minor_to_major order and no padding.
    pub fn new(minor_to_major: &[i64]) -> Self {
        Layout { minor_to_major: minor_to_major.to_vec(), padded_dimensions: None }
    }

    /// True when this is the default major-to-minor layout without padding.
    pub fn is_row_major(&self) -> bool {
        self.padded_dimensions.is_none()
            && self.minor_to_major.iter().rev().copied().eq(0..self.minor_to_major.len() as i64)
    }
}
