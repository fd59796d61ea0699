//! The filtered walk (docs/architecture.md §19): level 0 searched through allowed nodes only,
//! in the manner of ACORN-1 (Patel et al., SIGMOD 2024). A candidate's neighbours that pass
//! `accept` are scored; when fewer than `m0` of them pass, the walk looks one hop further,
//! through the neighbours that fail, and scores the allowed nodes it finds there, until `m0`
//! are gathered. Nodes that fail are never scored (no distance computed) and never become
//! candidates, so the candidate list holds only results-to-be and the search stops as soon as
//! the `ef` best allowed nodes stop improving — where the plain walk (`search_level`) scores
//! every node it passes and, with few allowed, keeps walking until `ef` of them turned up.
//!
//! The visited list marks scored nodes only: a failing node passed through may be passed
//! through again from another candidate (its links are read twice, nothing is scored twice).

use super::visited::VisitedList;
use super::Graph;
use crate::distance::Space;
use crate::store::VectorStore;
use crate::top_k::Neighbor;
use std::cmp::Reverse;
use std::sync::atomic::Ordering;

/// Failing neighbours' link rows loading ahead of the one the second hop reads.
const SECOND_HOP_PREFETCH: usize = 4;

/// What one filtered walk did: what the planner's cost model is calibrated on
/// (index/plan.rs, examples/calibrate_filter.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkCounts {
    /// Distances computed at level 0.
    pub scored: usize,
    /// Link cells read at level 0 (one- and two-hop).
    pub links_read: usize,
}

impl Graph {
    /// The `k` nearest live nodes passing `accept`, by the filtered walk with a candidate list
    /// of max(ef, k). The upper levels are descended greedily as in `search` (a filter says
    /// nothing about them); the level-0 walk starts from the node reached there, scored even
    /// when it fails `accept` (it is never returned).
    pub fn search_filtered<F: Fn(u32) -> bool>(
        &self,
        store: &VectorStore,
        query: &[f32],
        k: usize,
        ef: usize,
        accept: &F,
        counts: &mut WalkCounts,
    ) -> Vec<Neighbor> {
        let Some((entry, top)) = self.entry() else { return Vec::new() };
        let space = store.space();
        let mut current = Neighbor { distance: store.distance_in(space, query, entry), slot: entry };
        for level in (1..=top).rev() {
            current = self.greedy(store, space, query, current, level);
        }
        let mut visited = self.take_visited(store);
        let mut results = self.filtered_level0(store, space, query, current, ef.max(k), accept, &mut visited, counts);
        self.visited.give_back(visited);
        results.truncate(k);
        results
    }

    // The same separate borrows of the caller's state as `search_level` (see there).
    #[allow(clippy::too_many_arguments)]
    fn filtered_level0<F: Fn(u32) -> bool>(
        &self,
        store: &VectorStore,
        space: &Space,
        query: &[f32],
        entry: Neighbor,
        ef: usize,
        accept: &F,
        visited: &mut VisitedList,
        counts: &mut WalkCounts,
    ) -> Vec<Neighbor> {
        let mut candidates = std::mem::take(&mut visited.candidates);
        let mut results = std::mem::take(&mut visited.results);
        candidates.clear();
        results.clear();
        visited.insert(entry.slot);
        candidates.push(Reverse(entry));
        if store.is_live(entry.slot) && accept(entry.slot) {
            results.push(entry);
        }
        let wanted = self.params.m0;
        let mut worst = f32::INFINITY;
        let mut fresh: Vec<(u32, crate::distance::Row<'_>)> = Vec::with_capacity(wanted);
        // Neighbours that failed `accept`: the second hop goes through them.
        let mut failing: Vec<u32> = Vec::with_capacity(wanted);
        while let Some(Reverse(candidate)) = candidates.pop() {
            if candidate.distance > worst {
                break;
            }
            let Some(row) = self.links(candidate.slot, 0) else { continue };
            // As in search.rs: the next candidate's links load while this one is expanded.
            if let Some(Reverse(next)) = candidates.peek() {
                self.prefetch_level0_links(next.slot);
            }
            let count = (row[0].load(Ordering::Acquire) as usize).min(row.len() - 1);
            counts.links_read += count;
            fresh.clear();
            failing.clear();
            // Allowed neighbours met, visited or not: the candidate's neighbourhood in the
            // allowed subgraph. Counting only unvisited ones would send every step through
            // all failing neighbours once the region around the query is explored.
            let mut met = 0usize;
            for cell in &row[1..=count] {
                let slot = cell.load(Ordering::Relaxed);
                if accept(slot) {
                    met += 1;
                    self.gather(store, slot, visited, &mut fresh);
                } else {
                    failing.push(slot);
                }
            }
            // The second hop reads one link row per failing neighbour, each a likely cache
            // miss: keep the next few rows loading while this one is read, so the misses
            // overlap instead of following one another.
            if met < wanted {
                for &ahead in failing.iter().take(SECOND_HOP_PREFETCH) {
                    self.prefetch_level0_links(ahead);
                }
            }
            for (position, &through) in failing.iter().enumerate() {
                if met >= wanted {
                    break;
                }
                if let Some(&ahead) = failing.get(position + SECOND_HOP_PREFETCH) {
                    self.prefetch_level0_links(ahead);
                }
                let Some(row) = self.links(through, 0) else { continue };
                let count = (row[0].load(Ordering::Acquire) as usize).min(row.len() - 1);
                counts.links_read += count;
                for cell in &row[1..=count] {
                    let slot = cell.load(Ordering::Relaxed);
                    if accept(slot) {
                        met += 1;
                        self.gather(store, slot, visited, &mut fresh);
                        if met >= wanted {
                            break;
                        }
                    }
                }
            }
            counts.scored += fresh.len();
            for &(slot, vector) in &fresh {
                let distance = space.distance(query, vector);
                if distance < worst || results.len() < ef {
                    let neighbor = Neighbor { distance, slot };
                    candidates.push(Reverse(neighbor));
                    results.push(neighbor);
                    if results.len() > ef {
                        results.pop();
                    }
                    if results.len() >= ef {
                        worst = results.peek().map_or(f32::INFINITY, |n| n.distance);
                    }
                }
            }
        }
        let mut found: Vec<Neighbor> = results.drain().collect();
        found.sort_unstable();
        visited.candidates = candidates;
        visited.results = results;
        found
    }

    /// Marks an allowed `slot` visited and, when it holds a live vector, queues it (prefetched)
    /// for scoring. A tombstoned node is skipped like a failing one would be, without its links.
    #[inline(always)]
    fn gather<'s>(&self, store: &'s VectorStore, slot: u32, visited: &mut VisitedList, fresh: &mut Vec<(u32, crate::distance::Row<'s>)>) {
        if !visited.insert(slot) {
            return;
        }
        if let Some((vector, true)) = store.prefetch(slot) {
            fresh.push((slot, vector));
        }
    }
}
