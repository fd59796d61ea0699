//! x86-64 code kernels behind `#[target_feature]`, handed out only after run-time detection.
//! Each wrapper checks the lengths, so the unchecked pointer reads stay in bounds. Tails that do
//! not fill a register: the AVX-512 byte kernels (u8 dot, L1) load them masked, its bit kernels
//! (Hamming, levels, plane dot) take a last 32 bytes whole and then words with POPCNT, since a
//! masked 64-byte load spans the next row's unprefetched line; AVX2 sends the byte sums through
//! the scalar twin and counts the bits of the last bytes itself, a byte at a time.

use super::kernels::{level_planes, levels_by_words, levels_of_planes, plane_count, scalar_dot_u8, scalar_l1_u8, CodeKernels};
use std::arch::x86_64::*;

/// AVX2 for the u8 kernels (widen to i16, multiply-add pairs; SAD for L1) and the POPCNT
/// instruction, one 64-bit word at a time, for the bit kernels.
pub const AVX2: CodeKernels = CodeKernels {
    name: "avx2+popcnt",
    dot_u8: dot_u8_avx2,
    l1_u8: l1_u8_avx2,
    hamming: hamming_popcnt,
    levels: levels_popcnt,
    plane_dot: plane_dot_popcnt,
};

/// AVX-512 VNNI (VPDPBUSD: u8 × i8 → i32 in one instruction) for the dot product, AVX-512BW
/// SAD for L1, VPOPCNTDQ for the bit kernels.
pub const AVX512_VNNI: CodeKernels = CodeKernels {
    name: "avx512vnni+vpopcntdq",
    dot_u8: dot_u8_vnni,
    l1_u8: l1_u8_avx512,
    hamming: hamming_avx512,
    levels: levels_avx512,
    plane_dot: plane_dot_avx512,
};

pub fn available() -> Vec<CodeKernels> {
    let mut sets = Vec::new();
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
        sets.push(AVX2);
    }
    if is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vnni")
        && is_x86_feature_detected!("avx512vpopcntdq")
        && is_x86_feature_detected!("popcnt")
    {
        sets.push(AVX512_VNNI);
    }
    sets
}

fn dot_u8_avx2(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "dot_u8: length mismatch");
    // SAFETY: handed out only after AVX2 was detected; lengths checked above.
    unsafe { dot_u8_avx2_unchecked(left, right) }
}

fn l1_u8_avx2(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "l1_u8: length mismatch");
    // SAFETY: as in dot_u8_avx2.
    unsafe { l1_u8_avx2_unchecked(left, right) }
}

fn hamming_popcnt(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "hamming: length mismatch");
    // SAFETY: handed out only after POPCNT was detected.
    unsafe { hamming_popcnt_unchecked(left, right) }
}

fn levels_popcnt(left: &[u8], right: &[u8]) -> u32 {
    // SAFETY: handed out only after POPCNT was detected (levels_by_words checks the lengths).
    unsafe { levels_popcnt_unchecked(left, right) }
}

fn levels_avx512(left: &[u8], right: &[u8]) -> u32 {
    let planes = level_planes(left, right);
    // SAFETY: handed out only after AVX-512F/BW and VPOPCNTDQ were detected; lengths checked.
    unsafe { levels_avx512_unchecked(planes) }
}

fn plane_dot_popcnt(planes: &[u8], code: &[u8]) -> u32 {
    let count = plane_count(planes, code);
    // SAFETY: handed out only after POPCNT was detected; plane_count checked the lengths.
    unsafe { plane_dot_popcnt_unchecked(planes, code, count) }
}

fn plane_dot_avx512(planes: &[u8], code: &[u8]) -> u32 {
    let count = plane_count(planes, code);
    // SAFETY: handed out only after AVX-512F/BW and VPOPCNTDQ were detected; lengths checked.
    unsafe { plane_dot_avx512_unchecked(planes, code, count) }
}

fn dot_u8_vnni(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "dot_u8: length mismatch");
    // SAFETY: handed out only after AVX-512F/BW/VNNI were detected; lengths checked above.
    unsafe { dot_u8_vnni_unchecked(left, right) }
}

fn l1_u8_avx512(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "l1_u8: length mismatch");
    // SAFETY: as in dot_u8_vnni.
    unsafe { l1_u8_avx512_unchecked(left, right) }
}

