//! Oracle test of RngBitGenerator, generated code (`xla_kernels::rng`) and evaluator
//! (`xla_core::rng`) against XLA:CPU, bit for bit: the bits and the new state of THREE_FRY,
//! PHILOX and DEFAULT (Philox on XLA:CPU) for every element type XLA generates (8- to 64-bit
//! integers and floats), states `u64[2]` and `u64[3]` (Philox), counters about to wrap, and
//! shapes of rank 0 to 3 with odd sizes (ThreeFry's split dimension, Philox's partial blocks).
//! XLA:CPU hands signed and float bits back in the unsigned type of their width, so those
//! programs bitcast them to it, which keeps every bit.
//!
//! The proof program is a dropout mask: Philox bits to uniform floats by the shift/bitcast
//! trick, compared with the keep probability, then Select; its output equals XLA's exactly.
//!
//! RngUniform and RngNormal (XLA leaves their stream unspecified): generated code equals the
//! evaluator bit for bit, and the draws have the stated range and moments.
//!
//! Run: `cargo test -p xla-aot --test oracle_rng`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::{ArrayData, Literal};

/// Per element type `$t` (bits returned as `$u`, its unsigned type): ThreeFry on an odd
/// rank-2 shape and on a rank-3 shape split on its largest odd dimension, Philox with both
/// state sizes, DEFAULT on a scalar.
macro_rules! per_type {
    ($(($t:ident, $u:ident)),+) => {
        mod typed {
            $(
                pub mod $t {
                    xla_aot::xla! {
                        pub fn three_fry(s: u64[2]) -> (u64[2], $u[3, 5]) {
                            let r = RngBitGenerator(s, $t[3, 5], algorithm = THREE_FRY);
                            Tuple(r.0, BitcastConvertType(r.1, new_element_type = $u))
                        }
                        pub fn three_fry_3d(s: u64[2]) -> (u64[2], $u[3, 7, 5]) {
                            let r = RngBitGenerator(s, $t[3, 7, 5], algorithm = THREE_FRY);
                            Tuple(r.0, BitcastConvertType(r.1, new_element_type = $u))
                        }
                        pub fn philox(s: u64[2]) -> (u64[2], $u[7]) {
                            let r = RngBitGenerator(s, $t[7], algorithm = PHILOX);
                            Tuple(r.0, BitcastConvertType(r.1, new_element_type = $u))
                        }
                        pub fn philox3(s: u64[3]) -> (u64[3], $u[4, 3, 3]) {
                            let r = RngBitGenerator(s, $t[4, 3, 3], algorithm = PHILOX);
                            Tuple(r.0, BitcastConvertType(r.1, new_element_type = $u))
                        }
                        pub fn default(s: u64[2]) -> (u64[2], $u[]) {
                            let r = RngBitGenerator(s, $t[], algorithm = DEFAULT);
                            Tuple(r.0, BitcastConvertType(r.1, new_element_type = $u))
                        }
                    }
                }
            )+
        }

        fn typed_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                for (k, s) in STATES2.iter().enumerate() {
                    let st = state(s);
                    let mut push = |g: common::Gen| v.push(Case::new(g, &format!("s{k}"), vec![st.clone()], Tol::Exact));
                    push(gen!(concat!("three_fry/", stringify!($t)), typed::$t::three_fry));
                    push(gen!(concat!("three_fry_3d/", stringify!($t)), typed::$t::three_fry_3d));
                    push(gen!(concat!("philox/", stringify!($t)), typed::$t::philox));
                    push(gen!(concat!("default/", stringify!($t)), typed::$t::default));
                }
                for (k, s) in STATES3.iter().enumerate() {
                    let g = gen!(concat!("philox3/", stringify!($t)), typed::$t::philox3);
                    v.push(Case::new(g, &format!("s{k}"), vec![state(s)], Tol::Exact));
                }
            )+
            v
        }
    };
}

per_type!(
    (u8, u8),
    (u16, u16),
    (u32, u32),
    (u64, u64),
    (s8, u8),
    (s16, u16),
    (s32, u32),
    (s64, u64),
    (f16, u16),
    (bf16, u16),
    (f32, u32),
    (f64, u64)
);

/// `u64[2]` states: small, a counter about to wrap, a key with both words set.
const STATES2: [&[u64]; 3] = [
    &[1, 2],
    &[u64::MAX, u64::MAX - 3],
    &[0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321],
];

