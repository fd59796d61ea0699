//! `VectorIndex`: the one type the binding talks to. Owns the vector store and (from the
//! graph milestone on) the HNSW graph and its background indexer; every method takes `&self`
//! so one index is shared across threads behind an `Arc`.

use crate::bitset::AllowedSlots;
use crate::brute_force;
use crate::checkpoint::{self, Decoder, Encoder, FORMAT_VERSION, MAGIC};
use crate::distance::{Metric, Space};
use crate::error::{KernelError, KernelResult};
use crate::store::{SlotState, VectorStore};
use crate::top_k::Neighbor;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

pub const MAX_DIMENSION: usize = 65_536;
pub const MAX_K: usize = 1_000_000;

#[derive(Clone, Debug, PartialEq)]
pub struct IndexParams {
    pub dimension: usize,
    pub metric: Metric,
    /// Links per node on upper levels; level 0 keeps 2·m.
    pub m: usize,
    pub ef_construct: usize,
    /// Filters allowing fewer slots than this are scanned exactly.
    pub full_scan_threshold: usize,
    /// Background graph builders; 0 = one per core.
    pub indexing_threads: usize,
}

impl IndexParams {
    pub fn new(dimension: usize, metric: Metric) -> IndexParams {
        IndexParams { dimension, metric, m: 16, ef_construct: 100, full_scan_threshold: 10_000, indexing_threads: 0 }
    }

    pub fn validate(&self) -> KernelResult<()> {
        if self.dimension == 0 || self.dimension > MAX_DIMENSION {
            return Err(KernelError::invalid(format!("dimension must be 1..={MAX_DIMENSION}, got {}", self.dimension)));
        }
        if !(2..=128).contains(&self.m) {
            return Err(KernelError::invalid(format!("m must be 2..=128, got {}", self.m)));
        }
        if !(1..=4096).contains(&self.ef_construct) {
            return Err(KernelError::invalid(format!("ef_construct must be 1..=4096, got {}", self.ef_construct)));
        }
        if self.indexing_threads > 256 {
            return Err(KernelError::invalid(format!("indexing_threads must be 0..=256, got {}", self.indexing_threads)));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SearchParams<'a> {
    pub ef: Option<usize>,
    pub exact: bool,
    pub allowed: Option<AllowedSlots<'a>>,
}

/// One result: slot and wire-convention score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub slot: u32,
    pub score: f32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    pub count: usize,
    pub indexed_count: usize,
    pub deleted_count: usize,
    pub memory_bytes: usize,
}

pub struct VectorIndex {
    params: IndexParams,
    store: VectorStore,
    /// Serialises writers (upsert, delete, load); readers never take it.
    write_gate: Mutex<()>,
}

impl VectorIndex {
    pub fn new(params: IndexParams) -> KernelResult<VectorIndex> {
        params.validate()?;
        let space = Space::new(params.metric);
        Ok(VectorIndex { store: VectorStore::new(params.dimension, space), params, write_gate: Mutex::new(()) })
    }

    pub fn params(&self) -> &IndexParams {
        &self.params
    }

    pub fn dimension(&self) -> usize {
        self.params.dimension
    }

    pub fn metric(&self) -> Metric {
        self.params.metric
    }

    fn lock_writes(&self) -> std::sync::MutexGuard<'_, ()> {
        self.write_gate.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Inserts or replaces the vectors of `slots`; `vectors` holds slots.len() rows. The whole
    /// batch is checked before anything is written, so a bad batch changes nothing.
    pub fn upsert(&self, slots: &[u32], vectors: &[f32]) -> KernelResult<()> {
        let dimension = self.params.dimension;
        if vectors.len() != slots.len() * dimension {
            return Err(KernelError::dimension(
                dimension,
                if slots.is_empty() { vectors.len() } else { vectors.len() / slots.len().max(1) },
            ));
        }
        if let Some(position) = slots.iter().position(|slot| *slot == u32::MAX) {
            return Err(KernelError::invalid(format!("slot {} at position {position} is out of range", u32::MAX)));
        }
        if let Some(position) = vectors.iter().position(|value| !value.is_finite()) {
            return Err(KernelError::invalid(format!("vector {} holds a non-finite value", position / dimension)));
        }
        let _writer = self.lock_writes();
        let mut prepared = vec![0f32; dimension];
        for (slot, vector) in slots.iter().zip(vectors.chunks_exact(dimension)) {
            prepared.copy_from_slice(vector);
            self.store.prepare(&mut prepared);
            self.store.put(*slot, &prepared);
        }
        Ok(())
    }

    /// Tombstones the given slots; unknown or already deleted slots are ignored.
    pub fn delete(&self, slots: &[u32]) {
        let _writer = self.lock_writes();
        for slot in slots {
            self.store.delete(*slot);
        }
    }

    pub fn has(&self, slot: u32) -> bool {
        self.store.is_live(slot)
    }

    /// Stored vectors of `slots`, row by row; NaN rows for slots without a live vector.
    pub fn vectors(&self, slots: &[u32]) -> Vec<f32> {
        let dimension = self.params.dimension;
        let mut output = vec![f32::NAN; slots.len() * dimension];
        for (row, slot) in output.chunks_exact_mut(dimension).zip(slots) {
            if self.store.is_live(*slot) {
                if let Some(vector) = self.store.vector(*slot) {
                    row.copy_from_slice(vector);
                }
            }
        }
        output
    }

