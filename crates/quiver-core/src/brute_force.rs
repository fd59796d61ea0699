//! The exact oracle: scores every candidate slot. `exact: true` searches, small filters, the
//! not-yet-indexed tail and every recall test use it.

use crate::bitset::AllowedSlots;
use crate::distance::Row;
use crate::store::VectorStore;
use crate::top_k::{Neighbor, TopK};

/// How many vectors are requested from memory ahead of the one being scored. A filtered scan
/// visits scattered rows, which the hardware prefetcher cannot predict: without this, every
/// vector waits a full memory round trip. Eight rows in flight cover that latency.
const LOOKAHEAD: usize = 8;

/// Asks the CPU to load every cache line of `vector`. A hint only: it never faults.
#[inline(always)]
fn prefetch(vector: Row<'_>) {
    let (start, length) = vector.bytes();
    crate::prefetch::lines(start, length);
}

/// Scores the given slots (skipping any that are not live) into `top`.
///
/// Each slot's row is resolved (one slot-table read) and prefetched `LOOKAHEAD` slots before
/// it is scored; the ring below holds the rows in flight. Scoring order does not change the
/// result: `TopK` keeps the k smallest by (distance, slot), a total order.
pub fn scan_slots(store: &VectorStore, query: &[f32], slots: impl Iterator<Item = u32>, top: &mut TopK) {
    let space = store.space();
    let mut ring: [(u32, Row<'_>); LOOKAHEAD] = [(0, Row::F32(&[])); LOOKAHEAD];
    let mut pushed = 0usize;
    for slot in slots {
        let Some(vector) = store.live_vector(slot) else { continue };
        prefetch(vector);
        let position = pushed % LOOKAHEAD;
        if pushed >= LOOKAHEAD {
            let (ready_slot, ready) = ring[position];
            top.push(Neighbor { distance: space.distance(query, ready), slot: ready_slot });
        }
        ring[position] = (slot, vector);
        pushed += 1;
    }
    let first_unscored = pushed.saturating_sub(LOOKAHEAD);
    for index in first_unscored..pushed {
        let (slot, vector) = ring[index % LOOKAHEAD];
        top.push(Neighbor { distance: space.distance(query, vector), slot });
    }
}

/// The plain twin of `scan_slots`: no prefetching, no ring. The tests hold the two equal.
pub fn scan_slots_plainly(store: &VectorStore, query: &[f32], slots: impl Iterator<Item = u32>, top: &mut TopK) {
    for slot in slots {
        if let Some(vector) = store.live_vector(slot) {
            top.push(Neighbor { distance: store.space().distance(query, vector), slot });
        }
    }
}

/// The k nearest live (and allowed) slots, best first, by scanning them all.
pub fn search(store: &VectorStore, query: &[f32], k: usize, allowed: Option<AllowedSlots<'_>>) -> Vec<Neighbor> {
    let mut top = TopK::new(k);
    let bound = store.slot_bound();
    match allowed {
        Some(allowed) => scan_slots(store, query, allowed.iter().take_while(|slot| *slot < bound), &mut top),
        None => scan_slots(store, query, 0..bound, &mut top),
    }
    top.into_sorted()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::{Metric, Space};
    use crate::test_support::Random;

    /// A store with gaps (never-written slots), tombstones, rewritten slots and duplicated
    /// vectors, so ties on distance must fall back to the slot order.
    fn awkward_store(metric: Metric, dimension: usize) -> VectorStore {
        let store = VectorStore::new(dimension, Space::new(metric));
        let mut random = Random::new(7);
        let mut vector = vec![0.0f32; dimension];
        for slot in 0..3000u32 {
            if slot % 11 == 3 {
                continue;
            }
            if slot % 5 != 0 {
                vector.iter_mut().for_each(|value| *value = random.gaussian());
            }
            store.put(slot, &vector);
            if slot % 7 == 0 {
                store.delete(slot);
            }
            if slot % 13 == 0 {
                store.put(slot, &vector);
            }
        }
        store
    }

    fn plain_search(store: &VectorStore, query: &[f32], k: usize, allowed: Option<AllowedSlots<'_>>) -> Vec<Neighbor> {
        let mut top = TopK::new(k);
        let bound = store.slot_bound();
        match allowed {
            Some(allowed) => scan_slots_plainly(store, query, (0..bound).filter(|slot| allowed.contains(*slot)), &mut top),
            None => scan_slots_plainly(store, query, 0..bound, &mut top),
        }
        top.into_sorted()
    }

    #[test]
    fn prefetching_scan_finds_exactly_what_the_plain_scan_finds() {
        for (metric, dimension) in [(Metric::Euclid, 128), (Metric::Dot, 17), (Metric::Manhattan, 3), (Metric::Cosine, 8)] {
            let store = awkward_store(metric, dimension);
            let mut random = Random::new(dimension as u64);
            let query: Vec<f32> = (0..dimension).map(|_| random.gaussian()).collect();
            let every_third: Vec<u8> = (0..200).map(|index| 0b0100_1001u8.rotate_left(index % 3)).collect();
            let sparse: Vec<u8> = (0..400).map(|index| if index % 9 == 0 { 0x21 } else { 0 }).collect();
            let filters = [None, Some(AllowedSlots::new(&every_third)), Some(AllowedSlots::new(&sparse)), Some(AllowedSlots::new(&[]))];
            for allowed in filters {
                for k in [1, 5, 7, 8, 9, 100, 5000] {
                    let fast = search(&store, &query, k, allowed);
                    let plain = plain_search(&store, &query, k, allowed);
                    assert_eq!(fast, plain, "{metric:?} k {k}");
                    assert!(fast.iter().all(|neighbor| store.is_live(neighbor.slot)));
                }
            }
        }
    }

    #[test]
    fn equal_distances_are_ranked_by_slot() {
        let store = VectorStore::new(2, Space::new(Metric::Euclid));
        for slot in (0..40u32).rev() {
            store.put(slot, &[1.0, 1.0]);
        }
        let found: Vec<u32> = search(&store, &[0.0, 0.0], 12, None).iter().map(|neighbor| neighbor.slot).collect();
        assert_eq!(found, (0..12).collect::<Vec<u32>>());
    }
}
