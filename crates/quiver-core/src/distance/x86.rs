//! x86-64 kernels behind `#[target_feature]`, reachable only after run-time detection.
//! Each public wrapper checks the lengths (so the unchecked pointer reads stay in bounds) and
//! is only handed out by `kernels` after the features were detected.

use super::Kernels;
use std::arch::x86_64::*;

pub fn avx2_available() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

pub fn avx512_available() -> bool {
    is_x86_feature_detected!("avx512f")
}

pub const AVX2: Kernels = Kernels { dot: dot_avx2, l2_squared: l2_squared_avx2, l1: l1_avx2 };
pub const AVX512: Kernels = Kernels { dot: dot_avx512, l2_squared: l2_squared_avx512, l1: l1_avx512 };

fn dot_avx2(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "dot: length mismatch");
    // SAFETY: handed out only after AVX2 and FMA were detected; lengths checked above.
    unsafe { dot_avx2_unchecked(left, right) }
}

fn l2_squared_avx2(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "l2_squared: length mismatch");
    // SAFETY: as in dot_avx2.
    unsafe { l2_squared_avx2_unchecked(left, right) }
}

fn l1_avx2(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "l1: length mismatch");
    // SAFETY: as in dot_avx2.
    unsafe { l1_avx2_unchecked(left, right) }
}

fn dot_avx512(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "dot: length mismatch");
    // SAFETY: handed out only after AVX-512F was detected; lengths checked above.
    unsafe { dot_avx512_unchecked(left, right) }
}

fn l2_squared_avx512(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "l2_squared: length mismatch");
    // SAFETY: as in dot_avx512.
    unsafe { l2_squared_avx512_unchecked(left, right) }
}

fn l1_avx512(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "l1: length mismatch");
    // SAFETY: as in dot_avx512.
    unsafe { l1_avx512_unchecked(left, right) }
}

#[target_feature(enable = "avx2,fma")]
unsafe fn horizontal_sum_256(value: __m256) -> f32 {
    let high = _mm256_extractf128_ps(value, 1);
    let low = _mm256_castps256_ps128(value);
    let sum = _mm_add_ps(high, low);
    let shuffled = _mm_movehdup_ps(sum);
    let sums = _mm_add_ps(sum, shuffled);
    let moved = _mm_movehl_ps(shuffled, sums);
    _mm_cvtss_f32(_mm_add_ss(sums, moved))
}

// Two accumulators hide the FMA latency; 16 floats per step.
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2_unchecked(left: &[f32], right: &[f32]) -> f32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut sum0 = _mm256_setzero_ps();
    let mut sum1 = _mm256_setzero_ps();
    let mut offset = 0;
    while offset + 16 <= length {
        sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(a.add(offset)), _mm256_loadu_ps(b.add(offset)), sum0);
        sum1 = _mm256_fmadd_ps(_mm256_loadu_ps(a.add(offset + 8)), _mm256_loadu_ps(b.add(offset + 8)), sum1);
        offset += 16;
    }
    if offset + 8 <= length {
        sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(a.add(offset)), _mm256_loadu_ps(b.add(offset)), sum0);
        offset += 8;
    }
    let mut total = horizontal_sum_256(_mm256_add_ps(sum0, sum1));
    while offset < length {
        total += *a.add(offset) * *b.add(offset);
        offset += 1;
    }
    total
}

#[target_feature(enable = "avx2,fma")]
unsafe fn l2_squared_avx2_unchecked(left: &[f32], right: &[f32]) -> f32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut sum0 = _mm256_setzero_ps();
    let mut sum1 = _mm256_setzero_ps();
    let mut offset = 0;
    while offset + 16 <= length {
        let d0 = _mm256_sub_ps(_mm256_loadu_ps(a.add(offset)), _mm256_loadu_ps(b.add(offset)));
        let d1 = _mm256_sub_ps(_mm256_loadu_ps(a.add(offset + 8)), _mm256_loadu_ps(b.add(offset + 8)));
        sum0 = _mm256_fmadd_ps(d0, d0, sum0);
        sum1 = _mm256_fmadd_ps(d1, d1, sum1);
        offset += 16;
    }
    if offset + 8 <= length {
        let d0 = _mm256_sub_ps(_mm256_loadu_ps(a.add(offset)), _mm256_loadu_ps(b.add(offset)));
        sum0 = _mm256_fmadd_ps(d0, d0, sum0);
        offset += 8;
    }
    let mut total = horizontal_sum_256(_mm256_add_ps(sum0, sum1));
    while offset < length {
        let difference = *a.add(offset) - *b.add(offset);
        total += difference * difference;
        offset += 1;
    }
    total
}

