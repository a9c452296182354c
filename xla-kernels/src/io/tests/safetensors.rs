//! safetensors: every element type the format has, a file written by hand as the Python
//! `safetensors` package lays it out, the error messages, and damaged files.

use half::{bf16, f16};
use num_complex::Complex;
use xla_core::ElementType;

use super::{expected, temp};
use crate::io::{DataErrorKind, SafeTensorsFile, SafeTensorsWriter};
use crate::tensor::{Tensor, D1, D2};

/// A safetensors file from a JSON header and data, as the format's spec lays it out.
fn safetensors_bytes(header: &str, data: &[u8]) -> Vec<u8> {
    let mut h = header.as_bytes().to_vec();
    h.resize(h.len().next_multiple_of(8), b' ');
    let mut out = (h.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&h);
    out.extend_from_slice(data);
    out
}

#[test]
fn every_element_type_but_c128_round_trips() {
    let mut out = SafeTensorsWriter::new();
    let types: Vec<ElementType> = ElementType::ALL
        .into_iter()
        .filter(|&t| t != ElementType::C128)
        .collect();
    for &ty in &types {
        out.add_literal(ty.name(), &expected(ty)).unwrap();
    }
    let path = temp("all.safetensors");
    out.save(&path).unwrap();
    let file = SafeTensorsFile::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let mut names: Vec<&str> = types.iter().map(|t| t.name()).collect();
    names.sort();
    assert_eq!(file.names(), names);
    for &ty in &types {
        assert_eq!(file.load_literal(ty.name()).unwrap(), expected(ty), "{ty}");
    }
    macro_rules! typed {
        ($($t:ty),*) => {$({
            let ty = <$t as xla_core::NativeType>::TYPE;
            let t: Tensor<$t, D2<2, 3>> = file.load(ty.name()).unwrap();
            assert_eq!(t.to_literal(), expected(ty), "{ty}");
        })*};
    }
    typed!(
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
        Complex<f32>
    );
}

#[test]
fn typed_tensors_and_c128() {
    let w: Tensor<f32, D2<3, 2>> = Tensor::from_fn(|i| (i[0] * 2 + i[1]) as f32 - 2.5);
    let b: Tensor<bf16, D1<2>> =
        Tensor::from_vec(vec![bf16::from_f32(0.5), bf16::from_f32(-3.0)]).unwrap();
    let mut out = SafeTensorsWriter::new();
    out.add("layer.w", &w).unwrap();
    out.add("layer.b", &b).unwrap();
    let e = out.add("layer.w", &w).unwrap_err();
    assert!(
        e.to_string().contains("already has a tensor of this name"),
        "{e}"
    );
    let z: Tensor<Complex<f64>, D1<1>> = Tensor::zeros();
    let e = out.add("z", &z).unwrap_err();
    assert_eq!(
        e.to_string(),
        "<safetensors>, tensor `z`: c128 has no safetensors dtype"
    );
    let file = SafeTensorsFile::from_bytes(out.to_bytes().unwrap(), "m.safetensors").unwrap();
    assert!(file.metadata().is_empty());
    assert_eq!(file.load::<f32, D2<3, 2>>("layer.w").unwrap(), w);
    assert_eq!(file.load::<bf16, D1<2>>("layer.b").unwrap(), b);
}

#[test]
fn a_file_written_by_hand_as_python_writes_it() {
    // f16 [2] then f32 [2,2], offsets relative to the data section.
    let header = r#"{"__metadata__":{"format":"pt"},"b":{"dtype":"F16","shape":[2],"data_offsets":[16,20]},"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#;
    let mut data = Vec::new();
    for v in [1.0f32, 2.0, -3.0, 0.25] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    for v in [0.5f32, -1.0] {
        data.extend_from_slice(&f16::from_f32(v).to_bits().to_le_bytes());
    }
    let file =
        SafeTensorsFile::from_bytes(safetensors_bytes(header, &data), "h.safetensors").unwrap();
    assert_eq!(file.names(), ["b", "w"]);
    assert_eq!(file.metadata(), [("format".to_string(), "pt".to_string())]);
    let w: Tensor<f32, D2<2, 2>> = file.load("w").unwrap();
    assert_eq!(w.as_slice(), &[1.0, 2.0, -3.0, 0.25]);
    let b: Tensor<f16, D1<2>> = file.load("b").unwrap();
    assert_eq!(b.as_slice(), &[f16::from_f32(0.5), f16::from_f32(-1.0)]);
}