/// `u64[3]` states: the low counter word about to carry into the high one.
const STATES3: [&[u64]; 2] = [&[7, 8, 9], &[5, u64::MAX - 2, u64::MAX]];

fn state(words: &[u64]) -> Literal {
    Literal::from_vec(&[words.len() as i64], words.to_vec()).expect("a state literal")
}

/// Shapes of every rank on u32 and u64 (ThreeFry's split rules, Philox's partial blocks).
macro_rules! shapes {
    ($($name:ident: $alg:ident $t:ident [$($d:literal),*];)*) => {
        mod shaped {
            xla_aot::xla! {
                $(pub fn $name(s: u64[2]) -> (u64[2], $t[$($d),*]) {
                    RngBitGenerator(s, $t[$($d),*], algorithm = $alg)
                })*
            }
        }
        fn shaped_cases() -> Vec<Case> {
            let mut v = Vec::new();
            for (k, s) in STATES2.iter().enumerate() {
                $(v.push(Case::new(gen!(stringify!($name), shaped::$name), &format!("s{k}"), vec![state(s)], Tol::Exact));)*
            }
            v
        }
    };
}

shapes! {
    tf_scalar: THREE_FRY u32[];
    tf_one: THREE_FRY u32[1];
    tf_odd: THREE_FRY u32[33];
    tf_even: THREE_FRY u32[34];
    tf_unit_dims: THREE_FRY u32[3, 1, 5];
    tf_inner_even: THREE_FRY u32[9, 19, 2];
    tf_big: THREE_FRY u32[2, 17, 9];
    tf_wide_odd: THREE_FRY u64[9, 19];
    tf_u8_odd: THREE_FRY u8[5, 1, 7];
    ph_scalar: PHILOX u32[];
    ph_five: PHILOX u32[5];
    ph_rows: PHILOX u32[9, 19];
    ph_wide: PHILOX u64[3, 5];
    ph_wide_one: PHILOX u64[1];
    ph_u16: PHILOX u16[2, 17, 3];
}

#[test]
fn generated_bits_on_every_type_match_xla() {
    check_all("rng_bit_generator per type", typed_cases());
}

#[test]
fn generated_bits_on_every_rank_match_xla() {
    check_all("rng_bit_generator shapes", shaped_cases());
}

xla_aot::xla! {
    /// Dropout: keep each element with probability 0.8 (scaled by 1/0.8 = 1.25), else 0. Uniform
    /// floats in [0, 1) from the top 23 bits: `bitcast(bits >> 9 | 1.0's bits) - 1`.
    pub fn dropout(s: u64[2], x: f32[64, 129]) -> (u64[2], f32[64, 129]) {
        let r = RngBitGenerator(s, u32[64, 129], algorithm = PHILOX);
        let one = BitcastConvertType(Or(ShiftRightLogical(r.1, 9u32), 1065353216u32),
            new_element_type = f32);
        let u = Sub(one, 1.0f32);
        let keep = Lt(u, 0.8f32);
        let zero = Broadcast(0.0f32, broadcast_sizes = [64, 129]);
        Tuple(r.0, Select(keep, Mul(x, 1.25f32), zero))
    }
}

#[test]
fn generated_dropout_matches_xla() {
    let mut v = Vec::new();
    for (k, s) in STATES2.iter().enumerate() {
        let g = gen!("dropout", dropout);
        let x = common::random_arg(
            &xla_aot::core::Shape::Array(xla_aot::core::ArrayShape::new(
                xla_aot::core::ElementType::F32,
                &[64, 129],
            )),
            k as u64,
            xla_oracle::Dist::Range(-3.0, 3.0),
        );
        v.push(Case::new(
            g,
            &format!("s{k}"),
            vec![state(s), x],
            Tol::Exact,
        ));
    }
    check_all("dropout", v);
    // The mask keeps about 80%.
    let x = Literal::from_vec(&[64, 129], vec![1.0f32; 64 * 129]).expect("x");
    let out = dropout::run_literals(&[state(&[3, 4]), x]).expect("runs");
    let Literal::Tuple(parts) = out else {
        panic!("dropout returns a tuple")
    };
    let kept = parts[1]
        .as_slice::<f32>()
        .expect("f32")
        .iter()
        .filter(|&&y| y != 0.0)
        .count();
    let frac = kept as f64 / (64.0 * 129.0);
    assert!((frac - 0.8).abs() < 0.02, "kept {frac}");
}

