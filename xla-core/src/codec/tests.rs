use super::codes::{binary_code, direction_code, unary_code};
use super::write::data_bytes;
use super::*;
use std::sync::Arc;

use num_complex::Complex;

use crate::element::ElementType;
use crate::ir::{
    BatchNormKind, BinaryOp, ComparisonDirection, Computation, DotDimensionNumbers, InstrId,
    Instruction, Op, UnaryOp,
};
use crate::layout::Layout;
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

fn arr(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(ty, dims))
}

fn ins(op: Op, operands: &[u32], shape: Shape) -> Instruction {
    Instruction {
        op,
        operands: operands.iter().map(|&o| InstrId(o)).collect(),
        shape,
    }
}

fn adder(ty: ElementType) -> Arc<Computation> {
    Arc::new(Computation {
        name: "add".into(),
        params: vec![arr(ty, &[]), arr(ty, &[])],
        instrs: vec![
            ins(
                Op::Parameter {
                    index: 0,
                    name: "a".into(),
                },
                &[],
                arr(ty, &[]),
            ),
            ins(
                Op::Parameter {
                    index: 1,
                    name: "b".into(),
                },
                &[],
                arr(ty, &[]),
            ),
            ins(Op::Binary(BinaryOp::Add), &[0, 1], arr(ty, &[])),
        ],
        root: InstrId(2),
    })
}

/// One instruction of every op (shapes need not be consistent: the codec does not infer).
fn every_op() -> Computation {
    use ElementType::*;
    let mut lay = ArrayShape::new(F32, &[2, 3]);
    lay.layout = Some(Layout {
        minor_to_major: vec![0, 1],
        padded_dimensions: Some(vec![4, 3]),
    });
    lay.dynamic = vec![true, false];
    let consts = [
        Literal::from_vec(&[2], vec![true, false]),
        Literal::from_vec(&[2], vec![-1i8, 127]),
        Literal::from_vec(&[1], vec![i16::MIN]),
        Literal::from_vec(&[1], vec![i32::MIN]),
        Literal::from_vec(&[2], vec![i64::MIN, i64::MAX]),
        Literal::from_vec(&[1], vec![255u8]),
        Literal::from_vec(&[1], vec![u16::MAX]),
        Literal::from_vec(&[1], vec![u32::MAX]),
        Literal::from_vec(&[1], vec![u64::MAX]),
        Literal::from_vec(&[2], vec![half::f16::from_bits(0x7e01), half::f16::MAX]),
        Literal::from_vec(&[1], vec![half::bf16::from_bits(0xffc1)]),
        Literal::from_vec(
            &[3],
            vec![f32::from_bits(0x7fc0_0123), -0.0, f32::MIN_POSITIVE],
        ),
        Literal::from_vec(&[1], vec![f64::from_bits(1)]),
        Literal::from_vec(&[1], vec![Complex::new(1.5f32, -2.0)]),
        Literal::from_vec(&[0], Vec::<Complex<f64>>::new()),
    ];
    let mut instrs = vec![ins(
        Op::Parameter {
            index: 0,
            name: "x".into(),
        },
        &[],
        Shape::Array(lay),
    )];
    for c in consts {
        let c = c.expect("valid literal");
        let s = c.shape();
        instrs.push(ins(Op::Constant(c), &[], s));
    }
    let t = arr(F32, &[2, 3]);
    let ops = [
        Op::Iota { dimension: 1 },
        Op::Unary(UnaryOp::Tanh),
        Op::Binary(BinaryOp::ShiftRightLogical),
        Op::Compare {
            direction: ComparisonDirection::Le,
            total_order: true,
        },
        Op::Select,
        Op::Clamp,
        Op::ConvertElementType,
        Op::BitcastConvertType,
        Op::ReducePrecision {
            exponent_bits: 5,
            mantissa_bits: 10,
        },
        Op::BroadcastInDim {
            broadcast_dimensions: vec![0, 1],
        },
        Op::Reshape,
        Op::Transpose {
            permutation: vec![1, 0],
        },
        Op::Reduce {
            dimensions: vec![1],
            computation: adder(F32),
        },
        Op::DotGeneral {
            dimension_numbers: DotDimensionNumbers {
                lhs_contracting_dimensions: vec![1],
                rhs_contracting_dimensions: vec![0],
                lhs_batch_dimensions: vec![],
                rhs_batch_dimensions: vec![],
            },
            preferred_element_type: Some(ElementType::F64),
        },
        Op::Tuple,
        Op::GetTupleElement { index: 1 },
        Op::Call {
            computation: adder(S32),
            composite: None,
        },
        Op::Call {
            computation: adder(S32),
            composite: Some(Box::new(crate::ir::Composite {
                name: "my.add".into(),
                attributes: "{n = 1 : i64}".into(),
                version: 3,
            })),
        },
        Op::Gather {
            dimension_numbers: crate::ir::GatherDimensionNumbers {
                offset_dims: vec![2],
                collapsed_slice_dims: vec![1],
                operand_batching_dims: vec![0],
                start_indices_batching_dims: vec![1],
                start_index_map: vec![1],
                index_vector_dim: 0,
            },
            slice_sizes: vec![1, 1, 2],
            indices_are_sorted: true,
        },
        Op::Scatter {
            dimension_numbers: crate::ir::ScatterDimensionNumbers {
                update_window_dims: vec![1],
                inserted_window_dims: vec![0],
                input_batching_dims: vec![2],
                scatter_indices_batching_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                index_vector_dim: 1,
            },
            indices_are_sorted: false,
            unique_indices: true,
            update_computation: adder(F64),
        },
        Op::BatchNorm {
            kind: BatchNormKind::Training,
            feature_index: 1,
            epsilon: 1e-5,
        },
        Op::Map {
            dimensions: vec![0, 1],
            computation: adder(F32),
        },
        Op::BatchNorm {
            kind: BatchNormKind::Grad,
            feature_index: 0,
            epsilon: 0.25,
        },
        Op::DynamicSlice {
            slice_sizes: vec![2, 1],
        },
        Op::DynamicUpdateSlice,
        Op::GetDimensionSize { dimension: 1 },
        Op::SetDimensionSize { dimension: 0 },
        Op::DynamicReshape,
        Op::SelectAndScatter {
            window: crate::ir::Window {
                dimensions: vec![3, 2],
                strides: vec![2, 1],
                padding: vec![(1, 1), (0, 0)],
                base_dilations: vec![1, 1],
                window_dilations: vec![1, 1],
            },
            select: adder(F64),
            scatter: adder(S32),
        },
        Op::Scan {
            scan_dimension: 1,
            is_reverse: true,
            is_associative: Some(false),
            num_carries: 2,
            to_apply: adder(F64),
        },
        Op::Cholesky { lower: false },
        Op::TriangularSolve {
            left_side: false,
            lower: true,
            unit_diagonal: true,
            transpose_a: crate::ir::TransposeA::Adjoint,
        },
        Op::RaggedDot {
            dimension_numbers: crate::ir::RaggedDotDimensionNumbers {
                dot: DotDimensionNumbers {
                    lhs_contracting_dimensions: vec![2],
                    rhs_contracting_dimensions: vec![1],
                    lhs_batch_dimensions: vec![0],
                    rhs_batch_dimensions: vec![0],
                },
                lhs_ragged_dimensions: vec![1],
                rhs_group_dimensions: vec![],
            },
            preferred_element_type: Some(ElementType::F64),
        },
        Op::ScaledDot {
            dimension_numbers: DotDimensionNumbers {
                lhs_contracting_dimensions: vec![1],
                rhs_contracting_dimensions: vec![0],
                lhs_batch_dimensions: vec![],
                rhs_batch_dimensions: vec![],
            },
            preferred_element_type: Some(ElementType::Bf16),
        },
        Op::ReduceWindow {
            window: crate::ir::Window {
                dimensions: vec![2, 3],
                strides: vec![1, 2],
                padding: vec![(-1, 2), (0, 1)],
                base_dilations: vec![1, 3],
                window_dilations: vec![2, 1],
            },
            computation: adder(S32),
        },
        Op::Rng {
            distribution: crate::ir::RngDistribution::Uniform,
            seed: 3,
        },
        Op::Rng {
            distribution: crate::ir::RngDistribution::Normal,
            seed: u64::MAX,
        },
        Op::Fft {
            fft_type: crate::ir::FftType::Irfft,
            fft_length: vec![3, 4, 7],
        },
        Op::Fft {
            fft_type: crate::ir::FftType::Fft,
            fft_length: vec![1],
        },
    ];
    let rng_bits =
        crate::ir::RandomAlgorithm::ALL.map(|algorithm| Op::RngBitGenerator { algorithm });
    for op in ops.into_iter().chain(rng_bits) {
        instrs.push(ins(op, &[0, 0], t.clone()));
    }
    instrs.push(ins(
        Op::Tuple,
        &[1, 2],
        Shape::Tuple(vec![arr(Pred, &[2]), Shape::Token]),
    ));
    let root = InstrId(instrs.len() as u32 - 1);
    Computation {
        name: "every_op".into(),
        params: vec![arr(F32, &[2, 3])],
        instrs,
        root,
    }
}

