//! Element types: XLA's `PrimitiveType` for arrays, and the Rust types that carry them.

use std::fmt;

/// An XLA array element type (HLO-text name in parentheses of each variant's doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    /// `pred`: boolean.
    Pred,
    /// `s8`: 8-bit two's-complement integer (`i8`).
    S8,
    /// `s16`: 16-bit two's-complement integer (`i16`).
    S16,
    /// `s32`: 32-bit two's-complement integer (`i32`).
    S32,
    /// `s64`: 64-bit two's-complement integer (`i64`).
    S64,
    /// `u8`: 8-bit unsigned integer.
    U8,
    /// `u16`: 16-bit unsigned integer.
    U16,
    /// `u32`: 32-bit unsigned integer.
    U32,
    /// `u64`: 64-bit unsigned integer.
    U64,
    /// `f16`: IEEE half.
    F16,
    /// `bf16`: bfloat16.
    Bf16,
    /// `f32`: IEEE 754 binary32.
    F32,
    /// `f64`: IEEE 754 binary64.
    F64,
    /// `c64`: complex of two f32.
    C64,
    /// `c128`: complex of two f64.
    C128,
}

impl ElementType {
    /// Every element type, in declaration order.
    pub const ALL: [ElementType; 15] = [
        Self::Pred,
        Self::S8,
        Self::S16,
        Self::S32,
        Self::S64,
        Self::U8,
        Self::U16,
        Self::U32,
        Self::U64,
        Self::F16,
        Self::Bf16,
        Self::F32,
        Self::F64,
        Self::C64,
        Self::C128,
    ];

    /// HLO-text name: `f32`, `pred`, `bf16`, `c64`...
    pub fn name(self) -> &'static str {
        match self {
            Self::Pred => "pred",
            Self::S8 => "s8",
            Self::S16 => "s16",
            Self::S32 => "s32",
            Self::S64 => "s64",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
            Self::F16 => "f16",
            Self::Bf16 => "bf16",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::C64 => "c64",
            Self::C128 => "c128",
        }
    }

    /// Parse an HLO-text name (`f32`, `pred`, ...).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|t| t.name() == s)
    }

    /// MLIR / StableHLO element type: `i1`, `i32`, `ui8`, `bf16`, `complex<f32>`.
    pub fn mlir_name(self) -> &'static str {
        match self {
            Self::Pred => "i1",
            Self::S8 => "i8",
            Self::S16 => "i16",
            Self::S32 => "i32",
            Self::S64 => "i64",
            Self::U8 => "ui8",
            Self::U16 => "ui16",
            Self::U32 => "ui32",
            Self::U64 => "ui64",
            Self::F16 => "f16",
            Self::Bf16 => "bf16",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::C64 => "complex<f32>",
            Self::C128 => "complex<f64>",
        }
    }

    /// The Rust type that stores one element, as a path usable from generated code.
    pub fn rust_type(self) -> &'static str {
        match self {
            Self::Pred => "bool",
            Self::S8 => "i8",
            Self::S16 => "i16",
            Self::S32 => "i32",
            Self::S64 => "i64",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
            Self::F16 => "::xla_aot::__rt::half::f16",
            Self::Bf16 => "::xla_aot::__rt::half::bf16",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::C64 => "::xla_aot::__rt::num_complex::Complex<f32>",
            Self::C128 => "::xla_aot::__rt::num_complex::Complex<f64>",
        }
    }

    /// Storage width in bits (pred is stored in 8).
    pub fn bit_width(self) -> u32 {
        match self {
            Self::Pred | Self::S8 | Self::U8 => 8,
            Self::S16 | Self::U16 | Self::F16 | Self::Bf16 => 16,
            Self::S32 | Self::U32 | Self::F32 => 32,
            Self::S64 | Self::U64 | Self::F64 | Self::C64 => 64,
            Self::C128 => 128,
        }
    }

    /// Storage width in bytes.
    pub fn byte_width(self) -> usize {
        self.bit_width() as usize / 8
    }

    /// True for `pred` (booleans).
    pub fn is_pred(self) -> bool {
        self == Self::Pred
    }

    /// Signed integers `s8..s64`.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Self::S8 | Self::S16 | Self::S32 | Self::S64)
    }

    /// Unsigned integers `u8..u64`.
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, Self::U8 | Self::U16 | Self::U32 | Self::U64)
    }

    /// Signed or unsigned integers (not pred).
    pub fn is_integral(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    /// Real floating point: f16, bf16, f32, f64.
    pub fn is_float(self) -> bool {
        matches!(self, Self::F16 | Self::Bf16 | Self::F32 | Self::F64)
    }

    /// True for the complex types c64 and c128.
    pub fn is_complex(self) -> bool {
        matches!(self, Self::C64 | Self::C128)
    }

    /// Float or complex: the types transcendental functions accept.
    pub fn is_float_or_complex(self) -> bool {
        self.is_float() || self.is_complex()
    }

    /// Component type of a complex type (c64 -> f32); `None` for non-complex.
    pub fn complex_component(self) -> Option<Self> {
        match self {
            Self::C64 => Some(Self::F32),
            Self::C128 => Some(Self::F64),
            _ => None,
        }
    }

    /// Complex type whose components are `self` (f32 -> c64); `None` otherwise.
    pub fn complex_of(self) -> Option<Self> {
        match self {
            Self::F32 => Some(Self::C64),
            Self::F64 => Some(Self::C128),
            _ => None,
        }
    }

    /// Number of exponent and mantissa bits of a real float type.
    pub fn float_bits(self) -> Option<(u32, u32)> {
        match self {
            Self::F16 => Some((5, 10)),
            Self::Bf16 => Some((8, 7)),
            Self::F32 => Some((8, 23)),
            Self::F64 => Some((11, 52)),
            _ => None,
        }
    }

    /// Largest finite value of a real float type, `(2 - 2^-m)·2^(2^(e-1) - 1)` (exact in f64);
    /// `None` for other types.
    pub fn largest_finite(self) -> Option<f64> {
        let (e, m) = self.float_bits()?;
        Some((2.0 - 2f64.powi(-(m as i32))) * 2f64.powi((1 << (e - 1)) - 1))
    }

    /// Smallest positive normal value of a real float type, `2^(2 - 2^(e-1))`.
    pub fn smallest_normal(self) -> Option<f64> {
        let (e, _) = self.float_bits()?;
        Some(2f64.powi(2 - (1 << (e - 1))))
    }

    /// Machine epsilon of a real float type, `2^-m`.
    pub fn epsilon(self) -> Option<f64> {
        let (_, m) = self.float_bits()?;
        Some(2f64.powi(-(m as i32)))
    }
}

