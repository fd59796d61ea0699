//! Thin napi-rs bindings: typed arrays in, numbers and typed arrays out. All logic lives in
//! `quiver-core`; this crate converts types, moves heavy work off the JS thread and maps
//! errors to stable codes (errors.rs).
//!
//! Each file that JS sees has a TypeScript twin of the same name in src/native (snake_case
//! here, kebab-case there), with its tests beside it: this root and its exports <->
//! src/native/addon.ts, vector_index.rs <-> vector-index.ts, completions.rs <->
//! completions.ts, errors.rs <-> errors.ts. pool.rs, tasks.rs and result_bytes.rs are
//! internal to the crate and have none.

mod completions;
mod errors;
mod external_memory;
mod pool;
mod result_bytes;
mod sparse_index;
mod tasks;
mod vector_index;

use errors::Result;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Dot product of two equal-length Float32Arrays, read in place without copying.
#[napi(catch_unwind)]
pub fn dot(left: Float32Array, right: Float32Array) -> Result<f64> {
    if left.len() != right.len() {
        return Err(errors::error(
            quiver_core::ErrorCode::DimensionMismatch,
            format!("the vectors differ in length: {} and {}", left.len(), right.len()),
        ));
    }
    Ok(quiver_core::distance::dot_kernel()(&left, &right) as f64)
}

/// CRC-32C (Castagnoli) of a byte buffer, read in place, with the CPU's CRC instruction where it
/// has one. Twin of the portable table version in src/storage/crc32c.ts, which the tests compare.
#[napi(js_name = "crc32c")]
pub fn crc32c(bytes: Uint8ArraySlice<'_>) -> u32 {
    ::crc32c::crc32c(&bytes)
}

/// The SIMD instruction set the kernel picked on this CPU.
#[napi]
pub fn instruction_set() -> &'static str {
    quiver_core::distance::instruction_set()
}
