//! `NativeSparseIndex`: the JS class over one `quiver_core::SparseIndex`, built like
//! `NativeVectorIndex`: cheap reads answer at once (has, vector, documentFrequencies, stats);
//! upsert, delete, save and load run on the kernel pool and return promises; searches post
//! their result to the completion channel under a ticket. src/native/sparse-index.ts wraps it.

use crate::completions::{Channel, Completion, CompletionChannel};
use crate::errors::{closed, from_kernel, guarded, invalid, Result};
use crate::external_memory::MemoryReport;
use crate::pool::{file_pool, pool};
use crate::result_bytes::ResultBytes;
use crate::tasks::{run_async, run_on};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use quiver_core::{AllowedSlots, SparseIndex, SparseSearchParams};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

#[napi(object)]
pub struct NativeSparseStats {
    pub count: f64,
    pub non_zeros: f64,
    pub dimensions: f64,
    pub memory_bytes: f64,
}

/// One stored vector: indices ascending, a value each.
#[napi(object)]
pub struct NativeSparseVector {
    pub indices: Uint32Array,
    pub values: Float32Array,
}

#[napi(custom_finalize)]
pub struct NativeSparseIndex {
    // The lock guards only taking or cloning the Arc, never kernel work.
    handle: Mutex<Option<Arc<SparseIndex>>>,
    memory: MemoryReport,
    loaded_operation_id: u64,
    loaded_binding: String,
    channel: Arc<Channel>,
}

impl NativeSparseIndex {
    fn wrap(env: &Env, index: SparseIndex, loaded_operation_id: u64, loaded_binding: String, channel: Arc<Channel>) -> NativeSparseIndex {
        let memory = MemoryReport::default();
        memory.set(env, index.stats().memory_bytes);
        NativeSparseIndex { handle: Mutex::new(Some(Arc::new(index))), memory, loaded_operation_id, loaded_binding, channel }
    }

    fn index(&self) -> Result<Arc<SparseIndex>> {
        let handle = self.handle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        handle.clone().ok_or_else(closed)
    }
}

impl ObjectFinalize for NativeSparseIndex {
    fn finalize(self, env: Env) -> napi::Result<()> {
        self.memory.set(&env, 0);
        Ok(())
    }
}

fn operation_id(value: f64) -> Result<u64> {
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= 9_007_199_254_740_991.0 {
        Ok(value as u64)
    } else {
        Err(invalid(format!("lastOperationId must be a non-negative safe integer, got {value}")))
    }
}

#[napi]
impl NativeSparseIndex {
    #[napi(factory, catch_unwind)]
    pub fn create(env: Env, completions: &CompletionChannel) -> NativeSparseIndex {
        NativeSparseIndex::wrap(&env, SparseIndex::new(), 0, String::new(), completions.channel())
    }

