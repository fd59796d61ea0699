//! `NativeVectorIndex`: the JS class over one `quiver_core::VectorIndex`. Twin of
//! src/native/vector-index.ts, which wraps it in the typed `VectorIndex` contract (tests in
//! src/native/vector-index.test.ts and vector-index-graph.test.ts). Methods either answer at
//! once from lock-free reads (has, vectors, stats) or hand work to the kernel pool and return a
//! promise (upsert, delete, search, save, load).

use crate::completions::{Channel, CompletionChannel};
use crate::errors::{closed, from_kernel, guarded, invalid, Result};
use crate::external_memory::MemoryReport;
use crate::pool::{file_pool, load_pool};
use crate::result_bytes::ResultBytes;
use crate::tasks::{self, run_on, run_waiting, Queries, SearchRequest, SlotWork};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use quiver_core::distance::Datatype;
use quiver_core::quantization::{BinaryEncoding, QuantizationConfig, QueryEncoding};
use quiver_core::{CodePlacement, IndexParams, Metric, QuantizationSearch, VectorIndex, VectorStorage};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

#[napi(object)]
pub struct NativeQuantizationStatus {
    pub enabled: bool,
    /// Codes complete and used by searches.
    pub active: bool,
    /// Codes being built in the background (the collection reports yellow).
    pub building: bool,
    pub memory_bytes: f64,
    /// Bytes of mapped code segments (`always_ram: false` on an `on_disk` vector).
    pub mapped_bytes: f64,
}

/// `params.quantization` of a search (docs/api.md §15), Qdrant's defaults filled in.
fn quantization_search(ignore: Option<bool>, rescore: Option<bool>, oversampling: Option<f64>) -> Result<QuantizationSearch> {
    let oversampling = oversampling.unwrap_or(1.0);
    if !(1.0..=1_000_000.0).contains(&oversampling) {
        return Err(invalid(format!("oversampling must be between 1 and 1000000, got {oversampling}")));
    }
    Ok(QuantizationSearch { ignore: ignore.unwrap_or(false), rescore: rescore.unwrap_or(true), oversampling })
}

#[napi(object)]
pub struct NativeStats {
    pub count: f64,
    pub indexed_count: f64,
    pub deleted_count: f64,
    pub memory_bytes: f64,
    /// Bytes of memory-mapped vector files (`on_disk`), not part of `memory_bytes`.
    pub mapped_bytes: f64,
}

/// Kernel memory for monitoring and `GET C` (docs/api.md §18): heap, mapped, and how much of
/// the mapped files is in RAM right now.
#[napi(object)]
pub struct NativeMemoryReport {
    pub resident_bytes: f64,
    pub mapped_bytes: f64,
    pub mapped_resident_bytes: f64,
}

#[napi(custom_finalize)]
pub struct NativeVectorIndex {
    // The lock guards only taking or cloning the Arc (nanoseconds), never kernel work.
    handle: Mutex<Option<Arc<VectorIndex>>>,
    memory: MemoryReport,
    loaded_operation_id: u64,
    loaded_binding: String,
    channel: Arc<Channel>,
}

impl NativeVectorIndex {
    pub fn wrap(index: Arc<VectorIndex>, loaded_operation_id: u64, loaded_binding: String, channel: Arc<Channel>) -> NativeVectorIndex {
        NativeVectorIndex { handle: Mutex::new(Some(index)), memory: MemoryReport::default(), loaded_operation_id, loaded_binding, channel }
    }

    fn index(&self) -> Result<Arc<VectorIndex>> {
        let handle = self.handle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        handle.clone().ok_or_else(closed)
    }

    pub fn report_memory(&self, env: &Env) {
        if let Ok(index) = self.index() {
            self.memory.set(env, index.stats().memory_bytes);
        }
    }
}

impl ObjectFinalize for NativeVectorIndex {
    fn finalize(self, env: Env) -> napi::Result<()> {
        self.memory.set(&env, 0);
        Ok(())
    }
}

/// `on_disk` vectors go to mapped working files in this directory; none keeps them on the heap.
fn storage_of(on_disk_directory: Option<String>) -> VectorStorage {
    match on_disk_directory {
        Some(directory) => VectorStorage::OnDisk(PathBuf::from(directory)),
        None => VectorStorage::Ram,
    }
}

fn parse_metric(distance: &str) -> Result<Metric> {
    Metric::parse(distance).ok_or_else(|| invalid(format!("distance must be Cosine, Dot, Euclid or Manhattan, got {distance:?}")))
}

