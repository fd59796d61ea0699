//! Slots upserted but not yet linked into the graph. Searches scan them exactly (so a write is
//! searchable as soon as upsert returns); indexer threads take them one at a time and only
//! drop them from the set once linked, so there is no moment at which a slot is neither in
//! the tail nor reachable in the graph.

use std::collections::{HashSet, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

#[derive(Default)]
struct PendingState {
    waiting: VecDeque<u32>,
    waiting_set: HashSet<u32>,
    working: Vec<u32>,
    /// Slots whose linking panicked (a kernel bug): never retried, but still scanned by
    /// every search so the point is not lost.
    stranded: Vec<u32>,
    /// Builder threads alive (or promised by `push`'s return value and being started).
    workers: usize,
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

    /// Queues slots for linking; a slot already waiting is not queued twice. Returns how many
    /// builder threads the caller must start to have `wanted` alive (counted as alive from
    /// here on, so concurrent pushes never start too many or too few).
    pub fn push(&self, slots: impl IntoIterator<Item = u32>, wanted: usize) -> usize {
        let mut state = self.lock();
        let mut added = false;
        for slot in slots {
            if state.waiting_set.insert(slot) {
                state.waiting.push_back(slot);
                added = true;
            }
        }
        let missing = if added && !state.shutdown { wanted.saturating_sub(state.workers) } else { 0 };
        state.workers += missing;
        drop(state);
        if added {
            self.work.notify_all();
        }
        missing
    }

    /// A builder thread promised by `push` could not start.
    pub fn worker_failed(&self) {
        let mut state = self.lock();
        state.workers = state.workers.saturating_sub(1);
    }

    pub fn workers(&self) -> usize {
        self.lock().workers
    }

    /// The next slot to link, waiting up to `idle` for one. None tells the builder thread to
    /// exit (shut down, or idle that long: an index nobody writes to holds no threads); the
    /// decision is made under the lock, so a concurrent `push` starts a replacement.
    pub fn take(&self, idle: Duration) -> Option<u32> {
        let mut state = self.lock();
        loop {
            if state.shutdown {
                state.workers = state.workers.saturating_sub(1);
                return None;
            }
            if let Some(slot) = state.waiting.pop_front() {
                state.waiting_set.remove(&slot);
                state.working.push(slot);
                return Some(slot);
            }
            let (next, timeout) = self.work.wait_timeout(state, idle).unwrap_or_else(|poisoned| poisoned.into_inner());
            state = next;
            if timeout.timed_out() && state.waiting.is_empty() {
                state.workers = state.workers.saturating_sub(1);
                return None;
            }
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

    /// Slots not yet linked, counted without copying (a slot re-upserted while being linked
    /// counts twice until its first link finishes).
    pub fn len(&self) -> usize {
        let state = self.lock();
        state.waiting.len() + state.working.len() + state.stranded.len()
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
