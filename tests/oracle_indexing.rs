//! Oracle tests of Gather and Scatter: our reference evaluator against XLA:CPU running the
//! exported StableHLO, on every element type, random operands (any bit pattern, and the special
//! values) and index arrays of several integer types holding in-range, negative and too-large
//! starts.
//!
//! Gather: rows (an embedding lookup), 2-D indices, windows with 2-D starts (clamped at both
//! ends), `index_vector_dim = 0` and = rank (the implicit trailing 1), offset dimensions before
//! the batch dimensions, batching dimensions, an empty index array, a scalar operand. Scatter:
//! overwrite (`|a, b| b`: with duplicate indices the last update in index order wins), add, a
//! non-commutative combiner, windows partly outside the operand (dropped whole), batching
//! dimensions, scalar indices, two operands updated together.
//!
//! Data movement and `|a, b| b` are compared bit for bit; combiners that compute are compared
//! exactly with any NaN matching any NaN (NaN payloads of sums are the hardware's choice). If
//! XLA cannot be started every test FAILS, saying why.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_indexing`.

use std::sync::Arc;

use xla_aot::core::builder::{Builder, XlaOp};
use xla_aot::core::{
    ArrayShape, BinaryOp, Computation, ElementType, GatherDimensionNumbers, Literal, Result,
    ScatterDimensionNumbers, Shape,
};
use xla_oracle::Check::{Bits, Close};
use xla_oracle::{check_shared, index_literal, random_literal, Check, Dist, EvalCase, Tolerance};
use ElementType::*;

/// Cases per XLA compilation.
const CHUNK: usize = 40;

/// Index types, rotated through the cases.
const INDEX_TYPES: [ElementType; 8] = [S32, S8, U8, S16, U16, S64, U32, U64];

/// A random `ty[dims]` operand: any bit pattern for even seeds, the special values for odd.
fn rand(ty: ElementType, dims: &[i64], seed: u64) -> Literal {
    let dist = if seed.is_multiple_of(2) {
        Dist::Bits
    } else {
        Dist::Special
    };
    random_literal(&ArrayShape::new(ty, dims), seed, dist)
}

