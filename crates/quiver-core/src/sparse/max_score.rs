//! The pruned top-k scorer: MaxScore over windows of slots. Terms are ordered by upper bound,
//! largest first; once k hits are held, the longest suffix of terms whose bounds sum below the
//! k-th score is "non-essential": a slot found only in those lists cannot enter. So, window by
//! window (`WINDOW` slots, a cache-resident accumulator), the essential lists are added term at
//! a time, and each slot they touched looks up its non-essential postings (galloping search)
//! only while its partial score plus the bounds still left could enter the top k.
//!
//! Negative weights: a term's bound is |query weight| × max |stored weight|, which bounds its
//! contribution whatever the signs, and a negative contribution only lowers a score, so the
//! pruning stays exact; a negative k-th score simply disables it (no suffix of non-negative
//! bounds sums below it) and every list stays essential, as in the twin.
//! Rounding: every bound test allows `QueryTerms::margin` above the exact sum, so a slot is
//! skipped only when its f32 score is certainly below the k-th, which it could not beat (ties
//! go to the smaller slot, and slots arrive in increasing order).
//! Summing order: essential terms are a prefix of the bound order and non-essential ones the
//! rest, so each score adds its terms in exactly the order the exact twin does.

use super::query::{finish, BestHits, QueryTerms};
use crate::bitset::AllowedSlots;
use crate::index::Hit;

/// Slots per window: the accumulator (16 KiB) and its bitmap stay in L1.
const WINDOW: usize = 4096;
const WORDS: usize = WINDOW / 64;

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

pub fn search(query: &QueryTerms, k: usize, allowed: Option<AllowedSlots>) -> Vec<Hit> {
    let count = query.terms.len();
    let mut best = BestHits::new(k);
    if k == 0 || count == 0 {
        return best.into_hits();
    }
    let mut cursors: Vec<Cursor> =
        query.terms.iter().map(|term| Cursor { slots: term.slots, weights: term.weights, position: 0 }).collect();
    let mut scores = vec![0.0f32; WINDOW];
    let mut touched = [0u64; WORDS];
    // terms[..essential] are essential: all of them until k hits set a threshold.
    let mut essential = count;
    let mut threshold: Option<f64> = None;
    loop {
        if let Some(threshold) = threshold {
            while essential > 0 && query.suffix[essential - 1] + query.margin < threshold {
                essential -= 1;
            }
        }
        // The next window starts where the nearest essential posting is.
        let Some(first) = cursors[..essential].iter().filter_map(Cursor::current).min() else { break };
        let base = first - first % WINDOW as u32;
        let end = u64::from(base) + WINDOW as u64;
        for (term, cursor) in query.terms.iter().zip(cursors.iter_mut()).take(essential) {
            while let Some(slot) = cursor.current() {
                if u64::from(slot) >= end {
                    break;
                }
                let weight = cursor.weights[cursor.position];
                cursor.position += 1;
                if weight.is_nan() {
                    continue; // a removed entry (postings::DEAD)
                }
                let offset = (slot - base) as usize;
                scores[offset] += term.weight * weight;
                touched[offset >> 6] |= 1 << (offset & 63);
            }
        }
        for (word_index, bits) in touched.iter_mut().enumerate() {
            let mut word = std::mem::take(bits);
            while word != 0 {
                let offset = word_index * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let slot = base + offset as u32;
                let mut score = std::mem::take(&mut scores[offset]);
                if allowed.is_some_and(|allowed| !allowed.contains(slot)) {
                    continue;
                }
                if let Some(threshold) = threshold {
                    let mut pruned = false;
                    for (position, (term, cursor)) in query.terms.iter().zip(cursors.iter_mut()).enumerate().skip(essential) {
                        if f64::from(score) + query.suffix[position] + query.margin < threshold {
                            pruned = true;
                            break;
                        }
                        cursor.seek(slot);
                        if cursor.current() == Some(slot) {
                            let weight = cursor.weights[cursor.position];
                            if !weight.is_nan() {
                                score += term.weight * weight;
                            }
                        }
                    }
                    if pruned {
                        continue;
                    }
                }
                best.push(slot, finish(score));
                threshold = best.threshold().map(f64::from);
            }
        }
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
