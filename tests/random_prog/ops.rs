//! The ops the generator draws (the rules they follow are in `rules.rs`).

use xla_aot::core::{ArrayShape, BinaryOp, ComparisonDirection, ElementType, Shape, UnaryOp};
use ElementType::*;

use super::gen::{exact_limit, fin, int_max, is_floaty, Info, Val, G};
use super::rules::{
    binary_info, binary_takes, convert_info, max_mag, unary_info, unary_takes, wrap, UNARY,
};
use super::values::{argmax_reducer, constant_literal, init_literal, init_value, reducer};

impl G {
    /// Draws one op and adds it (with any operands it had to create).
    pub fn random_op(&mut self) {
        match self.rng.below(100) {
            0..=13 => self.unary(),
            14..=29 => self.binary(false),
            30..=37 => self.binary(true),
            38..=43 => self.compare(),
            44..=48 => self.select(),
            49..=51 => self.clamp(),
            52..=58 => self.convert(),
            59..=65 => self.broadcast_in_dim(),
            66..=71 => self.reshape(),
            72..=75 => self.transpose(),
            76..=82 => self.reduce(),
            83..=85 => self.argmax(),
            86..=94 => self.dot(),
            95 => self.iota(),
            96..=97 => self.constant(),
            98 => self.tuple_gte(),
            _ => {
                self.random_param();
            }
        }
    }

    /// A value of exactly `shape` satisfying `ok` (60% of the time when one exists), else a
    /// new parameter of small integers.
    fn operand_like(&mut self, shape: &ArrayShape, ok: impl Fn(&Val) -> bool) -> Option<usize> {
        if self.rng.pct(60) {
            if let Some(i) =
                self.pick(|v| v.shape.ty == shape.ty && v.shape.dims == shape.dims && ok(v))
            {
                return Some(i);
            }
        }
        self.small_param(ArrayShape::new(shape.ty, &shape.dims))
    }

    fn unary(&mut self) {
        let op = self.rng.pick(&UNARY);
        // Ops that carry the sign of a zero along (or drop it) may read a value whose zero
        // sign is not XLA's.
        let zsign_ok = matches!(
            op,
            UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Floor
                | UnaryOp::Ceil
                | UnaryOp::RoundNearestAfz
                | UnaryOp::RoundNearestEven
                | UnaryOp::Real
                | UnaryOp::Imag
                | UnaryOp::IsFinite
        );
        let Some(a) = self.pick(|v| {
            unary_takes(op, v.shape.ty)
                && unary_info(op, v.shape.ty, v.info).is_some()
                && (zsign_ok || !v.info.zsign)
                // XLA folds Clz of s8 constants wrongly (seed 300073: clz(1) = 200).
                && !(v.info.konst && matches!(op, UnaryOp::Clz | UnaryOp::PopulationCount))
        }) else {
            return;
        };
        let (t, name) = (self.vals[a].shape.ty, self.vals[a].name.clone());
        let ia = self.vals[a].info;
        let info = unary_info(op, t, ia).unwrap_or(Info::exact(None, false));
        // XLA's simplifier rewrites a division by an exp or a (reciprocal) square root as a
        // multiplication (seed 301879: `a / rsqrt(b)` as `a * sqrt(b)`, 1 ulp in f16).
        let rewritten = matches!(op, UnaryOp::Exp | UnaryOp::Sqrt | UnaryOp::Rsqrt);
        // A function's result near zero may be a zero of the other sign, or a tiny value where
        // XLA has zero (seed 502566: rsqrt(log(rsqrt(x))) is inf for ours, -inf for XLA).
        let approximate = is_floaty(t)
            && matches!(
                op,
                UnaryOp::Log
                    | UnaryOp::Log1p
                    | UnaryOp::Expm1
                    | UnaryOp::Sin
                    | UnaryOp::Cos
                    | UnaryOp::Tanh
                    | UnaryOp::Erf
            );
        let info = Info {
            zsign: (ia.zsign && !matches!(op, UnaryOp::Abs | UnaryOp::IsFinite)) || approximate,
            konst: ia.konst,
            bcast: info.bcast || rewritten,
            ..info
        };
        let r = self.b.unary(op, self.vals[a].op);
        self.add(format!("{}({name})", op_name(op)), r, info, &[a]);
    }

