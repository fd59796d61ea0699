//! Kernel errors: a stable code plus a readable sentence. The binding hands the two to
//! JavaScript apart (the code becomes the JS error's `code` property), so TypeScript maps
//! codes without parsing prose. The code strings are part of the native boundary: renaming
//! one means renaming it in src/native/errors.ts too.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    DimensionMismatch,
    InvalidArgument,
    /// The checkpoint file does not exist: normal on a first start, not damage.
    CheckpointMissing,
    CheckpointCorrupt,
    CheckpointVersion,
    IndexClosed,
    Io,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::DimensionMismatch => "DIMENSION_MISMATCH",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::CheckpointMissing => "CHECKPOINT_MISSING",
            ErrorCode::CheckpointCorrupt => "CHECKPOINT_CORRUPT",
            ErrorCode::CheckpointVersion => "CHECKPOINT_VERSION",
            ErrorCode::IndexClosed => "INDEX_CLOSED",
            ErrorCode::Io => "IO_ERROR",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelError {
    pub code: ErrorCode,
    pub message: String,
}

impl KernelError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> KernelError {
        KernelError { code, message: message.into() }
    }

    pub fn dimension(expected: usize, actual: usize) -> KernelError {
        KernelError::new(ErrorCode::DimensionMismatch, format!("expected {expected} values per vector, got {actual}"))
    }

    pub fn invalid(message: impl Into<String>) -> KernelError {
        KernelError::new(ErrorCode::InvalidArgument, message)
    }

    pub fn corrupt(message: impl Into<String>) -> KernelError {
        KernelError::new(ErrorCode::CheckpointCorrupt, message)
    }

    pub fn io(context: &str, error: std::io::Error) -> KernelError {
        KernelError::new(ErrorCode::Io, format!("{context}: {error}"))
    }
}

/// "CODE: message", for Rust-side messages and test failures.
impl fmt::Display for KernelError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for KernelError {}

pub type KernelResult<T> = Result<T, KernelError>;
