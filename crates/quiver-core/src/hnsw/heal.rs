//! Cleanup of tombstones. Deleted nodes stay in the graph (searches walk through them, never
//! return them) until they pass a share of the graph; then every live node that links to one
//! is re-linked from its live links plus the live links of its deleted neighbours (re-pruned
//! with the heuristic), a live entry point is chosen, and the deleted nodes leave the graph.
//! Runs while searches go on; the caller keeps inserts out meanwhile.

use super::Graph;
use crate::store::VectorStore;
use crate::top_k::Neighbor;

impl Graph {
    /// Tombstoned nodes still in the graph.
    pub fn deleted_nodes(&self, store: &VectorStore) -> Vec<u32> {
        (0..self.slot_bound()).filter(|slot| self.contains(*slot) && !store.is_live(*slot)).collect()
    }

    /// Removes every tombstoned node, repairing its neighbours first. Returns how many left.
    pub fn remove_deleted(&self, store: &VectorStore) -> usize {
        let deleted = self.deleted_nodes(store);
        if deleted.is_empty() {
            return 0;
        }
        let is_gone = |slot: u32| !store.is_live(slot);
        let mut links = Vec::new();
        let mut second_hop = Vec::new();
        for slot in 0..self.slot_bound() {
            let Some(top) = self.level(slot) else { continue };
            if is_gone(slot) {
                continue;
            }
            let Some(base) = store.comparable_vector(slot) else { continue };
            for level in 0..=top {
                self.read_links(slot, level, &mut links);
                if !links.iter().any(|link| is_gone(*link)) {
                    continue;
                }
                let mut candidates: Vec<u32> = links.iter().copied().filter(|link| !is_gone(*link)).collect();
                for link in links.iter().copied().filter(|link| is_gone(*link)) {
                    self.read_links(link, level, &mut second_hop);
                    candidates.extend(second_hop.iter().copied().filter(|hop| *hop != slot && !is_gone(*hop)));
                }
                candidates.sort_unstable();
                candidates.dedup();
                let mut scored: Vec<Neighbor> = candidates
                    .iter()
                    .map(|candidate| Neighbor { distance: store.distance_in(store.link_space(), &base, *candidate), slot: *candidate })
                    .collect();
                scored.sort_unstable();
                let kept: Vec<u32> =
                    self.select_neighbors(store, &scored, self.params.capacity(level)).iter().map(|neighbor| neighbor.slot).collect();
                let guard = self.lock(slot);
                self.write_links(&guard, slot, level, &kept);
            }
        }
        {
            let _entry = self.entry_lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if self.entry().is_none_or(|(entry, _)| is_gone(entry)) {
                let replacement = (0..self.slot_bound())
                    .filter(|slot| !is_gone(*slot))
                    .filter_map(|slot| self.level(slot).map(|level| (slot, level)))
                    .max_by_key(|(slot, level)| (*level, std::cmp::Reverse(*slot)));
                self.set_entry(replacement);
            }
        }
        for slot in &deleted {
            // Re-check: a slot revived by an upsert meanwhile stays.
            if is_gone(*slot) {
                self.remove_node(*slot);
            }
        }
        deleted.len()
    }
}
