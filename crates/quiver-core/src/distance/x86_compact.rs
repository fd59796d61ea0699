//! x86-64 float16 (F16C: `_mm256_cvtph_ps`) and uint8 (zero-extended to 32-bit lanes, then
//! converted) kernels against a float32 query, 8 lanes per step with two accumulators (AVX2),
//! or 16 (AVX-512F); the tail runs the scalar twins' element formula. Handed out only after
//! run-time detection.

use super::compact::{finish_cosine, CompactKernels};
use super::row::f32_from_f16;
use std::arch::x86_64::*;

pub fn available() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c")
}

pub const AVX2: CompactKernels = CompactKernels {
    dot_f16: dot_f16_avx2,
    l2_squared_f16: l2_squared_f16_avx2,
    l1_f16: l1_f16_avx2,
    dot_u8: dot_u8_avx2,
    l2_squared_u8: l2_squared_u8_avx2,
    l1_u8: l1_u8_avx2,
    cosine_u8: cosine_u8_avx2,
    decode_f16: decode_f16_avx2,
};

pub fn avx512_available() -> bool {
    is_x86_feature_detected!("avx512f")
}

pub const AVX512: CompactKernels = CompactKernels {
    dot_f16: dot_f16_avx512,
    l2_squared_f16: l2_squared_f16_avx512,
    l1_f16: l1_f16_avx512,
    dot_u8: dot_u8_avx512,
    l2_squared_u8: l2_squared_u8_avx512,
    l1_u8: l1_u8_avx512,
    cosine_u8: cosine_u8_avx512,
    decode_f16: decode_f16_avx512,
};

/// float16 → float32, eight values per VCVTPH2PS; the tail one at a time by the twin's formula.
fn decode_f16_avx2(values: &[u16], output: &mut [f32]) {
    let length = values.len().min(output.len());
    // SAFETY: handed out only after AVX2 and F16C were detected; both slices trimmed to `length`.
    unsafe { decode_f16_unchecked(&values[..length], &mut output[..length]) }
}

#[target_feature(enable = "avx,f16c")]
unsafe fn decode_f16_unchecked(values: &[u16], output: &mut [f32]) {
    let length = values.len();
    let (source, target) = (values.as_ptr(), output.as_mut_ptr());
    let mut offset = 0;
    while offset + 8 <= length {
        _mm256_storeu_ps(target.add(offset), _mm256_cvtph_ps(_mm_loadu_si128(source.add(offset) as *const __m128i)));
        offset += 8;
    }
    while offset < length {
        *target.add(offset) = f32_from_f16(*source.add(offset));
        offset += 1;
    }
}

/// Eight float16 values widened to float32.
#[inline(always)]
unsafe fn load_f16(pointer: *const u16) -> __m256 {
    _mm256_cvtph_ps(_mm_loadu_si128(pointer as *const __m128i))
}

/// Eight bytes zero-extended to 32-bit integers, then converted to float32 (exact).
#[inline(always)]
unsafe fn load_u8(pointer: *const u8) -> __m256 {
    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(pointer as *const __m128i)))
}

#[inline(always)]
unsafe fn horizontal_sum(value: __m256) -> f32 {
    let sum = _mm_add_ps(_mm256_extractf128_ps(value, 1), _mm256_castps256_ps128(value));
    let shuffled = _mm_movehdup_ps(sum);
    let sums = _mm_add_ps(sum, shuffled);
    _mm_cvtss_f32(_mm_add_ss(sums, _mm_movehl_ps(shuffled, sums)))
}

/// One kernel: `$step(query lanes, row lanes, accumulator)` per 8 lanes, `$tail(query value,
/// row value)` per leftover element.
macro_rules! kernel {
    ($safe:ident, $unchecked:ident, $element:ty, $load:ident, $decode:expr, $step:expr, $tail:expr) => {
        fn $safe(query: &[f32], row: &[$element]) -> f32 {
            assert_eq!(query.len(), row.len(), concat!(stringify!($safe), ": length mismatch"));
            // SAFETY: handed out only after AVX2, FMA and F16C were detected; lengths checked.
            unsafe { $unchecked(query, row) }
        }

        #[target_feature(enable = "avx2,fma,f16c")]
        unsafe fn $unchecked(query: &[f32], row: &[$element]) -> f32 {
            let length = query.len();
            let (a, b) = (query.as_ptr(), row.as_ptr());
            let mut sum0 = _mm256_setzero_ps();
            let mut sum1 = _mm256_setzero_ps();
            let mut offset = 0;
            while offset + 16 <= length {
                sum0 = $step(_mm256_loadu_ps(a.add(offset)), $load(b.add(offset)), sum0);
                sum1 = $step(_mm256_loadu_ps(a.add(offset + 8)), $load(b.add(offset + 8)), sum1);
                offset += 16;
            }
            if offset + 8 <= length {
                sum0 = $step(_mm256_loadu_ps(a.add(offset)), $load(b.add(offset)), sum0);
                offset += 8;
            }
            let mut total = horizontal_sum(_mm256_add_ps(sum0, sum1));
            while offset < length {
                total += $tail(*a.add(offset), $decode(*b.add(offset)));
                offset += 1;
            }
            total
        }
    };
}

