//! Tensors in and out of files: numpy's `.npy` and `.npz`, and (feature `safetensors`)
//! safetensors.
//!
//! Each format loads into a typed [`Tensor`] or into a dynamic [`Literal`] (for harnesses that
//! learn the shape from the file). A typed load checks the file's element type and dimensions
//! against the tensor type before any data is decoded; every problem with the data is a
//! [`DataError`] that names the file (and the member or tensor), never a panic:
//!
//! ```text
//! weights.npz, member w1.npy: holds f64[784,128] (numpy '<f8'), expected f32[784,128]
//! ```
//!
//! ```
//! use xla_kernels::io;
//! use xla_kernels::tensor::{Tensor, D2};
//!
//! let path = std::env::temp_dir().join(format!("xla-io-doc-{}.npy", std::process::id()));
//! let x: Tensor<f32, D2<2, 3>> = Tensor::from_fn(|i| (i[0] * 3 + i[1]) as f32);
//! io::save_npy(&path, &x)?;
//! let y: Tensor<f32, D2<2, 3>> = io::load_npy(&path)?;
//! assert_eq!(y, x);
//! let e = io::load_npy::<f64, D2<2, 3>>(&path).unwrap_err();
//! assert_eq!(
//!     e.to_string(),
//!     format!("{}: holds f32[2,3] (numpy '<f4'), expected f64[2,3]", path.display())
//! );
//! let any = io::load_npy_literal(&path)?; // any element type and shape
//! assert_eq!(any, x.to_literal());
//! # std::fs::remove_file(&path).unwrap();
//! # Ok::<(), io::DataError>(())
//! ```
//!
//! | format | read | write |
//! |---|---|---|
//! | `.npy` ([`npy`]) | every element type; little- and big-endian; C and Fortran order (copied to row-major) | little-endian, C order, byte for byte what `np.save` writes |
//! | `.npz` ([`npz`]) | stored and deflated members (`np.savez`, `np.savez_compressed`) | stored or deflated |
//! | safetensors (`safetensors`, feature of that name) | every element type but c128 (the format has none) | the same |
//!
//! Element types map to numpy's as `pred` = `|b1`, `s8..s64` = `i1..i8`, `u8..u64` =
//! `u1..u8`, `f16` = `f2`, `f32` = `f4`, `f64` = `f8`, `c64` = `c8`, `c128` = `c16`, and `bf16`
//! = `<V2`: numpy has no bfloat16, and an `ml_dtypes.bfloat16` array goes through `np.save` as
//! two raw bytes per element (`'descr': '<V2'`, checked with numpy 2.4 and ml_dtypes 0.6). So a
//! 2-byte void array is read as bf16 (the file cannot say more), bf16 is written the same way,
//! and numpy reads it back with `np.load(f).view(ml_dtypes.bfloat16)`.
//!
//! **Why our own `.npy` reader.** The format is a magic string, a Python dict literal of three
//! keys and the raw elements. The crates of the field do not cover this project's types:
//! `ndarray-npy` has no f16/bf16 and needs `ndarray`; `npyz` reads f16 but not bf16 (its
//! `Deserialize` trait cannot be implemented for `half::bf16` outside either crate), and both
//! parse the header through a general Python-literal parser and report `io::Error`s that name
//! neither the file nor the expected type. Reading the header ourselves (about 200 lines in
//! [`npy`]) gives every type, the error messages above, and a size check before any
//! allocation: a header that claims 2^60 elements is refused by comparing its byte count with
//! the bytes the file has. `.npz` uses the `zip` crate (archives have enough corner cases,
//! zip64 and deflate among them, to want a maintained reader), safetensors its reference crate.

use std::fmt;

use xla_core::{ArrayElement, ArrayShape, ElementType, Literal};

use crate::tensor::{Dims, Tensor};

mod codec;
pub mod npy;
pub mod npz;
#[cfg(feature = "safetensors")]
pub mod safetensors;

pub use npy::{load_npy, load_npy_literal, save_npy, save_npy_literal};
pub use npz::{Npz, NpzWriter};
#[cfg(feature = "safetensors")]
pub use safetensors::{SafeTensorsFile, SafeTensorsWriter};

/// Why a file could not be read or written: the file (and member or tensor name) and what was
/// wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    /// The file as given (`weights.npz, member w1.npy` for an archive member, `<bytes>` when
    /// read from memory without a name).
    pub file: String,
    /// What was wrong.
    pub kind: DataErrorKind,
}

/// What was wrong with a file; see [`DataError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataErrorKind {
    /// The operating system could not read or write the file (its message).
    Io(String),
    /// The bytes are not a valid file of the format: bad magic, a header that does not parse,
    /// a size that does not match the header, an invalid element.
    Malformed(String),
    /// A valid file holding something this library has no type for (a structured numpy dtype,
    /// strings, float128, an 8-bit float), or a value that the format cannot store.
    Unsupported(String),
    /// The file holds a valid array, but not of the requested element type and dimensions.
    Mismatch {
        /// The requested tensor's shape (HLO text, `f32[784,128]`).
        expected: String,
        /// What the file holds (`f64[784,128] (numpy '<f8')`).
        found: String,
    },
    /// No tensor (or archive member) of that name.
    Missing {
        /// The name asked for.
        name: String,
        /// The names the file has (sorted).
        available: Vec<String>,
    },
}

