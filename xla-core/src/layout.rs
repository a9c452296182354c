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
        Layout {
            minor_to_major: (0..rank as i64).rev().collect(),
            padded_dimensions: None,
        }
    }

    /// A layout with the given minor_to_major order and no padding.
    pub fn new(minor_to_major: &[i64]) -> Self {
        Layout {
            minor_to_major: minor_to_major.to_vec(),
            padded_dimensions: None,
        }
    }

    /// True when this is the default major-to-minor layout without padding.
    pub fn is_row_major(&self) -> bool {
        self.padded_dimensions.is_none()
            && self
                .minor_to_major
                .iter()
                .rev()
                .copied()
                .eq(0..self.minor_to_major.len() as i64)
    }
}

impl Layout {
    /// `Ok` when `minor_to_major` is a permutation of `0..dims.len()` and `padded_dimensions`
    /// (if any) has one entry per dimension, each >= that dimension's size.
    pub fn validate(&self, dims: &[i64]) -> crate::error::Result<()> {
        use crate::error::Error;
        let rank = dims.len();
        let mut seen = vec![false; rank];
        let ok = self.minor_to_major.len() == rank
            && self.minor_to_major.iter().all(|&d| {
                let fresh = d >= 0 && (d as usize) < rank && !seen[d as usize];
                if fresh {
                    seen[d as usize] = true;
                }
                fresh
            });
        if !ok {
            return Err(Error::new(
                "Layout",
                format!(
                    "minor_to_major {:?} is not a permutation of the {rank} dimensions",
                    self.minor_to_major
                ),
            ));
        }
        if let Some(p) = &self.padded_dimensions {
            if p.len() != rank {
                return Err(Error::new(
                    "Layout",
                    format!(
                        "padded_dimensions {p:?} has {} entries for {rank} dimensions",
                        p.len()
                    ),
                ));
            }
            if let Some(i) = (0..rank).find(|&i| p[i] < dims[i]) {
                return Err(Error::new(
                    "Layout",
                    format!(
                        "padded dimension {i} is {} but the dimension has size {}",
                        p[i], dims[i]
                    ),
                ));
            }
        }
        Ok(())
    }
}
