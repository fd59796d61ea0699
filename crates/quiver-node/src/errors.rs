//! Kernel errors to JS errors: the stable code leads the message ("CODE: detail") so
//! `nativeErrorCode()` in src/native/index.ts can read it.

use napi::{Error, Status};
use quiver_core::{ErrorCode, KernelError};

pub fn to_napi(error: KernelError) -> Error {
    let status = match error.code {
        ErrorCode::DimensionMismatch | ErrorCode::InvalidArgument => Status::InvalidArg,
        _ => Status::GenericFailure,
    };
    Error::new(status, error.to_string())
}

pub fn closed() -> Error {
    Error::new(Status::GenericFailure, "INDEX_CLOSED: the vector index was closed".to_string())
}

pub fn invalid(message: impl std::fmt::Display) -> Error {
    Error::new(Status::InvalidArg, format!("INVALID_ARGUMENT: {message}"))
}

/// Runs kernel work, turning a panic into an INTERNAL error instead of tearing down Node.
pub fn guarded<T>(work: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Error::new(Status::GenericFailure, format!("INTERNAL: kernel panic: {detail}")))
        }
    }
}
