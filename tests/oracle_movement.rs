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

use xla_aot::core::builder::{Builder, XlaOp};
use xla_aot::core::{ArrayShape, ElementType, Error, Literal, PadDim, Shape};
use xla_oracle::Check::Bits;
use xla_oracle::{check_shared, random_literal, Dist, EvalCase};

/// Cases per XLA compilation (compiling dominates the run time; see [`xla_oracle::merge`]).
const CHUNK: usize = 48;

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
) -> Result<EvalCase, Error> {
    let mut b = Builder::new(name.replace('/', "_"));
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (i, d) in dims.iter().enumerate() {
        params.push(b.parameter(i, Shape::array(ty, d), &format!("p{i}"))?);
        args.push(rand(ty, d, seed.wrapping_mul(31).wrapping_add(i as u64)));
    }
    let root = f(&mut b, &params)?;
    Ok(EvalCase {
        name,
        comp: b.build(root)?,
        args,
        check: Bits,
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
    check_shared("rev", cases, CHUNK);
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
    check_shared("slice", cases, CHUNK);
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
    check_shared("pad", cases, CHUNK);
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
    check_shared("concat_in_dim", cases, CHUNK);
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
    check_shared("programs", cases, CHUNK);
    Ok(())
}
