//! `VectorIndex`: the one type the binding talks to. Owns the vector store, the HNSW graph and
//! the background threads that link new vectors into it; every method takes `&self` so one
//! index is shared across threads behind an `Arc`.
//!
//! Locks, and who may wait on them: `write_gate` orders writers (upsert, delete, save) and is
//! never taken by searches; `indexing` lets save and tombstone cleanup pause the graph
//! builders (each holds it shared for one insert); `pending` is held for microseconds. A
//! search takes only the pending lock (to copy the unindexed tail) and a visited list.
//!
//! Checkpoint save and load live in index/persist.rs; scoring given slots (re-scoring, MMR) in
//! index/scoring.rs.

#[cfg(test)]
mod code_placement_tests;
#[cfg(test)]
mod datatype_tests;
mod heap_copy;
#[cfg(test)]
mod heap_copy_tests;
#[cfg(test)]
mod on_disk_tests;
mod persist;
pub mod plan;
mod quantized;
mod scoring;

pub use plan::FilterStrategy;
pub use quantized::{CodePlacement, QuantizationSearch, QuantizationStatus};

use crate::bitset::AllowedSlots;
use crate::brute_force;
use crate::distance::{Datatype, Metric, Space};
use crate::error::{KernelError, KernelResult};
use crate::hnsw::{Graph, GraphParams, IntegrityReport, WalkCounts};
use crate::pending::Pending;
use crate::store::{SlotState, VectorStore};
use crate::top_k::{Neighbor, TopK};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

pub const MAX_DIMENSION: usize = 65_536;
pub const MAX_K: usize = 1_000_000;
/// Tombstoned nodes are cleaned out of the graph once they are this share of it.
pub const CLEANUP_SHARE: f64 = 0.2;

#[derive(Clone, Debug, PartialEq)]
pub struct IndexParams {
    pub dimension: usize,
    pub metric: Metric,
    /// Links per node on upper levels; level 0 keeps 2·m. 0 builds no graph: Qdrant's way to
    /// switch HNSW off (docs/api.md §4.1), and every search is the exact scan.
    pub m: usize,
    pub ef_construct: usize,
    /// An unfiltered search of fewer live vectors than this is an exact scan (a filtered one
    /// is planned by cost: index/plan.rs).
    pub full_scan_threshold: usize,
    /// Background graph builders; 0 = one per core.
    pub indexing_threads: usize,
    /// Element type of the stored vectors (docs/architecture.md §18).
    pub datatype: Datatype,
}

impl IndexParams {
    pub fn new(dimension: usize, metric: Metric) -> IndexParams {
        IndexParams {
            dimension,
            metric,
            m: 16,
            ef_construct: 100,
            full_scan_threshold: 10_000,
            indexing_threads: 0,
            datatype: Datatype::Float32,
        }
    }

    pub fn validate(&self) -> KernelResult<()> {
        if self.dimension == 0 || self.dimension > MAX_DIMENSION {
            return Err(KernelError::invalid(format!("dimension must be 1..={MAX_DIMENSION}, got {}", self.dimension)));
        }
        if self.m != 0 && !(2..=128).contains(&self.m) {
            return Err(KernelError::invalid(format!("m must be 0 (no graph) or 2..=128, got {}", self.m)));
        }
        if !(1..=4096).contains(&self.ef_construct) {
            return Err(KernelError::invalid(format!("ef_construct must be 1..=4096, got {}", self.ef_construct)));
        }
        if self.indexing_threads > 256 {
            return Err(KernelError::invalid(format!("indexing_threads must be 0..=256, got {}", self.indexing_threads)));
        }
        Ok(())
    }

    /// Whether vectors are linked into an HNSW graph at all (`m` 0: never).
    pub fn builds_graph(&self) -> bool {
        self.m != 0
    }

