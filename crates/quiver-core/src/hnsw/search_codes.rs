//! Graph search scored by a caller's distance function instead of the float store: the
//! quantized search walks the graph on codes (index/quantized_search.rs). Same walk as
//! search.rs (greedy descent, then best-first on level 0 with a list of `ef`), kept apart so
//! the float path's hot loop stays as it is.

use super::Graph;
use crate::top_k::Neighbor;

/// How the walk scores slots: `locate` finds a slot's storage (and starts loading it), `score`
/// scores it. Split so that a node's unvisited neighbours are all located (prefetched) before
/// the first is scored, and their loads overlap.
pub trait SlotScorer {
    type Handle: Copy;
    /// The slot's handle and whether it is live; None when it holds no vector.
    fn locate(&self, slot: u32) -> Option<(Self::Handle, bool)>;
    /// Starts loading what `locate` reads first (a hint), so that a node's lookups overlap.
    fn preload(&self, _slot: u32) {}
    fn score(&self, handle: Self::Handle) -> f32;
}
use std::cmp::Reverse;
use std::sync::atomic::Ordering;

impl Graph {
    /// The `k` nearest live nodes passing `accept`, by `distance(slot)` = Some((distance, live))
    /// or None for a slot holding no vector. `slot_bound`: one past the highest slot it may meet.
    pub fn search_scored<S, F>(&self, scorer: &S, slot_bound: u32, k: usize, ef: usize, accept: &F) -> Vec<Neighbor>
    where
        S: SlotScorer,
        F: Fn(u32) -> bool,
    {
        let distance = |slot: u32| scorer.locate(slot).map(|(handle, live)| (scorer.score(handle), live));
        let Some((entry, top)) = self.entry() else { return Vec::new() };
        let Some((entry_distance, entry_live)) = distance(entry) else { return Vec::new() };
        let mut current = Neighbor { distance: entry_distance, slot: entry };
        for level in (1..=top).rev() {
            let mut changed = true;
            while changed {
                changed = false;
                let Some(row) = self.links(current.slot, level) else { break };
                let count = (row[0].load(Ordering::Acquire) as usize).min(row.len() - 1);
                for cell in &row[1..=count] {
                    let slot = cell.load(Ordering::Relaxed);
                    if let Some((candidate, _)) = distance(slot) {
                        if candidate < current.distance {
                            current = Neighbor { distance: candidate, slot };
                            changed = true;
                        }
                    }
                }
            }
        }
        let ef = ef.max(k);
        let mut visited = self.visited.take(self.slot_bound().max(slot_bound) as usize);
        let mut candidates = std::mem::take(&mut visited.candidates);
        let mut results = std::mem::take(&mut visited.results);
        candidates.clear();
        results.clear();
        visited.insert(current.slot);
        candidates.push(Reverse(current));
        let current_live = if current.slot == entry { entry_live } else { distance(current.slot).is_some_and(|(_, live)| live) };
        if current_live && accept(current.slot) {
            results.push(current);
        }
        let mut worst = f32::INFINITY;
        let mut fresh: Vec<(u32, S::Handle, bool)> = Vec::with_capacity(self.params.m0);
        let mut unvisited: Vec<u32> = Vec::with_capacity(self.params.m0);
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
            // Three passes: the unvisited neighbours' lookups start loading, then their codes
            // (which the lookups name), then they are scored.
            visited.gather(&row[1..=count], &mut unvisited, |slot| scorer.preload(slot));
            fresh.clear();
            for &slot in &unvisited {
                if let Some((handle, live)) = scorer.locate(slot) {
                    fresh.push((slot, handle, live));
                }
            }
            for &(slot, handle, live) in &fresh {
                let distance = scorer.score(handle);
                if distance < worst {
                    let neighbor = Neighbor { distance, slot };
                    candidates.push(Reverse(neighbor));
                    if live && accept(slot) {
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
        }
        let mut found: Vec<Neighbor> = results.drain().collect();
        found.sort_unstable();
        found.truncate(k);
        visited.candidates = candidates;
        visited.results = results;
        self.visited.give_back(visited);
        found
    }
}