#[test]
fn every_op_round_trips() {
    let c = every_op();
    let bytes = encode(&c);
    let d = decode(&bytes).expect("decodes");
    assert_eq!(format!("{c:?}"), format!("{d:?}"));
    // Debug does not show NaN payloads: compare the constants' bits too.
    for (a, b) in c.instrs.iter().zip(&d.instrs) {
        if let (
            Op::Constant(Literal::Array { data: x, .. }),
            Op::Constant(Literal::Array { data: y, .. }),
        ) = (&a.op, &b.op)
        {
            assert_eq!(data_bytes(x), data_bytes(y));
        }
    }
    // Compact: about a dozen bytes per instruction here.
    assert!(bytes.len() < 40 * c.instrs.len(), "{} bytes", bytes.len());
}

#[test]
fn codes_are_the_tables() {
    for (i, u) in UnaryOp::ALL.iter().enumerate() {
        assert_eq!(unary_code(*u), i as u64, "{u:?}");
    }
    for (i, b) in BinaryOp::ALL.iter().enumerate() {
        assert_eq!(binary_code(*b), i as u64, "{b:?}");
    }
    for (i, d) in ComparisonDirection::ALL.iter().enumerate() {
        assert_eq!(direction_code(*d), i as u64, "{d:?}");
    }
}

#[test]
fn damaged_bytes_are_errors_not_panics() {
    let bytes = encode(&every_op());
    for n in 0..bytes.len() {
        assert!(decode(&bytes[..n]).is_err(), "truncated to {n}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode(&longer)
        .unwrap_err()
        .to_string()
        .contains("trailing"));
    let mut other = bytes.clone();
    other[0] = VERSION + 1;
    assert!(decode(&other).unwrap_err().to_string().contains("version"));
    // Every byte set to values that break varints, tags and counts: Ok or Err, never a panic.
    for i in 1..bytes.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] = v;
            let _ = decode(&b);
        }
    }
    // A count claiming more items than bytes: refused before allocating.
    let mut huge = vec![VERSION, 0];
    huge.extend([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    assert!(decode(&huge).is_err());
}
