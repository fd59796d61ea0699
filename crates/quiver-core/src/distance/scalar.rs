//! Scalar reference kernels: the slow twins every SIMD kernel is tested against.

/// Dot product. Panics if the lengths differ, since that is a caller bug, never user input.
pub fn dot(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "dot: length mismatch");
    left.iter().zip(right).map(|(a, b)| a * b).sum()
}

/// Squared L2 distance (the square root is taken once, when a score is reported).
pub fn l2_squared(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "l2_squared: length mismatch");
    left.iter().zip(right).map(|(a, b)| (a - b) * (a - b)).sum()
}

/// L1 (Manhattan) distance.
pub fn l1(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "l1: length mismatch");
    left.iter().zip(right).map(|(a, b)| (a - b).abs()).sum()
}
