//! numpy's `.npz`: a zip archive of `.npy` members, one per array, named `NAME.npy` (what
//! `np.savez(f, NAME=array)` writes). Members may be stored (`np.savez`) or deflated
//! (`np.savez_compressed`); reading goes through the `zip` crate, each member through
//! [`npy`], with the same checks and messages, the file naming the member.
//!
//! ```no_run
//! # use xla_kernels::{io::{Npz, NpzWriter}, tensor::{Tensor, D1, D2}};
//! let mut npz = Npz::open("weights.npz")?;
//! let w1: Tensor<f32, D2<784, 128>> = npz.load("w1")?;
//! let b1: Tensor<f32, D1<128>> = npz.load("b1")?;
//!
//! let mut out = NpzWriter::create("copy.npz")?;
//! out.add("w1", &w1)?;
//! out.add("b1", &b1)?;
//! out.finish()?;
//! # Ok::<(), xla_kernels::io::DataError>(())
//! ```

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::Path;

use xla_core::{ArrayElement, Literal};
use zip::result::ZipError;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::{check_against, display_path, literal_to_tensor, npy, DataError, DataErrorKind};
use crate::tensor::{Dims, LayoutSpec, Tensor};

/// Members are read into memory whole (the `.npy` parser works on bytes); this much is
/// reserved up front at most, the rest grows with the data actually decompressed, so a size
/// that the archive claims but does not hold allocates nothing.
const MAX_RESERVE: u64 = 64 << 20;

/// An open `.npz` archive: its member names, and each member loaded by name.
pub struct Npz<R: Read + Seek = File> {
    file: String,
    archive: ZipArchive<R>,
}

impl Npz<File> {
    /// Opens a `.npz` file; `Err` if it cannot be read or is not a zip archive.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, DataError> {
        let path = path.as_ref();
        let name = display_path(path);
        let file = File::open(path).map_err(|e| DataError::io(&name, "open the file", &e))?;
        Self::new(file, &name)
    }
}

impl<R: Read + Seek> Npz<R> {
    /// Reads the archive's directory from `reader`; `file` names it in errors.
    pub fn new(reader: R, file: &str) -> Result<Self, DataError> {
        let archive = ZipArchive::new(reader).map_err(|e| {
            DataError::new(
                file,
                DataErrorKind::Malformed(format!("not a .npz (zip) archive: {e}")),
            )
        })?;
        Ok(Npz {
            file: file.to_string(),
            archive,
        })
    }

    /// The arrays' names (member names without `.npy`), sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .archive
            .file_names()
            .map(|n| n.strip_suffix(".npy").unwrap_or(n).to_string())
            .collect();
        names.sort();
        names
    }

    /// The bytes of member `name` (`name.npy`, or `name` itself as numpy also accepts) and the
    /// label that names it in errors.
    fn member(&mut self, name: &str) -> Result<(Vec<u8>, String), DataError> {
        let with_suffix = format!("{name}.npy");
        let member = if self.archive.index_for_name(&with_suffix).is_some() {
            with_suffix
        } else if self.archive.index_for_name(name).is_some() {
            name.to_string()
        } else {
            return Err(DataError::new(
                &self.file,
                DataErrorKind::Missing {
                    name: name.to_string(),
                    available: self.names(),
                },
            ));
        };
        let label = format!("{}, member {member}", self.file);
        let bad = |e: &dyn std::fmt::Display| {
            DataError::new(
                &label,
                DataErrorKind::Malformed(format!("cannot read the member: {e}")),
            )
        };
        let entry = self
            .archive
            .by_name(&member)
            .map_err(|e: ZipError| bad(&e))?;
        let size = entry.size();
        let mut bytes = Vec::with_capacity(size.min(MAX_RESERVE) as usize);
        // `take`: never more than the directory claims, whatever the compressed stream holds.
        entry
            .take(size)
            .read_to_end(&mut bytes)
            .map_err(|e| bad(&e))?;
        Ok((bytes, label))
    }

    /// Loads array `name` into a tensor of type `T[D]`; `Err` (naming the archive and member)
    /// when there is no such member or it holds another element type or shape.
    pub fn load<T: ArrayElement, D: Dims>(
        &mut self,
        name: &str,
    ) -> Result<Tensor<T, D>, DataError> {
        let (bytes, label) = self.member(name)?;
        let err = |k| DataError::new(&label, k);
        let parsed = npy::parse(&bytes).map_err(err)?;
        check_against::<T, D>(&parsed.found()).map_err(err)?;
        let literal = parsed.decode().map_err(err)?;
        literal_to_tensor(&literal, &label)
    }

    /// Loads array `name`, of whatever element type and shape it has, as a literal.
    pub fn load_literal(&mut self, name: &str) -> Result<Literal, DataError> {
        let (bytes, label) = self.member(name)?;
        npy::literal_from_bytes(&bytes, &label)
    }
}

