//! Stored rows of the three element types (`datatype` of docs/api.md §21) and the float16
//! conversions. A store keeps one element type for all its rows; a `Row` is one of them as
//! borrowed from the arena, compared against a float32 query by the kernels of compact.rs.

/// The element type of a store's rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Datatype {
    #[default]
    Float32,
    /// IEEE 754 binary16, 2 bytes per component: values are rounded to nearest even.
    Float16,
    /// Unsigned integers 0..=255, 1 byte per component: values must already be integers.
    Uint8,
}

impl Datatype {
    pub fn parse(name: &str) -> Option<Datatype> {
        match name {
            "float32" => Some(Datatype::Float32),
            "float16" => Some(Datatype::Float16),
            "uint8" => Some(Datatype::Uint8),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Datatype::Float32 => "float32",
            Datatype::Float16 => "float16",
            Datatype::Uint8 => "uint8",
        }
    }

    /// Stable number used in checkpoints (format version 3).
    pub fn code(self) -> u8 {
        match self {
            Datatype::Float32 => 0,
            Datatype::Float16 => 1,
            Datatype::Uint8 => 2,
        }
    }

    pub fn from_code(code: u8) -> Option<Datatype> {
        match code {
            0 => Some(Datatype::Float32),
            1 => Some(Datatype::Float16),
            2 => Some(Datatype::Uint8),
            _ => None,
        }
    }

    pub fn bytes_per_component(self) -> usize {
        match self {
            Datatype::Float32 => 4,
            Datatype::Float16 => 2,
            Datatype::Uint8 => 1,
        }
    }

    /// Why `value` cannot be stored as this type, if it cannot. Float16 refuses magnitudes
    /// above its largest finite value instead of storing infinity (which would turn every
    /// distance to the row into NaN); uint8 refuses anything but the integers 0..=255 instead
    /// of silently truncating.
    pub fn refusal(self, value: f32) -> Option<&'static str> {
        match self {
            Datatype::Float32 => None,
            Datatype::Float16 if value.abs() > F16_MAX => Some("is outside the float16 range (-65504..=65504)"),
            Datatype::Float16 => None,
            Datatype::Uint8 if !(0.0..=255.0).contains(&value) || value.fract() != 0.0 => {
                Some("must be an integer from 0 to 255 for a uint8 vector")
            }
            Datatype::Uint8 => None,
        }
    }
}

/// The largest finite float16.
pub const F16_MAX: f32 = 65504.0;

