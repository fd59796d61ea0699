//! Float32 values as the numbers the API prints: the shortest decimal that reads back as the same
//! float32, as a double (so 0.1f32 is answered as 0.1, not as 0.10000000149011612, its exact
//! value). Vectors leave the server this way. The TypeScript twin is `float32ToNumber` in
//! src/points/vectors.ts: small integers as they are, else `toPrecision` with 6, 7 and 8
//! significant digits, the first that reads back, else 9. It costs ~0.5 µs a value, so ten
//! 768-d vectors took ~4 ms of the JS thread (bench/README.md, "Vectors out").
//!
//! Here, most values take Ryū (the `ryu` crate), which writes the shortest decimal that reads
//! back as the f32 and, of those, the nearest to it: the twin's answer, because its first
//! precision that reads back is that shortest length, and its correctly rounded candidate there
//! is the nearest one (below six digits, its six-digit rounding is the shorter decimal padded
//! with zeros: a float32's half-step is far under half a unit of the sixth digit). The two can
//! differ only where the value lies exactly halfway between two candidates of that length:
//! `toPrecision` then takes the one farther from zero, Ryū may not. Such a tie needs an exact
//! decimal expansion of at most ten significant digits, so values with one (`short_expansion`: at
//! most 14 binary digits after the point, since 5^15 has eleven digits) take the twin's steps on
//! that expansion in integers. Subnormals (fewer significant bits, so a shorter decimal reads
//! back where the twin's six-digit one is not it padded) take them on the exact text
//! (`twin_steps`). The tests compare all three paths with the twin's steps, and vitest compares
//! the kernel's rows with `float32ToNumber` itself (src/points/vectors.test.ts).

use std::fmt::Write;

/// What the API prints for a float32: ± `digits` × 10^`exponent` (`digits` without trailing
/// zeros, nine significant digits at most), or Ryū's text of it, or, where the twin passes the
/// double through or takes its own steps on the exact text, that double.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Printed<'a> {
    Decimal {
        negative: bool,
        digits: u64,
        exponent: i32,
    },
    /// Ryū's shortest text of a normal float32 (see `read_shortest` for its forms).
    Shortest(&'a [u8]),
    /// Non-finite values, integers below 2^24 (zero included), and subnormals' twin steps.
    Double(f64),
}

impl Printed<'_> {
    fn value(self) -> f64 {
        match self {
            Printed::Double(wide) => wide,
            Printed::Shortest(text) => read_shortest(text).value(),
            Printed::Decimal { negative, digits, exponent } => {
                let magnitude = scaled(digits, exponent);
                if negative {
                    -magnitude
                } else {
                    magnitude
                }
            }
        }
    }
}

/// The double printed for `value` (non-finite values pass through, as in the twin).
pub fn shortest_decimal(value: f32) -> f64 {
    printed(value, &mut ryu::Buffer::new()).value()
}

/// `shortest_decimal`'s answer before it becomes a double (Ryū writes into `buffer`);
/// json_number_text.rs writes it as text.
pub(crate) fn printed(value: f32, buffer: &mut ryu::Buffer) -> Printed<'_> {
    let wide = value as f64;
    if !value.is_finite() || (wide.fract() == 0.0 && wide.abs() < 16_777_216.0) {
        return Printed::Double(wide);
    }
    if value.is_subnormal() {
        return Printed::Double(twin_steps(value));
    }
    if let Some((digits, exponent)) = short_expansion(value) {
        return twin_steps_on(value, digits, exponent);
    }
    Printed::Shortest(buffer.format_finite(value).as_bytes())
}

/// What Ryū wrote for a finite value, as digits and exponent: digits with at most one point, or
/// digits and `e` and an exponent; seventeen significant digits at most (a double's). Read here
/// rather than by `str::parse`, which costs as much again as the writing.
pub(crate) fn read_shortest(text: &[u8]) -> Printed<'static> {
    let (negative, body) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (number, written_exponent) = match body.iter().position(|byte| *byte == b'e' || *byte == b'E') {
        Some(at) => {
            let exponent = std::str::from_utf8(&body[at + 1..]).expect("ASCII").parse::<i32>().expect("an exponent");
            (&body[..at], exponent)
        }
        None => (body, 0),
    };
    // The digits into one integer, counting those after the point; then the trailing zeros go
    // into the exponent.
    let mut digits: u64 = 0;
    let mut exponent = written_exponent;
    let mut after_point = false;
    for &byte in number {
        if byte == b'.' {
            after_point = true;
            continue;
        }
        digits = digits * 10 + u64::from(byte - b'0');
        exponent -= i32::from(after_point);
    }
    decimal(negative, digits, exponent)
}

