//! Dot and DotGeneral: random batch and contracting dims on either side in any order, the
//! other operand made to fit (an existing value, a parameter, an Iota, or a broadcast scalar),
//! and sometimes a `preferred_element_type` from XLA's rule.

use xla_aot::core::{ArrayShape, DotDimensionNumbers, ElementType, Shape};
use ElementType::*;

use super::gen::{fin, int_max, is_floaty, Info, Val, G};
use super::values::{constant_literal, preferred_types};
use super::Data;

/// An operand a dot may read exactly: not rounded, not a product XLA may contract.
fn dot_operand(v: &Val) -> bool {
    v.info.tol == 0 && !v.info.mul && (v.info.int || !is_floaty(v.shape.ty))
}

impl G {
    /// `BroadcastInDim` of a new scalar (a parameter or a constant) to `dims`.
    fn broadcast_scalar(&mut self, ty: ElementType, dims: &[i64]) -> Option<usize> {
        let s = if self.rng.pct(50) {
            self.param(ArrayShape::new(ty, &[]), Data::S(3))?
        } else {
            let v = if ty == Pred { 1.0 } else { 2.0 };
            let shape = ArrayShape::new(ty, &[]);
            let (lit, text) = constant_literal(&shape, &[v])?;
            let r = self.b.try_constant(lit);
            let info = Info {
                konst: true,
                ..Info::exact(Some(2.0), true)
            };
            self.add(format!("Constant({shape}, {text})"), r, info, &[])?
        };
        let r = self.b.broadcast_in_dim(self.vals[s].op, dims, &[]);
        let info = Info {
            bcast: true,
            ..self.vals[s].info
        };
        let expr = format!(
            "BroadcastInDim({}, out_dim_size = {dims:?}, broadcast_dimensions = [])",
            self.vals[s].name
        );
        self.add(expr, r, info, &[s])
    }

    /// An operand of `shape` for the other side of a dot.
    fn dot_rhs(&mut self, shape: &ArrayShape) -> Option<usize> {
        match self.rng.below(10) {
            0..=3 => {
                let found = self.pick(|v| {
                    v.shape.ty == shape.ty && v.shape.dims == shape.dims && dot_operand(v)
                });
                match found {
                    Some(i) => Some(i),
                    None => self.small_param(shape.clone()),
                }
            }
            4..=5 => self.broadcast_scalar(shape.ty, &shape.dims),
            6 if shape.rank() > 0 && shape.ty != Pred && !shape.ty.is_complex() => {
                let d = self.rng.below(shape.rank());
                let mag = (shape.dims[d] - 1).max(0) as f64;
                if mag > int_max(shape.ty) {
                    return self.small_param(shape.clone());
                }
                let r = self.b.iota(Shape::Array(shape.clone()), d as i64);
                let expr = format!("Iota({shape}, iota_dimension = {d})");
                let info = Info {
                    konst: true,
                    ..Info::exact(Some(mag), true)
                };
                self.add(expr, r, info, &[])
            }
            _ => self.small_param(shape.clone()),
        }
    }

