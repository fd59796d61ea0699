//! The HNSW graph (Malkov & Yashunin): nodes are store slots; level 0 keeps up to m0 = 2·m
//! links per node in one fixed-stride array, upper levels up to m links in a per-node array
//! allocated only for the ~1/m of nodes that reach them.
//!
//! Concurrency: link lists are atomics. A writer changes a node's lists only while holding
//! that node's spin lock and publishes ids before the count (Release); searches take no lock
//! and read the count (Acquire) then the ids, so they may see a list mid-update but every id
//! they read names a real node. A node's level is published after its rows exist, so a
//! reader that finds the level finds the rows. Upper-level arrays are freed only on drop.

mod heal;
mod insert;
mod integrity;
mod persist;
mod search;
mod search_codes;
mod search_filtered;
pub mod visited;

use crate::rows::Rows;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;
use visited::VisitedPool;

pub use integrity::IntegrityReport;
pub use search_codes::SlotScorer;
pub use search_filtered::WalkCounts;

/// Levels above this are never drawn (1/ln(2) · ln(2^32) < 48; 32 keeps arrays small).
pub const MAX_LEVEL: usize = 32;
const NO_ENTRY: u64 = u64::MAX;

#[derive(Clone, Copy, Debug)]
pub struct GraphParams {
    pub m: usize,
    pub m0: usize,
    pub ef_construct: usize,
    pub level_multiplier: f64,
}

impl GraphParams {
    pub fn new(m: usize, ef_construct: usize) -> GraphParams {
        GraphParams { m, m0: 2 * m, ef_construct, level_multiplier: 1.0 / (m as f64).ln() }
    }

    /// Link capacity at `level`.
    #[inline(always)]
    pub fn capacity(&self, level: usize) -> usize {
        if level == 0 {
            self.m0
        } else {
            self.m
        }
    }
}

pub struct Graph {
    params: GraphParams,
    /// level + 1 per slot; 0 = not in the graph.
    levels: Rows<AtomicU8>,
    locks: Rows<AtomicU8>,
    /// [count, m0 ids] per slot.
    level0: Rows<AtomicU32>,
    /// Per slot: null, or an array [capacity_levels, then (count, m ids) per level 1..].
    upper: Rows<AtomicPtr<AtomicU32>>,
    upper_bytes: AtomicUsize,
    /// Upper arrays replaced by bigger ones (address, length): freed on drop, since a search
    /// may still be reading them.
    retired: Mutex<Vec<(usize, usize)>>,
    /// One past the highest slot ever given storage.
    slot_bound: AtomicU32,
    /// (level << 32) | slot of the entry point, or NO_ENTRY.
    entry: AtomicU64,
    entry_lock: Mutex<()>,
    nodes: AtomicUsize,
    random_state: AtomicU64,
    pub(crate) visited: VisitedPool,
}

/// Holds a node's spin lock; released on drop.
pub struct NodeGuard<'a> {
    lock: &'a AtomicU8,
}

impl Drop for NodeGuard<'_> {
    fn drop(&mut self) {
        self.lock.store(0, Ordering::Release);
    }
}

impl Graph {
    pub fn new(params: GraphParams) -> Graph {
        let pool = crate::cores::available().clamp(4, 64) * 2;
        Graph {
            params,
            levels: Rows::new(1),
            locks: Rows::new(1),
            level0: Rows::new(1 + params.m0),
            upper: Rows::new(1),
            upper_bytes: AtomicUsize::new(0),
            retired: Mutex::new(Vec::new()),
            slot_bound: AtomicU32::new(0),
            entry: AtomicU64::new(NO_ENTRY),
            entry_lock: Mutex::new(()),
            nodes: AtomicUsize::new(0),
            random_state: AtomicU64::new(0x9E37_79B9_7F4A_7C15),
            visited: VisitedPool::new(pool),
        }
    }

    pub fn params(&self) -> &GraphParams {
        &self.params
    }

