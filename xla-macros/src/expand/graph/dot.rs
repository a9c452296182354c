//! DotGeneral lowered to canonical form: operands converted to the compute type and
//! transposed to [batch, free, contracting] / [batch, contracting, free] views, then one `Dot`.

use xla_core::{ArrayShape, DotDimensionNumbers, ElementType};

use super::shapes::to_usize;
use super::{Graph, Kind, Value};

impl Graph {
    /// DotGeneral in canonical form: operands converted to the compute type
    /// (`xla_core::infer::dot_compute_type`, the more precise of operand and result types; GEMM
    /// runs in it, as XLA does for preferred_element_type), lhs transposed to [batch, free,
    /// contracting] and rhs to [batch, contracting, free], the product converted to the result
    /// type when that is less precise. The transposes are views: fusion folds them into GEMM
    /// strides and copies only when strides cannot express them.
    pub(super) fn lower_dot(
        &mut self,
        dn: &DotDimensionNumbers,
        lhs: Value,
        rhs: Value,
        shape: ArrayShape,
    ) -> Result<Value, String> {
        let lb = to_usize(&dn.lhs_batch_dimensions, "dot")?;
        let lc = to_usize(&dn.lhs_contracting_dimensions, "dot")?;
        let rb = to_usize(&dn.rhs_batch_dimensions, "dot")?;
        let rc = to_usize(&dn.rhs_contracting_dimensions, "dot")?;
        let lrank = self.shape(lhs).rank();
        let rrank = self.shape(rhs).rank();
        let lfree: Vec<usize> = (0..lrank)
            .filter(|d| !lb.contains(d) && !lc.contains(d))
            .collect();
        let rfree: Vec<usize> = (0..rrank)
            .filter(|d| !rb.contains(d) && !rc.contains(d))
            .collect();
        let lperm: Vec<usize> = lb.iter().chain(&lfree).chain(&lc).copied().collect();
        let rperm: Vec<usize> = rb.iter().chain(&rc).chain(&rfree).copied().collect();
        let compute = xla_core::infer::dot_compute_type(self.shape(lhs).ty, shape.ty);
        // s8 x s8 -> s32 keeps its s8 operands: the library's s8 GEMM multiplies bytes
        // (`gemm_s8_s32`, VNNI where the CPU has it) with the same wrapped sums.
        let s8_s32 = self.shape(lhs).ty == ElementType::S8
            && self.shape(rhs).ty == ElementType::S8
            && shape.ty == ElementType::S32;
        let operand_ty = if s8_s32 { ElementType::S8 } else { compute };
        let mut inputs = Vec::with_capacity(2);
        for (v, perm) in [(lhs, lperm), (rhs, rperm)] {
            let mut v = v;
            let s = self.shape(v).clone();
            if s.ty != operand_ty {
                v = self.push(Kind::Convert, vec![v], vec![s.with_type(operand_ty)]);
            }
            if perm.iter().enumerate().any(|(i, &p)| i != p) {
                let dims: Vec<i64> = perm.iter().map(|&p| s.dims[p]).collect();
                let t = ArrayShape::new(operand_ty, &dims);
                v = self.push(Kind::Transpose { perm }, vec![v], vec![t]);
            }
            inputs.push(v);
        }
        let kind = Kind::Dot {
            batch: lb.len(),
            contract: lc.len(),
        };
        let product = self.push(kind, inputs, vec![shape.with_type(compute)]);
        if compute == shape.ty {
            Ok(product)
        } else {
            Ok(self.push(Kind::Convert, vec![product], vec![shape]))
        }
    }
}
