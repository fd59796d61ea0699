//! Thin napi-rs bindings: typed arrays in, numbers and typed arrays out. All logic lives in
//! `quiver-core`; this crate converts types, moves heavy work off the JS thread and maps
//! errors to stable codes.

mod completions;
mod errors;
mod index;
mod pool;
mod result_bytes;
mod sparse_index;
mod tasks;

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Dot product of two equal-length Float32Arrays, read in place without copying.
#[napi(catch_unwind)]
pub fn dot(left: Float32Array, right: Float32Array) -> Result<f64> {
    if left.len() != right.len() {
        return Err(Error::new(
            Status::InvalidArg,
            format!("DIMENSION_MISMATCH: expected {}, got {}", left.len(), right.len()),
        ));
    }
    Ok(quiver_core::distance::dot_kernel()(&left, &right) as f64)
}

/// The SIMD instruction set the kernel picked on this CPU.
#[napi]
pub fn instruction_set() -> &'static str {
    quiver_core::distance::instruction_set()
}