/// ± `digits` × 10^`exponent` with the trailing zeros of `digits` moved into the exponent.
fn decimal(negative: bool, mut digits: u64, mut exponent: i32) -> Printed<'static> {
    while digits != 0 && digits.is_multiple_of(10) {
        digits /= 10;
        exponent += 1;
    }
    Printed::Decimal { negative, digits, exponent }
}

/// `shortest_decimal` of each value of `values`, into `into` (the same length).
pub fn shortest_decimals(values: &[f32], into: &mut [f64]) {
    for (value, target) in values.iter().zip(into.iter_mut()) {
        *target = shortest_decimal(*value);
    }
}

/// A normal, non-zero `value`'s exact decimal expansion when it has at most ten significant
/// digits: `digits` (no trailing zeros) and `exponent`, value = ± digits × 10^exponent.
fn short_expansion(value: f32) -> Option<(u64, i32)> {
    let bits = value.to_bits();
    let biased_exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = (bits & 0x7f_ffff) | 0x80_0000;
    let zeros = mantissa.trailing_zeros() as i32;
    // |value| = odd × 2^binary_exponent
    let (odd, binary_exponent) = ((mantissa >> zeros) as u128, biased_exponent - 150 + zeros);
    let (mut digits, mut exponent) = if binary_exponent < 0 {
        // odd / 2^k = odd × 5^k / 10^k, and odd × 5^k ends in no zero.
        let fraction_digits = -binary_exponent as u32;
        if fraction_digits > 14 {
            return None;
        }
        (odd * 5u128.pow(fraction_digits), binary_exponent)
    } else {
        (odd << binary_exponent, 0)
    };
    while digits.is_multiple_of(10) {
        digits /= 10;
        exponent += 1;
    }
    (digits < 10_000_000_000).then_some((digits as u64, exponent))
}

/// The twin's steps for a value whose exact expansion is ± `digits` × 10^`exponent`, in
/// integers: rounding to a precision adds half a unit and drops the digits below it.
fn twin_steps_on(value: f32, digits: u64, exponent: i32) -> Printed<'static> {
    let negative = value < 0.0;
    let length = digits.ilog10() + 1;
    for precision in 6..=9u32 {
        if precision >= length {
            // The whole expansion fits: the value itself, which reads back.
            return decimal(negative, digits, exponent);
        }
        let dropped = length - precision;
        let unit = 10u64.pow(dropped);
        let kept = (digits + unit / 2) / unit;
        let candidate = decimal(negative, kept, exponent + dropped as i32);
        if candidate.value() as f32 == value || precision == 9 {
            return candidate;
        }
    }
    unreachable!("precision 9 returns")
}

/// 10^0 to 10^22, every one exact in a double.
const EXACT_POWERS_OF_TEN: [f64; 23] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// The double nearest to `digits` × 10^`exponent` (`digits` < 2^53): one correctly rounded
/// operation on exact operands where the power is exact (up to 10^22), else parsed.
fn scaled(digits: u64, exponent: i32) -> f64 {
    match exponent {
        0..=22 => digits as f64 * EXACT_POWERS_OF_TEN[exponent as usize],
        -22..=-1 => digits as f64 / EXACT_POWERS_OF_TEN[-exponent as usize],
        _ => format!("{digits}e{exponent}").parse().expect("a decimal that parses"),
    }
}

/// The twin's steps, with `toPrecision`'s rounding: of the two nearest decimals of `precision`
/// digits, the one farther from zero when the value lies exactly between them.
fn twin_steps(value: f32) -> f64 {
    let wide = value as f64;
    for precision in 6..9 {
        let candidate = to_precision(wide, precision);
        if candidate as f32 == value {
            return candidate;
        }
    }
    to_precision(wide, 9)
}

/// `Number(wide.toPrecision(precision))` for a finite, non-zero widened float32.
fn to_precision(wide: f64, precision: usize) -> f64 {
    // 120 significant digits hold any float32's exact expansion (a subnormal's has ~105).
    let mut exact = Text::default();
    write!(exact, "{:.119e}", wide.abs()).expect("fits the buffer");
    let (mantissa, exponent) = exact.as_str().split_once('e').expect("exponent form");
    let mut exponent: i32 = exponent.parse().expect("an exponent");
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let mut kept = digits[..precision].to_vec();
    // The digits are exact, so a 5 next means at least half a unit: up, ties included.
    if digits[precision] >= b'5' {
        let mut position = precision;
        loop {
            if position == 0 {
                kept.insert(0, b'1');
                kept.pop();
                exponent += 1;
                break;
            }
            position -= 1;
            if kept[position] == b'9' {
                kept[position] = b'0';
            } else {
                kept[position] += 1;
                break;
            }
        }
    }
    let mut text = Text::default();
    let sign = if wide < 0.0 { "-" } else { "" };
    let kept = std::str::from_utf8(&kept).expect("ASCII digits");
    write!(text, "{sign}{}.{}e{exponent}", &kept[..1], &kept[1..]).expect("fits the buffer");
    text.as_str().parse::<f64>().expect("a decimal that parses")
}