    /// The graph's shape. With `m` 0 the graph stays empty; it still needs a valid shape, and the
    /// smallest one costs the least.
    fn graph_params(&self) -> GraphParams {
        GraphParams::new(self.m.max(2), self.ef_construct)
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SearchParams<'a> {
    pub ef: Option<usize>,
    pub exact: bool,
    pub allowed: Option<AllowedSlots<'a>>,
    /// `params.quantization` of docs/api.md §15; ignored when the index is not quantized.
    pub quantization: QuantizationSearch,
    /// Scan or walk for a filtered search; `Auto` asks the cost model (index/plan.rs).
    pub strategy: FilterStrategy,
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
    /// Bytes of memory-mapped vector files (`on_disk`) and mapped quantized codes
    /// (`always_ram: false`); not counted in `memory_bytes`.
    pub mapped_bytes: usize,
}

/// Where an index keeps its original vectors (docs/architecture.md §15).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum VectorStorage {
    /// The heap arena.
    #[default]
    Ram,
    /// Memory-mapped, unlinked working files in this directory (mapped.rs).
    OnDisk(std::path::PathBuf),
}

struct Shared {
    params: IndexParams,
    store: VectorStore,
    graph: Graph,
    pending: Pending,
    /// Serialises writers (upsert, delete, save, load); readers never take it.
    write_gate: Mutex<()>,
    /// Graph builders hold it shared per insert; save and cleanup take it exclusively.
    indexing: RwLock<()>,
    /// Tombstoned slots that are still graph nodes.
    graph_tombstones: AtomicUsize,
    /// Quantized codes (index/quantized.rs); read by searches, changed under the write gate.
    quantization: RwLock<quantized::QuantizationState>,
}

/// A builder thread with nothing to link exits after this long (short in tests, so the
/// exit-and-restart path is exercised without slow tests).
const BUILDER_IDLE: std::time::Duration = if cfg!(test) { std::time::Duration::from_millis(20) } else { std::time::Duration::from_secs(5) };

pub struct VectorIndex {
    shared: Arc<Shared>,
    /// The thread copying a loaded heap index's rows out of its checkpoint file (heap_copy.rs),
    /// joined on drop: it may be reading the file's mapping, which must be gone when the index is.
    row_copy: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Drop for VectorIndex {
    fn drop(&mut self) {
        self.shared.pending.shutdown();
        // It stops at its next step (at most 4,096 rows) once it sees the shutdown.
        if let Some(copy) = self.row_copy.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()).take() {
            let _ = copy.join();
        }
    }
}

fn lock_mutex(mutex: &Mutex<()>) -> std::sync::MutexGuard<'_, ()> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Shared {
    fn link(&self, slot: u32) {
        let _indexing = self.indexing.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        if self.store.is_live(slot) {
            self.graph.insert(&self.store, slot);
        }
    }

    fn needs_cleanup(&self) -> bool {
        let tombstones = self.graph_tombstones.load(Ordering::Acquire);
        tombstones > 0 && tombstones as f64 >= CLEANUP_SHARE * self.graph.node_count() as f64
    }

    fn cleanup(&self) {
        let _indexing = self.indexing.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        let removed = self.graph.remove_deleted(&self.store);
        let _ = self.graph_tombstones.fetch_update(Ordering::AcqRel, Ordering::Acquire, |count| Some(count.saturating_sub(removed)));
    }

    fn run_worker(&self) {
        // Searches first: a builder only takes the cores they leave (background_priority.rs).
        crate::background_priority::lower_current_thread(crate::background_priority::BUILDER_NICE_INCREMENT);
        while let Some(slot) = self.pending.take(BUILDER_IDLE) {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.link(slot)));
            if result.is_err() {
                // A kernel bug, not bad input: retrying would panic again, so the slot stays
                // in the exact tail instead, still found by every search.
                self.pending.strand(slot);
            }
            let idle = self.pending.finish(slot);
            if result.is_err() {
                continue;
            }
            if idle && self.needs_cleanup() {
                self.cleanup();
            }
        }
    }
}

