//! Quantization inside `VectorIndex`: which quantizer is active, building the codes in the
//! background, and the search that walks the graph on codes then rescores with the originals.
//!
//! States: `active` serves searches once complete; `building` is a quantizer whose codes are
//! being written (from a switch-on, or a retrain as the collection grows). Both are installed
//! under the write gate, so every row written after that point is encoded by `upsert` and every
//! row before it by the builder thread; `active` is replaced only once the build is complete.
//! While nothing is active, searches use the float graph: answers stay correct throughout.
//!
//! Placement (docs/api.md §15): codes live on the heap unless the index keeps its originals in
//! mapped working files (`on_disk`) and the quantizer is asked for `CodePlacement::Mapped`
//! (`always_ram: false`); then its code rows are mapped beside the arena's and grow the same
//! way (rows.rs: a new segment is published, no row ever moves under a search).

use super::{lock_mutex, Hit, SearchParams, Shared, VectorIndex, MAX_K};
use crate::hnsw::SlotScorer;
use crate::quantization::{QuantizationConfig, Quantized, QueryCode, MAX_TRAINING_VALUES};
use crate::top_k::{Neighbor, TopK};
use std::sync::{Arc, RwLock};

/// A quantizer is retrained once the live count has doubled since its training, until it was
/// trained on this many vectors (the value range has settled by then).
const RETRAIN_UNTIL: usize = 50_000;
/// Below this many live vectors a range is not trained yet: searches scan or use floats.
const MIN_TRAINING_VECTORS: usize = 16;

/// Where a quantizer keeps its codes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CodePlacement {
    /// Heap memory: always the case for an index whose originals are on the heap.
    #[default]
    Ram,
    /// Unlinked file-backed working memory in the mapped arena's directory (mapped.rs), for an
    /// `on_disk` index; an index with heap originals keeps its codes on the heap instead.
    Mapped,
}

#[derive(Default)]
pub(crate) struct QuantizationState {
    pub(crate) config: Option<QuantizationConfig>,
    pub(crate) placement: CodePlacement,
    pub(crate) active: Option<Arc<Quantized>>,
    pub(crate) building: Option<Arc<Quantized>>,
}

/// Search-time options (docs/api.md §15): Qdrant's defaults are ignore false, rescore true
/// (originals are in RAM, so rescoring is cheap), oversampling 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantizationSearch {
    pub ignore: bool,
    pub rescore: bool,
    pub oversampling: f64,
}

impl Default for QuantizationSearch {
    fn default() -> QuantizationSearch {
        QuantizationSearch { ignore: false, rescore: true, oversampling: 1.0 }
    }
}

/// What `quantization_status` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuantizationStatus {
    pub enabled: bool,
    pub active: bool,
    pub building: bool,
    /// Heap bytes of the codes.
    pub memory_bytes: usize,
    /// Bytes of mapped code segments (`CodePlacement::Mapped`); not all of it is in RAM.
    pub mapped_bytes: usize,
}

