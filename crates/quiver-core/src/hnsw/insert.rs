//! Insertion (paper algorithm 1) with the neighbour-selection heuristic (algorithm 4, as in
//! hnswlib's getNeighborsByHeuristic2): a candidate is kept only if it is closer to the base
//! node than to every neighbour already kept, which keeps links pointing in diverse directions.

use super::Graph;
use crate::store::VectorStore;
use crate::top_k::Neighbor;
use std::sync::atomic::Ordering;

impl Graph {
    /// Picks at most `limit` neighbours from `candidates` (sorted nearest first).
    pub(crate) fn select_neighbors(&self, store: &VectorStore, candidates: &[Neighbor], limit: usize) -> Vec<Neighbor> {
        let mut selected: Vec<Neighbor> = Vec::with_capacity(limit);
        for candidate in candidates {
            if selected.len() >= limit {
                break;
            }
            // Row to row: the candidate plays the query (borrowed as is for float32 rows).
            let Some(vector) = store.comparable_vector(candidate.slot) else { continue };
            let diverse = selected.iter().all(|kept| match store.vector(kept.slot) {
                Some(kept_vector) => store.link_space().distance(&vector, kept_vector) >= candidate.distance,
                None => true,
            });
            if diverse {
                selected.push(*candidate);
            }
        }
        selected
    }

    /// Links `slot` (whose vector is in `store`) into the graph. Safe to call from several
    /// threads at once for different slots. Calling it again for a slot already in the graph
    /// re-links it with its current vector (a re-upsert), keeping its level.
    pub fn insert(&self, store: &VectorStore, slot: u32) {
        let Some(vector) = store.comparable_vector(slot) else { return };
        let vector: &[f32] = &vector;
        let drawn = self.random_level();
        let (level, relinking) = self.add_node(slot, drawn);

        // The first node becomes the entry point; the check is under the entry lock so two
        // first inserts cannot both claim it.
        let entry = {
            let _entry = self.entry_lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            match self.entry() {
                None => {
                    self.set_entry(Some((slot, level)));
                    return;
                }
                Some(entry) => entry,
            }
        };
        let (entry_slot, entry_level) = entry;
        if entry_slot == slot {
            // Re-linking the entry point itself: it has no one to search from but itself;
            // its links keep serving until another node takes over.
            return;
        }

        let space = store.link_space();
        let mut current = Neighbor { distance: store.distance_in(space, vector, entry_slot), slot: entry_slot };
        for search_level in (level + 1..=entry_level).rev() {
            current = self.greedy(store, space, vector, current, search_level);
        }

        // Only live nodes other than the newcomer may become its neighbours: tombstones are
        // walked through but not linked to, so the graph gradually routes around them — unless
        // the walk reaches no live node at all (below).
        let accept = |candidate: u32| candidate != slot;
        let top_link_level = level.min(entry_level);
        // The neighbours of every level are chosen top-down (each level's search starts from the
        // level above's results) and only then written, bottom-up: a search that reaches this
        // node through an upper-level link must find its level-0 links already in place, or
        // its level-0 walk starts at a dead end and returns this node alone.
        let mut chosen_by_level: Vec<Vec<Neighbor>> = vec![Vec::new(); top_link_level + 1];
        let mut entries = vec![current];
        for link_level in (0..=top_link_level).rev() {
            let mut found = self.construction_walk::<false, _>(store, vector, &entries, link_level, &accept);
            if found.is_empty() {
                // Every node this walk reached is a tombstone: the points linked first were
                // deleted before the rest were linked (linking runs behind the writes). Linking
                // to nothing would leave this node, and every node linked after it the same way,
                // unreachable from the entry point for good; the nearest tombstones keep it
                // reachable, and cleanup re-routes through their live links (heal.rs).
                found = self.construction_walk::<true, _>(store, vector, &entries, link_level, &accept);
            }
            chosen_by_level[link_level] = self.select_neighbors(store, &found, self.params.m);
            if !found.is_empty() {
                entries = found;
            }
        }

        let mut links: Vec<u32> = Vec::with_capacity(self.params.m0 + 1);
        let mut old_links: Vec<u32> = Vec::new();
        for (link_level, chosen) in chosen_by_level.iter().enumerate() {
            {
                let guard = self.lock(slot);
                links.clear();
                links.extend(chosen.iter().map(|neighbor| neighbor.slot));
                if relinking {
                    // Replaced on purpose; the dropped ones are reattached below.
                    self.read_links(slot, link_level, &mut old_links);
                } else {
                    // A concurrent insert may already have linked itself from this node (it
                    // found the node through an upper level): keep those links, or that
                    // inserter could lose its only way in.
                    self.read_links(slot, link_level, &mut old_links);
                    for existing in old_links.drain(..) {
                        if !links.contains(&existing) {
                            links.push(existing);
                        }
                    }
                    let capacity = self.params.capacity(link_level);
                    if links.len() > capacity {
                        let mut scored: Vec<Neighbor> =
                            links.iter().map(|link| Neighbor { distance: store.distance_in(space, vector, *link), slot: *link }).collect();
                        scored.sort_unstable();
                        links.clear();
                        links.extend(self.select_neighbors(store, &scored, capacity).iter().map(|neighbor| neighbor.slot));
                    }
                }
                self.write_links(&guard, slot, link_level, &links);
            }
            for neighbor in chosen {
                self.connect(store, neighbor.slot, slot, neighbor.distance, link_level);
            }
            if relinking {
                // A moved node drops links that may have been some node's only way in: give
                // each dropped neighbour an in-link from its own nearest neighbour.
                for dropped in old_links.iter().copied().filter(|old| !links.contains(old) && store.is_live(*old)) {
                    self.reattach(store, dropped, slot, link_level);
                }
            }
        }

        if level > entry_level {
            let _entry = self.entry_lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if self.entry().is_none_or(|(_, current_level)| level > current_level) {
                self.set_entry(Some((slot, level)));
            }
        }
    }

