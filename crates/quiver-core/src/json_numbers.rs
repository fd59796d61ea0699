//! The numbers of one JSON array, read into doubles: the rest of a vector in an upsert body
//! (src/json/upsert-body-parser.ts hands it over from a number it cannot read exactly itself).
//! Python clients send float32 embeddings as the doubles numpy widens them to, 16–17
//! significant digits (`0.012345678359270096`), which JavaScript can read exactly only through
//! `Number()` of a sliced string: a 1,000 × 768 body took 0.43–0.55 s to parse, three times
//! `JSON.parse` (bench/README.md, "Long numbers in upserts"). Rust's `f64` parsing is correctly
//! rounded, and so is each shortcut taken before it: every value is the one `JSON.parse` gives.
//!
//! Only what JSON.parse reads the same way is accepted: `number (ws , ws number)* ws ]` with
//! JSON's number grammar (no `+`, no leading zeros, digits on both sides of a point, no `NaN`
//! or `Infinity`) and JSON's four whitespace characters. Anything else, a literal beyond the
//! double range (which JSON.parse makes ±Infinity and the API refuses), or more numbers than
//! `into` holds, is `None`: the caller then parses the body the slow, exact way, whose answer
//! (a value or a 400) stands.

use crate::decimal_to_double;

/// Reads `text` (what follows `[` or a comma inside an array, up to its `]`) into `into`;
/// returns how many numbers and the position just after the `]`.
pub fn read_number_array_rest(text: &[u8], into: &mut [f64]) -> Option<(usize, usize)> {
    let mut position = skip_whitespace(text, 0);
    let mut count = 0;
    loop {
        let (value, end) = read_number_at(text, position)?;
        if !value.is_finite() {
            return None;
        }
        *into.get_mut(count)? = value;
        count += 1;
        position = skip_whitespace(text, end);
        match text.get(position)? {
            b']' => return Some((count, position + 1)),
            b',' => position = skip_whitespace(text, position + 1),
            _ => return None,
        }
    }
}

/// One array of numbers `find_number_arrays` read: where it lies in the text, `[` to just after
/// `]`, in UTF-16 code units (JavaScript's string positions) and in bytes (a request body's
/// Buffer), and where its numbers went in `into`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumberArray {
    pub start: usize,
    pub end: usize,
    pub byte_start: usize,
    pub byte_end: usize,
    pub first: usize,
    pub count: usize,
}

/// The arrays of at least `minimum_count` numbers in a JSON text, outside its strings, read into
/// `into` one after another (src/json/parse.ts hands the rest of the text to JSON.parse). An
/// array this reader refuses (see `read_number_array_rest`), holds a number beyond ±2^53 (which
/// the lossless parser must see), or does not fit in what is left of `into` is left in the text.
/// The text need not be valid JSON: the caller's parse of what is left decides that.
pub fn find_number_arrays(text: &[u8], minimum_count: usize, into: &mut [f64]) -> Vec<NumberArray> {
    const SAFE_LIMIT: f64 = 9_007_199_254_740_991.0;
    let mut found = Vec::new();
    let mut used = 0;
    let mut position = 0;
    // UTF-16 code units before `position`: one per UTF-8 sequence, two for a four-byte one.
    let mut units = 0;
    let mut in_string = false;
    while let Some(&byte) = text.get(position) {
        if in_string {
            match byte {
                b'"' => in_string = false,
                // An escape and the byte it escapes (ASCII in valid JSON; if not, the caller's
                // parse of the text refuses it, whatever positions were counted).
                b'\\' => {
                    position += 2;
                    units += 2;
                    continue;
                }
                _ => {}
            }
            units += utf16_units_led_by(byte);
            position += 1;
            continue;
        }
        if byte == b'"' {
            in_string = true;
        } else if byte == b'[' {
            let first_value = skip_whitespace(text, position + 1);
            if matches!(text.get(first_value), Some(b'-' | b'0'..=b'9')) {
                if let Some((count, end)) = read_number_array_rest(&text[position + 1..], &mut into[used..]) {
                    let end = position + 1 + end;
                    let safe = into[used..used + count].iter().all(|value| value.abs() <= SAFE_LIMIT);
                    if count >= minimum_count && safe {
                        found.push(NumberArray {
                            start: units,
                            end: units + (end - position),
                            byte_start: position,
                            byte_end: end,
                            first: used,
                            count,
                        });
                        used += count;
                    }
                    // Numbers, commas and whitespace only: ASCII, one unit a byte.
                    units += end - position;
                    position = end;
                    continue;
                }
            }
        }
        units += utf16_units_led_by(byte);
        position += 1;
    }
    found
}

