//! The block ciphers and the loops writing their words where XLA puts them; tails shorter than
//! a call go through `xla_core::rng`'s scalar code. `rng.rs` runs each task at the CPU's level:
//! ThreeFry on [`U32Vec`] registers (`wide::u32x8` as the build has it, or AVX2's `__m256i`
//! and AVX-512's `__m512i`, inside a function of that level); Philox on lanes of plain arrays
//! that LLVM vectorizes at the width of the function they are inlined into. Integer results
//! are the same bits at every level.

// Index loops on purpose: an iterator adaptor left out of line would run at the build's width,
// outside the level's function (see `simd::Lanes`).
#![allow(clippy::needless_range_loop)]

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use wide::u32x8;
use xla_core::rng as r;

use super::Bits;

/// Counters per ThreeFry call: its rounds form one dependent chain per register (add, rotate,
/// xor), so several registers in flight keep the SIMD units busy where one would wait on
/// latency (measured with `u32x8`: ThreeFry u32[16M] 88 -> 52 ms on one thread with four in
/// flight). 32 counters are four SSE2-pair or AVX2 registers, two AVX-512 ones.
pub(super) const LANES: usize = 32;

/// Registers of 32-bit lanes: what ThreeFry does to them.
pub(super) trait U32Vec: Copy {
    /// Lanes per register.
    const LANES: usize;
    /// `x` in every lane.
    fn splat(x: u32) -> Self;
    /// The first `LANES` of `s`.
    fn load(s: &[u32]) -> Self;
    /// Into the first `LANES` of `s`.
    fn store(self, s: &mut [u32]);
    /// Wrapping add.
    fn add(self, o: Self) -> Self;
    /// Bitwise xor.
    fn xor(self, o: Self) -> Self;
    /// Rotate left by `L` (`L + R == 32`; stable Rust has no `32 - L` in a const argument).
    fn rotl<const L: i32, const R: i32>(self) -> Self;
}

impl U32Vec for u32x8 {
    const LANES: usize = 8;
    #[inline(always)]
    fn splat(x: u32) -> Self {
        u32x8::splat(x)
    }
    #[inline(always)]
    fn load(s: &[u32]) -> Self {
        u32x8::from(<[u32; 8]>::try_from(&s[..8]).expect("8 lanes"))
    }
    #[inline(always)]
    fn store(self, s: &mut [u32]) {
        s[..8].copy_from_slice(&self.to_array());
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self + o
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        self ^ o
    }
    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        self.unbounded_shl_scalar(L as u32) | self.unbounded_shr_scalar(R as u32)
    }
}

/// AVX2's `__m256i`. Made only inside the AVX2 task of `rng.rs`, after `fused::isa::pick`
/// found AVX2 on this CPU: every intrinsic below runs on a CPU that has it.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Avx2U32(__m256i);

