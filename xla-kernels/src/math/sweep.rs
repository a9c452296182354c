//! Test helpers shared by the f32 and f64 sweeps: the ulp distance, and the max error of a
//! vector function against the scalar op over many inputs (one or two arguments).

use core::fmt::LowerExp;

use crate::simd::VFloat;

/// What the sweeps need of a lane type (`f32`, `f64`).
pub(crate) trait SweepFloat: Copy + LowerExp {
    const ZERO: Self;
    const ONE: Self;
    /// Position on the line of floats ordered by value: consecutive floats are consecutive
    /// integers, -0 and +0 both 0.
    fn ordinal(self) -> i128;
    fn nan(self) -> bool;
    /// Non-finite or zero: results the sweeps require bit for bit (sign of zero included).
    fn special(self) -> bool;
    fn bits(self) -> u64;
}

macro_rules! impl_sweep_float {
    ($t:ty, $sign:expr) => {
        impl SweepFloat for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn ordinal(self) -> i128 {
                let b = self.to_bits() as i128;
                if b & $sign != 0 {
                    -(b & ($sign - 1))
                } else {
                    b
                }
            }
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn special(self) -> bool {
                !self.is_finite() || self == 0.0
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
        }
    };
}

impl_sweep_float!(f32, 1 << 31);
impl_sweep_float!(f64, 1 << 63);

/// Distance in ulp between two floats (0 for two NaNs, `u64::MAX` for NaN vs number).
pub(crate) fn ulp_diff<T: SweepFloat>(a: T, b: T) -> u64 {
    match (a.nan(), b.nan()) {
        (true, true) => 0,
        (true, false) | (false, true) => u64::MAX,
        (false, false) => (a.ordinal() - b.ordinal()).unsigned_abs() as u64,
    }
}

/// Asserts that a special result `w` (non-finite or zero) is matched exactly by `g`.
fn check_special<T: SweepFloat>(g: T, w: T, call: impl FnOnce() -> String) {
    if w.special() {
        assert!(
            g.bits() == w.bits() || (g.nan() && w.nan()),
            "{} = {g:e}, want exactly {w:e}",
            call()
        );
    }
}

/// Max ulp error of `vf` (on vectors of `V`) against `sf` over `xs`; asserts that special
/// results (non-finite or zero) match exactly, sign of zero included.
pub(crate) fn sweep<V: VFloat>(
    name: &str,
    xs: &[V::Elem],
    vf: fn(V) -> V,
    sf: fn(V::Elem) -> V::Elem,
) -> u64
where
    V::Elem: SweepFloat,
{
    let mut got = vec![V::Elem::ZERO; xs.len()];
    for (c, o) in xs.chunks(V::LANES).zip(got.chunks_mut(V::LANES)) {
        vf(V::load_partial(c, V::Elem::ZERO)).store_partial(o);
    }
    max_error(&format!("{name} ({} lanes)", V::LANES), xs, &got, sf)
}

/// Max ulp error of results `got[i]` against `sf(xs[i])`, special results required exactly
/// (as [`sweep`]); prints the worst case under `label`.
pub(crate) fn max_error<T: SweepFloat>(label: &str, xs: &[T], got: &[T], sf: fn(T) -> T) -> u64 {
    assert_eq!(xs.len(), got.len());
    let mut worst = (0u64, T::ZERO);
    for (&x, &g) in xs.iter().zip(got) {
        let w = sf(x);
        check_special(g, w, || format!("{label}: f({x:e})"));
        let d = ulp_diff(g, w);
        if d > worst.0 {
            worst = (d, x);
        }
    }
    println!(
        "{} {label}: max {} ulp at x = {:e}",
        core::any::type_name::<T>(),
        worst.0,
        worst.1
    );
    worst.0
}

/// [`sweep`] for a function of two arguments over the pairs `ps`.
pub(crate) fn sweep2<V: VFloat>(
    name: &str,
    ps: &[(V::Elem, V::Elem)],
    vf: fn(V, V) -> V,
    sf: fn(V::Elem, V::Elem) -> V::Elem,
) -> u64
where
    V::Elem: SweepFloat,
{
    let mut got = vec![V::Elem::ZERO; ps.len()];
    for (c, o) in ps.chunks(V::LANES).zip(got.chunks_mut(V::LANES)) {
        let xs: Vec<V::Elem> = c.iter().map(|p| p.0).collect();
        let ys: Vec<V::Elem> = c.iter().map(|p| p.1).collect();
        let one = V::Elem::ONE;
        vf(V::load_partial(&xs, one), V::load_partial(&ys, one)).store_partial(o);
    }
    max_error2(&format!("{name} ({} lanes)", V::LANES), ps, &got, sf)
}

/// [`max_error`] for a function of two arguments over the pairs `ps`.
pub(crate) fn max_error2<T: SweepFloat>(
    label: &str,
    ps: &[(T, T)],
    got: &[T],
    sf: fn(T, T) -> T,
) -> u64 {
    assert_eq!(ps.len(), got.len());
    let mut worst = (0u64, T::ZERO, T::ZERO);
    for (&(x, y), &g) in ps.iter().zip(got) {
        let w = sf(x, y);
        check_special(g, w, || format!("{label}: f({x:e}, {y:e})"));
        let d = ulp_diff(g, w);
        if d > worst.0 {
            worst = (d, x, y);
        }
    }
    println!(
        "{} {label}: max {} ulp at ({:e}, {:e})",
        core::any::type_name::<T>(),
        worst.0,
        worst.1,
        worst.2
    );
    worst.0
}
