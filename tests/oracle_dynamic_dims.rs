//! Oracle test of bounded dynamic dimensions: a variable-length batch through an MLP with a
//! softmax and a mean over the batch, the seed's SetDimensionSize example, NaN padding kept
//! out of a reduction and a contraction, the ops that move the valid region (Slice, Rev, Pad,
//! ConcatInDim) on every element type, DynamicReshape both ways, and GetDimensionSize. Each
//! case runs the generated code (its `DynTensor` entry through `run_literals`), the evaluator
//! and XLA:CPU, which runs the dynamic program itself (an entry making padded arguments
//! dynamic with SetDimensionSize, `Oracle::run_dynamic`); the valid regions are compared.
//!
//! Run: `cargo test -p xla-aot --test oracle_dynamic_dims`.

mod common;

use common::{args_with, check_all, Case, Gen, Tol};
use xla_aot::core::{ArrayShape, Literal};
use xla_aot::{DynTensor, Tensor, D1, D2};
use xla_oracle::{random_literal, Dist};

xla_aot::xla! {
    /// A batch of up to 16 rows: dense, ReLU, dense, softmax per row, and the batch mean of
    /// the probabilities (its size from GetDimensionSize).
    pub fn batch_mlp(x: f32[<=16, 8], w1: f32[8, 16], b1: f32[16], w2: f32[16, 4])
        -> (f32[<=16, 4], f32[4]) {
        let h = Max(Add(Dot(x, w1), b1, broadcast_dimensions = [1]), 0.0);
        let z = Dot(h, w2);
        let m = Reduce(z, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let e = Exp(Sub(z, m, broadcast_dimensions = [0]));
        let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
        let p = Div(e, s, broadcast_dimensions = [0]);
        let n = ConvertElementType(GetDimensionSize(p, dimension = 0), new_element_type = f32);
        let mean = Div(Reduce(p, 0.0, dimensions = [0], |a, b| a + b), n);
        Tuple(p, mean)
    }

    /// The seed's example: the sum and the product of the first `n` of ten values.
    pub fn seed_example(v: f32[10], n: s32[]) -> (f32[], f32[]) {
        let d = SetDimensionSize(v, n, dimension = 0);
        Tuple(Reduce(d, 0.0, dimensions = [0], |a, b| a + b), Reduce(d, 1.0, dimensions = [0], |a, b| a * b))
    }

    /// A sum and a dot over a dynamic dimension whose padding holds NaN and infinities.
    pub fn masked(x: f32[6], y: f32[6, 2], n: s32[]) -> (f32[], f32[2]) {
        let xd = SetDimensionSize(x, n, dimension = 0);
        let yd = SetDimensionSize(y, n, dimension = 0);
        Tuple(Reduce(xd, 0.0, dimensions = [0], |a, b| a + b), Dot(xd, yd))
    }

    /// DynamicReshape of the valid elements to rows of 3, and back to one dimension.
    pub fn reshape(x: f32[<=12], rows: s32[], len: s32[]) -> (f32[<=4, 3], f32[<=12]) {
        let three = GetDimensionSize(x, dimension = 0) - GetDimensionSize(x, dimension = 0) + 3;
        let m = DynamicReshape(x, rows, three, new_size_bounds = [4, 3], dims_are_dynamic = [true, false]);
        Tuple(m, DynamicReshape(m, len, new_size_bounds = [12], dims_are_dynamic = [true]))
    }
}

/// The valid-region ops on one element type: Slice [1:8:2] (to the bound: see
/// `a_slice_short_of_the_bound_clamps_its_size`), Rev, Pad (low 1, high 2, interior 1),
/// ConcatInDim of both operands, GetDimensionSize of the concatenation.
macro_rules! per_type {
    ($($t:ident => $r:ty),+) => {
        mod typed {
            $(
                pub mod $t {
                    use xla_aot::core::{Error, Literal};
                    use xla_aot::{DynTensor, Tensor, D0, D1};

                    xla_aot::xla! {
                        pub fn moves(x: $t[<=8], y: $t[<=6], v: $t[])
                            -> ($t[<=4], $t[<=8], $t[<=18], $t[<=14], s32[]) {
                            let c = ConcatInDim(x, y, dimension = 0);
                            Tuple(
                                Slice(x, start_indices = [1], limit_indices = [8], strides = [2]),
                                Rev(x, dimensions = [0]),
                                Pad(x, v, padding_config = [[1, 2, 1]]),
                                c,
                                GetDimensionSize(c, dimension = 0),
                            )
                        }
                    }

                    /// The typed Rust entry (`DynTensor`s in and out) on literals, so the
                    /// oracle comparison covers the wrapper, not only `run_literals`.
                    pub fn entry(args: &[Literal]) -> Result<Literal, Error> {
                        let bad = |e: xla_aot::TensorError| Error::new("entry", e.to_string());
                        let x = DynTensor::<$r, D1<8>, 1>::from_literal(&args[0]).map_err(bad)?;
                        let y = DynTensor::<$r, D1<6>, 1>::from_literal(&args[1]).map_err(bad)?;
                        let v = Tensor::<$r, D0>::from_literal(&args[2]).map_err(bad)?;
                        let (s, r, p, c, n) = moves(&x, &y, &v);
                        Ok(Literal::Tuple(vec![
                            s.to_literal(),
                            r.to_literal(),
                            p.to_literal(),
                            c.to_literal(),
                            n.to_literal(),
                        ]))
                    }
                }
            )+
        }

        fn typed_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                let g = Gen { run: typed::$t::entry, ..gen!(concat!("moves/", stringify!($t)), typed::$t::moves) };
                for (k, sizes) in [[3, 5], [0, 6], [8, 0], [1, 1]].into_iter().enumerate() {
                    let args = dyn_args(g, &[&[sizes[0]], &[sizes[1]], &[]], 40 + k as u64, Dist::Special);
                    v.push(Case::new(g, &format!("{sizes:?}"), args, Tol::Exact));
                }
            )+
            v
        }
    };
}

