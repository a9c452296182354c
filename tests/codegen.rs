//! End-to-end tests of the code `xla!` generates: every generated fn is compared with the
//! reference evaluator (`xla_core::eval::evaluate`) run on the fn's own IR
//! (`name::computation()`), on deterministic inputs, at sizes that exercise vector bodies,
//! scalar tails, rayon splits and layouts.
//!
//! Run: `cargo test -p xla-aot --test codegen`.

#![deny(warnings)]

use xla_aot::core::eval::evaluate;
use xla_aot::core::{ArrayData, Literal};
use xla_aot::{xla, Tensor, D1, D2};

xla! {
    /// The seed's first example.
    pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [1])
    }

    pub fn row_softmax(x: f32[32, 1000]) -> f32[32, 1000] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }
}

/// Deterministic pseudo-random values in [-2, 2) (an LCG; no dependency).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}

/// Elements of an f32 literal.
fn f32s(l: &Literal) -> Vec<f32> {
    match l.as_array() {
        Some((_, ArrayData::F32(v))) => v.clone(),
        other => panic!("expected an f32 array, got {other:?}"),
    }
}

/// `|a - b| <= tol * max(1, |b|)` elementwise, with NaN matching NaN.
fn assert_close(got: &[f32], want: &[f32], tol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || (g - w).abs() <= tol * w.abs().max(1.0);
        assert!(ok, "{what}: element {i}: got {g}, want {w}");
    }
}

#[test]
fn add_rows_matches_the_seed_and_the_evaluator() {
    let x = Tensor::<f32, D2<2, 3>>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let v = Tensor::<f32, D1<3>>::from_vec(vec![7.0, 8.0, 9.0]).unwrap();
    let r = add_rows(&x, &v);
    assert_eq!(r.as_slice(), &[8.0, 10.0, 12.0, 11.0, 13.0, 15.0]);
    let want = evaluate(&add_rows::computation(), &[x.to_literal(), v.to_literal()]).unwrap();
    assert_eq!(r.to_literal(), want);
    assert_eq!(
        add_rows::run_literals(&[x.to_literal(), v.to_literal()]).unwrap(),
        want
    );
}

#[test]
fn row_softmax_matches_the_evaluator() {
    let x = Tensor::<f32, D2<32, 1000>>::from_vec(values(32_000, 1)).unwrap();
    let r = row_softmax(&x);
    let want = evaluate(&row_softmax::computation(), &[x.to_literal()]).unwrap();
    assert_close(r.as_slice(), &f32s(&want), 1e-5, "row_softmax");
    // Rows sum to 1.
    for row in r.as_slice().chunks(1000) {
        let s: f32 = row.iter().sum();
        assert!((s - 1.0).abs() < 1e-4, "row sum {s}");
    }
}

// ---- every op family, element type and size class, against the evaluator -------------------