impl DataError {
    pub(crate) fn new(file: &str, kind: DataErrorKind) -> Self {
        DataError {
            file: file.to_string(),
            kind,
        }
    }

    pub(crate) fn io(file: &str, what: &str, e: &std::io::Error) -> Self {
        Self::new(file, DataErrorKind::Io(format!("cannot {what}: {e}")))
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file)?;
        match &self.kind {
            DataErrorKind::Io(m) | DataErrorKind::Malformed(m) | DataErrorKind::Unsupported(m) => {
                f.write_str(m)
            }
            DataErrorKind::Mismatch { expected, found } => {
                write!(f, "holds {found}, expected {expected}")
            }
            DataErrorKind::Missing { name, available } => {
                write!(f, "no tensor named `{name}`")?;
                // A long list helps nobody; the first names show what the file is.
                const SHOWN: usize = 8;
                if available.is_empty() {
                    f.write_str(" (the file holds none)")
                } else {
                    let list = available[..available.len().min(SHOWN)].join(", ");
                    let more = available.len().saturating_sub(SHOWN);
                    if more > 0 {
                        write!(f, " (the file has: {list} and {more} more)")
                    } else {
                        write!(f, " (the file has: {list})")
                    }
                }
            }
        }
    }
}

impl std::error::Error for DataError {}

/// What a file says it holds, before the data is decoded: compared with a tensor type by
/// [`check_against`].
pub(crate) struct Found {
    /// The element type, or why the file's dtype has none.
    pub ty: Result<ElementType, String>,
    /// The dimensions.
    pub dims: Vec<u64>,
    /// The format's own name of the dtype, for messages (`numpy '<f8'`, `safetensors F64`).
    pub format_dtype: String,
}

impl Found {
    /// `f64[784,128] (numpy '<f8')`, or `numpy '<U2' with shape (2,)` without an element type.
    pub fn describe(&self) -> String {
        match &self.ty {
            Ok(ty) => format!("{}[{}] ({})", ty, join(&self.dims, ","), self.format_dtype),
            Err(why) => format!(
                "{} ({why}) of dims [{}]",
                self.format_dtype,
                join(&self.dims, ",")
            ),
        }
    }
}

fn join(dims: &[u64], sep: &str) -> String {
    dims.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

/// The shape a typed load expects, without the layout (files hold logical arrays).
fn expected_shape<T: ArrayElement, D: Dims>() -> ArrayShape {
    let dims: Vec<i64> = D::DIMS.iter().map(|&d| d as i64).collect();
    ArrayShape::new(T::TYPE, &dims)
}

/// `Ok` when the file holds exactly `T[D]`; else the [`DataErrorKind::Mismatch`] naming both.
pub(crate) fn check_against<T: ArrayElement, D: Dims>(found: &Found) -> Result<(), DataErrorKind> {
    let dims_match =
        found.dims.len() == D::RANK && found.dims.iter().zip(D::DIMS).all(|(&a, &b)| a == b as u64);
    if found.ty.as_ref().ok() == Some(&T::TYPE) && dims_match {
        return Ok(());
    }
    Err(DataErrorKind::Mismatch {
        expected: expected_shape::<T, D>().to_string(),
        found: found.describe(),
    })
}

/// The tensor holding a decoded literal that [`check_against`] accepted.
pub(crate) fn literal_to_tensor<T: ArrayElement, D: Dims>(
    literal: &Literal,
    file: &str,
) -> Result<Tensor<T, D>, DataError> {
    // Only reachable if the decoder and the check disagree; still an Err, not a panic.
    Tensor::from_literal(literal)
        .map_err(|e| DataError::new(file, DataErrorKind::Malformed(e.to_string())))
}

/// The row-major dims of a literal to be written, or why it cannot be.
pub(crate) fn array_of(
    literal: &Literal,
) -> Result<(&ArrayShape, &xla_core::ArrayData), DataErrorKind> {
    let (shape, data) = literal.as_array().ok_or_else(|| {
        DataErrorKind::Unsupported(format!(
            "{} is not an array; only arrays can be stored",
            literal.shape()
        ))
    })?;
    if shape.is_dynamic() || shape.dims.iter().any(|&d| d < 0) {
        return Err(DataErrorKind::Unsupported(format!(
            "{shape} has dynamic dimensions; only static arrays can be stored"
        )));
    }
    let count = shape
        .dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d as usize));
    if count != Some(data.len()) || data.element_type() != shape.ty {
        return Err(DataErrorKind::Unsupported(format!(
            "the literal's data ({} elements of {}) does not match its shape {shape}",
            data.len(),
            data.element_type()
        )));
    }
    Ok((shape, data))
}

/// A file name for messages.
pub(crate) fn display_path(path: &std::path::Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests;