xla_aot::xla! {
    pub fn uniform_f32(a: f32[], b: f32[]) -> f32[256, 257] { RngUniform(a, b, f32[256, 257]) }
    pub fn uniform_f64() -> f64[65537] { RngUniform(-1.0, 3.0, f64[65537]) }
    pub fn uniform_f16() -> f16[4099] { RngUniform(2.0, 4.0, f16[4099]) }
    pub fn uniform_bf16() -> bf16[4099] { RngUniform(-8.0, 8.0, bf16[4099]) }
    pub fn uniform_s32() -> s32[65536] { RngUniform(-7, 13, s32[65536]) }
    pub fn uniform_u64() -> u64[65536] { RngUniform(10, 1010, u64[65536]) }
    pub fn uniform_s64() -> s64[4097] { RngUniform(-3, 3, s64[4097]) }
    pub fn uniform_u32() -> u32[4097] { RngUniform(0, 4000000000, u32[4097]) }
    pub fn normal_f32(mu: f32[], sigma: f32[]) -> f32[256, 257] { RngNormal(mu, sigma, f32[256, 257]) }
    pub fn normal_f64() -> f64[65537] { RngNormal(-2.0, 0.5, f64[65537]) }
    pub fn normal_f16() -> f16[4099] { RngNormal(1.0, 2.0, f16[4099]) }
    pub fn normal_bf16() -> bf16[4099] { RngNormal(0.0, 1.0, bf16[4099]) }
    /// Two call sites: two streams.
    pub fn two_sites() -> (f32[1000], f32[1000]) {
        Tuple(RngUniform(0.0, 1.0, f32[1000]), RngUniform(0.0, 1.0, f32[1000]))
    }
}