fn read(state: &RwLock<QuantizationState>) -> std::sync::RwLockReadGuard<'_, QuantizationState> {
    state.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write(state: &RwLock<QuantizationState>) -> std::sync::RwLockWriteGuard<'_, QuantizationState> {
    state.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Shared {
    /// Encodes arena row `row` into the active and building quantizers (the caller holds the
    /// write gate and calls this before the store publishes the row).
    pub(crate) fn encode_new_row(&self, row: u32, vector: &[f32]) {
        let state = read(&self.quantization);
        for quantized in state.active.iter().chain(state.building.iter()) {
            quantized.encode_row(row, vector);
        }
    }

    /// Whether the configured quantizer should be (re)trained now: none yet, or the collection
    /// doubled since the last training. Caller holds the write gate.
    pub(crate) fn wants_training(&self) -> bool {
        let state = read(&self.quantization);
        if state.config.is_none() || state.building.is_some() {
            return false;
        }
        let live = self.store.live_count();
        match &state.active {
            None => live >= MIN_TRAINING_VECTORS,
            Some(active) => active.trained_on < RETRAIN_UNTIL && live >= 2 * active.trained_on.max(MIN_TRAINING_VECTORS),
        }
    }

    /// Trains a quantizer on a strided sample of the live vectors, installs it as `building`
    /// and encodes the existing rows on a background thread. Caller holds the write gate.
    pub(crate) fn start_building(self: &Arc<Self>) {
        let (Some(config), placement) = ({
            let state = read(&self.quantization);
            (state.config, state.placement)
        }) else {
            return;
        };
        let dimension = self.params.dimension;
        let live = self.store.live_count();
        let wanted = (MAX_TRAINING_VALUES / dimension).max(1);
        let stride = live.div_ceil(wanted).max(1);
        let mut samples = Vec::with_capacity(wanted.min(live) * dimension);
        let mut seen = 0usize;
        for slot in 0..self.store.slot_bound() {
            if let Some(vector) = self.store.live_vector(slot) {
                if seen.is_multiple_of(stride) {
                    // Codes come from the decoded values (float16, uint8: docs/api.md §21).
                    samples.extend_from_slice(&self.store.comparable(vector));
                }
                seen += 1;
            }
        }
        let mut quantized = Quantized::train(config, self.params.metric, dimension, &samples, live);
        if let (CodePlacement::Mapped, Some(directory)) = (placement, self.store.mapped_directory()) {
            quantized = quantized.mapped_in(directory.to_path_buf());
        }
        let rows = self.store.next_row();
        // Storage for every existing row now, under the write gate: a segment that cannot be
        // mapped (disk full) leaves this quantizer out, and searches keep what they had.
        if quantized.reserve(0, rows as usize).is_err() {
            return;
        }
        let quantized = Arc::new(quantized);
        write(&self.quantization).building = Some(Arc::clone(&quantized));
        let shared = Arc::clone(self);
        let spawned = std::thread::Builder::new().name("quiver-quantize".into()).spawn(move || shared.encode_rows(&quantized, rows));
        if spawned.is_err() {
            // No thread: the quantizer is dropped and searches keep using floats.
            write(&self.quantization).building = None;
        }
    }

    fn encode_rows(&self, quantized: &Arc<Quantized>, rows: u32) {
        crate::background_priority::lower_current_thread(crate::background_priority::BUILDER_NICE_INCREMENT);
        for row in 0..rows {
            if row % 4096 == 0 && (self.pending.is_shut_down() || !self.is_building(quantized)) {
                return;
            }
            quantized.encode_row(row, &self.store.comparable_row(row));
        }
        let mut state = write(&self.quantization);
        if state.building.as_ref().is_some_and(|building| Arc::ptr_eq(building, quantized)) {
            state.active = state.building.take();
        }
    }

    /// Storage for the codes of rows `first .. first + count` in every quantizer a write will
    /// encode into, before the write starts (caller holds the write gate): a mapped segment
    /// that cannot be had refuses the batch whole, as the arena's own `reserve` does.
    pub(crate) fn reserve_codes(&self, first: u32, count: usize) -> crate::KernelResult<()> {
        let state = read(&self.quantization);
        for quantized in state.active.iter().chain(state.building.iter()) {
            quantized.reserve(first as usize, count)?;
        }
        Ok(())
    }

    fn is_building(&self, quantized: &Arc<Quantized>) -> bool {
        read(&self.quantization).building.as_ref().is_some_and(|building| Arc::ptr_eq(building, quantized))
    }
}

/// Scores slots by their codes: a slot's handle is its arena row (codes are kept per row).
struct CodeScorer<'a> {
    store: &'a crate::store::VectorStore,
    quantized: &'a Quantized,
    code: QueryCode,
}