xla! {
    pub fn tanh_affine(x: f32[1000]) -> f32[1000] { Tanh(x * 2.0 + 1.0) }
    pub fn max1(x: f32[1], y: f32[1]) -> f32[1] { Max(x, y) }
    pub fn exp_minus(x: f32[3, 17]) -> f32[3, 17] { Exp(x) - x }
    pub fn sub_mul_f64(x: f64[33, 5], v: f64[5]) -> f64[33, 5] {
        Sub(x, v, broadcast_dimensions = [1]) * x
    }
    /// Above the rayon threshold: rows split over threads.
    pub fn big_add(x: f32[300, 1000], v: f32[1000]) -> f32[300, 1000] {
        Add(x, v, broadcast_dimensions = [1])
    }
    /// Flat and above the threshold, with a vector tail (100003 is odd).
    pub fn big_logistic(x: f32[100003]) -> f32[100003] { Logistic(x) }
    pub fn col_sum(x: f32[17, 33]) -> f32[33] { Reduce(x, 0.0, dimensions = [0], |a, b| a + b) }
    pub fn all_sum(x: f64[3, 1000]) -> f64[] { Reduce(x, 0.0, dimensions = [0, 1], |a, b| a + b) }
    /// Parallel row reduction with fused producer.
    pub fn big_row_sum(x: f32[512, 1024]) -> f32[512] {
        Reduce(Mul(x, x), 0.0, dimensions = [1], |a, b| a + b)
    }
    /// LayerNorm's statistics: the variance's reduction stores the centred values it squares
    /// (a stored value other than the one reduced), which the result reads back.
    pub fn layer_norm(x: f32[16, 100], g: f32[100], b: f32[100]) -> f32[16, 100] {
        let mean = Div(Reduce(x, 0.0, dimensions = [1], |a, b| a + b), 100.0);
        let xc = Sub(x, mean, broadcast_dimensions = [0]);
        let var = Div(Reduce(Mul(xc, xc), 0.0, dimensions = [1], |a, b| a + b), 100.0);
        let n = Mul(xc, Rsqrt(Add(var, 1e-5)), broadcast_dimensions = [0]);
        Add(Mul(n, g, broadcast_dimensions = [1]), b, broadcast_dimensions = [1])
    }
    pub fn int_row_max(x: s32[5, 17]) -> s32[5] {
        Reduce(x, -2147483648, dimensions = [1], |a, b| Max(a, b))
    }
    pub fn relu_select(x: f32[4, 33]) -> f32[4, 33] { Select(x > 0.0, x, x * 0.5) }
    pub fn clamp_unit(x: f32[4, 33]) -> f32[4, 33] { Clamp(-1.0, x, 1.0) }
    pub fn transpose_add(x: f32[3, 17], y: f32[17, 3]) -> f32[3, 17] {
        x + Transpose(y, permutation = [1, 0])
    }
    pub fn reshape_mul(x: f32[6, 4]) -> f32[4, 6] { Reshape(x, new_sizes = [4, 6]) * 2.0 }
    pub fn iota_convert(x: s32[5, 7]) -> f32[5, 7] {
        ConvertElementType(x + Iota(s32[5, 7], iota_dimension = 1), new_element_type = f32)
    }
    pub fn int_ops(x: s32[17], y: s32[17]) -> s32[17] { (x * y) / (y | 1) % 7 - (x << 3) }
    pub fn byte_ops(x: u8[33], y: u8[33]) -> u8[33] { (x + y) ^ (x >> 1) }
    pub fn pred_ops(x: f32[17], y: f32[17]) -> pred[17] { (x < y) & !(x == y) }
    pub fn half_ops(x: f16[33], y: f16[33]) -> f16[33] { x * y + x }
    pub fn bf16_exp(x: bf16[4, 17]) -> bf16[4, 17] { Exp(x) }
    pub fn complex_ops(x: c64[5], y: c64[5]) -> c64[5] { x * y - x }
    pub fn complex_abs(x: c64[5]) -> f32[5] { Abs(x) }
    pub fn pair(x: f32[3, 17]) -> (f32[3], f32[3, 17]) {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        Tuple(m, Neg(x))
    }
    pub fn use_pair(x: f32[3, 17]) -> f32[3] {
        let t = Call(pair, x);
        GetTupleElement(t, index = 0) + 1.0
    }
    /// Tokens in and out, joined by AfterAll; values through OptimizationBarrier (one operand:
    /// itself; two: their tuple).
    pub fn ordered(t: token, x: f32[3, 17], n: s32[3]) -> (f32[3, 17], s32[3], token) {
        let fresh = AfterAll();
        let both = OptimizationBarrier(Exp(x), n);
        let y = OptimizationBarrier(GetTupleElement(both, index = 0));
        Tuple(y + x, GetTupleElement(both, index = 1) * 2, AfterAll(t, fresh, t))
    }
    /// A token carried through a While loop's state and a Conditional's operands.
    pub fn token_loop(t: token, x: f32[5]) -> (f32[5], token) {
        let r = While(
            |s: (s32[], f32[5], token)| GetTupleElement(s, index = 0) < 3,
            |s: (s32[], f32[5], token)| {
                let t = AfterAll(GetTupleElement(s, index = 2));
                Tuple(GetTupleElement(s, index = 0) + 1, GetTupleElement(s, index = 1) * 2.0, t)
            },
            Tuple(0i32, x, t),
        );
        let c = Conditional(
            GetTupleElement(r, index = 0) > 2,
            Tuple(GetTupleElement(r, index = 1), GetTupleElement(r, index = 2)),
            |p: (f32[5], token)| Tuple(GetTupleElement(p, index = 0) + 1.0, GetTupleElement(p, index = 1)),
            Tuple(GetTupleElement(r, index = 1), GetTupleElement(r, index = 2)),
            |p: (f32[5], token)| Tuple(GetTupleElement(p, index = 0) - 1.0, AfterAll()),
        );
        c
    }
    /// A scan: the weights ride through the loop unchanged (read from the input, never copied
    /// per step), the outputs are written one row per step in place, the sum is swapped.
    pub fn scan_all(w: f32[16, 24], acc: f32[24]) -> (f32[16, 24], f32[24], f32[16, 24]) {
        let s = While(|s| Lt(s.0, 16i32), |s| {
            let row = Reshape(DynamicSlice(s.1, s.0, 0i32, slice_sizes = [1, 24]), new_sizes = [24]);
            let acc = Tanh(s.2 + row);
            Tuple(Add(s.0, 1i32), s.1, acc,
                DynamicUpdateSlice(s.3, Reshape(acc, new_sizes = [1, 24]), s.0, 0i32))
        }, Tuple(0i32, w, acc, Broadcast(0.0f32, broadcast_sizes = [16, 24])));
        Tuple(s.1, s.2, s.3)
    }
    /// The same scan returning only the rows: the carried weights are never copied out.
    pub fn scan_rows(w: f32[16, 24], acc: f32[24]) -> f32[16, 24] {
        let s = While(|s| Lt(s.0, 16i32), |s| {
            let row = Reshape(DynamicSlice(s.1, s.0, 0i32, slice_sizes = [1, 24]), new_sizes = [24]);
            let acc = Tanh(s.2 + row);
            Tuple(Add(s.0, 1i32), s.1, acc,
                DynamicUpdateSlice(s.3, Reshape(acc, new_sizes = [1, 24]), s.0, 0i32))
        }, Tuple(0i32, w, acc, Broadcast(0.0f32, broadcast_sizes = [16, 24])));
        s.3
    }
    /// A composite: its decomposition runs; the name, attributes and version travel to StableHLO.
    fn softsign(x: f32[4, 9]) -> f32[4, 9] { x / (Abs(x) + 1.0) }
    pub fn composite(x: f32[4, 9]) -> f32[4, 9] {
        let y = CompositeCall(softsign, x, name = "my_lib.softsign", attributes = "{eps = 0 : i64}", version = 2);
        CompositeCall(softsign, y * 3.0, name = "my_lib.softsign")
    }
    /// A CustomCall of a Rust fn of this crate (`softplus_rows` below), inside fused code.
    pub fn custom(x: f32[4, 9], b: f32[9]) -> f32[4, 9] {
        let y = CustomCall(x * 2.0, b, call_target_name = "softplus_rows", shape = f32[4, 9], opaque = "v1");
        y + 1.0
    }
    /// Two CustomCalls nothing reads: the one marked `has_side_effect` still runs.
    pub fn effect(x: f32[3]) -> f32[3] {
        let _kept = CustomCall(x, call_target_name = "count_calls", shape = f32[3], has_side_effect = true);
        let _dropped = CustomCall(x, call_target_name = "count_calls_dropped", shape = f32[3]);
        x + 1.0
    }
    pub fn tuple_param(t: (f32[3], s32[3])) -> f32[3] {
        GetTupleElement(t, index = 0) * ConvertElementType(GetTupleElement(t, index = 1), new_element_type = f32)
    }
    pub fn col_major(x: f32[3, 17]{0, 1}, y: f32[3, 17]) -> f32[3, 17]{0, 1} { x + y }
    pub fn col_major_in(x: f32[33, 5]{0, 1}) -> f32[33, 5] { Exp(x) }
    pub fn argmax(x: f32[4, 33]) -> (f32[4], s32[4]) {
        Reduce(x, Iota(s32[4, 33], iota_dimension = 1), f32::NEG_INFINITY, 0, dimensions = [1],
            |a: f32[], i: s32[], b: f32[], j: s32[]| {
                let keep = a >= b;
                Tuple(Select(keep, a, b), Select(keep, i, j))
            })
    }
    pub fn bitcast_split(x: f32[3]) -> u8[3, 4] { BitcastConvertType(x, new_element_type = u8) }
    pub fn bitcast_join(x: u8[3, 4]) -> f32[3] { BitcastConvertType(x, new_element_type = f32) }
    pub fn with_const(x: f32[2, 3]) -> f32[2, 3] {
        x * Constant(f32[2, 3], [[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]])
    }
    pub fn scalars(x: f32[], y: f32[]) -> f32[] { x * y + 1.0 }
    pub fn passthrough(x: f32[3], y: f32[3]) -> (f32[3], f32[3], f32[3]) { Tuple(x, x + y, x) }
    pub fn dense_relu_1(x: f32[1, 784], w: f32[784, 128], b: f32[128]) -> f32[1, 128] {
        let h = Dot(x, w);
        let h = Add(h, b, broadcast_dimensions = [1]);
        Max(h, 0.0)
    }
    pub fn dense_relu_8(x: f32[8, 784], w: f32[784, 128], b: f32[128]) -> f32[8, 128] {
        let h = Dot(x, w);
        let h = Add(h, b, broadcast_dimensions = [1]);
        Max(h, 0.0)
    }
    /// Batched, both operands read through transposed strides, odd sizes.
    pub fn batched_dot(x: f64[3, 17, 5], y: f64[3, 33, 17]) -> f64[3, 5, 33] {
        DotGeneral(x, y, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2],
            lhs_batch_dimensions = [0], rhs_batch_dimensions = [0])
    }
    pub fn int_matvec(x: s32[5, 17], v: s32[17]) -> s32[5] { Dot(x, v) }
    pub fn half_dot(x: f16[4, 33], y: f16[33, 3]) -> f16[4, 3] { Dot(x, y) }
    /// Stored by the reduction, then divided in place in scalar mode (integers).
    pub fn int_norm(x: s32[4, 17]) -> s32[4, 17] {
        let m = Reduce(x, -2147483648, dimensions = [1], |a, b| Max(a, b));
        let e = Sub(x, m, broadcast_dimensions = [0]) * 3;
        let s = Reduce(e, 0, dimensions = [1], |a, b| a + b);
        Div(e, s - 1, broadcast_dimensions = [0])
    }
    /// The same on a flat f64 vector with a full reduction (vector mode, flat loop).
    pub fn flat_norm(x: f64[1001]) -> f64[1001] {
        let e = Exp(x);
        let s = Reduce(e, 0.0, dimensions = [0], |a, b| a + b);
        Div(e, Broadcast(s, broadcast_sizes = [1001]))
    }
    /// Column mode: the innermost dim is kept.
    pub fn col_max(x: f64[300, 1001]) -> f64[1001] {
        Reduce(Exp(x), f64::NEG_INFINITY, dimensions = [0], |a, b| Max(a, b))
    }
    pub fn mid_sum(x: f32[4, 37, 19]) -> f32[4, 19] {
        Reduce(x * x, 1.5, dimensions = [1], |a, b| a + b)
    }
    /// Column mode on the rayon path, with task runs straddling output rows (70 per row).
    pub fn big_mid_sum(x: f32[64, 300, 70]) -> f32[64, 70] {
        Reduce(x, 0.0, dimensions = [1], |a, b| a + b)
    }
    pub fn outer_min(x: f32[5, 6, 33]) -> f32[6] {
        Reduce(x, f32::INFINITY, dimensions = [0, 2], |a, b| Min(a, b))
    }
    /// Empty arrays: nothing to loop over, reductions give their init.
    pub fn empty_rows(x: f32[0, 3]) -> f32[3] { Reduce(x, 1.0, dimensions = [0], |a, b| a + b) }
    pub fn empty_cols(x: f32[3, 0]) -> (f32[3], f32[3, 0]) {
        Tuple(Reduce(x, 2.0, dimensions = [1], |a, b| Max(a, b)), Exp(x))
    }
    pub fn empty_dot(x: f32[2, 0], y: f32[0, 3]) -> f32[2, 3] { Dot(x, y) }
    /// Kernel roots written to outputs with a layout (through a copy), a value returned twice.
    pub fn dot_col_major(x: f32[3, 5], y: f32[5, 4]) -> (f32[3, 4]{0, 1}, f32[3]{0}, f32[3, 4], f32[3, 4]) {
        let d = Dot(x, y);
        Tuple(d, Reduce(d, 0.0, dimensions = [1], |a, b| a + b), d, d)
    }
    /// Reshape and transpose of a column-major parameter.
    pub fn reshape_col_major(x: f32[4, 6]{0, 1}) -> (f32[6, 4], f32[2, 12]) {
        Tuple(Transpose(x, permutation = [1, 0]), Reshape(x, new_sizes = [2, 12]) + 1.0)
    }
    /// A tuple parameter's leaf returned as is, and a nested tuple result.
    pub fn tuple_leaf_out(t: (f32[3], (s32[2], pred[2]))) -> ((s32[2], f32[3]), pred[2]) {
        let inner = GetTupleElement(t, index = 1);
        Tuple(Tuple(GetTupleElement(inner, index = 0), GetTupleElement(t, index = 0)), !GetTupleElement(inner, index = 1))
    }
    /// Above the threshold: the sum pass stores exp(x - m) on rayon, the division runs in place.
    pub fn big_softmax(x: f32[256, 1024]) -> f32[256, 1024] {
        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        Div(e, s, broadcast_dimensions = [0])
    }
    pub fn bcast_degenerate(x: f32[1, 3]) -> f32[4, 3] {
        BroadcastInDim(x, out_dim_size = [4, 3], broadcast_dimensions = [0, 1]) * 2.0
    }
    pub fn reduce_reshape(x: f32[4, 33]) -> f32[4, 33] {
        let s = Reshape(Reduce(x, 0.0, dimensions = [1], |a, b| a + b), new_sizes = [4, 1]);
        x - BroadcastInDim(s, out_dim_size = [4, 33], broadcast_dimensions = [0, 1])
    }
    pub fn scalar_bcast(x: f32[], y: f32[5]) -> f32[5] { Add(x, y) }
    pub fn transposed_reduce(x: f32[6, 5]) -> f32[5, 6] {
        let m = Reduce(x, 0.0, dimensions = [1], |a, b| a + b);
        Transpose(Sub(x, m, broadcast_dimensions = [0]), permutation = [1, 0])
    }
    pub fn select_pred(p: pred[4, 33], x: f32[4, 33], y: f32[4, 33]) -> f32[4, 33] { Select(p, x, y) }
    pub fn total_order(x: f32[33], y: f32[33]) -> pred[33] {
        Compare(x, y, direction = LT, comparison_type = TOTALORDER)
    }
    pub fn many_ints(a: s8[17], b: s16[17], c: u16[17], d: u32[17], e: u64[17]) -> (s8[17], s16[17], u16[17], u32[17], u64[17]) {
        Tuple(a * a - a, Clz(b), PopulationCount(c), d >> 3, e * e + 7)
    }
    pub fn c128_ops(x: c128[7], y: c128[7]) -> c128[7] { x / y + x }
    pub fn iota_vec(x: f32[4, 33]) -> f32[4, 33] { Iota(f32[4, 33], iota_dimension = 1) * x }
    pub fn reduce_precision(x: f32[33]) -> f32[33] { ReducePrecision(x, exponent_bits = 5, mantissa_bits = 10) }
    pub fn convert_chain(x: f32[33]) -> f32[33] {
        ConvertElementType(ConvertElementType(x, new_element_type = f16), new_element_type = f32) * 2.0
    }
    pub fn add_fn(a: f32[], b: f32[]) -> f32[] { a + b }
    pub fn reduce_with_fn(x: f32[4, 33]) -> f32[4] { Reduce(x, 0.0, dimensions = [1], add_fn) }
    pub fn vector_binaries(x: f32[33], y: f32[33]) -> f32[33] {
        Rem(x, y) + Pow(Abs(x), y) + Atan2(x, y)
    }
    /// An expensive op on a small operand, broadcast to a large output: stored once.
    pub fn bcast_exp(v: f32[1000], x: f32[300, 1000]) -> f32[300, 1000] {
        Mul(x, Exp(v), broadcast_dimensions = [1])
    }
    /// Dot of an elementwise producer (materialised first) feeding a reduction.
    pub fn dot_chain(x: f32[3, 17], y: f32[17, 1]) -> f32[] {
        let h = Dot(Exp(x), y);
        Reduce(h, 0.0, dimensions = [0, 1], |a, b| a + b)
    }
}

