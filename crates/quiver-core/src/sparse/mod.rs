//! The sparse vector index: one per (collection, sparse vector name), over the same slots as
//! the dense index. Score = dot product over the dimensions a stored vector shares with the
//! query; a point sharing no dimension never appears, one sharing a dimension does even if
//! its score is 0 (Qdrant's rule). Results: score descending, then slot ascending.
//!
//! Inverted posting lists per dimension (postings.rs) answer searches with MaxScore pruning
//! (max_score.rs), checked against an exact accumulate-everything twin (exact.rs). The
//! kernel knows no modifier: for IDF the caller reads `document_frequency` and `stats().count`
//! and multiplies the query's values before searching.

mod exact;
mod inverted;
mod max_score;
mod persist;
mod postings;
mod query;
#[cfg(test)]
mod tests;
mod vector;

pub use persist::{SPARSE_FORMAT_VERSION, SPARSE_MAGIC};
pub use vector::{SparseVector, MAX_NON_ZEROS};

use crate::bitset::AllowedSlots;
use crate::error::{KernelError, KernelResult};
use crate::index::{Hit, MAX_K};
use inverted::InvertedIndex;
use query::QueryTerms;
use std::path::Path;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

#[derive(Clone, Copy, Debug, Default)]
pub struct SparseSearchParams<'a> {
    /// True: the exact twin (every posting scored), never the pruned walk.
    pub exact: bool,
    /// Only these slots may be returned; None: every live slot.
    pub allowed: Option<AllowedSlots<'a>>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SparseStats {
    /// Live vectors.
    pub count: usize,
    /// Live non-zeros (stored entries).
    pub non_zeros: usize,
    /// Dimensions with at least one posting.
    pub dimensions: usize,
    pub memory_bytes: usize,
}

/// Many searches run at once under the read lock; writes take it exclusively, each batch
/// briefly (validation happens before the lock is taken).
#[derive(Default)]
pub struct SparseIndex {
    state: RwLock<InvertedIndex>,
}

fn check_slot(slot: u32, position: usize) -> KernelResult<()> {
    if slot == u32::MAX {
        return Err(KernelError::invalid(format!("slot {slot} at position {position} is out of range")));
    }
    Ok(())
}

impl SparseIndex {
    pub fn new() -> SparseIndex {
        SparseIndex::default()
    }

    fn read(&self) -> RwLockReadGuard<'_, InvertedIndex> {
        self.state.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, InvertedIndex> {
        self.state.write().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Inserts or replaces one slot's vector.
    pub fn upsert(&self, slot: u32, indices: &[u32], values: &[f32]) -> KernelResult<()> {
        check_slot(slot, 0)?;
        let vector = SparseVector::new(indices, values)?;
        self.write().upsert(slot, &vector);
        Ok(())
    }

    /// Inserts or replaces many: vector i is `indices[offsets[i]..offsets[i + 1]]` with the
    /// same range of `values`. All are validated first, so a refused batch changes nothing.
    /// A slot named twice keeps its last vector.
    pub fn upsert_batch(&self, slots: &[u32], offsets: &[u32], indices: &[u32], values: &[f32]) -> KernelResult<()> {
        if offsets.len() != slots.len() + 1 {
            return Err(KernelError::invalid(format!("{} slots need {} offsets, got {}", slots.len(), slots.len() + 1, offsets.len())));
        }
        if indices.len() != values.len() {
            return Err(KernelError::invalid(format!("got {} indices but {} values", indices.len(), values.len())));
        }
        if offsets[0] != 0 || offsets[slots.len()] as usize != indices.len() {
            return Err(KernelError::invalid(format!(
                "offsets must run from 0 to {} (the number of indices), got {}..{}",
                indices.len(),
                offsets[0],
                offsets[slots.len()]
            )));
        }
        let mut vectors = Vec::with_capacity(slots.len());
        for (position, slot) in slots.iter().enumerate() {
            check_slot(*slot, position)?;
            let (start, end) = (offsets[position] as usize, offsets[position + 1] as usize);
            if start > end {
                return Err(KernelError::invalid(format!("offsets must not decrease, got {start} then {end} at position {position}")));
            }
            let vector = SparseVector::new(&indices[start..end], &values[start..end])
                .map_err(|error| KernelError::new(error.code, format!("vector at position {position}: {}", error.message)))?;
            vectors.push(vector);
        }
        let mut state = self.write();
        for (slot, vector) in slots.iter().zip(&vectors) {
            state.upsert(*slot, vector);
        }
        Ok(())
    }

    /// Removes the vectors of `slots`; slots without one are ignored. Returns how many went.
    pub fn delete(&self, slots: &[u32]) -> usize {
        let mut state = self.write();
        slots.iter().filter(|slot| state.delete(**slot)).count()
    }

    pub fn has(&self, slot: u32) -> bool {
        self.read().has(slot)
    }

    /// The stored vector of `slot` (indices ascending), None if it has none.
    pub fn vector(&self, slot: u32) -> Option<SparseVector> {
        self.read().vector(slot)
    }

    /// Live vectors holding each dimension, for the caller's IDF.
    pub fn document_frequencies(&self, dimensions: &[u32]) -> Vec<usize> {
        let state = self.read();
        dimensions.iter().map(|dimension| state.document_frequency(*dimension)).collect()
    }

    pub fn stats(&self) -> SparseStats {
        let state = self.read();
        SparseStats {
            count: state.live(),
            non_zeros: state.non_zeros(),
            dimensions: state.dimensions(),
            memory_bytes: state.memory_bytes(),
        }
    }

    /// The k best live, allowed slots for the query (validated like a stored vector).
    pub fn search(&self, indices: &[u32], values: &[f32], k: usize, params: &SparseSearchParams) -> KernelResult<Vec<Hit>> {
        if k > MAX_K {
            return Err(KernelError::invalid(format!("k must be at most {MAX_K}, got {k}")));
        }
        let query = SparseVector::new(indices, values)?;
        let state = self.read();
        let terms = QueryTerms::new(&state, &query);
        Ok(if params.exact {
            exact::search(&terms, state.slot_bound(), k, params.allowed)
        } else {
            max_score::search(&terms, k, params.allowed)
        })
    }

    /// Writes a checkpoint atomically (see persist.rs), tagged with the last operation id it
    /// covers. Writers wait meanwhile; searches do not.
    pub fn save(&self, path: &Path, last_operation_id: u64) -> KernelResult<()> {
        self.save_bound(path, last_operation_id, "")
    }

    /// `save` with a binding in the header (checkpoint.rs): who the checkpoint belongs to.
    pub fn save_bound(&self, path: &Path, last_operation_id: u64, binding: &str) -> KernelResult<()> {
        persist::save(&self.read(), path, last_operation_id, binding)
    }

    /// Loads a checkpoint; returns the index and the last operation id it covers.
    pub fn load(path: &Path) -> KernelResult<(SparseIndex, u64)> {
        Self::load_bound(path).map(|(index, last_operation_id, _)| (index, last_operation_id))
    }

    /// `load` that also returns the checkpoint's binding (empty for a version 1 file).
    pub fn load_bound(path: &Path) -> KernelResult<(SparseIndex, u64, String)> {
        let (state, last_operation_id, binding) = persist::load(path)?;
        Ok((SparseIndex { state: RwLock::new(state) }, last_operation_id, binding))
    }
}