    fn binary(&mut self, with_bdims: bool) {
        let op = self.rng.pick(&BinaryOp::ALL);
        let min_rank = usize::from(with_bdims);
        let Some(a) = self.pick(|v| binary_takes(op, v.shape.ty) && v.shape.rank() >= min_rank)
        else {
            return;
        };
        let sa = self.vals[a].shape.clone();
        let t = sa.ty;
        // With broadcast_dimensions: the other operand has a sorted subset of a's dims.
        let bdims: Vec<i64> = if with_bdims {
            let mut d: Vec<i64> = (0..sa.rank() as i64).collect();
            self.rng.shuffle(&mut d);
            d.truncate(self.rng.below(sa.rank()));
            d.sort_unstable();
            d
        } else {
            Vec::new()
        };
        let other_dims: Vec<i64> = if with_bdims {
            bdims.iter().map(|&d| sa.dims[d as usize]).collect()
        } else {
            sa.dims.clone()
        };
        let ai = self.vals[a].info;
        let Some(b) = self.operand_like(&ArrayShape::new(t, &other_dims), |v| {
            binary_info(op, t, ai, v.info).is_some()
        }) else {
            return;
        };
        // The lower-rank operand may stand on either side.
        let (l, r) = if with_bdims && self.rng.pct(40) {
            (b, a)
        } else {
            (a, b)
        };
        let (mut li, mut ri) = (self.vals[l].info, self.vals[r].info);
        // The lower-rank operand is broadcast by the op itself.
        if with_bdims {
            if l == b {
                li.bcast = true;
            } else {
                ri.bcast = true;
            }
        }
        let Some(info) = binary_info(op, t, li, ri) else {
            return;
        };
        // `x - x`, `x ^ x`, ... fold to constants in XLA.
        let info = Info {
            konst: info.konst || l == r,
            ..info
        };
        let bd = if with_bdims { Some(&bdims[..]) } else { None };
        let res = self.b.binary(op, self.vals[l].op, self.vals[r].op, bd);
        let info = Info {
            bcast: info.bcast || with_bdims,
            ..info
        };
        let attr = if with_bdims {
            format!(", broadcast_dimensions = {bdims:?}")
        } else {
            String::new()
        };
        let expr = format!(
            "{:?}({}, {}{attr})",
            op, self.vals[l].name, self.vals[r].name
        );
        self.add(expr, res, info, &[l, r]);
    }

    fn compare(&mut self) {
        // TotalOrder tells -0 from +0 and NaNs by sign. XLA:CPU's LLVM fails to compile an
        // f16/bf16 TotalOrder compare of a broadcast on AVX-512 ("Cannot select
        // X86ISD::SUBV_BROADCAST_LOAD v16f16", seed 42366).
        let total = self.rng.pct(30);
        let total_ok = |v: &Val| {
            v.shape.ty.is_float()
                && !v.info.zsign
                && v.info.total_orderable()
                && !(v.info.bcast && matches!(v.shape.ty, F16 | Bf16))
        };
        let Some(a) = self.pick(|v| v.info.tol == 0 && !v.info.sub && (!total || total_ok(v)))
        else {
            return;
        };
        let sa = self.vals[a].shape.clone();
        let t = sa.ty;
        let dirs = ComparisonDirection::ALL;
        let dir = if t.is_complex() {
            self.rng.pick(&dirs[..2])
        } else {
            self.rng.pick(&dirs)
        };
        let Some(b) = self.operand_like(&sa, |v| {
            v.info.tol == 0 && !v.info.sub && (!total || total_ok(v))
        }) else {
            return;
        };
        if total && self.vals[b].info.bcast && matches!(t, F16 | Bf16) {
            return;
        }
        let r = self
            .b
            .compare(dir, total, self.vals[a].op, self.vals[b].op, None);
        let name = format!("{dir:?}{}", if total { "TotalOrder" } else { "" });
        let expr = format!("{name}({}, {})", self.vals[a].name, self.vals[b].name);
        let info = Info {
            konst: (self.vals[a].info.konst && self.vals[b].info.konst) || a == b,
            ..Info::exact(Some(1.0), true)
        };
        self.add(expr, r, info, &[a, b]);
    }