/// A stack buffer for one number's text (the exact form above is the longest, ~128 bytes).
struct Text {
    bytes: [u8; 160],
    length: usize,
}

impl Default for Text {
    fn default() -> Text {
        Text { bytes: [0; 160], length: 0 }
    }
}

impl Text {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.length]).expect("formatting writes ASCII")
    }
}

impl Write for Text {
    fn write_str(&mut self, part: &str) -> std::fmt::Result {
        let end = self.length + part.len();
        if end > self.bytes.len() {
            return Err(std::fmt::Error);
        }
        self.bytes[self.length..end].copy_from_slice(part.as_bytes());
        self.length = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Random;

    /// 2258173.25, exactly a float32 (its step there is a quarter); written as a sum, since its
    /// literal would read as more digits than a float32 holds.
    const TIE: f32 = 2_258_173.0 + 0.25;

    /// The twin whole: small integers as they are, then its steps for every value.
    fn slow_twin(value: f32) -> f64 {
        let wide = value as f64;
        if !value.is_finite() || (wide.fract() == 0.0 && wide.abs() < 16_777_216.0) {
            return wide;
        }
        twin_steps(value)
    }

    #[test]
    fn every_value_prints_as_the_twin_steps_print_it_across_magnitudes_signs_and_edges() {
        let mut random = Random::new(7);
        let edges = [
            0.0f32,
            -0.0,
            0.1,
            -0.1,
            1.0 / 3.0,
            0.375,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            f32::EPSILON,
            16_777_216.0,
            16_777_218.0,
            1e-45,
            -3e-42,
            1e10,
            TIE,
        ];
        let mut fast_path = 0;
        for value in edges {
            assert_eq!(shortest_decimal(value).to_bits(), slow_twin(value).to_bits(), "{value:e}");
        }
        for round in 0..400_000 {
            let value = random.printing_sample(round);
            if !value.is_finite() {
                continue;
            }
            let printed = shortest_decimal(value);
            assert_eq!(printed.to_bits(), slow_twin(value).to_bits(), "{value:e} ({:08x})", value.to_bits());
            assert_eq!(printed as f32, value, "reads back as itself");
            fast_path += usize::from(!value.is_subnormal() && short_expansion(value).is_none());
        }
        assert!(fast_path > 200_000, "most values took Display: {fast_path}");
    }

    #[test]
    fn a_value_halfway_between_two_candidates_takes_the_one_farther_from_zero_as_to_precision_does() {
        // 2258173.25 is exactly between 2258173.2 and 2258173.3 (eight digits, its shortest):
        // `(2258173.25).toPrecision(8)` is "2258173.3" in every JavaScript engine.
        assert_eq!(shortest_decimal(TIE), 2_258_173.3);
        assert_eq!(shortest_decimal(-TIE), -2_258_173.3);
        assert_eq!(shortest_decimal(1234.5), 1234.5, "a short expansion is the value itself");
        assert_eq!(shortest_decimal(0.000_061_035_156), 0.000_061_035_156, "2^-14, eleven digits long");
        // Subnormals take the twin's six digits first, although a shorter decimal reads back.
        assert_eq!(shortest_decimal(1e-45), 1.4013e-45);
        assert_eq!(to_precision(9.999_999_5e-1, 6), 1.0, "a carry through every digit");
    }

    #[test]
    fn non_finite_values_pass_through_and_a_batch_fills_every_place() {
        assert!(shortest_decimal(f32::NAN).is_nan());
        assert_eq!(shortest_decimal(f32::INFINITY), f64::INFINITY);
        assert_eq!(shortest_decimal(f32::NEG_INFINITY), f64::NEG_INFINITY);
        let values = [0.1f32, 2.5, -7.25e-3, 123_456.79];
        let mut into = [0.0; 4];
        shortest_decimals(&values, &mut into);
        assert_eq!(into, [0.1, 2.5, -0.00725, 123_456.79]);
    }
}
