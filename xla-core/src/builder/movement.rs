//! Builder methods of the data-movement ops that pick, drop or add elements: Rev, Slice, Pad and
//! ConcatInDim. Each runs its shape inference (`crate::infer::movement`) and appends one
//! instruction.

use super::{Builder, XlaOp};
use crate::error::Result;
use crate::infer;
use crate::ir::{Op, PadDim};

impl Builder {
    /// `Rev(operand, dimensions)`: `operand` with the order of its elements reversed along each
    /// of `dimensions` (index `i` of a size-`n` dimension goes to `n - 1 - i`).
    pub fn rev(&mut self, operand: XlaOp, dimensions: &[i64]) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::rev(s, dimensions)?;
        let op = Op::Rev {
            dimensions: dimensions.to_vec(),
        };
        Ok(self.push(op, vec![operand.0], out))
    }

    /// `Slice(operand, start_indices, limit_indices, strides)`:
    /// `output[i] = operand[start + i * stride]` per dimension, for `start + i * stride < limit`;
    /// `strides` of `None` are all 1.
    pub fn slice(
        &mut self,
        operand: XlaOp,
        start_indices: &[i64],
        limit_indices: &[i64],
        strides: Option<&[i64]>,
    ) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let strides = match strides {
            Some(st) => st.to_vec(),
            None => vec![1; start_indices.len()],
        };
        let out = infer::slice(s, start_indices, limit_indices, &strides)?;
        let op = Op::Slice {
            start_indices: start_indices.to_vec(),
            limit_indices: limit_indices.to_vec(),
            strides,
        };
        Ok(self.push(op, vec![operand.0], out))
    }

    /// `Pad(operand, padding_value, padding_config)`: `interior` copies of the scalar
    /// `padding_value` between neighbouring elements of each dimension, then `low` and `high`
    /// copies at its ends (a negative count removes elements instead).
    pub fn pad(
        &mut self,
        operand: XlaOp,
        padding_value: XlaOp,
        config: &[PadDim],
    ) -> Result<XlaOp> {
        let [s, v] = self.shapes([operand, padding_value])?;
        let out = infer::pad(s, v, config)?;
        let op = Op::Pad {
            config: config.to_vec(),
        };
        Ok(self.push(op, vec![operand.0, padding_value.0], out))
    }

    /// `ConcatInDim(operands..., dimension)`: the operands laid end to end along `dimension`
    /// (every other dimension equal).
    pub fn concat_in_dim(&mut self, operands: &[XlaOp], dimension: i64) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::concat_in_dim(&shapes, dimension)?;
        let op = Op::Concatenate { dimension };
        Ok(self.push(op, operands.iter().map(|o| o.0).collect(), out))
    }
}

#[cfg(test)]
mod tests {
    use crate::builder::Builder;
    use crate::element::ElementType::*;
    use crate::error::Blame;
    use crate::ir::{Op, PadDim};
    use crate::literal::Literal;
    use crate::shape::Shape;

    #[test]
    fn builder_appends_one_instruction_per_op() {
        let mut b = Builder::new("movement");
        let x = b.parameter(0, Shape::array(F32, &[4, 3]), "x").unwrap();
        let r = b.rev(x, &[0]).unwrap();
        let s = b.slice(r, &[1, 0], &[4, 3], Some(&[2, 2])).unwrap();
        assert_eq!(b.shape(s).to_string(), "f32[2,2]");
        let s1 = b.slice(x, &[0, 1], &[2, 3], None).unwrap();
        assert_eq!(b.shape(s1).to_string(), "f32[2,2]");
        let zero = b.constant(Literal::scalar(0f32));
        let cfg = [
            PadDim {
                low: 1,
                high: -1,
                interior: 1,
            },
            PadDim {
                low: 0,
                high: 2,
                interior: 0,
            },
        ];
        let p = b.pad(s, zero, &cfg).unwrap();
        assert_eq!(b.shape(p).to_string(), "f32[3,4]");
        let c = b.concat_in_dim(&[s, s1, s], 1).unwrap();
        assert_eq!(b.shape(c).to_string(), "f32[2,6]");
        let comp = b.build(c).unwrap();
        assert!(matches!(&comp.instr(r.0).op, Op::Rev { dimensions } if dimensions == &[0]));
        assert!(matches!(&comp.instr(s1.0).op, Op::Slice { strides, .. } if strides == &[1, 1]));
        assert!(matches!(&comp.instr(p.0).op, Op::Pad { config } if config == &cfg));
        assert_eq!(comp.instr(p.0).operands, vec![s.0, zero.0]);
        assert!(matches!(
            comp.instr(c.0).op,
            Op::Concatenate { dimension: 1 }
        ));
        assert_eq!(comp.instr(c.0).operands, vec![s.0, s1.0, s.0]);
    }