    fn select(&mut self) {
        let Some(a) = self.pick(|_| true) else { return };
        let sa = self.vals[a].shape.clone();
        let Some(b) = self.operand_like(&sa, |_| true) else {
            return;
        };
        let pshape = ArrayShape::new(Pred, &sa.dims);
        let Some(p) = self.operand_like(&pshape, |_| true) else {
            return;
        };
        let (ia, ib) = (self.vals[a].info, self.vals[b].info);
        let info = Info {
            tol: ia.tol.max(ib.tol),
            mag: max_mag(ia.mag, ib.mag),
            int: ia.int && ib.int,
            bcast: ia.bcast && ib.bcast,
            zsign: ia.zsign || ib.zsign,
            konst: ia.konst && ib.konst,
            sub: ia.sub || ib.sub,
            ..Info::exact(None, false)
        };
        let r = self
            .b
            .select(self.vals[p].op, self.vals[a].op, self.vals[b].op);
        let expr = format!(
            "Select({}, {}, {})",
            self.vals[p].name, self.vals[a].name, self.vals[b].name
        );
        self.add(expr, r, info, &[p, a, b]);
    }

    /// `Clamp(Min(a, b), x, Max(a, b))`: bounds in order, since XLA's simplifier assumes they
    /// are (it rewrites `Max(Clamp(lo, x, hi), lo)` as the clamp, wrong when lo > hi).
    fn clamp(&mut self) {
        let Some(x) = self.pick(|v| v.shape.ty.is_integral() || v.shape.ty.is_float()) else {
            return;
        };
        let sx = self.vals[x].shape.clone();
        // Bounds of the operand's shape or scalars.
        let bshape = if self.rng.pct(40) {
            ArrayShape::new(sx.ty, &[])
        } else {
            sx.clone()
        };
        let (Some(a), Some(b)) = (
            self.operand_like(&bshape, |_| true),
            self.operand_like(&bshape, |_| true),
        ) else {
            return;
        };
        let (ia, ib) = (self.vals[a].info, self.vals[b].info);
        let mut bounds = [0; 2];
        for (k, op) in [BinaryOp::Min, BinaryOp::Max].into_iter().enumerate() {
            let Some(info) = binary_info(op, sx.ty, ia, ib) else {
                return;
            };
            let r = self.b.binary(op, self.vals[a].op, self.vals[b].op, None);
            let expr = format!("{op:?}({}, {})", self.vals[a].name, self.vals[b].name);
            let Some(v) = self.add(expr, r, info, &[a, b]) else {
                return;
            };
            bounds[k] = v;
        }
        let [lo, hi] = bounds;
        let is = [self.vals[lo].info, self.vals[x].info, self.vals[hi].info];
        let info = Info {
            tol: is.iter().map(|i| i.tol).max().unwrap_or(0),
            mag: max_mag(max_mag(is[0].mag, is[1].mag), is[2].mag),
            int: is.iter().all(|i| i.int),
            zsign: is.iter().any(|i| i.zsign),
            konst: is.iter().all(|i| i.konst),
            sub: is.iter().any(|i| i.sub),
            ..Info::exact(None, false)
        };
        let r = self
            .b
            .clamp(self.vals[lo].op, self.vals[x].op, self.vals[hi].op);
        let expr = format!(
            "Clamp({}, {}, {})",
            self.vals[lo].name, self.vals[x].name, self.vals[hi].name
        );
        self.add(expr, r, info, &[lo, x, hi]);
    }

