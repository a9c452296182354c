//! Key encodings (XLA's total order as unsigned integers) and the LSD radix sort on them.

use half::{bf16, f16};

use super::SortScratch;

/// An unsigned radix key (`u32` or `u64`): sorted byte by byte from the least significant.
pub trait RadixKey: Copy + Ord + Send + Sync + Default + 'static {
    /// Bytes in the key (passes of the radix sort).
    const BYTES: usize;
    /// Byte `b` (0 = least significant).
    fn byte(self, b: usize) -> usize;
    /// Bitwise not: reverses the order (for descending sorts).
    fn not(self) -> Self;
    /// This key type's buffer in a [`SortScratch`].
    fn buffer(s: &mut SortScratch) -> &mut Vec<Self>;
}

impl RadixKey for u32 {
    const BYTES: usize = 4;
    #[inline(always)]
    fn byte(self, b: usize) -> usize {
        ((self >> (8 * b)) & 0xff) as usize
    }
    #[inline(always)]
    fn not(self) -> Self {
        !self
    }
    #[inline(always)]
    fn buffer(s: &mut SortScratch) -> &mut Vec<Self> {
        &mut s.k32
    }
}

impl RadixKey for u64 {
    const BYTES: usize = 8;
    #[inline(always)]
    fn byte(self, b: usize) -> usize {
        ((self >> (8 * b)) & 0xff) as usize
    }
    #[inline(always)]
    fn not(self) -> Self {
        !self
    }
    #[inline(always)]
    fn buffer(s: &mut SortScratch) -> &mut Vec<Self> {
        &mut s.k64
    }
}

/// An element type sortable in XLA's order through an order-preserving unsigned key:
/// `a < b` in the order  <=>  `a.to_key() < b.to_key()`, and `from_key(to_key(x)) == x` bit for
/// bit. Floats use the total order -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN.
pub trait SortKey: Copy + Send + Sync + 'static {
    /// The unsigned key type.
    type Key: RadixKey;
    /// The order-preserving key.
    fn to_key(self) -> Self::Key;
    /// The inverse of [`SortKey::to_key`].
    fn from_key(k: Self::Key) -> Self;
    /// TopK's skip test: bit `i` of the result is clear only if `chunk[i]` is strictly worse
    /// than `kth` (smaller when `largest`, larger otherwise) in this order; a set bit is
    /// always safe (that element is then checked exactly). f32 and f64 answer with vector
    /// compares.
    #[inline(always)]
    fn candidates(chunk: &[Self; SKIP_CHUNK], kth: Self, largest: bool) -> u32 {
        let t = kth.to_key();
        chunk.iter().enumerate().fold(0, |m, (i, x)| {
            let worse = if largest {
                x.to_key() < t
            } else {
                x.to_key() > t
            };
            m | (u32::from(!worse) << i)
        })
    }
}

/// Elements per [`SortKey::candidates`] test (one f32x8, two f64x4).
pub const SKIP_CHUNK: usize = 8;

/// IEEE `<` / `>` on vectors as a conservative total-order test: a lane that is NaN or equal
/// (including `-0` vs `+0`) fails it, so only chunks strictly worse in the total order pass.
macro_rules! vector_skip {
    ($t:ty, $v:ty, $l:literal) => {
        #[inline(always)]
        fn candidates(chunk: &[$t; SKIP_CHUNK], kth: $t, largest: bool) -> u32 {
            let t = <$v>::splat(kth);
            let mut worse = 0;
            for (q, c) in chunk.chunks_exact($l).enumerate() {
                let v = <$v>::new(c.try_into().expect("a full vector"));
                let m = if largest { v.simd_lt(t) } else { v.simd_gt(t) };
                worse |= m.to_bitmask() << (q * $l);
            }
            !worse & ((1 << SKIP_CHUNK) - 1)
        }
    };
}