#[test]
fn errors_name_the_file_the_tensor_and_both_types() {
    let mut out = SafeTensorsWriter::new();
    out.add("w", &Tensor::<f32, D2<2, 3>>::zeros()).unwrap();
    let file = SafeTensorsFile::from_bytes(out.to_bytes().unwrap(), "m.safetensors").unwrap();
    let e = file.load::<f64, D2<2, 3>>("w").unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.safetensors, tensor `w`: holds f32[2,3] (safetensors F32), expected f64[2,3]"
    );
    let e = file.load::<f32, D1<6>>("w").unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.safetensors, tensor `w`: holds f32[2,3] (safetensors F32), expected f32[6]"
    );
    let e = file.load::<f32, D2<2, 3>>("w2").unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.safetensors: no tensor named `w2` (the file has: w)"
    );
    assert!(matches!(e.kind, DataErrorKind::Missing { .. }));
    let e = SafeTensorsFile::open(temp("none.safetensors"))
        .err()
        .unwrap();
    assert!(matches!(e.kind, DataErrorKind::Io(_)), "{e}");
}

#[test]
fn eight_bit_floats_are_unsupported() {
    let header = r#"{"f8":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]}}"#;
    let file =
        SafeTensorsFile::from_bytes(safetensors_bytes(header, &[0; 4]), "f8.safetensors").unwrap();
    let e = file.load_literal("f8").unwrap_err();
    assert_eq!(
        e.to_string(),
        "f8.safetensors, tensor `f8`: safetensors dtype F8_E4M3 has no XLA element type in xla-aot"
    );
    let e = file.load::<u8, D1<4>>("f8").unwrap_err();
    assert!(e.to_string().ends_with("holds safetensors F8_E4M3 (no XLA element type in xla-aot) of dims [4], expected u8[4]"), "{e}");
}

#[test]
fn damaged_files_are_errors() {
    let mut out = SafeTensorsWriter::new();
    out.add("w", &Tensor::<f32, D2<2, 3>>::zeros()).unwrap();
    out.add("m", &Tensor::<bool, D1<3>>::filled(true)).unwrap();
    let good = out.to_bytes().unwrap();
    let load_all = |bytes: Vec<u8>| {
        let f = SafeTensorsFile::from_bytes(bytes, "d.safetensors")?;
        f.load::<f32, D2<2, 3>>("w")?;
        f.load_literal("m")
    };
    for len in 0..good.len() {
        let e = load_all(good[..len].to_vec()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("d.safetensors: not a valid safetensors file: "),
            "{e}"
        );
    }
    for i in 0..good.len() {
        for x in [0x01u8, 0x20, 0x80] {
            let mut bytes = good.clone();
            bytes[i] ^= x;
            if let Err(e) = load_all(bytes) {
                assert!(e.to_string().starts_with("d.safetensors"), "{e}");
            }
        }
    }
    // A header claiming 2^60 elements, backed by 4 bytes.
    let header = r#"{"x":{"dtype":"F32","shape":[1152921504606846976],"data_offsets":[0,4]}}"#;
    let e = SafeTensorsFile::from_bytes(safetensors_bytes(header, &[0; 4]), "h.safetensors")
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .starts_with("h.safetensors: not a valid safetensors file"),
        "{e}"
    );
    let header = r#"{"x":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}}"#;
    assert!(SafeTensorsFile::from_bytes(safetensors_bytes(header, &[0; 4]), "h").is_err());
    // A header length of 2^63.
    let mut bytes = (1u64 << 63).to_le_bytes().to_vec();
    bytes.extend_from_slice(b"{}");
    assert!(SafeTensorsFile::from_bytes(bytes, "h").is_err());
    // A bool that is not 0 or 1.
    let header = r#"{"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}}"#;
    let f =
        SafeTensorsFile::from_bytes(safetensors_bytes(header, &[1, 7]), "b.safetensors").unwrap();
    let e = f.load_literal("m").unwrap_err();
    assert_eq!(
        e.to_string(),
        "b.safetensors, tensor `m`: element 1 of a bool array is the byte 0x07, not 0 or 1"
    );
}
