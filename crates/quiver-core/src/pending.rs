//! Slots upserted but not yet linked into the graph. Searches scan them exactly (so a write is
//! searchable as soon as upsert returns); indexer threads take them one at a time and only
//! drop them from the set once linked, so there is no moment at which a slot is neither in
//! the tail nor reachable in the graph.

use std::collections::{HashSet, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};

#[derive(Default)]
struct PendingState {
    waiting: VecDeque<u32>,
    waiting_set: HashSet<u32>,
    working: Vec<u32>,
    /// Slots whose linking panicked (a kernel bug): never retried, but still scanned by
    /// every search so the point is not lost.
    stranded: Vec<u32>,
    shutdown: bool,
}

#[derive(Default)]
pub struct Pending {
    state: Mutex<PendingState>,
    work: Condvar,
    idle: Condvar,
}

impl Pending {
    fn lock(&self) -> MutexGuard<'_, PendingState> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues slots for linking; a slot already waiting is not queued twice.
    pub fn push(&self, slots: impl IntoIterator<Item = u32>) {
        let mut state = self.lock();
        let mut added = false;
        for slot in slots {
            if state.waiting_set.insert(slot) {
                state.waiting.push_back(slot);
                added = true;
            }
        }
        drop(state);
        if added {
            self.work.notify_all();
        }
    }

    /// The next slot to link, waiting for one; None once shut down.
    pub fn take(&self) -> Option<u32> {
        let mut state = self.lock();
        loop {
            if state.shutdown {
                return None;
            }
            if let Some(slot) = state.waiting.pop_front() {
                state.waiting_set.remove(&slot);
                state.working.push(slot);
                return Some(slot);
            }
            state = self.work.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// The next waiting slot without waiting (inline linking when no thread could start).
    pub fn try_take(&self) -> Option<u32> {
        let mut state = self.lock();
        let slot = state.waiting.pop_front()?;
        state.waiting_set.remove(&slot);
        state.working.push(slot);
        Some(slot)
    }

    /// Marks one `take`n slot as linked. Returns whether nothing is left to do.
    pub fn finish(&self, slot: u32) -> bool {
        let mut state = self.lock();
        if let Some(position) = state.working.iter().position(|working| *working == slot) {
            state.working.swap_remove(position);
        }
        let idle = state.waiting.is_empty() && state.working.is_empty();
        drop(state);
        if idle {
            self.idle.notify_all();
        }
        idle
    }

    /// Copies every slot not yet linked (waiting or being linked) into `output`.
    pub fn snapshot(&self, output: &mut Vec<u32>) {
        output.clear();
        let state = self.lock();
        output.extend(state.waiting.iter().copied());
        output.extend(state.working.iter().copied());
        output.extend(state.stranded.iter().copied());
    }

    /// Keeps `slot` in the exact tail for good (its linking failed).
    pub fn strand(&self, slot: u32) {
        let mut state = self.lock();
        if !state.stranded.contains(&slot) {
            state.stranded.push(slot);
        }
    }

    pub fn is_empty(&self) -> bool {
        let state = self.lock();
        state.waiting.is_empty() && state.working.is_empty()
    }

    /// Blocks until nothing waits or is being linked (or the index shuts down).
    pub fn wait_idle(&self) {
        let mut state = self.lock();
        while !(state.shutdown || state.waiting.is_empty() && state.working.is_empty()) {
            state = self.idle.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    pub fn shutdown(&self) {
        self.lock().shutdown = true;
        self.work.notify_all();
        self.idle.notify_all();
    }

    pub fn is_shut_down(&self) -> bool {
        self.lock().shutdown
    }
}