/// Dot products of one query with four rows, each bit for bit what `dot_avx2` gives (the same
/// two accumulators per row, the same steps and tail). Scoring four rows in one pass loads each
/// query block once for four rows and keeps four rows' loads in flight together, where one row
/// at a time waits on each row's memory in turn (a 768-d row is 48 cache lines).
pub fn dot4_avx2(query: &[f32], rows: [&[f32]; 4]) -> [f32; 4] {
    for row in rows {
        assert_eq!(query.len(), row.len(), "dot4: length mismatch");
    }
    // SAFETY: handed out only after AVX2 and FMA were detected; lengths checked above.
    unsafe { batch4_avx2_unchecked::<false>(query, rows) }
}

/// Squared L2 distances of one query to four rows, each bit for bit `l2_squared_avx2`'s.
pub fn l2_squared4_avx2(query: &[f32], rows: [&[f32]; 4]) -> [f32; 4] {
    for row in rows {
        assert_eq!(query.len(), row.len(), "l2_squared4: length mismatch");
    }
    // SAFETY: as in dot4_avx2.
    unsafe { batch4_avx2_unchecked::<true>(query, rows) }
}

// The operations of dot_avx2_unchecked (or l2_squared_avx2_unchecked when DIFFERENCE) per row,
// in the same order, interleaved over four rows.
#[target_feature(enable = "avx2,fma")]
unsafe fn batch4_avx2_unchecked<const DIFFERENCE: bool>(query: &[f32], rows: [&[f32]; 4]) -> [f32; 4] {
    let length = query.len();
    let a = query.as_ptr();
    let pointers = rows.map(|row| row.as_ptr());
    let mut low = [_mm256_setzero_ps(); 4];
    let mut high = [_mm256_setzero_ps(); 4];
    // A macro, not a closure, so the intrinsics stay inside this function's target features.
    macro_rules! term {
        ($q:expr, $row:expr, $sum:expr) => {
            if DIFFERENCE {
                let difference = _mm256_sub_ps($q, $row);
                _mm256_fmadd_ps(difference, difference, $sum)
            } else {
                _mm256_fmadd_ps($q, $row, $sum)
            }
        };
    }
    let mut offset = 0;
    while offset + 16 <= length {
        let (q0, q1) = (_mm256_loadu_ps(a.add(offset)), _mm256_loadu_ps(a.add(offset + 8)));
        for which in 0..4 {
            low[which] = term!(q0, _mm256_loadu_ps(pointers[which].add(offset)), low[which]);
            high[which] = term!(q1, _mm256_loadu_ps(pointers[which].add(offset + 8)), high[which]);
        }
        offset += 16;
    }
    if offset + 8 <= length {
        let q0 = _mm256_loadu_ps(a.add(offset));
        for which in 0..4 {
            low[which] = term!(q0, _mm256_loadu_ps(pointers[which].add(offset)), low[which]);
        }
        offset += 8;
    }
    let mut totals = [0.0f32; 4];
    for which in 0..4 {
        let mut total = horizontal_sum_256(_mm256_add_ps(low[which], high[which]));
        for tail in offset..length {
            let (x, y) = (*a.add(tail), *pointers[which].add(tail));
            total += if DIFFERENCE { (x - y) * (x - y) } else { x * y };
        }
        totals[which] = total;
    }
    totals
}

