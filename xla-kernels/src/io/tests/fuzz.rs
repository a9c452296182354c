//! Damaged files: every truncation of small valid files, wrong magic, broken headers, flipped
//! header bytes, wrong dtypes and shapes, and headers claiming absurd sizes. Each must be an
//! `Err` with a message naming the file (a panic fails the test; an allocation of what a
//! header claims would abort it).

use std::io::Cursor;

use num_complex::Complex;
use xla_core::Literal;

use super::{fixture_bytes, npy_with_header};
use crate::io::npy::{from_bytes, literal_from_bytes, to_bytes};
use crate::io::{DataError, DataErrorKind, Npz, NpzWriter};
use crate::tensor::{Tensor, D1, D2};

/// An error that says something, about the file it was given.
fn assert_reported(e: &DataError, file: &str) {
    let m = e.to_string();
    assert!(m.starts_with(file), "{m}");
    assert!(m.len() > file.len() + 10, "message too short: {m}");
}

fn npy_err(bytes: &[u8]) -> DataError {
    let e = literal_from_bytes(bytes, "bad.npy").unwrap_err();
    assert_reported(&e, "bad.npy");
    // The typed path parses the same bytes; it fails too (the shape check may come first).
    let t = from_bytes::<f32, D2<2, 3>>(bytes, "bad.npy").unwrap_err();
    assert_reported(&t, "bad.npy");
    e
}

#[test]
fn every_truncation_of_a_npy_is_an_error() {
    for name in [
        "f32.npy",
        "c64.npy",
        "bf16.npy",
        "pred.npy",
        "fortran_f32.npy",
        "be_c128.npy",
    ] {
        let bytes = fixture_bytes(name);
        assert!(literal_from_bytes(&bytes, name).is_ok());
        for len in 0..bytes.len() {
            let e = npy_err(&bytes[..len]);
            assert!(
                matches!(e.kind, DataErrorKind::Malformed(_)),
                "{name}[..{len}]: {e}"
            );
        }
        // One byte too many is as wrong as one too few.
        let mut long = bytes.clone();
        long.push(0);
        let e = npy_err(&long);
        assert!(e.to_string().contains("needs"), "{e}");
    }
    let bytes = fixture_bytes("f32.npy");
    let e = npy_err(&bytes[..bytes.len() - 1]);
    assert_eq!(
        e.to_string(),
        "bad.npy: the shape (2, 3) of 4-byte elements needs 24 bytes of data, the file has 23"
    );
}

#[test]
fn wrong_magic_and_version() {
    let good = fixture_bytes("f32.npy");
    for i in 0..8 {
        let mut bytes = good.clone();
        bytes[i] ^= 0x20;
        let e = npy_err(&bytes);
        let m = e.to_string();
        assert!(
            m.contains("magic") || m.contains("version"),
            "byte {i}: {m}"
        );
    }
    let e = npy_err(b"PK\x03\x04 this is a zip");
    assert!(e.to_string().contains("not a .npy file"), "{e}");
}

#[test]
fn broken_headers() {
    let data = [0u8; 24];
    let cases: &[(&str, &str)] = &[
        ("", "the header ends"),
        ("{'descr': '<f4', 'fortran_order': False}", "no 'shape'"),
        ("{'descr': '<f4', 'shape': (2, 3)}", "no 'fortran_order'"),
        ("{'fortran_order': False, 'shape': (2, 3)}", "no 'descr'"),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}",
            "unknown header key 'x'",
        ),
        (
            "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3)}",
            "not True or False",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}",
            "not a dimension size",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3}",
            "expected ',' or ')' in the shape at byte 55 of the header, found '}'",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}",
            "expected '('",
        ),
        (
            "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}",
            "expected ',' or '}' at byte 17 of the header, found 'f'",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)",
            "the header ends where ',' or '}' was expected",
        ),
        ("{'descr': '<f4", "a string in the header is not terminated"),
        ("['descr', '<f4']", "expected '{'"),
        (
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
            "structured dtypes",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
            "too large",
        ),
        (
            "{'descr': '\u{e9}', 'fortran_order': False, 'shape': (2, 3)}",
            "unknown numpy type",
        ),
    ];
    for (dict, expect) in cases {
        let e = npy_err(&npy_with_header(dict, &data));
        assert!(e.to_string().contains(expect), "{dict}: {e}");
    }
    // Python 2's long suffix and a header without the trailing comma still parse.
    let ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L)}";
    assert!(literal_from_bytes(&npy_with_header(ok, &data), "ok").is_ok());
}

#[test]
fn header_length_beyond_the_file_or_the_limit() {
    let mut bytes = fixture_bytes("f32.npy");
    bytes[8] = 0xff;
    bytes[9] = 0xff;
    let e = npy_err(&bytes);
    assert!(
        e.to_string()
            .contains("the header claims 65535 bytes, but the file ends"),
        "{e}"
    );
    // Version 2.0: a 4-byte length, here 4 GiB - 1.
    let mut v2 = b"\x93NUMPY\x02\x00\xff\xff\xff\xff".to_vec();
    v2.extend_from_slice(&[b' '; 100]);
    let e = npy_err(&v2);
    assert!(
        e.to_string()
            .contains("more than the 1048576 this reader accepts"),
        "{e}"
    );
}

/// Every header byte replaced by bytes that upset parsers: whatever the result, no panic, and
/// an error names the file.
#[test]
fn flipped_header_bytes() {
    let good = fixture_bytes("c64.npy");
    let header_end = good.len() - 48;
    for i in 0..header_end {
        for b in [0u8, b'\'', b'(', b')', b',', b'9', b'}', b'{', b'>', 0xff] {
            let mut bytes = good.clone();
            bytes[i] = b;
            if let Err(e) = literal_from_bytes(&bytes, "flip.npy") {
                assert_reported(&e, "flip.npy");
            }
            if let Err(e) = from_bytes::<Complex<f32>, D2<2, 3>>(&bytes, "flip.npy") {
                assert_reported(&e, "flip.npy");
            }
        }
    }
}

