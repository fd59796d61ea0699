//! Distance kernels over quantized codes: a scalar twin for each primitive, SIMD versions
//! chosen once per quantizer (`CodeKernels::detect`), every one tested against its twin.
//!
//! - `dot_u8`: Σ a·b over unsigned 8-bit codes (scalar quantization, every metric but L1);
//! - `l1_u8`: Σ |a − b| (scalar quantization under Manhattan);
//! - `hamming`: popcount(a XOR b) over bit-packed codes (binary quantization);
//! - `levels`: Σ |level(a) − level(b)| over four-level codes (`two_bits`), each a sign plane then
//!   a magnitude plane of equal length (binary.rs): level 0 is (sign 0, magnitude 1), then (0, 0),
//!   (1, 0), (1, 1). With x = sign XOR sign' and y = magnitude XOR magnitude', a dimension's
//!   distance is odd exactly when x XOR y (a level's parity is NOT(sign XOR magnitude)), and at
//!   least 2 exactly when x AND (y OR magnitude) (the signs differ, and unless the magnitudes
//!   do too both are outer levels), so the sum is popcount(x XOR y) + 2·popcount(x AND (y OR
//!   magnitude)); zero padding on both sides counts nothing;
//! - `plane_dot`: Σ_k 2^k · popcount(query plane k AND code) — an unsigned query of up to 8 bits
//!   per position, stored as bit planes, dotted with a bit-packed code (binary quantization with
//!   an asymmetric `scalar8bits` / `scalar4bits` query encoding).

/// A kernel over two equal-length code slices; the result is exact (integer arithmetic).
pub type CodeKernel = fn(&[u8], &[u8]) -> u32;

/// One set of code kernels for an instruction set.
#[derive(Clone, Copy)]
pub struct CodeKernels {
    pub name: &'static str,
    pub dot_u8: CodeKernel,
    pub l1_u8: CodeKernel,
    pub hamming: CodeKernel,
    /// Both sides: four-level codes, sign plane then magnitude plane.
    pub levels: CodeKernel,
    /// Left: the query's bit planes, `planes × right.len()` bytes, plane k weighing 2^k.
    pub plane_dot: CodeKernel,
}

pub const SCALAR: CodeKernels = CodeKernels {
    name: "scalar",
    dot_u8: scalar_dot_u8,
    l1_u8: scalar_l1_u8,
    hamming: scalar_hamming,
    levels: scalar_levels,
    plane_dot: scalar_plane_dot,
};

/// At most 8 planes (a u8 query), so Σ stays under 255 · 2^17 bits < 2³².
pub const MAX_PLANES: usize = 8;

/// How many query planes a `plane_dot` call carries; panics on a malformed call (a bug).
#[inline(always)]
pub fn plane_count(planes: &[u8], code: &[u8]) -> usize {
    if code.is_empty() {
        assert!(planes.is_empty(), "plane_dot: planes without a code");
        return 0;
    }
    assert!(planes.len().is_multiple_of(code.len()) && planes.len() / code.len() <= MAX_PLANES, "plane_dot: length mismatch");
    planes.len() / code.len()
}

/// Σ a·b. 255² · 65,536 (the largest dimension) < 2³², so a u32 never overflows.
pub fn scalar_dot_u8(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "dot_u8: length mismatch");
    left.iter().zip(right).map(|(a, b)| *a as u32 * *b as u32).sum()
}

pub fn scalar_l1_u8(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "l1_u8: length mismatch");
    left.iter().zip(right).map(|(a, b)| a.abs_diff(*b) as u32).sum()
}

/// Bit by bit on purpose: the twin must not share the fast path's word tricks.
pub fn scalar_hamming(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "hamming: length mismatch");
    let mut count = 0;
    for (a, b) in left.iter().zip(right) {
        for bit in 0..8 {
            if (a >> bit) & 1 != (b >> bit) & 1 {
                count += 1;
            }
        }
    }
    count
}

/// The two halves of a four-level code (sign plane, magnitude plane); panics on an odd length or
/// a length mismatch (a bug).
#[inline(always)]
pub fn level_planes<'a>(left: &'a [u8], right: &'a [u8]) -> ([&'a [u8]; 2], [&'a [u8]; 2]) {
    assert!(left.len() == right.len() && left.len().is_multiple_of(2), "levels: length mismatch");
    let half = left.len() / 2;
    let (left_signs, left_magnitudes) = left.split_at(half);
    let (right_signs, right_magnitudes) = right.split_at(half);
    ([left_signs, left_magnitudes], [right_signs, right_magnitudes])
}

