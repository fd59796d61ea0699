//! Native memory reported to V8, so its garbage collector sees what an index holds. One report
//! per index, shared by the binding and its background tasks; each report sends only the change.
//! Internal to the crate (no TypeScript twin).

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use napi::Env;

/// Bytes last reported to V8 for one index.
#[derive(Clone, Default)]
pub struct MemoryReport {
    reported: Arc<AtomicI64>,
}

impl MemoryReport {
    /// Reports `bytes` as the index's current size (0 when it is closed).
    pub fn set(&self, env: &Env, bytes: usize) {
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        let previous = self.reported.swap(bytes, Ordering::AcqRel);
        if bytes != previous {
            let _ = env.adjust_external_memory(bytes - previous);
        }
    }
}