/// Deterministic inputs for any literal shape: floats in [-2, 2), integers over a mixed range,
/// random preds; tuples element by element.
fn random_literal(shape: &xla_aot::Shape, seed: u64) -> Literal {
    use half::{bf16, f16};
    use num_complex::Complex;
    use xla_aot::core::ElementType as T;
    match shape {
        xla_aot::Shape::Array(a) => {
            let n = a.element_count() as usize;
            let f = values(n, seed);
            let g = values(n, seed + 1000);
            let ints = || f.iter().map(|&x| (x * 1000.0) as i64);
            let data = match a.ty {
                T::Pred => ArrayData::Pred(f.iter().map(|&x| x > 0.0).collect()),
                T::S8 => ArrayData::S8(ints().map(|x| x as i8).collect()),
                T::S16 => ArrayData::S16(ints().map(|x| x as i16).collect()),
                T::S32 => ArrayData::S32(ints().map(|x| x as i32).collect()),
                T::S64 => ArrayData::S64(ints().collect()),
                T::U8 => ArrayData::U8(ints().map(|x| x as u8).collect()),
                T::U16 => ArrayData::U16(ints().map(|x| x as u16).collect()),
                T::U32 => ArrayData::U32(ints().map(|x| x as u32).collect()),
                T::U64 => ArrayData::U64(ints().map(|x| x as u64).collect()),
                T::F16 => ArrayData::F16(f.iter().map(|&x| f16::from_f32(x)).collect()),
                T::Bf16 => ArrayData::Bf16(f.iter().map(|&x| bf16::from_f32(x)).collect()),
                T::F32 => ArrayData::F32(f),
                T::F64 => ArrayData::F64(
                    f.iter()
                        .zip(&g)
                        .map(|(&x, &y)| x as f64 + y as f64 * 1e-8)
                        .collect(),
                ),
                T::C64 => ArrayData::C64(
                    f.iter()
                        .zip(&g)
                        .map(|(&x, &y)| Complex::new(x, y))
                        .collect(),
                ),
                T::C128 => ArrayData::C128(
                    f.iter()
                        .zip(&g)
                        .map(|(&x, &y)| Complex::new(x as f64, y as f64))
                        .collect(),
                ),
            };
            Literal::Array {
                shape: a.clone(),
                data,
            }
        }
        xla_aot::Shape::Tuple(ts) => Literal::Tuple(
            ts.iter()
                .enumerate()
                .map(|(i, t)| random_literal(t, seed * 31 + i as u64))
                .collect(),
        ),
        xla_aot::Shape::Token => Literal::Token,
    }
}

