//! Random numbers: RngBitGenerator's ThreeFry and Philox streams, bit for bit XLA:CPU's (the
//! layout is documented in `xla_core::rng`, whose scalar code the tests compare against), and
//! RngUniform / RngNormal drawn from Philox.
//!
//! The block ciphers run on `wide::u32x8` lanes, ThreeFry with four vectors in flight
//! ([`block`]). Every
//! output depends only on its index, so the rayon split (by counter blocks of about
//! [`par::PAR_BLOCK_ELEMENTS`] outputs, [`par::rows`]) gives the same bits for any thread count.

use xla_core::rng as r;
use xla_core::RandomAlgorithm;

use crate::error::{element_count, KernelError};
use crate::fused::isa::{pick, run_widest, Pick};
use crate::par;

/// `f::<V, ..>(args)` with `V` the ThreeFry registers of the level [`pick`] chooses, inside a
/// function of that level (`wide::u32x8` as the build has it, else AVX2's or AVX-512's).
macro_rules! at_level {
    ($($f:ident)::+ ::<V, $t:ty>($($a:expr),*)) => {
        match pick() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `pick` found AVX2 (and FMA) on this CPU; `Avx2U32` runs nowhere else.
            Pick::Avx2 => unsafe {
                crate::cpu::run_avx2(
                    #[inline(always)]
                    || $($f)::+::<block::Avx2U32, $t>($($a),*),
                )
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `pick` found AVX-512F on this CPU; `Avx512U32` runs nowhere else.
            Pick::Avx512 => unsafe {
                crate::cpu::run_avx512(
                    #[inline(always)]
                    || $($f)::+::<block::Avx512U32, $t>($($a),*),
                )
            },
            _ => $($f)::+::<wide::u32x8, $t>($($a),*),
        }
    };
}

mod block;
mod draw;
#[cfg(test)]
mod tests;

pub use draw::{rng, Draw};

/// An output element of RngBitGenerator: the low `WIDTH` bits of a word, reinterpreted.
pub trait Bits: Copy + Send + Sync + Default {
    /// The element's width in bits.
    const WIDTH: u32;
    /// The element whose bits are the low `WIDTH` bits of `w`.
    fn from_word(w: u64) -> Self;
}

macro_rules! bits {
    ($($t:ty: $w:literal, |$x:ident| $e:expr;)*) => {
        $(impl Bits for $t {
            const WIDTH: u32 = $w;
            #[inline(always)]
            fn from_word($x: u64) -> Self { $e }
        })*
    };
}

bits! {
    u8: 8, |w| w as u8;
    i8: 8, |w| w as u8 as i8;
    u16: 16, |w| w as u16;
    i16: 16, |w| w as u16 as i16;
    u32: 32, |w| w as u32;
    i32: 32, |w| w as u32 as i32;
    u64: 64, |w| w;
    i64: 64, |w| w as i64;
    half::f16: 16, |w| half::f16::from_bits(w as u16);
    half::bf16: 16, |w| half::bf16::from_bits(w as u16);
    f32: 32, |w| f32::from_bits(w as u32);
    f64: 64, |w| f64::from_bits(w);
}

