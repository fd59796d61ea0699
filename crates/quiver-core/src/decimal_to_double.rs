//! The double nearest to `digits × 10^exponent` for up to 19 decimal digits, by one 64 × 128-bit
//! multiplication with a power of five (the idea of Eisel and Lemire's parser: the product's top
//! bits are the double's, and its lower bits tell whether they can be trusted).
//!
//! For json_numbers.rs: Python clients send a float32 embedding as the doubles numpy widens it
//! to, 16–17 significant digits (`0.012345678359270096`), past Clinger's fast path (at most 15
//! digits), and Rust's general parse read each such literal again from its text: ~31 µs of the
//! JS thread for a 768-number body against ~9 µs for four decimals (bench/README.md, "Long
//! query numbers without a second parse"). The digits and the exponent are already in hand
//! there, so only the multiplication is left to do.
//!
//! Ties are settled exactly (a positive exponent's product is exact; a negative one's decimal is
//! a tie only if it is dyadic, and a dyadic one is computed another way). The one refusal within
//! the table's range is a product whose unknown low part could carry into the kept bits.

/// The decimal exponents the table covers: every product in this range is a normal double
/// (`1 × 10^-50` to `(2^64 - 1) × 10^50`), so no subnormal or overflow case arises here.
const SMALLEST_EXPONENT: i64 = -50;
const LARGEST_EXPONENT: i64 = 50;
const POWERS: usize = (LARGEST_EXPONENT - SMALLEST_EXPONENT + 1) as usize;

/// 5^q as `significand × 2^binary_exponent`, the significand's top bit set; exact for q ≥ 0
/// (5^50 has 117 bits), rounded down for q < 0.
#[derive(Clone, Copy)]
struct PowerOfFive {
    significand: u128,
    binary_exponent: i64,
}

/// Made when the crate is compiled (a const fn), so nothing is computed or copied at run time.
const POWERS_OF_FIVE: [PowerOfFive; POWERS] = powers_of_five();

const fn powers_of_five() -> [PowerOfFive; POWERS] {
    let mut table = [PowerOfFive { significand: 0, binary_exponent: 0 }; POWERS];
    let mut index = 0;
    while index < POWERS {
        let exponent = SMALLEST_EXPONENT + index as i64;
        let power = 5u128.pow(exponent.unsigned_abs() as u32);
        let bits = 128 - power.leading_zeros();
        table[index] = if exponent >= 0 {
            PowerOfFive { significand: power << (128 - bits), binary_exponent: bits as i64 - 128 }
        } else {
            // 2^(127 + bits) ÷ 5^-q lies in (2^127, 2^128): 5^-q is not a power of two.
            PowerOfFive { significand: reciprocal(power, bits), binary_exponent: -(127 + bits as i64) }
        };
        index += 1;
    }
    table
}

/// ⌊2^(127 + bits) ÷ divisor⌋ for a divisor of `bits` bits (at most 117, so the remainder's
/// doubling never overflows), by long division a bit at a time.
const fn reciprocal(divisor: u128, bits: u32) -> u128 {
    // The numerator's leading 1 is the first remainder; its 127 + bits zeros follow.
    let mut remainder: u128 = 1;
    let mut quotient: u128 = 0;
    let mut step = 0;
    while step < 127 + bits {
        remainder <<= 1;
        quotient <<= 1;
        if remainder >= divisor {
            remainder -= divisor;
            quotient |= 1;
        }
        step += 1;
    }
    quotient
}

