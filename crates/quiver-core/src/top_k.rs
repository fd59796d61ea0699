//! Ordered (distance, slot) pairs and a bounded "k best so far" collector.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A scored slot. Ordered by distance (total order, so NaN cannot break a heap), then slot,
/// which makes every result list deterministic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor {
    pub distance: f32,
    pub slot: u32,
}

impl Eq for Neighbor {}

impl Ord for Neighbor {
    fn cmp(&self, other: &Self) -> Ordering {
        self.distance.total_cmp(&other.distance).then(self.slot.cmp(&other.slot))
    }
}

impl PartialOrd for Neighbor {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Keeps the `capacity` smallest neighbours pushed into it.
pub struct TopK {
    capacity: usize,
    heap: BinaryHeap<Neighbor>,
}

impl TopK {
    pub fn new(capacity: usize) -> TopK {
        TopK { capacity, heap: BinaryHeap::with_capacity(capacity.min(1 << 16) + 1) }
    }

    /// The distance a newcomer must beat once full.
    #[inline]
    pub fn threshold(&self) -> f32 {
        if self.heap.len() < self.capacity {
            f32::INFINITY
        } else {
            self.heap.peek().map_or(f32::INFINITY, |worst| worst.distance)
        }
    }

    #[inline]
    pub fn push(&mut self, candidate: Neighbor) {
        if self.capacity == 0 {
            return;
        }
        if self.heap.len() < self.capacity {
            self.heap.push(candidate);
        } else if let Some(worst) = self.heap.peek() {
            if candidate < *worst {
                self.heap.pop();
                self.heap.push(candidate);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Best first.
    pub fn into_sorted(self) -> Vec<Neighbor> {
        self.heap.into_sorted_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_keeps_the_smallest_best_first() {
        let mut top = TopK::new(3);
        for (slot, distance) in [5.0f32, 1.0, 4.0, 2.0, 3.0, f32::NAN].into_iter().enumerate() {
            top.push(Neighbor { distance, slot: slot as u32 });
        }
        let slots: Vec<u32> = top.into_sorted().iter().map(|n| n.slot).collect();
        assert_eq!(slots, vec![1, 3, 4]);
    }

    #[test]
    fn top_k_of_zero_holds_nothing() {
        let mut top = TopK::new(0);
        top.push(Neighbor { distance: 1.0, slot: 1 });
        assert!(top.is_empty());
    }
}