    /// A Dot (ranks 1-2) or DotGeneral with random dimension numbers.
    pub fn dot(&mut self) {
        // Sometimes the lhs is a broadcast scalar too, so both operands are (issue 8, b).
        let lhs = if self.rng.pct(12) {
            let ty = self.any_type();
            let rank = self.rng.range(1, 3) as usize;
            let dims = self.dims(rank);
            self.broadcast_scalar(ty, &dims)
        } else {
            self.pick(|v| (1..=4).contains(&v.shape.rank()) && dot_operand(v))
        };
        let Some(a) = lhs else { return };
        let sa = self.vals[a].shape.clone();
        let (t, r) = (sa.ty, sa.rank());
        let plain = r <= 2 && self.rng.pct(25);
        let (lb, lc, rank_r, pos_b, pos_c) = if plain {
            let rank_r = self.rng.range(1, 2) as usize;
            (vec![], vec![r - 1], rank_r, vec![], vec![0])
        } else {
            let mut order: Vec<usize> = (0..r).collect();
            self.rng.shuffle(&mut order);
            let nb = self.rng.below(r.min(2) + 1);
            let nc = self.rng.below((r - nb).min(2) + 1);
            let lb = order[..nb].to_vec();
            let lc = order[nb..nb + nc].to_vec();
            let rank_r = (nb + nc + self.rng.below(3)).min(4);
            let mut pos: Vec<usize> = (0..rank_r).collect();
            self.rng.shuffle(&mut pos);
            (
                lb,
                lc,
                rank_r,
                pos[..nb].to_vec(),
                pos[nb..nb + nc].to_vec(),
            )
        };
        let mut rdims = vec![0i64; rank_r];
        let mut taken = vec![false; rank_r];
        for (&p, &d) in pos_b.iter().zip(&lb).chain(pos_c.iter().zip(&lc)) {
            rdims[p] = sa.dims[d];
            taken[p] = true;
        }
        for p in 0..rank_r {
            if !taken[p] {
                rdims[p] = self.dim();
            }
        }
        let k: i64 = lc.iter().map(|&d| sa.dims[d]).product();
        let out: i64 = sa.element_count() / k.max(1)
            * rdims
                .iter()
                .enumerate()
                .filter(|(p, _)| !pos_b.contains(p) && !pos_c.contains(p))
                .map(|(_, &d)| d)
                .product::<i64>();
        if !G::fits(out) || !G::fits(rdims.iter().product()) {
            return;
        }
        let Some(b) = self.dot_rhs(&ArrayShape::new(t, &rdims)) else {
            return;
        };
        let (ia, ib) = (self.vals[a].info, self.vals[b].info);
        let preferred = if self.rng.pct(35) {
            Some(self.rng.pick(&preferred_types(t)))
        } else {
            None
        };
        let result_ty = preferred.unwrap_or(t);
        // Exact in any summation order, in the operand type and in the result type.
        let exact = [t, result_ty]
            .iter()
            .all(|&ty| !is_floaty(ty) || ia.summable(&ib, k, ty));
        if !exact {
            return;
        }
        let mag = match (ia.mag, ib.mag) {
            (Some(x), Some(y)) => Some(k.max(1) as f64 * x * y),
            _ => None,
        };
        let mag = if is_floaty(result_ty) {
            fin(mag, result_ty)
        } else {
            mag.filter(|&m| m <= int_max(result_ty))
        };
        let info = Info {
            zsign: ia.zsign || ib.zsign || is_floaty(result_ty),
            konst: ia.konst && ib.konst,
            ..Info::exact(mag, true)
        };
        let pref_attr =
            preferred.map_or(String::new(), |p| format!(", preferred_element_type = {p}"));
        let (na, nb_) = (self.vals[a].name.clone(), self.vals[b].name.clone());
        let (oa, ob) = (self.vals[a].op, self.vals[b].op);
        if plain {
            let res = self.b.dot(oa, ob, preferred);
            let expr = if preferred.is_some() {
                format!("Dot({na}, {nb_}{pref_attr})")
            } else {
                format!("Dot({na}, {nb_})")
            };
            self.add(expr, res, info, &[a, b]);
            return;
        }
        let to_i64 = |v: &[usize]| v.iter().map(|&d| d as i64).collect::<Vec<_>>();
        let dn = DotDimensionNumbers {
            lhs_contracting_dimensions: to_i64(&lc),
            rhs_contracting_dimensions: to_i64(&pos_c),
            lhs_batch_dimensions: to_i64(&lb),
            rhs_batch_dimensions: to_i64(&pos_b),
        };
        let res = self.b.dot_general(oa, ob, &dn, preferred);
        let batch = if lb.is_empty() {
            String::new()
        } else {
            format!(
                ", lhs_batch_dimensions = {:?}, rhs_batch_dimensions = {:?}",
                dn.lhs_batch_dimensions, dn.rhs_batch_dimensions
            )
        };
        let expr = format!(
            "DotGeneral({na}, {nb_}, lhs_contracting_dimensions = {:?}, \
             rhs_contracting_dimensions = {:?}{batch}{pref_attr})",
            dn.lhs_contracting_dimensions, dn.rhs_contracting_dimensions
        );
        self.add(expr, res, info, &[a, b]);
    }
}
