//! `.npy`/`.npz` against files numpy wrote (`testdata/make_fixtures.py`), round trips of every
//! element type, and the error messages. `fuzz.rs` feeds damaged files; `safetensors.rs` covers
//! the optional format.

use std::path::PathBuf;

use half::{bf16, f16};
use num_complex::Complex;
use xla_core::{ArrayData, ArrayShape, ElementType, Literal};

use super::npy::{self, from_bytes, literal_from_bytes, to_bytes};
use super::{
    load_npy, load_npy_literal, save_npy, save_npy_literal, DataErrorKind, Npz, NpzWriter,
};
use crate::tensor::{Mtm2, Tensor, D0, D1, D2, D3};

mod fuzz;
#[cfg(feature = "safetensors")]
mod safetensors;

/// A fixture written by `testdata/make_fixtures.py`.
pub(super) fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src/io/testdata")
        .join(name)
}

pub(super) fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

/// A path in the temp dir, unique to this process and test.
pub(super) fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("xla-kernels-io-{}-{name}", std::process::id()))
}

const REAL: [f64; 6] = [0.0, 1.5, -2.25, 4.0, -0.5, 100.0];
const IMAG: [f64; 6] = [1.0, -1.0, 0.5, 0.0, 2.0, -3.0];

/// The six values `make_fixtures.py` writes for `ty`, as a row-major `ty[2,3]` literal.
pub(super) fn expected(ty: ElementType) -> Literal {
    macro_rules! ints {
        ($v:ident, $t:ty, $signed:expr) => {{
            let mut v: Vec<$t> = if $signed {
                [0i64, 1, -2, 3, -4].iter().map(|&x| x as $t).collect()
            } else {
                (0..5).map(|x| x as $t).collect()
            };
            v.push(<$t>::MAX);
            ArrayData::$v(v)
        }};
    }
    let data = match ty {
        ElementType::Pred => ArrayData::Pred(vec![true, false, true, true, false, false]),
        ElementType::S8 => ints!(S8, i8, true),
        ElementType::S16 => ints!(S16, i16, true),
        ElementType::S32 => ints!(S32, i32, true),
        ElementType::S64 => ints!(S64, i64, true),
        ElementType::U8 => ints!(U8, u8, false),
        ElementType::U16 => ints!(U16, u16, false),
        ElementType::U32 => ints!(U32, u32, false),
        ElementType::U64 => ints!(U64, u64, false),
        ElementType::F16 => ArrayData::F16(REAL.iter().map(|&x| f16::from_f64(x)).collect()),
        ElementType::Bf16 => ArrayData::Bf16(REAL.iter().map(|&x| bf16::from_f64(x)).collect()),
        ElementType::F32 => ArrayData::F32(REAL.iter().map(|&x| x as f32).collect()),
        ElementType::F64 => ArrayData::F64(REAL.to_vec()),
        ElementType::C64 => ArrayData::C64(
            REAL.iter()
                .zip(IMAG)
                .map(|(&r, i)| Complex::new(r as f32, i as f32))
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(
            REAL.iter()
                .zip(IMAG)
                .map(|(&r, i)| Complex::new(r, i))
                .collect(),
        ),
    };
    Literal::Array {
        shape: ArrayShape::new(ty, &[2, 3]),
        data,
    }
}

/// Every element type: numpy's file loads into the typed tensor with the right values, as a
/// literal too, and our writer reproduces numpy's file byte for byte (so numpy reads ours).
#[test]
fn every_element_type_matches_numpy() {
    macro_rules! check {
        ($($t:ty),*) => {$({
            let ty = <$t as xla_core::NativeType>::TYPE;
            let path = fixture(&format!("{}.npy", ty.name()));
            let t: Tensor<$t, D2<2, 3>> = load_npy(&path).unwrap();
            assert_eq!(t.to_literal(), expected(ty), "{}", ty);
            assert_eq!(load_npy_literal(&path).unwrap(), expected(ty), "{}", ty);
            let numpy_bytes = std::fs::read(&path).unwrap();
            assert_eq!(to_bytes(&t), numpy_bytes, "our {} file differs from np.save's", ty);
            assert_eq!(npy::literal_to_bytes(&expected(ty)).unwrap(), numpy_bytes);
        })*};
    }
    check!(
        bool,
        i8,
        i16,
        i32,
        i64,
        u8,
        u16,
        u32,
        u64,
        f16,
        bf16,
        f32,
        f64,
        Complex<f32>,
        Complex<f64>
    );
}

#[test]
fn big_endian_and_fortran_order_are_copied_to_row_major() {
    for (file, ty) in [
        ("be_f32.npy", ElementType::F32),
        ("be_s16.npy", ElementType::S16),
        ("be_c128.npy", ElementType::C128),
        ("fortran_f32.npy", ElementType::F32),
    ] {
        assert_eq!(
            load_npy_literal(fixture(file)).unwrap(),
            expected(ty),
            "{file}"
        );
    }
    let t: Tensor<i32, D3<2, 3, 4>> = load_npy(fixture("fortran_s32_3d.npy")).unwrap();
    assert_eq!(t.as_slice(), (0..24).collect::<Vec<i32>>().as_slice());
    // Loads are row-major; relayout gives a program's layout, the logical array kept.
    let r: Tensor<f32, D2<2, 3>> = load_npy(fixture("fortran_f32.npy")).unwrap();
    let c: Tensor<f32, D2<2, 3>, Mtm2<0, 1>> = r.relayout();
    assert_eq!(
        c.to_literal().as_slice::<f32>(),
        expected(ElementType::F32).as_slice::<f32>()
    );
}

#[test]
fn scalars_vectors_and_empty_arrays() {
    let s: Tensor<f64, D0> = load_npy(fixture("scalar_f64.npy")).unwrap();
    assert_eq!(s.value(), 2.5);
    let v: Tensor<u8, D1<5>> = load_npy(fixture("vec_u8.npy")).unwrap();
    assert_eq!(v.as_slice(), &[0, 1, 2, 3, 4]);
    let e: Tensor<f32, D2<0, 3>> = load_npy(fixture("empty_f32.npy")).unwrap();
    assert!(e.as_slice().is_empty());
    for name in ["scalar_f64.npy", "vec_u8.npy", "empty_f32.npy"] {
        let lit = load_npy_literal(fixture(name)).unwrap();
        assert_eq!(
            npy::literal_to_bytes(&lit).unwrap(),
            fixture_bytes(name),
            "{name}"
        );
    }
}

#[test]
fn wrong_type_or_shape_names_file_expected_and_found() {
    let path = fixture("f64.npy");
    let e = load_npy::<f32, D2<2, 3>>(&path).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: holds f64[2,3] (numpy '<f8'), expected f32[2,3]",
            path.display()
        )
    );
    let e = load_npy::<f64, D2<3, 2>>(&path).unwrap_err();
    assert_eq!(
        e.kind,
        DataErrorKind::Mismatch {
            expected: "f64[3,2]".into(),
            found: "f64[2,3] (numpy '<f8')".into()
        }
    );
    let e = load_npy::<f64, D1<6>>(&path).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("holds f64[2,3] (numpy '<f8'), expected f64[6]"),
        "{e}"
    );
    // bf16 is the 2-byte void type; an f16 tensor does not take it.
    let e = load_npy::<f16, D2<2, 3>>(fixture("bf16.npy")).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("holds bf16[2,3] (numpy '<V2'), expected f16[2,3]"),
        "{e}"
    );
}