    /// Nodes currently in the graph (live or tombstoned).
    pub fn node_count(&self) -> usize {
        self.nodes.load(Ordering::Acquire)
    }

    pub fn memory_bytes(&self) -> usize {
        self.levels.allocated_bytes()
            + self.locks.allocated_bytes()
            + self.level0.allocated_bytes()
            + self.upper.allocated_bytes()
            + self.upper_bytes.load(Ordering::Acquire)
            + self.visited.memory_bytes()
    }

    /// The node's top level, or None if the slot is not in the graph.
    #[inline(always)]
    pub fn level(&self, slot: u32) -> Option<usize> {
        let value = self.levels.get(slot as usize)?[0].load(Ordering::Acquire);
        if value == 0 {
            None
        } else {
            Some(value as usize - 1)
        }
    }

    pub fn contains(&self, slot: u32) -> bool {
        self.level(slot).is_some()
    }

    /// Entry point and its level.
    #[inline]
    pub fn entry(&self) -> Option<(u32, usize)> {
        let packed = self.entry.load(Ordering::Acquire);
        if packed == NO_ENTRY {
            None
        } else {
            Some((packed as u32, (packed >> 32) as usize))
        }
    }

    fn set_entry(&self, entry: Option<(u32, usize)>) {
        let packed = entry.map_or(NO_ENTRY, |(slot, level)| ((level as u64) << 32) | slot as u64);
        self.entry.store(packed, Ordering::Release);
    }

    /// A prefetch hint for `slot`'s level-0 link row (count and ids); nothing if it has none.
    #[inline(always)]
    pub(crate) fn prefetch_level0_links(&self, slot: u32) {
        if let Some(row) = self.level0.get(slot as usize) {
            crate::prefetch::lines(row.as_ptr() as *const u8, std::mem::size_of_val(row));
        }
    }

    /// The link row ([count, ids...]) of `slot` at `level`, if the node has that level.
    #[inline(always)]
    pub fn links(&self, slot: u32, level: usize) -> Option<&[AtomicU32]> {
        let top = self.level(slot)?;
        if level > top {
            return None;
        }
        if level == 0 {
            return Some(self.level0.row(slot as usize));
        }
        let array = self.upper.row(slot as usize)[0].load(Ordering::Acquire);
        if array.is_null() {
            return None;
        }
        let stride = 1 + self.params.m;
        // SAFETY: arrays are allocated with capacity_levels >= top, live until drop, and
        // hold `1 + capacity_levels * stride` atomics.
        unsafe {
            let start = 1 + (level - 1) * stride;
            Some(std::slice::from_raw_parts(array.add(start), stride))
        }
    }

    /// Copies the current links of `slot` at `level` into `output`.
    pub fn read_links(&self, slot: u32, level: usize, output: &mut Vec<u32>) {
        output.clear();
        if let Some(row) = self.links(slot, level) {
            let count = (row[0].load(Ordering::Acquire) as usize).min(row.len() - 1);
            output.extend(row[1..=count].iter().map(|id| id.load(Ordering::Relaxed)));
        }
    }

    /// Replaces the links of `slot` at `level`; the caller holds the node's lock.
    pub fn write_links(&self, _guard: &NodeGuard<'_>, slot: u32, level: usize, links: &[u32]) {
        let Some(row) = self.links(slot, level) else { return };
        let count = links.len().min(row.len() - 1);
        for (cell, id) in row[1..=count].iter().zip(links) {
            cell.store(*id, Ordering::Relaxed);
        }
        row[0].store(count as u32, Ordering::Release);
    }

