//! Kernel errors to JS errors. Twin of src/native/errors.ts, which reads them (tests in
//! src/native/errors.test.ts).
//!
//! The stable code travels as the JS error's `code` property and the message stays a readable
//! sentence: napi-rs creates a JS error with `napi_create_error(status, reason)`, so an error
//! whose status is a `Code` arrives as `{ code: "INDEX_CLOSED", message: "the vector index was
//! closed" }`. Every function the addon exports returns this module's `Result`.

use napi::bindgen_prelude::{Env, JsError};
use quiver_core::{ErrorCode, KernelError};

/// A kernel error code in the place napi-rs puts an error's status; `as_ref` is what JS sees
/// as `error.code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code(pub ErrorCode);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0.as_str()
    }
}

pub type NativeError = napi::Error<Code>;

/// Named `Result` because napi-rs recognises a fallible export by that name.
pub type Result<T> = std::result::Result<T, NativeError>;

pub fn error(code: ErrorCode, message: impl Into<String>) -> NativeError {
    NativeError::new(Code(code), message.into())
}

pub fn from_kernel(failure: KernelError) -> NativeError {
    error(failure.code, failure.message)
}

pub fn closed() -> NativeError {
    error(ErrorCode::IndexClosed, "the vector index was closed")
}

pub fn invalid(message: impl Into<String>) -> NativeError {
    error(ErrorCode::InvalidArgument, message)
}

pub fn internal(message: impl Into<String>) -> NativeError {
    error(ErrorCode::Internal, message)
}

/// A failure of Node-API itself (creating a promise or a string): not the kernel's fault, but
/// it still crosses as INTERNAL so the JS side sees one shape for every addon error.
pub fn from_node(failure: napi::Error) -> NativeError {
    internal(format!("Node-API call failed: {}", failure.reason))
}

/// Runs kernel work, turning a panic into an INTERNAL error instead of tearing down Node.
pub fn guarded<T>(work: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(internal(format!("kernel panic: {detail}")))
        }
    }
}

/// `failure` as a rejection for a napi-rs deferred promise, built on the JS thread.
///
/// `JsDeferred::reject` takes only a plain-status `napi::Error`, whose JS `code` would read
/// "GenericFailure". So the JS error object is created here, with its code, and handed back as
/// a `napi::Error` that holds a reference to it: napi-rs rejects with that very object.
pub fn into_rejection(env: Env, failure: NativeError) -> napi::Error {
    napi::Error::from(JsError::from(failure).into_unknown(env))
}