fn hamming_avx512(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "hamming: length mismatch");
    // SAFETY: handed out only after AVX-512F/BW and VPOPCNTDQ were detected.
    unsafe { hamming_avx512_unchecked(left, right) }
}

/// The first `count` (< 64) bytes of a 64-byte register: the AVX-512 byte kernels (u8 dot, L1)
/// load a code's tail with it, so the bytes past the end read as zeros (a masked load does not
/// fault on them). The bit kernels do not: the span reaches into the next row's line (see
/// `load32_widened`).
#[inline(always)]
fn tail_mask(count: usize) -> __mmask64 {
    debug_assert!(count < 64);
    (1u64 << count) - 1
}

/// 32 bytes at `pointer` in the low half of a register, the high half zero: how the AVX-512 bit
/// kernels read a code's last 32 bytes. A masked 64-byte load there spans the bytes after the
/// code, in a walk the next row's line, not prefetched; a profile put a third of the level
/// kernel's time on it (bench/README.md, "Four levels for two bits"). What remains after these
/// 32 bytes is counted a word at a time with POPCNT, not through the bit-by-bit twins, which
/// made a 768-d one_bit `scalar8bits` search five times slower (bench/README.md, "Code tails").
#[inline(always)]
unsafe fn load32_widened(pointer: *const u8) -> __m512i {
    _mm512_zextsi256_si512(_mm256_loadu_si256(pointer as *const __m256i))
}

#[target_feature(enable = "avx2")]
unsafe fn sum_i32x8(value: __m256i) -> u64 {
    let mut lanes = [0i32; 8];
    _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, value);
    lanes.iter().map(|lane| *lane as u32 as u64).sum()
}

#[target_feature(enable = "avx2")]
unsafe fn sum_u64x4(value: __m256i) -> u64 {
    let mut lanes = [0u64; 4];
    _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, value);
    lanes.iter().sum()
}

// 32 codes per step: both operands widened to i16 the same way (interleaved with zero), then
// VPMADDWD sums adjacent products into i32 lanes. A lane's total stays under 2³¹ at the
// largest dimension (65,536 / 8 lanes · 255²), and the lanes are summed as u64.
#[target_feature(enable = "avx2")]
unsafe fn dot_u8_avx2_unchecked(left: &[u8], right: &[u8]) -> u32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let zero = _mm256_setzero_si256();
    let mut sum = _mm256_setzero_si256();
    let mut offset = 0;
    while offset + 32 <= length {
        let x = _mm256_loadu_si256(a.add(offset) as *const __m256i);
        let y = _mm256_loadu_si256(b.add(offset) as *const __m256i);
        let low = _mm256_madd_epi16(_mm256_unpacklo_epi8(x, zero), _mm256_unpacklo_epi8(y, zero));
        let high = _mm256_madd_epi16(_mm256_unpackhi_epi8(x, zero), _mm256_unpackhi_epi8(y, zero));
        sum = _mm256_add_epi32(sum, _mm256_add_epi32(low, high));
        offset += 32;
    }
    (sum_i32x8(sum) + scalar_dot_u8(&left[offset..], &right[offset..]) as u64) as u32
}

// VPSADBW: sums of absolute differences of 8 bytes into each 64-bit lane.
#[target_feature(enable = "avx2")]
unsafe fn l1_u8_avx2_unchecked(left: &[u8], right: &[u8]) -> u32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut sum = _mm256_setzero_si256();
    let mut offset = 0;
    while offset + 32 <= length {
        let x = _mm256_loadu_si256(a.add(offset) as *const __m256i);
        let y = _mm256_loadu_si256(b.add(offset) as *const __m256i);
        sum = _mm256_add_epi64(sum, _mm256_sad_epu8(x, y));
        offset += 32;
    }
    (sum_u64x4(sum) + scalar_l1_u8(&left[offset..], &right[offset..]) as u64) as u32
}

#[target_feature(enable = "popcnt")]
unsafe fn hamming_popcnt_unchecked(left: &[u8], right: &[u8]) -> u32 {
    let mut count = 0u32;
    let mut words_left = left.chunks_exact(8);
    let mut words_right = right.chunks_exact(8);
    for (x, y) in (&mut words_left).zip(&mut words_right) {
        let x = u64::from_le_bytes(x.try_into().unwrap_or([0; 8]));
        let y = u64::from_le_bytes(y.try_into().unwrap_or([0; 8]));
        count += _popcnt64((x ^ y) as i64) as u32;
    }
    // The last bytes one at a time (POPCNT too, inside this function), not through the twin,
    // which goes bit by bit.
    count + words_left.remainder().iter().zip(words_right.remainder()).map(|(x, y)| (x ^ y).count_ones()).sum::<u32>()
}