/// The double nearest to `digits × 10^exponent`, or `None` when this cannot be sure of it (the
/// caller then parses the literal in full): a zero, an exponent outside ±50, or, for a negative
/// exponent, a decimal that is not dyadic yet whose product's unknown low part could carry into
/// the kept bits (a chance of about 2^-64 a literal).
#[inline(never)]
pub fn nearest_double(digits: u64, exponent: i64) -> Option<f64> {
    if digits == 0 || !(SMALLEST_EXPONENT..=LARGEST_EXPONENT).contains(&exponent) {
        return None;
    }
    let power = POWERS_OF_FIVE[(exponent - SMALLEST_EXPONENT) as usize];
    let shift = digits.leading_zeros();
    let normalized = u128::from(digits << shift);
    // normalized × significand, 192 bits, as `high`, `middle` and the low word of `lower`.
    let upper = normalized * (power.significand >> 64);
    let lower = normalized * (power.significand as u64 as u128);
    let (middle, carry) = (upper as u64).overflowing_add((lower >> 64) as u64);
    let high = (upper >> 64) as u64 + u64::from(carry);
    let exact = exponent >= 0;
    // A rounded-down power leaves the true product above this one by less than `normalized`,
    // under 2^64 in the low word: it can carry into `middle`, and past it only if it is all ones,
    // which is where a dyadic decimal's product lands (its true one ends in zeros).
    if !exact && middle == u64::MAX {
        return dyadic_double(digits, exponent);
    }
    // The product's top bit is bit 191 or 190: keep 53 bits from there, then the rounding bit.
    let dropped = 10 + (high >> 63) as u32;
    let kept = high >> dropped;
    let rounding = (high >> (dropped - 1)) & 1;
    let mut significand = if high & ((1u64 << (dropped - 1)) - 1) != 0 || middle != 0 {
        // Bits set below the rounding bit (in the true product too, which is not smaller): not a
        // tie, so the rounding bit alone says up or down.
        kept + rounding
    } else if exact {
        // The whole product is known: exactly a double, or a tie that goes to the even one.
        kept + (rounding & (u64::from(lower as u64 != 0) | kept))
    } else if let Some(value) = dyadic_double(digits, exponent) {
        // Perhaps a tie or exactly a double, which the rounded-down power hides.
        return Some(value);
    } else {
        // Not dyadic: its binary digits never end, so it is no tie, whatever this product shows.
        kept + rounding
    };
    // value = product × 2^(binary_exponent + exponent - shift), product ≈ kept × 2^(128 + dropped).
    let mut scale = 128 + i64::from(dropped) + power.binary_exponent + exponent - i64::from(shift);
    if significand == 1 << 53 {
        significand = 1 << 52;
        scale += 1;
    }
    // Every value of the table's range is a normal double: 1 ≤ biased exponent ≤ 2046.
    let biased = (scale + 52 + 1023) as u64;
    Some(f64::from_bits((biased << 52) | (significand & ((1 << 52) - 1))))
}