/// Bit by bit, each dimension's level looked up from its (sign, magnitude) pair.
pub fn scalar_levels(left: &[u8], right: &[u8]) -> u32 {
    let ([left_signs, left_magnitudes], [right_signs, right_magnitudes]) = level_planes(left, right);
    let level = |signs: &[u8], magnitudes: &[u8], index: usize| -> i32 {
        let bit = |plane: &[u8]| (plane[index / 8] >> (index % 8)) & 1 == 1;
        match (bit(signs), bit(magnitudes)) {
            (false, true) => 0,
            (false, false) => 1,
            (true, false) => 2,
            (true, true) => 3,
        }
    };
    (0..8 * left_signs.len())
        .map(|index| level(left_signs, left_magnitudes, index).abs_diff(level(right_signs, right_magnitudes, index)))
        .sum()
}

/// The level distance a 64-bit word of each plane at a time, the last bytes one at a time: the
/// POPCNT kernel (x86.rs, inlined under its target feature, where `count_ones` is POPCNT) and
/// NEON's (`count_ones` is CNT there).
#[inline(always)]
pub fn levels_by_words(left: &[u8], right: &[u8]) -> u32 {
    let (left, right) = level_planes(left, right);
    levels_of_planes(left, right)
}

/// `levels_by_words` over plane slices of equal length (also the AVX-512 kernel's last bytes).
#[inline(always)]
pub fn levels_of_planes([left_signs, left_magnitudes]: [&[u8]; 2], [right_signs, right_magnitudes]: [&[u8]; 2]) -> u32 {
    let word = |bytes: &[u8], index: usize| u64::from_le_bytes(bytes[8 * index..8 * index + 8].try_into().unwrap_or([0; 8]));
    let words = left_signs.len() / 8;
    let mut total = 0u32;
    for index in 0..words {
        total += level_word_distance(
            word(left_signs, index),
            word(left_magnitudes, index),
            word(right_signs, index),
            word(right_magnitudes, index),
        );
    }
    for index in 8 * words..left_signs.len() {
        // Bytes widened with their high bits equal on both sides, so those count nothing.
        let byte = |plane: &[u8]| plane[index] as u64;
        total += level_word_distance(byte(left_signs), byte(left_magnitudes), byte(right_signs), byte(right_magnitudes));
    }
    total
}

/// One word of each plane: |level − level'| summed over its bits, by the parity identity of the
/// module's comment.
#[inline(always)]
fn level_word_distance(left_sign: u64, left_magnitude: u64, right_sign: u64, right_magnitude: u64) -> u32 {
    let (signs, magnitudes) = (left_sign ^ right_sign, left_magnitude ^ right_magnitude);
    (signs ^ magnitudes).count_ones() + 2 * (signs & (magnitudes | left_magnitude)).count_ones()
}

/// Bit by bit, like `scalar_hamming`: Σ over planes k and bit positions i of 2^k·(q_k,i AND c_i).
pub fn scalar_plane_dot(planes: &[u8], code: &[u8]) -> u32 {
    let count = plane_count(planes, code);
    let mut total = 0u32;
    for plane in 0..count {
        let query = &planes[plane * code.len()..(plane + 1) * code.len()];
        for (a, b) in query.iter().zip(code) {
            for bit in 0..8 {
                if (a >> bit) & 1 == 1 && (b >> bit) & 1 == 1 {
                    total += 1 << plane;
                }
            }
        }
    }
    total
}

/// Every code-kernel set usable on this CPU, slowest first.
pub fn available() -> Vec<CodeKernels> {
    let mut sets = vec![SCALAR];
    #[cfg(target_arch = "x86_64")]
    sets.extend(super::x86::available());
    #[cfg(target_arch = "aarch64")]
    sets.push(super::neon::NEON);
    sets
}