#[target_feature(enable = "avx2,fma")]
unsafe fn l1_avx2_unchecked(left: &[f32], right: &[f32]) -> f32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    // Clearing the sign bit is the absolute value.
    let sign = _mm256_set1_ps(-0.0);
    let mut sum0 = _mm256_setzero_ps();
    let mut sum1 = _mm256_setzero_ps();
    let mut offset = 0;
    while offset + 16 <= length {
        let d0 = _mm256_sub_ps(_mm256_loadu_ps(a.add(offset)), _mm256_loadu_ps(b.add(offset)));
        let d1 = _mm256_sub_ps(_mm256_loadu_ps(a.add(offset + 8)), _mm256_loadu_ps(b.add(offset + 8)));
        sum0 = _mm256_add_ps(sum0, _mm256_andnot_ps(sign, d0));
        sum1 = _mm256_add_ps(sum1, _mm256_andnot_ps(sign, d1));
        offset += 16;
    }
    if offset + 8 <= length {
        let d0 = _mm256_sub_ps(_mm256_loadu_ps(a.add(offset)), _mm256_loadu_ps(b.add(offset)));
        sum0 = _mm256_add_ps(sum0, _mm256_andnot_ps(sign, d0));
        offset += 8;
    }
    let mut total = horizontal_sum_256(_mm256_add_ps(sum0, sum1));
    while offset < length {
        total += (*a.add(offset) - *b.add(offset)).abs();
        offset += 1;
    }
    total
}

// AVX-512: the tail is one masked load (masked-off lanes read as zero and are never touched
// in memory), so there is no scalar loop.
#[target_feature(enable = "avx512f")]
unsafe fn dot_avx512_unchecked(left: &[f32], right: &[f32]) -> f32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut sum0 = _mm512_setzero_ps();
    let mut sum1 = _mm512_setzero_ps();
    let mut offset = 0;
    while offset + 32 <= length {
        sum0 = _mm512_fmadd_ps(_mm512_loadu_ps(a.add(offset)), _mm512_loadu_ps(b.add(offset)), sum0);
        sum1 = _mm512_fmadd_ps(_mm512_loadu_ps(a.add(offset + 16)), _mm512_loadu_ps(b.add(offset + 16)), sum1);
        offset += 32;
    }
    while offset < length {
        let mask = tail_mask(length - offset);
        let x = _mm512_maskz_loadu_ps(mask, a.add(offset));
        let y = _mm512_maskz_loadu_ps(mask, b.add(offset));
        sum0 = _mm512_fmadd_ps(x, y, sum0);
        offset += 16;
    }
    _mm512_reduce_add_ps(_mm512_add_ps(sum0, sum1))
}

#[target_feature(enable = "avx512f")]
unsafe fn l2_squared_avx512_unchecked(left: &[f32], right: &[f32]) -> f32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut sum0 = _mm512_setzero_ps();
    let mut sum1 = _mm512_setzero_ps();
    let mut offset = 0;
    while offset + 32 <= length {
        let d0 = _mm512_sub_ps(_mm512_loadu_ps(a.add(offset)), _mm512_loadu_ps(b.add(offset)));
        let d1 = _mm512_sub_ps(_mm512_loadu_ps(a.add(offset + 16)), _mm512_loadu_ps(b.add(offset + 16)));
        sum0 = _mm512_fmadd_ps(d0, d0, sum0);
        sum1 = _mm512_fmadd_ps(d1, d1, sum1);
        offset += 32;
    }
    while offset < length {
        let mask = tail_mask(length - offset);
        let d = _mm512_sub_ps(_mm512_maskz_loadu_ps(mask, a.add(offset)), _mm512_maskz_loadu_ps(mask, b.add(offset)));
        sum0 = _mm512_fmadd_ps(d, d, sum0);
        offset += 16;
    }
    _mm512_reduce_add_ps(_mm512_add_ps(sum0, sum1))
}

/// Dot products of one query with four rows, each bit for bit what `dot_avx512` gives: the
/// AVX-512 counterpart of `dot4_avx2` (one query load for four rows, four rows' loads in flight).
pub fn dot4_avx512(query: &[f32], rows: [&[f32]; 4]) -> [f32; 4] {
    for row in rows {
        assert_eq!(query.len(), row.len(), "dot4: length mismatch");
    }
    // SAFETY: handed out only after AVX-512F was detected; lengths checked above.
    unsafe { batch4_avx512_unchecked::<false>(query, rows) }
}

