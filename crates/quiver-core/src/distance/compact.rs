//! Kernels between a float32 query and a float16 or uint8 row (docs/architecture.md §18): the
//! scalar twins here, SIMD versions in x86_compact.rs and neon_compact.rs, chosen once per
//! space like the float32 kernels. The row is widened to float32 lane by lane and the sums are
//! float32, so a twin and its SIMD version differ only by summation order.
//!
//! uint8 rows cannot be scaled to unit length, so Cosine over them has its own kernel: the
//! (unit) query's dot with the row divided by the row's norm, both summed in one pass.

use super::row::{decode_f16_scalar, f32_from_f16};

pub type HalfKernel = fn(&[f32], &[u16]) -> f32;
pub type ByteKernel = fn(&[f32], &[u8]) -> f32;
/// float16 → float32 for as many values as both slices hold.
pub type DecodeKernel = fn(&[u16], &mut [f32]);

#[derive(Clone, Copy)]
pub struct CompactKernels {
    pub dot_f16: HalfKernel,
    pub l2_squared_f16: HalfKernel,
    pub l1_f16: HalfKernel,
    pub dot_u8: ByteKernel,
    pub l2_squared_u8: ByteKernel,
    pub l1_u8: ByteKernel,
    pub cosine_u8: ByteKernel,
    /// Widens a float16 row for where a row plays the query (graph construction) or is read
    /// out (`with_vector`, checkpoints): `Space::decode_into`.
    pub decode_f16: DecodeKernel,
}

pub const SCALAR: CompactKernels =
    CompactKernels { dot_f16, l2_squared_f16, l1_f16, dot_u8, l2_squared_u8, l1_u8, cosine_u8, decode_f16: decode_f16_scalar };

pub fn dot_f16(query: &[f32], row: &[u16]) -> f32 {
    assert_eq!(query.len(), row.len(), "dot_f16: length mismatch");
    query.iter().zip(row).map(|(a, b)| a * f32_from_f16(*b)).sum()
}

pub fn l2_squared_f16(query: &[f32], row: &[u16]) -> f32 {
    assert_eq!(query.len(), row.len(), "l2_squared_f16: length mismatch");
    query.iter().zip(row).map(|(a, b)| (a - f32_from_f16(*b)) * (a - f32_from_f16(*b))).sum()
}

pub fn l1_f16(query: &[f32], row: &[u16]) -> f32 {
    assert_eq!(query.len(), row.len(), "l1_f16: length mismatch");
    query.iter().zip(row).map(|(a, b)| (a - f32_from_f16(*b)).abs()).sum()
}

pub fn dot_u8(query: &[f32], row: &[u8]) -> f32 {
    assert_eq!(query.len(), row.len(), "dot_u8: length mismatch");
    query.iter().zip(row).map(|(a, b)| a * *b as f32).sum()
}

pub fn l2_squared_u8(query: &[f32], row: &[u8]) -> f32 {
    assert_eq!(query.len(), row.len(), "l2_squared_u8: length mismatch");
    query.iter().zip(row).map(|(a, b)| (a - *b as f32) * (a - *b as f32)).sum()
}

pub fn l1_u8(query: &[f32], row: &[u8]) -> f32 {
    assert_eq!(query.len(), row.len(), "l1_u8: length mismatch");
    query.iter().zip(row).map(|(a, b)| (a - *b as f32).abs()).sum()
}

/// Cosine similarity of a unit-length query and a raw uint8 row; 0 for an all-zero row.
pub fn cosine_u8(query: &[f32], row: &[u8]) -> f32 {
    assert_eq!(query.len(), row.len(), "cosine_u8: length mismatch");
    let dot: f32 = query.iter().zip(row).map(|(a, b)| a * *b as f32).sum();
    let norm: f32 = row.iter().map(|b| (*b as f32) * (*b as f32)).sum();
    finish_cosine(dot, norm)
}