    /// Loads a checkpoint on the file thread.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeSparseIndex>")]
    pub fn load<'env>(env: &'env Env, path: String, completions: &CompletionChannel) -> Result<Object<'env>> {
        let path = PathBuf::from(path);
        let channel = completions.channel();
        run_on(
            env,
            file_pool(env),
            move || SparseIndex::load_bound(&path).map_err(from_kernel),
            move |env, (index, last_operation_id, binding)| Ok(NativeSparseIndex::wrap(&env, index, last_operation_id, binding, channel)),
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

    /// Inserts or replaces vectors: vector i of `slots` is `indices[offsets[i]..offsets[i + 1]]`
    /// with the same range of `values`. A refused batch changes nothing.
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn upsert<'env>(
        &self,
        env: &'env Env,
        slots: Uint32Array,
        offsets: Uint32Array,
        indices: Uint32Array,
        values: Float32Array,
    ) -> Result<Object<'env>> {
        let index = self.index()?;
        let memory = self.memory.clone();
        run_async(
            env,
            move || {
                index.upsert_batch(&slots, &offsets, &indices, &values).map_err(from_kernel)?;
                Ok((index, (slots, offsets, indices, values)))
            },
            move |env, (index, arrays)| {
                // The arrays are released here, on the JS thread that owns them.
                drop(arrays);
                memory.set(&env, index.stats().memory_bytes);
                Ok(())
            },
        )
    }

    /// Removes the vectors of `slots` (unknown slots are ignored); resolves to how many went.
    #[napi(catch_unwind, ts_return_type = "Promise<number>")]
    pub fn delete<'env>(&self, env: &'env Env, slots: Uint32Array) -> Result<Object<'env>> {
        let index = self.index()?;
        let memory = self.memory.clone();
        run_async(
            env,
            move || {
                let removed = index.delete(&slots);
                Ok((index, slots, removed))
            },
            move |env, (index, slots, removed)| {
                drop(slots);
                memory.set(&env, index.stats().memory_bytes);
                Ok(removed as u32)
            },
        )
    }

    /// Starts a search; its result arrives on the completion channel under `ticket` as an
    /// ArrayBuffer: slots (u32 × n) then scores (f32 × n). `exact` runs the exhaustive twin.
    #[napi(catch_unwind)]
    // A napi method's parameters are its JS arguments; an options struct would cost an object
    // read per search on the hot path.
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &self,
        env: Env,
        ticket: f64,
        indices: Uint32Array,
        values: Float32Array,
        k: u32,
        exact: Option<bool>,
        allowed: Option<Uint8Array>,
    ) -> Result<()> {
        let index = self.index()?;
        // A query is a few hundred entries at most: copying beats holding the caller's arrays.
        let (indices, values) = (indices.to_vec(), values.to_vec());
        let exact = exact.unwrap_or(false);
        let channel = Arc::clone(&self.channel);
        pool(&env).submit(Box::new(move || {
            let outcome = guarded(|| {
                let params = SparseSearchParams { exact, allowed: allowed.as_ref().map(|bytes| AllowedSlots::new(bytes)) };
                index.search(&indices, &values, k as usize, &params).map_err(from_kernel)
            })
            .map(|hits| ResultBytes::single(&hits));
            drop(allowed);
            channel.send(Completion { ticket, outcome });
        }));
        Ok(())
    }

    /// The stored vector of `slot`, or null.
    #[napi(catch_unwind)]
    pub fn vector(&self, slot: u32) -> Result<Option<NativeSparseVector>> {
        let index = self.index()?;
        Ok(index
            .vector(slot)
            .map(|vector| NativeSparseVector { indices: Uint32Array::new(vector.indices), values: Float32Array::new(vector.values) }))
    }

    #[napi(catch_unwind)]
    pub fn has(&self, slot: u32) -> Result<bool> {
        Ok(self.index()?.has(slot))
    }

    /// Live vectors holding each of `dimensions` (for IDF, computed by the caller).
    #[napi(catch_unwind)]
    pub fn document_frequencies(&self, dimensions: Uint32Array) -> Result<Uint32Array> {
        let index = self.index()?;
        let counts = index.document_frequencies(&dimensions);
        Ok(Uint32Array::new(counts.into_iter().map(|count| count.min(u32::MAX as usize) as u32).collect()))
    }

    #[napi(catch_unwind)]
    pub fn stats(&self, env: Env) -> Result<NativeSparseStats> {
        let stats = self.index()?.stats();
        self.memory.set(&env, stats.memory_bytes);
        Ok(NativeSparseStats {
            count: stats.count as f64,
            non_zeros: stats.non_zeros as f64,
            dimensions: stats.dimensions as f64,
            memory_bytes: stats.memory_bytes as f64,
        })
    }

    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn save<'env>(&self, env: &'env Env, path: String, last_operation_id: f64, binding: Option<String>) -> Result<Object<'env>> {
        let last_operation_id = operation_id(last_operation_id)?;
        let index = self.index()?;
        let path = PathBuf::from(path);
        let binding = binding.unwrap_or_default();
        run_on(env, file_pool(env), move || index.save_bound(&path, last_operation_id, &binding).map_err(from_kernel), |_env, ()| Ok(()))
    }

    /// Drops this handle's reference; memory is freed once running tasks finish. Idempotent.
    #[napi(catch_unwind)]
    pub fn close(&self, env: Env) -> Result<()> {
        self.handle.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        self.memory.set(&env, 0);
        Ok(())
    }
}
