//! One real-data transform along a row: RFFT's real-to-complex and IRFFT's complex-to-real of
//! length `n`, on a rustfft plan.
//!
//! Even `n` runs one complex FFT of length `m = n/2` on `z[j] = x[2j] + i x[2j+1]` and pairs
//! its bins: with `A = Z[k]`, `B = conj(Z[m-k])`, `w = e^(-2 pi i / n)`,
//! `X[k] = E + T` and `X[m-k] = conj(E - T)` where `E = (A + B)/2` and `T = -i w^k (A - B)/2`
//! (`X[0]`, `X[m]` = `Re Z[0] +- Im Z[0]`). The inverse runs the same butterfly backwards
//! (`E = A + B`, `T = i conj(w^k) (A - B)` from `A = X[k]`, `B = conj(X[m-k])`), an inverse FFT
//! of length `m`, and scales by `1/n`. Odd `n` transforms the whole row as complex data.
//!
//! Why not `realfft`: its pairing loop is generic code compiled for the build (SSE2 scalar in
//! a default build, scalar AVX in a native one); this one is vectorized on the GEMM's tokens at
//! the CPU's level, and RFFT transforms in place in its output row (no copy of the input row).
//! Measured on the 2-core AVX-512 Xeon (`BENCH_BUILD=both bash scripts/bench.sh kernels fft`,
//! RFFT f32[64,4096], two alternating runs): default build 148-183 -> 96-100 us, native build
//! 126-133 -> 93-95 us (XLA 265-300 us). The vector and scalar butterflies do the same
//! operations in the same order (no fused multiply-adds), so every level gives the same bits.

use std::sync::Arc;

use num_complex::Complex;
use rustfft::{Fft, FftDirection, FftPlanner};

use super::FftFloat;
use crate::cpu;
use crate::gemm::Isa;

/// The transform of one row of length `n` (forward real-to-complex or inverse
/// complex-to-real), with its complex plan and twiddles.
pub(super) struct RealFft<T: FftFloat> {
    n: usize,
    inverse: bool,
    /// Length `n/2` (even `n`) or `n` (odd `n`), in the transform's direction.
    fft: Arc<dyn Fft<T>>,
    /// Even `n`: the butterfly's twiddle `t_k` for `k = 1..=m/2`, each part twice (`[re, re]`,
    /// `[im, im]`): one vector of them multiplies interleaved `(re, im)` lanes.
    tw_re: Vec<T>,
    tw_im: Vec<T>,
}

/// `c` as its real and imaginary parts in turn.
fn reals<T>(c: &[Complex<T>]) -> &[T] {
    // SAFETY: `Complex<T>` is `#[repr(C)] { re: T, im: T }` (num-complex documents the layout
    // as that of `[T; 2]`), so `c` is `2 * c.len()` initialised `T`s at the same address, with
    // `T`'s alignment; the result borrows `c`.
    unsafe { core::slice::from_raw_parts(c.as_ptr().cast::<T>(), 2 * c.len()) }
}

/// [`reals`] for writing.
fn reals_mut<T>(c: &mut [Complex<T>]) -> &mut [T] {
    // SAFETY: as in `reals`; the result borrows `c` mutably, so nothing else sees it meanwhile,
    // and every bit pattern of two `T`s is a valid `Complex<T>`.
    unsafe { core::slice::from_raw_parts_mut(c.as_mut_ptr().cast::<T>(), 2 * c.len()) }
}

impl<T: FftFloat> RealFft<T> {
    /// The forward (`inverse == false`, RFFT) or inverse (IRFFT, scaled by `1/n`) transform
    /// of rows of length `n >= 1`.
    pub(super) fn new(n: usize, inverse: bool, planner: &mut FftPlanner<T>) -> Self {
        let direction = if inverse {
            FftDirection::Inverse
        } else {
            FftDirection::Forward
        };
        let len = if n.is_multiple_of(2) { n / 2 } else { n };
        let (mut tw_re, mut tw_im) = (Vec::new(), Vec::new());
        if n.is_multiple_of(2) {
            for k in 1..=n / 4 {
                let theta = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                // Forward: -i w^k / 2; inverse: i conj(w^k).
                let (re, im) = if inverse {
                    (-theta.sin(), theta.cos())
                } else {
                    (-theta.sin() / 2.0, -theta.cos() / 2.0)
                };
                let (re, im) = (from_f64::<T>(re), from_f64::<T>(im));
                tw_re.extend([re, re]);
                tw_im.extend([im, im]);
            }
        }
        RealFft {
            n,
            inverse,
            fft: planner.plan_fft(len, direction),
            tw_re,
            tw_im,
        }
    }

