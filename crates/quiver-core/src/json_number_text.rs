//! Float32 rows as the JSON text an answer holds: `[0.1,-2.5,3e-7]`, each value written as
//! `JSON.stringify` writes the double `shortest_decimal` gives for it. Vectors leave the REST door
//! this way (src/points/float32-row.ts): building 768 JavaScript numbers for a 768-d vector and
//! having `JSON.stringify` print them cost 160–196 µs of the JS thread a row, against 37–55 µs
//! for this text (bench/README.md, "Vectors out as text").
//!
//! The digits are those `shortest_decimal` chose (at most nine, so no shorter decimal reads back
//! as the same double); the layout is ECMAScript's Number::toString: plain digits from 1e-6 up
//! to below 1e21, else one digit, an optional fraction and a signed exponent (`1.5e-7`,
//! `3.4028235e+38`). Non-finite values are written `null`, and negative zero `0`, as
//! `JSON.stringify` writes them. vitest compares this text with `JSON.stringify` of the
//! TypeScript twin's numbers (src/points/float32-row.test.ts).

use crate::shortest_decimal::{printed, read_shortest, Printed};

/// Appends `[v0,v1,…]` for `values`.
pub fn write_json_row(values: &[f32], out: &mut Vec<u8>) {
    // Most values take at most 12 bytes (`-0.123456789`) and a comma.
    out.reserve(values.len() * 13 + 2);
    out.push(b'[');
    for (position, value) in values.iter().enumerate() {
        if position > 0 {
            out.push(b',');
        }
        write_json_number(*value, out);
    }
    out.push(b']');
}

/// Appends the text `JSON.stringify` writes for `shortest_decimal(value)`.
pub fn write_json_number(value: f32, out: &mut Vec<u8>) {
    let mut buffer = ryu::Buffer::new();
    match printed(value, &mut buffer) {
        Printed::Shortest(text) if same_as_javascript(text) => out.extend_from_slice(text),
        Printed::Shortest(text) => match read_shortest(text) {
            Printed::Decimal { negative, digits, exponent } => write_decimal(negative, digits, exponent, out),
            _ => unreachable!("read_shortest gives digits"),
        },
        Printed::Decimal { negative, digits, exponent } => write_decimal(negative, digits, exponent, out),
        Printed::Double(wide) if !wide.is_finite() => out.extend_from_slice(b"null"),
        Printed::Double(wide) if wide.fract() == 0.0 && wide.abs() < 16_777_216.0 => {
            // -0 too: JSON.stringify writes it as 0.
            if wide < 0.0 {
                out.push(b'-');
            }
            write_digits(wide.abs() as u64, out);
        }
        Printed::Double(wide) => {
            // A subnormal's twin steps end in a double: its shortest digits are Ryū's.
            let mut wide_buffer = ryu::Buffer::new();
            match read_shortest(wide_buffer.format_finite(wide).as_bytes()) {
                Printed::Decimal { negative, digits, exponent } => write_decimal(negative, digits, exponent, out),
                _ => unreachable!("read_shortest gives digits"),
            }
        }
    }
}

/// The largest whole number a double holds exactly with every smaller one (2^53 - 1): point
/// ids and versions up to it are plain JSON numbers.
const SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Appends `[{"id":…,"version":…,"score":…},…]`, the list a plain search answers, as
/// `JSON.stringify` writes it (src/json/scored-answer-text.ts builds the same text in
/// TypeScript, its slow twin). Ids and versions must be whole numbers from 0 to 2^53 - 1 and
/// scores finite, and the three lists of one length; otherwise nothing is appended and the
/// answer is false.
pub fn write_scored_points(ids: &[f64], versions: &[f64], scores: &[f64], out: &mut Vec<u8>) -> bool {
    let whole = |value: &f64| value.fract() == 0.0 && (0.0..=SAFE_INTEGER).contains(value);
    if ids.len() != versions.len() || ids.len() != scores.len() || !ids.iter().all(whole) || !versions.iter().all(whole) {
        return false;
    }
    if !scores.iter().all(|score| score.is_finite()) {
        return false;
    }
    // `{"id":` and the rest of the keys take 28 bytes; numbers mostly under 30 together.
    out.reserve(ids.len() * 58 + 2);
    out.push(b'[');
    for position in 0..ids.len() {
        if position > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"id\":");
        write_digits(ids[position] as u64, out);
        out.extend_from_slice(b",\"version\":");
        write_digits(versions[position] as u64, out);
        out.extend_from_slice(b",\"score\":");
        write_json_double(scores[position], out);
        out.push(b'}');
    }
    out.push(b']');
    true
}

