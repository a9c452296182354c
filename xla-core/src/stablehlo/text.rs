//! MLIR spelling of types and of `dense<...>` constants.
//!
//! Floats are printed as their bit pattern in hexadecimal (`0x3F800000`), which MLIR's dense
//! parser reads back bit for bit: decimal printing would have to be shortest-round-trip for every
//! width (f16, bf16 included) and still could not spell NaN payloads or the sign of a NaN.

use std::fmt::Write;

use num_complex::Complex;

use crate::literal::ArrayData;
use crate::shape::{ArrayShape, Shape};

/// `array<i64: 0, 1, 2>`, or `array<i64>` when empty (MLIR's parser refuses `array<i64: >`).
pub fn i64_array(v: &[i64]) -> String {
    if v.is_empty() {
        return "array<i64>".into();
    }
    let v: Vec<String> = v.iter().map(i64::to_string).collect();
    format!("array<i64: {}>", v.join(", "))
}

/// `tensor<2x3xf32>`; a scalar is `tensor<f32>`; bounded dynamic dimensions as `?` with their
/// bounds in the encoding, `tensor<?x3xf32, #stablehlo.bounds<8, ?>>`. Layouts are not part of
/// the type.
pub fn tensor_type(a: &ArrayShape) -> String {
    let mut s = String::from("tensor<");
    for (d, dy) in a.dims.iter().zip(&a.dynamic) {
        if *dy {
            s.push_str("?x");
        } else {
            let _ = write!(s, "{d}x");
        }
    }
    s.push_str(a.ty.mlir_name());
    if a.is_dynamic() {
        let bounds: Vec<String> = a
            .dims
            .iter()
            .zip(&a.dynamic)
            .map(|(d, dy)| if *dy { d.to_string() } else { "?".into() })
            .collect();
        let _ = write!(s, ", #stablehlo.bounds<{}>", bounds.join(", "));
    }
    s.push('>');
    s
}

/// The MLIR type of a non-tuple shape: a tensor type, or `!stablehlo.token`; `None` for tuples
/// (which the export flattens).
pub fn leaf_type(shape: &Shape) -> Option<String> {
    match shape {
        Shape::Array(a) => Some(tensor_type(a)),
        Shape::Token => Some("!stablehlo.token".to_string()),
        Shape::Tuple(_) => None,
    }
}

/// The types of the leaves of `shape`, depth first (a tuple contributes its elements in order).
pub fn flat_types(shape: &Shape, out: &mut Vec<String>) {
    match shape {
        Shape::Tuple(elems) => elems.iter().for_each(|e| flat_types(e, out)),
        Shape::Array(_) | Shape::Token => {
            if let Some(t) = leaf_type(shape) {
                out.push(t);
            }
        }
    }
}

/// The result types of `shape` as MLIR writes them after `->`: one type bare, several (a
/// tuple's leaves, depth first) in parentheses.
pub fn results_type(shape: &Shape) -> String {
    let mut types = Vec::new();
    flat_types(shape, &mut types);
    if types.len() == 1 {
        types.swap_remove(0)
    } else {
        format!("({})", types.join(", "))
    }
}

/// One element of `data`, as MLIR spells it inside `dense<...>`.
fn element(data: &ArrayData, i: usize, s: &mut String) {
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = match data {
        ArrayData::Pred(v) => write!(s, "{}", v[i]),
        ArrayData::S8(v) => write!(s, "{}", v[i]),
        ArrayData::S16(v) => write!(s, "{}", v[i]),
        ArrayData::S32(v) => write!(s, "{}", v[i]),
        ArrayData::S64(v) => write!(s, "{}", v[i]),
        ArrayData::U8(v) => write!(s, "{}", v[i]),
        ArrayData::U16(v) => write!(s, "{}", v[i]),
        ArrayData::U32(v) => write!(s, "{}", v[i]),
        ArrayData::U64(v) => write!(s, "{}", v[i]),
        ArrayData::F16(v) => write!(s, "0x{:04X}", v[i].to_bits()),
        ArrayData::Bf16(v) => write!(s, "0x{:04X}", v[i].to_bits()),
        ArrayData::F32(v) => write!(s, "0x{:08X}", v[i].to_bits()),
        ArrayData::F64(v) => write!(s, "0x{:016X}", v[i].to_bits()),
        ArrayData::C64(v) => complex(s, v[i], |x| format!("0x{:08X}", x.to_bits())),
        ArrayData::C128(v) => complex(s, v[i], |x| format!("0x{:016X}", x.to_bits())),
    };
}

fn complex<T: Copy>(s: &mut String, c: Complex<T>, hex: impl Fn(T) -> String) -> std::fmt::Result {
    write!(s, "({}, {})", hex(c.re), hex(c.im))
}

/// `dense<...>` for row-major `data` of dimensions `dims`: a scalar is `dense<v>`, an array
/// is nested brackets, one level per dimension (`dense<[[1, 2], [3, 4]]>`).
pub fn dense(dims: &[i64], data: &ArrayData) -> String {
    let mut s = String::from("dense<");
    if dims.is_empty() {
        element(data, 0, &mut s);
    } else {
        let mut next = 0usize;
        nested(dims, data, &mut next, &mut s);
    }
    s.push('>');
    s
}

/// Prints the sub-array of dimensions `dims` starting at element `*next`, advancing `*next`.
fn nested(dims: &[i64], data: &ArrayData, next: &mut usize, s: &mut String) {
    s.push('[');
    for k in 0..dims[0] {
        if k > 0 {
            s.push_str(", ");
        }
        if dims.len() == 1 {
            element(data, *next, s);
            *next += 1;
        } else {
            nested(&dims[1..], data, next, s);
        }
    }
    s.push(']');
}