per_type!(
    pred => bool, s8 => i8, s32 => i32, s64 => i64, u8 => u8, u32 => u32,
    f16 => xla_aot::f16, bf16 => xla_aot::bf16, f32 => f32, f64 => f64,
    c64 => xla_aot::Complex<f32>
);

/// Random arguments of `g`'s parameters, parameter `i` at runtime sizes `sizes[i]` where it is
/// dynamic (its dims otherwise), drawn from `dist`.
fn dyn_args(g: Gen, sizes: &[&[i64]], seed: u64, dist: Dist) -> Vec<Literal> {
    args_with(g, |i, a| {
        let dims: Vec<i64> = a
            .dims
            .iter()
            .zip(&a.dynamic)
            .enumerate()
            .map(|(d, (&b, &dy))| if dy { sizes[i][d] } else { b })
            .collect();
        let mut l = random_literal(&ArrayShape::new(a.ty, &dims), seed + i as u64, dist);
        if let Literal::Array { shape, .. } = &mut l {
            shape.dynamic = a.dynamic.clone();
        }
        l
    })
}

fn s32(v: i32) -> Literal {
    Literal::scalar(v)
}

#[test]
fn dynamic_dimensions_agree_with_xla() {
    let mut cases = typed_cases();
    let g = gen!("batch_mlp", batch_mlp);
    for (k, n) in [1i64, 5, 16, 0].into_iter().enumerate() {
        let args = dyn_args(
            g,
            &[&[n, 8], &[], &[], &[]],
            7 * k as u64,
            Dist::Range(-1.0, 1.0),
        );
        cases.push(Case::new(g, &format!("n={n}"), args, Tol::Ulp(8)));
    }
    let g = gen!("seed_example", seed_example);
    let v = Literal::from_vec(&[10], (1..=10).map(|x| x as f32).collect()).unwrap();
    for n in [5, 6, 0, 10, 11, -1] {
        cases.push(Case::new(
            g,
            &format!("n={n}"),
            vec![v.clone(), s32(n)],
            Tol::Exact,
        ));
    }
    let g = gen!("masked", masked);
    let x = Literal::from_vec(
        &[6],
        vec![1.0f32, 2.0, 3.0, f32::NAN, f32::INFINITY, -f32::INFINITY],
    )
    .unwrap();
    let y = Literal::from_vec(
        &[6, 2],
        vec![
            1.0f32,
            2.0,
            3.0,
            4.0,
            5.0,
            6.0,
            f32::NAN,
            1.0,
            2.0,
            f32::INFINITY,
            0.0,
            0.0,
        ],
    )
    .unwrap();
    for n in [3, 0, 1] {
        cases.push(Case::new(
            g,
            &format!("n={n}"),
            vec![x.clone(), y.clone(), s32(n)],
            Tol::Exact,
        ));
    }
    // Sizes whose product is at most the valid count (XLA's rule; beyond it, an output
    // element has no valid source: XLA reads padding there, ours wraps around, see README).
    let g = gen!("reshape", reshape);
    for (k, (len, rows, back)) in [(12, 4, 12), (6, 2, 6), (9, 3, 9), (0, 0, 0), (7, 1, 2)]
        .into_iter()
        .enumerate()
    {
        let mut args = dyn_args(g, &[&[len], &[], &[]], 90 + k as u64, Dist::Special);
        args[1] = s32(rows);
        args[2] = s32(back);
        cases.push(Case::new(
            g,
            &format!("{len}->{rows}x3->{back}"),
            args,
            Tol::Exact,
        ));
    }
    check_all("oracle_dynamic_dims", cases);
}