/// Every value of a literal as f64.
fn values(l: &Literal) -> Vec<f64> {
    let (_, data) = l.as_array().expect("an array");
    match data {
        ArrayData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::Bf16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::F64(v) => v.clone(),
        ArrayData::S32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::S64(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("unexpected {:?}", other.element_type()),
    }
}

/// Generated code against the evaluator (bit for bit), then range and moments: the mean
/// within 6 standard errors, the variance within 6% (n >= 4096).
fn check_draws(
    name: &str,
    gen: common::Gen,
    args: &[Literal],
    range: (f64, f64),
    mean: f64,
    var: f64,
) {
    let ours = (gen.run)(args).expect("generated code runs");
    let eval = xla_aot::core::eval::evaluate(&(gen.computation)(), args).expect("evaluates");
    assert_eq!(ours, eval, "{name}: generated code vs evaluator");
    let v = values(&ours);
    let n = v.len() as f64;
    assert!(
        v.iter().all(|&x| x >= range.0 && x <= range.1),
        "{name}: out of {range:?}"
    );
    let m = v.iter().sum::<f64>() / n;
    let s2 = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    assert!(
        (m - mean).abs() < 6.0 * (var / n).sqrt(),
        "{name}: mean {m} vs {mean}"
    );
    assert!(
        (s2 / var - 1.0).abs() < 0.06,
        "{name}: variance {s2} vs {var}"
    );
}

/// Mean and variance of `a + (U mod r)`, `r = b - a`, `U` uniform over `[0, 2^width)`.
fn modulo_moments(a: f64, b: f64, width: u32) -> (f64, f64) {
    let r = (b - a) as u128;
    let m = 1u128 << width;
    let (q, rem) = ((m / r) as f64, (m % r) as f64);
    let r = r as f64;
    // Values 0..rem drawn q + 1 times in 2^w, rem..r drawn q times.
    let s1 = q * r * (r - 1.0) / 2.0 + rem * (rem - 1.0) / 2.0;
    let sq = |k: f64| (k - 1.0) * k * (2.0 * k - 1.0) / 6.0;
    let s2 = q * sq(r) + sq(rem);
    let mean = s1 / m as f64;
    (a + mean, s2 / m as f64 - mean * mean)
}

#[test]
fn uniform_draws_have_their_range_and_moments() {
    let u = |a: f64, b: f64| ((a + b) / 2.0, (b - a) * (b - a) / 12.0);
    let (m, v) = u(-2.0, 5.0);
    let args = [Literal::scalar(-2.0f32), Literal::scalar(5.0f32)];
    check_draws(
        "uniform_f32",
        gen!("uniform_f32", uniform_f32),
        &args,
        (-2.0, 5.0),
        m,
        v,
    );
    let (m, v) = u(-1.0, 3.0);
    check_draws(
        "uniform_f64",
        gen!("uniform_f64", uniform_f64),
        &[],
        (-1.0, 3.0),
        m,
        v,
    );
    let (m, v) = u(2.0, 4.0);
    check_draws(
        "uniform_f16",
        gen!("uniform_f16", uniform_f16),
        &[],
        (2.0, 4.0),
        m,
        v,
    );
    let (m, v) = u(-8.0, 8.0);
    check_draws(
        "uniform_bf16",
        gen!("uniform_bf16", uniform_bf16),
        &[],
        (-8.0, 8.0),
        m,
        v,
    );
    // Integers in [a, b): `a + bits % (b - a)` (XLA's formula), bits uniform over 2^w: the
    // first `2^w mod (b - a)` values one draw in `floor(2^w / (b - a))` likelier.
    let d = modulo_moments;
    let (m, v) = d(-7.0, 13.0, 32);
    check_draws(
        "uniform_s32",
        gen!("uniform_s32", uniform_s32),
        &[],
        (-7.0, 12.0),
        m,
        v,
    );
    let (m, v) = d(10.0, 1010.0, 64);
    check_draws(
        "uniform_u64",
        gen!("uniform_u64", uniform_u64),
        &[],
        (10.0, 1009.0),
        m,
        v,
    );
    let (m, v) = d(-3.0, 3.0, 64);
    check_draws(
        "uniform_s64",
        gen!("uniform_s64", uniform_s64),
        &[],
        (-3.0, 2.0),
        m,
        v,
    );
    let (m, v) = d(0.0, 4e9, 32);
    check_draws(
        "uniform_u32",
        gen!("uniform_u32", uniform_u32),
        &[],
        (0.0, 4e9 - 1.0),
        m,
        v,
    );
}

#[test]
fn normal_draws_have_their_moments() {
    let args = [Literal::scalar(3.0f32), Literal::scalar(0.25f32)];
    let wide = |mu: f64, s: f64| (mu - 8.0 * s, mu + 8.0 * s);
    check_draws(
        "normal_f32",
        gen!("normal_f32", normal_f32),
        &args,
        wide(3.0, 0.25),
        3.0,
        0.0625,
    );
    check_draws(
        "normal_f64",
        gen!("normal_f64", normal_f64),
        &[],
        wide(-2.0, 0.5),
        -2.0,
        0.25,
    );
    check_draws(
        "normal_f16",
        gen!("normal_f16", normal_f16),
        &[],
        wide(1.0, 2.0),
        1.0,
        4.0,
    );
    check_draws(
        "normal_bf16",
        gen!("normal_bf16", normal_bf16),
        &[],
        wide(0.0, 1.0),
        0.0,
        1.0,
    );
}

#[test]
fn each_call_site_has_its_own_fixed_stream() {
    let a = two_sites::run_literals(&[]).expect("runs");
    let b = two_sites::run_literals(&[]).expect("runs");
    assert_eq!(a, b, "a call site draws the same numbers on every run");
    let Literal::Tuple(p) = a else {
        panic!("a tuple")
    };
    assert_ne!(p[0], p[1], "two call sites draw different numbers");
}

xla_aot::stablehlo! {
    /// JAX's text of `jax.lax.rng_bit_generator(key, (5, 7), jnp.uint32, algorithm=THREE_FRY)`
    /// then the same on the new state with PHILOX (as `jax.jit(f).lower(..).as_text()` prints
    /// it), through the importer.
    pub fn jax_bits = mlir r#"
func.func public @main(%arg0: tensor<2xui64>) -> (tensor<2xui64>, tensor<5x7xui32>, tensor<3xui64>) {
  %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5x7xui32>)
  %output_state_0, %output_1 = stablehlo.rng_bit_generator %output_state, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui64>)
  return %output_state_0, %output, %output_1 : tensor<2xui64>, tensor<5x7xui32>, tensor<3xui64>
}
"#;
}

#[test]
fn imported_jax_bits_match_xla() {
    let v = STATES2
        .iter()
        .enumerate()
        .map(|(k, s)| {
            Case::new(
                gen!("jax_bits", jax_bits),
                &format!("s{k}"),
                vec![state(s)],
                Tol::Exact,
            )
        })
        .collect();
    check_all("imported rng_bit_generator", v);
}
