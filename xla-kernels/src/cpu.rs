//! Which vector instruction set the kernels may use, decided once per process at run time.
//!
//! A default `cargo build` targets plain x86-64 (SSE2), so code compiled for the build's own
//! target features (the `wide` vectors of [`crate::simd`]) runs on SSE2 even on a CPU with
//! AVX-512. Kernels that matter (today the f32/f64 GEMM) also carry code compiled for wider
//! instruction sets with `#[target_feature]`, and pick it by [`level`].
//!
//! [`level`] is the widest [`IsaLevel`] the CPU (and OS) supports, capped by the environment
//! variable `XLA_KERNELS_MAX_ISA` (`sse2`, `avx2`, `avx512` or `amx`), which lets every path be
//! tested on one machine with the widest one. An empty value is the same as none; an unknown
//! one selects [`IsaLevel::Baseline`] and prints one line naming the accepted values on stderr.
//!
//! Results may differ between levels only where a level fuses a multiply-add (FMA) that the
//! baseline of a default build rounds twice: the kernels keep one summation order for all.
//! The one exception is the bf16 GEMM at [`IsaLevel::Amx`]: AMX's `tdpbf16ps` sums pairs of
//! products in its own internal order and treats subnormal inputs and results as zero, so its
//! f32 sums may differ from the other levels' in the last bits (see `gemm::amx`).
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
    /// AMX tiles for s8 and bf16 products (AMX-TILE, AMX-INT8, AMX-BF16, with the Linux
    /// kernel's permission to use tile data), in addition to AVX-512F (x86-64 Linux only).
    Amx,
}

impl IsaLevel {
    /// Every level, narrowest first.
    pub const ALL: [IsaLevel; 4] = [
        IsaLevel::Baseline,
        IsaLevel::Avx2,
        IsaLevel::Avx512,
        IsaLevel::Amx,
    ];

    /// The value of `XLA_KERNELS_MAX_ISA` that caps at this level.
    pub fn name(self) -> &'static str {
        match self {
            IsaLevel::Baseline => "sse2",
            IsaLevel::Avx2 => "avx2",
            IsaLevel::Avx512 => "avx512",
            IsaLevel::Amx => "amx",
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
                    "xla-kernels: XLA_KERNELS_MAX_ISA={s:?} is not one of sse2, avx2, avx512, amx; \
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
    let avx512 = avx2 && is_x86_feature_detected!("avx512f");
    if avx512 && amx::usable() {
        IsaLevel::Amx
    } else if avx512 {
        IsaLevel::Avx512
    } else if avx2 {
        IsaLevel::Avx2
    } else {
        IsaLevel::Baseline
    }
}

/// AMX's detection: the CPU's flags, the OS's state-saving support, and the Linux kernel's
/// permission for this process to use tile data (tile registers are 8 KiB of state that Linux
/// saves only for processes that ask first).
#[cfg(target_arch = "x86_64")]
mod amx {
    use core::arch::x86_64::__cpuid_count;

    /// `arch_prctl` operation asking for permission to use an extended state component.
    #[cfg(target_os = "linux")]
    const ARCH_REQ_XCOMP_PERM: u64 = 0x1023;
    /// The extended state component of the tile data (XCR0 bit 18).
    const XFEATURE_XTILEDATA: u64 = 18;

    /// Whether AMX-TILE, AMX-INT8 and AMX-BF16 (with AVX-512BW, VNNI and BF16 for the code
    /// around the tiles) are there and this process may use them (asked once).
    pub(super) fn usable() -> bool {
        // `cpuid` exists on every x86-64 CPU (a safe function since Rust 1.87); leaf 7 and
        // 0xd exist when leaf 0 reports them.
        let max_leaf = __cpuid_count(0, 0).eax;
        if max_leaf < 0xd {
            return false;
        }
        // Leaf 7 sub-leaf 0: structured extended features.
        let edx = __cpuid_count(7, 0).edx;
        let (bf16, tile, int8) = (edx >> 22 & 1, edx >> 24 & 1, edx >> 25 & 1);
        let vectors = is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
            && is_x86_feature_detected!("avx512bf16")
            && is_x86_feature_detected!("xsave");
        vectors && bf16 & tile & int8 == 1 && os_saves_tiles() && permitted()
    }

    /// XCR0 bits 17 (tile configuration) and 18 (tile data): the OS saves tile state on a
    /// context switch.
    fn os_saves_tiles() -> bool {
        #[target_feature(enable = "xsave")]
        fn xcr0() -> u64 {
            // SAFETY: `xgetbv` with ECX = 0 is valid whenever XSAVE is on (checked by the
            // caller through `is_x86_feature_detected!("xsave")`, which includes OSXSAVE).
            unsafe { core::arch::x86_64::_xgetbv(0) }
        }
        // SAFETY: `usable` checked XSAVE first.
        let x = unsafe { xcr0() };
        x >> 17 & 3 == 3
    }

    /// Asks Linux for tile data (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`,
    /// Linux 5.16 and later): the permission is per process, and granted again harmlessly.
    #[cfg(target_os = "linux")]
    fn permitted() -> bool {
        let ret: i64;
        // SAFETY: the `arch_prctl` system call (158 on x86-64) with an operation that only
        // changes which state components this process may use; it reads and writes no user
        // memory. `syscall` clobbers rcx and r11, declared below.
        unsafe {
            core::arch::asm!(
                "syscall",
                inlateout("rax") 158i64 => ret,
                in("rdi") ARCH_REQ_XCOMP_PERM,
                in("rsi") XFEATURE_XTILEDATA,
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack),
            );
        }
        ret == 0
    }

    /// Without Linux's permission call, tile data would fault: AMX stays off.
    #[cfg(not(target_os = "linux"))]
    fn permitted() -> bool {
        let _ = XFEATURE_XTILEDATA;
        false
    }
}

/// `f()` compiled with AVX2 and FMA: closures inlined into it use them (the GEMM's tokens,
/// `fused::isa`). Unsafe to call unless the CPU has both ([`supported`] `>= Avx2`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn run_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()` compiled with AVX-512F, AVX2 and FMA (as [`run_avx2`]; the CPU must have them).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
pub(crate) fn run_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
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
        assert!(IsaLevel::Avx512 < IsaLevel::Amx);
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
        assert!(warned.contains("\"avx3\"") && warned.contains("sse2, avx2, avx512, amx"));
        assert_eq!(
            capped(IsaLevel::Amx, Some("avx512"), no_warn),
            IsaLevel::Avx512
        );
    }

    #[test]
    fn level_is_within_what_the_cpu_supports() {
        assert!(level() <= supported());
        #[cfg(target_arch = "x86_64")]
        if supported() >= IsaLevel::Avx512 {
            assert!(is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("fma"));
        }
        // AMX is found exactly where /proc/cpuinfo lists its three flags (the kernel lists
        // them only when it supports the tile state).
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        {
            let info = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
            let flags = info.lines().find(|l| l.starts_with("flags")).unwrap_or("");
            let has = |f: &str| flags.split_whitespace().any(|w| w == f);
            let listed = has("avx512f") && has("amx_tile") && has("amx_int8") && has("amx_bf16");
            assert_eq!(supported() == IsaLevel::Amx, listed, "flags: {flags}");
        }
    }
}
