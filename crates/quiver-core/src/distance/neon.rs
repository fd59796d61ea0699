//! aarch64 NEON kernels (NEON is mandatory on aarch64, so no run-time check is needed).
//! Not exercised on the x86 build machine: kept simple so it can be checked by reading, and
//! tested against scalar by `cargo test` on any arm64 host.

use super::Kernels;
use std::arch::aarch64::*;

pub const NEON: Kernels = Kernels { dot: dot_neon, l2_squared: l2_squared_neon, l1: l1_neon };

fn dot_neon(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "dot: length mismatch");
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    // SAFETY: every load reads 4 floats at offset + 4 <= length; NEON is baseline on aarch64.
    unsafe {
        let mut sum0 = vdupq_n_f32(0.0);
        let mut sum1 = vdupq_n_f32(0.0);
        let mut offset = 0;
        while offset + 8 <= length {
            sum0 = vfmaq_f32(sum0, vld1q_f32(a.add(offset)), vld1q_f32(b.add(offset)));
            sum1 = vfmaq_f32(sum1, vld1q_f32(a.add(offset + 4)), vld1q_f32(b.add(offset + 4)));
            offset += 8;
        }
        let mut total = vaddvq_f32(vaddq_f32(sum0, sum1));
        while offset < length {
            total += *a.add(offset) * *b.add(offset);
            offset += 1;
        }
        total
    }
}

fn l2_squared_neon(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "l2_squared: length mismatch");
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    // SAFETY: as in dot_neon.
    unsafe {
        let mut sum0 = vdupq_n_f32(0.0);
        let mut sum1 = vdupq_n_f32(0.0);
        let mut offset = 0;
        while offset + 8 <= length {
            let d0 = vsubq_f32(vld1q_f32(a.add(offset)), vld1q_f32(b.add(offset)));
            let d1 = vsubq_f32(vld1q_f32(a.add(offset + 4)), vld1q_f32(b.add(offset + 4)));
            sum0 = vfmaq_f32(sum0, d0, d0);
            sum1 = vfmaq_f32(sum1, d1, d1);
            offset += 8;
        }
        let mut total = vaddvq_f32(vaddq_f32(sum0, sum1));
        while offset < length {
            let difference = *a.add(offset) - *b.add(offset);
            total += difference * difference;
            offset += 1;
        }
        total
    }
}

fn l1_neon(left: &[f32], right: &[f32]) -> f32 {
    assert_eq!(left.len(), right.len(), "l1: length mismatch");
    let length = left.len();
    let (a, b) = (left.as_ptr(), right.as_ptr());
    // SAFETY: as in dot_neon.
    unsafe {
        let mut sum0 = vdupq_n_f32(0.0);
        let mut sum1 = vdupq_n_f32(0.0);
        let mut offset = 0;
        while offset + 8 <= length {
            sum0 = vaddq_f32(sum0, vabdq_f32(vld1q_f32(a.add(offset)), vld1q_f32(b.add(offset))));
            sum1 = vaddq_f32(sum1, vabdq_f32(vld1q_f32(a.add(offset + 4)), vld1q_f32(b.add(offset + 4))));
            offset += 8;
        }
        let mut total = vaddvq_f32(vaddq_f32(sum0, sum1));
        while offset < length {
            total += (*a.add(offset) - *b.add(offset)).abs();
            offset += 1;
        }
        total
    }
}