/// Appends the text `JSON.stringify` writes for a finite double: the shortest digits that read
/// back as it and, of those, the nearest (Ryū's, and ECMAScript's Number::toString's), in
/// Number::toString's layout. Negative zero is written `0`, as JSON.stringify writes it.
pub fn write_json_double(value: f64, out: &mut Vec<u8>) {
    if value == 0.0 {
        out.push(b'0');
        return;
    }
    let mut buffer = ryu::Buffer::new();
    match read_shortest(buffer.format_finite(value).as_bytes()) {
        Printed::Decimal { negative, digits, exponent } => write_decimal(negative, digits, exponent, out),
        _ => unreachable!("read_shortest gives digits"),
    }
}

/// Whether Ryū's text of a float32 is already laid out as Number::toString lays it out: it is
/// for a fraction from 1e-6 up (`0.001234`, `12.34`) and for a negative exponent (`1.5e-7`), the
/// forms most vector values take, and is not for an integer (`1234.0`) or a positive exponent
/// (`1e30`, where JavaScript writes `1e+30`, or plain digits below 1e21).
fn same_as_javascript(text: &[u8]) -> bool {
    match text.iter().position(|byte| *byte == b'e') {
        Some(at) => text.get(at + 1) == Some(&b'-'),
        None => !text.ends_with(b".0"),
    }
}

