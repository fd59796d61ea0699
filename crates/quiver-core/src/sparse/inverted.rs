//! The unlocked state of one sparse index: each slot's indices and one posting list per
//! dimension. `SparseIndex` (mod.rs) puts it behind a lock.
//!
//! A slot keeps only its indices; its values live in the postings (read back by binary
//! search in `vector`), so a non-zero costs 4 bytes in the slot table plus 8 in its posting
//! list instead of 16.

use super::postings::PostingList;
use super::vector::SparseVector;
use std::collections::HashMap;

#[derive(Default)]
pub struct InvertedIndex {
    /// Indexed by slot; None for a slot without a vector (never set or deleted).
    vectors: Vec<Option<Box<[u32]>>>,
    postings: HashMap<u32, PostingList>,
    live: usize,
    /// Sum of the stored indices' lengths (the live non-zeros).
    non_zeros: usize,
    /// Heap bytes of every posting list, kept up to date on each change.
    posting_bytes: usize,
}

impl InvertedIndex {
    /// Live vectors.
    pub fn live(&self) -> usize {
        self.live
    }

    pub fn non_zeros(&self) -> usize {
        self.non_zeros
    }

    /// One past the highest slot that ever held a vector.
    pub fn slot_bound(&self) -> usize {
        self.vectors.len()
    }

    pub fn dimensions(&self) -> usize {
        self.postings.len()
    }

    pub fn has(&self, slot: u32) -> bool {
        matches!(self.vectors.get(slot as usize), Some(Some(_)))
    }

    pub fn postings(&self, dimension: u32) -> Option<&PostingList> {
        self.postings.get(&dimension)
    }

    /// Live vectors holding `dimension`.
    pub fn document_frequency(&self, dimension: u32) -> usize {
        self.postings.get(&dimension).map_or(0, PostingList::live)
    }

    /// Replaces `slot`'s vector (an empty vector is stored: the point has one, it just
    /// matches nothing).
    pub fn upsert(&mut self, slot: u32, vector: &SparseVector) {
        self.delete(slot);
        let position = slot as usize;
        if position >= self.vectors.len() {
            self.vectors.resize(position + 1, None);
        }
        for (dimension, weight) in vector.indices.iter().zip(&vector.values) {
            let list = self.postings.entry(*dimension).or_default();
            let before = list.memory_bytes();
            list.set(slot, *weight);
            self.posting_bytes = self.posting_bytes - before + list.memory_bytes();
        }
        self.vectors[position] = Some(vector.indices.clone().into_boxed_slice());
        self.live += 1;
        self.non_zeros += vector.len();
    }

    /// Removes `slot`'s vector; returns whether it had one.
    pub fn delete(&mut self, slot: u32) -> bool {
        let Some(indices) = self.vectors.get_mut(slot as usize).and_then(Option::take) else { return false };
        for dimension in indices.iter() {
            let Some(list) = self.postings.get_mut(dimension) else { continue };
            let before = list.memory_bytes();
            list.remove(slot);
            self.posting_bytes = self.posting_bytes - before + list.memory_bytes();
            if list.slots().is_empty() {
                self.postings.remove(dimension);
            }
        }
        self.live -= 1;
        self.non_zeros -= indices.len();
        true
    }

    /// Slots holding a vector, ascending.
    pub fn live_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.vectors.iter().enumerate().filter(|(_, vector)| vector.is_some()).map(|(slot, _)| slot as u32)
    }

    /// Every posting list by ascending dimension.
    pub fn sorted_postings(&self) -> Vec<(u32, &PostingList)> {
        let mut lists: Vec<(u32, &PostingList)> = self.postings.iter().map(|(dimension, list)| (*dimension, list)).collect();
        lists.sort_unstable_by_key(|entry| entry.0);
        lists
    }

    /// An index from a checkpoint's parts: live slots ascending and lists by ascending
    /// dimension, each naming only live slots (the caller has checked both).
    pub fn from_parts(live_slots: &[u32], lists: Vec<(u32, PostingList)>) -> InvertedIndex {
        let bound = live_slots.last().map_or(0, |slot| *slot as usize + 1);
        let mut indices: Vec<Option<Vec<u32>>> = vec![None; bound];
        for slot in live_slots {
            indices[*slot as usize] = Some(Vec::new());
        }
        let mut index = InvertedIndex::default();
        for (dimension, list) in lists {
            for slot in list.slots() {
                // Dimensions arrive ascending, so each slot's indices come out sorted.
                indices[*slot as usize].as_mut().expect("postings name live slots only").push(dimension);
            }
            index.posting_bytes += list.memory_bytes();
            index.postings.insert(dimension, list);
        }
        index.vectors = indices
            .into_iter()
            .map(|vector| {
                vector.map(|vector| {
                    index.live += 1;
                    index.non_zeros += vector.len();
                    vector.into_boxed_slice()
                })
            })
            .collect();
        index
    }

    /// `slot`'s vector, indices ascending; None if it has none.
    pub fn vector(&self, slot: u32) -> Option<SparseVector> {
        let indices = self.vectors.get(slot as usize)?.as_ref()?;
        let values = indices
            .iter()
            .map(|dimension| self.postings.get(dimension).and_then(|list| list.get(slot)).expect("a stored index has a live posting"))
            .collect();
        Some(SparseVector { indices: indices.to_vec(), values })
    }

    /// Bytes held: posting lists, the slot table, stored indices and the map's own table
    /// (estimated from its capacity: key, value and one control byte per bucket).
    pub fn memory_bytes(&self) -> usize {
        let table = self.postings.capacity() * (std::mem::size_of::<(u32, PostingList)>() + 1);
        let slots = self.vectors.capacity() * std::mem::size_of::<Option<Box<[u32]>>>();
        self.posting_bytes + table + slots + self.non_zeros * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(indices: &[u32], values: &[f32]) -> SparseVector {
        SparseVector::new(indices, values).unwrap()
    }

    #[test]
    fn replacing_a_vector_drops_its_old_dimensions_from_the_postings() {
        let mut index = InvertedIndex::default();
        index.upsert(3, &vector(&[1, 2], &[0.5, 0.25]));
        index.upsert(3, &vector(&[2, 9], &[1.0, -1.0]));
        assert_eq!((index.live(), index.non_zeros()), (1, 2));
        assert_eq!(index.document_frequency(1), 0);
        assert_eq!(index.document_frequency(2), 1);
        assert_eq!(index.vector(3), Some(vector(&[2, 9], &[1.0, -1.0])));
        assert!(index.delete(3) && !index.delete(3) && !index.delete(400));
        assert_eq!((index.live(), index.non_zeros(), index.dimensions()), (0, 0, 0));
        assert_eq!(index.vector(3), None);
    }

    #[test]
    fn an_empty_vector_is_stored_and_counted_live() {
        let mut index = InvertedIndex::default();
        index.upsert(0, &SparseVector::default());
        assert!(index.has(0) && !index.has(1));
        assert_eq!(index.live(), 1);
        assert_eq!(index.vector(0), Some(SparseVector::default()));
    }
}