#[inline(always)]
unsafe fn dot_step(query: __m256, row: __m256, sum: __m256) -> __m256 {
    _mm256_fmadd_ps(query, row, sum)
}

#[inline(always)]
unsafe fn l2_step(query: __m256, row: __m256, sum: __m256) -> __m256 {
    let difference = _mm256_sub_ps(query, row);
    _mm256_fmadd_ps(difference, difference, sum)
}

#[inline(always)]
unsafe fn l1_step(query: __m256, row: __m256, sum: __m256) -> __m256 {
    _mm256_add_ps(sum, _mm256_andnot_ps(_mm256_set1_ps(-0.0), _mm256_sub_ps(query, row)))
}

fn byte(value: u8) -> f32 {
    value as f32
}

kernel!(dot_f16_avx2, dot_f16_unchecked, u16, load_f16, f32_from_f16, dot_step, |a: f32, b: f32| a * b);
kernel!(l2_squared_f16_avx2, l2_squared_f16_unchecked, u16, load_f16, f32_from_f16, l2_step, |a: f32, b: f32| (a - b) * (a - b));
kernel!(l1_f16_avx2, l1_f16_unchecked, u16, load_f16, f32_from_f16, l1_step, |a: f32, b: f32| (a - b).abs());
kernel!(dot_u8_avx2, dot_u8_unchecked, u8, load_u8, byte, dot_step, |a: f32, b: f32| a * b);
kernel!(l2_squared_u8_avx2, l2_squared_u8_unchecked, u8, load_u8, byte, l2_step, |a: f32, b: f32| (a - b) * (a - b));
kernel!(l1_u8_avx2, l1_u8_unchecked, u8, load_u8, byte, l1_step, |a: f32, b: f32| (a - b).abs());

fn cosine_u8_avx2(query: &[f32], row: &[u8]) -> f32 {
    assert_eq!(query.len(), row.len(), "cosine_u8: length mismatch");
    // SAFETY: as in the kernels above.
    unsafe { cosine_u8_unchecked(query, row) }
}

/// The dot and the row's squared norm in one pass over the row.
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn cosine_u8_unchecked(query: &[f32], row: &[u8]) -> f32 {
    let length = query.len();
    let (a, b) = (query.as_ptr(), row.as_ptr());
    let mut dot = _mm256_setzero_ps();
    let mut norm = _mm256_setzero_ps();
    let mut offset = 0;
    while offset + 8 <= length {
        let values = load_u8(b.add(offset));
        dot = _mm256_fmadd_ps(_mm256_loadu_ps(a.add(offset)), values, dot);
        norm = _mm256_fmadd_ps(values, values, norm);
        offset += 8;
    }
    let (mut dot_total, mut norm_total) = (horizontal_sum(dot), horizontal_sum(norm));
    while offset < length {
        let value = *b.add(offset) as f32;
        dot_total += *a.add(offset) * value;
        norm_total += value * value;
        offset += 1;
    }
    finish_cosine(dot_total, norm_total)
}

/// Sixteen float16 values widened to float32.
#[inline(always)]
unsafe fn load16_f16(pointer: *const u16) -> __m512 {
    _mm512_cvtph_ps(_mm256_loadu_si256(pointer as *const __m256i))
}

/// Sixteen bytes zero-extended to 32-bit integers, then converted to float32 (exact).
#[inline(always)]
unsafe fn load16_u8(pointer: *const u8) -> __m512 {
    _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(pointer as *const __m128i)))
}

/// The AVX-512 form of `kernel!`: 16 lanes a step, two accumulators, the same tail.
macro_rules! kernel512 {
    ($safe:ident, $unchecked:ident, $element:ty, $load:ident, $decode:expr, $step:expr, $tail:expr) => {
        fn $safe(query: &[f32], row: &[$element]) -> f32 {
            assert_eq!(query.len(), row.len(), concat!(stringify!($safe), ": length mismatch"));
            // SAFETY: handed out only after AVX-512F was detected; lengths checked.
            unsafe { $unchecked(query, row) }
        }

        #[target_feature(enable = "avx512f")]
        unsafe fn $unchecked(query: &[f32], row: &[$element]) -> f32 {
            let length = query.len();
            let (a, b) = (query.as_ptr(), row.as_ptr());
            let mut sum0 = _mm512_setzero_ps();
            let mut sum1 = _mm512_setzero_ps();
            let mut offset = 0;
            while offset + 32 <= length {
                sum0 = $step(_mm512_loadu_ps(a.add(offset)), $load(b.add(offset)), sum0);
                sum1 = $step(_mm512_loadu_ps(a.add(offset + 16)), $load(b.add(offset + 16)), sum1);
                offset += 32;
            }
            if offset + 16 <= length {
                sum0 = $step(_mm512_loadu_ps(a.add(offset)), $load(b.add(offset)), sum0);
                offset += 16;
            }
            let mut total = _mm512_reduce_add_ps(_mm512_add_ps(sum0, sum1));
            while offset < length {
                total += $tail(*a.add(offset), $decode(*b.add(offset)));
                offset += 1;
            }
            total
        }
    };
}