/// Compares literals: exact (bits, NaN = NaN) for integer, pred and when `rel == 0`, else
/// within `rel` relative error (absolute below 1) for float and complex components.
fn assert_literals_close(got: &Literal, want: &Literal, rel: f64, what: &str) {
    fn close(g: f64, w: f64, rel: f64) -> bool {
        (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= rel * w.abs().max(1.0)
    }
    match (got, want) {
        (Literal::Tuple(a), Literal::Tuple(b)) => {
            assert_eq!(a.len(), b.len(), "{what}: tuple arity");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_literals_close(x, y, rel, &format!("{what}.{i}"));
            }
        }
        (
            Literal::Array {
                shape: sa,
                data: da,
            },
            Literal::Array {
                shape: sb,
                data: db,
            },
        ) => {
            assert_eq!((&sa.ty, &sa.dims), (&sb.ty, &sb.dims), "{what}: shape");
            let pairs: Vec<(f64, f64)> = match (da, db) {
                (ArrayData::F16(a), ArrayData::F16(b)) => a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| (x.to_f64(), y.to_f64()))
                    .collect(),
                (ArrayData::Bf16(a), ArrayData::Bf16(b)) => a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| (x.to_f64(), y.to_f64()))
                    .collect(),
                (ArrayData::F32(a), ArrayData::F32(b)) => a
                    .iter()
                    .zip(b)
                    .map(|(&x, &y)| (x as f64, y as f64))
                    .collect(),
                (ArrayData::F64(a), ArrayData::F64(b)) => {
                    a.iter().zip(b).map(|(&x, &y)| (x, y)).collect()
                }
                (ArrayData::C64(a), ArrayData::C64(b)) => a
                    .iter()
                    .zip(b)
                    .flat_map(|(x, y)| [(x.re as f64, y.re as f64), (x.im as f64, y.im as f64)])
                    .collect(),
                (ArrayData::C128(a), ArrayData::C128(b)) => a
                    .iter()
                    .zip(b)
                    .flat_map(|(x, y)| [(x.re, y.re), (x.im, y.im)])
                    .collect(),
                _ => {
                    assert_eq!(da, db, "{what}: integer/pred data must be identical");
                    return;
                }
            };
            for (i, (g, w)) in pairs.into_iter().enumerate() {
                assert!(close(g, w, rel), "{what}: element {i}: got {g}, want {w}");
            }
        }
        _ => panic!("{what}: got {got:?}, want {want:?}"),
    }
}

