//! The block ciphers on `u32x8` lanes (ThreeFry four vectors in flight, Philox one) and the loops writing their words where
//! XLA puts them; tails of fewer than eight counters go through `xla_core::rng`'s scalar code.

use wide::u32x8;
use xla_core::rng as r;

use super::Bits;

/// `x.rotate_left(n)` in every lane.
#[inline(always)]
fn rotl(x: u32x8, n: u32) -> u32x8 {
    x.unbounded_shl_scalar(n) | x.unbounded_shr_scalar(32 - n)
}

/// ThreeFry's vectors in flight per call: its rounds form one dependent chain per vector (add,
/// rotate, xor), so four independent chains keep the SIMD units busy where one would wait on
/// latency (measured: ThreeFry u32[16M] 88 -> 52 ms on one thread). Philox, whose multiplies
/// already overlap, measured slower with four and stays at one.
pub(super) const V: usize = 4;
/// Counters per cipher call.
pub(super) const LANES: usize = 8 * V;

/// `[u32; LANES]` as `V` vectors.
#[inline(always)]
fn load(x: &[u32; LANES]) -> [u32x8; V] {
    std::array::from_fn(|k| u32x8::from(std::array::from_fn::<u32, 8, _>(|j| x[8 * k + j])))
}

/// `V` vectors as `[u32; LANES]`.
#[inline(always)]
fn store(v: [u32x8; V]) -> [u32; LANES] {
    let a = v.map(u32x8::to_array);
    std::array::from_fn(|i| a[i / 8][i % 8])
}

/// ThreeFry-2x32 (20 rounds) of `LANES` counters `(x0, x1)`: `xla_core::rng::threefry2x32`
/// lane by lane.
#[inline(always)]
pub(super) fn threefry(
    x0: &[u32; LANES],
    x1: &[u32; LANES],
    key: [u32; 2],
) -> ([u32; LANES], [u32; LANES]) {
    const ROT: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]].map(u32x8::splat);
    let (mut a, mut b) = (load(x0), load(x1));
    for k in 0..V {
        a[k] += ks[0];
        b[k] += ks[1];
    }
    for i in 0..5 {
        for rot in ROT[i % 2] {
            for k in 0..V {
                a[k] += b[k];
                b[k] = rotl(b[k], rot) ^ a[k];
            }
        }
        let inject = ks[(i + 2) % 3] + u32x8::splat(i as u32 + 1);
        for k in 0..V {
            a[k] += ks[(i + 1) % 3];
            b[k] += inject;
        }
    }
    (store(a), store(b))
}

/// Philox-4x32 (10 rounds) of eight 128-bit counters, word `w` of lane `j` in `x[w]`.
#[inline(always)]
pub(super) fn philox8(x: [u32x8; 4], key: [u32; 2]) -> [u32x8; 4] {
    let m = r::PHILOX_M.map(u32x8::splat);
    let (mut x, mut k) = (x, key);
    for _ in 0..10 {
        let (lo0, hi0) = x[0].mul_keep_low_high(m[0]);
        let (lo1, hi1) = x[2].mul_keep_low_high(m[1]);
        let (k0, k1) = (u32x8::splat(k[0]), u32x8::splat(k[1]));
        x = [hi1 ^ x[1] ^ k0, lo1, hi0 ^ x[3] ^ k1, lo0];
        k = [
            k[0].wrapping_add(r::PHILOX_W[0]),
            k[1].wrapping_add(r::PHILOX_W[1]),
        ];
    }
    x
}

/// The `LANES` 64-bit counters `base + j` as `(lo, hi)` words.
#[inline(always)]
fn counters(base: u64) -> ([u32; LANES], [u32; LANES]) {
    let c: [u64; LANES] = std::array::from_fn(|j| base.wrapping_add(j as u64));
    (c.map(|x| x as u32), c.map(|x| (x >> 32) as u32))
}

/// ThreeFry's 64-bit outputs: `out[i]` is block `c + i0 + i` as `x0 | x1 << 32`.
pub(super) fn threefry_wide<T: Bits>(key: [u32; 2], c: u64, i0: usize, out: &mut [T]) {
    let base = c.wrapping_add(i0 as u64);
    let mut chunks = out.chunks_exact_mut(LANES);
    let mut at = base;
    for o in &mut chunks {
        let (x0, x1) = counters(at);
        let (a, b) = threefry(&x0, &x1, key);
        for (j, y) in o.iter_mut().enumerate() {
            *y = T::from_word(u64::from(a[j]) | u64::from(b[j]) << 32);
        }
        at = at.wrapping_add(LANES as u64);
    }
    for (j, y) in chunks.into_remainder().iter_mut().enumerate() {
        let [a, b] = r::threefry2x32(r::split64(at.wrapping_add(j as u64)), key);
        *y = T::from_word(u64::from(a) | u64::from(b) << 32);
    }
}

