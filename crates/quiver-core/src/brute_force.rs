//! The exact oracle: scores every candidate slot. `exact: true` searches, small filters, the
//! not-yet-indexed tail and every recall test use it.

use crate::bitset::AllowedSlots;
use crate::store::VectorStore;
use crate::top_k::{Neighbor, TopK};

/// Scores the given slots (skipping any that are not live) into `top`.
pub fn scan_slots(store: &VectorStore, query: &[f32], slots: impl Iterator<Item = u32>, top: &mut TopK) {
    for slot in slots {
        if !store.is_live(slot) {
            continue;
        }
        if let Some(vector) = store.vector(slot) {
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