#[test]
fn dtypes_without_an_element_type_are_refused_by_name() {
    let e = load_npy_literal(fixture("float128.npy")).unwrap_err();
    assert!(matches!(e.kind, DataErrorKind::Unsupported(_)), "{e:?}");
    assert!(
        e.to_string()
            .ends_with("numpy dtype '<f16' is long double (float128/float96), no XLA element type"),
        "{e}"
    );
    let e = load_npy::<f32, D1<2>>(fixture("unicode.npy")).unwrap_err();
    assert!(
        e.to_string().ends_with(
            "holds numpy '<U2' (unicode strings, no XLA element type) of dims [2], expected f32[2]"
        ),
        "{e}"
    );
}

#[test]
fn missing_and_unreadable_files_name_the_path() {
    let path = temp("does-not-exist.npy");
    let e = load_npy_literal(&path).unwrap_err();
    assert!(matches!(e.kind, DataErrorKind::Io(_)));
    assert!(
        e.to_string()
            .starts_with(&format!("{}: cannot read the file: ", path.display())),
        "{e}"
    );
    let e = Npz::open(&path).err().unwrap();
    assert!(
        e.to_string()
            .starts_with(&format!("{}: cannot open the file: ", path.display())),
        "{e}"
    );
}

/// Every element type, in several shapes and a non-row-major layout, through a file and back.
#[test]
fn round_trip_through_files() {
    macro_rules! round_trip {
        ($($t:ty => $f:expr),*) => {$({
            let t: Tensor<$t, D3<2, 3, 4>> = Tensor::from_fn(|i| $f(i[0] * 12 + i[1] * 4 + i[2]));
            let path = temp(&format!("rt-{}.npy", <$t as xla_core::NativeType>::TYPE));
            save_npy(&path, &t).unwrap();
            let back: Tensor<$t, D3<2, 3, 4>> = load_npy(&path).unwrap();
            assert_eq!(back, t);
            let lit = load_npy_literal(&path).unwrap();
            assert_eq!(lit, t.to_literal());
            std::fs::remove_file(&path).unwrap();
        })*};
    }
    round_trip!(
        bool => |i: usize| i.is_multiple_of(3),
        i8 => |i: usize| i as i8 - 12,
        i16 => |i: usize| i as i16 * -1000,
        i32 => |i: usize| i as i32 * -100_000,
        i64 => |i: usize| i as i64 * -(1 << 40),
        u8 => |i: usize| i as u8 * 10,
        u16 => |i: usize| i as u16 * 2000,
        u32 => |i: usize| i as u32 * 100_000_000,
        u64 => |i: usize| i as u64 * (1 << 59),
        f16 => |i: usize| f16::from_f32(i as f32 / 7.0),
        bf16 => |i: usize| bf16::from_f32(-(i as f32) / 3.0),
        f32 => |i: usize| i as f32 / 7.0,
        f64 => |i: usize| -(i as f64) / 3.0,
        Complex<f32> => |i: usize| Complex::new(i as f32, -(i as f32) / 2.0),
        Complex<f64> => |i: usize| Complex::new(i as f64 / 3.0, 1.0)
    );
    // A column-major tensor is saved as its logical (row-major) array.
    let c: Tensor<f32, D2<2, 3>, Mtm2<0, 1>> = Tensor::from_fn(|i| (i[0] * 3 + i[1]) as f32);
    let bytes = to_bytes(&c);
    let r: Tensor<f32, D2<2, 3>> = from_bytes(&bytes, "c").unwrap();
    assert_eq!(r.as_slice(), &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(r.relayout::<Mtm2<0, 1>>(), c);
}

#[test]
fn literals_of_any_rank_round_trip_and_tuples_are_refused() {
    // Rank 10 is beyond a Tensor's 8, not beyond numpy's 64.
    let dims = [1, 2, 1, 1, 2, 1, 1, 1, 1, 3];
    let lit = Literal::from_vec(&dims, (0..12).map(|i| i as f32).collect()).unwrap();
    let path = temp("rank10.npy");
    save_npy_literal(&path, &lit).unwrap();
    assert_eq!(load_npy_literal(&path).unwrap(), lit);
    std::fs::remove_file(&path).unwrap();
    let tuple = Literal::Tuple(vec![lit]);
    let e = save_npy_literal(&path, &tuple).unwrap_err();
    assert!(matches!(e.kind, DataErrorKind::Unsupported(_)));
    assert!(e.to_string().contains("is not an array"), "{e}");
    assert!(!path.exists());
}

/// A version-1.0 `.npy` file with the given header dict (padded as numpy pads) and data.
pub(super) fn npy_with_header(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut text = dict.to_string();
    while !(10 + text.len() + 1).is_multiple_of(64) {
        text.push(' ');
    }
    text.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(text.len() as u16).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn fortran_order_of_high_rank() {
    // f32[2,1,3,2] in Fortran order (first index fastest); element (a,b,c,d) = 100a + 10c + d.
    let value = |a: usize, c: usize, d: usize| (100 * a + 10 * c + d) as f32;
    let mut data = Vec::new();
    for d in 0..2 {
        for c in 0..3 {
            for a in 0..2 {
                data.extend_from_slice(&value(a, c, d).to_le_bytes());
            }
        }
    }
    let dict = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 1, 3, 2), }";
    let lit = literal_from_bytes(&npy_with_header(dict, &data), "f").unwrap();
    let mut want = Vec::new();
    for a in 0..2 {
        for c in 0..3 {
            for d in 0..2 {
                want.push(value(a, c, d));
            }
        }
    }
    assert_eq!(lit.as_slice::<f32>().unwrap(), want.as_slice());
}