    /// One level's `ef_construct` walk from `entries` with a visited list of the pool
    /// (`TOMBSTONES`: deleted nodes may be returned too, search.rs `search_level`).
    fn construction_walk<const TOMBSTONES: bool, F: Fn(u32) -> bool>(
        &self,
        store: &VectorStore,
        vector: &[f32],
        entries: &[Neighbor],
        level: usize,
        accept: &F,
    ) -> Vec<Neighbor> {
        let mut visited = self.take_visited(store);
        let found = self.search_level::<TOMBSTONES, _>(
            store,
            store.link_space(),
            vector,
            entries,
            self.params.ef_construct,
            level,
            accept,
            &mut visited,
        );
        self.visited.give_back(visited);
        found
    }

    /// Links `orphan` from its nearest current neighbour (other than `excluded`) at `level`.
    fn reattach(&self, store: &VectorStore, orphan: u32, excluded: u32, level: usize) {
        let Some(base) = store.comparable_vector(orphan) else { return };
        let mut links = Vec::new();
        self.read_links(orphan, level, &mut links);
        let nearest = links
            .iter()
            .filter(|link| **link != excluded && store.is_live(**link))
            .map(|link| Neighbor { distance: store.distance_in(store.link_space(), &base, *link), slot: *link })
            .min();
        if let Some(nearest) = nearest {
            self.connect(store, nearest.slot, orphan, nearest.distance, level);
        }
    }

    /// Adds the link `from -> to` at `level`, re-pruning `from`'s list with the heuristic
    /// when it is full.
    fn connect(&self, store: &VectorStore, from: u32, to: u32, distance: f32, level: usize) {
        let capacity = self.params.capacity(level);
        let guard = self.lock(from);
        let Some(row) = self.links(from, level) else { return };
        let count = (row[0].load(Ordering::Acquire) as usize).min(capacity);
        if row[1..=count].iter().any(|cell| cell.load(Ordering::Relaxed) == to) {
            return;
        }
        if count < capacity {
            row[count + 1].store(to, Ordering::Relaxed);
            row[0].store(count as u32 + 1, Ordering::Release);
            return;
        }
        let Some(base) = store.comparable_vector(from) else { return };
        let mut candidates: Vec<Neighbor> = Vec::with_capacity(count + 1);
        candidates.push(Neighbor { distance, slot: to });
        for cell in &row[1..=count] {
            let slot = cell.load(Ordering::Relaxed);
            candidates.push(Neighbor { distance: store.distance_in(store.link_space(), &base, slot), slot });
        }
        candidates.sort_unstable();
        let kept = self.select_neighbors(store, &candidates, capacity);
        let kept: Vec<u32> = kept.iter().map(|neighbor| neighbor.slot).collect();
        self.write_links(&guard, from, level, &kept);
    }
}
