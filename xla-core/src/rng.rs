//! The random-number streams of RngBitGenerator, RngUniform and RngNormal, as scalar reference
//! code: the evaluator runs it and `xla_kernels::rng` (vectorised) is tested against it.
//!
//! Facts from XLA (`xla/hlo/builder/lib/prng.cc`, `xla/service/rng_bit_generator_expander.cc`),
//! checked bit for bit against XLA:CPU by `tests/oracle_rng.rs`:
//!
//! - The state is `u64[2]` (ThreeFry, Philox) or `u64[3]` (Philox); `state[0]` is the key,
//!   split into the 32-bit words `(lo, hi)`, and stays unchanged in the new state.
//! - ThreeFry: counter `c = state[1]`; a 64-bit output `i` is ThreeFry-2x32 (20 rounds) of
//!   `c + i` (split `lo, hi`), its two words `x0 | x1 << 32`; the new counter is `c + n`.
//!   Narrower outputs come in pairs: the shape is split in two along its first even dimension
//!   (else its largest, the first of equals), `half[.., h, ..]` holding `ceil(d / 2)`; half
//!   element `f` (row-major) draws one block of counter `c + f`, whose `x0` lands at
//!   `[.., 2h, ..]` and `x1` at `[.., 2h + 1, ..]` (dropped past the end); the new counter is
//!   `c + |half|`. 8- and 16-bit outputs keep the low bits of the 32-bit words.
//! - Philox-4x32 (10 rounds): the 128-bit counter is `state[1] | state[0] << 64` for
//!   `u64[2]` (the key doubles as the high word) and `state[1] | state[2] << 64` for `u64[3]`;
//!   block `v` encrypts counter `+ v`, its four words are outputs `4v..4v+4` (32-bit and
//!   narrower) or `x0 | x1 << 32`, `x2 | x3 << 32` outputs `2v, 2v + 1` (64-bit). The counter
//!   advances by the number of blocks, `ceil(n / 4)` or `ceil(n / 2)`: a `u64[2]` state keeps
//!   the low word only (no carry), a `u64[3]` state both.
//! - DEFAULT is Philox on XLA:CPU (its `RngBitGeneratorExpander` is built with `RNG_PHILOX`).
//! - Signed and float outputs are the unsigned bits reinterpreted (XLA:CPU returns the
//!   unsigned type's buffer).

use crate::element::ElementType;

/// The bit generator of `RngBitGenerator` (XLA's `RandomAlgorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RandomAlgorithm {
    /// The backend's choice: Philox on XLA:CPU.
    Default,
    /// ThreeFry-2x32, 20 rounds; state `u64[2]` (key, counter).
    ThreeFry,
    /// Philox-4x32, 10 rounds; state `u64[2]` or `u64[3]` (key, 128-bit counter).
    Philox,
}

impl RandomAlgorithm {
    /// Every variant, in declaration order.
    pub const ALL: [RandomAlgorithm; 3] = [
        RandomAlgorithm::Default,
        RandomAlgorithm::ThreeFry,
        RandomAlgorithm::Philox,
    ];

    /// The name as the seed and StableHLO spell it (`THREE_FRY`).
    pub fn name(self) -> &'static str {
        match self {
            RandomAlgorithm::Default => "DEFAULT",
            RandomAlgorithm::ThreeFry => "THREE_FRY",
            RandomAlgorithm::Philox => "PHILOX",
        }
    }

    /// The algorithm spelled `s` (`RNG_` prefix accepted, as XLA's enum writes it).
    pub fn from_name(s: &str) -> Option<Self> {
        let s = s.strip_prefix("RNG_").unwrap_or(s);
        Self::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// The distribution of `stablehlo.rng`: RngUniform or RngNormal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RngDistribution {
    /// `RngUniform(a, b, shape)`: uniform in `[a, b)`.
    Uniform,
    /// `RngNormal(mu, sigma, shape)`: normal with mean `mu`, standard deviation `sigma`.
    Normal,
}

impl RngDistribution {
    /// The user-facing op name.
    pub fn name(self) -> &'static str {
        match self {
            RngDistribution::Uniform => "RngUniform",
            RngDistribution::Normal => "RngNormal",
        }
    }
}

/// ThreeFry-2x32 with 20 rounds (Salmon et al. 2011) of the counter `x` under `key`.
#[inline]
pub fn threefry2x32(x: [u32; 2], key: [u32; 2]) -> [u32; 2] {
    const ROT: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    let (mut a, mut b) = (x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1]));
    for i in 0..5 {
        for r in ROT[i % 2] {
            a = a.wrapping_add(b);
            b = b.rotate_left(r) ^ a;
        }
        // Key injection i + 1: words (i + 1) % 3 and (i + 2) % 3, plus the injection count.
        a = a.wrapping_add(ks[(i + 1) % 3]);
        b = b.wrapping_add(ks[(i + 2) % 3]).wrapping_add(i as u32 + 1);
    }
    [a, b]
}