    /// Complex scratch elements [`Self::r2c`] / [`Self::c2r`] need.
    pub(super) fn scratch_len(&self) -> usize {
        let inner = self.fft.get_inplace_scratch_len();
        match (self.n.is_multiple_of(2), self.inverse) {
            (true, false) => inner,
            (true, true) => self.n / 2 + inner,
            (false, _) => self.n + inner,
        }
    }

    /// `y[k] = sum_j x[j] e^(-2 pi i j k / n)` for `k = 0..=n/2` (`x`: `n` reals, `y`:
    /// `n/2 + 1` bins).
    pub(super) fn r2c(&self, x: &[T], y: &mut [Complex<T>], scratch: &mut [Complex<T>]) {
        let n = self.n;
        debug_assert!(!self.inverse && x.len() == n && y.len() == n / 2 + 1);
        if n % 2 == 1 {
            let (buf, rest) = scratch.split_at_mut(n);
            for (b, &v) in buf.iter_mut().zip(x) {
                *b = Complex::new(v, T::zero());
            }
            self.fft.process_with_scratch(buf, rest);
            y.copy_from_slice(&buf[..n / 2 + 1]);
            return;
        }
        let m = n / 2;
        reals_mut(&mut y[..m]).copy_from_slice(x);
        self.fft.process_with_scratch(&mut y[..m], scratch);
        let z0 = y[0];
        y[0] = Complex::new(z0.re + z0.im, T::zero());
        y[m] = Complex::new(z0.re - z0.im, T::zero());
        T::pairs(
            cpu::level(),
            &mut y[1..m],
            &self.tw_re,
            &self.tw_im,
            from_f64(0.5),
        );
    }

    /// `y[j] = (1/n) sum_k X[k] e^(2 pi i j k / n)` over the Hermitian spectrum of `x`
    /// (`n/2 + 1` bins; the imaginary parts of bins 0 and `n/2` are taken as zero, as XLA).
    pub(super) fn c2r(&self, x: &[Complex<T>], y: &mut [T], scratch: &mut [Complex<T>]) {
        let n = self.n;
        debug_assert!(self.inverse && y.len() == n && x.len() == n / 2 + 1);
        let scale = T::one() / super::from_usize::<T>(n);
        if n % 2 == 1 {
            let (buf, rest) = scratch.split_at_mut(n);
            buf[0] = Complex::new(x[0].re, T::zero());
            for k in 1..=n / 2 {
                buf[k] = x[k];
                buf[n - k] = x[k].conj();
            }
            self.fft.process_with_scratch(buf, rest);
            for (o, b) in y.iter_mut().zip(buf.iter()) {
                *o = b.re * scale;
            }
            return;
        }
        let m = n / 2;
        let (buf, rest) = scratch.split_at_mut(m);
        buf[0] = Complex::new(x[0].re + x[m].re, x[0].re - x[m].re);
        buf[1..].copy_from_slice(&x[1..m]);
        T::pairs(
            cpu::level(),
            &mut buf[1..],
            &self.tw_re,
            &self.tw_im,
            T::one(),
        );
        self.fft.process_with_scratch(buf, rest);
        for (o, &v) in y.iter_mut().zip(reals(buf)) {
            *o = v * scale;
        }
    }
}

fn from_f64<T: FftFloat>(v: f64) -> T {
    T::from_f64(v).unwrap_or_else(T::zero)
}