    pub fn lock(&self, slot: u32) -> NodeGuard<'_> {
        let lock = &self.locks.row(slot as usize)[0];
        let mut spins = 0u32;
        while lock.compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed).is_err() {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        NodeGuard { lock }
    }

    /// A level drawn from the exponential distribution with multiplier 1/ln(m).
    pub fn random_level(&self) -> usize {
        // splitmix64 over an atomic counter: thread safe, reproducible for one insert order.
        let mut value = self.random_state.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed).wrapping_add(0x9E37_79B9_7F4A_7C15);
        value = (value ^ (value >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        value = (value ^ (value >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        value ^= value >> 31;
        let uniform = ((value >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        ((-uniform.ln() * self.params.level_multiplier) as usize).min(MAX_LEVEL)
    }

    /// Gives `slot` storage for `level` levels and publishes it as a (link-less) node.
    /// A slot already in the graph keeps its level (and links). Returns (level, existed).
    fn add_node(&self, slot: u32, level: usize) -> (usize, bool) {
        let index = slot as usize;
        self.levels.ensure(index);
        self.locks.ensure(index);
        self.level0.ensure(index);
        self.upper.ensure(index);
        self.slot_bound.fetch_max(slot + 1, Ordering::AcqRel);
        // Under the node's lock, so two builders handed the same slot (a re-upsert while its
        // first link is still running) cannot both create it.
        let _guard = self.lock(slot);
        if let Some(existing) = self.level(slot) {
            return (existing, true);
        }
        if level > 0 {
            let cell = &self.upper.row(index)[0];
            let current = cell.load(Ordering::Acquire);
            // SAFETY: a non-null array starts with its level capacity.
            let capacity = if current.is_null() { 0 } else { unsafe { (*current).load(Ordering::Relaxed) as usize } };
            if capacity < level {
                // A smaller array from an earlier life of this slot stays allocated until
                // drop (a search may still be reading it); it is simply replaced.
                cell.store(self.allocate_upper(level), Ordering::Release);
                if !current.is_null() {
                    let length = self.upper_length(capacity);
                    self.retired.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push((current as usize, length));
                }
            } else {
                self.clear_upper(current, capacity);
            }
        }
        self.level0.row(index)[0].store(0, Ordering::Release);
        self.levels.row(index)[0].store(level as u8 + 1, Ordering::Release);
        self.nodes.fetch_add(1, Ordering::AcqRel);
        (level, false)
    }

    fn clear_upper(&self, array: *mut AtomicU32, capacity: usize) {
        let stride = 1 + self.params.m;
        for level in 0..capacity {
            // SAFETY: within the array's 1 + capacity * stride atomics.
            unsafe { (*array.add(1 + level * stride)).store(0, Ordering::Release) };
        }
    }

    fn upper_length(&self, capacity: usize) -> usize {
        1 + capacity * (1 + self.params.m)
    }

    fn allocate_upper(&self, capacity: usize) -> *mut AtomicU32 {
        let length = self.upper_length(capacity);
        let array: Box<[AtomicU32]> = (0..length).map(|_| AtomicU32::new(0)).collect();
        array[0].store(capacity as u32, Ordering::Relaxed);
        self.upper_bytes.fetch_add(length * 4, Ordering::AcqRel);
        Box::into_raw(array) as *mut AtomicU32
    }

    /// Takes `slot` out of the graph (its links stay readable for in-flight searches).
    fn remove_node(&self, slot: u32) {
        if let Some(cell) = self.levels.get(slot as usize) {
            if cell[0].swap(0, Ordering::AcqRel) != 0 {
                self.nodes.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        let mut arrays = std::mem::take(self.retired.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()));
        for slot in 0..*self.slot_bound.get_mut() as usize {
            let Some(row) = self.upper.get(slot) else { continue };
            let array = row[0].load(Ordering::Acquire);
            if !array.is_null() {
                // SAFETY: a non-null array starts with its level capacity.
                let capacity = unsafe { (*array).load(Ordering::Relaxed) as usize };
                arrays.push((array as usize, self.upper_length(capacity)));
            }
        }
        for (address, length) in arrays {
            // SAFETY: allocated by allocate_upper as a boxed slice of exactly this length,
            // and listed once (replaced arrays are no longer attached to a slot).
            unsafe { drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(address as *mut AtomicU32, length))) };
        }
    }
}