/// `RngBitGenerator(algorithm, state, dims)`: writes the bits into `out` (row-major, `dims`)
/// and the new state into `new_state` (the state's length). `Err` for a state that is not 2
/// words (ThreeFry) or 2 or 3 words (Philox, DEFAULT), or buffers of the wrong length.
pub fn bit_generator<T: Bits>(
    algorithm: RandomAlgorithm,
    state: &[u64],
    dims: &[usize],
    new_state: &mut [u64],
    out: &mut [T],
) -> Result<(), KernelError> {
    const OP: &str = "rng_bit_generator";
    let n = element_count(OP, dims)?;
    KernelError::check_len(OP, "out", n, out.len())?;
    KernelError::check_len(OP, "new_state", state.len(), new_state.len())?;
    let algorithm = r::resolve(algorithm);
    let sizes: &[usize] = match algorithm {
        RandomAlgorithm::ThreeFry => &[2],
        RandomAlgorithm::Philox | RandomAlgorithm::Default => &[2, 3],
    };
    if !sizes.contains(&state.len()) {
        return Err(KernelError::invalid(
            OP,
            format!("a {} state of {} words", algorithm.name(), state.len()),
        ));
    }
    let key = r::split64(state[0]);
    new_state.copy_from_slice(state);
    match algorithm {
        RandomAlgorithm::ThreeFry => {
            let c = state[1];
            let used = if T::WIDTH == 64 {
                par::rows(out, 1, |i0, o| {
                    at_level!(block::threefry_wide::<V, T>(key, c, i0, o))
                });
                n
            } else {
                threefry_pairs(key, c, dims, out)
            };
            new_state[1] = c.wrapping_add(used as u64);
        }
        RandomAlgorithm::Philox | RandomAlgorithm::Default => {
            let (lo, hi) = r::philox_counter(state);
            let per = if T::WIDTH == 64 { 2 } else { 4 };
            // Rows of one call's blocks: a task starts on a block boundary.
            let l = block::PHILOX_LANES;
            par::rows(out, l * per, |row, o| {
                run_widest(
                    #[inline(always)]
                    || block::philox_fill(key, lo, hi, row * l, o),
                )
            });
            // The counter advances by the blocks used (`xla_core::rng::philox_advance`, here
            // without its Vec: `into` does not allocate).
            let (nlo, carry) = lo.overflowing_add(n.div_ceil(per) as u64);
            new_state[1] = nlo;
            if let Some(h) = new_state.get_mut(2) {
                *h = hi.wrapping_add(u64::from(carry));
            }
        }
    }
    Ok(())
}

/// ThreeFry's outputs narrower than 64 bits: the pair rows of `xla_core::rng` (`[.., 2h, ..]`
/// and `[.., 2h + 1, ..]` of the split dimension, contiguous in memory) in tasks of whole pair
/// rows. Returns the number of blocks used (the counter's advance).
fn threefry_pairs<T: Bits>(key: [u32; 2], c: u64, dims: &[usize], out: &mut [T]) -> usize {
    let (outer, d, inner) = r::threefry_split(dims);
    let half = d.div_ceil(2);
    let pairs = outer * half;
    if out.is_empty() {
        return pairs * inner;
    }
    let geo = Pairs { half, d, inner };
    let parallel = 2 * pairs * inner >= par::PAR_MIN_ELEMENTS;
    let per_task = (par::PAR_BLOCK_ELEMENTS / (2 * inner)).max(1);
    split_pairs(key, c, &geo, (0, pairs), out, parallel, per_task);
    pairs * inner
}

/// The split dimension's geometry: `half = ceil(d / 2)` pairs of rows of `inner` elements.
struct Pairs {
    half: usize,
    d: usize,
    inner: usize,
}

impl Pairs {
    /// Where pair row `q` starts in the output.
    fn start(&self, q: usize) -> usize {
        (q / self.half) * self.d * self.inner + 2 * (q % self.half) * self.inner
    }
}

/// Pair rows `q0..q1` into `out` (which starts at pair row `q0`), halved on rayon down to
/// `per_task` pair rows: no allocation, the split depends on sizes only.
fn split_pairs<T: Bits>(
    key: [u32; 2],
    c: u64,
    geo: &Pairs,
    (q0, q1): (usize, usize),
    out: &mut [T],
    parallel: bool,
    per_task: usize,
) {
    if !parallel || q1 - q0 <= per_task {
        let g = (geo.half, geo.d, geo.inner);
        at_level!(block::threefry_pair_rows::<V, T>(key, c, (q0, q1), g, out));
        return;
    }
    let mid = q0 + (q1 - q0) / 2;
    let (lo, hi) = out.split_at_mut(geo.start(mid) - geo.start(q0));
    rayon::join(
        || split_pairs(key, c, geo, (q0, mid), lo, parallel, per_task),
        || split_pairs(key, c, geo, (mid, q1), hi, parallel, per_task),
    );
}
