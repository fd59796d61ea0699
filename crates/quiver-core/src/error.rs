//! Kernel errors. Each carries a stable code that reaches JavaScript at the start of the
//! message ("DIMENSION_MISMATCH: ..."), so TypeScript maps them without parsing prose.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    DimensionMismatch,
    InvalidArgument,
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

impl fmt::Display for KernelError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for KernelError {}

pub type KernelResult<T> = Result<T, KernelError>;