/// Runs a generated fn through `run_literals` and the evaluator on its own IR.
fn check(
    what: &str,
    run: fn(&[Literal]) -> Result<Literal, xla_aot::core::Error>,
    computation: xla_aot::core::Computation,
    rel: f64,
) {
    let args: Vec<Literal> = computation
        .params
        .iter()
        .enumerate()
        .map(|(i, s)| random_literal(s, 7 + i as u64))
        .collect();
    let got = run(&args).unwrap_or_else(|e| panic!("{what}: run_literals failed: {e}"));
    let want =
        evaluate(&computation, &args).unwrap_or_else(|e| panic!("{what}: evaluator failed: {e}"));
    assert_literals_close(&got, &want, rel, what);
}

macro_rules! check_fns {
    ($($name:ident: $rel:expr;)*) => {$(
        #[test]
        fn $name() {
            check(stringify!($name), $name::run_literals, $name::computation(), $rel);
        }
    )*};
}

mod vs_evaluator {
    use super::*;
    // Transcendentals: the vector math is within a few ulp of the scalar reference.
    check_fns! {
        tanh_affine: 1e-5;
        max1: 0.0;
        exp_minus: 1e-5;
        sub_mul_f64: 0.0;
        big_add: 0.0;
        big_logistic: 1e-5;
        col_sum: 1e-5;
        all_sum: 1e-12;
        big_row_sum: 1e-5;
        int_row_max: 0.0;
        layer_norm: 1e-5;
        relu_select: 0.0;
        clamp_unit: 0.0;
        transpose_add: 0.0;
        reshape_mul: 0.0;
        iota_convert: 0.0;
        int_ops: 0.0;
        byte_ops: 0.0;
        pred_ops: 0.0;
        half_ops: 0.0;
        bf16_exp: 0.0;
        complex_ops: 0.0;
        complex_abs: 0.0;
        pair: 0.0;
        use_pair: 0.0;
        tuple_param: 0.0;
        col_major: 0.0;
        col_major_in: 1e-5;
        argmax: 0.0;
        bitcast_split: 0.0;
        bitcast_join: 0.0;
        with_const: 0.0;
        scalars: 0.0;
        passthrough: 0.0;
        // GEMM sums in its own (blocked) order: rounding differences only, which scale with
        // sum |x_i w_i| (about 10^3 here for k = 784), not with the (cancelled) result.
        dense_relu_1: 1e-3;
        dense_relu_8: 1e-3;
        batched_dot: 1e-12;
        int_matvec: 0.0;
        half_dot: 1e-2;
        dot_chain: 1e-5;
        int_norm: 0.0;
        big_softmax: 1e-5;
        bcast_degenerate: 0.0;
        reduce_reshape: 1e-5;
        scalar_bcast: 0.0;
        transposed_reduce: 1e-5;
        select_pred: 0.0;
        total_order: 0.0;
        many_ints: 0.0;
        c128_ops: 1e-14;
        iota_vec: 0.0;
        reduce_precision: 0.0;
        convert_chain: 0.0;
        reduce_with_fn: 1e-5;
        vector_binaries: 1e-5;
        bcast_exp: 1e-5;
        dot_col_major: 1e-5;
        reshape_col_major: 0.0;
        tuple_leaf_out: 0.0;
        empty_rows: 0.0;
        empty_cols: 0.0;
        empty_dot: 0.0;
        col_max: 1e-12;
        mid_sum: 1e-5;
        // 300 terms in [-2, 2): rounding scales with sum |x_i| (~300), not with the result.
        big_mid_sum: 1e-4;
        outer_min: 0.0;
        flat_norm: 1e-12;
    }
}