#[test]
fn npz_from_numpy_stored_and_deflated() {
    for name in ["arrays.npz", "arrays_compressed.npz"] {
        let mut npz = Npz::open(fixture(name)).unwrap();
        assert_eq!(npz.names(), ["b", "w"]);
        let w: Tensor<f32, D2<2, 3>> = npz.load("w").unwrap();
        assert_eq!(w.to_literal(), expected(ElementType::F32), "{name}");
        let b: Tensor<bf16, D1<3>> = npz.load("b.npy").unwrap();
        assert_eq!(b.as_slice(), &[0.0, 1.5, -2.25].map(bf16::from_f32));
        assert_eq!(npz.load_literal("w").unwrap(), expected(ElementType::F32));

        let e = npz.load::<f32, D1<3>>("b").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}, member b.npy: holds bf16[3] (numpy '<V2'), expected f32[3]",
                fixture(name).display()
            )
        );
        let e = npz.load_literal("bias").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: no tensor named `bias` (the file has: b, w)",
                fixture(name).display()
            )
        );
    }
}

#[test]
fn npz_round_trip_stored_and_deflated() {
    let w: Tensor<f32, D2<3, 4>> = Tensor::from_fn(|i| (i[0] * 4 + i[1]) as f32 * 0.25);
    let m: Tensor<bool, D1<5>> = Tensor::from_fn(|i| i[0] % 2 == 1);
    let z = Literal::from_vec(
        &[2],
        vec![Complex::new(1.0f64, -1.0), Complex::new(0.5, 2.0)],
    )
    .unwrap();
    for deflate in [false, true] {
        let mut out =
            NpzWriter::new(std::io::Cursor::new(Vec::new()), "mem.npz").compressed(deflate);
        out.add("w", &w).unwrap();
        out.add("mask", &m).unwrap();
        out.add_literal("z", &z).unwrap();
        let e = out.add("w", &w).unwrap_err();
        assert_eq!(
            e.to_string(),
            "mem.npz: the archive already has an array `w`"
        );
        let bytes = out.finish().unwrap().into_inner();
        let mut npz = Npz::new(std::io::Cursor::new(bytes), "mem.npz").unwrap();
        assert_eq!(npz.names(), ["mask", "w", "z"]);
        assert_eq!(npz.load::<f32, D2<3, 4>>("w").unwrap(), w);
        assert_eq!(npz.load::<bool, D1<5>>("mask").unwrap(), m);
        assert_eq!(npz.load_literal("z").unwrap(), z);
    }
    // Through a file, as numpy would open it.
    let path = temp("w.npz");
    let mut out = NpzWriter::create(&path).unwrap();
    out.add("w", &w).unwrap();
    out.finish().unwrap();
    assert_eq!(
        Npz::open(&path)
            .unwrap()
            .load::<f32, D2<3, 4>>("w")
            .unwrap(),
        w
    );
    std::fs::remove_file(&path).unwrap();
}
