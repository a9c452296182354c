//! How library kernels read their operands: GEMM operands as strided leaves (transposes
//! folded into strides), call kernels' inputs as dense row-major buffers; anything else is
//! stored first.

use super::{identity, Expr, ExprBuilder, ExprId, GemmOperand, KernelKind};
use crate::expand::graph::{row_major_strides, Value};

impl ExprBuilder<'_> {
    /// Each input as a dense row-major leaf read at offset 0 (what a library call or a nested
    /// program reads); inputs that are not are materialised first.
    pub(super) fn dense_inputs(&mut self, inputs: &[Value]) -> Option<Vec<ExprId>> {
        let mut out = Vec::with_capacity(inputs.len());
        let mut ok = true;
        for &v in inputs {
            let dims = self.g.shape(v).dims.clone();
            let id = identity(dims.len());
            self.extents = dims.clone();
            let Some(e) = self.expr(v, &id, false) else {
                ok = false;
                continue;
            };
            let dense = match &self.exprs[e] {
                Expr::Leaf {
                    coef,
                    off: 0,
                    guarded: false,
                    ..
                } => dims.contains(&0) || dense_strides(coef, &dims),
                Expr::Leaf { .. }
                | Expr::Index { .. }
                | Expr::Scalar(_)
                | Expr::Op { .. }
                | Expr::Guard { .. } => false,
            };
            if dense {
                out.push(e);
            } else {
                self.need(v);
                ok = false;
            }
        }
        ok.then_some(out)
    }

    /// GEMM kernel for canonical operands (lhs [b, m, k], rhs [b, k, n] groups of dims).
    pub(super) fn dot(
        &mut self,
        lhs: Value,
        rhs: Value,
        batch: usize,
        contract: usize,
    ) -> Option<KernelKind> {
        let ld = self.g.shape(lhs).dims.clone();
        let rd = self.g.shape(rhs).dims.clone();
        let lfree = ld.len() - batch - contract;
        let a = self.gemm_operand(lhs, [batch, lfree, contract]);
        let b = self.gemm_operand(rhs, [batch, contract, rd.len() - batch - contract]);
        let (a, b) = (a?, b?);
        let prod = |d: &[i64]| d.iter().product::<i64>();
        let sizes = [
            prod(&ld[..batch]),
            prod(&ld[batch..batch + lfree]),
            prod(&rd[batch + contract..]),
            prod(&ld[batch + lfree..]),
        ];
        Some(KernelKind::Dot {
            lhs: a,
            rhs: b,
            sizes,
        })
    }

    /// `v` as a leaf whose dims collapse into three strided groups of the given lengths.
    fn gemm_operand(&mut self, v: Value, groups: [usize; 3]) -> Option<GemmOperand> {
        let dims = self.g.shape(v).dims.clone();
        let id = identity(dims.len());
        self.extents = dims.clone();
        let e = self.expr(v, &id, false)?;
        let (src, coef, off) = match &self.exprs[e] {
            Expr::Leaf {
                src,
                coef,
                off,
                guarded: false,
                ..
            } => (src.clone(), coef.clone(), *off),
            Expr::Leaf { .. }
            | Expr::Index { .. }
            | Expr::Scalar(_)
            | Expr::Op { .. }
            | Expr::Guard { .. } => {
                self.need(v);
                return None;
            }
        };
        let mut strides = [0i64; 3];
        if dims.contains(&0) {
            // No element is read (GEMM then writes zeros or nothing), so any strides do, even
            // those of a transposed view of a stored empty array that groups cannot express.
            return Some(GemmOperand { src, off, strides });
        }
        let mut start = 0;
        for (g, &len) in groups.iter().enumerate() {
            match collapse_group(&dims[start..start + len], &coef[start..start + len]) {
                Some(s) => strides[g] = s,
                None => {
                    self.need(v);
                    return None;
                }
            }
            start += len;
        }
        Some(GemmOperand { src, off, strides })
    }
}

/// True when `coef` are the row-major strides of `dims` (extent-1 dims ignored).
fn dense_strides(coef: &[i64], dims: &[i64]) -> bool {
    let rm = row_major_strides(dims);
    coef.iter()
        .zip(&rm)
        .zip(dims)
        .all(|((&c, &r), &n)| n == 1 || c == r)
}

/// One stride for a group of dims if they are nested (`s[j] == s[j+1]·n[j+1]`, ignoring
/// extent-1 dims); 0 for a group of extent 1.
fn collapse_group(dims: &[i64], coef: &[i64]) -> Option<i64> {
    let live: Vec<(i64, i64)> = dims
        .iter()
        .zip(coef)
        .filter(|(&d, _)| d != 1)
        .map(|(&d, &c)| (d, c))
        .collect();
    for w in live.windows(2) {
        if w[0].1 != w[1].1 * w[1].0 {
            return None;
        }
    }
    Some(live.last().map_or(0, |&(_, c)| c))
}