#[inline(always)]
unsafe fn dot_step16(query: __m512, row: __m512, sum: __m512) -> __m512 {
    _mm512_fmadd_ps(query, row, sum)
}

#[inline(always)]
unsafe fn l2_step16(query: __m512, row: __m512, sum: __m512) -> __m512 {
    let difference = _mm512_sub_ps(query, row);
    _mm512_fmadd_ps(difference, difference, sum)
}

#[inline(always)]
unsafe fn l1_step16(query: __m512, row: __m512, sum: __m512) -> __m512 {
    _mm512_add_ps(sum, _mm512_abs_ps(_mm512_sub_ps(query, row)))
}

kernel512!(dot_f16_avx512, dot_f16_unchecked512, u16, load16_f16, f32_from_f16, dot_step16, |a: f32, b: f32| a * b);
kernel512!(l2_squared_f16_avx512, l2_f16_unchecked512, u16, load16_f16, f32_from_f16, l2_step16, |a: f32, b: f32| (a - b) * (a - b));
kernel512!(l1_f16_avx512, l1_f16_unchecked512, u16, load16_f16, f32_from_f16, l1_step16, |a: f32, b: f32| (a - b).abs());
kernel512!(dot_u8_avx512, dot_u8_unchecked512, u8, load16_u8, byte, dot_step16, |a: f32, b: f32| a * b);
kernel512!(l2_squared_u8_avx512, l2_squared_u8_unchecked512, u8, load16_u8, byte, l2_step16, |a: f32, b: f32| (a - b) * (a - b));
kernel512!(l1_u8_avx512, l1_u8_unchecked512, u8, load16_u8, byte, l1_step16, |a: f32, b: f32| (a - b).abs());

fn cosine_u8_avx512(query: &[f32], row: &[u8]) -> f32 {
    assert_eq!(query.len(), row.len(), "cosine_u8: length mismatch");
    // SAFETY: handed out only after AVX-512F was detected; lengths checked.
    unsafe { cosine_u8_unchecked512(query, row) }
}

/// `cosine_u8_unchecked` 16 lanes at a time.
#[target_feature(enable = "avx512f")]
unsafe fn cosine_u8_unchecked512(query: &[f32], row: &[u8]) -> f32 {
    let length = query.len();
    let (a, b) = (query.as_ptr(), row.as_ptr());
    let mut dot = _mm512_setzero_ps();
    let mut norm = _mm512_setzero_ps();
    let mut offset = 0;
    while offset + 16 <= length {
        let values = load16_u8(b.add(offset));
        dot = _mm512_fmadd_ps(_mm512_loadu_ps(a.add(offset)), values, dot);
        norm = _mm512_fmadd_ps(values, values, norm);
        offset += 16;
    }
    let (mut dot_total, mut norm_total) = (_mm512_reduce_add_ps(dot), _mm512_reduce_add_ps(norm));
    while offset < length {
        let value = *b.add(offset) as f32;
        dot_total += *a.add(offset) * value;
        norm_total += value * value;
        offset += 1;
    }
    finish_cosine(dot_total, norm_total)
}

/// float16 → float32, sixteen values per VCVTPH2PS (zmm); the tail one at a time.
fn decode_f16_avx512(values: &[u16], output: &mut [f32]) {
    let length = values.len().min(output.len());
    // SAFETY: handed out only after AVX-512F was detected; both slices trimmed to `length`.
    unsafe { decode_f16_unchecked512(&values[..length], &mut output[..length]) }
}

#[target_feature(enable = "avx512f")]
unsafe fn decode_f16_unchecked512(values: &[u16], output: &mut [f32]) {
    let length = values.len();
    let (source, target) = (values.as_ptr(), output.as_mut_ptr());
    let mut offset = 0;
    while offset + 16 <= length {
        _mm512_storeu_ps(target.add(offset), load16_f16(source.add(offset)));
        offset += 16;
    }
    while offset < length {
        *target.add(offset) = f32_from_f16(*source.add(offset));
        offset += 1;
    }
}