/// The Rust entry: `DynTensor` in and out, sizes checked where the tensor is built.
#[test]
fn the_rust_entry_takes_and_returns_dyn_tensors() {
    let x = DynTensor::<f32, D2<16, 8>, 0b01>::new(&[3, 8], &[0.5; 24]).unwrap();
    let w1 = Tensor::<f32, D2<8, 16>>::filled(0.25);
    let b1 = Tensor::<f32, D1<16>>::zeros();
    let w2 = Tensor::<f32, D2<16, 4>>::from_fn(|i| i[1] as f32);
    let (p, mean) = batch_mlp(&x, &w1, &b1, &w2);
    assert_eq!(p.sizes(), &[3, 4]);
    assert_eq!(p.to_vec().len(), 12);
    let total: f32 = mean.as_slice().iter().sum();
    assert!((total - 1.0).abs() < 1e-5, "{total}");
    // The same rows through the literal entry give the same bits.
    let lit = batch_mlp::run_literals(&[
        x.to_literal(),
        w1.to_literal(),
        b1.to_literal(),
        w2.to_literal(),
    ])
    .unwrap();
    let Literal::Tuple(parts) = lit else {
        panic!("a tuple")
    };
    assert_eq!(parts[0], p.to_literal());
    // 17 rows do not fit the bound: an Err where the tensor is built, never in the fn.
    let e = DynTensor::<f32, D2<16, 8>, 0b01>::new(&[17, 8], &[0.0; 136]).unwrap_err();
    assert!(e.to_string().contains("f32[<=16,8]"), "{e}");
    // The literal entry refuses an argument beyond its bound, naming the shapes.
    let big = Literal::from_vec(&[17, 8], vec![0f32; 136]).unwrap();
    let e = batch_mlp::run_literals(&[big, w1.to_literal(), b1.to_literal(), w2.to_literal()])
        .unwrap_err();
    assert!(e.to_string().contains("f32[<=16,8]"), "{e}");
}

xla_aot::xla! {
    /// A slice that stops short of the bound: [1:5] of up to 8 elements.
    pub fn short_slice(x: f32[<=8]) -> f32[<=4] {
        Slice(x, start_indices = [1], limit_indices = [5])
    }
}

/// Slice [1:5] of a dynamic dimension of size `n`: `min(n, 5) - 1` elements, at least 0. XLA:CPU
/// gives `n - 1` whatever the limit (measured with jaxlib 0.10.2: size 7 for `n = 8`, beyond the
/// bound 4, and -1 for `n = 0`, which crashes the process when the result is read), so these
/// sizes are checked against this rule, by the generated code and the evaluator; where XLA's
/// size is in range (`1 <= n <= 5`) the two agree, and XLA is compared there.
#[test]
fn a_slice_short_of_the_bound_clamps_its_size() {
    let mut oracle = xla_oracle::Oracle::start().expect("the XLA oracle");
    let comp = short_slice::computation();
    for n in 0..=8usize {
        let data: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
        let x = DynTensor::<f32, D1<8>, 1>::new(&[n], &data).unwrap();
        let want: Vec<f32> = data.iter().copied().skip(1).take(4).collect();
        let got = short_slice(&x);
        assert_eq!(got.sizes(), &[want.len()], "n = {n}");
        assert_eq!(got.to_vec(), want, "n = {n}");
        let eval = xla_aot::core::eval::evaluate(&comp, &[x.to_literal()]).unwrap();
        assert_eq!(eval, got.to_literal(), "evaluator, n = {n}");
        if (1..=5).contains(&n) {
            let xla = oracle.run_computation(&comp, &[x.to_literal()]).unwrap();
            assert_eq!(xla, got.to_literal(), "XLA, n = {n}");
        }
    }
}