/// Shared by every cosine_u8 version, so they differ only in how the sums were taken.
#[inline(always)]
pub fn finish_cosine(dot: f32, squared_norm: f32) -> f32 {
    if squared_norm > 0.0 {
        dot / squared_norm.sqrt()
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::available;
    use super::super::row::f16_from_f32;
    use super::*;

    const LENGTHS: [usize; 12] = [1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1537];

    struct Random(u64);
    impl Random {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    fn close(expected: f32, actual: f32, scale: f32) -> bool {
        (expected - actual).abs() <= 1e-4 * (1.0 + scale)
    }

    #[test]
    fn every_simd_compact_kernel_matches_its_scalar_twin_on_random_odd_lengths() {
        eprintln!("compact SIMD kernels checked here: {:?}", available().iter().map(|set| set.name()).collect::<Vec<_>>());
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        for set in available() {
            let kernels = set.compact_kernels();
            for length in LENGTHS {
                for _ in 0..4 {
                    let query: Vec<f32> = (0..length).map(|_| random.next() * 4.0 - 2.0).collect();
                    let halves: Vec<u16> = (0..length).map(|_| f16_from_f32(random.next() * 4.0 - 2.0)).collect();
                    let bytes: Vec<u8> = (0..length).map(|_| (random.next() * 256.0) as u8).collect();
                    for (name, reference, candidate, scale) in [
                        ("dot_f16", dot_f16 as HalfKernel, kernels.dot_f16, 4.0 * length as f32),
                        ("l2_squared_f16", l2_squared_f16 as HalfKernel, kernels.l2_squared_f16, 16.0 * length as f32),
                        ("l1_f16", l1_f16 as HalfKernel, kernels.l1_f16, 4.0 * length as f32),
                    ] {
                        let (expected, actual) = (reference(&query, &halves), candidate(&query, &halves));
                        assert!(close(expected, actual, scale), "{} {name} length {length}: {expected} vs {actual}", set.name());
                    }
                    for (name, reference, candidate, scale) in [
                        ("dot_u8", dot_u8 as ByteKernel, kernels.dot_u8, 512.0 * length as f32),
                        ("l2_squared_u8", l2_squared_u8 as ByteKernel, kernels.l2_squared_u8, 66000.0 * length as f32),
                        ("l1_u8", l1_u8 as ByteKernel, kernels.l1_u8, 258.0 * length as f32),
                        ("cosine_u8", cosine_u8 as ByteKernel, kernels.cosine_u8, 2.0 * length as f32),
                    ] {
                        let (expected, actual) = (reference(&query, &bytes), candidate(&query, &bytes));
                        assert!(close(expected, actual, scale), "{} {name} length {length}: {expected} vs {actual}", set.name());
                    }
                }
            }
        }
    }

    #[test]
    fn compact_kernels_read_only_their_slice_inside_a_larger_buffer() {
        let query: Vec<f32> = (0..17).map(|i| i as f32 * 0.25 - 2.0).collect();
        let mut halves = [f16_from_f32(60000.0); 64];
        let mut bytes = [255u8; 64];
        for i in 0..17 {
            halves[5 + i] = f16_from_f32(i as f32 * 0.5);
            bytes[5 + i] = i as u8;
        }
        for set in available() {
            let kernels = set.compact_kernels();
            assert!(close(dot_f16(&query, &halves[5..22]), (kernels.dot_f16)(&query, &halves[5..22]), 100.0), "{}", set.name());
            assert!(close(dot_u8(&query, &bytes[5..22]), (kernels.dot_u8)(&query, &bytes[5..22]), 100.0), "{}", set.name());
        }
    }

    #[test]
    fn cosine_u8_is_the_cosine_of_the_decoded_row_and_zero_for_a_zero_row() {
        let row = [3u8, 4, 0];
        let query = [0.6f32, 0.8, 0.0];
        for set in available() {
            assert!((set.compact_kernels().cosine_u8)(&query, &row) - 1.0 < 1e-6);
            assert_eq!((set.compact_kernels().cosine_u8)(&query, &[0, 0, 0]), 0.0);
        }
    }
}