impl SlotScorer for CodeScorer<'_> {
    type Handle = u32;

    #[inline(always)]
    fn locate(&self, slot: u32) -> Option<(u32, bool)> {
        let (row, live) = self.store.row_of(slot)?;
        self.quantized.prefetch(row);
        Some((row, live))
    }

    #[inline(always)]
    fn preload(&self, slot: u32) {
        self.store.prefetch_entry(slot);
    }

    /// The walk's estimate: the asymmetric binary walk's Hamming one, `distance` otherwise.
    #[inline(always)]
    fn score(&self, row: u32) -> f32 {
        self.quantized.walk_distance(&self.code, row)
    }
}

impl VectorIndex {
    /// Switches quantization on (or to another configuration) or off. Codes are built in the
    /// background; until they are complete searches use the float vectors.
    pub fn set_quantization(&self, config: Option<QuantizationConfig>) -> crate::KernelResult<()> {
        self.set_quantization_placed(config, CodePlacement::Ram)
    }

    /// `set_quantization` with the codes in `placement`; `Mapped` takes effect only for an index
    /// whose originals are mapped (`on_disk`), others keep their codes on the heap. A change of
    /// placement alone rebuilds the codes in the new place, in the background, like a switch.
    pub fn set_quantization_placed(&self, config: Option<QuantizationConfig>, placement: CodePlacement) -> crate::KernelResult<()> {
        let placement = match placement {
            CodePlacement::Mapped if self.shared.store.mapped_directory().is_some() => CodePlacement::Mapped,
            _ => CodePlacement::Ram,
        };
        if let Some(config) = &config {
            config.validate().map_err(crate::KernelError::invalid)?;
        }
        let _writer = lock_mutex(&self.shared.write_gate);
        {
            let mut state = write(&self.shared.quantization);
            if state.config == config && (config.is_none() || state.placement == placement) {
                return Ok(());
            }
            *state = QuantizationState { config, placement, active: None, building: None };
        }
        if self.shared.wants_training() {
            self.shared.start_building();
        }
        Ok(())
    }

    pub fn quantization_status(&self) -> QuantizationStatus {
        let state = read(&self.shared.quantization);
        let memory_bytes = state.active.iter().chain(state.building.iter()).map(|quantized| quantized.memory_bytes()).sum();
        let mapped_bytes = state.active.iter().chain(state.building.iter()).map(|quantized| quantized.mapped_bytes()).sum();
        QuantizationStatus {
            enabled: state.config.is_some(),
            active: state.active.is_some(),
            building: state.building.is_some() && state.active.is_none(),
            memory_bytes,
            mapped_bytes,
        }
    }