#[test]
fn huge_declared_shapes_allocate_nothing() {
    let cases = [
        // 2^60 f32 elements: 2^62 bytes would fit in usize; the file does not hold them.
        (
            "(1152921504606846976,)",
            "needs 4611686018427387904 bytes of data, the file has 24",
        ),
        // The byte count overflows u64.
        (
            "(4294967296, 4294967296, 4294967296)",
            "larger than memory can address",
        ),
        ("(9223372036854775807, 2)", "larger than memory can address"),
        // A zero dimension makes the array empty whatever the others claim.
        (
            "(0, 9223372036854775807)",
            "needs 0 bytes of data, the file has 24",
        ),
    ];
    for (shape, expect) in cases {
        let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
        let bytes = npy_with_header(&dict, &[0u8; 24]);
        let e = literal_from_bytes(&bytes, "huge.npy").unwrap_err();
        assert!(e.to_string().ends_with(expect), "{shape}: {e}");
        // A typed load refuses the shape before looking at the data.
        let e = from_bytes::<f32, D1<6>>(&bytes, "huge.npy").unwrap_err();
        assert!(matches!(e.kind, DataErrorKind::Mismatch { .. }), "{e}");
    }
    // The same claim inside an archive member.
    let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1152921504606846976, 8), }";
    let member = npy_with_header(dict, &[0u8; 8]);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file("x.npy", zip::write::SimpleFileOptions::default())
        .unwrap();
    std::io::Write::write_all(&mut zip, &member).unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let e = Npz::new(Cursor::new(bytes), "huge.npz")
        .unwrap()
        .load_literal("x")
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("huge.npz, member x.npy: the shape"),
        "{e}"
    );
}

#[test]
fn invalid_bool_bytes() {
    let mut bytes = fixture_bytes("pred.npy");
    let n = bytes.len();
    bytes[n - 2] = 2;
    let e = literal_from_bytes(&bytes, "b.npy").unwrap_err();
    assert_eq!(
        e.to_string(),
        "b.npy: element 4 of a bool array is the byte 0x02, not 0 or 1"
    );
}

fn small_npz(deflate: bool) -> Vec<u8> {
    let w: Tensor<f32, D2<2, 3>> = Tensor::from_fn(|i| (i[0] * 3 + i[1]) as f32);
    let b = Literal::from_vec(&[3], vec![1i64, -2, 3]).unwrap();
    let mut out = NpzWriter::new(Cursor::new(Vec::new()), "x").compressed(deflate);
    out.add("w", &w).unwrap();
    out.add_literal("b", &b).unwrap();
    out.finish().unwrap().into_inner()
}

/// Opens an archive and loads both members; the first failure.
fn npz_load_all(bytes: &[u8]) -> Result<(), DataError> {
    let mut npz = Npz::new(Cursor::new(bytes.to_vec()), "t.npz")?;
    npz.load::<f32, D2<2, 3>>("w")?;
    npz.load_literal("b")?;
    Ok(())
}

#[test]
fn every_truncation_of_a_npz_is_an_error() {
    for (bytes, what) in [
        (small_npz(false), "stored"),
        (small_npz(true), "deflated"),
        (fixture_bytes("arrays.npz"), "np.savez"),
        (
            fixture_bytes("arrays_compressed.npz"),
            "np.savez_compressed",
        ),
    ] {
        if what.starts_with("np.") {
            // numpy's names.
            let mut npz = Npz::new(Cursor::new(bytes.clone()), "t.npz").unwrap();
            assert!(npz.load_literal("w").is_ok());
        } else {
            npz_load_all(&bytes).unwrap();
        }
        for len in 0..bytes.len() {
            let r = Npz::new(Cursor::new(bytes[..len].to_vec()), "t.npz")
                .and_then(|mut npz| npz.load_literal("w").and(npz.load_literal("b")));
            let e = r.expect_err(&format!("{what} truncated to {len} bytes loaded"));
            assert_reported(&e, "t.npz");
        }
    }
}

/// Flipped bytes anywhere in an archive: a zip CRC or an npy check catches them, or the
/// flip was harmless (in a timestamp, say); never a panic.
#[test]
fn flipped_npz_bytes() {
    for deflate in [false, true] {
        let good = small_npz(deflate);
        for i in 0..good.len() {
            let mut bytes = good.clone();
            bytes[i] ^= 0x5a;
            if let Err(e) = npz_load_all(&bytes) {
                assert_reported(&e, "t.npz");
            }
        }
    }
}

#[test]
fn wrong_member_type_and_shape_in_npz() {
    let bytes = small_npz(false);
    let mut npz = Npz::new(Cursor::new(bytes), "t.npz").unwrap();
    let e = npz.load::<f64, D2<2, 3>>("w").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.npz, member w.npy: holds f32[2,3] (numpy '<f4'), expected f64[2,3]"
    );
    let e = npz.load::<i64, D1<4>>("b").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.npz, member b.npy: holds s64[3] (numpy '<i8'), expected s64[4]"
    );
    let e = Npz::new(
        Cursor::new(to_bytes(&Tensor::<f32, D1<2>>::zeros())),
        "t.npz",
    )
    .err()
    .unwrap();
    assert!(
        e.to_string()
            .starts_with("t.npz: not a .npz (zip) archive: "),
        "{e}"
    );
}
