//! Distance kernels over quantized codes: a scalar twin for each primitive, SIMD versions
//! chosen once per quantizer (`CodeKernels::detect`), every one tested against its twin.
//!
//! - `dot_u8`: Σ a·b over unsigned 8-bit codes (scalar quantization, every metric but L1);
//! - `l1_u8`: Σ |a − b| (scalar quantization under Manhattan);
//! - `hamming`: popcount(a XOR b) over bit-packed codes (binary quantization).

/// A kernel over two equal-length code slices; the result is exact (integer arithmetic).
pub type CodeKernel = fn(&[u8], &[u8]) -> u32;

/// One set of code kernels for an instruction set.
#[derive(Clone, Copy)]
pub struct CodeKernels {
    pub name: &'static str,
    pub dot_u8: CodeKernel,
    pub l1_u8: CodeKernel,
    pub hamming: CodeKernel,
}

pub const SCALAR: CodeKernels = CodeKernels { name: "scalar", dot_u8: scalar_dot_u8, l1_u8: scalar_l1_u8, hamming: scalar_hamming };

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

    const LENGTHS: [usize; 12] = [1, 3, 7, 8, 15, 16, 31, 32, 33, 64, 100, 1543];

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
            }
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
        }
    }
}