/// UTF-16 code units of the character a byte starts: 0 for a continuation byte, 2 for the lead
/// of a four-byte sequence (a character beyond U+FFFF), else 1.
fn utf16_units_led_by(byte: u8) -> usize {
    match byte {
        0x80..=0xbf => 0,
        0xf0..=0xff => 2,
        _ => 1,
    }
}

/// 10^0 to 10^22, every one exact in a double.
const EXACT_POWERS_OF_TEN: [f64; 23] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// The JSON number starting at `start`, if one does: the double nearest to it and the position
/// just after it. One pass checks JSON's grammar and gathers the digits (reading the literal
/// twice, once for its end and once for its value, cost a 768-number query ~26 µs of the JS
/// thread; bench/README.md, "Query numbers read in one pass"). Most literals (`-0.1234`,
/// `3e-5`) have at most 15 significant digits and a small exponent: their digits make an exact
/// double and one correctly rounded multiplication or division by an exact power of ten gives
/// the nearest one (Clinger's fast path), without Rust's general parse, which costs several
/// times as much. Those of 16 to 19 digits take one wider product (decimal_to_double.rs); the
/// rest take that parse.
fn read_number_at(text: &[u8], start: usize) -> Option<(f64, usize)> {
    let mut position = start;
    let negative = text.get(position) == Some(&b'-');
    position += usize::from(negative);
    // Digits past 19 wrap `mantissa`; `significant` then sends the literal to the general parse.
    let first = digit_at(text, position)?;
    position += 1;
    let mut mantissa: u64 = first;
    let mut significant = u32::from(first != 0);
    // More integer digits only after a first one that is not 0 (a leading zero is a whole
    // integer part in JSON: `01` is 0 and then a digit, which the caller refuses). Both tested
    // in one branch: a vector's values mostly have one integer digit, `0` or not at random, and
    // a branch on which mispredicted about every other literal, as applying the sign with a
    // branch did below (bench/README.md, "Query numbers without coin-flip branches").
    if (first != 0) & matches!(text.get(position), Some(b'0'..=b'9')) {
        position = read_digits(text, position, &mut mantissa, &mut significant);
    }
    let mut exponent: i64 = 0;
    if text.get(position) == Some(&b'.') {
        position += 1;
        let fraction_start = position;
        position = read_digits(text, position, &mut mantissa, &mut significant);
        if position == fraction_start {
            return None;
        }
        exponent = -((position - fraction_start) as i64);
    }
    if let Some(b'e' | b'E') = text.get(position) {
        position += 1;
        let exponent_negative = text.get(position) == Some(&b'-');
        position += usize::from(matches!(text.get(position), Some(b'+' | b'-')));
        let digits_start = position;
        let mut written: i64 = 0;
        while let Some(digit) = digit_at(text, position) {
            // Held at a million: far beyond any double's range either way, and no overflow.
            written = (written * 10 + digit as i64).min(1_000_000);
            position += 1;
        }
        if position == digits_start {
            return None;
        }
        exponent += if exponent_negative { -written } else { written };
    }
    let magnitude = match exponent {
        _ if significant > 15 => None,
        0..=22 => Some(mantissa as f64 * EXACT_POWERS_OF_TEN[exponent as usize]),
        -22..=-1 => Some(mantissa as f64 / EXACT_POWERS_OF_TEN[(-exponent) as usize]),
        _ if mantissa == 0 => Some(0.0),
        _ => None,
    };
    // 16 to 19 digits (Python's float32-as-double) or a larger exponent: one product with a
    // power of five, which answers all but a literal in ~2^64 of its range. More digits than
    // 19 wrapped `mantissa`: only the general parse reads those.
    let magnitude = match magnitude {
        None if significant <= 19 => decimal_to_double::nearest_double(mantissa, exponent),
        known => known,
    };
    let value = match magnitude {
        // The sign bit set without a branch: half of a vector's values are negative, at random.
        Some(magnitude) => f64::from_bits(magnitude.to_bits() | (u64::from(negative) << 63)),
        None => general_parse(&text[start..position])?,
    };
    Some((value, position))
}

