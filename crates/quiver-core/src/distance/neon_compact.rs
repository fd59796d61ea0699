//! aarch64 uint8 kernels against a float32 query (bytes widened u8 -> u16 -> u32 -> f32, 8 per
//! step). float16 rows use the scalar twins here: the NEON float16 types are not stable Rust.
//! Compile-checked with `cargo check --target aarch64-unknown-linux-gnu`; tested against the
//! twins by `cargo test` on an arm64 host.

use super::compact::{self, finish_cosine, CompactKernels};
use std::arch::aarch64::*;

pub const NEON: CompactKernels = CompactKernels {
    dot_f16: compact::dot_f16,
    l2_squared_f16: compact::l2_squared_f16,
    l1_f16: compact::l1_f16,
    dot_u8: dot_u8_neon,
    l2_squared_u8: l2_squared_u8_neon,
    l1_u8: l1_u8_neon,
    cosine_u8: cosine_u8_neon,
    // NEON float16 types are not stable Rust (docs/architecture.md §18).
    decode_f16: compact::SCALAR.decode_f16,
};

/// Eight bytes as two float32 vectors (low four, high four).
#[inline(always)]
unsafe fn load_u8(pointer: *const u8) -> (float32x4_t, float32x4_t) {
    let wide = vmovl_u8(vld1_u8(pointer));
    (vcvtq_f32_u32(vmovl_u16(vget_low_u16(wide))), vcvtq_f32_u32(vmovl_u16(vget_high_u16(wide))))
}

macro_rules! kernel {
    ($name:ident, $step:expr, $tail:expr) => {
        fn $name(query: &[f32], row: &[u8]) -> f32 {
            assert_eq!(query.len(), row.len(), concat!(stringify!($name), ": length mismatch"));
            let length = query.len();
            let (a, b) = (query.as_ptr(), row.as_ptr());
            // SAFETY: every load reads 8 bytes / 4 floats below `length`; NEON is baseline.
            unsafe {
                let mut sum0 = vdupq_n_f32(0.0);
                let mut sum1 = vdupq_n_f32(0.0);
                let mut offset = 0;
                while offset + 8 <= length {
                    let (low, high) = load_u8(b.add(offset));
                    sum0 = $step(vld1q_f32(a.add(offset)), low, sum0);
                    sum1 = $step(vld1q_f32(a.add(offset + 4)), high, sum1);
                    offset += 8;
                }
                let mut total = vaddvq_f32(vaddq_f32(sum0, sum1));
                while offset < length {
                    total += $tail(*a.add(offset), *b.add(offset) as f32);
                    offset += 1;
                }
                total
            }
        }
    };
}

#[inline(always)]
unsafe fn dot_step(query: float32x4_t, row: float32x4_t, sum: float32x4_t) -> float32x4_t {
    vfmaq_f32(sum, query, row)
}

#[inline(always)]
unsafe fn l2_step(query: float32x4_t, row: float32x4_t, sum: float32x4_t) -> float32x4_t {
    let difference = vsubq_f32(query, row);
    vfmaq_f32(sum, difference, difference)
}

#[inline(always)]
unsafe fn l1_step(query: float32x4_t, row: float32x4_t, sum: float32x4_t) -> float32x4_t {
    vaddq_f32(sum, vabdq_f32(query, row))
}

kernel!(dot_u8_neon, dot_step, |a: f32, b: f32| a * b);
kernel!(l2_squared_u8_neon, l2_step, |a: f32, b: f32| (a - b) * (a - b));
kernel!(l1_u8_neon, l1_step, |a: f32, b: f32| (a - b).abs());

fn cosine_u8_neon(query: &[f32], row: &[u8]) -> f32 {
    assert_eq!(query.len(), row.len(), "cosine_u8: length mismatch");
    let length = query.len();
    let (a, b) = (query.as_ptr(), row.as_ptr());
    // SAFETY: as in the kernels above.
    unsafe {
        let mut dot = vdupq_n_f32(0.0);
        let mut norm = vdupq_n_f32(0.0);
        let mut offset = 0;
        while offset + 8 <= length {
            let (low, high) = load_u8(b.add(offset));
            dot = vfmaq_f32(vfmaq_f32(dot, vld1q_f32(a.add(offset)), low), vld1q_f32(a.add(offset + 4)), high);
            norm = vfmaq_f32(vfmaq_f32(norm, low, low), high, high);
            offset += 8;
        }
        let (mut dot_total, mut norm_total) = (vaddvq_f32(dot), vaddvq_f32(norm));
        while offset < length {
            let value = *b.add(offset) as f32;
            dot_total += *a.add(offset) * value;
            norm_total += value * value;
            offset += 1;
        }
        finish_cosine(dot_total, norm_total)
    }
}
