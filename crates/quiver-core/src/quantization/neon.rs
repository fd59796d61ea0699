//! aarch64 NEON code kernels (NEON is baseline on aarch64). On the x86 build machine they are
//! compiled and linted (`cargo clippy --target aarch64-unknown-linux-gnu`) but not run: kept
//! simple so they can be checked by reading, and tested against the scalar twins by
//! `cargo test` on any arm64 host.

use super::kernels::{levels_by_words, plane_count, scalar_dot_u8, scalar_l1_u8, CodeKernels};
use std::arch::aarch64::*;

pub const NEON: CodeKernels = CodeKernels {
    name: "neon",
    dot_u8: dot_u8_neon,
    l1_u8: l1_u8_neon,
    hamming: hamming_neon,
    levels: levels_by_words,
    plane_dot: plane_dot_neon,
};

// 16 codes per step: UMULL widens u8×u8 to u16 products, UADALP folds pairs into u32 lanes.
fn dot_u8_neon(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "dot_u8: length mismatch");
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut offset = 0;
    // SAFETY: every load reads 16 bytes at offset + 16 <= length.
    let total = unsafe {
        let mut sum = vdupq_n_u32(0);
        while offset + 16 <= length {
            let x = vld1q_u8(a.add(offset));
            let y = vld1q_u8(b.add(offset));
            sum = vpadalq_u16(sum, vmull_u8(vget_low_u8(x), vget_low_u8(y)));
            sum = vpadalq_u16(sum, vmull_high_u8(x, y));
            offset += 16;
        }
        vaddvq_u32(sum)
    };
    total + scalar_dot_u8(&left[offset..], &right[offset..])
}

fn l1_u8_neon(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "l1_u8: length mismatch");
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut offset = 0;
    // SAFETY: as in dot_u8_neon.
    let total = unsafe {
        let mut sum = vdupq_n_u32(0);
        while offset + 16 <= length {
            let difference = vabdq_u8(vld1q_u8(a.add(offset)), vld1q_u8(b.add(offset)));
            sum = vpadalq_u16(sum, vpaddlq_u8(difference));
            offset += 16;
        }
        vaddvq_u32(sum)
    };
    total + scalar_l1_u8(&left[offset..], &right[offset..])
}

// CNT counts bits per byte; the byte counts are widened and summed.
fn hamming_neon(left: &[u8], right: &[u8]) -> u32 {
    assert_eq!(left.len(), right.len(), "hamming: length mismatch");
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    let mut offset = 0;
    // SAFETY: as in dot_u8_neon.
    let total = unsafe {
        let mut sum = vdupq_n_u32(0);
        while offset + 16 <= length {
            let bits = vcntq_u8(veorq_u8(vld1q_u8(a.add(offset)), vld1q_u8(b.add(offset))));
            sum = vpadalq_u16(sum, vpaddlq_u8(bits));
            offset += 16;
        }
        vaddvq_u32(sum)
    };
    // The last bytes one CNT at a time, not through the twin, which goes bit by bit.
    total + left[offset..].iter().zip(&right[offset..]).map(|(x, y)| (x ^ y).count_ones()).sum::<u32>()
}

// Per plane: CNT of (plane AND code), widened and summed like hamming_neon, weighted by 2^plane.
fn plane_dot_neon(planes: &[u8], code: &[u8]) -> u32 {
    let count = plane_count(planes, code);
    let length = code.len();
    let mut total = 0u32;
    for plane in 0..count {
        let query = &planes[plane * length..(plane + 1) * length];
        let (a, b) = (query.as_ptr(), code.as_ptr());
        let mut offset = 0;
        // SAFETY: every load reads 16 bytes at offset + 16 <= length of both slices.
        let bits = unsafe {
            let mut sum = vdupq_n_u32(0);
            while offset + 16 <= length {
                let bits = vcntq_u8(vandq_u8(vld1q_u8(a.add(offset)), vld1q_u8(b.add(offset))));
                sum = vpadalq_u16(sum, vpaddlq_u8(bits));
                offset += 16;
            }
            vaddvq_u32(sum)
        };
        let tail: u32 = query[offset..].iter().zip(&code[offset..]).map(|(x, y)| (x & y).count_ones()).sum();
        total += (bits + tail) << plane;
    }
    total
}
