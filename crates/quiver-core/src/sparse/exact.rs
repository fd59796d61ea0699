//! The exact scorer, slow twin of max_score.rs: every posting of every query dimension is
//! added into a dense accumulator, then the allowed touched slots compete for the top k.

use super::query::{finish, BestHits, QueryTerms};
use crate::bitset::AllowedSlots;
use crate::index::Hit;

pub fn search(query: &QueryTerms, slot_bound: usize, k: usize, allowed: Option<AllowedSlots>) -> Vec<Hit> {
    let mut scores = vec![0.0f32; slot_bound];
    let mut touched = vec![false; slot_bound];
    let mut order: Vec<u32> = Vec::new();
    for term in &query.terms {
        for (slot, weight) in term.slots.iter().zip(term.weights) {
            if weight.is_nan() {
                continue; // a removed entry (postings::DEAD)
            }
            let position = *slot as usize;
            if !touched[position] {
                touched[position] = true;
                order.push(*slot);
            }
            scores[position] += term.weight * weight;
        }
    }
    let mut best = BestHits::new(k);
    for slot in order {
        if allowed.is_none_or(|allowed| allowed.contains(slot)) {
            best.push(slot, finish(scores[slot as usize]));
        }
    }
    best.into_hits()
}