/// `digits × 10^exponent` for a negative exponent when it is a dyadic fraction (5^-exponent
/// divides the digits): the quotient times 2^exponent, which the integer's conversion rounds
/// (ties to even) and the power scales exactly (the table's range holds normal doubles only).
/// `None` otherwise. Asked only when the product's known bits cannot tell.
#[cold]
fn dyadic_double(digits: u64, exponent: i64) -> Option<f64> {
    let power = 5u64.checked_pow(exponent.unsigned_abs() as u32)?;
    digits.is_multiple_of(power).then(|| (digits / power) as f64 * f64::from_bits(((1023 + exponent) as u64) << 52))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Random;

    /// nearest_double against Rust's parse of the same decimal; whether it answered.
    fn agrees(digits: u64, exponent: i64) -> bool {
        let expected: f64 = format!("{digits}e{exponent}").parse().unwrap();
        match nearest_double(digits, exponent) {
            Some(value) => {
                assert_eq!(value.to_bits(), expected.to_bits(), "{digits}e{exponent}");
                true
            }
            None => false,
        }
    }

    /// Tallies, of the decimals the table covers (non-zero digits, exponent within ±50), how
    /// many nearest_double answered; checks every answer it gives.
    #[derive(Default)]
    struct Tally {
        covered: usize,
        answered: usize,
    }

    impl Tally {
        fn check(&mut self, digits: u64, exponent: i64) {
            let answered = agrees(digits, exponent);
            if digits != 0 && (SMALLEST_EXPONENT..=LARGEST_EXPONENT).contains(&exponent) {
                self.covered += 1;
                self.answered += usize::from(answered);
            } else {
                assert!(!answered, "{digits}e{exponent} is outside the table");
            }
        }
    }

    #[test]
    fn the_table_holds_each_power_of_five_to_its_last_bit() {
        for (index, power) in POWERS_OF_FIVE.iter().enumerate() {
            let exponent = SMALLEST_EXPONENT + index as i64;
            assert!(power.significand >> 127 == 1, "5^{exponent} is normalised");
            let magnitude = 5u128.pow(exponent.unsigned_abs() as u32);
            if exponent >= 0 {
                assert_eq!(power.significand >> -(power.binary_exponent) as u32, magnitude, "5^{exponent}");
            } else {
                // significand ≤ 2^k ÷ 5^m < significand + 1, with k = -binary_exponent: checked as
                // significand × 5^m ≤ 2^k < (significand + 1) × 5^m on 256-bit products.
                let k = -power.binary_exponent as u32;
                let below = wide_product(power.significand, magnitude);
                let above = wide_product(power.significand + 1, magnitude);
                let two_to_k = if k >= 128 { (1u128 << (k - 128), 0u128) } else { (0, 1u128 << k) };
                assert!(below <= two_to_k && two_to_k < above, "1/5^{}", -exponent);
            }
        }
    }

    /// a × b as (high, low) 128-bit halves, a and b each below 2^128.
    fn wide_product(a: u128, b: u128) -> (u128, u128) {
        let mask = u128::from(u64::MAX);
        let (a_high, a_low, b_high, b_low) = (a >> 64, a & mask, b >> 64, b & mask);
        let low = a_low * b_low;
        let cross = (a_high * b_low) + ((a_low * b_high) & mask) + (low >> 64);
        let high = a_high * b_high + (cross >> 64) + ((a_low * b_high) >> 64);
        (high, (cross << 64) | (low & mask))
    }

    #[test]
    fn every_answer_is_the_double_rusts_parse_gives_and_answers_are_the_rule() {
        let mut random = Random::new(29);
        let mut tally = Tally::default();
        for round in 0..400_000 {
            // 1 to 19 digits at random lengths, every exponent of the table and a few beyond it.
            let length = 1 + (random.next_u64() % 19) as u32;
            tally.check(random.next_u64() % 10u64.pow(length), (random.next_u64() % 111) as i64 - 55);
            // A float32 as numpy widens it and Python prints it: the shortest decimal that reads
            // back as that double, mostly 16–17 digits (`0.012345678359270096`).
            let value = f64::from(random.printing_sample(round)) * 10f64.powi((round % 20) as i32 - 10);
            if value.is_finite() && value != 0.0 {
                let text = format!("{:e}", value.abs());
                let (mantissa, power) = text.split_once('e').unwrap();
                let fraction_digits = mantissa.split_once('.').map_or(0, |(_, fraction)| fraction.len()) as i64;
                tally.check(mantissa.replace('.', "").parse().unwrap(), power.parse::<i64>().unwrap() - fraction_digits);
            }
        }
        // Within the table only a product that could carry is refused, about 2^-64 of them.
        assert_eq!(tally.answered, tally.covered);
    }

    #[test]
    fn decimals_near_a_tie_between_two_doubles_are_never_rounded_the_wrong_way() {
        let mut random = Random::new(31);
        for round in 0..200_000 {
            // The midpoint of two neighbouring doubles in [2^-j, 2^(1-j)), (2^53 + 2m + 1) ×
            // 2^-(53 + j), times 10^(18 + t), rounded down and up: the two 19-digit decimals
            // around the tie, a hair to either side of it (the hardest to round).
            let j: usize = round % 12;
            let t = (j * 30_103).div_ceil(100_000);
            let odd = (1u128 << 53) + 2 * u128::from(random.next_u64() % (1 << 52)) + 1;
            let scaled = odd * 10u128.pow((18 + t) as u32);
            let below = (scaled >> (53 + j)) as u64;
            let exponent = -((18 + t) as i64);
            agrees(below, exponent);
            agrees(below + 1, exponent);
            // Integers of 19 digits in [2^62, 2^63), where doubles lie 2^10 apart: exact ties,
            // which go to the even neighbour, and the integers either side of them.
            let tie = (1u64 << 62) + (random.next_u64() % (1 << 52)) * 1024 + 512;
            assert!(agrees(tie, 0) && agrees(tie - 1, 0) && agrees(tie + 1, 0), "{tie}");
        }
    }

    #[test]
    fn only_zero_and_exponents_outside_the_table_are_left_to_the_full_parse() {
        assert_eq!(nearest_double(0, -5), None);
        assert_eq!(nearest_double(1, -51), None);
        assert_eq!(nearest_double(1, 51), None);
        // Dyadic decimals, whose products land just under a round number: exactly 0.5, 0.375
        // and 2^-10, and 2^52 + 0.5, a tie between 2^52 and 2^52 + 1 that goes to the even one.
        assert_eq!(nearest_double(5, -1), Some(0.5));
        assert_eq!(nearest_double(375, -3), Some(0.375));
        assert_eq!(nearest_double(9_765_625, -10), Some(1.0 / 1024.0));
        assert_eq!(nearest_double(45_035_996_273_704_965, -1), Some(4_503_599_627_370_496.0));
        assert_eq!(nearest_double(45_035_996_273_704_975, -1), Some(4_503_599_627_370_498.0));
        // Ties with a positive exponent are known exactly: 2^53 + 1 goes to 2^53, 2^53 + 3 to
        // 2^53 + 4 (the even significands), and 2^53 + 1 written with a negative exponent too.
        assert_eq!(nearest_double(9_007_199_254_740_993, 0), Some(9_007_199_254_740_992.0));
        assert_eq!(nearest_double(9_007_199_254_740_995, 0), Some(9_007_199_254_740_996.0));
        assert!(agrees(900_719_925_474_099_300, -2));
        assert!(agrees(12_345_678_359_270_096, -18));
        assert!(agrees(u64::MAX, 50));
        assert!(agrees(1, -50));
    }
}