/// Writes a `.npz` archive, one `.npy` member per array; [`NpzWriter::finish`] completes it.
pub struct NpzWriter<W: Write + Seek = File> {
    file: String,
    zip: ZipWriter<W>,
    method: CompressionMethod,
    names: Vec<String>,
}

impl NpzWriter<File> {
    /// Creates (or truncates) a `.npz` file with stored members, as `np.savez` writes.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, DataError> {
        let path = path.as_ref();
        let name = display_path(path);
        let file = File::create(path).map_err(|e| DataError::io(&name, "create the file", &e))?;
        Ok(Self::new(file, &name))
    }
}

impl<W: Write + Seek> NpzWriter<W> {
    /// An archive written to `writer` with stored members; `file` names it in errors.
    pub fn new(writer: W, file: &str) -> Self {
        NpzWriter {
            file: file.to_string(),
            zip: ZipWriter::new(writer),
            method: CompressionMethod::Stored,
            names: Vec::new(),
        }
    }

    /// Deflates the members added from now on, as `np.savez_compressed` does.
    pub fn compressed(mut self, deflate: bool) -> Self {
        self.method = if deflate {
            CompressionMethod::Deflated
        } else {
            CompressionMethod::Stored
        };
        self
    }

    /// Adds `tensor` as member `name.npy`; `Err` if the name is taken or writing fails.
    pub fn add<T: ArrayElement, D: Dims, L: LayoutSpec>(
        &mut self,
        name: &str,
        tensor: &Tensor<T, D, L>,
    ) -> Result<(), DataError> {
        self.add_bytes(name, &npy::to_bytes(tensor))
    }

    /// Adds an array literal as member `name.npy`; `Err` for a tuple or dynamic dimensions.
    pub fn add_literal(&mut self, name: &str, literal: &Literal) -> Result<(), DataError> {
        let bytes =
            npy::literal_to_bytes(literal).map_err(|e| DataError::new(&self.file, e.kind))?;
        self.add_bytes(name, &bytes)
    }

    fn add_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<(), DataError> {
        if self.names.iter().any(|n| n == name) {
            return Err(DataError::new(
                &self.file,
                DataErrorKind::Unsupported(format!("the archive already has an array `{name}`")),
            ));
        }
        let options = SimpleFileOptions::default()
            .compression_method(self.method)
            // zip64 only where a member needs it, as numpy's zipfile does.
            .large_file(bytes.len() as u64 >= u64::from(u32::MAX));
        let label = format!("{}, member {name}.npy", self.file);
        self.zip
            .start_file(format!("{name}.npy"), options)
            .map_err(|e| {
                DataError::new(
                    &label,
                    DataErrorKind::Io(format!("cannot start the member: {e}")),
                )
            })?;
        self.zip
            .write_all(bytes)
            .map_err(|e| DataError::io(&label, "write the member", &e))?;
        self.names.push(name.to_string());
        Ok(())
    }

    /// Writes the archive's directory and returns the writer.
    pub fn finish(self) -> Result<W, DataError> {
        let file = self.file;
        self.zip.finish().map_err(|e| {
            DataError::new(
                &file,
                DataErrorKind::Io(format!("cannot finish the archive: {e}")),
            )
        })
    }
}