    fn convert(&mut self) {
        let to = self.any_type();
        let Some(a) = self.pick(|v| convert_info(v.shape.ty, to, v.info).is_some()) else {
            return;
        };
        let from = self.vals[a].shape.ty;
        let ia = self.vals[a].info;
        let Some(info) = convert_info(from, to, ia) else {
            return;
        };
        // A conversion of a broadcast is a broadcast for XLA's simplifier (seed 502236: x / x of
        // a converted broadcast, 1 ulp off as x * (1 / x)).
        let info = Info {
            zsign: ia.zsign && is_floaty(to),
            konst: ia.konst,
            bcast: ia.bcast,
            ..info
        };
        let r = self.b.convert(self.vals[a].op, to);
        let expr = format!(
            "ConvertElementType({}, new_element_type = {to})",
            self.vals[a].name
        );
        self.add(expr, r, info, &[a]);
    }

    fn broadcast_in_dim(&mut self) {
        let Some(a) = self.pick(|v| v.shape.rank() < 4) else {
            return;
        };
        let sa = self.vals[a].shape.clone();
        let out_rank = (sa.rank() + self.rng.below(3)).min(4);
        let mut pos: Vec<i64> = (0..out_rank as i64).collect();
        self.rng.shuffle(&mut pos);
        pos.truncate(sa.rank());
        pos.sort_unstable();
        let mut out = self.dims(out_rank);
        for (i, &p) in pos.iter().enumerate() {
            // A dim of size 1 may grow; others keep their size.
            if sa.dims[i] != 1 || self.rng.pct(50) {
                out[p as usize] = sa.dims[i];
            }
        }
        if !G::fits(out.iter().product()) {
            return;
        }
        let expanded = out.iter().product::<i64>() > sa.element_count();
        let info = Info {
            bcast: self.vals[a].info.bcast || expanded,
            ..self.vals[a].info
        };
        let r = self.b.broadcast_in_dim(self.vals[a].op, &out, &pos);
        let expr = format!(
            "BroadcastInDim({}, out_dim_size = {out:?}, broadcast_dimensions = {pos:?})",
            self.vals[a].name
        );
        self.add(expr, r, info, &[a]);
    }

    fn reshape(&mut self) {
        let Some(a) = self.pick(|_| true) else { return };
        let sa = self.vals[a].shape.clone();
        let n = sa.element_count();
        let rank = self.rank();
        let dims = if n == 0 {
            let mut d = self.dims(rank.max(1));
            let z = self.rng.below(d.len());
            d[z] = 0;
            d
        } else {
            self.factor(n, rank)
        };
        let r = self.b.reshape(self.vals[a].op, None, &dims);
        let expr = format!("Reshape({}, new_sizes = {dims:?})", self.vals[a].name);
        let info = self.vals[a].info;
        self.add(expr, r, info, &[a]);
    }

    /// `n` (> 0) as a product of at most `rank` factors (one factor when `rank` is 0 and n > 1).
    fn factor(&mut self, n: i64, rank: usize) -> Vec<i64> {
        let mut primes = Vec::new();
        let (mut m, mut p) = (n, 2);
        while m > 1 {
            if m % p == 0 {
                primes.push(p);
                m /= p;
            } else {
                p += 1;
            }
        }
        let slots = rank.max(usize::from(n > 1));
        let mut dims = vec![1i64; slots];
        for q in primes {
            let i = self.rng.below(slots);
            dims[i] *= q;
        }
        dims
    }

    fn transpose(&mut self) {
        let Some(a) = self.pick(|v| v.shape.rank() >= 2) else {
            return;
        };
        let rank = self.vals[a].shape.rank();
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        self.rng.shuffle(&mut perm);
        let r = self.b.transpose(self.vals[a].op, &perm);
        let expr = format!("Transpose({}, permutation = {perm:?})", self.vals[a].name);
        let info = self.vals[a].info;
        self.add(expr, r, info, &[a]);
    }

    /// A random non-empty subset of `0..rank`, sorted.
    fn dims_subset(&mut self, rank: usize) -> Vec<i64> {
        let mut d: Vec<i64> = (0..rank as i64).collect();
        self.rng.shuffle(&mut d);
        d.truncate(1 + self.rng.below(rank));
        d.sort_unstable();
        d
    }

