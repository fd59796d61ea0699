//! x86-64 kernels behind `#[target_feature]`, reachable only after run-time detection.

use std::arch::x86_64::*;

pub fn dot_kernel() -> Option<super::Kernel> {
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        Some(dot_avx2)
    } else {
        None
    }
}

fn dot_avx2(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "dot: length mismatch");
    // SAFETY: this function is only handed out by `dot_kernel` after AVX2 and FMA were detected.
    unsafe { dot_avx2_unchecked(left, right) }
}

#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2_unchecked(left: &[f32], right: &[f32]) -> f32 {
    let length = left.len();
    let chunks = length / 8;
    let mut sum = _mm256_setzero_ps();
    for chunk in 0..chunks {
        let offset = chunk * 8;
        let a = _mm256_loadu_ps(left.as_ptr().add(offset));
        let b = _mm256_loadu_ps(right.as_ptr().add(offset));
        sum = _mm256_fmadd_ps(a, b, sum);
    }
    let mut lanes = [0f32; 8];
    _mm256_storeu_ps(lanes.as_mut_ptr(), sum);
    let mut total: f32 = lanes.iter().sum();
    for index in chunks * 8..length {
        total += left[index] * right[index];
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::scalar;

    fn sample(length: usize, seed: u32) -> Vec<f32> {
        (0..length).map(|i| (((i as u32).wrapping_mul(2654435761).wrapping_add(seed)) % 1000) as f32 / 500.0 - 1.0).collect()
    }

    #[test]
    fn avx2_dot_matches_scalar_on_awkward_lengths() {
        let Some(kernel) = dot_kernel() else { return };
        for length in [1usize, 3, 7, 15, 16, 17, 31, 100, 1536] {
            let (a, b) = (sample(length, 1), sample(length, 7));
            let expected = scalar::dot(&a, &b);
            let actual = kernel(&a, &b);
            assert!((expected - actual).abs() <= 1e-4 * (1.0 + expected.abs()), "length {length}: {expected} vs {actual}");
        }
    }
}
