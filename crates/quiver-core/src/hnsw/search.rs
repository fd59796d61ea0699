//! Graph search: greedy descent through the upper levels, then a best-first search of
//! level 0 with a candidate list of `ef`. The `accept` predicate decides what may be returned
//! (live, allowed by the filter); every node is still walked through, so a filter never cuts
//! the graph apart (results are collected only from matching nodes).

use super::visited::VisitedList;
use super::Graph;
use crate::distance::Space;
use crate::store::VectorStore;
use crate::top_k::Neighbor;
use std::cmp::Reverse;
use std::sync::atomic::Ordering;

impl Graph {
    pub fn slot_bound(&self) -> u32 {
        self.slot_bound.load(Ordering::Acquire)
    }

    /// One past the highest slot a search may meet (graph nodes and store slots).
    pub(crate) fn take_visited(&self, store: &VectorStore) -> VisitedList {
        self.visited.take(self.slot_bound().max(store.slot_bound()) as usize)
    }

    /// Moves from `start` to the closest node reachable greedily at `level`.
    pub(crate) fn greedy(&self, store: &VectorStore, space: &Space, query: &[f32], mut current: Neighbor, level: usize) -> Neighbor {
        let mut changed = true;
        while changed {
            changed = false;
            let Some(row) = self.links(current.slot, level) else { break };
            let count = (row[0].load(Ordering::Acquire) as usize).min(row.len() - 1);
            for cell in &row[1..=count] {
                let slot = cell.load(Ordering::Relaxed);
                let distance = store.distance_in(space, query, slot);
                if distance < current.distance {
                    current = Neighbor { distance, slot };
                    changed = true;
                }
            }
        }
        current
    }

    /// Best-first search of one level from `entries`; returns up to `ef` live nodes that pass
    /// `accept`, nearest first. Every node is walked through, accepted or not. `TOMBSTONES`:
    /// deleted nodes may be returned too (construction's fallback when no live node is reachable,
    /// insert.rs).
    // Every argument is a separate borrow of the caller's state on the hottest loop of a search;
    // a struct bundling them would only rename them and add a lifetime to thread through.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn search_level<const TOMBSTONES: bool, F: Fn(u32) -> bool>(
        &self,
        store: &VectorStore,
        space: &Space,
        query: &[f32],
        entries: &[Neighbor],
        ef: usize,
        level: usize,
        accept: &F,
        visited: &mut VisitedList,
    ) -> Vec<Neighbor> {
        let mut candidates = std::mem::take(&mut visited.candidates);
        let mut results = std::mem::take(&mut visited.results);
        candidates.clear();
        results.clear();
        for entry in entries {
            if visited.insert(entry.slot) {
                candidates.push(Reverse(*entry));
                if (TOMBSTONES || store.is_live(entry.slot)) && accept(entry.slot) {
                    results.push(*entry);
                    if results.len() > ef {
                        results.pop();
                    }
                }
            }
        }
        let mut worst = if results.len() >= ef { results.peek().map_or(f32::INFINITY, |n| n.distance) } else { f32::INFINITY };
        // A node's unvisited neighbours are gathered and prefetched first, then scored.
        let mut fresh: Vec<(u32, crate::distance::Row<'_>, bool)> = Vec::with_capacity(self.params.m0);
        let mut unvisited: Vec<u32> = Vec::with_capacity(self.params.m0);
        while let Some(Reverse(candidate)) = candidates.pop() {
            if candidate.distance > worst {
                break;
            }
            let Some(row) = self.links(candidate.slot, level) else { continue };
            let count = (row[0].load(Ordering::Acquire) as usize).min(row.len() - 1);
            if level == 0 {
                // The next candidate's link row is read right after this one is expanded: start
                // loading it now, as hnswlib does, so that read does not stall the loop.
                if let Some(Reverse(next)) = candidates.peek() {
                    self.prefetch_level0_links(next.slot);
                }
            }
            // Three passes, as in search_codes.rs: the unvisited neighbours' slot entries start
            // loading, then their rows (which the entries name), then they are scored.
            visited.gather(&row[1..=count], &mut unvisited, |slot| store.prefetch_entry(slot));
            fresh.clear();
            for &slot in &unvisited {
                if let Some((vector, live)) = store.prefetch(slot) {
                    fresh.push((slot, vector, live));
                }
            }
            // Scored four at a time (Space::distance4: the same values, four rows' loads in
            // flight together); each is then weighed in order exactly as one at a time would.
            let mut weigh = |slot: u32, distance: f32, live: bool| {
                if distance < worst {
                    let neighbor = Neighbor { distance, slot };
                    candidates.push(Reverse(neighbor));
                    if (TOMBSTONES || live) && accept(slot) {
                        results.push(neighbor);
                        if results.len() > ef {
                            results.pop();
                        }
                        if results.len() >= ef {
                            worst = results.peek().map_or(f32::INFINITY, |n| n.distance);
                        }
                    }
                }
            };
            let mut groups = fresh.chunks_exact(4);
            for group in &mut groups {
                let distances = space.distance4(query, [group[0].1, group[1].1, group[2].1, group[3].1]);
                for (&(slot, _, live), distance) in group.iter().zip(distances) {
                    weigh(slot, distance, live);
                }
            }
            for &(slot, vector, live) in groups.remainder() {
                weigh(slot, space.distance(query, vector), live);
            }
        }
        let mut found: Vec<Neighbor> = results.drain().collect();
        found.sort_unstable();
        visited.candidates = candidates;
        visited.results = results;
        found
    }

    /// The `k` nearest live nodes passing `accept`, searching level 0 with max(ef, k).
    pub fn search<F: Fn(u32) -> bool>(&self, store: &VectorStore, query: &[f32], k: usize, ef: usize, accept: &F) -> Vec<Neighbor> {
        let Some((entry, top)) = self.entry() else { return Vec::new() };
        let space = store.space();
        let mut current = Neighbor { distance: store.distance_in(space, query, entry), slot: entry };
        for level in (1..=top).rev() {
            current = self.greedy(store, space, query, current, level);
        }
        let mut visited = self.take_visited(store);
        let mut results = self.search_level::<false, _>(store, space, query, &[current], ef.max(k), 0, accept, &mut visited);
        self.visited.give_back(visited);
        results.truncate(k);
        results
    }
}
