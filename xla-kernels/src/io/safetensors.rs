//! safetensors files (feature `safetensors`): an 8-byte little-endian header length, a JSON
//! header naming each tensor's dtype, shape and byte range, then the little-endian data.
//!
//! The `safetensors` crate (the format's reference implementation) parses and validates the
//! header: offsets contiguous and in range, sizes matching shapes, no overflow, the header at
//! most 100 MB. We map its dtypes to element types, check them against the tensor type and
//! decode the bytes with the same code as `.npy`.
//!
//! ```no_run
//! # use xla_kernels::{io::{SafeTensorsFile, SafeTensorsWriter}, tensor::{Tensor, D1, D2}};
//! let file = SafeTensorsFile::open("model.safetensors")?;
//! let w1: Tensor<f32, D2<784, 128>> = file.load("w1")?;
//! let b1: Tensor<f32, D1<128>> = file.load("b1")?;
//!
//! let mut out = SafeTensorsWriter::new();
//! out.add("w1", &w1)?;
//! out.add("b1", &b1)?;
//! out.save("copy.safetensors")?;
//! # Ok::<(), xla_kernels::io::DataError>(())
//! ```
//!
//! Every element type but c128 has a safetensors dtype (`BOOL`, `I8`..`I64`, `U8`..`U64`,
//! `F16`, `BF16`, `F32`, `F64`, `C64`); loading an 8-, 6- or 4-bit float, or saving c128, is
//! an [`Unsupported`](super::DataErrorKind::Unsupported) error.

use std::borrow::Cow;
use std::path::Path;

use safetensors::tensor::{Metadata, SafeTensors, TensorInfo};
use safetensors::{Dtype, SafeTensorError, View};
use xla_core::{ArrayElement, ElementType, Literal};

use super::{
    check_against, codec, display_path, literal_to_tensor, npy, DataError, DataErrorKind, Found,
};
use crate::tensor::{Dims, LayoutSpec, Tensor};

/// The element type of a safetensors dtype, or why there is none.
fn element_type(dtype: Dtype) -> Result<ElementType, String> {
    Ok(match dtype {
        Dtype::BOOL => ElementType::Pred,
        Dtype::I8 => ElementType::S8,
        Dtype::I16 => ElementType::S16,
        Dtype::I32 => ElementType::S32,
        Dtype::I64 => ElementType::S64,
        Dtype::U8 => ElementType::U8,
        Dtype::U16 => ElementType::U16,
        Dtype::U32 => ElementType::U32,
        Dtype::U64 => ElementType::U64,
        Dtype::F16 => ElementType::F16,
        Dtype::BF16 => ElementType::Bf16,
        Dtype::F32 => ElementType::F32,
        Dtype::F64 => ElementType::F64,
        Dtype::C64 => ElementType::C64,
        // The 8-, 6- and 4-bit floats, and any dtype a later version of the format adds.
        _ => return Err("no XLA element type in xla-aot".to_string()),
    })
}

/// The safetensors dtype of an element type; c128 has none.
fn dtype_of(ty: ElementType) -> Option<Dtype> {
    Some(match ty {
        ElementType::Pred => Dtype::BOOL,
        ElementType::S8 => Dtype::I8,
        ElementType::S16 => Dtype::I16,
        ElementType::S32 => Dtype::I32,
        ElementType::S64 => Dtype::I64,
        ElementType::U8 => Dtype::U8,
        ElementType::U16 => Dtype::U16,
        ElementType::U32 => Dtype::U32,
        ElementType::U64 => Dtype::U64,
        ElementType::F16 => Dtype::F16,
        ElementType::Bf16 => Dtype::BF16,
        ElementType::F32 => Dtype::F32,
        ElementType::F64 => Dtype::F64,
        ElementType::C64 => Dtype::C64,
        ElementType::C128 => return None,
    })
}

/// A safetensors file read into memory, its header validated.
pub struct SafeTensorsFile {
    file: String,
    bytes: Vec<u8>,
    /// Where the data section starts (after the length field and the header).
    data_start: usize,
    metadata: Metadata,
}