/// The multipliers and key increments of Philox-4x32.
pub const PHILOX_M: [u32; 2] = [0xD251_1F53, 0xCD9E_8D57];
/// The Weyl increments of Philox-4x32's key.
pub const PHILOX_W: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];

/// Philox-4x32 with 10 rounds of the counter `x` (least significant word first) under `key`.
#[inline]
pub fn philox4x32(x: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut x, mut k) = (x, key);
    for _ in 0..10 {
        let p0 = u64::from(x[0]) * u64::from(PHILOX_M[0]);
        let p1 = u64::from(x[2]) * u64::from(PHILOX_M[1]);
        x = [
            (p1 >> 32) as u32 ^ x[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ x[3] ^ k[1],
            p0 as u32,
        ];
        k = [
            k[0].wrapping_add(PHILOX_W[0]),
            k[1].wrapping_add(PHILOX_W[1]),
        ];
    }
    x
}

/// A 64-bit word as `(lo, hi)` 32-bit words.
#[inline]
pub fn split64(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

/// The algorithm XLA:CPU runs for `a`: DEFAULT is Philox.
pub fn resolve(a: RandomAlgorithm) -> RandomAlgorithm {
    match a {
        RandomAlgorithm::Default | RandomAlgorithm::Philox => RandomAlgorithm::Philox,
        RandomAlgorithm::ThreeFry => RandomAlgorithm::ThreeFry,
    }
}

/// Where ThreeFry splits `dims` for outputs narrower than 64 bits: `(outer, d, inner)` with
/// `d` the split dimension's size (1 for a scalar), `outer`/`inner` the products before/after.
pub fn threefry_split(dims: &[usize]) -> (usize, usize, usize) {
    if dims.is_empty() {
        return (1, 1, 1);
    }
    let mut best = 0;
    for (i, &d) in dims.iter().enumerate() {
        if d > dims[best] {
            best = i;
        }
    }
    let at = dims.iter().position(|&d| d % 2 == 0).unwrap_or(best);
    let outer = dims[..at].iter().product();
    let inner = dims[at + 1..].iter().product();
    (outer, dims[at], inner)
}

/// The 128-bit Philox counter of a state (`u64[2]` or `u64[3]`), as `(lo, hi)`.
pub fn philox_counter(state: &[u64]) -> (u64, u64) {
    match state {
        [key, lo] => (*lo, *key),
        [_, lo, hi, ..] => (*lo, *hi),
        _ => (0, 0),
    }
}

/// The new state after `blocks` Philox blocks.
pub fn philox_advance(state: &[u64], blocks: u64) -> Vec<u64> {
    let (lo, hi) = philox_counter(state);
    let (nlo, carry) = lo.overflowing_add(blocks);
    let mut out = state.to_vec();
    out[1] = nlo;
    if out.len() > 2 {
        out[2] = hi.wrapping_add(u64::from(carry));
    }
    out
}

/// The Philox input of block `v` after counter `(lo, hi)`: `(lo, hi) + v` as four words.
#[inline]
pub fn philox_block_counter(lo: u64, hi: u64, v: u64) -> [u32; 4] {
    let (l, carry) = lo.overflowing_add(v);
    let h = hi.wrapping_add(u64::from(carry));
    [l as u32, (l >> 32) as u32, h as u32, (h >> 32) as u32]
}

/// RngBitGenerator's scalar reference: `(new state, bits)` of `n = prod(dims)` outputs of
/// `width` bits (8, 16, 32 or 64; the low bits of each `u64`), row-major. `state` has 2 or 3
/// words (shape inference checked it against the algorithm).
pub fn bit_generator(
    algorithm: RandomAlgorithm,
    state: &[u64],
    dims: &[usize],
    width: u32,
) -> (Vec<u64>, Vec<u64>) {
    let n: usize = dims.iter().product();
    let key = split64(state[0]);
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut out = vec![0u64; n];
    match resolve(algorithm) {
        RandomAlgorithm::ThreeFry => {
            let c = state[1];
            let mut new = state.to_vec();
            if width == 64 {
                for (i, o) in out.iter_mut().enumerate() {
                    let [a, b] = threefry2x32(split64(c.wrapping_add(i as u64)), key);
                    *o = u64::from(a) | u64::from(b) << 32;
                }
                new[1] = c.wrapping_add(n as u64);
                return (new, out);
            }
            let (outer, d, inner) = threefry_split(dims);
            let half = d.div_ceil(2);
            for o in 0..outer {
                for h in 0..half {
                    for i in 0..inner {
                        let f = (o * half + h) * inner + i;
                        let x = threefry2x32(split64(c.wrapping_add(f as u64)), key);
                        for (p, w) in x.into_iter().enumerate() {
                            if 2 * h + p < d {
                                out[(o * d + 2 * h + p) * inner + i] = u64::from(w) & mask;
                            }
                        }
                    }
                }
            }
            new[1] = c.wrapping_add((outer * half * inner) as u64);
            (new, out)
        }
        RandomAlgorithm::Philox | RandomAlgorithm::Default => {
            let (lo, hi) = philox_counter(state);
            let per = if width == 64 { 2 } else { 4 };
            let blocks = n.div_ceil(per);
            for v in 0..blocks {
                let w = philox4x32(philox_block_counter(lo, hi, v as u64), key);
                for j in 0..per {
                    let Some(o) = out.get_mut(v * per + j) else {
                        break;
                    };
                    *o = if width == 64 {
                        u64::from(w[2 * j]) | u64::from(w[2 * j + 1]) << 32
                    } else {
                        u64::from(w[j]) & mask
                    };
                }
            }
            (philox_advance(state, blocks as u64), out)
        }
    }
}

/// The bits RngUniform and RngNormal draw from: Philox (u64[2] state) with key `seed` and
/// counter 0, `width`-bit outputs. A fixed seed per call site: every run of the program draws
/// the same numbers there (XLA's stream, a global state, differs from run to run).
pub fn distribution_bits(seed: u64, n: usize, width: u32) -> Vec<u64> {
    bit_generator(RandomAlgorithm::Philox, &[seed, 0], &[n], width).1
}

/// `u` in `[0, 1)` from the top `mantissa` bits of a `width`-bit word (XLA's
/// ConvertRandomBitsToUniformFloatingPoint): `(bits >> (width - mantissa)) * 2^-mantissa`.
#[inline]
pub fn unit_from_bits(bits: u64, width: u32, mantissa: u32) -> f64 {
    (bits >> (width - mantissa)) as f64 * (-(mantissa as f64)).exp2()
}

/// RngUniform on integers (XLA's ConvertRandomBitsToUniformInt): `a + bits % (b - a)`, the
/// range taken unsigned in the type's width; `a` when `b == a` (XLA leaves `b <= a`
/// implementation-defined; `b < a` wraps as the unsigned range does).
#[inline]
pub fn uniform_int(bits: u64, a: u64, b: u64, width: u32) -> u64 {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let range = b.wrapping_sub(a) & mask;
    let dist = if range == 0 { 0 } else { (bits & mask) % range };
    a.wrapping_add(dist) & mask
}

/// Box-Muller: two uniform `[0, 1)` numbers to two standard normal ones,
/// `sqrt(-2 ln max(u0, 1e-7)) * (sin 2πu1, cos 2πu1)` (XLA's BoxMullerTransform, in f64).
#[inline]
pub fn box_muller(u0: f64, u1: f64) -> (f64, f64) {
    let r = (-2.0 * u0.max(1e-7).ln()).sqrt();
    let t = 2.0 * std::f64::consts::PI * u1;
    (t.sin() * r, t.cos() * r)
}

/// The word width and mantissa bits RngUniform and RngNormal draw a float of type `ty` with:
/// the type's own width and mantissa for uniform (XLA's choice), 32-bit words with 23 bits
/// (64 with 52 for f64) for normal, whose Box-Muller runs in f64.
pub fn float_draw(ty: ElementType, normal: bool) -> (u32, u32) {
    match (ty, normal) {
        (ElementType::F64, _) => (64, 52),
        (ElementType::F16, false) => (16, 10),
        (ElementType::Bf16, false) => (16, 7),
        _ => (32, 23),
    }
}

/// RngUniform on floats: `a + (b - a)·u`, `u` from [`unit_from_bits`], in f64, rounded once
/// to the type by the caller. The rounding can reach `b` when `b - a` is not exact (XLA's
/// formula has the same property).
#[inline]
pub fn uniform_float(bits: u64, width: u32, mantissa: u32, a: f64, b: f64) -> f64 {
    a + (b - a) * unit_from_bits(bits, width, mantissa)
}

/// RngNormal of one pair of words: `mu + sigma·z` for the two Box-Muller values `z`.
#[inline]
pub fn normal_pair(bits: [u64; 2], width: u32, mantissa: u32, mu: f64, sigma: f64) -> [f64; 2] {
    let u = bits.map(|w| unit_from_bits(w, width, mantissa));
    let (z0, z1) = box_muller(u[0], u[1]);
    [mu + sigma * z0, mu + sigma * z1]
}

#[cfg(test)]
mod tests;