/// A case computing `f(builder, params)` on `args`.
fn case(
    name: String,
    args: Vec<Literal>,
    check: Check,
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Result<EvalCase> {
    let mut b = Builder::new(name.replace(['/', '.'], "_"));
    let ps = args
        .iter()
        .enumerate()
        .map(|(i, a)| b.parameter(i, a.shape(), &format!("p{i}")))
        .collect::<Result<Vec<_>>>()?;
    let root = f(&mut b, &ps)?;
    Ok(EvalCase {
        name,
        comp: b.build(root)?,
        args,
        check,
    })
}

/// One gather spec: operand dims, index dims and values, dimension numbers, slice sizes.
struct G {
    operand: &'static [i64],
    index_dims: &'static [i64],
    index: &'static [i64],
    dn: GatherDimensionNumbers,
    slice: &'static [i64],
}

fn gather_specs() -> Vec<G> {
    vec![
        // Rows of a table (embedding lookup), starts below, inside and beyond the table.
        G {
            operand: &[6, 4],
            index_dims: &[7],
            index: &[2, -3, 0, 5, 9, 2, -1],
            dn: GatherDimensionNumbers::new(&[1], &[0], &[0], 1),
            slice: &[1, 4],
        },
        // 2-D index array with an explicit trailing vector dimension of 1.
        G {
            operand: &[7, 3],
            index_dims: &[2, 3, 1],
            index: &[6, 0, 3, 7, -2, 1],
            dn: GatherDimensionNumbers::new(&[2], &[0], &[0], 2),
            slice: &[1, 3],
        },
        // 2-D starts taking 2x3 windows, clamped at both ends of both dimensions.
        G {
            operand: &[5, 6],
            index_dims: &[4, 2],
            index: &[0, 0, 4, 5, -1, 2, 2, -7],
            dn: GatherDimensionNumbers::new(&[1, 2], &[], &[0, 1], 1),
            slice: &[2, 3],
        },
        // index_vector_dim = 0, start_index_map reversing the components: single elements.
        G {
            operand: &[4, 5],
            index_dims: &[2, 3],
            index: &[1, 4, 9, 3, 0, -2],
            dn: GatherDimensionNumbers::new(&[], &[0, 1], &[1, 0], 0),
            slice: &[1, 1],
        },
        // Batching: each batch row of the operand indexed by its own row of indices.
        G {
            operand: &[3, 5, 2],
            index_dims: &[3, 4],
            index: &[0, 4, 2, 7, 1, 1, -3, 3, 4, 0, 2, 2],
            dn: GatherDimensionNumbers::new(&[2], &[1], &[1], 2).with_batching(&[0], &[0]),
            slice: &[1, 1, 2],
        },
        // Offset dimension before the batch dimension (a column gather).
        G {
            operand: &[4, 6],
            index_dims: &[3],
            index: &[5, 0, 8],
            dn: GatherDimensionNumbers::new(&[0], &[1], &[1], 1),
            slice: &[4, 1],
        },
        // Batching dimension of the indices after the vector dimension, window of 2.
        G {
            operand: &[2, 6],
            index_dims: &[1, 2, 3],
            index: &[1, 5, 3, 0, -1, 4],
            dn: GatherDimensionNumbers::new(&[0], &[], &[1], 0).with_batching(&[0], &[1]),
            slice: &[1, 2],
        },
        // No starts at all.
        G {
            operand: &[6, 4],
            index_dims: &[0],
            index: &[],
            dn: GatherDimensionNumbers::new(&[1], &[0], &[0], 1),
            slice: &[1, 4],
        },
        // A scalar operand: every start is empty.
        G {
            operand: &[],
            index_dims: &[3, 0],
            index: &[],
            dn: GatherDimensionNumbers::new(&[], &[], &[], 1),
            slice: &[],
        },
    ]
}

#[test]
fn gather_matches_xla() -> Result<()> {
    let mut cases = Vec::new();
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        for (i, g) in gather_specs().into_iter().enumerate() {
            let ity = INDEX_TYPES[(k + i) % INDEX_TYPES.len()];
            let args = vec![
                rand(ty, g.operand, (100 * k + i) as u64),
                index_literal(ity, g.index_dims, g.index),
            ];
            let (dn, slice) = (g.dn, g.slice);
            cases.push(case(
                format!("gather{i}/{ty}/{ity}"),
                args,
                Bits,
                |b, p| b.gather(p[0], p[1], &dn, slice, false),
            )?);
        }
    }
    check_shared("gather", cases, CHUNK);
    Ok(())
}

/// An update computation over `types` (current values, then updates).
fn computation(
    types: &[ElementType],
    body: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp>,
) -> Arc<Computation> {
    let mut b = Builder::new("update");
    let ps = types
        .iter()
        .chain(types)
        .enumerate()
        .map(|(i, &t)| b.parameter(i, Shape::scalar(t), "p"))
        .collect::<Result<Vec<_>>>()
        .expect("parameters");
    let root = body(&mut b, &ps).expect("body");
    Arc::new(b.build(root).expect("update computation"))
}

/// The combiners of the scalar cases: overwrite, add, and (not pred) `2a - b`.
fn combiners(ty: ElementType) -> Vec<(&'static str, Arc<Computation>, Check)> {
    let mut v = vec![
        ("set", computation(&[ty], |_, p| Ok(p[1])), Bits),
        (
            "add",
            computation(&[ty], |b, p| b.binary(BinaryOp::Add, p[0], p[1], None)),
            Close(Tolerance::Exact),
        ),
    ];
    if ty != Pred {
        v.push((
            "twice_minus",
            computation(&[ty], |b, p| {
                let t = b.binary(BinaryOp::Add, p[0], p[0], None)?;
                b.binary(BinaryOp::Sub, t, p[1], None)
            }),
            Close(Tolerance::Exact),
        ));
    }
    v
}

/// One scatter spec: operand dims, index dims and values, update dims, dimension numbers.
struct S {
    operand: &'static [i64],
    index_dims: &'static [i64],
    index: &'static [i64],
    updates: &'static [i64],
    dn: ScatterDimensionNumbers,
}