/// Reads the run of digits at `position` into `mantissa` (wrapping past 19 digits) and counts
/// its significant ones (not the zeros before the first non-zero digit of `0.00012`); returns
/// the position after the run. Whole groups of eight digits are read at once: clients send
/// float32 values as 10–17 digits (Python prints their doubles, `0.012345678359270096`), and a
/// loop per digit paid for each. Shorter runs, and the rest of a long one, go a digit at a time:
/// with the branch predicted, that beats working out where a short run ends (bench/README.md,
/// "Query numbers read in one pass").
#[inline(always)]
fn read_digits(text: &[u8], mut position: usize, mantissa: &mut u64, significant: &mut u32) -> usize {
    while let Some(chunk) = text.get(position..position + 8).and_then(|chunk| <[u8; 8]>::try_from(chunk).ok()) {
        let Some((value, leading_zeros)) = eight_digits(u64::from_le_bytes(chunk)) else { break };
        *significant += if *mantissa == 0 { 8 - leading_zeros } else { 8 };
        *mantissa = mantissa.wrapping_mul(100_000_000).wrapping_add(value);
        position += 8;
    }
    while let Some(digit) = digit_at(text, position) {
        *mantissa = mantissa.wrapping_mul(10).wrapping_add(digit);
        *significant += u32::from(*mantissa != 0);
        position += 1;
    }
    position
}

/// Eight bytes of text (the first in the lowest byte), if all are digits: their value, and how
/// many of them are zeros before the first non-zero one.
#[inline(always)]
fn eight_digits(bytes: u64) -> Option<(u64, u32)> {
    // A digit byte becomes 0..=9. Any other byte has its top bit set after adding 0x76 (values
    // 10..=0x7f) or before (0x80 and up).
    let digits = bytes ^ 0x3030_3030_3030_3030;
    if (digits.wrapping_add(0x7676_7676_7676_7676) | digits) & 0x8080_8080_8080_8080 != 0 {
        return None;
    }
    let leading_zeros = if digits == 0 { 8 } else { digits.trailing_zeros() / 8 };
    // Neighbouring digits combined in pairs, pairs in fours, fours in the eight (no lane overflows:
    // 99, 9,999 and 99,999,999 fit in 8, 16 and 32 bits).
    let pairs = digits.wrapping_mul(10).wrapping_add(digits >> 8) & 0x00ff_00ff_00ff_00ff;
    let fours = pairs.wrapping_mul(100).wrapping_add(pairs >> 16) & 0x0000_ffff_0000_ffff;
    Some((fours.wrapping_mul(10_000).wrapping_add(fours >> 32) & 0xffff_ffff, leading_zeros))
}

/// The digit at `position`, if the byte there is one.
#[inline(always)]
fn digit_at(text: &[u8], position: usize) -> Option<u64> {
    let digit = text.get(position)?.wrapping_sub(b'0');
    (digit <= 9).then_some(u64::from(digit))
}

/// Rust's correctly rounded parse, for the literals `read_number_at`'s fast path does not take.
fn general_parse(literal: &[u8]) -> Option<f64> {
    // `read_number_at` checked the grammar: ASCII digits, signs, points and exponents.
    std::str::from_utf8(literal).ok()?.parse().ok()
}