#[target_feature(enable = "popcnt")]
unsafe fn levels_popcnt_unchecked(left: &[u8], right: &[u8]) -> u32 {
    levels_by_words(left, right)
}

// Per plane: POPCNT of (plane AND code), one 64-bit word at a time, weighted by 2^plane.
#[target_feature(enable = "popcnt")]
unsafe fn plane_dot_popcnt_unchecked(planes: &[u8], code: &[u8], count: usize) -> u32 {
    let length = code.len();
    let mut total = 0u32;
    for plane in 0..count {
        let query = &planes[plane * length..(plane + 1) * length];
        let mut bits = 0u32;
        let mut words_query = query.chunks_exact(8);
        let mut words_code = code.chunks_exact(8);
        for (x, y) in (&mut words_query).zip(&mut words_code) {
            let x = u64::from_le_bytes(x.try_into().unwrap_or([0; 8]));
            let y = u64::from_le_bytes(y.try_into().unwrap_or([0; 8]));
            bits += _popcnt64((x & y) as i64) as u32;
        }
        bits += words_query.remainder().iter().zip(words_code.remainder()).map(|(x, y)| (x & y).count_ones()).sum::<u32>();
        total += bits << plane;
    }
    total
}

// Each plane's popcounts stay in their lanes, shifted by the plane's weight, and the lanes are
// summed once at the end: a horizontal sum per plane cost more than the plane's popcounts. A
// plane's last bytes: 32 at once, then words (`load32_widened`).
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,popcnt")]
unsafe fn plane_dot_avx512_unchecked(planes: &[u8], code: &[u8], count: usize) -> u32 {
    let length = code.len();
    let mut total = _mm512_setzero_si512();
    let mut rest = 0u32;
    for plane in 0..count {
        let (a, b) = (planes.as_ptr().add(plane * length), code.as_ptr());
        let mut sum = _mm512_setzero_si512();
        let mut offset = 0;
        while offset + 64 <= length {
            let x = _mm512_loadu_si512(a.add(offset) as *const _);
            let y = _mm512_loadu_si512(b.add(offset) as *const _);
            sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(_mm512_and_si512(x, y)));
            offset += 64;
        }
        if offset + 32 <= length {
            let (x, y) = (load32_widened(a.add(offset)), load32_widened(b.add(offset)));
            sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(_mm512_and_si512(x, y)));
            offset += 32;
        }
        total = _mm512_add_epi64(total, _mm512_sll_epi64(sum, _mm_cvtsi32_si128(plane as i32)));
        let query = &planes[plane * length + offset..(plane + 1) * length];
        rest += plane_dot_popcnt_unchecked(query, &code[offset..], 1) << plane;
    }
    _mm512_reduce_add_epi64(total) as u32 + rest
}

// VPDPBUSD multiplies unsigned bytes by signed ones. The right operand is shifted to signed
// (b − 128, by flipping its top bit), so the sum is Σ a·b − 128·Σ a; Σ a comes from a SAD
// against zero in the same pass and is added back.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn dot_u8_vnni_unchecked(left: &[u8], right: &[u8]) -> u32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let flip = _mm512_set1_epi8(-128);
    let zero = _mm512_setzero_si512();
    let mut products = _mm512_setzero_si512();
    let mut left_sums = _mm512_setzero_si512();
    let mut offset = 0;
    while offset + 64 <= length {
        let x = _mm512_loadu_si512(a.add(offset) as *const _);
        let y = _mm512_xor_si512(_mm512_loadu_si512(b.add(offset) as *const _), flip);
        products = _mm512_dpbusd_epi32(products, x, y);
        left_sums = _mm512_add_epi64(left_sums, _mm512_sad_epu8(x, zero));
        offset += 64;
    }
    if offset < length {
        // Bytes past the end load as zeros on the left, so their products are 0 whatever the
        // right's flipped zeros are, and they add nothing to Σ a.
        let mask = tail_mask(length - offset);
        let x = _mm512_maskz_loadu_epi8(mask, a.add(offset) as *const i8);
        let y = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, b.add(offset) as *const i8), flip);
        products = _mm512_dpbusd_epi32(products, x, y);
        left_sums = _mm512_add_epi64(left_sums, _mm512_sad_epu8(x, zero));
    }
    let shifted = _mm512_reduce_add_epi32(products) as i64;
    let left_sum = _mm512_reduce_add_epi64(left_sums);
    (shifted + 128 * left_sum) as u32
}