    /// Blocks until no quantizer is being built (tests and benchmarks).
    pub fn wait_quantized(&self) {
        while read(&self.shared.quantization).building.is_some() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// The active quantizer, unless the search asks to ignore it.
    pub(crate) fn quantizer_for(&self, params: &SearchParams<'_>) -> Option<Arc<Quantized>> {
        if params.quantization.ignore {
            return None;
        }
        read(&self.shared.quantization).active.clone()
    }

    /// Graph walk on codes for `limit × oversampling` candidates (plus the unlinked tail, scored
    /// exactly), then, with `rescore`, the `k` best of them by the original vectors.
    pub(crate) fn search_quantized<F: Fn(u32) -> bool>(
        &self,
        quantized: &Quantized,
        query: &[f32],
        k: usize,
        params: &SearchParams<'_>,
        accept: &F,
    ) -> Vec<Hit> {
        let shared = &*self.shared;
        let store = &shared.store;
        let options = params.quantization;
        let candidates = if options.rescore { ((k as f64 * options.oversampling.max(1.0)).ceil() as usize).clamp(k, MAX_K) } else { k };
        let ef = self.default_ef(params).max(candidates);
        let mut scorer = CodeScorer { store, quantized, code: quantized.prepare_walk_query(query) };
        // The tail first, as in graph_and_tail (index.rs): a slot linked during the walk is
        // then in one list or the other.
        let mut tail = Vec::new();
        shared.pending.snapshot(&mut tail);
        let found = if quantized.walks_by_hamming() {
            // Two estimates (docs/architecture.md §12): the walk scores by the cheap Hamming
            // distance and keeps its list of `ef` (at least the candidates); the asymmetric
            // estimate then picks the candidates from it. At an `ef` of only the candidates the
            // Hamming distance alone chooses them: `ef` is the knob, as for every walk.
            let mut pool = shared.graph.search_scored(&scorer, store.slot_bound(), ef, ef, accept);
            // The ranking picks which of the pool are rescored (and, without rescoring, scores
            // them). A pool of no more than the candidates is rescored whole whatever their
            // order, so then neither the ranking nor the query's weight planes are needed: at
            // oversampling 3 and an `hnsw_ef` up to 30 that is 4 µs of preparation and 30
            // asymmetric estimates saved per 768-d search.
            if options.rescore && pool.len() <= candidates {
                // A slot emptied since the walk met it has no vector to rescore: it leaves the pool.
                pool.retain(|neighbor| store.row_of(neighbor.slot).is_some());
                pool
            } else {
                quantized.complete_query(query, &mut scorer.code);
                // A slot emptied since the walk met it has no code to rank: it leaves the pool.
                pool.retain_mut(|neighbor| match store.row_of(neighbor.slot) {
                    Some((row, _)) => {
                        neighbor.distance = quantized.distance(&scorer.code, row);
                        true
                    }
                    None => false,
                });
                pool.sort_unstable();
                pool.truncate(candidates);
                pool
            }
        } else {
            quantized.complete_query(query, &mut scorer.code);
            shared.graph.search_scored(&scorer, store.slot_bound(), candidates, ef, accept)
        };
        tail.sort_unstable();
        tail.dedup();
        let space = store.space();
        let mut top = TopK::new(k);
        // Rescoring reads `limit × oversampling` float rows scattered over the arena (3 KB each at
        // 768-d): each row is prefetched whole two candidates ahead, so its loads overlap the
        // scoring of the previous ones instead of missing line after line.
        const AHEAD: usize = 2;
        let prefetch_row = |position: usize| {
            if let Some(neighbor) = found.get(position) {
                if let Some(row) = store.vector(neighbor.slot) {
                    let (start, length) = row.bytes();
                    crate::prefetch::lines(start, length);
                }
            }
        };
        if options.rescore {
            (0..AHEAD).for_each(prefetch_row);
        }
        for (position, neighbor) in found.iter().enumerate() {
            let distance = if options.rescore {
                prefetch_row(position + AHEAD);
                store.distance_to(query, neighbor.slot)
            } else {
                neighbor.distance
            };
            top.push(Neighbor { distance, slot: neighbor.slot });
        }
        for slot in tail {
            if store.is_live(slot) && accept(slot) && !found.iter().any(|neighbor| neighbor.slot == slot) {
                top.push(Neighbor { distance: store.distance_to(query, slot), slot });
            }
        }
        top.into_sorted().into_iter().map(|neighbor| Hit { slot: neighbor.slot, score: space.score(neighbor.distance) }).collect()
    }
}

impl Shared {
    pub(crate) fn quantization_memory(&self) -> usize {
        let state = read(&self.quantization);
        state.active.iter().chain(state.building.iter()).map(|quantized| quantized.memory_bytes()).sum()
    }

    /// Bytes of mapped code segments (`CodePlacement::Mapped`), reported as mapped, not heap.
    pub(crate) fn quantization_mapped(&self) -> usize {
        let state = read(&self.quantization);
        state.active.iter().chain(state.building.iter()).map(|quantized| quantized.mapped_bytes()).sum()
    }

    /// The part of the mapped codes in RAM now (`mincore`: monitoring only).
    pub(crate) fn quantization_mapped_resident(&self) -> usize {
        let state = read(&self.quantization);
        state.active.iter().chain(state.building.iter()).map(|quantized| quantized.mapped_resident_bytes()).sum()
    }
}

#[cfg(test)]
#[path = "quantized_tests.rs"]
mod tests;
