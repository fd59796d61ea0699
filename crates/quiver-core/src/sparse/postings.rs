//! One dimension's posting list: (slot, weight) pairs sorted by slot, so searches can walk
//! several lists in step and skip ahead by binary search.
//!
//! Removal marks an entry dead (weight NaN, a value validation never lets in) instead of
//! shifting the tail: in a Zipf vocabulary the common dimensions hold most points, and a
//! shift per delete would cost megabytes of memmove. Dead entries are dropped in one pass once
//! they outnumber live ones, so they never take more than half a list (amortised O(1) each).

/// The weight of a removed entry. Scorers skip it; it never reaches a score.
pub const DEAD: f32 = f32::NAN;

#[derive(Clone, Debug, Default)]
pub struct PostingList {
    slots: Vec<u32>,
    weights: Vec<f32>,
    /// Largest |weight| ever stored since the last compaction: an upper bound for every live
    /// entry (removal does not lower it; compaction recomputes it).
    max_magnitude: f32,
    dead: usize,
}

impl PostingList {
    /// A list from entries already sorted by slot and all live (a checkpoint's).
    pub fn from_sorted(slots: Vec<u32>, weights: Vec<f32>) -> PostingList {
        debug_assert!(slots.len() == weights.len() && slots.windows(2).all(|pair| pair[0] < pair[1]));
        let max_magnitude = weights.iter().fold(0.0f32, |bound, weight| bound.max(weight.abs()));
        PostingList { slots, weights, max_magnitude, dead: 0 }
    }

    pub fn slots(&self) -> &[u32] {
        &self.slots
    }

    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    pub fn max_magnitude(&self) -> f32 {
        self.max_magnitude
    }

    /// Live entries: the dimension's document frequency.
    pub fn live(&self) -> usize {
        self.slots.len() - self.dead
    }

    /// Heap bytes held (capacity, not length: that is what the process pays).
    pub fn memory_bytes(&self) -> usize {
        self.slots.capacity() * 4 + self.weights.capacity() * 4
    }

    /// Sets `slot`'s weight. Appending past the last slot (the common case: new points get
    /// new slots) is O(1); anything else is a binary search, reviving a dead entry in place
    /// or inserting.
    pub fn set(&mut self, slot: u32, weight: f32) {
        debug_assert!(weight.is_finite());
        self.max_magnitude = self.max_magnitude.max(weight.abs());
        if self.slots.last().is_none_or(|last| *last < slot) {
            self.make_room();
            self.slots.push(slot);
            self.weights.push(weight);
            return;
        }
        match self.slots.binary_search(&slot) {
            Ok(position) => {
                if self.weights[position].is_nan() {
                    self.dead -= 1;
                }
                self.weights[position] = weight;
            }
            Err(position) => {
                self.make_room();
                self.slots.insert(position, slot);
                self.weights.insert(position, weight);
            }
        }
    }

    /// Grows a full list by a quarter rather than Vec's doubling: the lists are most of the
    /// index's memory, and doubling leaves a third of it unused on average (a quarter leaves
    /// about a tenth) for a constant factor more copying, still amortised O(1) per entry.
    fn make_room(&mut self) {
        if self.slots.len() == self.slots.capacity() {
            let extra = (self.slots.len() / 4).max(4);
            self.slots.reserve_exact(extra);
            self.weights.reserve_exact(extra);
        }
    }

    /// The live weight of `slot`, if it has one.
    pub fn get(&self, slot: u32) -> Option<f32> {
        let position = self.slots.binary_search(&slot).ok()?;
        let weight = self.weights[position];
        (!weight.is_nan()).then_some(weight)
    }

    /// Marks `slot`'s entry dead; returns whether it was live.
    pub fn remove(&mut self, slot: u32) -> bool {
        let Ok(position) = self.slots.binary_search(&slot) else { return false };
        if self.weights[position].is_nan() {
            return false;
        }
        self.weights[position] = DEAD;
        self.dead += 1;
        if self.dead > self.live() {
            self.compact();
        }
        true
    }

    /// Drops dead entries and tightens the bound and the allocation.
    pub fn compact(&mut self) {
        let mut kept = 0;
        for position in 0..self.slots.len() {
            if !self.weights[position].is_nan() {
                self.slots[kept] = self.slots[position];
                self.weights[kept] = self.weights[position];
                kept += 1;
            }
        }
        self.slots.truncate(kept);
        self.weights.truncate(kept);
        self.slots.shrink_to_fit();
        self.weights.shrink_to_fit();
        self.dead = 0;
        self.max_magnitude = self.weights.iter().fold(0.0f32, |bound, weight| bound.max(weight.abs()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posting_list_keeps_slots_sorted_and_revives_dead_entries_in_place() {
        let mut list = PostingList::default();
        for (slot, weight) in [(5, 0.5f32), (9, -2.0), (1, 1.0), (7, 0.0)] {
            list.set(slot, weight);
        }
        assert_eq!(list.slots(), &[1, 5, 7, 9]);
        assert_eq!(list.max_magnitude(), 2.0);
        assert!(list.remove(5));
        assert!(!list.remove(5));
        assert_eq!((list.get(5), list.live()), (None, 3));
        list.set(5, 3.0);
        assert_eq!((list.get(5), list.live(), list.slots().len()), (Some(3.0), 4, 4));
        assert_eq!(list.get(7), Some(0.0));
    }

    #[test]
    fn posting_list_compacts_once_dead_entries_outnumber_live_ones() {
        let mut list = PostingList::default();
        for slot in 0..10 {
            list.set(slot, slot as f32);
        }
        for slot in 4..10 {
            list.remove(slot);
        }
        assert_eq!(list.slots(), &[0, 1, 2, 3]);
        assert_eq!(list.max_magnitude(), 3.0);
        for slot in 0..4 {
            list.remove(slot);
        }
        assert!(list.live() == 0 && list.slots().is_empty());
    }
}