/// `datatype` of docs/api.md §21; none is float32.
fn parse_datatype(name: Option<&str>) -> Result<Datatype> {
    match name {
        None => Ok(Datatype::Float32),
        Some(name) => Datatype::parse(name).ok_or_else(|| invalid(format!("datatype must be float32, float16 or uint8, got {name:?}"))),
    }
}

fn ensure_integer(name: &str, value: f64) -> Result<u64> {
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= 9_007_199_254_740_991.0 {
        Ok(value as u64)
    } else {
        Err(invalid(format!("{name} must be a non-negative safe integer, got {value}")))
    }
}

#[napi]
impl NativeVectorIndex {
    #[napi(factory, catch_unwind)]
    // The positional JS signature napi-rs generates; an options object would have to be read
    // field by field through Node-API for no gain (the TS wrapper already checks each value).
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        env: Env,
        dimension: u32,
        distance: String,
        m: u32,
        ef_construct: u32,
        full_scan_threshold: u32,
        indexing_threads: u32,
        completions: &CompletionChannel,
        on_disk_directory: Option<String>,
        datatype: Option<String>,
    ) -> Result<NativeVectorIndex> {
        let params = IndexParams {
            dimension: dimension as usize,
            metric: parse_metric(&distance)?,
            m: m as usize,
            ef_construct: ef_construct as usize,
            full_scan_threshold: full_scan_threshold as usize,
            indexing_threads: indexing_threads as usize,
            datatype: parse_datatype(datatype.as_deref())?,
        };
        let index = VectorIndex::with_storage(params, storage_of(on_disk_directory)).map_err(from_kernel)?;
        let native = NativeVectorIndex::wrap(Arc::new(index), 0, String::new(), completions.channel());
        native.report_memory(&env);
        Ok(native)
    }

    /// Loads a checkpoint on a load thread (pool.rs `load_pool`).
    #[napi(catch_unwind, ts_return_type = "Promise<NativeVectorIndex>")]
    pub fn load<'env>(
        env: &'env Env,
        path: String,
        completions: &CompletionChannel,
        on_disk_directory: Option<String>,
    ) -> Result<Object<'env>> {
        let path = PathBuf::from(path);
        let channel = completions.channel();
        let storage = storage_of(on_disk_directory);
        run_on(
            env,
            load_pool(env),
            move || VectorIndex::load_with_storage(&path, storage).map_err(from_kernel),
            move |env, (index, last_operation_id, binding)| {
                let native = NativeVectorIndex::wrap(Arc::new(index), last_operation_id, binding, channel);
                native.report_memory(&env);
                Ok(native)
            },
        )
    }

    /// The last operation id of the checkpoint this index was loaded from (0 if created).
    #[napi(getter)]
    pub fn loaded_operation_id(&self) -> f64 {
        self.loaded_operation_id as f64
    }

    /// The binding of the checkpoint this index was loaded from ("" if created or unbound).
    #[napi(getter)]
    pub fn loaded_binding(&self) -> String {
        self.loaded_binding.clone()
    }

    #[napi(getter)]
    pub fn dimension(&self) -> Result<u32> {
        Ok(self.index()?.dimension() as u32)
    }

    /// The stored element type: float32, float16 or uint8.
    #[napi(getter)]
    pub fn datatype(&self) -> Result<&'static str> {
        Ok(self.index()?.params().datatype.name())
    }

    #[napi(getter)]
    pub fn distance(&self) -> Result<&'static str> {
        Ok(self.index()?.metric().name())
    }

    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn upsert<'env>(&self, env: &'env Env, slots: Uint32Array, vectors: Float32Array) -> Result<Object<'env>> {
        tasks::upsert(env, self.index()?, self.memory.clone(), slots, vectors)
    }

    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn delete<'env>(&self, env: &'env Env, slots: Uint32Array) -> Result<Object<'env>> {
        tasks::delete(env, self.index()?, slots)
    }

    /// Starts a search; its result arrives on the completion channel under `ticket` as an
    /// ArrayBuffer: slots (u32 × n) then scores (f32 × n).
    #[napi(catch_unwind)]
    // Positional JS arguments on purpose: an options object per search would cost a JS
    // allocation and a Node-API property read per field on the hot path.
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &self,
        env: Env,
        ticket: f64,
        query: Float32ArraySlice<'_>,
        k: u32,
        ef: Option<u32>,
        exact: Option<bool>,
        allowed: Option<Uint8Array>,
        ignore_quantization: Option<bool>,
        rescore: Option<bool>,
        oversampling: Option<f64>,
    ) -> Result<()> {
        let request = SearchRequest {
            index: self.index()?,
            queries: Queries::Copied(query.to_vec()),
            k: k as usize,
            ef: ef.map(|value| value as usize),
            exact: exact.unwrap_or(false),
            allowed,
            quantization: quantization_search(ignore_quantization, rescore, oversampling)?,
        };
        tasks::search(&env, Arc::clone(&self.channel), ticket, request);
        Ok(())
    }

    /// Starts a batch search; its result arrives on the completion channel under `ticket` as an
    /// ArrayBuffer: counts (u32 × queries), slots (u32 × total), scores (f32 × total).
    #[napi(catch_unwind)]
    // Positional JS arguments on purpose: an options object per search would cost a JS
    // allocation and a Node-API property read per field on the hot path.
    #[allow(clippy::too_many_arguments)]
    pub fn search_batch(
        &self,
        env: Env,
        ticket: f64,
        queries: Float32Array,
        k: u32,
        ef: Option<u32>,
        exact: Option<bool>,
        allowed: Option<Uint8Array>,
        ignore_quantization: Option<bool>,
        rescore: Option<bool>,
        oversampling: Option<f64>,
    ) -> Result<()> {
        let request = SearchRequest {
            index: self.index()?,
            queries: Queries::Held(queries),
            k: k as usize,
            ef: ef.map(|value| value as usize),
            exact: exact.unwrap_or(false),
            allowed,
            quantization: quantization_search(ignore_quantization, rescore, oversampling)?,
        };
        tasks::search_batch(&env, Arc::clone(&self.channel), ticket, request);
        Ok(())
    }

    /// Searches on the calling (JS) thread and returns at once. The TS `search` calls it when
    /// the JS thread has time to spare (src/native/inline-search.ts) and `search` otherwise, so
    /// that under load both cores work; bench:ann and bench:async call it directly.
    #[napi(catch_unwind, ts_return_type = "ArrayBuffer")]
    // Positional JS arguments, as `search`.
    #[allow(clippy::too_many_arguments)]
    pub fn search_sync(
        &self,
        query: Float32ArraySlice<'_>,
        k: u32,
        ef: Option<u32>,
        exact: Option<bool>,
        allowed: Option<Uint8Array>,
        ignore_quantization: Option<bool>,
        rescore: Option<bool>,
        oversampling: Option<f64>,
    ) -> Result<ResultBytes> {
        let request = SearchRequest {
            index: self.index()?,
            queries: Queries::Copied(query.to_vec()),
            k: k as usize,
            ef: ef.map(|value| value as usize),
            exact: exact.unwrap_or(false),
            allowed,
            quantization: quantization_search(ignore_quantization, rescore, oversampling)?,
        };
        guarded(|| tasks::search_now(&request))
    }

    /// Starts scoring `slots` against `query` with the search's own distance routine; the result
    /// arrives on the completion channel under `ticket`: scores f32 × slots (NaN: no live vector).
    #[napi(catch_unwind)]
    pub fn score_slots(&self, env: Env, ticket: f64, query: Float32ArraySlice<'_>, slots: Uint32Array) -> Result<()> {
        tasks::score_slots(&env, Arc::clone(&self.channel), ticket, self.index()?, query.to_vec(), slots, SlotWork::Score);
        Ok(())
    }

    /// Starts a maximal-marginal-relevance pick among `slots` (lambda = 1 - diversity); the
    /// result arrives under `ticket`: positions into `slots` (u32 × picked), in pick order.
    #[napi(catch_unwind)]
    pub fn mmr_select(
        &self,
        env: Env,
        ticket: f64,
        query: Float32ArraySlice<'_>,
        slots: Uint32Array,
        lambda: f64,
        limit: u32,
    ) -> Result<()> {
        let work = SlotWork::Mmr { lambda: lambda as f32, limit: limit as usize };
        tasks::score_slots(&env, Arc::clone(&self.channel), ticket, self.index()?, query.to_vec(), slots, work);
        Ok(())
    }

    /// Stored vectors of `slots`, row by row (NaN rows for empty slots). Lock-free reads.
    #[napi(catch_unwind)]
    pub fn vectors(&self, slots: Uint32Array) -> Result<Float32Array> {
        let index = self.index()?;
        guarded(|| Ok(Float32Array::new(index.vectors(&slots))))
    }

    #[napi(catch_unwind)]
    pub fn has(&self, slot: u32) -> Result<bool> {
        Ok(self.index()?.has(slot))
    }

    /// Live vectors only: one atomic read, for the per-search indexing-threshold check
    /// (src/engine/collection.ts) where `stats()` would also sum memory and update V8.
    #[napi(catch_unwind)]
    pub fn live_count(&self) -> Result<f64> {
        Ok(self.index()?.live_count() as f64)
    }

    /// Also brings V8's view of native memory up to date (the graph grows in the background,
    /// after the upsert that caused it has already reported).
    #[napi(catch_unwind)]
    pub fn stats(&self, env: Env) -> Result<NativeStats> {
        let stats = self.index()?.stats();
        self.memory.set(&env, stats.memory_bytes);
        Ok(NativeStats {
            count: stats.count as f64,
            indexed_count: stats.indexed_count as f64,
            deleted_count: stats.deleted_count as f64,
            memory_bytes: stats.memory_bytes as f64,
            mapped_bytes: stats.mapped_bytes as f64,
        })
    }

    /// Heap, mapped and mapped-in-RAM bytes; the last costs one `mincore` per arena segment
    /// (O(pages)), so only monitoring and `GET C` ask for it.
    #[napi]
    pub fn memory_report(&self) -> Result<NativeMemoryReport> {
        let index = self.index()?;
        let stats = index.stats();
        Ok(NativeMemoryReport {
            resident_bytes: stats.memory_bytes as f64,
            mapped_bytes: stats.mapped_bytes as f64,
            mapped_resident_bytes: index.mapped_resident_bytes() as f64,
        })
    }

    /// Switches quantization: kind "int8" (with `quantile` in [0.5, 1] or none), "binary"
    /// (with `encoding` one_bit / two_bits / one_and_half_bits and `query_encoding` binary /
    /// scalar8bits / scalar4bits, none = one_bit and binary), or none to switch it off. Codes
    /// are built in the background (`quantizationStatus`, `waitQuantized`); searches stay
    /// correct meanwhile. `mapped` true puts the codes of an `on_disk` index in file-backed
    /// memory beside its vectors (docs/api.md §15); other indexes keep them on the heap.
    #[napi(catch_unwind)]
    pub fn set_quantization(
        &self,
        kind: Option<String>,
        quantile: Option<f64>,
        encoding: Option<String>,
        query_encoding: Option<String>,
        mapped: Option<bool>,
    ) -> Result<()> {
        let config = match kind.as_deref() {
            None => None,
            Some("int8") => Some(QuantizationConfig::ScalarInt8 { quantile: quantile.map(|value| value as f32) }),
            Some("binary") => Some(QuantizationConfig::Binary {
                encoding: match encoding.as_deref() {
                    None | Some("one_bit") => BinaryEncoding::OneBit,
                    Some("two_bits") => BinaryEncoding::TwoBits,
                    Some("one_and_half_bits") => BinaryEncoding::OneAndHalfBits,
                    Some(other) => return Err(invalid(format!("unknown binary encoding {other:?}"))),
                },
                query_encoding: match query_encoding.as_deref() {
                    None | Some("default") | Some("binary") => QueryEncoding::SameAsStorage,
                    Some("scalar8bits") => QueryEncoding::Scalar8Bits,
                    Some("scalar4bits") => QueryEncoding::Scalar4Bits,
                    Some(other) => return Err(invalid(format!("unknown query encoding {other:?}"))),
                },
            }),
            Some(other) => return Err(invalid(format!("unknown quantization kind {other:?}"))),
        };
        let placement = if mapped == Some(true) { CodePlacement::Mapped } else { CodePlacement::Ram };
        self.index()?.set_quantization_placed(config, placement).map_err(from_kernel)
    }

    #[napi(catch_unwind)]
    pub fn quantization_status(&self) -> Result<NativeQuantizationStatus> {
        let status = self.index()?.quantization_status();
        Ok(NativeQuantizationStatus {
            enabled: status.enabled,
            active: status.active,
            building: status.building,
            memory_bytes: status.memory_bytes as f64,
            mapped_bytes: status.mapped_bytes as f64,
        })
    }

    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn wait_quantized<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let index = self.index()?;
        run_waiting(env, move || index.wait_quantized())
    }

    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn wait_indexed<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let index = self.index()?;
        run_waiting(env, move || index.wait_indexed())
    }

    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn save<'env>(&self, env: &'env Env, path: String, last_operation_id: f64, binding: Option<String>) -> Result<Object<'env>> {
        let last_operation_id = ensure_integer("lastOperationId", last_operation_id)?;
        let index = self.index()?;
        let path = PathBuf::from(path);
        let binding = binding.unwrap_or_default();
        run_on(env, file_pool(env), move || index.save_bound(&path, last_operation_id, &binding).map_err(from_kernel), |_env, ()| Ok(()))
    }

    /// Drops this handle's reference; memory is freed once running tasks finish. Idempotent.
    #[napi(catch_unwind)]
    pub fn close(&self, env: Env) -> Result<()> {
        let taken = self.handle.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        if let Some(index) = taken {
            index.close();
        }
        self.memory.set(&env, 0);
        Ok(())
    }
}