/// ± `digits` × 10^`exponent` in ECMAScript's Number::toString layout (`digits` > 0, no
/// trailing zeros).
fn write_decimal(negative: bool, digits: u64, exponent: i32, out: &mut Vec<u8>) {
    if negative {
        out.push(b'-');
    }
    let mut text = [0u8; 20];
    let length = digit_text(digits, &mut text);
    let digit_bytes = &text[20 - length..];
    let count = length as i32;
    // The value is 0.d1d2…dk × 10^point.
    let point = count + exponent;
    if count <= point && point <= 21 {
        out.extend_from_slice(digit_bytes);
        out.resize(out.len() + (point - count) as usize, b'0');
    } else if 0 < point && point <= 21 {
        out.extend_from_slice(&digit_bytes[..point as usize]);
        out.push(b'.');
        out.extend_from_slice(&digit_bytes[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + (-point) as usize, b'0');
        out.extend_from_slice(digit_bytes);
    } else {
        out.push(digit_bytes[0]);
        if length > 1 {
            out.push(b'.');
            out.extend_from_slice(&digit_bytes[1..]);
        }
        let written_exponent = point - 1;
        out.extend_from_slice(if written_exponent < 0 { b"e-" } else { b"e+" });
        write_digits(u64::from(written_exponent.unsigned_abs()), out);
    }
}

/// `value`'s decimal digits at the end of `text`; returns how many.
fn digit_text(mut value: u64, text: &mut [u8; 20]) -> usize {
    let mut start = text.len();
    loop {
        start -= 1;
        text[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return text.len() - start;
        }
    }
}

fn write_digits(value: u64, out: &mut Vec<u8>) {
    let mut text = [0u8; 20];
    let length = digit_text(value, &mut text);
    out.extend_from_slice(&text[20 - length..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shortest_decimal::shortest_decimal;

    /// What `write` appends to an empty buffer, as text.
    fn written(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).expect("ASCII")
    }

    fn text_of(value: f32) -> String {
        written(|out| write_json_number(value, out))
    }

    #[test]
    fn each_layout_of_number_to_string_is_written_as_javascript_writes_it() {
        // The right-hand sides are what `JSON.stringify(Math.fround(x))`'s shortest twin prints
        // in JavaScript (node -p), as src/points/float32-row.test.ts checks on many more.
        let cases: [(f32, &str); 21] = [
            (0.0, "0"),
            (-0.0, "0"),
            (7.0, "7"),
            (-16_777_215.0, "-16777215"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (123_456.79, "123456.79"),
            (1e10, "10000000000"),
            (1e12, "1000000000000"),
            (1e15, "1000000000000000"),
            (-3.5e-12, "-3.5e-12"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (3.4028235e38, "3.4028235e+38"),
            (0.000_001, "0.000001"),
            (0.000_001_234_5, "0.0000012345"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (1e-45, "1.4013e-45"),
            (f32::NAN, "null"),
            (f32::NEG_INFINITY, "null"),
        ];
        for (value, expected) in cases {
            assert_eq!(text_of(value), expected, "{value:e}");
        }
    }

    #[test]
    fn every_text_reads_back_as_the_double_shortest_decimal_gives() {
        let mut random = crate::test_support::Random::new(11);
        for round in 0..200_000 {
            let value = random.printing_sample(round);
            if !value.is_finite() {
                continue;
            }
            let text = text_of(value);
            let expected = shortest_decimal(value);
            let read: f64 = text.parse().expect("a number Rust reads");
            assert_eq!(read.to_bits(), if expected == 0.0 { 0.0f64.to_bits() } else { expected.to_bits() }, "{text}");
        }
    }

    fn double_text(value: f64) -> String {
        written(|out| write_json_double(value, out))
    }

    #[test]
    fn a_double_is_written_in_each_layout_of_number_to_string() {
        // The right-hand sides are `String(x)` in JavaScript (node -p); vitest compares many more
        // (src/json/scored-answer-text.test.ts).
        let cases: [(f64, &str); 14] = [
            (0.0, "0"),
            (-0.0, "0"),
            (7.0, "7"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (0.30000000000000004, "0.30000000000000004"),
            (123_456.789, "123456.789"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.000_001, "0.000001"),
            (1e-7, "1e-7"),
            (-1.2345e-7, "-1.2345e-7"),
            (5e-324, "5e-324"),
        ];
        for (value, expected) in cases {
            assert_eq!(double_text(value), expected, "{value:e}");
        }
    }

    #[test]
    fn every_double_text_reads_back_as_the_same_double() {
        let mut random = crate::test_support::Random::new(12);
        for round in 0..200_000 {
            let value = f64::from(random.printing_sample(round)) * if round % 3 == 0 { 1.0 } else { 1.000_000_1 };
            if !value.is_finite() {
                continue;
            }
            let text = double_text(value);
            let read: f64 = text.parse().expect("a number Rust reads");
            assert_eq!(read, value, "{text}");
        }
    }

    #[test]
    fn a_scored_list_is_written_only_from_whole_ids_and_versions_and_finite_scores() {
        let mut out = Vec::new();
        assert!(write_scored_points(&[], &[], &[], &mut out));
        assert!(write_scored_points(&[7.0, 9_007_199_254_740_991.0], &[0.0, 12.0], &[0.5, -1e-7], &mut out));
        assert_eq!(
            String::from_utf8(out.clone()).expect("ASCII"),
            r#"[][{"id":7,"version":0,"score":0.5},{"id":9007199254740991,"version":12,"score":-1e-7}]"#
        );
        let before = out.len();
        for (ids, versions, scores) in [
            (&[1.5][..], &[0.0][..], &[0.5][..]),
            (&[-1.0], &[0.0], &[0.5]),
            (&[9_007_199_254_740_992.0], &[0.0], &[0.5]),
            (&[1.0], &[0.5], &[0.5]),
            (&[1.0], &[0.0], &[f64::NAN]),
            (&[1.0], &[0.0], &[f64::INFINITY]),
            (&[1.0, 2.0], &[0.0], &[0.5, 0.5]),
        ] {
            assert!(!write_scored_points(ids, versions, scores, &mut out), "{ids:?} {versions:?} {scores:?}");
        }
        assert_eq!(out.len(), before, "nothing appended when refused");
    }

    #[test]
    fn a_row_is_the_numbers_between_brackets_and_commas() {
        let mut out = Vec::new();
        write_json_row(&[], &mut out);
        write_json_row(&[0.5, -1.0, 2e-8], &mut out);
        assert_eq!(String::from_utf8(out).expect("ASCII"), "[][0.5,-1,2e-8]");
    }
}
