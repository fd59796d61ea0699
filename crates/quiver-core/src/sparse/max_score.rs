//! The pruned top-k scorer (MaxScore, document at a time). Terms are ordered by upper bound;
//! once k hits are held, the longest prefix of terms whose bounds sum below the k-th score is
//! "non-essential": a slot found only in those lists cannot enter, so candidates come from
//! the other (essential) lists alone, and a candidate's non-essential postings are looked up
//! by galloping search only while its partial score plus the bounds still left could enter.
//!
//! Negative weights: a term's bound is |query weight| × max |stored weight|, which bounds
//! its contribution whatever the signs, and a negative contribution only lowers a score, so
//! the pruning stays exact; a negative k-th score simply disables it (no prefix of
//! non-negative bounds sums below it) and the walk scores everything, like the twin.
//! Rounding: every bound test allows `QueryTerms::margin` above the exact sum, so a slot is
//! skipped only when its f32 score is certainly below the k-th, which it could not beat
//! (ties go to the smaller slot, and slots arrive in increasing order).

use super::query::{finish, BestHits, QueryTerms};
use crate::bitset::AllowedSlots;
use crate::index::Hit;

struct Cursor<'a> {
    slots: &'a [u32],
    weights: &'a [f32],
    position: usize,
}

impl Cursor<'_> {
    #[inline]
    fn current(&self) -> Option<u32> {
        self.slots.get(self.position).copied()
    }

    /// Moves to the first entry whose slot is >= `target`: doubling steps, then a binary
    /// search inside the last step, so a short skip costs a few probes and a long one log n.
    fn seek(&mut self, target: u32) {
        let slots = self.slots;
        let mut low = self.position;
        if low >= slots.len() || slots[low] >= target {
            return;
        }
        let mut step = 1;
        let mut high = low + 1;
        while high < slots.len() && slots[high] < target {
            low = high;
            step *= 2;
            high = low + step;
        }
        let high = high.min(slots.len());
        self.position = low + 1 + slots[low + 1..high].partition_point(|slot| *slot < target);
    }
}

/// Marks a term with no entry for the current candidate (contributions are finite or ±inf).
const ABSENT: f32 = f32::NAN;

pub fn search(query: &QueryTerms, k: usize, allowed: Option<AllowedSlots>) -> Vec<Hit> {
    let count = query.terms.len();
    let mut best = BestHits::new(k);
    if k == 0 || count == 0 {
        return best.into_hits();
    }
    let mut cursors: Vec<Cursor> =
        query.terms.iter().map(|term| Cursor { slots: term.slots, weights: term.weights, position: 0 }).collect();
    let mut contributions = vec![ABSENT; count];
    // terms[essential..] are essential; all of them until k hits set a threshold.
    let mut essential = 0;
    let mut threshold: Option<f64> = None;
    loop {
        let mut candidate = None;
        for cursor in &cursors[essential..] {
            if let Some(slot) = cursor.current() {
                candidate = Some(candidate.map_or(slot, |best: u32| best.min(slot)));
            }
        }
        let Some(candidate) = candidate else { break };
        let admitted = allowed.is_none_or(|allowed| allowed.contains(candidate));
        let mut partial = 0.0f64;
        let mut present = false;
        for (position, cursor) in cursors.iter_mut().enumerate().skip(essential) {
            if cursor.current() != Some(candidate) {
                continue;
            }
            let weight = cursor.weights[cursor.position];
            cursor.position += 1;
            if admitted && !weight.is_nan() {
                let contribution = query.terms[position].weight * weight;
                contributions[position] = contribution;
                partial += f64::from(contribution);
                present = true;
            }
        }
        if !admitted {
            continue;
        }
        let mut pruned = false;
        if let Some(threshold) = threshold {
            for position in (0..essential).rev() {
                if partial + query.prefix[position + 1] + query.margin < threshold {
                    pruned = true;
                    break;
                }
                let cursor = &mut cursors[position];
                cursor.seek(candidate);
                if cursor.current() == Some(candidate) {
                    let weight = cursor.weights[cursor.position];
                    if !weight.is_nan() {
                        let contribution = query.terms[position].weight * weight;
                        contributions[position] = contribution;
                        partial += f64::from(contribution);
                        present = true;
                    }
                }
            }
        }
        if !pruned && present {
            // The summing order of query.rs, shared with the exact twin.
            let mut score = 0.0f32;
            for contribution in &contributions {
                if !contribution.is_nan() {
                    score += contribution;
                }
            }
            best.push(candidate, finish(score));
            if let Some(kth) = best.threshold() {
                let kth = f64::from(kth);
                threshold = Some(kth);
                while essential < count && query.prefix[essential + 1] + query.margin < kth {
                    essential += 1;
                }
            }
        }
        contributions.fill(ABSENT);
    }
    best.into_hits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_lands_on_the_first_slot_at_or_after_the_target() {
        let slots: Vec<u32> = (0..200).map(|value| value * 3).collect();
        let weights = vec![1.0f32; slots.len()];
        for start in [0usize, 1, 50, 199, 200] {
            for target in [0u32, 1, 3, 4, 150, 151, 597, 598, 1000] {
                let mut cursor = Cursor { slots: &slots, weights: &weights, position: start };
                cursor.seek(target);
                let expected = start.max(slots.partition_point(|slot| *slot < target));
                assert_eq!(cursor.position, expected, "start {start} target {target}");
            }
        }
    }
}