    fn reduce(&mut self) {
        let Some(a) = self.pick(|v| v.shape.rank() >= 1) else {
            return;
        };
        let sa = self.vals[a].shape.clone();
        let t = sa.ty;
        let ia = self.vals[a].info;
        let dims = self.dims_subset(sa.rank());
        let n: i64 = dims.iter().map(|&d| sa.dims[d as usize]).product();
        let one = Info::exact(Some(1.0), true);
        // (reducer op, result info)
        let (op, info) = if t == Pred {
            (self.rng.pick(&[BinaryOp::And, BinaryOp::Or]), one)
        } else if self.rng.pct(55) && (!is_floaty(t) || ia.summable(&one, n, t)) {
            let mag = ia.mag.map(|m| m * n.max(1) as f64);
            let mag = if is_floaty(t) {
                fin(mag, t)
            } else {
                wrap(mag, t)
            };
            // XLA:CPU sums all -0 terms to -0 (seed 700254), the spec's reduce from the init +0
            // gives +0, as ours.
            let info = Info {
                zsign: ia.zsign || is_floaty(t),
                konst: ia.konst,
                ..Info::exact(mag, ia.int)
            };
            (BinaryOp::Add, info)
        } else if !t.is_complex() {
            // An empty reduction is the init value, an infinity for floats.
            let mag = ia.mag.filter(|_| n > 0 || !is_floaty(t));
            let info = Info {
                mul: false,
                bcast: false,
                mag,
                ..ia
            };
            (self.rng.pick(&[BinaryOp::Max, BinaryOp::Min]), info)
        } else {
            return;
        };
        // A reduction over an empty dim is its init value: a constant for XLA.
        let info = Info {
            konst: info.konst || n == 0,
            ..info
        };
        let init_text = init_literal(op, t);
        let Some(init_lit) = init_value(op, t) else {
            return;
        };
        let init_op = self.b.constant(init_lit);
        let reducer = reducer(op, t);
        let r = self
            .b
            .reduce(&[self.vals[a].op], &[init_op], &reducer, &dims);
        let expr = format!(
            "Reduce({}, {init_text}, dimensions = {dims:?}, |a, b| {:?}(a, b))",
            self.vals[a].name, op
        );
        self.add(expr, r, info, &[a]);
    }

    /// Variadic Reduce: the maximum along one dim and its index, ties to the lower index
    /// (floats ordered by TotalOrder, so NaNs too and the result is order-free).
    fn argmax(&mut self) {
        let Some(a) = self.pick(|v| {
            v.shape.rank() >= 1
                && v.info.tol == 0
                && !v.info.zsign
                && !v.info.sub
                && (v.shape.ty.is_integral() || (v.shape.ty.is_float() && v.info.total_orderable()))
        }) else {
            return;
        };
        let sa = self.vals[a].shape.clone();
        let t = sa.ty;
        let d = self.rng.below(sa.rank());
        let iota_shape = ArrayShape::new(S32, &sa.dims);
        let idx = match self.b.iota(Shape::Array(iota_shape.clone()), d as i64) {
            Ok(i) => i,
            Err(e) => {
                self.error.get_or_insert(format!("Iota: {e}"));
                return;
            }
        };
        let Some(init) = init_value(BinaryOp::Max, t) else {
            return;
        };
        let init_v = self.b.constant(init);
        let init_i = self.b.constant(xla_aot::core::Literal::scalar(0i32));
        let comp = argmax_reducer(t);
        let r = self.b.reduce(
            &[self.vals[a].op, idx],
            &[init_v, init_i],
            &comp,
            &[d as i64],
        );
        let total = if t.is_float() { "TotalOrder" } else { "" };
        let expr = format!(
            "Reduce({}, Iota({iota_shape}, iota_dimension = {d}), {}, 0, dimensions = [{d}], \
             |av, ai, bv, bi| Tuple(Select(Or(Gt{total}(av, bv), And(Eq{total}(av, bv), Lt(ai, bi))), av, bv), \
             Select(Or(Gt{total}(av, bv), And(Eq{total}(av, bv), Lt(ai, bi))), ai, bi)))",
            self.vals[a].name,
            init_literal(BinaryOp::Max, t)
        );
        let tuple = match r {
            Ok(op) => op,
            Err(e) => {
                self.error.get_or_insert(format!("{expr}: {e}"));
                return;
            }
        };
        let tname = self.fresh("t");
        self.body.push(format!("let {tname} = {expr};"));
        self.vals[a].uses += 1;
        let info_v = Info {
            mul: false,
            bcast: false,
            mag: self.vals[a]
                .info
                .mag
                .filter(|_| sa.dims[d] > 0 || !t.is_float()),
            ..self.vals[a].info
        };
        // Over an empty dim both results are the init values: constants for XLA.
        let empty = sa.dims[d] == 0;
        let info_v = Info {
            konst: info_v.konst || empty,
            ..info_v
        };
        let info_i = Info {
            konst: empty,
            ..Info::exact(Some(sa.dims[d] as f64), true)
        };
        for (k, info) in [(0, info_v), (1, info_i)] {
            let r = self.b.get_tuple_element(tuple, k);
            self.add(
                format!("GetTupleElement({tname}, index = {k})"),
                r,
                info,
                &[],
            );
        }
    }

