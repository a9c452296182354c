//! A compact binary form of a [`Computation`], so that a generated module carries its checked
//! IR as one byte-string constant (decoded on first use) instead of Rust code that rebuilds it:
//! the builder code was nearly half of a generated fn's expansion, and rustc compiles a byte
//! string in no time. Not a stable exchange format (StableHLO is that): the macro and the
//! runtime are the same `xla-core`, and a version byte refuses anything else.
//!
//! Layout: unsigned LEB128 varints for counts, indices and enum codes; zigzag varints for
//! signed integers; strings as a length and UTF-8 bytes; literals as their shape and their
//! elements' little-endian bytes (pred as one byte).

use crate::error::{Error, Result};
use crate::ir::Computation;

/// Bumped whenever the layout changes.
const VERSION: u8 = 2;

/// `comp` as bytes (see the module docs).
pub fn encode(comp: &Computation) -> Vec<u8> {
    let mut w = Writer(vec![VERSION]);
    w.computation(comp);
    w.0
}

/// The computation [`encode`] wrote; `Err` on bytes it did not write (truncated, another
/// version, an unknown code), never a panic.
pub fn decode(bytes: &[u8]) -> Result<Computation> {
    let mut r = Reader { b: bytes, at: 0 };
    let v = r.u8()?;
    if v != VERSION {
        return Err(err(format!(
            "encoded by format version {v}, this xla-core reads version {VERSION} (the xla! \
             macro and the runtime must be the same xla-core)"
        )));
    }
    let c = r.computation(0)?;
    if r.at != bytes.len() {
        return Err(err(format!("{} trailing bytes", bytes.len() - r.at)));
    }
    Ok(c)
}

fn err(m: String) -> Error {
    Error::new("IR decode", m)
}

/// The encoder's output so far (its methods: `write.rs`).
struct Writer(Vec<u8>);

/// The decoder's input and position (its methods: `read.rs`).
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

mod codes;
mod collective;
mod host_io;
mod indexing;
mod read;
#[cfg(test)]
mod tests;
mod window;
mod write;