impl VectorIndex {
    pub fn new(params: IndexParams) -> KernelResult<VectorIndex> {
        Self::with_storage(params, VectorStorage::Ram)
    }

    /// A new index keeping its original vectors in `storage`.
    pub fn with_storage(params: IndexParams, storage: VectorStorage) -> KernelResult<VectorIndex> {
        params.validate()?;
        let store = Self::store_for(&params, storage)?;
        Ok(Self::with_store(params, store))
    }

    /// An empty vector store for `params` in `storage`.
    pub(crate) fn store_for(params: &IndexParams, storage: VectorStorage) -> KernelResult<VectorStore> {
        let space = Space::new(params.metric);
        Ok(match storage {
            VectorStorage::Ram => VectorStore::typed(params.dimension, space, params.datatype, None),
            VectorStorage::OnDisk(_) if !crate::mapped::AVAILABLE => {
                return Err(KernelError::invalid("on_disk vectors need memory-mapped files, available on Linux only".to_string()));
            }
            VectorStorage::OnDisk(directory) => VectorStore::typed(params.dimension, space, params.datatype, Some(directory)),
        })
    }

    /// An index over `store` (validated `params`; a checkpoint load may hand in a store that
    /// already holds rows: index/persist.rs).
    pub(crate) fn with_store(params: IndexParams, store: VectorStore) -> VectorIndex {
        let graph = Graph::new(params.graph_params());
        VectorIndex {
            row_copy: Mutex::new(None),
            shared: Arc::new(Shared {
                store,
                graph,
                pending: Pending::default(),
                write_gate: Mutex::new(()),
                indexing: RwLock::new(()),
                graph_tombstones: AtomicUsize::new(0),
                quantization: RwLock::new(quantized::QuantizationState::default()),
                params,
            }),
        }
    }

    /// The candidate list a search walks with when it names none: the index's `ef_construct`,
    /// as Qdrant's default `hnsw_ef` is its collection's (docs/api.md §3.5), so a collection
    /// built for higher recall is also searched for it.
    pub(crate) fn default_ef(&self, params: &SearchParams<'_>) -> usize {
        params.ef.unwrap_or(self.shared.params.ef_construct)
    }

    pub fn params(&self) -> &IndexParams {
        &self.shared.params
    }

    pub fn dimension(&self) -> usize {
        self.shared.params.dimension
    }

    pub fn metric(&self) -> Metric {
        self.shared.params.metric
    }

    fn worker_count(&self) -> usize {
        match self.shared.params.indexing_threads {
            0 => crate::cores::available(),
            threads => threads,
        }
    }

    /// Queues slots for the graph builders, starting builder threads as needed (they exit
    /// when idle, so an index nobody writes to holds no threads). If no thread can be started
    /// at all, the caller links inline rather than never.
    fn queue_for_linking(&self, slots: impl IntoIterator<Item = u32>) {
        if !self.shared.params.builds_graph() {
            return;
        }
        let missing = self.shared.pending.push(slots, self.worker_count());
        for number in 0..missing {
            let shared = Arc::clone(&self.shared);
            let spawned = std::thread::Builder::new().name(format!("quiver-index-{number}")).spawn(move || shared.run_worker());
            if spawned.is_err() {
                self.shared.pending.worker_failed();
            }
        }
        if self.shared.pending.workers() == 0 {
            self.drain_inline();
        }
    }

    /// Links everything pending on the calling thread (used when no worker could start).
    fn drain_inline(&self) {
        while let Some(slot) = self.shared.pending.try_take() {
            self.shared.link(slot);
            self.shared.pending.finish(slot);
        }
    }