/// Float bits -> key: negative floats (sign set) have every bit flipped (larger magnitude =
/// smaller), non-negative ones only the sign bit, so unsigned order = total order. This is
/// `bits ^ (((bits as i32) >> 31) as u32 >> 1)` (a signed-comparable key) with the sign bit
/// flipped to compare unsigned.
macro_rules! float_key {
    ($t:ty, $u:ty, $bits:expr $(, $v:ty, $l:literal)?) => {
        impl SortKey for $t {
            type Key = $u;
            #[inline(always)]
            fn to_key(self) -> $u {
                let b = <$u>::from(self.to_bits());
                let sign: $u = 1 << ($bits - 1);
                if b & sign != 0 {
                    !b & (<$u>::MAX >> (<$u>::BITS - $bits))
                } else {
                    b | sign
                }
            }
            #[inline(always)]
            fn from_key(k: $u) -> $t {
                let sign: $u = 1 << ($bits - 1);
                let mask: $u = <$u>::MAX >> (<$u>::BITS - $bits);
                let b = if k & sign != 0 { k ^ sign } else { !k & mask };
                <$t>::from_bits(b as _)
            }
            $(vector_skip!($t, $v, $l);)?
        }
    };
}
float_key!(f32, u32, 32, wide::f32x8, 8);
float_key!(f64, u64, 64, wide::f64x4, 4);
float_key!(f16, u32, 16);
float_key!(bf16, u32, 16);

/// Integers: signed ones have the sign bit flipped (two's complement -> offset binary).
macro_rules! int_key {
    ($t:ty, $u:ty, $k:ty, $signed:expr) => {
        impl SortKey for $t {
            type Key = $k;
            #[inline(always)]
            fn to_key(self) -> $k {
                let flip: $u = if $signed { 1 << (<$u>::BITS - 1) } else { 0 };
                <$k>::from((self as $u) ^ flip)
            }
            #[inline(always)]
            fn from_key(k: $k) -> $t {
                let flip: $u = if $signed { 1 << (<$u>::BITS - 1) } else { 0 };
                ((k as $u) ^ flip) as $t
            }
        }
    };
}
int_key!(i8, u8, u32, true);
int_key!(i16, u16, u32, true);
int_key!(i32, u32, u32, true);
int_key!(i64, u64, u64, true);
int_key!(u8, u8, u32, false);
int_key!(u16, u16, u32, false);
int_key!(u32, u32, u32, false);
int_key!(u64, u64, u64, false);

impl SortKey for bool {
    type Key = u32;
    #[inline(always)]
    fn to_key(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn from_key(k: u32) -> bool {
        k != 0
    }
}

/// Stable LSD radix sort of `keys` ascending, moving `vals` alongside when `vals` is non-empty
/// (then `vals.len() == keys.len()`). `tk` / `tv` are scratch of the same lengths. Passes whose
/// byte is the same for every key are skipped (all histograms come from one read).
pub fn radix_sort<K: RadixKey>(keys: &mut [K], vals: &mut [u32], tk: &mut [K], tv: &mut [u32]) {
    let n = keys.len();
    let with_vals = !vals.is_empty();
    let mut hist = [[0u32; 256]; 8];
    for &k in keys.iter() {
        for (b, h) in hist[..K::BYTES].iter_mut().enumerate() {
            h[k.byte(b)] += 1;
        }
    }
    // `in_scratch`: the current data is in (tk, tv) rather than (keys, vals).
    let mut in_scratch = false;
    for (b, h) in hist[..K::BYTES].iter_mut().enumerate() {
        if h.contains(&(n as u32)) {
            continue;
        }
        let mut offs = [0usize; 256];
        let mut sum = 0;
        for (o, &c) in offs.iter_mut().zip(h.iter()) {
            *o = sum;
            sum += c as usize;
        }
        match (in_scratch, with_vals) {
            (false, false) => scatter(keys, tk, &mut offs, b),
            (true, false) => scatter(tk, keys, &mut offs, b),
            (false, true) => scatter_pairs(keys, vals, tk, tv, &mut offs, b),
            (true, true) => scatter_pairs(tk, tv, keys, vals, &mut offs, b),
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        keys.copy_from_slice(tk);
        if with_vals {
            vals.copy_from_slice(tv);
        }
    }
}

/// One counting-sort pass on byte `b`: `offs` holds each bucket's next free slot.
#[inline(never)]
fn scatter<K: RadixKey>(src: &[K], dst: &mut [K], offs: &mut [usize; 256], b: usize) {
    for &k in src {
        let slot = &mut offs[k.byte(b)];
        dst[*slot] = k;
        *slot += 1;
    }
}

/// [`scatter`] moving a `u32` payload alongside each key.
#[inline(never)]
fn scatter_pairs<K: RadixKey>(
    sk: &[K],
    sv: &[u32],
    dk: &mut [K],
    dv: &mut [u32],
    offs: &mut [usize; 256],
    b: usize,
) {
    for (&k, &v) in sk.iter().zip(sv) {
        let slot = &mut offs[k.byte(b)];
        dk[*slot] = k;
        dv[*slot] = v;
        *slot += 1;
    }
}
