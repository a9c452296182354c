//! numpy's `.npy` format: `\x93NUMPY`, a version (1.0, 2.0 or 3.0), the header length
//! (2 bytes little-endian in 1.0, 4 after), a Python dict literal
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }` padded with spaces to a
//! multiple of 64 bytes and ended by `\n`, then the elements.
//!
//! Reading accepts either byte order (`<`, `>`, `|`, `=`) and Fortran order, both copied into
//! the row-major little-endian arrays the rest of the library uses. Writing produces what
//! `np.save` writes for the same array (version 1.0, C order, little-endian), byte for byte.
//! See the [module docs](super) for the dtype table and why this reader is our own.

use std::path::Path;

use xla_core::{ArrayElement, ArrayShape, ElementType, Literal};

use super::{
    check_against, codec, display_path, literal_to_tensor, DataError, DataErrorKind, Found,
};
use crate::tensor::{Dims, LayoutSpec, Tensor};

const MAGIC: &[u8] = b"\x93NUMPY";

/// The longest header read. numpy's own limit is 10 000 bytes unless told otherwise; a header
/// longer than this one is a damaged or hostile file, and it would be read before anything
/// else could be checked.
const MAX_HEADER_LEN: usize = 1 << 20;

/// The numpy `descr` of an element type, as `np.save` writes it on a little-endian machine.
pub fn descr(ty: ElementType) -> &'static str {
    match ty {
        ElementType::Pred => "|b1",
        ElementType::S8 => "|i1",
        ElementType::S16 => "<i2",
        ElementType::S32 => "<i4",
        ElementType::S64 => "<i8",
        ElementType::U8 => "|u1",
        ElementType::U16 => "<u2",
        ElementType::U32 => "<u4",
        ElementType::U64 => "<u8",
        ElementType::F16 => "<f2",
        // ml_dtypes' bfloat16 through np.save: two raw bytes per element.
        ElementType::Bf16 => "<V2",
        ElementType::F32 => "<f4",
        ElementType::F64 => "<f8",
        ElementType::C64 => "<c8",
        ElementType::C128 => "<c16",
    }
}

/// The element type and byte order (true = big-endian) of a numpy `descr`, or why it has none.
fn parse_descr(descr: &str) -> Result<(ElementType, bool), String> {
    let (order, code) = match descr.as_bytes().first() {
        Some(b'<') => (Some(false), &descr[1..]),
        Some(b'>') => (Some(true), &descr[1..]),
        Some(b'=') => (Some(cfg!(target_endian = "big")), &descr[1..]),
        Some(b'|') => (None, &descr[1..]),
        _ => (None, descr),
    };
    let ty = match code {
        "b1" => ElementType::Pred,
        "i1" => ElementType::S8,
        "i2" => ElementType::S16,
        "i4" => ElementType::S32,
        "i8" => ElementType::S64,
        "u1" => ElementType::U8,
        "u2" => ElementType::U16,
        "u4" => ElementType::U32,
        "u8" => ElementType::U64,
        "f2" => ElementType::F16,
        "V2" => ElementType::Bf16,
        "f4" => ElementType::F32,
        "f8" => ElementType::F64,
        "c8" => ElementType::C64,
        "c16" => ElementType::C128,
        _ => return Err(unsupported_descr(code)),
    };
    // '|' (not applicable) on a multi-byte type: numpy writes it for raw void data, which is
    // bf16 here; take the host's order as numpy would.
    let big = order.unwrap_or(cfg!(target_endian = "big"));
    Ok((ty, big))
}

/// Why a numpy type code has no element type here, in numpy's words.
fn unsupported_descr(code: &str) -> String {
    let what = match code.as_bytes().first() {
        Some(b'f') if code == "f16" || code == "f12" => "long double (float128/float96)",
        Some(b'c') if code == "c32" || code == "c24" => "complex long double",
        Some(b'U') => "unicode strings",
        Some(b'S') | Some(b'a') => "byte strings",
        Some(b'O') => "Python objects (pickled)",
        Some(b'M') | Some(b'm') => "datetimes",
        Some(b'V') => "raw bytes of a size other than bf16's 2",
        _ => "an unknown numpy type",
    };
    format!("{what}, no XLA element type")
}

/// The `.npy` header fields.
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<u64>,
}

/// A minimal parser for the one dict literal numpy writes: string keys, and values that are a
/// string, `True`/`False`, or a tuple of integers.
struct DictParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> DictParser<'a> {
    fn ws(&mut self) {
        while self
            .s
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{}'", c as char)))
        }
    }

    /// "expected WHAT at byte N of the header, found 'x'" (or "the header ends").
    fn unexpected(&mut self, what: &str) -> String {
        match self.peek() {
            Some(x) => format!(
                "expected {what} at byte {} of the header, found '{}'",
                self.pos,
                x.escape_ascii()
            ),
            None => format!("the header ends where {what} was expected"),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(self.unexpected("a quoted string")),
        };
        let start = self.pos + 1;
        let len = self.s[start..]
            .iter()
            .position(|&c| c == quote)
            .ok_or("a string in the header is not terminated")?;
        self.pos = start + len + 1;
        String::from_utf8(self.s[start..start + len].to_vec())
            .map_err(|_| "a string in the header is not UTF-8".to_string())
    }

    fn word(&mut self) -> &'a [u8] {
        self.ws();
        let start = self.pos;
        while self
            .s
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    fn boolean(&mut self) -> Result<bool, String> {
        match self.word() {
            b"True" => Ok(true),
            b"False" => Ok(false),
            w => Err(format!(
                "fortran_order is '{}', not True or False",
                w.escape_ascii()
            )),
        }
    }

    /// `()`, `(5,)`, `(2, 3)`; Python 2 files may write `2L`.
    fn shape(&mut self) -> Result<Vec<u64>, String> {
        self.expect(b'(')?;
        let mut dims = Vec::new();
        loop {
            if self.peek() == Some(b')') {
                self.pos += 1;
                return Ok(dims);
            }
            let w = self.word();
            let digits = w.strip_suffix(b"L").unwrap_or(w);
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return Err(format!(
                    "the shape holds '{}', not a dimension size",
                    w.escape_ascii()
                ));
            }
            let d = digits.iter().try_fold(0u64, |acc, &c| {
                acc.checked_mul(10)?.checked_add(u64::from(c - b'0'))
            });
            // Literal dims are i64, so larger sizes could not be represented anyway.
            match d {
                Some(d) if d <= i64::MAX as u64 => dims.push(d),
                _ => return Err(format!("the dimension {} is too large", w.escape_ascii())),
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {}
                _ => return Err(self.unexpected("',' or ')' in the shape")),
            }
        }
    }

    fn header(mut self) -> Result<Header, String> {
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        self.expect(b'{')?;
        loop {
            if self.peek() == Some(b'}') {
                break;
            }
            let key = self.string()?;
            self.expect(b':')?;
            match key.as_str() {
                "descr" if self.peek() == Some(b'[') => {
                    return Err("structured dtypes (a list of fields) are not supported".into())
                }
                "descr" => descr = Some(self.string()?),
                "fortran_order" => fortran = Some(self.boolean()?),
                "shape" => shape = Some(self.shape()?),
                other => return Err(format!("unknown header key '{other}'")),
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(self.unexpected("',' or '}'")),
            }
        }
        let missing = |k: &str| format!("the header has no '{k}'");
        Ok(Header {
            descr: descr.ok_or_else(|| missing("descr"))?,
            fortran_order: fortran.ok_or_else(|| missing("fortran_order"))?,
            shape: shape.ok_or_else(|| missing("shape"))?,
        })
    }
}

/// A `.npy` file whose header parsed; the data is checked and decoded by [`Parsed::decode`].
pub(crate) struct Parsed<'a> {
    header: Header,
    dtype: Result<(ElementType, bool), String>,
    data: &'a [u8],
}

impl Parsed<'_> {
    /// What the header says the file holds.
    pub(crate) fn found(&self) -> Found {
        Found {
            ty: self.dtype.as_ref().map(|&(t, _)| t).map_err(Clone::clone),
            dims: self.header.shape.clone(),
            format_dtype: format!("numpy '{}'", self.header.descr),
        }
    }

    /// The array as a literal: checks the data size against the header, then copies a
    /// Fortran-order array to row-major and decodes the elements.
    pub(crate) fn decode(&self) -> Result<Literal, DataErrorKind> {
        let (ty, big_endian) = self.dtype.clone().map_err(|why| {
            DataErrorKind::Unsupported(format!("numpy dtype '{}' is {why}", self.header.descr))
        })?;
        let shape = &self.header.shape;
        let elem = ty.byte_width();
        let shape_text = python_shape(shape);
        // Every size is checked before anything is allocated: a header may claim 2^60 elements.
        let needed = shape
            .iter()
            .try_fold(elem as u64, |acc, &d| acc.checked_mul(d))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                DataErrorKind::Malformed(format!(
                    "the shape {shape_text} of {elem}-byte elements is larger than memory can address"
                ))
            })?;
        if needed != self.data.len() {
            return Err(DataErrorKind::Malformed(format!(
                "the shape {shape_text} of {elem}-byte elements needs {needed} bytes of data, the file has {}",
                self.data.len()
            )));
        }
        let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        let reordered;
        let bytes = if self.header.fortran_order {
            reordered = codec::fortran_to_row_major(self.data, &dims, elem);
            &reordered[..]
        } else {
            self.data
        };
        let data = codec::decode(ty, big_endian, bytes).map_err(DataErrorKind::Malformed)?;
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        Ok(Literal::Array {
            shape: ArrayShape::new(ty, &dims),
            data,
        })
    }
}

/// Python's repr of a shape tuple: `()`, `(5,)`, `(2, 3)`.
fn python_shape(dims: &[u64]) -> String {
    match dims {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Parses the magic, version and header of a whole `.npy` file in memory.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed<'_>, DataErrorKind> {
    let malformed = |m: String| DataErrorKind::Malformed(m);
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(malformed(format!(
            "not a .npy file: it does not start with numpy's magic string \\x93NUMPY ({} bytes)",
            bytes.len()
        )));
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(&[a, b]) => (a, b),
        _ => return Err(malformed("the file ends inside the version".into())),
    };
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(malformed(format!(
                "format version {major}.{minor} is not 1.0, 2.0 or 3.0"
            )))
        }
    };
    let start = 8 + len_bytes;
    let len_field = bytes
        .get(8..start)
        .ok_or_else(|| malformed("the file ends inside the header length".into()))?;
    let header_len = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    if header_len > MAX_HEADER_LEN {
        return Err(malformed(format!(
            "the header claims {header_len} bytes, more than the {MAX_HEADER_LEN} this reader accepts"
        )));
    }
    let text = bytes.get(start..start + header_len).ok_or_else(|| {
        malformed(format!(
            "the header claims {header_len} bytes, but the file ends after {}",
            bytes.len() - start
        ))
    })?;
    let header = DictParser { s: text, pos: 0 }
        .header()
        .map_err(|m| malformed(format!("bad header: {m}")))?;
    let dtype = parse_descr(&header.descr);
    Ok(Parsed {
        header,
        dtype,
        data: &bytes[start + header_len..],
    })
}

/// The `.npy` header (magic to `\n`) numpy writes for a C-order little-endian array.
fn header_bytes(ty: ElementType, dims: &[i64]) -> Vec<u8> {
    let shape: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
    let dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        descr(ty),
        python_shape(&shape)
    );
    // numpy pads with spaces so the data starts at a multiple of 64 bytes (alignment for
    // memory-mapping), counting magic, version, length field and the final newline; version
    // 2.0 only when the header outgrows 1.0's 2-byte length.
    let layout = |len_bytes: usize| {
        let total = (MAGIC.len() + 2 + len_bytes + dict.len() + 1).next_multiple_of(64);
        (total, total - MAGIC.len() - 2 - len_bytes)
    };
    let (version, len_bytes) = if layout(2).1 <= usize::from(u16::MAX) {
        (1u8, 2)
    } else {
        (2u8, 4)
    };
    let (total, header_len) = layout(len_bytes);
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    out.extend_from_slice(&(header_len as u32).to_le_bytes()[..len_bytes]);
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

/// The tensor held in `.npy` bytes; `file` names them in errors. `Err` unless the file holds
/// exactly `T[D]` (see the [module docs](super) for the dtype names).
pub fn from_bytes<T: ArrayElement, D: Dims>(
    bytes: &[u8],
    file: &str,
) -> Result<Tensor<T, D>, DataError> {
    let err = |k| DataError::new(file, k);
    let parsed = parse(bytes).map_err(err)?;
    // The type is checked before the data, so a wrong file fails on what it is, not its size.
    check_against::<T, D>(&parsed.found()).map_err(err)?;
    let literal = parsed.decode().map_err(err)?;
    literal_to_tensor(&literal, file)
}

/// The array held in `.npy` bytes, of whatever element type and shape they have.
pub fn literal_from_bytes(bytes: &[u8], file: &str) -> Result<Literal, DataError> {
    parse(bytes)
        .and_then(|p| p.decode())
        .map_err(|k| DataError::new(file, k))
}

/// The `.npy` bytes of a tensor: what `np.save` writes for the same array.
pub fn to_bytes<T: ArrayElement, D: Dims, L: LayoutSpec>(tensor: &Tensor<T, D, L>) -> Vec<u8> {
    let dims: Vec<i64> = D::DIMS.iter().map(|&d| d as i64).collect();
    let mut out = header_bytes(T::TYPE, &dims);
    codec::encode(&T::wrap(tensor.to_row_major_vec()), &mut out);
    out
}

/// The `.npy` bytes of an array literal; `Err` for a tuple, a token or dynamic dimensions.
pub fn literal_to_bytes(literal: &Literal) -> Result<Vec<u8>, DataError> {
    let (shape, data) = super::array_of(literal).map_err(|k| DataError::new("<literal>", k))?;
    let mut out = header_bytes(shape.ty, &shape.dims);
    codec::encode(data, &mut out);
    Ok(out)
}

/// Reads a whole file; the allocation is the file's real size, never a size a header claims.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, DataError> {
    std::fs::read(path).map_err(|e| DataError::io(&display_path(path), "read the file", &e))
}

pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), DataError> {
    std::fs::write(path, bytes)
        .map_err(|e| DataError::io(&display_path(path), "write the file", &e))
}

/// Loads a `.npy` file into a tensor of type `T[D]`:
///
/// ```no_run
/// # use xla_kernels::{io, tensor::{Tensor, D2}};
/// let w: Tensor<f32, D2<784, 128>> = io::load_npy("w1.npy")?;
/// # Ok::<(), io::DataError>(())
/// ```
///
/// `Err` (naming the file) when it cannot be read, is not a valid `.npy`, or holds another
/// element type or shape.
pub fn load_npy<T: ArrayElement, D: Dims>(
    path: impl AsRef<Path>,
) -> Result<Tensor<T, D>, DataError> {
    let path = path.as_ref();
    from_bytes(&read_file(path)?, &display_path(path))
}

/// Loads a `.npy` file of any element type and shape as a literal.
pub fn load_npy_literal(path: impl AsRef<Path>) -> Result<Literal, DataError> {
    let path = path.as_ref();
    literal_from_bytes(&read_file(path)?, &display_path(path))
}

/// Saves a tensor as a `.npy` file (what `np.save` writes; bf16 as `<V2`, see the
/// [module docs](super)).
pub fn save_npy<T: ArrayElement, D: Dims, L: LayoutSpec>(
    path: impl AsRef<Path>,
    tensor: &Tensor<T, D, L>,
) -> Result<(), DataError> {
    write_file(path.as_ref(), &to_bytes(tensor))
}

/// Saves an array literal as a `.npy` file; `Err` for a tuple, a token or dynamic dimensions.
pub fn save_npy_literal(path: impl AsRef<Path>, literal: &Literal) -> Result<(), DataError> {
    let path = path.as_ref();
    let bytes =
        literal_to_bytes(literal).map_err(|e| DataError::new(&display_path(path), e.kind))?;
    write_file(path, &bytes)
}