impl SafeTensorsFile {
    /// Reads and validates a safetensors file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, DataError> {
        let path = path.as_ref();
        Self::from_bytes(npy::read_file(path)?, &display_path(path))
    }

    /// Validates safetensors bytes; `file` names them in errors.
    pub fn from_bytes(bytes: Vec<u8>, file: &str) -> Result<Self, DataError> {
        let (header_len, metadata) = SafeTensors::read_metadata(&bytes).map_err(|e| {
            DataError::new(
                file,
                DataErrorKind::Malformed(format!("not a valid safetensors file: {e}")),
            )
        })?;
        Ok(SafeTensorsFile {
            file: file.to_string(),
            bytes,
            // read_metadata checked that 8 + header_len is within the buffer.
            data_start: 8 + header_len,
            metadata,
        })
    }

    /// The tensors' names, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.metadata.tensors().into_keys().collect();
        names.sort();
        names
    }

    /// The file's free-form `__metadata__` (string keys and values), sorted by key; empty when
    /// it has none.
    pub fn metadata(&self) -> Vec<(String, String)> {
        let mut pairs: Vec<(String, String)> = self
            .metadata
            .metadata()
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        pairs.sort();
        pairs
    }

    fn info(&self, name: &str) -> Result<(&TensorInfo, String), DataError> {
        let info = self.metadata.info(name).ok_or_else(|| {
            DataError::new(
                &self.file,
                DataErrorKind::Missing {
                    name: name.to_string(),
                    available: self.names(),
                },
            )
        })?;
        Ok((info, format!("{}, tensor `{name}`", self.file)))
    }

    fn found(info: &TensorInfo) -> Found {
        Found {
            ty: element_type(info.dtype),
            dims: info.shape.iter().map(|&d| d as u64).collect(),
            format_dtype: format!("safetensors {}", info.dtype),
        }
    }

    fn decode(&self, info: &TensorInfo, label: &str) -> Result<Literal, DataError> {
        let err = |k| DataError::new(label, k);
        let ty = element_type(info.dtype).map_err(|why| {
            err(DataErrorKind::Unsupported(format!(
                "safetensors dtype {} has {why}",
                info.dtype
            )))
        })?;
        let (s, e) = info.data_offsets;
        // The crate validated the ranges; `get` keeps even a disagreement an Err.
        let bytes = self
            .bytes
            .get(self.data_start + s..self.data_start + e)
            .ok_or_else(|| {
                err(DataErrorKind::Malformed(
                    "the tensor's data is out of range".into(),
                ))
            })?;
        let dims: Vec<i64> = info.shape.iter().map(|&d| d as i64).collect();
        let count = info.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
        if dims.iter().any(|&d| d < 0)
            || count.and_then(|c| c.checked_mul(ty.byte_width())) != Some(bytes.len())
        {
            return Err(err(DataErrorKind::Malformed(format!(
                "the shape {:?} does not match the {} bytes of data",
                info.shape,
                bytes.len()
            ))));
        }
        let data = codec::decode(ty, false, bytes).map_err(|m| err(DataErrorKind::Malformed(m)))?;
        Ok(Literal::Array {
            shape: xla_core::ArrayShape::new(ty, &dims),
            data,
        })
    }

    /// Loads tensor `name` into a tensor of type `T[D]`; `Err` (naming the file and the
    /// tensor) when there is no such tensor or it has another element type or shape.
    pub fn load<T: ArrayElement, D: Dims>(&self, name: &str) -> Result<Tensor<T, D>, DataError> {
        let (info, label) = self.info(name)?;
        check_against::<T, D>(&Self::found(info)).map_err(|k| DataError::new(&label, k))?;
        literal_to_tensor(&self.decode(info, &label)?, &label)
    }

    /// Loads tensor `name`, of whatever element type and shape it has, as a literal.
    pub fn load_literal(&self, name: &str) -> Result<Literal, DataError> {
        let (info, label) = self.info(name)?;
        self.decode(info, &label)
    }
}

/// One tensor to be written: the safetensors crate serializes anything that is a [`View`].
struct Entry {
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

impl View for &Entry {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// Collects named tensors and writes them as one safetensors file.
#[derive(Default)]
pub struct SafeTensorsWriter {
    entries: Vec<(String, Entry)>,
}

impl SafeTensorsWriter {
    /// An empty file.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tensor` under `name`; `Err` if the name is taken or `T` is c128.
    pub fn add<T: ArrayElement, D: Dims, L: LayoutSpec>(
        &mut self,
        name: &str,
        tensor: &Tensor<T, D, L>,
    ) -> Result<(), DataError> {
        self.add_literal(name, &tensor.to_literal())
    }

    /// Adds an array literal under `name`; `Err` if the name is taken, for c128, a tuple or
    /// dynamic dimensions.
    pub fn add_literal(&mut self, name: &str, literal: &Literal) -> Result<(), DataError> {
        let err = |k| DataError::new(&format!("<safetensors>, tensor `{name}`"), k);
        let (shape, data) = super::array_of(literal).map_err(err)?;
        let dtype = dtype_of(shape.ty).ok_or_else(|| {
            err(DataErrorKind::Unsupported(format!(
                "{} has no safetensors dtype",
                shape.ty
            )))
        })?;
        if self.entries.iter().any(|(n, _)| n == name) {
            return Err(err(DataErrorKind::Unsupported(
                "the file already has a tensor of this name".into(),
            )));
        }
        let mut bytes = Vec::new();
        codec::encode(data, &mut bytes);
        let shape = shape.dims.iter().map(|&d| d as usize).collect();
        self.entries.push((
            name.to_string(),
            Entry {
                dtype,
                shape,
                bytes,
            },
        ));
        Ok(())
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, DataError> {
        let views = self.entries.iter().map(|(n, e)| (n.as_str(), e));
        safetensors::serialize(views, None).map_err(|e: SafeTensorError| {
            DataError::new(
                "<safetensors>",
                DataErrorKind::Unsupported(format!("cannot serialize: {e}")),
            )
        })
    }

    /// Writes the file.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), DataError> {
        let path = path.as_ref();
        let bytes = self
            .to_bytes()
            .map_err(|e| DataError::new(&display_path(path), e.kind))?;
        npy::write_file(path, &bytes)
    }
}
