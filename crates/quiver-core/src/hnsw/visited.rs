//! Visited lists, reused across searches: a u16 generation tag per slot, so starting a search
//! is one increment instead of clearing an index-sized array (cleared only on wrap-around,
//! every 65,535 searches). Lists come from a bounded pool so concurrent searches never share one.

use crate::top_k::Neighbor;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Mutex;

pub struct VisitedList {
    tags: Vec<u16>,
    generation: u16,
    /// Heaps reused by the search that borrows this list, so a search allocates nothing.
    pub(crate) candidates: BinaryHeap<Reverse<Neighbor>>,
    pub(crate) results: BinaryHeap<Neighbor>,
}

impl VisitedList {
    fn new() -> VisitedList {
        VisitedList { tags: Vec::new(), generation: 0, candidates: BinaryHeap::new(), results: BinaryHeap::new() }
    }

    fn begin(&mut self, capacity: usize) {
        if self.tags.len() < capacity {
            self.tags.resize(capacity, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.tags.fill(0);
            self.generation = 1;
        }
    }

    /// The first pass of a node's expansion (search.rs, search_codes.rs): the slots in `links`
    /// not yet visited go to `unvisited`, marked, each handed to `preload` as it is found (which
    /// starts loading its slot entry, so the entries load together: docs/architecture.md §22).
    #[inline(always)]
    pub fn gather(&mut self, links: &[std::sync::atomic::AtomicU32], unvisited: &mut Vec<u32>, preload: impl Fn(u32)) {
        unvisited.clear();
        for cell in links {
            let slot = cell.load(std::sync::atomic::Ordering::Relaxed);
            if self.insert(slot) {
                preload(slot);
                unvisited.push(slot);
            }
        }
    }

    /// Marks `slot`; true if it was not yet visited in this search.
    #[inline(always)]
    pub fn insert(&mut self, slot: u32) -> bool {
        let index = slot as usize;
        if index >= self.tags.len() {
            // A node linked after the search began: grow rather than miss it.
            self.tags.resize((index + 1).next_power_of_two(), 0);
        }
        let tag = &mut self.tags[index];
        if *tag == self.generation {
            false
        } else {
            *tag = self.generation;
            true
        }
    }

    #[inline(always)]
    pub fn contains(&self, slot: u32) -> bool {
        self.tags.get(slot as usize).is_some_and(|tag| *tag == self.generation)
    }
}

pub struct VisitedPool {
    lists: Mutex<Vec<VisitedList>>,
    capacity: usize,
}

impl VisitedPool {
    /// Keeps at most `capacity` idle lists; extra ones are dropped when returned.
    pub fn new(capacity: usize) -> VisitedPool {
        VisitedPool { lists: Mutex::new(Vec::new()), capacity }
    }

    pub fn take(&self, slot_bound: usize) -> VisitedList {
        let list = self.lists.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop();
        let mut list = list.unwrap_or_else(VisitedList::new);
        list.begin(slot_bound);
        list
    }

    pub fn give_back(&self, list: VisitedList) {
        let mut lists = self.lists.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if lists.len() < self.capacity {
            lists.push(list);
        }
    }

    pub fn memory_bytes(&self) -> usize {
        self.lists
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .map(|list| list.tags.capacity() * 2 + (list.candidates.capacity() + list.results.capacity()) * std::mem::size_of::<Neighbor>())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visited_lists_forget_marks_between_searches_even_across_wrap_around() {
        let pool = VisitedPool::new(2);
        let mut list = pool.take(10);
        assert!(list.insert(3));
        assert!(!list.insert(3));
        assert!(list.insert(50), "slots past the initial capacity are tracked too");
        pool.give_back(list);
        for _ in 0..70_000 {
            let mut list = pool.take(10);
            assert!(!list.contains(3));
            assert!(list.insert(3));
            pool.give_back(list);
        }
    }
}
