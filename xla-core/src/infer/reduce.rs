//! Variadic Reduce: N arrays of one shape, N scalar inits, a computation
//! `(T_0..T_{N-1}, T_0..T_{N-1}) -> Collate(T_0..T_{N-1})`, and dimensions to reduce.

use super::{check_dims, expect_array};
use crate::error::{Blame, Error, Result};
use crate::ir::Computation;
use crate::shape::{ArrayShape, Shape};

/// The result of `Reduce(operands..., init_values..., computation, dimensions)`: each operand's
/// dims minus `dimensions`, with its element type; a tuple of them when N > 1.
pub fn reduce(
    operands: &[&Shape],
    init_values: &[&Shape],
    computation: &Computation,
    dimensions: &[i64],
) -> Result<Shape> {
    let op = "Reduce";
    let n = operands.len();
    let arrays = reduce_operands(op, operands, init_values)?;
    let first = arrays[0];
    check_dims(op, "dimensions", dimensions, first)?;

    check_reducer(op, &arrays, computation)?;

    let reduced = |a: &ArrayShape| {
        let mut out = ArrayShape::new(a.ty, &[]);
        for d in 0..a.rank() {
            if !dimensions.contains(&(d as i64)) {
                out.dims.push(a.dims[d]);
                out.dynamic.push(a.dynamic[d]);
            }
        }
        Shape::Array(out)
    };
    Ok(if n == 1 {
        reduced(first)
    } else {
        Shape::Tuple(arrays.iter().map(|a| reduced(a)).collect())
    })
}

/// The N operands of a variadic reduction (`Reduce`, `ReduceWindow`) as arrays of one shape,
/// each with a scalar init of its element type (operands blamed in order, inits after them).
pub(crate) fn reduce_operands<'a>(
    op: &str,
    operands: &[&'a Shape],
    init_values: &[&Shape],
) -> Result<Vec<&'a ArrayShape>> {
    let n = operands.len();
    if n == 0 {
        return Err(Error::new(op, "needs at least one operand"));
    }
    if init_values.len() != n {
        return Err(Error::new(
            op,
            format!(
                "{} need {}, got {}",
                crate::error::count(n, "operand", "operands"),
                crate::error::count(n, "init value", "init values"),
                init_values.len()
            ),
        ));
    }
    let arrays = operands
        .iter()
        .enumerate()
        .map(|(i, s)| expect_array(op, "each operand", s, Blame::Operand(i)))
        .collect::<Result<Vec<&ArrayShape>>>()?;
    let first = arrays[0];
    for (i, a) in arrays.iter().enumerate().skip(1) {
        if !a.same_dims(first) {
            return Err(Error::new(
                op,
                format!("all operands must have the same dimensions ({first} vs {a})"),
            )
            .blame(Blame::Operand(i)));
        }
    }
    for (i, (init, a)) in init_values.iter().zip(&arrays).enumerate() {
        let blame = Blame::Operand(n + i);
        let iv = expect_array(op, "each init value", init, blame.clone())?;
        if !iv.is_scalar() || iv.ty != a.ty {
            return Err(Error::new(
                op,
                format!(
                    "init value {i} must be a scalar {}[] like operand {i}, got {iv} (operand {a})",
                    a.ty
                ),
            )
            .blame(blame));
        }
    }
    Ok(arrays)
}

