//! Which vector instruction set the kernels may use, decided once per process at run time.
//!
//! A default `cargo build` targets plain x86-64 (SSE2), so code compiled for the build's own
//! target features (the `wide` vectors of [`crate::simd`]) runs on SSE2 even on a CPU with
//! AVX-512. Kernels that matter (today the f32/f64 GEMM) also carry code compiled for wider
//! instruction sets with `#[target_feature]`, and pick it by [`level`].
//!
//! [`level`] is the widest [`IsaLevel`] the CPU (and OS) supports, capped by the environment
//! variable `XLA_KERNELS_MAX_ISA` (`sse2`, `avx2` or `avx512`), which lets every path be
//! tested on one machine with the widest one. An empty value is the same as none; an unknown
//! one selects [`IsaLevel::Baseline`] and prints one line naming the accepted values on stderr.
//!
//! Results may differ between levels only where a level fuses a multiply-add (FMA) that the
//! baseline of a default build rounds twice: the kernels keep one summation order for all.
//! On targets other than x86-64 the level is always [`IsaLevel::Baseline`].

use std::sync::OnceLock;

/// Instruction-set levels, ordered: a level includes everything below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IsaLevel {
    /// The build's own target features (SSE2 in a default x86-64 build): the portable path.
    Baseline,
    /// AVX2 and FMA (x86-64 only).
    Avx2,
    /// AVX-512F, in addition to AVX2 and FMA (x86-64 only).
    Avx512,
}

impl IsaLevel {
    /// Every level, narrowest first.
    pub const ALL: [IsaLevel; 3] = [IsaLevel::Baseline, IsaLevel::Avx2, IsaLevel::Avx512];

    /// The value of `XLA_KERNELS_MAX_ISA` that caps at this level.
    pub fn name(self) -> &'static str {
        match self {
            IsaLevel::Baseline => "sse2",
            IsaLevel::Avx2 => "avx2",
            IsaLevel::Avx512 => "avx512",
        }
    }

    /// The level named `s` (one of [`IsaLevel::name`], any case), or `None`.
    pub fn parse(s: &str) -> Option<IsaLevel> {
        IsaLevel::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// The level kernels use: [`supported`] capped by `XLA_KERNELS_MAX_ISA` (computed on the
/// first call, then cached).
pub fn level() -> IsaLevel {
    static LEVEL: OnceLock<IsaLevel> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = std::env::var("XLA_KERNELS_MAX_ISA").ok();
        capped(supported(), cap.as_deref(), |msg| eprintln!("{msg}"))
    })
}

/// `hw` capped by the value `cap` of `XLA_KERNELS_MAX_ISA` (`None` or empty: unset); an
/// unknown value gives [`IsaLevel::Baseline`] and one message through `warn`.
fn capped(hw: IsaLevel, cap: Option<&str>, warn: impl FnOnce(String)) -> IsaLevel {
    match cap {
        None => hw,
        Some(s) if s.trim().is_empty() => hw,
        Some(s) => match IsaLevel::parse(s) {
            Some(l) => hw.min(l),
            None => {
                warn(format!(
                    "xla-kernels: XLA_KERNELS_MAX_ISA={s:?} is not one of sse2, avx2, avx512; \
                     using the baseline (sse2)"
                ));
                IsaLevel::Baseline
            }
        },
    }
}

/// The widest level this CPU and OS support, ignoring `XLA_KERNELS_MAX_ISA` (cached).
pub fn supported() -> IsaLevel {
    static HW: OnceLock<IsaLevel> = OnceLock::new();
    *HW.get_or_init(detect)
}

/// Asks the CPU (through std's cached `cpuid`/`xgetbv` checks, which include OS support for
/// the wider registers).
#[cfg(target_arch = "x86_64")]
fn detect() -> IsaLevel {
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    if avx2 && is_x86_feature_detected!("avx512f") {
        IsaLevel::Avx512
    } else if avx2 {
        IsaLevel::Avx2
    } else {
        IsaLevel::Baseline
    }
}

/// Other targets have only the portable path.
#[cfg(not(target_arch = "x86_64"))]
fn detect() -> IsaLevel {
    IsaLevel::Baseline
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order() {
        for l in IsaLevel::ALL {
            assert_eq!(IsaLevel::parse(l.name()), Some(l));
            assert_eq!(IsaLevel::parse(&l.name().to_uppercase()), Some(l));
        }
        assert!(IsaLevel::Baseline < IsaLevel::Avx2 && IsaLevel::Avx2 < IsaLevel::Avx512);
        assert_eq!(IsaLevel::parse("avx"), None);
    }

    #[test]
    fn cap_lowers_never_raises_and_unknown_is_baseline() {
        let no_warn = |m: String| panic!("unexpected warning {m}");
        assert_eq!(capped(IsaLevel::Avx512, None, no_warn), IsaLevel::Avx512);
        assert_eq!(
            capped(IsaLevel::Avx512, Some(""), no_warn),
            IsaLevel::Avx512
        );
        assert_eq!(
            capped(IsaLevel::Avx512, Some("avx2"), no_warn),
            IsaLevel::Avx2
        );
        assert_eq!(
            capped(IsaLevel::Avx2, Some("avx512"), no_warn),
            IsaLevel::Avx2
        );
        assert_eq!(
            capped(IsaLevel::Avx2, Some("sse2"), no_warn),
            IsaLevel::Baseline
        );
        let mut warned = String::new();
        let l = capped(IsaLevel::Avx512, Some("avx3"), |m| warned = m);
        assert_eq!(l, IsaLevel::Baseline);
        assert!(warned.contains("\"avx3\"") && warned.contains("sse2, avx2, avx512"));
    }

    #[test]
    fn level_is_within_what_the_cpu_supports() {
        assert!(level() <= supported());
        #[cfg(target_arch = "x86_64")]
        if supported() >= IsaLevel::Avx512 {
            assert!(is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("fma"));
        }
    }
}