fn scatter_specs() -> Vec<S> {
    vec![
        // Rows, with duplicates and starts outside the table (those rows dropped).
        S {
            operand: &[6, 4],
            index_dims: &[8],
            index: &[2, -1, 2, 7, 0, 5, 2, 6],
            updates: &[8, 4],
            dn: ScatterDimensionNumbers::new(&[1], &[0], &[0], 1),
        },
        // 2x3 windows at 2-D starts: fitting, past the end, negative, overlapping.
        S {
            operand: &[5, 6],
            index_dims: &[5, 2],
            index: &[0, 0, 4, 4, -1, 0, 3, 3, 1, 1],
            updates: &[5, 2, 3],
            dn: ScatterDimensionNumbers::new(&[1, 2], &[], &[0, 1], 1),
        },
        // index_vector_dim = 0, single elements, duplicates.
        S {
            operand: &[4, 5],
            index_dims: &[2, 6],
            index: &[1, 3, 1, 0, 4, 1, 2, 4, 2, 0, 2, 2],
            updates: &[6],
            dn: ScatterDimensionNumbers::new(&[], &[0, 1], &[0, 1], 0),
        },
        // Batching: each batch row of the operand updated by its own row of indices.
        S {
            operand: &[3, 5],
            index_dims: &[3, 4],
            index: &[0, 4, 4, 9, 1, 1, -3, 3, 4, 0, 2, 2],
            updates: &[3, 4],
            dn: ScatterDimensionNumbers::new(&[], &[1], &[1], 2).with_batching(&[0], &[0]),
        },
        // A scalar index: one window, the window dimension first in the updates.
        S {
            operand: &[4, 3],
            index_dims: &[],
            index: &[2],
            updates: &[3],
            dn: ScatterDimensionNumbers::new(&[0], &[0], &[0], 0),
        },
        // Window dimension before the scatter dimension (columns).
        S {
            operand: &[3, 5],
            index_dims: &[4, 1],
            index: &[4, 0, 4, 5],
            updates: &[3, 4],
            dn: ScatterDimensionNumbers::new(&[0], &[1], &[1], 1),
        },
    ]
}

#[test]
fn scatter_matches_xla() -> Result<()> {
    let mut cases = Vec::new();
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        for (i, s) in scatter_specs().into_iter().enumerate() {
            let ity = INDEX_TYPES[(k + 2 * i) % INDEX_TYPES.len()];
            for (j, (name, f, check)) in combiners(ty).into_iter().enumerate() {
                let seed = (1000 * k + 10 * i + j) as u64;
                let args = vec![
                    rand(ty, s.operand, seed),
                    index_literal(ity, s.index_dims, s.index),
                    rand(ty, s.updates, seed + 5),
                ];
                let dn = s.dn.clone();
                cases.push(case(
                    format!("scatter{i}/{ty}/{ity}/{name}"),
                    args,
                    check,
                    |b, p| b.scatter(&[p[0]], p[1], &[p[2]], &f, &dn, false, false),
                )?);
            }
        }
    }
    check_shared("scatter", cases, CHUNK);
    Ok(())
}

/// Two operands updated together: the value overwritten, an s32 count incremented, by one
/// computation returning a tuple.
#[test]
fn variadic_scatter_matches_xla() -> Result<()> {
    let mut cases = Vec::new();
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        let f = computation(&[ty, S32], |b, p| {
            let n = b.binary(BinaryOp::Add, p[1], p[3], None)?;
            b.tuple(&[p[2], n])
        });
        let dn = ScatterDimensionNumbers::new(&[1], &[0], &[0], 1);
        let seed = 7000 + k as u64;
        let args = vec![
            rand(ty, &[5, 2], seed),
            rand(S32, &[5, 2], seed + 1),
            index_literal(S32, &[6], &[4, 0, 4, -2, 5, 1]),
            rand(ty, &[6, 2], seed + 2),
            rand(S32, &[6, 2], seed + 3),
        ];
        cases.push(case(format!("scatter2/{ty}"), args, Bits, |b, p| {
            b.scatter(&[p[0], p[1]], p[2], &[p[3], p[4]], &f, &dn, true, false)
        })?);
    }
    check_shared("variadic_scatter", cases, CHUNK);
    Ok(())
}
