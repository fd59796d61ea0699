//! A heap index loaded from a version 5 checkpoint answers from the file's row block at once
//! and copies the rows into its arena behind the searches (store.rs, `copy_next_adopted_rows`),
//! so a restart does not wait for every vector to be copied (docs/architecture.md §21). The copy
//! runs on its own thread at the builders' priority, a step of rows at a time; each step's rows
//! are read from the arena from then on, and their file pages are given back.

use super::{Shared, VectorIndex};
use std::sync::{Arc, Weak};

/// Rows copied between checks that the index still exists; also how many file pages are held
/// at most before they are given back (4,096 rows of 768 float32 values: 12 MiB).
const ROWS_PER_STEP: usize = 4096;

impl VectorIndex {
    /// Starts copying the rows a heap store adopted into its arena, if it adopted any. Without
    /// a thread the rows are copied here, before the load returns, as the load did before.
    pub(crate) fn copy_adopted_rows_in_background(&self) {
        if !self.shared.store.copies_adopted_rows() {
            return;
        }
        let shared = Arc::downgrade(&self.shared);
        let spawned = std::thread::Builder::new().name("quiver-rows".into()).spawn(move || {
            crate::background_priority::lower_current_thread(crate::background_priority::BUILDER_NICE_INCREMENT);
            copy_rows(&shared);
        });
        match spawned {
            // Joined when the index is dropped (index.rs), so no copy outlives it.
            Ok(thread) => *self.row_copy.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(thread),
            Err(_) => copy_rows(&Arc::downgrade(&self.shared)),
        }
    }

    /// Rows the index still reads from a checkpoint file instead of its own memory: for a heap
    /// index until its background copy ends, for good for an `on_disk` one.
    pub fn rows_read_from_checkpoint(&self) -> usize {
        self.shared.store.adopted_rows()
    }
}

/// Copies every adopted row, a step at a time, unless the index is dropped first (its drop
/// shuts `pending` down, then waits for this to return).
fn copy_rows(shared: &Weak<Shared>) {
    loop {
        let Some(shared) = shared.upgrade() else { return };
        if shared.pending.is_shut_down() || shared.store.copy_next_adopted_rows(ROWS_PER_STEP) == 0 {
            return;
        }
    }
}