#[test]
fn layouts_are_physical_in_tensors() {
    // x{0,1} stores columns contiguously; the result {0,1} too.
    let x = Tensor::<f32, D2<3, 17>>::from_fn(|i| (i[0] * 100 + i[1]) as f32);
    let xc = x.relayout::<xla_aot::Mtm2<0, 1>>();
    let y = Tensor::<f32, D2<3, 17>>::from_fn(|i| i[1] as f32 * 0.5);
    let r = col_major(&xc, &y);
    for i in 0..3 {
        for j in 0..17 {
            let want = (i * 100 + j) as f32 + j as f32 * 0.5;
            assert_eq!(r.get(&[i, j]), Some(want));
            // Physical order: column-major.
            assert_eq!(r.as_slice()[j * 3 + i], want);
        }
    }
}

#[test]
fn tuple_results_and_calls() {
    let x = Tensor::<f32, D2<3, 17>>::from_fn(|i| (i[1] as f32 - 8.0) * (i[0] as f32 + 1.0));
    let (m, n) = pair(&x);
    assert_eq!(m.as_slice(), &[8.0, 16.0, 24.0]);
    assert_eq!(n.get(&[2, 0]), Some(24.0));
    assert_eq!(use_pair(&x).as_slice(), &[9.0, 17.0, 25.0]);
    let (a, b, c) = passthrough(&m, &m);
    assert_eq!(
        (a.as_slice(), b.as_slice(), c.as_slice()),
        (m.as_slice(), &[16.0, 32.0, 48.0][..], m.as_slice())
    );
}

#[test]
fn tokens_and_optimization_barriers() {
    let x = Tensor::<f32, D2<3, 17>>::from_fn(|i| (i[1] as f32 - 8.0) * 0.25 + i[0] as f32);
    let n = Tensor::<i32, D1<3>>::from_vec(vec![4, -7, 100]).unwrap();
    let (y, m, t): (_, _, xla_aot::Token) = ordered(xla_aot::Token, &x, &n);
    assert_eq!(t, xla_aot::Token);
    assert_eq!(m.as_slice(), &[8, -14, 200]);
    let want = evaluate(
        &ordered::computation(),
        &[Literal::Token, x.to_literal(), n.to_literal()],
    )
    .unwrap();
    let got = ordered::run_literals(&[Literal::Token, x.to_literal(), n.to_literal()]).unwrap();
    let Literal::Tuple(got) = got else {
        panic!("a tuple result")
    };
    assert_eq!((&got[1], &got[2]), (&m.to_literal(), &Literal::Token));
    let e = ordered::run_literals(&[x.to_literal(), x.to_literal(), n.to_literal()]).unwrap_err();
    assert!(
        e.to_string()
            .contains("argument 0 (`t`): expected token[], given f32[3,17]"),
        "{e}"
    );
    let Literal::Tuple(parts) = want else {
        panic!("a tuple result")
    };
    assert_eq!(parts[2], Literal::Token);
    assert_close(y.as_slice(), &f32s(&parts[0]), 1e-6, "ordered: Exp(x) + x");
}

