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
    let mut worst = (0u64, V::Elem::ZERO);
    for chunk in xs.chunks(V::LANES) {
        let got = vf(V::load_partial(chunk, V::Elem::ZERO));
        for (i, &x) in chunk.iter().enumerate() {
            let (g, w) = (got.lane(i), sf(x));
            check_special(g, w, || format!("{name}({x:e})"));
            let d = ulp_diff(g, w);
            if d > worst.0 {
                worst = (d, x);
            }
        }
    }
    println!(
        "{} {name} ({} lanes): max {} ulp at x = {:e}",
        core::any::type_name::<V::Elem>(),
        V::LANES,
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
    let mut worst = (0u64, V::Elem::ZERO, V::Elem::ZERO);
    for chunk in ps.chunks(V::LANES) {
        let xs: Vec<V::Elem> = chunk.iter().map(|p| p.0).collect();
        let ys: Vec<V::Elem> = chunk.iter().map(|p| p.1).collect();
        let one = V::Elem::ONE;
        let got = vf(V::load_partial(&xs, one), V::load_partial(&ys, one));
        for (i, &(x, y)) in chunk.iter().enumerate() {
            let (g, w) = (got.lane(i), sf(x, y));
            check_special(g, w, || format!("{name}({x:e}, {y:e})"));
            let d = ulp_diff(g, w);
            if d > worst.0 {
                worst = (d, x, y);
            }
        }
    }
    println!(
        "{} {name} ({} lanes): max {} ulp at ({:e}, {:e})",
        core::any::type_name::<V::Elem>(),
        V::LANES,
        worst.0,
        worst.1,
        worst.2
    );
    worst.0
}