/// The butterflies of bins `1..m` (`io`, `m - 1` of them, in place): bin `k` with bin `m - k`
/// (the middle one of even `m` with itself), `t_k` from `tw_re` / `tw_im` (see [`RealFft`]),
/// `E` scaled by `half`: whole vectors of `LANES / 2` pairs with token `s`, inside its
/// instruction set's function, then the rest one at a time.
pub(super) fn pairs_on<S: Complexes>(
    s: S,
    io: &mut [Complex<S::E>],
    tw_re: &[S::E],
    tw_im: &[S::E],
    half: S::E,
) where
    S::E: FftFloat,
{
    s.vectorize(
        #[inline(always)]
        move || {
            let (left, middle, right) = thirds(io);
            let h = left.len();
            let l = S::LANES / 2;
            let conj = s.load(&conj_signs::<S::E>());
            let neg_re = s.sub(s.splat(<S::E as num_traits::Zero>::zero()), conj);
            let scale = s.splat(half);
            let mut j = 0;
            while j + l <= h {
                let a = s.load(&reals(left)[2 * j..]);
                let r = s.reverse(s.load(&reals(right)[2 * (h - j - l)..]));
                let b = s.mul(r, conj);
                let e = s.mul(s.add(a, b), scale);
                let d = s.sub(a, b);
                let (tr, ti) = (s.load(&tw_re[2 * j..]), s.load(&tw_im[2 * j..]));
                let t = s.add(s.mul(tr, d), s.mul(s.mul(ti, s.swap(d)), neg_re));
                s.store(s.add(e, t), &mut reals_mut(left)[2 * j..]);
                let back = s.reverse(s.mul(s.sub(e, t), conj));
                s.store(back, &mut reals_mut(right)[2 * (h - j - l)..]);
                j += l;
            }
            rest(left, middle, right, j, tw_re, tw_im, half);
        },
    )
}

/// [`pairs_on`] one pair at a time (the same bits).
pub(super) fn pairs_scalar<T: FftFloat>(io: &mut [Complex<T>], tw_re: &[T], tw_im: &[T], half: T) {
    let (left, middle, right) = thirds(io);
    rest(left, middle, right, 0, tw_re, tw_im, half);
}

/// `io` as bins `1..=h`, the middle bin (if any) and bins `m-h..m` (`h = (m - 1) / 2`).
#[allow(clippy::type_complexity)]
fn thirds<T>(io: &mut [Complex<T>]) -> (&mut [Complex<T>], &mut [Complex<T>], &mut [Complex<T>]) {
    let len = io.len();
    let h = len / 2;
    let (left, rest) = io.split_at_mut(h);
    let (middle, right) = rest.split_at_mut(len - 2 * h);
    (left, middle, right)
}

/// The vector operations of the butterflies beyond [`Isa`]'s, on interleaved `(re, im)`
/// lanes (`LANES / 2` complex numbers per vector).
pub(crate) trait Complexes: Isa {
    /// `a * b` lane by lane.
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// The complex numbers in reverse order (each kept whole).
    fn reverse(self, v: Self::V) -> Self::V;
    /// Real and imaginary parts swapped in every complex number.
    fn swap(self, v: Self::V) -> Self::V;
}

/// Signs `[1, -1, 1, -1, ...]`: times a vector, its complex conjugate.
fn conj_signs<T: FftFloat>() -> [T; 16] {
    core::array::from_fn(|i| if i % 2 == 0 { T::one() } else { -T::one() })
}

/// Pairs `j0..h` of [`thirds`] and the middle bin, one at a time.
#[inline(always)]
fn rest<T: FftFloat>(
    left: &mut [Complex<T>],
    middle: &mut [Complex<T>],
    right: &mut [Complex<T>],
    j0: usize,
    tw_re: &[T],
    tw_im: &[T],
    half: T,
) {
    let h = left.len();
    for j in j0..h {
        let (x, y) = one(left[j], right[h - 1 - j], tw_re[2 * j], tw_im[2 * j], half);
        left[j] = x;
        right[h - 1 - j] = y;
    }
    if let Some(c) = middle.first_mut() {
        *c = one(*c, *c, tw_re[2 * h], tw_im[2 * h], half).0;
    }
}

/// One butterfly: `(E + T, conj(E - T))` with `B = conj(r)`, `E = (a + B) half`,
/// `T = t (a - B)`, written as the vector loop computes it.
#[inline(always)]
fn one<T: FftFloat>(
    a: Complex<T>,
    r: Complex<T>,
    tr: T,
    ti: T,
    half: T,
) -> (Complex<T>, Complex<T>) {
    let b = Complex::new(r.re, -r.im);
    let e = Complex::new((a.re + b.re) * half, (a.im + b.im) * half);
    let d = Complex::new(a.re - b.re, a.im - b.im);
    let t = Complex::new(tr * d.re + -(ti * d.im), tr * d.im + ti * d.re);
    (
        Complex::new(e.re + t.re, e.im + t.im),
        Complex::new(e.re - t.re, -(e.im - t.im)),
    )
}