/// XLA's `VerifyReducerShape`: the computation takes 2N scalars (accumulators, then elements,
/// of the operands' types) and returns one scalar (N = 1) or a tuple of N of those types.
pub(crate) fn check_reducer(
    op: &str,
    arrays: &[&ArrayShape],
    computation: &Computation,
) -> Result<()> {
    let n = arrays.len();
    let cblame = Blame::Computation;
    let sig = || {
        let ts: Vec<String> = arrays.iter().map(|a| format!("{}[]", a.ty)).collect();
        let res = if n == 1 {
            ts[0].clone()
        } else {
            format!("({})", ts.join(", "))
        };
        format!("({}, {}) -> {res}", ts.join(", "), ts.join(", "))
    };
    if computation.params.len() != 2 * n {
        return Err(Error::new(
            op,
            format!(
                "the computation must take {}, {}, but takes {}",
                crate::error::count(2 * n, "parameter", "parameters"),
                sig(),
                computation.params.len()
            ),
        )
        .blame(cblame));
    }
    for (p, param) in computation.params.iter().enumerate() {
        let want = arrays[p % n].ty;
        let ok = matches!(param, Shape::Array(x) if x.is_scalar() && x.ty == want);
        if !ok {
            return Err(Error::new(
                op,
                format!(
                    "parameter {p} of the computation must be {want}[], got {param}; expected {}",
                    sig()
                ),
            )
            .blame(cblame));
        }
    }
    let result = computation.result_shape();
    let results: Vec<&Shape> = match (n, result) {
        (1, Shape::Array(_)) => vec![result],
        (_, Shape::Tuple(elems)) if n > 1 && elems.len() == n => elems.iter().collect(),
        _ => {
            return Err(Error::new(
                op,
                format!("the computation must return {}, returns {result}", sig()),
            )
            .blame(cblame))
        }
    };
    for (i, r) in results.iter().enumerate() {
        let want = arrays[i].ty;
        if !matches!(r, Shape::Array(x) if x.is_scalar() && x.ty == want) {
            return Err(Error::new(
                op,
                format!("the computation must return {}, returns {result}", sig()),
            )
            .blame(cblame));
        }
    }

    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, InstrId, Instruction, Op};
    use crate::shape::parse_shape;

    fn s(text: &str) -> Shape {
        parse_shape(text).unwrap()
    }

    /// A computation with the given parameter shapes whose root has shape `result` (the body
    /// does not matter to inference).
    fn comp(params: &[&str], result: &str) -> Computation {
        let mut instrs: Vec<Instruction> = params
            .iter()
            .enumerate()
            .map(|(i, p)| Instruction {
                op: Op::Parameter {
                    index: i,
                    name: format!("p{i}"),
                },
                operands: vec![],
                shape: s(p),
            })
            .collect();
        instrs.push(Instruction {
            op: Op::Binary(BinaryOp::Add),
            operands: vec![InstrId(0), InstrId(0)],
            shape: s(result),
        });
        Computation {
            name: "r".into(),
            params: params.iter().map(|p| s(p)).collect(),
            root: InstrId(instrs.len() as u32 - 1),
            instrs,
        }
    }

    #[test]
    fn single_operand() {
        let add = comp(&["f32[]", "f32[]"], "f32[]");
        assert_eq!(
            reduce(&[&s("f32[2,3]")], &[&s("f32[]")], &add, &[1]).unwrap(),
            s("f32[2]")
        );
        assert_eq!(
            reduce(&[&s("f32[4,2,3]")], &[&s("f32[]")], &add, &[2, 0]).unwrap(),
            s("f32[2]")
        );
        assert_eq!(
            reduce(&[&s("f32[2,3]{0,1}")], &[&s("f32[]")], &add, &[]).unwrap(),
            s("f32[2,3]")
        );
        assert_eq!(
            reduce(&[&s("f32[<=4,3]")], &[&s("f32[]")], &add, &[1]).unwrap(),
            s("f32[<=4]")
        );
    }

    #[test]
    fn checks() {
        let add = comp(&["f32[]", "f32[]"], "f32[]");
        let e = reduce(&[&s("f32[2,3]")], &[&s("f32[2]")], &add, &[1]).unwrap_err();
        assert_eq!(e.to_string(), "Reduce: init value 0 must be a scalar f32[] like operand 0, got f32[2] (operand f32[2,3])");
        assert_eq!(e.blame, Blame::Operand(1));
        assert!(reduce(&[], &[], &add, &[]).is_err());
        assert!(reduce(&[&s("f32[2]")], &[], &add, &[0]).is_err());
        assert!(reduce(&[&s("(f32[2])")], &[&s("f32[]")], &add, &[0]).is_err());
        let bad_result = comp(&["f32[]", "f32[]"], "f32[1]");
        assert_eq!(
            reduce(&[&s("f32[2]")], &[&s("f32[]")], &bad_result, &[0])
                .unwrap_err()
                .blame,
            Blame::Computation
        );
        let pair = comp(&["f32[]", "s32[]", "f32[]", "s32[]"], "(f32[], s32[])");
        let ok = reduce(
            &[&s("f32[5,2]"), &s("s32[5,2]")],
            &[&s("f32[]"), &s("s32[]")],
            &pair,
            &[0],
        )
        .unwrap();
        assert_eq!(ok, s("(f32[2], s32[2])"));
        let e = reduce(
            &[&s("f32[5,2]"), &s("s32[5]")],
            &[&s("f32[]"), &s("s32[]")],
            &pair,
            &[0],
        )
        .unwrap_err();
        assert_eq!(e.blame, Blame::Operand(1));
        let not_tuple = comp(&["f32[]", "s32[]", "f32[]", "s32[]"], "f32[]");
        assert!(reduce(
            &[&s("f32[5]"), &s("s32[5]")],
            &[&s("f32[]"), &s("s32[]")],
            &not_tuple,
            &[0]
        )
        .is_err());
    }
}