#[test]
fn tokens_through_loops_and_branches() {
    let x = Tensor::<f32, D1<5>>::from_vec(vec![1.0, -2.0, 0.5, 3.0, 0.0]).unwrap();
    let (y, t) = token_loop(xla_aot::Token, &x);
    assert_eq!(t, xla_aot::Token);
    assert_eq!(y.as_slice(), &[9.0, -15.0, 5.0, 25.0, 1.0]);
    let want = evaluate(
        &token_loop::computation(),
        &[Literal::Token, x.to_literal()],
    )
    .unwrap();
    assert_eq!(want, Literal::Tuple(vec![y.to_literal(), Literal::Token]));
}

#[test]
fn a_scan_reads_its_carried_weights_in_place() {
    let w = Tensor::<f32, D2<16, 24>>::from_vec(values(16 * 24, 31)).unwrap();
    let acc = Tensor::<f32, D1<24>>::from_vec(values(24, 32)).unwrap();
    let (w_out, last, rows) = scan_all(&w, &acc);
    // The weights come back as they went in, bit for bit.
    assert_eq!(w_out.as_slice(), w.as_slice());
    let want = evaluate(
        &scan_all::computation(),
        &[w.to_literal(), acc.to_literal()],
    )
    .unwrap();
    let Literal::Tuple(parts) = want else {
        panic!("a tuple result")
    };
    assert_eq!(f32s(&parts[0]), w.as_slice());
    assert_close(
        last.as_slice(),
        &f32s(&parts[1]),
        1e-6,
        "scan_all: last sum",
    );
    assert_close(rows.as_slice(), &f32s(&parts[2]), 1e-6, "scan_all: rows");
    assert_eq!(scan_rows(&w, &acc).as_slice(), rows.as_slice());
}

/// The CustomCall target: `out[i][j] = ln(1 + exp(x[i][j] + b[j]))`.
fn softplus_rows(
    x: xla_aot::TensorView<'_, f32, D2<4, 9>>,
    b: xla_aot::TensorView<'_, f32, D1<9>>,
    mut out: xla_aot::TensorViewMut<'_, f32, D2<4, 9>>,
) {
    let (x, b) = (x.as_slice(), b.as_slice());
    for (i, o) in out.as_mut_slice().iter_mut().enumerate() {
        *o = (x[i] + b[i % 9]).exp().ln_1p();
    }
}

