//! Scalar reference kernels: the slow twins every SIMD kernel is tested against.

/// Dot product. Panics if the lengths differ, since that is a caller bug, never user input.
pub fn dot(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "dot: length mismatch");
    left.iter().zip(right).map(|(a, b)| a * b).sum()
}