/// ThreeFry's 8- to 32-bit outputs for pair rows `q0..q1` (`out` starts at pair row `q0`):
/// pair row `q` holds blocks `c + q·inner + i`, whose `x0` lands in its first row and `x1` in
/// its second (absent when it is the last of an odd split dimension).
pub(super) fn threefry_pair_rows<T: Bits>(
    key: [u32; 2],
    c: u64,
    (q0, q1): (usize, usize),
    (half, d, inner): (usize, usize, usize),
    out: &mut [T],
) {
    let mut pos = 0;
    let mut q = q0;
    // Pairs of an outer block with both rows: all but the last when the dimension is odd.
    let full = if d % 2 == 1 { half - 1 } else { half };
    // Runs of pair rows of one element each (the split dimension innermost): x0, x1 adjacent.
    while q < q1 {
        let second = 2 * (q % half) + 1 < d;
        if inner == 1 && q % half + LANES <= full && q + LANES <= q1 {
            let (x0, x1) = counters(c.wrapping_add(q as u64));
            let (a, b) = threefry(&x0, &x1, key);
            for (j, o) in out[pos..pos + 2 * LANES].chunks_exact_mut(2).enumerate() {
                o[0] = T::from_word(u64::from(a[j]));
                o[1] = T::from_word(u64::from(b[j]));
            }
            pos += 2 * LANES;
            q += LANES;
            continue;
        }
        let base = c.wrapping_add((q * inner) as u64);
        let (first, rest) = out[pos..].split_at_mut(inner);
        let second_row = if second {
            Some(&mut rest[..inner])
        } else {
            None
        };
        pair_row(key, base, first, second_row);
        pos += if second { 2 * inner } else { inner };
        q += 1;
    }
}

/// One pair row: blocks `base + i`, `x0` into `first[i]`, `x1` into `second[i]`.
fn pair_row<T: Bits>(key: [u32; 2], base: u64, first: &mut [T], mut second: Option<&mut [T]>) {
    let n = first.len();
    let mut i = 0;
    while i + LANES <= n {
        let (x0, x1) = counters(base.wrapping_add(i as u64));
        let (a, b) = threefry(&x0, &x1, key);
        for (y, &w) in first[i..i + LANES].iter_mut().zip(&a) {
            *y = T::from_word(u64::from(w));
        }
        if let Some(s) = second.as_deref_mut() {
            for (y, &w) in s[i..i + LANES].iter_mut().zip(&b) {
                *y = T::from_word(u64::from(w));
            }
        }
        i += LANES;
    }
    for i in i..n {
        let [a, b] = r::threefry2x32(r::split64(base.wrapping_add(i as u64)), key);
        first[i] = T::from_word(u64::from(a));
        if let Some(s) = second.as_deref_mut() {
            s[i] = T::from_word(u64::from(b));
        }
    }
}

/// Philox outputs from block `first_block` on: four 32-bit words per block (8- to 32-bit
/// outputs) or two 64-bit ones (`x0 | x1 << 32`, `x2 | x3 << 32`), the counter `(lo, hi) + v`.
pub(super) fn philox_fill<T: Bits>(
    key: [u32; 2],
    lo: u64,
    hi: u64,
    first_block: usize,
    out: &mut [T],
) {
    let per = if T::WIDTH == 64 { 2 } else { 4 };
    let mut v = first_block as u64;
    let mut chunks = out.chunks_exact_mut(8 * per);
    for o in &mut chunks {
        let c: [[u32; 4]; 8] =
            std::array::from_fn(|j| r::philox_block_counter(lo, hi, v + j as u64));
        let x: [u32x8; 4] = std::array::from_fn(|w| u32x8::from(c.map(|b| b[w])));
        let y = philox8(x, key).map(u32x8::to_array);
        if per == 4 {
            for j in 0..8 {
                for w in 0..4 {
                    o[4 * j + w] = T::from_word(u64::from(y[w][j]));
                }
            }
        } else {
            for j in 0..8 {
                o[2 * j] = T::from_word(u64::from(y[0][j]) | u64::from(y[1][j]) << 32);
                o[2 * j + 1] = T::from_word(u64::from(y[2][j]) | u64::from(y[3][j]) << 32);
            }
        }
        v += 8;
    }
    for (b, o) in chunks.into_remainder().chunks_mut(per).enumerate() {
        let w = r::philox4x32(r::philox_block_counter(lo, hi, v + b as u64), key);
        for (j, y) in o.iter_mut().enumerate() {
            *y = T::from_word(if per == 4 {
                u64::from(w[j])
            } else {
                u64::from(w[2 * j]) | u64::from(w[2 * j + 1]) << 32
            });
        }
    }
}