impl CodeKernels {
    /// The fastest set this CPU supports.
    pub fn detect() -> CodeKernels {
        *available().last().unwrap_or(&SCALAR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // 96 and 144: 768-d one_bit and one_and_half_bits codes, whose last 32 and 16 bytes do not
    // fill an AVX-512 register.
    const LENGTHS: [usize; 14] = [1, 3, 7, 8, 15, 16, 31, 32, 33, 64, 96, 100, 144, 1543];

    fn codes(length: usize, seed: u32) -> Vec<u8> {
        (0..length).map(|i| ((i as u32).wrapping_mul(2654435761).wrapping_add(seed.wrapping_mul(40503)) >> 7) as u8).collect()
    }

    #[test]
    fn every_code_kernel_matches_its_scalar_twin_on_awkward_lengths() {
        let sets = available();
        // Name what ran: a machine without AVX-512 or NEON does not cover those kernels.
        eprintln!("code kernels checked against scalar here: {:?}", sets.iter().map(|set| set.name).collect::<Vec<_>>());
        for set in sets {
            for length in LENGTHS {
                let (a, b) = (codes(length, 1), codes(length, 9));
                assert_eq!((set.dot_u8)(&a, &b), scalar_dot_u8(&a, &b), "{} dot_u8 length {length}", set.name);
                assert_eq!((set.l1_u8)(&a, &b), scalar_l1_u8(&a, &b), "{} l1_u8 length {length}", set.name);
                assert_eq!((set.hamming)(&a, &b), scalar_hamming(&a, &b), "{} hamming length {length}", set.name);
                let (c, d) = (codes(2 * length, 3), codes(2 * length, 11));
                assert_eq!((set.levels)(&c, &d), scalar_levels(&c, &d), "{} levels length {}", set.name, 2 * length);
                for planes in [1, 4, 8] {
                    let query: Vec<u8> = (0..planes).flat_map(|plane| codes(length, 20 + plane as u32)).collect();
                    assert_eq!(
                        (set.plane_dot)(&query, &b),
                        scalar_plane_dot(&query, &b),
                        "{} plane_dot {planes} planes length {length}",
                        set.name
                    );
                }
            }
        }
    }

    #[test]
    fn the_level_distance_counts_how_many_levels_apart_each_dimension_is() {
        // Dimensions 0..4 at levels 0, 1, 2, 3 against levels 3, 1, 0, 2: distances 3, 0, 2, 1.
        // Level 0 = (sign 0, magnitude 1), 1 = (0, 0), 2 = (1, 0), 3 = (1, 1).
        let left = [0b0000_1100u8, 0b0000_1001];
        let right = [0b0000_1001u8, 0b0000_0101];
        for set in available() {
            assert_eq!((set.levels)(&left, &right), 6, "{}", set.name);
        }
    }

    #[test]
    fn plane_dot_is_the_dot_product_of_the_query_values_with_the_code_bits() {
        // Query values 0..=255 split into 8 planes: the kernel must give Σ value·bit.
        let values: Vec<u8> = (0..19).map(|i| (i * 37 % 256) as u8).collect();
        let code = [0b1011_0110u8, 0b0101_1101, 0b0000_0111];
        let mut planes = vec![0u8; 8 * 3];
        for (position, value) in values.iter().enumerate() {
            for plane in 0..8 {
                if (value >> plane) & 1 == 1 {
                    planes[plane * 3 + position / 8] |= 1 << (position % 8);
                }
            }
        }
        let expected: u32 = values
            .iter()
            .enumerate()
            .filter(|(position, _)| (code[position / 8] >> (position % 8)) & 1 == 1)
            .map(|(_, value)| *value as u32)
            .sum();
        for set in available() {
            assert_eq!((set.plane_dot)(&planes, &code), expected, "{}", set.name);
        }
    }

    #[test]
    fn code_kernels_hold_their_extremes_without_overflow() {
        // All-255 codes at the largest dimension: the worst case for the integer sums.
        let full = vec![255u8; 65_536];
        let zero = vec![0u8; 65_536];
        for set in available() {
            assert_eq!((set.dot_u8)(&full, &full), 255 * 255 * 65_536, "{}", set.name);
            assert_eq!((set.l1_u8)(&full, &zero), 255 * 65_536, "{}", set.name);
            assert_eq!((set.hamming)(&full, &zero), 8 * 65_536, "{}", set.name);
            // Four levels at the largest dimension, every level 3 against every level 0.
            let (highest, lowest) = (vec![255u8; 16_384], [vec![0u8; 8_192], vec![255u8; 8_192]].concat());
            assert_eq!((set.levels)(&highest, &lowest), 3 * 65_536, "{}", set.name);
            // Two bits per dimension at the largest dimension, every query plane full.
            let code = vec![255u8; 16_384];
            let planes = vec![255u8; 8 * 16_384];
            assert_eq!((set.plane_dot)(&planes, &code), 255 * 8 * 16_384, "{}", set.name);
        }
    }

    #[test]
    fn code_kernels_read_only_their_slice_inside_a_larger_buffer() {
        let mut buffer = [0xFFu8; 96];
        let inner = codes(37, 4);
        buffer[5..42].copy_from_slice(&inner);
        let other = codes(37, 8);
        for set in available() {
            assert_eq!((set.dot_u8)(&buffer[5..42], &other), scalar_dot_u8(&inner, &other), "{}", set.name);
            assert_eq!((set.hamming)(&buffer[5..42], &other), scalar_hamming(&inner, &other), "{}", set.name);
            assert_eq!((set.levels)(&buffer[5..41], &other[..36]), scalar_levels(&inner[..36], &other[..36]), "{}", set.name);
            let planes: Vec<u8> = (0..8).flat_map(|plane| codes(37, 30 + plane)).collect();
            assert_eq!((set.plane_dot)(&planes, &buffer[5..42]), scalar_plane_dot(&planes, &inner), "{}", set.name);
        }
    }
}