/// Calls of `count_calls` / `count_calls_dropped` (the `effect` fn's CustomCall targets).
static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static DROPPED_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_calls(
    x: xla_aot::TensorView<'_, f32, D1<3>>,
    mut out: xla_aot::TensorViewMut<'_, f32, D1<3>>,
) {
    out.as_mut_slice().copy_from_slice(x.as_slice());
    CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

// Never referenced while the macro drops the unread, unmarked call (the assert below checks
// it does not run if that changes).
#[allow(dead_code)]
fn count_calls_dropped(
    x: xla_aot::TensorView<'_, f32, D1<3>>,
    mut out: xla_aot::TensorViewMut<'_, f32, D1<3>>,
) {
    out.as_mut_slice().copy_from_slice(x.as_slice());
    DROPPED_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn a_custom_call_with_a_side_effect_runs_unread() {
    let x = Tensor::<f32, D1<3>>::from_fn(|i| i[0] as f32);
    let before = CALLS.load(std::sync::atomic::Ordering::SeqCst);
    let y = effect(&x);
    let _ = effect(&x);
    assert_eq!(y.as_slice(), &[1.0, 2.0, 3.0]);
    assert_eq!(CALLS.load(std::sync::atomic::Ordering::SeqCst) - before, 2);
    assert_eq!(DROPPED_CALLS.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[test]
fn custom_calls_run_the_users_fn() {
    let x = Tensor::<f32, D2<4, 9>>::from_fn(|i| (i[1] as f32 - 4.0) * 0.5 + i[0] as f32);
    let b = Tensor::<f32, D1<9>>::from_fn(|i| i[0] as f32 * -0.25);
    let y = custom(&x, &b);
    for i in 0..4 {
        for j in 0..9 {
            let want = (2.0 * x.get(&[i, j]).unwrap() + b.get(&[j]).unwrap())
                .exp()
                .ln_1p()
                + 1.0;
            assert_eq!(y.get(&[i, j]), Some(want), "[{i}, {j}]");
        }
    }
    let text = custom::stablehlo();
    assert!(
        text.contains("\"stablehlo.custom_call\"(")
            && text.contains("backend_config = \"v1\", call_target_name = \"softplus_rows\", has_side_effect = false"),
        "{text}"
    );
    // The evaluator cannot run Rust code of this crate: an Err naming the target.
    let e = evaluate(&custom::computation(), &[x.to_literal(), b.to_literal()]).unwrap_err();
    assert!(e.to_string().contains("softplus_rows"), "{e}");
}

#[test]
fn composite_calls_run_their_decomposition() {
    let x = Tensor::<f32, D2<4, 9>>::from_fn(|i| (i[1] as f32 - 4.0) * (i[0] as f32 + 0.5));
    let y = composite(&x);
    let want = evaluate(&composite::computation(), &[x.to_literal()]).unwrap();
    assert_eq!(y.to_literal(), want);
    let s = |v: f32| v / (v.abs() + 1.0);
    assert_eq!(y.get(&[1, 0]), Some(s(3.0 * s(-6.0))));
    let text = composite::stablehlo();
    assert!(
        text.contains("name = \"my_lib.softsign\", version = 2 : i32")
            && text.contains("composite_attributes = {eps = 0 : i64}, decomposition = @"),
        "{text}"
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let x = Tensor::<f32, D2<512, 1024>>::from_vec(values(512 * 1024, 3)).unwrap();
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let one = pool(1).install(|| big_row_sum(&x));
    let two = pool(2).install(|| big_row_sum(&x));
    let bits =
        |t: &Tensor<f32, D1<512>>| t.as_slice().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&one), bits(&two));
    let x = Tensor::<f32, D2<256, 1024>>::from_vec(values(256 * 1024, 5)).unwrap();
    let one = pool(1).install(|| big_softmax(&x));
    let two = pool(2).install(|| big_softmax(&x));
    assert!(one
        .as_slice()
        .iter()
        .zip(two.as_slice())
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    let x = Tensor::<f32, xla_aot::D3<64, 300, 70>>::from_vec(values(64 * 300 * 70, 4)).unwrap();
    let one = pool(1).install(|| big_mid_sum(&x));
    let two = pool(2).install(|| big_mid_sum(&x));
    assert!(one
        .as_slice()
        .iter()
        .zip(two.as_slice())
        .all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn run_literals_rejects_bad_arguments() {
    let bad = Literal::from_vec(&[3], vec![1.0f32, 2.0, 3.0]).unwrap();
    assert!(
        add_rows::run_literals(std::slice::from_ref(&bad)).is_err(),
        "arity"
    );
    assert!(
        add_rows::run_literals(&[bad.clone(), bad]).is_err(),
        "shape"
    );
}

mod scalar_broadcasts {
    //! A rank-0 value broadcast to rank >= 2 (an empty index map over a rank-2 loop).

    use xla_aot::{xla, Tensor, D0, D2};

    xla! {
        fn bcast(x: f32[]) -> f32[2, 33] { Broadcast(x, broadcast_sizes = [2, 33]) }
        fn add_scalar(x: f32[], y: f32[2, 3]) -> f32[2, 3] { Add(x, y) }
        fn select_scalar(p: pred[], x: f32[2, 3], y: f32[2, 3]) -> f32[2, 3] { Select(p, x, y) }
    }

    #[test]
    fn scalar_operands_broadcast_to_rank_two() {
        let x = Tensor::<f32, D0>::scalar(2.5);
        assert!(bcast(&x).as_slice().iter().all(|&v| v == 2.5));
        let y = Tensor::<f32, D2<2, 3>>::from_vec(vec![1., 2., 3., 4., 5., 6.]).unwrap();
        let z = add_scalar(&x, &y);
        assert_eq!(z.as_slice(), &[3.5, 4.5, 5.5, 6.5, 7.5, 8.5]);
        assert_eq!(
            select_scalar(&Tensor::scalar(false), &y, &z).as_slice(),
            z.as_slice()
        );
        assert_eq!(
            select_scalar(&Tensor::scalar(true), &y, &z).as_slice(),
            y.as_slice()
        );
    }
}

mod unread_parameters {
    //! Parameters no kernel reads (issue 8): one that only feeds a dropped tuple element, one
    //! never used. The file is under `#![deny(warnings)]`, so an unused-variable warning in
    //! the generated code fails the build.

    use xla_aot::{xla, Tensor, D1};

    xla! {
        fn first_of_pair(x: f32[2], y: f32[2]) -> f32[2] {
            let t = Tuple(x, y);
            GetTupleElement(t, index = 0)
        }
        fn ignore_second(x: f32[2], y: f32[2]) -> f32[2] { Neg(x) }
    }

    #[test]
    fn unread_parameters_compile_without_warnings() {
        let x = Tensor::<f32, D1<2>>::from_vec(vec![1.0, -2.0]).unwrap();
        let y = Tensor::<f32, D1<2>>::from_vec(vec![7.0, 8.0]).unwrap();
        assert_eq!(first_of_pair(&x, &y).as_slice(), &[1.0, -2.0]);
        assert_eq!(ignore_second(&x, &y).as_slice(), &[-1.0, 2.0]);
    }
}

xla! {
    /// A Sort whose input may sit in a scratch buffer a larger, dead value used first.
    pub fn sort_after_big(x: f32[8, 16]) -> f32[8] {
        let e = Exp(x);
        let a = Reduce(e, 0.0, dimensions = [1], |p, q| p + q);
        let b = Reduce(e, f32::NEG_INFINITY, dimensions = [1], |p, q| Max(p, q));
        let c = Sub(a, b);
        Sort(c, |p, q| LtTotalOrder(p, q), dimension = 0)
    }
}

#[test]
fn a_call_reads_its_inputs_at_their_own_length() {
    let x: Tensor<f32, D2<8, 16>> = Tensor::from_vec(values(128, 41)).unwrap();
    let got = sort_after_big(&x);
    let want = evaluate(&sort_after_big::computation(), &[x.to_literal()]).unwrap();
    // Sums in another order than the evaluator's: close, and sorted.
    assert_close(
        got.as_slice(),
        &f32s(&want),
        1e-5,
        "sort after a larger value",
    );
    assert!(got.as_slice().windows(2).all(|w| w[0] <= w[1]), "sorted");
}