#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn l1_u8_avx512_unchecked(left: &[u8], right: &[u8]) -> u32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut sum = _mm512_setzero_si512();
    let mut offset = 0;
    while offset + 64 <= length {
        let x = _mm512_loadu_si512(a.add(offset) as *const _);
        let y = _mm512_loadu_si512(b.add(offset) as *const _);
        sum = _mm512_add_epi64(sum, _mm512_sad_epu8(x, y));
        offset += 64;
    }
    if offset < length {
        let mask = tail_mask(length - offset);
        let x = _mm512_maskz_loadu_epi8(mask, a.add(offset) as *const i8);
        let y = _mm512_maskz_loadu_epi8(mask, b.add(offset) as *const i8);
        sum = _mm512_add_epi64(sum, _mm512_sad_epu8(x, y));
    }
    _mm512_reduce_add_epi64(sum) as u32
}

// 64 bytes of each plane at a time, then 32 (a 768-d code's planes are 96 bytes), then the last
// bytes a word at a time (`load32_widened` says why not a masked load).
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,popcnt")]
unsafe fn levels_avx512_unchecked((left, right): ([&[u8]; 2], [&[u8]; 2])) -> u32 {
    let length = left[0].len();
    let pointers = [left[0].as_ptr(), left[1].as_ptr(), right[0].as_ptr(), right[1].as_ptr()];
    // The parity identity of kernels.rs: popcount(x XOR y) + 2·popcount(x AND (y OR magnitude)),
    // the second operand in one ternary-logic instruction (0xE0: A AND (B OR C)).
    let distance = |[left_sign, left_magnitude, right_sign, right_magnitude]: [__m512i; 4]| {
        let (signs, magnitudes) = (_mm512_xor_si512(left_sign, right_sign), _mm512_xor_si512(left_magnitude, right_magnitude));
        let odd = _mm512_popcnt_epi64(_mm512_xor_si512(signs, magnitudes));
        let far = _mm512_popcnt_epi64(_mm512_ternarylogic_epi64::<0xE0>(signs, magnitudes, left_magnitude));
        _mm512_add_epi64(odd, _mm512_add_epi64(far, far))
    };
    let mut sum = _mm512_setzero_si512();
    let mut offset = 0;
    while offset + 64 <= length {
        sum = _mm512_add_epi64(sum, distance(pointers.map(|pointer| _mm512_loadu_si512(pointer.add(offset) as *const _))));
        offset += 64;
    }
    if offset + 32 <= length {
        // Zero upper halves: equal on both sides, so they count nothing.
        sum = _mm512_add_epi64(sum, distance(pointers.map(|pointer| load32_widened(pointer.add(offset)))));
        offset += 32;
    }
    let ([left_signs, left_magnitudes], [right_signs, right_magnitudes]) = (left, right);
    let rest = levels_of_planes([&left_signs[offset..], &left_magnitudes[offset..]], [&right_signs[offset..], &right_magnitudes[offset..]]);
    _mm512_reduce_add_epi64(sum) as u32 + rest
}

// 64 bytes at a time, then 32, then the last bytes a word at a time (`load32_widened`).
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,popcnt")]
unsafe fn hamming_avx512_unchecked(left: &[u8], right: &[u8]) -> u32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut sum = _mm512_setzero_si512();
    let mut offset = 0;
    while offset + 64 <= length {
        let x = _mm512_loadu_si512(a.add(offset) as *const _);
        let y = _mm512_loadu_si512(b.add(offset) as *const _);
        sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(_mm512_xor_si512(x, y)));
        offset += 64;
    }
    if offset + 32 <= length {
        let (x, y) = (load32_widened(a.add(offset)), load32_widened(b.add(offset)));
        sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(_mm512_xor_si512(x, y)));
        offset += 32;
    }
    _mm512_reduce_add_epi64(sum) as u32 + hamming_popcnt_unchecked(&left[offset..], &right[offset..])
}
