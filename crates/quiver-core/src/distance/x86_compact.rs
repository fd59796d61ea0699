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

/// float16 → float32 in the registers of one instruction set: `$lanes` values per VCVTPH2PS
/// (`$load`), the tail one at a time by the twin's formula.
macro_rules! decode {
    ($feature:literal, $lanes:literal, $store:ident, $load:ident, $safe:ident, $unchecked:ident) => {
        fn $safe(values: &[u16], output: &mut [f32]) {
            let length = values.len().min(output.len());
            // SAFETY: handed out only after the CPU was found to have `$feature`; both slices
            // trimmed to `length`.
            unsafe { $unchecked(&values[..length], &mut output[..length]) }
        }

        #[target_feature(enable = $feature)]
        unsafe fn $unchecked(values: &[u16], output: &mut [f32]) {
            let length = values.len();
            let (source, target) = (values.as_ptr(), output.as_mut_ptr());
            let mut offset = 0;
            while offset + $lanes <= length {
                $store(target.add(offset), $load(source.add(offset)));
                offset += $lanes;
            }
            while offset < length {
                *target.add(offset) = f32_from_f16(*source.add(offset));
                offset += 1;
            }
        }
    };
}

decode!("avx2,fma,f16c", 8, _mm256_storeu_ps, load_f16, decode_f16_avx2, decode_f16_unchecked);

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

/// One kernel in the registers of one instruction set: `$step(query lanes, row lanes,
/// accumulator)` per `$lanes` lanes into two accumulators, `$tail(query value, row value)` per
/// leftover element. `[$zero, $load_query, $add, $sum]` name the set's zero register, float32
/// load, addition and horizontal sum; `$feature` is what `available` / `avx512_available`
/// detected before the set is handed out.
macro_rules! kernel {
    ($feature:literal, $lanes:literal, [$zero:ident, $load_query:ident, $add:ident, $sum:ident],
     $safe:ident, $unchecked:ident, $element:ty, $load:ident, $decode:expr, $step:expr, $tail:expr) => {
        fn $safe(query: &[f32], row: &[$element]) -> f32 {
            assert_eq!(query.len(), row.len(), concat!(stringify!($safe), ": length mismatch"));
            // SAFETY: handed out only after the CPU was found to have `$feature`; lengths checked.
            unsafe { $unchecked(query, row) }
        }

        #[target_feature(enable = $feature)]
        unsafe fn $unchecked(query: &[f32], row: &[$element]) -> f32 {
            let length = query.len();
            let (a, b) = (query.as_ptr(), row.as_ptr());
            let mut sum0 = $zero();
            let mut sum1 = $zero();
            let mut offset = 0;
            while offset + 2 * $lanes <= length {
                sum0 = $step($load_query(a.add(offset)), $load(b.add(offset)), sum0);
                sum1 = $step($load_query(a.add(offset + $lanes)), $load(b.add(offset + $lanes)), sum1);
                offset += 2 * $lanes;
            }
            if offset + $lanes <= length {
                sum0 = $step($load_query(a.add(offset)), $load(b.add(offset)), sum0);
                offset += $lanes;
            }
            let mut total = $sum($add(sum0, sum1));
            while offset < length {
                total += $tail(*a.add(offset), $decode(*b.add(offset)));
                offset += 1;
            }
            total
        }
    };
}

/// `kernel!` on AVX2 (8 lanes).
macro_rules! avx2_kernel {
    ($($rest:tt)*) => {
        kernel!("avx2,fma,f16c", 8, [_mm256_setzero_ps, _mm256_loadu_ps, _mm256_add_ps, horizontal_sum], $($rest)*);
    };
}

/// `kernel!` on AVX-512F (16 lanes).
macro_rules! avx512_kernel {
    ($($rest:tt)*) => {
        kernel!("avx512f", 16, [_mm512_setzero_ps, _mm512_loadu_ps, _mm512_add_ps, _mm512_reduce_add_ps], $($rest)*);
    };
}