    pub fn search(&self, query: &[f32], k: usize, params: &SearchParams<'_>) -> KernelResult<Vec<Hit>> {
        if query.len() != self.params.dimension {
            return Err(KernelError::dimension(self.params.dimension, query.len()));
        }
        if k > MAX_K {
            return Err(KernelError::invalid(format!("k must be at most {MAX_K}, got {k}")));
        }
        if query.iter().any(|value| !value.is_finite()) {
            return Err(KernelError::invalid("query holds a non-finite value"));
        }
        let mut prepared = query.to_vec();
        self.store.prepare(&mut prepared);
        let neighbors = brute_force::search(&self.store, &prepared, k, params.allowed);
        Ok(self.to_hits(neighbors))
    }

    /// The exact answer, whatever the parameters say: the oracle for recall tests.
    pub fn search_exact(&self, query: &[f32], k: usize, allowed: Option<AllowedSlots<'_>>) -> KernelResult<Vec<Hit>> {
        self.search(query, k, &SearchParams { ef: None, exact: true, allowed })
    }

    fn to_hits(&self, neighbors: Vec<Neighbor>) -> Vec<Hit> {
        let space = self.store.space();
        neighbors.into_iter().map(|neighbor| Hit { slot: neighbor.slot, score: space.score(neighbor.distance) }).collect()
    }

    pub fn stats(&self) -> IndexStats {
        let count = self.store.live_count();
        IndexStats {
            count,
            indexed_count: count,
            deleted_count: self.store.deleted_count(),
            memory_bytes: self.store.memory_bytes() + std::mem::size_of::<VectorIndex>(),
        }
    }

    /// Blocks until every upserted vector is linked into the graph.
    pub fn wait_indexed(&self) {}

    /// Stops background work; memory is freed when the last handle drops.
    pub fn close(&self) {}

    /// Writes the index to `path` atomically, tagged with the last operation id it covers.
    /// Writers wait while it runs so the file is one consistent state; searches do not.
    pub fn save(&self, path: &Path, last_operation_id: u64) -> KernelResult<()> {
        let _writer = self.lock_writes();
        let params = &self.params;
        checkpoint::write_atomically(path, |encoder| {
            encoder.bytes(MAGIC)?;
            encoder.u32(FORMAT_VERSION)?;
            encoder.u32(params.dimension as u32)?;
            encoder.u8(params.metric.code())?;
            encoder.u32(params.m as u32)?;
            encoder.u32(params.ef_construct as u32)?;
            encoder.u32(params.full_scan_threshold.min(u32::MAX as usize) as u32)?;
            encoder.u32(params.indexing_threads as u32)?;
            encoder.u64(last_operation_id)?;
            let bound = self.store.slot_bound();
            encoder.u32(bound)?;
            for slot in 0..bound {
                self.write_slot(encoder, slot)?;
            }
            // Graph section: none yet (flat index).
            encoder.u8(0)?;
            Ok(())
        })
    }

    fn write_slot<W: Write>(&self, encoder: &mut Encoder<W>, slot: u32) -> std::io::Result<()> {
        let state = self.store.state(slot);
        match (state, self.store.vector(slot)) {
            (SlotState::Live, Some(vector)) => {
                encoder.u8(1)?;
                encoder.f32s(vector)
            }
            (SlotState::Deleted, Some(vector)) => {
                encoder.u8(2)?;
                encoder.f32s(vector)
            }
            _ => encoder.u8(0),
        }
    }

    /// Loads a checkpoint; returns the index and the last operation id it covers.
    pub fn load(path: &Path) -> KernelResult<(VectorIndex, u64)> {
        let body = checkpoint::read_verified(path)?;
        let mut decoder = Decoder::new(&body);
        decoder.take(MAGIC.len() + 4)?;
        let dimension = decoder.u32()? as usize;
        let metric_code = decoder.u8()?;
        let metric = Metric::from_code(metric_code).ok_or_else(|| KernelError::corrupt(format!("unknown metric code {metric_code}")))?;
        let params = IndexParams {
            dimension,
            metric,
            m: decoder.u32()? as usize,
            ef_construct: decoder.u32()? as usize,
            full_scan_threshold: decoder.u32()? as usize,
            indexing_threads: decoder.u32()? as usize,
        };
        params.validate().map_err(|error| KernelError::corrupt(format!("stored parameters are invalid: {}", error.message)))?;
        let last_operation_id = decoder.u64()?;
        let bound = decoder.u32()?;
        let index = VectorIndex::new(params)?;
        let mut vector = vec![0f32; dimension];
        for slot in 0..bound {
            match decoder.u8()? {
                0 => {}
                state @ (1 | 2) => {
                    decoder.f32s(&mut vector)?;
                    index.store.put(slot, &vector);
                    if state == 2 {
                        index.store.delete(slot);
                    }
                }
                other => return Err(KernelError::corrupt(format!("slot {slot} has unknown state {other}"))),
            }
        }
        match decoder.u8()? {
            0 => {}
            other => return Err(KernelError::corrupt(format!("unknown graph section kind {other}"))),
        }
        if decoder.remaining() != 0 {
            return Err(KernelError::corrupt(format!("{} unexpected bytes after the graph", decoder.remaining())));
        }
        Ok((index, last_operation_id))
    }
}