    #[test]
    fn builder_reports_inference_errors() {
        let mut b = Builder::new("bad");
        let x = b.parameter(0, Shape::array(F32, &[4, 3]), "x").unwrap();
        let y = b.parameter(1, Shape::array(S32, &[4, 3]), "y").unwrap();
        let e = b.rev(x, &[3]).unwrap_err();
        assert_eq!(e.op, "Rev");
        let e = b.slice(x, &[0, 0], &[5, 3], None).unwrap_err();
        assert_eq!(
            (e.op.as_str(), e.blame),
            ("Slice", Blame::Attribute("limit_indices"))
        );
        let e = b.slice(x, &[0], &[4], None).unwrap_err();
        assert_eq!(e.blame, Blame::Attribute("start_indices"));
        let e = b.pad(x, y, &[PadDim::default(); 2]).unwrap_err();
        assert_eq!((e.op.as_str(), e.blame), ("Pad", Blame::Operand(1)));
        let e = b.concat_in_dim(&[x, y], 0).unwrap_err();
        assert!(e.to_string().contains("f32[4,3] vs s32[4,3]"), "{e}");
        let e = b.concat_in_dim(&[], 0).unwrap_err();
        assert_eq!(e.op, "ConcatInDim");
        // An op of another builder is an error, not a panic.
        let mut other = Builder::new("other");
        let bad = crate::builder::XlaOp(crate::ir::InstrId(7));
        assert!(other.rev(bad, &[]).is_err());
        assert!(other.concat_in_dim(&[bad], 0).is_err());
        // Nothing was appended by the failed calls.
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn stablehlo_text_of_each_op() {
        let mut b = Builder::new("text");
        let x = b.parameter(0, Shape::array(F32, &[4, 3]), "x").unwrap();
        let v = b.parameter(1, Shape::scalar(F32), "v").unwrap();
        let e = b.parameter(2, Shape::array(F32, &[0, 3]), "e").unwrap();
        let r = b.rev(x, &[0, 1]).unwrap();
        let s = b.slice(r, &[1, 0], &[4, 3], Some(&[1, 2])).unwrap();
        let p = b
            .pad(
                s,
                v,
                &[
                    PadDim::default(),
                    PadDim {
                        low: -1,
                        high: 2,
                        interior: 1,
                    },
                ],
            )
            .unwrap();
        let c = b.concat_in_dim(&[x, e, x], 0).unwrap();
        let t = b.tuple(&[p, c]).unwrap();
        let text = crate::stablehlo::try_to_stablehlo(&b.build(t).unwrap()).unwrap();
        for line in [
            "%0 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<4x3xf32>",
            "%1 = stablehlo.slice %0 [1:4, 0:3:2] : (tensor<4x3xf32>) -> tensor<3x2xf32>",
            "%2 = stablehlo.pad %1, %arg1, low = [0, -1], high = [0, 2], interior = [0, 1] : \
             (tensor<3x2xf32>, tensor<f32>) -> tensor<3x4xf32>",
            "%3 = stablehlo.concatenate %arg0, %arg2, %arg0, dim = 0 : \
             (tensor<4x3xf32>, tensor<0x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>",
        ] {
            assert!(text.contains(line), "`{line}` not in\n{text}");
        }
    }
}
