//! Oracle tests of Rev, Slice, Pad and ConcatInDim: every element type, random inputs (any bit
//! pattern, NaN payloads and subnormals included, and the special values) and edge cases (several
//! reversed dimensions, strided slices, slices to empty, negative edge and interior padding,
//! concatenation of three operands one of them empty), built with the builder, run by our
//! evaluator and by XLA:CPU through the exported StableHLO.
//!
//! Data movement computes nothing, so results must agree bit for bit: floats are compared by
//! their bits (a NaN must keep its payload), not merely as numbers. If XLA cannot be started every
//! test FAILS, saying why.
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_movement` (`bash oracle/setup.sh` creates the venv).

use std::sync::{Mutex, MutexGuard, OnceLock};

use xla_aot::core::builder::{Builder, XlaOp};
use xla_aot::core::eval::evaluate;
use xla_aot::core::{
    ArrayData, ArrayShape, Computation, ElementType, Error, InstrId, Instruction, Literal, Op,
    PadDim, Shape,
};
use xla_oracle::{random_literal, Dist, Oracle};

/// The one oracle process of this test binary, started on first use.
fn oracle() -> MutexGuard<'static, Result<Oracle, String>> {
    static ORACLE: OnceLock<Mutex<Result<Oracle, String>>> = OnceLock::new();
    let m = ORACLE.get_or_init(|| Mutex::new(Oracle::start()));
    // A panicking test must not poison the oracle for the others.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One comparison: a computation and its arguments.
struct Case {
    name: String,
    comp: Computation,
    args: Vec<Literal>,
}

/// Cases per XLA compilation (compiling dominates the run time; see [`merge`]).
const CHUNK: usize = 48;

/// The elements of an array as bit patterns (complex: real then imaginary part), so that equal
/// means bit-identical, NaN payloads and the sign of zero included.
fn bits(data: &ArrayData) -> Vec<u64> {
    match data {
        ArrayData::Pred(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::S8(v) => v.iter().map(|&x| x as u8 as u64).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| x as u16 as u64).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| x as u32 as u64).collect(),
        ArrayData::S64(v) => v.iter().map(|&x| x as u64).collect(),
        ArrayData::U8(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::U64(v) => v.clone(),
        ArrayData::F16(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        ArrayData::Bf16(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        ArrayData::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        ArrayData::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
        ArrayData::C64(v) => v
            .iter()
            .flat_map(|x| [u64::from(x.re.to_bits()), u64::from(x.im.to_bits())])
            .collect(),
        ArrayData::C128(v) => v
            .iter()
            .flat_map(|x| [x.re.to_bits(), x.im.to_bits()])
            .collect(),
    }
}

/// `Ok` when both literals have the same shape and bit-identical elements.
fn check_bits(name: &str, ours: &Literal, xla: &Literal) -> Result<(), String> {
    match (ours, xla) {
        (Literal::Array { shape: s, data: a }, Literal::Array { shape: t, data: b }) => {
            if s.ty != t.ty || s.dims != t.dims {
                return Err(format!("{name}: shape {s} vs XLA's {t}"));
            }
            let (x, y) = (bits(a), bits(b));
            match x.iter().zip(&y).position(|(p, q)| p != q) {
                Some(i) => Err(format!(
                    "{name}: bits differ first at flat index {i} of {s}: ours {:#x} vs XLA {:#x}",
                    x[i], y[i]
                )),
                None if x.len() != y.len() => Err(format!("{name}: element counts differ")),
                None => Ok(()),
            }
        }
        (Literal::Tuple(a), Literal::Tuple(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .try_for_each(|(i, (p, q))| check_bits(&format!("{name}.{i}"), p, q)),
        _ => Err(format!(
            "{name}: result {} vs XLA's {}",
            ours.shape(),
            xla.shape()
        )),
    }
}

/// Runs every case through the evaluator and XLA; panics listing every difference.
fn check_all(suite: &str, cases: Vec<Case>) {
    let mut guard = oracle();
    let oracle = match guard.as_mut() {
        Ok(o) => o,
        Err(e) => panic!(
            "{suite}: the XLA oracle cannot start, so nothing can be checked against XLA:\n{e}"
        ),
    };
    let mut failures = Vec::new();
    let n = cases.len();
    for chunk in cases.chunks(CHUNK) {
        // One compilation per chunk; if XLA rejects it, the cases one by one name the culprit.
        let (comp, args) = merge(chunk);
        let xla: Vec<Result<Literal, String>> = match oracle.run_computation(&comp, &args) {
            Ok(Literal::Tuple(parts)) if parts.len() == chunk.len() => {
                parts.into_iter().map(Ok).collect()
            }
            Ok(_) | Err(_) => chunk
                .iter()
                .map(|c| oracle.run_computation(&c.comp, &c.args))
                .collect(),
        };
        for (c, xla) in chunk.iter().zip(xla) {
            let checked = match (evaluate(&c.comp, &c.args), xla) {
                (Ok(ours), Ok(xla)) => check_bits(&c.name, &ours, &xla),
                (Err(e), _) => Err(format!("{}: our evaluator failed: {e}", c.name)),
                (_, Err(e)) => Err(format!("{}: XLA failed: {e}", c.name)),
            };
            if let Err(e) = checked {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{suite}: {} of {n} cases differ from XLA (XLA:CPU on {}):\n{}",
        failures.len(),
        oracle.platform,
        failures.join("\n")
    );
}

/// The cases side by side in one computation: parameters concatenated, instructions renumbered,
/// the root a tuple of the cases' roots.
fn merge(cases: &[Case]) -> (Computation, Vec<Literal>) {
    let mut instrs = Vec::new();
    let mut params = Vec::new();
    let mut roots = Vec::new();
    let mut args = Vec::new();
    for c in cases {
        let base = instrs.len() as u32;
        let first_param = params.len();
        for ins in &c.comp.instrs {
            let op = match &ins.op {
                Op::Parameter { index, name } => Op::Parameter {
                    index: index + first_param,
                    name: name.clone(),
                },
                other => other.clone(),
            };
            let operands = ins.operands.iter().map(|o| InstrId(o.0 + base)).collect();
            instrs.push(Instruction {
                op,
                operands,
                shape: ins.shape.clone(),
            });
        }
        params.extend(c.comp.params.iter().cloned());
        roots.push(InstrId(c.comp.root.0 + base));
        args.extend(c.args.iter().cloned());
    }
    let shape = Shape::Tuple(
        roots
            .iter()
            .map(|r| instrs[r.0 as usize].shape.clone())
            .collect(),
    );
    instrs.push(Instruction {
        op: Op::Tuple,
        operands: roots,
        shape,
    });
    let root = InstrId(instrs.len() as u32 - 1);
    (
        Computation {
            name: "cases".into(),
            params,
            instrs,
            root,
        },
        args,
    )
}

/// Random inputs: any bit pattern for even seeds, the special values for odd ones.
/// `XLA_ORACLE_SALT=n` shifts every seed, to try other samples.
fn rand(ty: ElementType, dims: &[i64], seed: u64) -> Literal {
    let salt: u64 = std::env::var("XLA_ORACLE_SALT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let dist = if seed.is_multiple_of(2) {
        Dist::Bits
    } else {
        Dist::Special
    };
    random_literal(
        &ArrayShape::new(ty, dims),
        seed.wrapping_add(salt.wrapping_mul(0x1_0000_0001)),
        dist,
    )
}

fn pd(low: i64, high: i64, interior: i64) -> PadDim {
    PadDim {
        low,
        high,
        interior,
    }
}

/// A case computing `f(builder, params)` on random parameters of element type `ty` and the
/// given dimensions.
fn case(
    name: String,
    ty: ElementType,
    dims: &[&[i64]],
    seed: u64,
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> Result<XlaOp, Error>,
) -> Result<Case, Error> {
    let mut b = Builder::new(name.replace('/', "_"));
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (i, d) in dims.iter().enumerate() {
        params.push(b.parameter(i, Shape::array(ty, d), &format!("p{i}"))?);
        args.push(rand(ty, d, seed.wrapping_mul(31).wrapping_add(i as u64)));
    }
    let root = f(&mut b, &params)?;
    Ok(Case {
        name,
        comp: b.build(root)?,
        args,
    })
}

#[test]
fn rev_matches_xla() -> Result<(), Error> {
    let mut cases = Vec::new();
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        let s = 100 * k as u64;
        let dims: [(&[i64], &[i64]); 6] = [
            (&[2, 3, 4], &[0, 2]),
            (&[2, 3, 4], &[2, 1, 0]),
            (&[5, 7], &[1]),
            (&[9], &[0]),
            (&[3, 0, 2], &[0, 1]),
            (&[], &[]),
        ];
        for (i, (shape, rev)) in dims.into_iter().enumerate() {
            cases.push(case(
                format!("rev{i}/{ty}"),
                ty,
                &[shape],
                s + i as u64,
                |b, p| b.rev(p[0], rev),
            )?);
        }
    }
    check_all("rev", cases);
    Ok(())
}

#[test]
fn slice_matches_xla() -> Result<(), Error> {
    let mut cases = Vec::new();
    // (operand dims, start, limit, strides)
    type S<'a> = (&'a [i64], &'a [i64], &'a [i64], &'a [i64]);
    let specs: [S; 7] = [
        (&[5, 7], &[1, 0], &[5, 7], &[2, 3]),
        (&[5, 7], &[0, 2], &[5, 6], &[1, 1]),
        (&[2, 3, 8], &[0, 1, 1], &[2, 3, 8], &[1, 2, 3]),
        (&[10], &[3], &[10], &[100]),
        (&[5, 7], &[2, 7], &[4, 7], &[1, 1]),
        (&[5, 7], &[5, 0], &[5, 7], &[2, 1]),
        (&[], &[], &[], &[]),
    ];
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        let s = 100 * k as u64 + 1;
        for (i, (dims, start, limit, strides)) in specs.into_iter().enumerate() {
            cases.push(case(
                format!("slice{i}/{ty}"),
                ty,
                &[dims],
                s + 2 * i as u64,
                |b, p| b.slice(p[0], start, limit, Some(strides)),
            )?);
        }
    }
    check_all("slice", cases);
    Ok(())
}

#[test]
fn pad_matches_xla() -> Result<(), Error> {
    let mut cases = Vec::new();
    let specs: Vec<(&[i64], Vec<PadDim>)> = vec![
        (&[3, 4], vec![pd(1, 2, 0), pd(0, 3, 0)]),
        (&[3, 4], vec![pd(-1, 2, 1), pd(2, -3, 2)]),
        (&[3, 4], vec![pd(-2, -3, 2), pd(-1, -1, 1)]),
        (&[2, 3, 2], vec![pd(0, 0, 3), pd(-3, 1, 1), pd(1, -1, 0)]),
        (&[4], vec![pd(-4, 0, 0)]),
        (&[0, 3], vec![pd(2, 1, 3), pd(0, 0, 1)]),
        (&[1, 5], vec![pd(0, 0, 7), pd(-5, 2, 0)]),
        (&[], vec![]),
    ];
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        let s = 100 * k as u64 + 2;
        for (i, (dims, config)) in specs.iter().enumerate() {
            cases.push(case(
                format!("pad{i}/{ty}"),
                ty,
                &[dims, &[]],
                s + 3 * i as u64,
                |b, p| b.pad(p[0], p[1], config),
            )?);
        }
    }
    check_all("pad", cases);
    Ok(())
}

#[test]
fn concat_in_dim_matches_xla() -> Result<(), Error> {
    let mut cases = Vec::new();
    let specs: [(&[&[i64]], i64); 6] = [
        (&[&[2, 3], &[0, 3], &[4, 3]], 0),
        (&[&[2, 1], &[2, 0], &[2, 4]], 1),
        (&[&[2, 3, 2], &[2, 1, 2], &[2, 0, 2]], 1),
        (&[&[3, 2, 1], &[3, 2, 2], &[3, 2, 1]], 2),
        (&[&[5]], 0),
        (&[&[0, 2], &[0, 2], &[0, 2]], 0),
    ];
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        let s = 100 * k as u64 + 3;
        for (i, (dims, dim)) in specs.into_iter().enumerate() {
            cases.push(case(
                format!("concat{i}/{ty}"),
                ty,
                dims,
                s + 4 * i as u64,
                |b, p| b.concat_in_dim(p, dim),
            )?);
        }
    }
    check_all("concat_in_dim", cases);
    Ok(())
}

/// The four ops chained, with a constant padding value (exported as a `stablehlo.constant`).
#[test]
fn movement_programs_match_xla() -> Result<(), Error> {
    let mut cases = Vec::new();
    for (k, ty) in ElementType::ALL.into_iter().enumerate() {
        let s = 100 * k as u64 + 4;
        let fill = rand(ty, &[], s + 50);
        cases.push(case(
            format!("chain/{ty}"),
            ty,
            &[&[4, 6], &[2, 3]],
            s,
            |b, p| {
                let r = b.rev(p[0], &[0, 1])?;
                let sl = b.slice(r, &[1, 0], &[4, 6], Some(&[1, 3]))?;
                let v = b.try_constant(fill)?;
                let pad = b.pad(sl, v, &[pd(0, 0, 0), pd(-1, 1, 1)])?;
                b.concat_in_dim(&[pad, p[1], pad], 0)
            },
        )?);
    }
    check_all("programs", cases);
    Ok(())
}