    fn iota(&mut self) {
        let ty = self.rng.pick(&[S8, S32, S64, U8, U32, F16, Bf16, F32, F64]);
        let rank = self.rank().max(1);
        let dims = self.dims(rank);
        let d = self.rng.below(rank);
        let shape = ArrayShape::new(ty, &dims);
        let mag = (dims[d] - 1).max(0) as f64;
        if mag > int_max(ty).min(exact_limit(ty)) {
            return;
        }
        let r = self.b.iota(Shape::Array(shape.clone()), d as i64);
        let expr = format!("Iota({shape}, iota_dimension = {d})");
        let info = Info {
            konst: true,
            ..Info::exact(Some(mag), true)
        };
        self.add(expr, r, info, &[]);
    }

    fn constant(&mut self) {
        let ty = self.any_type();
        let rank = self.rng.below(3);
        let dims: Vec<i64> = (0..rank).map(|_| self.rng.range(1, 3)).collect();
        let n: i64 = dims.iter().product();
        let halves = ty.is_float() && self.rng.pct(30);
        let vals: Vec<f64> = (0..n)
            .map(|_| {
                let lo = if ty.is_unsigned_int() || ty == Pred {
                    0
                } else {
                    -4
                };
                let hi = if ty == Pred { 1 } else { 4 };
                let v = self.rng.range(lo, hi) as f64;
                if halves && self.rng.pct(50) {
                    v + 0.5
                } else {
                    v
                }
            })
            .collect();
        let shape = ArrayShape::new(ty, &dims);
        let Some((lit, text)) = constant_literal(&shape, &vals) else {
            return;
        };
        let r = self.b.try_constant(lit);
        let expr = format!("Constant({shape}, {text})");
        let info = Info {
            konst: true,
            ..Info::exact(Some(4.5), !halves)
        };
        self.add(expr, r, info, &[]);
    }

    /// `Tuple(a, b)` and one element of it: the other element is dropped (a parameter that
    /// only feeds it is then unread).
    fn tuple_gte(&mut self) {
        let (Some(a), Some(b)) = (self.pick(|_| true), self.pick(|_| true)) else {
            return;
        };
        let t = match self.b.tuple(&[self.vals[a].op, self.vals[b].op]) {
            Ok(t) => t,
            Err(e) => {
                self.error.get_or_insert(format!("Tuple: {e}"));
                return;
            }
        };
        let tname = self.fresh("t");
        self.body.push(format!(
            "let {tname} = Tuple({}, {});",
            self.vals[a].name, self.vals[b].name
        ));
        let k = self.rng.below(2);
        let info = self.vals[[a, b][k]].info;
        let r = self.b.get_tuple_element(t, k as i64);
        self.add(
            format!("GetTupleElement({tname}, index = {k})"),
            r,
            info,
            &[a, b],
        );
    }
}

/// The source name of a one-operand op.
fn op_name(op: UnaryOp) -> String {
    format!("{op:?}")
}