/// One stored row, borrowed from the arena.
#[derive(Clone, Copy, Debug)]
pub enum Row<'a> {
    F32(&'a [f32]),
    /// float16 bit patterns.
    F16(&'a [u16]),
    U8(&'a [u8]),
}

impl<'a> From<&'a [f32]> for Row<'a> {
    #[inline(always)]
    fn from(values: &'a [f32]) -> Row<'a> {
        Row::F32(values)
    }
}

impl<'a> From<&'a &'a [f32]> for Row<'a> {
    #[inline(always)]
    fn from(values: &'a &'a [f32]) -> Row<'a> {
        Row::F32(values)
    }
}

impl<'a> From<&'a Vec<f32>> for Row<'a> {
    #[inline(always)]
    fn from(values: &'a Vec<f32>) -> Row<'a> {
        Row::F32(values)
    }
}

impl<'a, const N: usize> From<&'a [f32; N]> for Row<'a> {
    #[inline(always)]
    fn from(values: &'a [f32; N]) -> Row<'a> {
        Row::F32(values)
    }
}

impl<'a> Row<'a> {
    pub fn len(&self) -> usize {
        match self {
            Row::F32(values) => values.len(),
            Row::F16(values) => values.len(),
            Row::U8(values) => values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first byte and the byte length, for prefetching.
    #[inline(always)]
    pub fn bytes(&self) -> (*const u8, usize) {
        match self {
            Row::F32(values) => (values.as_ptr() as *const u8, std::mem::size_of_val(*values)),
            Row::F16(values) => (values.as_ptr() as *const u8, std::mem::size_of_val(*values)),
            Row::U8(values) => (values.as_ptr(), values.len()),
        }
    }

    /// The stored values as float32 (exact: every float16 and uint8 value is a float32), with
    /// `decode_f16` for float16 rows (`Space::decode_into` passes its instruction set's).
    pub fn decode_into_with(&self, decode_f16: super::compact::DecodeKernel, output: &mut [f32]) {
        match self {
            Row::F32(values) => output.copy_from_slice(values),
            Row::F16(values) => decode_f16(values, output),
            Row::U8(values) => {
                for (target, byte) in output.iter_mut().zip(values.iter()) {
                    *target = *byte as f32;
                }
            }
        }
    }

    /// The values as float32, float16 decoded one at a time: tests and reads off the search
    /// path; the paths that decode many rows go through `Space::decode_into`.
    pub fn to_vec(&self) -> Vec<f32> {
        let mut output = vec![0f32; self.len()];
        self.decode_into_with(decode_f16_scalar, &mut output);
        output
    }
}

/// float16 → float32 one value at a time, for as many values as both slices hold: the scalar
/// set's `decode_f16` and the twin of the SIMD ones (compact.rs).
pub fn decode_f16_scalar(values: &[u16], output: &mut [f32]) {
    for (target, half) in output.iter_mut().zip(values) {
        *target = f32_from_f16(*half);
    }
}

/// float32 -> float16 bits, rounded to nearest, ties to even (as the F16C instruction with
/// `_MM_FROUND_TO_NEAREST_INT` does; the tests hold the two equal). Overflow gives infinity,
/// which callers refuse beforehand (`Datatype::refusal`).
pub fn f16_from_f32(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x007f_ffff;
    if exponent == 0xff {
        // Infinity stays infinity; NaN stays a (quiet) NaN.
        return sign | 0x7c00 | if mantissa != 0 { 0x0200 | (mantissa >> 13) as u16 } else { 0 };
    }
    let half_exponent = exponent - 127 + 15;
    if half_exponent >= 0x1f {
        return sign | 0x7c00;
    }
    let (kept, rest, halfway) = if half_exponent <= 0 {
        if half_exponent < -10 {
            return sign;
        }
        // Subnormal result: the implicit bit joins the mantissa, shifted further right.
        let full = mantissa | 0x0080_0000;
        let shift = (14 - half_exponent) as u32;
        (full >> shift, full & ((1 << shift) - 1), 1u32 << (shift - 1))
    } else {
        (((half_exponent as u32) << 10) | (mantissa >> 13), mantissa & 0x1fff, 0x1000)
    };
    // A carry out of the mantissa moves into the exponent, which is the right result (up to
    // infinity for values just under 65520).
    let rounded = if rest > halfway || (rest == halfway && kept & 1 == 1) { kept + 1 } else { kept };
    sign | rounded as u16
}

/// float16 bits -> float32, exact.
#[inline(always)]
pub fn f32_from_f16(half: u16) -> f32 {
    let sign = ((half & 0x8000) as u32) << 16;
    let exponent = ((half >> 10) & 0x1f) as u32;
    let mantissa = (half & 0x03ff) as u32;
    let bits = match exponent {
        0 if mantissa == 0 => sign,
        // Subnormal: mantissa × 2^-24, exact in float32.
        0 => sign | (mantissa as f32 * (1.0 / 16_777_216.0)).to_bits(),
        0x1f => sign | 0x7f80_0000 | (mantissa << 13),
        _ => sign | ((exponent + 112) << 23) | (mantissa << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_a_float16_row_matches_its_twin_for_every_value_and_awkward_lengths() {
        let every: Vec<u16> = (0..=u16::MAX).collect();
        for (set, length) in super::super::available()
            .into_iter()
            .flat_map(|set| [0usize, 1, 7, 8, 9, 15, 16, 17, 33, 768, every.len()].map(|length| (set, length)))
        {
            let (mut fast, mut slow) = (vec![0f32; length], vec![0f32; length]);
            (set.compact_kernels().decode_f16)(&every[..length], &mut fast);
            decode_f16_scalar(&every[..length], &mut slow);
            for (position, (a, b)) in fast.iter().zip(&slow).enumerate() {
                // NaNs only need to stay NaNs (stored rows never hold one; F16C quiets them).
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "{} length {length}, value {:#06x}: {a} against {b}",
                    set.name(),
                    every[position]
                );
            }
        }
    }

    #[test]
    fn float16_round_trips_every_half_value() {
        for half in 0..=u16::MAX {
            let value = f32_from_f16(half);
            if value.is_nan() {
                assert!(f32_from_f16(f16_from_f32(value)).is_nan());
                continue;
            }
            assert_eq!(f16_from_f32(value), half, "{half:#06x} = {value}");
        }
    }

    #[test]
    fn float16_rounds_to_nearest_even_at_the_edges() {
        assert_eq!(f32_from_f16(f16_from_f32(65504.0)), 65504.0);
        assert_eq!(f32_from_f16(f16_from_f32(65519.0)), 65504.0);
        assert!(f32_from_f16(f16_from_f32(65520.0)).is_infinite());
        assert_eq!(f32_from_f16(f16_from_f32(1.0 + 1.0 / 2048.0)), 1.0, "a tie goes to the even neighbour");
        assert_eq!(f32_from_f16(f16_from_f32(1.0 + 3.0 / 2048.0)), 1.0 + 2.0 / 1024.0);
        assert_eq!(f16_from_f32(2f32.powi(-25)), 0, "half the smallest subnormal ties to zero");
        assert_eq!(f16_from_f32(2f32.powi(-25) * 1.0001), 1);
        assert_eq!(f16_from_f32(-0.0), 0x8000);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn float16_conversion_matches_the_f16c_instruction_on_random_floats() {
        if !std::is_x86_feature_detected!("f16c") {
            eprintln!("no F16C on this CPU: conversion twin not checked against hardware");
            return;
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let bits = state as u32;
            // Mostly values in the float16 range, some anywhere.
            let value = if bits.is_multiple_of(4) { f32::from_bits(bits) } else { f32::from_bits(bits) % 70000.0 };
            if value.is_nan() {
                continue;
            }
            assert_eq!(f16_from_f32(value), hardware(value), "{value:e}");
        }

        #[target_feature(enable = "f16c")]
        unsafe fn convert(value: f32) -> u16 {
            use std::arch::x86_64::*;
            _mm_extract_epi16::<0>(_mm_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT }>(_mm_set1_ps(value))) as u16
        }
        fn hardware(value: f32) -> u16 {
            // SAFETY: F16C was detected above.
            unsafe { convert(value) }
        }
    }

    #[test]
    fn uint8_refuses_fractions_negatives_and_values_over_255() {
        assert!(Datatype::Uint8.refusal(255.0).is_none() && Datatype::Uint8.refusal(0.0).is_none());
        for value in [255.5, 256.0, -1.0, 0.5] {
            assert!(Datatype::Uint8.refusal(value).is_some(), "{value}");
        }
        assert!(Datatype::Float16.refusal(65504.0).is_none() && Datatype::Float16.refusal(-65505.0).is_some());
    }
}
