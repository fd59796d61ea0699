//! The numbers of one JSON array, read into doubles: the rest of a vector in an upsert body
//! (src/json/upsert-body-parser.ts hands it over from a number it cannot read exactly itself).
//! Python clients send float32 embeddings as the doubles numpy widens them to, 16–17
//! significant digits (`0.012345678359270096`), which JavaScript can read exactly only through
//! `Number()` of a sliced string: a 1,000 × 768 body took 0.43–0.55 s to parse, three times
//! `JSON.parse` (bench/README.md, "Long numbers in upserts"). Rust's `f64` parsing is correctly
//! rounded, so each value is the one `JSON.parse` gives.
//!
//! Only what JSON.parse reads the same way is accepted: `number (ws , ws number)* ws ]` with
//! JSON's number grammar (no `+`, no leading zeros, digits on both sides of a point, no `NaN`
//! or `Infinity`) and JSON's four whitespace characters. Anything else, a literal beyond the
//! double range (which JSON.parse makes ±Infinity and the API refuses), or more numbers than
//! `into` holds, is `None`: the caller then parses the body the slow, exact way, whose answer
//! (a value or a 400) stands.

/// Reads `text` (what follows `[` or a comma inside an array, up to its `]`) into `into`;
/// returns how many numbers and the position just after the `]`.
pub fn read_number_array_rest(text: &[u8], into: &mut [f64]) -> Option<(usize, usize)> {
    let mut position = skip_whitespace(text, 0);
    let mut count = 0;
    loop {
        let end = number_end(text, position)?;
        // The grammar was checked above; this is ASCII digits, signs, points and exponents.
        let literal = std::str::from_utf8(&text[position..end]).ok()?;
        let value: f64 = literal.parse().ok()?;
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

fn skip_whitespace(text: &[u8], mut position: usize) -> usize {
    while matches!(text.get(position), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        position += 1;
    }
    position
}

/// The end of the JSON number starting at `position`, if one does.
fn number_end(text: &[u8], mut position: usize) -> Option<usize> {
    let digit = |at: usize| text.get(at).is_some_and(u8::is_ascii_digit);
    if text.get(position) == Some(&b'-') {
        position += 1;
    }
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
        if matches!(text.get(position), Some(b'+' | b'-')) {
            position += 1;
        }
        if !digit(position) {
            return None;
        }
        while digit(position) {
            position += 1;
        }
    }
    Some(position)
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
}