fn skip_whitespace(text: &[u8], mut position: usize) -> usize {
    while matches!(text.get(position), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        position += 1;
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<(Vec<f64>, usize)> {
        let mut into = vec![0.0; 16];
        read_number_array_rest(text.as_bytes(), &mut into).map(|(count, end)| (into[..count].to_vec(), end))
    }

    #[test]
    fn json_numbers_read_as_the_nearest_double_up_to_the_closing_bracket() {
        let (values, end) = read("0.012345678359270096, -1e-7 ,3E+2,\n\t-0, 12345678901234567890]  tail").unwrap();
        assert_eq!(values, [0.012345678359270096, -1e-7, 300.0, -0.0, 12345678901234567890.0]);
        assert!(values[3].is_sign_negative(), "-0 stays negative, as in JSON.parse");
        assert_eq!(end, "0.012345678359270096, -1e-7 ,3E+2,\n\t-0, 12345678901234567890]".len());
        assert_eq!(read(" 5 ]"), Some((vec![5.0], 4)));
        // The nearest double to a literal between two: Rust's parse rounds correctly.
        assert_eq!(read("9007199254740993]").unwrap().0, [9007199254740992.0]);
        assert_eq!(read("2.2250738585072011e-308]").unwrap().0, [2.225073858507201e-308]);
    }

    #[test]
    fn anything_json_parse_reads_otherwise_or_refuses_is_left_to_the_slow_path() {
        for text in [
            "+1]",
            "01]",
            "1.]",
            ".5]",
            "1e]",
            "1e+]",
            "NaN]",
            "Infinity]",
            "-]",
            "1 2]",
            "1,]",
            "1,,2]",
            "1",
            "1,2",
            "[1]]",
            "\"1\"]",
            "1e400]",
            "-1e400]",
            "1\u{a0}]",
            "0x10]",
            "1_000]",
        ] {
            assert_eq!(read(text), None, "{text:?}");
        }
        let mut small = [0.0; 2];
        assert_eq!(read_number_array_rest(b"1,2,3]", &mut small), None, "more numbers than places");
        assert_eq!(read_number_array_rest(b"1,2]", &mut small), Some((2, 4)));
    }

    fn arrays(text: &str, minimum_count: usize, places: usize) -> (Vec<(String, Vec<f64>)>, Vec<NumberArray>) {
        let mut into = vec![0.0; places];
        let found = find_number_arrays(text.as_bytes(), minimum_count, &mut into);
        let units: Vec<u16> = text.encode_utf16().collect();
        let read = found
            .iter()
            .map(|array| {
                (String::from_utf16(&units[array.start..array.end]).unwrap(), into[array.first..array.first + array.count].to_vec())
            })
            .collect();
        (read, found)
    }

    #[test]
    fn number_arrays_outside_strings_are_found_at_their_utf16_positions() {
        // Brackets inside strings (escaped quotes too), and characters of one to four UTF-8 bytes
        // (two UTF-16 units for the last) before the arrays.
        let text = r#"{"a":"[1,2,3] \" [4,5,6]","é€😀":[7, 8,9],"m":[[1,2,3],[-4e1,5.5,6]],"s":[1,2]}"#;
        let (read, found) = arrays(text, 3, 64);
        assert_eq!(
            read,
            [
                ("[7, 8,9]".to_string(), vec![7.0, 8.0, 9.0]),
                ("[1,2,3]".to_string(), vec![1.0, 2.0, 3.0]),
                ("[-4e1,5.5,6]".to_string(), vec![-40.0, 5.5, 6.0]),
            ]
        );
        assert_eq!(found.iter().map(|array| array.first).collect::<Vec<_>>(), [0, 3, 6], "one after another in `into`");
        let by_bytes: Vec<&str> = found.iter().map(|array| &text[array.byte_start..array.byte_end]).collect();
        assert_eq!(by_bytes, ["[7, 8,9]", "[1,2,3]", "[-4e1,5.5,6]"], "the same arrays by byte positions");
    }

    #[test]
    fn arrays_the_reader_refuses_or_beyond_safe_integers_or_without_room_stay_in_the_text() {
        let text = r#"[[1,2,"x"],[1,2,+3],[9007199254740993,1,2],[1,2,3],[4,5,6]]"#;
        let (read, _) = arrays(text, 3, 64);
        assert_eq!(read.iter().map(|(part, _)| part.as_str()).collect::<Vec<_>>(), ["[1,2,3]", "[4,5,6]"]);
        let (read, _) = arrays(text, 3, 5);
        assert_eq!(read.iter().map(|(part, _)| part.as_str()).collect::<Vec<_>>(), ["[1,2,3]"], "the second does not fit");
        // An unterminated string hides the rest; an unterminated array is not read.
        assert!(arrays(r#"{"a":"[1,2,3]"#, 1, 8).0.is_empty());
        assert!(arrays("[1,2,3", 1, 8).0.is_empty());
    }

    #[test]
    fn the_fast_path_reads_every_literal_as_rusts_general_parse_does() {
        let mut random = crate::test_support::Random::new(5);
        let mut literals: Vec<String> = [
            "0",
            "-0",
            "0.0",
            "1e22",
            "1e23",
            "123456789012345",
            "1234567890123456",
            "0.000000000000000000000001",
            "9.999999999999999e22",
            "-1E-22",
            "5e-324",
            "1e-400",
            "0.1e1",
            "100e-2",
        ]
        .iter()
        .map(|text| text.to_string())
        .collect();
        for round in 0..100_000 {
            let value = f64::from(random.gaussian()) * 10f64.powi(round % 30 - 15);
            literals.push(match round % 4 {
                0 => format!("{value}"),
                1 => format!("{value:.4}"),
                2 => format!("{value:e}"),
                _ => format!("{:.3}e{}", value, round % 50 - 25),
            });
        }
        // numpy's float32 values as doubles, and literals of 16 to 25 digits: past the fast path.
        for _ in 0..20_000 {
            literals.push(format!("{}", f64::from(random.gaussian() * 0.05)));
            let digits: String = (0..16 + below(&mut random, 10)).map(|_| char::from(b'0' + below(&mut random, 10) as u8)).collect();
            literals.push(format!("0.{digits}"));
            literals.push(format!("-{}{digits}e-{}", 1 + below(&mut random, 9), below(&mut random, 40)));
        }
        for literal in literals {
            let expected: f64 = literal.parse().unwrap();
            let (value, end) = read_number_at(literal.as_bytes(), 0).unwrap();
            assert_eq!(value.to_bits(), expected.to_bits(), "{literal}");
            assert_eq!(end, literal.len(), "{literal}");
        }
    }

    #[test]
    fn eight_bytes_read_at_once_give_what_a_loop_per_digit_gives() {
        let mut random = crate::test_support::Random::new(13);
        let alphabet = b"01234567890000000.,]e-x \xff\x80/:";
        for round in 0..200_000 {
            // Mostly digits, so that whole groups of eight come up often.
            let bytes: [u8; 8] = std::array::from_fn(|_| alphabet[below(&mut random, if round % 2 == 0 { 10 } else { alphabet.len() })]);
            let expected = bytes.iter().all(u8::is_ascii_digit).then(|| {
                let value = bytes.iter().fold(0u64, |value, byte| value * 10 + u64::from(byte - b'0'));
                (value, bytes.iter().take_while(|byte| **byte == b'0').count() as u32)
            });
            assert_eq!(eight_digits(u64::from_le_bytes(bytes)), expected, "{:?}", String::from_utf8_lossy(&bytes));
        }
    }

    fn below(random: &mut crate::test_support::Random, bound: usize) -> usize {
        (random.next_u64() % bound as u64) as usize
    }

    /// JSON's number grammar, spelled out: where the number starting at `position` ends.
    fn grammar_end(text: &[u8], mut position: usize) -> Option<usize> {
        let digit = |at: usize| text.get(at).is_some_and(u8::is_ascii_digit);
        position += usize::from(text.get(position) == Some(&b'-'));
        match text.get(position)? {
            b'0' => position += 1,
            b'1'..=b'9' => {
                while digit(position) {
                    position += 1;
                }
            }
            _ => return None,
        }
        if text.get(position) == Some(&b'.') {
            position += 1;
            if !digit(position) {
                return None;
            }
            while digit(position) {
                position += 1;
            }
        }
        if matches!(text.get(position), Some(b'e' | b'E')) {
            position += 1;
            position += usize::from(matches!(text.get(position), Some(b'+' | b'-')));
            if !digit(position) {
                return None;
            }
            while digit(position) {
                position += 1;
            }
        }
        Some(position)
    }

    #[test]
    fn a_number_ends_where_jsons_grammar_says_and_reads_as_rusts_parse_of_it() {
        let mut random = crate::test_support::Random::new(9);
        let alphabet = b"-+.eE0123456789 ,]x";
        for _ in 0..200_000 {
            let length = 1 + below(&mut random, 12);
            let text: Vec<u8> = (0..length).map(|_| alphabet[below(&mut random, alphabet.len())]).collect();
            let read = read_number_at(&text, 0);
            let expected_end = grammar_end(&text, 0);
            assert_eq!(read.map(|(_, end)| end), expected_end, "{:?}", String::from_utf8_lossy(&text));
            if let (Some((value, end)), Some(_)) = (read, expected_end) {
                let expected: f64 = std::str::from_utf8(&text[..end]).unwrap().parse().unwrap();
                assert_eq!(value.to_bits(), expected.to_bits(), "{:?}", String::from_utf8_lossy(&text));
            }
        }
    }
}