/// Squared L2 distances of one query to four rows, each bit for bit `l2_squared_avx512`'s.
pub fn l2_squared4_avx512(query: &[f32], rows: [&[f32]; 4]) -> [f32; 4] {
    for row in rows {
        assert_eq!(query.len(), row.len(), "l2_squared4: length mismatch");
    }
    // SAFETY: as in dot4_avx512.
    unsafe { batch4_avx512_unchecked::<true>(query, rows) }
}

// The operations of dot_avx512_unchecked (or l2_squared_avx512_unchecked when DIFFERENCE) per
// row, in the same order, interleaved over four rows.
#[target_feature(enable = "avx512f")]
unsafe fn batch4_avx512_unchecked<const DIFFERENCE: bool>(query: &[f32], rows: [&[f32]; 4]) -> [f32; 4] {
    let length = query.len();
    let a = query.as_ptr();
    let pointers = rows.map(|row| row.as_ptr());
    let mut low = [_mm512_setzero_ps(); 4];
    let mut high = [_mm512_setzero_ps(); 4];
    // A macro, not a closure, so the intrinsics stay inside this function's target features.
    macro_rules! term {
        ($q:expr, $row:expr, $sum:expr) => {
            if DIFFERENCE {
                let difference = _mm512_sub_ps($q, $row);
                _mm512_fmadd_ps(difference, difference, $sum)
            } else {
                _mm512_fmadd_ps($q, $row, $sum)
            }
        };
    }
    let mut offset = 0;
    while offset + 32 <= length {
        let (q0, q1) = (_mm512_loadu_ps(a.add(offset)), _mm512_loadu_ps(a.add(offset + 16)));
        for which in 0..4 {
            low[which] = term!(q0, _mm512_loadu_ps(pointers[which].add(offset)), low[which]);
            high[which] = term!(q1, _mm512_loadu_ps(pointers[which].add(offset + 16)), high[which]);
        }
        offset += 32;
    }
    while offset < length {
        let mask = tail_mask(length - offset);
        let q = _mm512_maskz_loadu_ps(mask, a.add(offset));
        for which in 0..4 {
            low[which] = term!(q, _mm512_maskz_loadu_ps(mask, pointers[which].add(offset)), low[which]);
        }
        offset += 16;
    }
    let mut totals = [0.0f32; 4];
    for which in 0..4 {
        totals[which] = _mm512_reduce_add_ps(_mm512_add_ps(low[which], high[which]));
    }
    totals
}

#[target_feature(enable = "avx512f")]
unsafe fn l1_avx512_unchecked(left: &[f32], right: &[f32]) -> f32 {
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut sum0 = _mm512_setzero_ps();
    let mut sum1 = _mm512_setzero_ps();
    let mut offset = 0;
    while offset + 32 <= length {
        let d0 = _mm512_sub_ps(_mm512_loadu_ps(a.add(offset)), _mm512_loadu_ps(b.add(offset)));
        let d1 = _mm512_sub_ps(_mm512_loadu_ps(a.add(offset + 16)), _mm512_loadu_ps(b.add(offset + 16)));
        sum0 = _mm512_add_ps(sum0, _mm512_abs_ps(d0));
        sum1 = _mm512_add_ps(sum1, _mm512_abs_ps(d1));
        offset += 32;
    }
    while offset < length {
        let mask = tail_mask(length - offset);
        let d = _mm512_sub_ps(_mm512_maskz_loadu_ps(mask, a.add(offset)), _mm512_maskz_loadu_ps(mask, b.add(offset)));
        sum0 = _mm512_add_ps(sum0, _mm512_abs_ps(d));
        offset += 16;
    }
    _mm512_reduce_add_ps(_mm512_add_ps(sum0, sum1))
}

/// Lanes to load for the last (possibly partial) 16-float block.
#[inline(always)]
fn tail_mask(remaining: usize) -> __mmask16 {
    if remaining >= 16 {
        0xFFFF
    } else {
        ((1u32 << remaining) - 1) as __mmask16
    }
}