    /// Inserts or replaces the vectors of `slots`; `vectors` holds slots.len() rows. The whole
    /// batch is checked before anything is written, so a bad batch changes nothing. Vectors
    /// are searchable (by exact scan of the tail) when this returns, and linked into the graph
    /// in the background.
    pub fn upsert(&self, slots: &[u32], vectors: &[f32]) -> KernelResult<()> {
        let dimension = self.shared.params.dimension;
        if vectors.len() != slots.len() * dimension {
            let per_vector = if slots.is_empty() { vectors.len() } else { vectors.len() / slots.len() };
            return Err(KernelError::dimension(dimension, per_vector));
        }
        if let Some(position) = slots.iter().position(|slot| *slot == u32::MAX) {
            return Err(KernelError::invalid(format!("slot {} at position {position} is out of range", u32::MAX)));
        }
        if let Some(position) = vectors.iter().position(|value| !value.is_finite()) {
            return Err(KernelError::invalid(format!("vector {} holds a non-finite value", position / dimension)));
        }
        if let Some((position, reason)) =
            vectors.iter().enumerate().find_map(|(position, value)| self.shared.store.refusal(*value).map(|reason| (position, reason)))
        {
            return Err(KernelError::invalid(format!(
                "vector {} component {} ({}) {reason}",
                position / dimension,
                position % dimension,
                vectors[position]
            )));
        }
        if slots.is_empty() {
            return Ok(());
        }
        {
            let _writer = lock_mutex(&self.shared.write_gate);
            let store = &self.shared.store;
            store.reserve(slots.len())?;
            self.shared.reserve_codes(store.next_row(), slots.len())?;
            let mut prepared = vec![0f32; dimension];
            for (slot, vector) in slots.iter().zip(vectors.chunks_exact(dimension)) {
                prepared.copy_from_slice(vector);
                store.prepare_row(&mut prepared);
                self.shared.encode_new_row(store.next_row(), &store.comparable_of_prepared(&prepared));
                if store.put(*slot, &prepared) == SlotState::Deleted && self.shared.graph.contains(*slot) {
                    let _ = self
                        .shared
                        .graph_tombstones
                        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |count| Some(count.saturating_sub(1)));
                }
            }
            self.queue_for_linking(slots.iter().copied());
            if self.shared.wants_training() {
                self.shared.start_building();
            }
        }
        Ok(())
    }

    /// Tombstones the given slots; unknown or already deleted slots are ignored.
    pub fn delete(&self, slots: &[u32]) {
        let _writer = lock_mutex(&self.shared.write_gate);
        for slot in slots {
            if self.shared.store.delete(*slot) && self.shared.graph.contains(*slot) {
                self.shared.graph_tombstones.fetch_add(1, Ordering::AcqRel);
            }
        }
    }

    pub fn has(&self, slot: u32) -> bool {
        self.shared.store.is_live(slot)
    }

    /// Stored vectors of `slots`, row by row; NaN rows for slots without a live vector.
    pub fn vectors(&self, slots: &[u32]) -> Vec<f32> {
        let dimension = self.shared.params.dimension;
        let store = &self.shared.store;
        let mut output = vec![f32::NAN; slots.len() * dimension];
        for (row, slot) in output.chunks_exact_mut(dimension).zip(slots) {
            if store.is_live(*slot) {
                if let Some(vector) = store.vector(*slot) {
                    store.space().decode_into(vector, row);
                }
            }
        }
        output
    }

    pub fn search(&self, query: &[f32], k: usize, params: &SearchParams<'_>) -> KernelResult<Vec<Hit>> {
        let shared = &*self.shared;
        if query.len() != shared.params.dimension {
            return Err(KernelError::dimension(shared.params.dimension, query.len()));
        }
        if k > MAX_K {
            return Err(KernelError::invalid(format!("k must be at most {MAX_K}, got {k}")));
        }
        if query.iter().any(|value| !value.is_finite()) {
            return Err(KernelError::invalid("query holds a non-finite value"));
        }
        if k == 0 {
            return Ok(Vec::new());
        }
        let mut prepared = query.to_vec();
        shared.store.prepare(&mut prepared);
        let store = &shared.store;
        let threshold = shared.params.full_scan_threshold;
        let ef = self.default_ef(params).max(k);
        let allowed_count = params.allowed.map(|allowed| allowed.count());
        let (strategy, ef) = match (params.exact, allowed_count) {
            (true, _) => (FilterStrategy::Scan, ef),
            // No graph is ever built: nothing is pending either, so only the scan sees every vector.
            (false, _) if !shared.params.builds_graph() => (FilterStrategy::Scan, ef),
            (false, Some(allowed)) => self.plan(allowed, ef, params.strategy),
            (false, None) if store.live_count() < threshold => (FilterStrategy::Scan, ef),
            (false, None) => (FilterStrategy::PlainWalk, ef),
        };
        if strategy == FilterStrategy::Scan {
            return Ok(self.to_hits(brute_force::search(store, &prepared, k, params.allowed)));
        }
        // A filtered walk can strand itself in a patch of the graph where nothing nearby is
        // allowed; then the exact scan (the slow twin) answers instead.
        let stranded = |found: usize| found < k && found < allowed_count.unwrap_or(0);
        if let Some(quantized) = self.quantizer_for(params) {
            return Ok(match params.allowed {
                Some(allowed) => {
                    let hits = self.search_quantized(&quantized, &prepared, k, params, &|slot: u32| allowed.contains(slot));
                    if stranded(hits.len()) {
                        self.to_hits(brute_force::search(store, &prepared, k, Some(allowed)))
                    } else {
                        hits
                    }
                }
                None => self.search_quantized(&quantized, &prepared, k, params, &|_slot: u32| true),
            });
        }
        let neighbors = match params.allowed {
            Some(allowed) => {
                let accept = |slot: u32| allowed.contains(slot);
                let found = self.graph_and_tail(&prepared, k, ef, &accept, strategy == FilterStrategy::TwoHopWalk);
                if stranded(found.len()) {
                    brute_force::search(store, &prepared, k, Some(allowed))
                } else {
                    found
                }
            }
            None => {
                let accept = |_slot: u32| true;
                self.graph_and_tail(&prepared, k, ef, &accept, false)
            }
        };
        Ok(self.to_hits(neighbors))
    }

    /// How a search allowing `allowed` slots runs, and with which `ef`: `strategy` when forced
    /// (at the `ef` asked), else the cheapest by the cost model, the two-hop walk at no less
    /// than its floor (`plan::two_hop_ef`). Without a graph every strategy is the scan.
    fn plan(&self, allowed: usize, ef: usize, strategy: FilterStrategy) -> (FilterStrategy, usize) {
        let graph = &self.shared.graph;
        if graph.node_count() == 0 {
            return (FilterStrategy::Scan, ef);
        }
        match strategy {
            FilterStrategy::Auto => {
                let chosen = plan::cheapest(&plan::PlanInput {
                    allowed,
                    graph_nodes: graph.node_count(),
                    dimension: self.shared.params.dimension,
                    m0: graph.params().m0,
                    ef,
                });
                let ef = if chosen == FilterStrategy::TwoHopWalk { plan::two_hop_ef(ef, self.shared.params.dimension) } else { ef };
                (chosen, ef)
            }
            forced => (forced, ef),
        }
    }

    /// Live vectors (upserted, not deleted): one atomic read, for per-search checks where
    /// `stats()` would do needless work.
    pub fn live_count(&self) -> usize {
        self.shared.store.live_count()
    }

    /// Graph results merged with an exact scan of the not-yet-linked tail; only live slots
    /// passing `accept` are returned. `filtered`: the walk through allowed nodes only
    /// (hnsw/search_filtered.rs) instead of the plain walk.
    fn graph_and_tail<F: Fn(u32) -> bool>(&self, query: &[f32], k: usize, ef: usize, accept: &F, filtered: bool) -> Vec<Neighbor> {
        let shared = &*self.shared;
        // The tail is copied before the walk: a slot whose linking finishes during the walk
        // may not be reachable yet when the walk passes its neighbours, and copied after it,
        // would be in neither list.
        let mut tail = Vec::new();
        shared.pending.snapshot(&mut tail);
        let from_graph = if filtered {
            shared.graph.search_filtered(&shared.store, query, k, ef, accept, &mut WalkCounts::default())
        } else {
            shared.graph.search(&shared.store, query, k, ef, accept)
        };
        if tail.is_empty() {
            return from_graph;
        }
        let mut top = TopK::new(k);
        for neighbor in &from_graph {
            top.push(*neighbor);
        }
        tail.sort_unstable();
        tail.dedup();
        let store = &shared.store;
        for slot in tail {
            // A slot being re-linked can be in both lists: the graph copy already counts.
            if store.is_live(slot) && accept(slot) && !from_graph.iter().any(|neighbor| neighbor.slot == slot) {
                top.push(Neighbor { distance: store.distance_to(query, slot), slot });
            }
        }
        top.into_sorted()
    }

    /// What the two-hop walk does for one query (graph part only, query as stored, e.g. not
    /// normalised): for calibrating the planner (examples/calibrate_filter.rs), never a search.
    pub fn two_hop_walk_counts(&self, query: &[f32], k: usize, ef: usize, allowed: AllowedSlots<'_>) -> WalkCounts {
        let mut counts = WalkCounts::default();
        let accept = |slot: u32| allowed.contains(slot);
        self.shared.graph.search_filtered(&self.shared.store, query, k, ef.max(k), &accept, &mut counts);
        counts
    }

    /// The exact answer, whatever the parameters say: the oracle for recall tests.
    pub fn search_exact(&self, query: &[f32], k: usize, allowed: Option<AllowedSlots<'_>>) -> KernelResult<Vec<Hit>> {
        self.search(query, k, &SearchParams { ef: None, exact: true, allowed, ..SearchParams::default() })
    }

    fn to_hits(&self, neighbors: Vec<Neighbor>) -> Vec<Hit> {
        let space = self.shared.store.space();
        neighbors.into_iter().map(|neighbor| Hit { slot: neighbor.slot, score: space.score(neighbor.distance) }).collect()
    }

    pub fn stats(&self) -> IndexStats {
        let shared = &*self.shared;
        let count = shared.store.live_count();
        // O(1) on purpose: stats() answers on the JS thread. While the builders run, a slot
        // deleted or re-upserted before being linked can make this count briefly low.
        let unlinked = shared.pending.len();
        IndexStats {
            count,
            indexed_count: count.saturating_sub(unlinked),
            deleted_count: shared.store.deleted_count(),
            memory_bytes: shared.store.memory_bytes()
                + shared.graph.memory_bytes()
                + shared.quantization_memory()
                + std::mem::size_of::<Shared>(),
            mapped_bytes: shared.store.mapped_bytes() + shared.quantization_mapped(),
        }
    }

    /// The part of the mapped vector files in RAM now (`mincore`; O(pages), so for monitoring
    /// and `GET C`, never a search). 0 for an index with its vectors on the heap.
    pub fn mapped_resident_bytes(&self) -> usize {
        self.shared.store.mapped_resident_bytes() + self.shared.quantization_mapped_resident()
    }

    pub fn is_on_disk(&self) -> bool {
        self.shared.store.is_on_disk()
    }

    /// Blocks until every upserted vector is linked into the graph.
    pub fn wait_indexed(&self) {
        if self.shared.pending.workers() == 0 {
            self.drain_inline();
        }
        self.shared.pending.wait_idle();
    }

    /// Cleans tombstones out of the graph now, whatever their share (normally automatic).
    pub fn compact(&self) {
        self.shared.cleanup();
    }

    /// Graph builder threads currently alive.
    pub fn builder_threads(&self) -> usize {
        self.shared.pending.workers()
    }

    pub fn check_integrity(&self) -> IntegrityReport {
        let _indexing = self.shared.indexing.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.shared.graph.check_integrity(&self.shared.store)
    }

    /// Stops background work; memory is freed when the last handle drops.
    pub fn close(&self) {
        self.shared.pending.shutdown();
    }
}