#[cfg(test)]
mod limit_tests {
    use super::ElementType;

    #[test]
    fn float_limits_match_the_native_types() {
        assert_eq!(ElementType::F16.largest_finite(), Some(65504.0));
        assert_eq!(
            ElementType::Bf16.largest_finite(),
            Some(f64::from(half::bf16::MAX))
        );
        assert_eq!(ElementType::F32.largest_finite(), Some(f64::from(f32::MAX)));
        assert_eq!(ElementType::F64.largest_finite(), Some(f64::MAX));
        assert_eq!(
            ElementType::F16.smallest_normal(),
            Some(f64::from(half::f16::MIN_POSITIVE))
        );
        assert_eq!(
            ElementType::Bf16.smallest_normal(),
            Some(f64::from(f32::MIN_POSITIVE))
        );
        assert_eq!(
            ElementType::F32.smallest_normal(),
            Some(f64::from(f32::MIN_POSITIVE))
        );
        assert_eq!(ElementType::F64.smallest_normal(), Some(f64::MIN_POSITIVE));
        assert_eq!(ElementType::F32.epsilon(), Some(f64::from(f32::EPSILON)));
        assert_eq!(ElementType::F64.epsilon(), Some(f64::EPSILON));
        assert_eq!(ElementType::S32.largest_finite(), None);
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type that stores one element of an XLA array.
pub trait NativeType: Copy + Default + Send + Sync + PartialEq + fmt::Debug + 'static {
    /// The element type this Rust type stores.
    const TYPE: ElementType;
}

macro_rules! native {
    ($($t:ty => $e:ident),* $(,)?) => {
        $(impl NativeType for $t { const TYPE: ElementType = ElementType::$e; })*
    };
}

native!(
    bool => Pred, i8 => S8, i16 => S16, i32 => S32, i64 => S64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    half::f16 => F16, half::bf16 => Bf16, f32 => F32, f64 => F64,
    num_complex::Complex<f32> => C64, num_complex::Complex<f64> => C128,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in ElementType::ALL {
            assert_eq!(ElementType::from_name(t.name()), Some(t));
        }
        assert_eq!(ElementType::from_name("f8"), None);
    }

    #[test]
    fn widths() {
        assert_eq!(ElementType::C128.bit_width(), 128);
        assert_eq!(ElementType::Bf16.byte_width(), 2);
        assert_eq!(ElementType::C64.complex_component(), Some(ElementType::F32));
    }
}