/// uint8 Cosine in the registers of one instruction set (`kernel!`'s parameters, with the set's
/// fused multiply-add): the dot and the row's squared norm in one pass over the row.
macro_rules! cosine {
    ($feature:literal, $lanes:literal, [$zero:ident, $load_query:ident, $fmadd:ident, $sum:ident], $safe:ident, $unchecked:ident, $load:ident) => {
        fn $safe(query: &[f32], row: &[u8]) -> f32 {
            assert_eq!(query.len(), row.len(), "cosine_u8: length mismatch");
            // SAFETY: handed out only after the CPU was found to have `$feature`; lengths checked.
            unsafe { $unchecked(query, row) }
        }

        #[target_feature(enable = $feature)]
        unsafe fn $unchecked(query: &[f32], row: &[u8]) -> f32 {
            let length = query.len();
            let (a, b) = (query.as_ptr(), row.as_ptr());
            let mut dot = $zero();
            let mut norm = $zero();
            let mut offset = 0;
            while offset + $lanes <= length {
                let values = $load(b.add(offset));
                dot = $fmadd($load_query(a.add(offset)), values, dot);
                norm = $fmadd(values, values, norm);
                offset += $lanes;
            }
            let (mut dot_total, mut norm_total) = ($sum(dot), $sum(norm));
            while offset < length {
                let value = *b.add(offset) as f32;
                dot_total += *a.add(offset) * value;
                norm_total += value * value;
                offset += 1;
            }
            finish_cosine(dot_total, norm_total)
        }
    };
}

/// `cosine!` on AVX2 (8 lanes).
macro_rules! avx2_cosine {
    ($($rest:tt)*) => {
        cosine!("avx2,fma,f16c", 8, [_mm256_setzero_ps, _mm256_loadu_ps, _mm256_fmadd_ps, horizontal_sum], $($rest)*);
    };
}

/// `cosine!` on AVX-512F (16 lanes).
macro_rules! avx512_cosine {
    ($($rest:tt)*) => {
        cosine!("avx512f", 16, [_mm512_setzero_ps, _mm512_loadu_ps, _mm512_fmadd_ps, _mm512_reduce_add_ps], $($rest)*);
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

avx2_kernel!(dot_f16_avx2, dot_f16_unchecked, u16, load_f16, f32_from_f16, dot_step, |a: f32, b: f32| a * b);
avx2_kernel!(l2_squared_f16_avx2, l2_squared_f16_unchecked, u16, load_f16, f32_from_f16, l2_step, |a: f32, b: f32| (a - b) * (a - b));
avx2_kernel!(l1_f16_avx2, l1_f16_unchecked, u16, load_f16, f32_from_f16, l1_step, |a: f32, b: f32| (a - b).abs());
avx2_kernel!(dot_u8_avx2, dot_u8_unchecked, u8, load_u8, byte, dot_step, |a: f32, b: f32| a * b);
avx2_kernel!(l2_squared_u8_avx2, l2_squared_u8_unchecked, u8, load_u8, byte, l2_step, |a: f32, b: f32| (a - b) * (a - b));
avx2_kernel!(l1_u8_avx2, l1_u8_unchecked, u8, load_u8, byte, l1_step, |a: f32, b: f32| (a - b).abs());

avx2_cosine!(cosine_u8_avx2, cosine_u8_unchecked, load_u8);

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

avx512_kernel!(dot_f16_avx512, dot_f16_unchecked512, u16, load16_f16, f32_from_f16, dot_step16, |a: f32, b: f32| a * b);
avx512_kernel!(l2_squared_f16_avx512, l2_f16_unchecked512, u16, load16_f16, f32_from_f16, l2_step16, |a: f32, b: f32| (a - b) * (a - b));
avx512_kernel!(l1_f16_avx512, l1_f16_unchecked512, u16, load16_f16, f32_from_f16, l1_step16, |a: f32, b: f32| (a - b).abs());
avx512_kernel!(dot_u8_avx512, dot_u8_unchecked512, u8, load16_u8, byte, dot_step16, |a: f32, b: f32| a * b);
avx512_kernel!(l2_squared_u8_avx512, l2_squared_u8_unchecked512, u8, load16_u8, byte, l2_step16, |a: f32, b: f32| (a - b) * (a - b));
avx512_kernel!(l1_u8_avx512, l1_u8_unchecked512, u8, load16_u8, byte, l1_step16, |a: f32, b: f32| (a - b).abs());

avx512_cosine!(cosine_u8_avx512, cosine_u8_unchecked512, load16_u8);

decode!("avx512f", 16, _mm512_storeu_ps, load16_f16, decode_f16_avx512, decode_f16_unchecked512);