#[cfg(target_arch = "x86_64")]
impl U32Vec for Avx2U32 {
    const LANES: usize = 8;
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: AVX2 is present (see the type); no memory is accessed.
        Avx2U32(unsafe { _mm256_set1_epi32(x as i32) })
    }
    #[inline(always)]
    fn load(s: &[u32]) -> Self {
        let s = &s[..8];
        // SAFETY: AVX2 is present; `s` holds the 8 lanes read (unaligned load).
        Avx2U32(unsafe { _mm256_loadu_si256(s.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store(self, s: &mut [u32]) {
        let s = &mut s[..8];
        // SAFETY: AVX2 is present; `s` holds the 8 lanes written (unaligned store).
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: AVX2 is present; registers only.
        Avx2U32(unsafe { _mm256_add_epi32(self.0, o.0) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        Avx2U32(unsafe { _mm256_xor_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        // SAFETY: as above.
        Avx2U32(unsafe {
            _mm256_or_si256(
                _mm256_slli_epi32::<L>(self.0),
                _mm256_srli_epi32::<R>(self.0),
            )
        })
    }
}

/// AVX-512F's `__m512i` (one `vprold` per rotate). Made only inside the AVX-512 task of
/// `rng.rs`, after `fused::isa::pick` found AVX-512F on this CPU.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Avx512U32(__m512i);

#[cfg(target_arch = "x86_64")]
impl U32Vec for Avx512U32 {
    const LANES: usize = 16;
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: AVX-512F is present (see the type); no memory is accessed.
        Avx512U32(unsafe { _mm512_set1_epi32(x as i32) })
    }
    #[inline(always)]
    fn load(s: &[u32]) -> Self {
        let s = &s[..16];
        // SAFETY: AVX-512F is present; `s` holds the 16 lanes read (unaligned load).
        Avx512U32(unsafe { _mm512_loadu_si512(s.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store(self, s: &mut [u32]) {
        let s = &mut s[..16];
        // SAFETY: AVX-512F is present; `s` holds the 16 lanes written (unaligned store).
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: AVX-512F is present; registers only.
        Avx512U32(unsafe { _mm512_add_epi32(self.0, o.0) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        Avx512U32(unsafe { _mm512_xor_si512(self.0, o.0) })
    }
    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        // SAFETY: as above.
        Avx512U32(unsafe { _mm512_rol_epi32::<L>(self.0) })
    }
}

/// ThreeFry-2x32 (20 rounds) of `LANES` counters `(x0, x1)` on registers `V`:
/// `xla_core::rng::threefry2x32` lane by lane.
#[inline(always)]
pub(super) fn threefry<V: U32Vec>(
    x0: &[u32; LANES],
    x1: &[u32; LANES],
    key: [u32; 2],
) -> ([u32; LANES], [u32; LANES]) {
    let n = LANES / V::LANES;
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]].map(V::splat);
    // Up to four registers each (two with AVX-512, whose other two stay unused).
    let (mut a, mut b) = ([V::splat(0); 4], [V::splat(0); 4]);
    for k in 0..n {
        a[k] = V::load(&x0[k * V::LANES..]).add(ks[0]);
        b[k] = V::load(&x1[k * V::LANES..]).add(ks[1]);
    }
    rounds::<V, 0>(&mut a, &mut b, n, &ks);
    rounds::<V, 1>(&mut a, &mut b, n, &ks);
    rounds::<V, 2>(&mut a, &mut b, n, &ks);
    rounds::<V, 3>(&mut a, &mut b, n, &ks);
    rounds::<V, 4>(&mut a, &mut b, n, &ks);
    let (mut ya, mut yb) = ([0u32; LANES], [0u32; LANES]);
    for k in 0..n {
        a[k].store(&mut ya[k * V::LANES..]);
        b[k].store(&mut yb[k * V::LANES..]);
    }
    (ya, yb)
}

/// ThreeFry's rounds `4I..4I + 4` and key injection `I + 1` on the first `n` registers;
/// everything constant (rotations, key words) once `I` is.
#[inline(always)]
fn rounds<V: U32Vec, const I: usize>(a: &mut [V; 4], b: &mut [V; 4], n: usize, ks: &[V; 3]) {
    if I.is_multiple_of(2) {
        mix::<V, 13, 19>(a, b, n);
        mix::<V, 15, 17>(a, b, n);
        mix::<V, 26, 6>(a, b, n);
        mix::<V, 6, 26>(a, b, n);
    } else {
        mix::<V, 17, 15>(a, b, n);
        mix::<V, 29, 3>(a, b, n);
        mix::<V, 16, 16>(a, b, n);
        mix::<V, 24, 8>(a, b, n);
    }
    let inject = ks[(I + 2) % 3].add(V::splat(I as u32 + 1));
    for k in 0..n {
        a[k] = a[k].add(ks[(I + 1) % 3]);
        b[k] = b[k].add(inject);
    }
}

/// One ThreeFry round on the first `n` registers: `a += b; b = rotl(b, L) ^ a`.
#[inline(always)]
fn mix<V: U32Vec, const L: i32, const R: i32>(a: &mut [V; 4], b: &mut [V; 4], n: usize) {
    for k in 0..n {
        a[k] = a[k].add(b[k]);
        b[k] = b[k].rotl::<L, R>().xor(a[k]);
    }
}

/// Blocks per Philox call: two AVX-512 registers of each word (measured on the Xeon, default
/// build: u32[16M] 7.1 ms with 32, 12.6 ms with 16, 13.9 ms with 8).
pub(super) const PHILOX_LANES: usize = 32;

/// Philox-4x32 (10 rounds) of `PHILOX_LANES` 128-bit counters, word `w` of lane `j` in
/// `x[w][j]`: `xla_core::rng::philox4x32` lane by lane.
#[inline(always)]
pub(super) fn philox(x: [[u32; PHILOX_LANES]; 4], key: [u32; 2]) -> [[u32; PHILOX_LANES]; 4] {
    let m = [u64::from(r::PHILOX_M[0]), u64::from(r::PHILOX_M[1])];
    let (mut x, mut k) = (x, key);
    for _ in 0..10 {
        let mut y = [[0u32; PHILOX_LANES]; 4];
        for j in 0..PHILOX_LANES {
            let p0 = u64::from(x[0][j]) * m[0];
            let p1 = u64::from(x[2][j]) * m[1];
            y[0][j] = (p1 >> 32) as u32 ^ x[1][j] ^ k[0];
            y[1][j] = p1 as u32;
            y[2][j] = (p0 >> 32) as u32 ^ x[3][j] ^ k[1];
            y[3][j] = p0 as u32;
        }
        x = y;
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
    // In 32-bit lanes (the high word takes the low word's carry), so the counters are made in
    // vector registers: 64-bit adds stored word by word were reloaded as vectors, and the
    // store-to-load forwarding failed.
    let (blo, bhi) = (base as u32, (base >> 32) as u32);
    let (mut lo, mut hi) = ([0u32; LANES], [0u32; LANES]);
    for j in 0..LANES {
        lo[j] = blo.wrapping_add(j as u32);
        hi[j] = bhi.wrapping_add(u32::from(lo[j] < blo));
    }
    (lo, hi)
}

/// ThreeFry's 64-bit outputs: `out[i]` is block `c + i0 + i` as `x0 | x1 << 32`.
#[inline(always)]
pub(super) fn threefry_wide<V: U32Vec, T: Bits>(key: [u32; 2], c: u64, i0: usize, out: &mut [T]) {
    let base = c.wrapping_add(i0 as u64);
    let whole = out.len() / LANES * LANES;
    let mut at = base;
    // Index loops (see `philox_fill`).
    for i in (0..whole).step_by(LANES) {
        let (x0, x1) = counters(at);
        let (a, b) = threefry::<V>(&x0, &x1, key);
        let o = &mut out[i..i + LANES];
        for j in 0..LANES {
            o[j] = T::from_word(u64::from(a[j]) | u64::from(b[j]) << 32);
        }
        at = at.wrapping_add(LANES as u64);
    }
    for (j, y) in out[whole..].iter_mut().enumerate() {
        let [a, b] = r::threefry2x32(r::split64(at.wrapping_add(j as u64)), key);
        *y = T::from_word(u64::from(a) | u64::from(b) << 32);
    }
}

/// ThreeFry's 8- to 32-bit outputs for pair rows `q0..q1` (`out` starts at pair row `q0`):
/// pair row `q` holds blocks `c + q·inner + i`, whose `x0` lands in its first row and `x1` in
/// its second (absent when it is the last of an odd split dimension).
#[inline(always)]
pub(super) fn threefry_pair_rows<V: U32Vec, T: Bits>(
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
            let (a, b) = threefry::<V>(&x0, &x1, key);
            let o = &mut out[pos..pos + 2 * LANES];
            for j in 0..LANES {
                o[2 * j] = T::from_word(u64::from(a[j]));
                o[2 * j + 1] = T::from_word(u64::from(b[j]));
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
        pair_row::<V, T>(key, base, first, second_row);
        pos += if second { 2 * inner } else { inner };
        q += 1;
    }
}

/// One pair row: blocks `base + i`, `x0` into `first[i]`, `x1` into `second[i]`.
#[inline(always)]
fn pair_row<V: U32Vec, T: Bits>(
    key: [u32; 2],
    base: u64,
    first: &mut [T],
    mut second: Option<&mut [T]>,
) {
    let n = first.len();
    let mut i = 0;
    while i + LANES <= n {
        let (x0, x1) = counters(base.wrapping_add(i as u64));
        let (a, b) = threefry::<V>(&x0, &x1, key);
        let f = &mut first[i..i + LANES];
        for j in 0..LANES {
            f[j] = T::from_word(u64::from(a[j]));
        }
        if let Some(s) = second.as_deref_mut() {
            let s = &mut s[i..i + LANES];
            for j in 0..LANES {
                s[j] = T::from_word(u64::from(b[j]));
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
#[inline(always)]
pub(super) fn philox_fill<T: Bits>(
    key: [u32; 2],
    lo: u64,
    hi: u64,
    first_block: usize,
    out: &mut [T],
) {
    let per = if T::WIDTH == 64 { 2 } else { 4 };
    let mut v = first_block as u64;
    let call = PHILOX_LANES * per;
    let whole = out.len() / call * call;
    for i in (0..whole).step_by(call) {
        let o = &mut out[i..i + call];
        // Plain loops, no `array::map` or iterator adaptors: everything here must inline into
        // the level's function (an out-of-line helper runs at the build's width).
        let mut x = [[0u32; PHILOX_LANES]; 4];
        for j in 0..PHILOX_LANES {
            let b = r::philox_block_counter(lo, hi, v + j as u64);
            for w in 0..4 {
                x[w][j] = b[w];
            }
        }
        let y = philox(x, key);
        if per == 4 {
            for j in 0..PHILOX_LANES {
                for w in 0..4 {
                    o[4 * j + w] = T::from_word(u64::from(y[w][j]));
                }
            }
        } else {
            for j in 0..PHILOX_LANES {
                o[2 * j] = T::from_word(u64::from(y[0][j]) | u64::from(y[1][j]) << 32);
                o[2 * j + 1] = T::from_word(u64::from(y[2][j]) | u64::from(y[3][j]) << 32);
            }
        }
        v += PHILOX_LANES as u64;
    }
    for (b, o) in out[whole..].chunks_mut(per).enumerate() {
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
