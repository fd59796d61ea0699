//! Heavy calls as `AsyncTask`s: `compute` runs on a libuv worker thread, `resolve` builds the
//! JS value on the JS thread (and reports native memory to V8 there, where an Env exists).
//! Typed arrays handed in are held (not copied) until the promise settles: the caller must
//! not mutate them meanwhile (the engine never does).

use crate::errors::{guarded, to_napi};
use crate::index::{MemoryReport, NativeBatchResult, NativeSearchResult, NativeVectorIndex};
use napi::bindgen_prelude::*;
use quiver_core::{AllowedSlots, Hit, SearchParams, VectorIndex};
use std::path::PathBuf;
use std::sync::Arc;

pub struct UpsertTask {
    pub index: Arc<VectorIndex>,
    pub memory: MemoryReport,
    pub slots: Uint32Array,
    pub vectors: Float32Array,
}

impl Task for UpsertTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> Result<()> {
        guarded(|| self.index.upsert(&self.slots, &self.vectors).map_err(to_napi))
    }

    fn resolve(&mut self, env: Env, _output: ()) -> Result<()> {
        self.memory.report(&env, &self.index);
        Ok(())
    }
}

pub struct DeleteTask {
    pub index: Arc<VectorIndex>,
    pub slots: Uint32Array,
}

impl Task for DeleteTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> Result<()> {
        guarded(|| {
            self.index.delete(&self.slots);
            Ok(())
        })
    }

    fn resolve(&mut self, _env: Env, _output: ()) -> Result<()> {
        Ok(())
    }
}

pub struct SearchTask {
    pub index: Arc<VectorIndex>,
    pub queries: Float32Array,
    pub k: usize,
    pub ef: Option<usize>,
    pub exact: bool,
    pub allowed: Option<Uint8Array>,
    /// Single search: resolve to one result; batch: to flat arrays plus per-query counts.
    pub batch: bool,
}

pub enum SearchOutput {
    Single(Vec<Hit>),
    Batch(Vec<Vec<Hit>>),
}

pub enum SearchValue {
    Single(NativeSearchResult),
    Batch(NativeBatchResult),
}

impl ToNapiValue for SearchValue {
    unsafe fn to_napi_value(env: napi::sys::napi_env, value: Self) -> Result<napi::sys::napi_value> {
        match value {
            SearchValue::Single(result) => NativeSearchResult::to_napi_value(env, result),
            SearchValue::Batch(result) => NativeBatchResult::to_napi_value(env, result),
        }
    }
}

impl TypeName for SearchValue {
    fn type_name() -> &'static str {
        "SearchResult"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl Task for SearchTask {
    type Output = SearchOutput;
    type JsValue = SearchValue;

    fn compute(&mut self) -> Result<SearchOutput> {
        guarded(|| {
            let params = SearchParams {
                ef: self.ef,
                exact: self.exact,
                allowed: self.allowed.as_ref().map(|bytes| AllowedSlots::new(bytes)),
            };
            let dimension = self.index.dimension();
            if !self.batch {
                return Ok(SearchOutput::Single(self.index.search(&self.queries, self.k, &params).map_err(to_napi)?));
            }
            if !self.queries.len().is_multiple_of(dimension) {
                return Err(to_napi(quiver_core::KernelError::dimension(dimension, self.queries.len() % dimension)));
            }
            let mut results = Vec::with_capacity(self.queries.len() / dimension);
            for query in self.queries.chunks_exact(dimension) {
                results.push(self.index.search(query, self.k, &params).map_err(to_napi)?);
            }
            Ok(SearchOutput::Batch(results))
        })
    }

    fn resolve(&mut self, _env: Env, output: SearchOutput) -> Result<SearchValue> {
        Ok(match output {
            SearchOutput::Single(hits) => {
                let slots: Vec<u32> = hits.iter().map(|hit| hit.slot).collect();
                let scores: Vec<f32> = hits.iter().map(|hit| hit.score).collect();
                SearchValue::Single(NativeSearchResult { slots: Uint32Array::new(slots), scores: Float32Array::new(scores) })
            }
            SearchOutput::Batch(lists) => {
                let total: usize = lists.iter().map(Vec::len).sum();
                let mut slots = Vec::with_capacity(total);
                let mut scores = Vec::with_capacity(total);
                let mut counts = Vec::with_capacity(lists.len());
                for hits in &lists {
                    counts.push(hits.len() as u32);
                    slots.extend(hits.iter().map(|hit| hit.slot));
                    scores.extend(hits.iter().map(|hit| hit.score));
                }
                SearchValue::Batch(NativeBatchResult {
                    slots: Uint32Array::new(slots),
                    scores: Float32Array::new(scores),
                    counts: Uint32Array::new(counts),
                })
            }
        })
    }
}

pub struct WaitIndexedTask {
    pub index: Arc<VectorIndex>,
}

impl Task for WaitIndexedTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> Result<()> {
        guarded(|| {
            self.index.wait_indexed();
            Ok(())
        })
    }

    fn resolve(&mut self, _env: Env, _output: ()) -> Result<()> {
        Ok(())
    }
}

pub struct SaveTask {
    pub index: Arc<VectorIndex>,
    pub path: PathBuf,
    pub last_operation_id: u64,
}

impl Task for SaveTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> Result<()> {
        guarded(|| self.index.save(&self.path, self.last_operation_id).map_err(to_napi))
    }

    fn resolve(&mut self, _env: Env, _output: ()) -> Result<()> {
        Ok(())
    }
}

pub struct LoadTask {
    pub path: PathBuf,
}

impl Task for LoadTask {
    type Output = (VectorIndex, u64);
    type JsValue = NativeVectorIndex;

    fn compute(&mut self) -> Result<(VectorIndex, u64)> {
        guarded(|| VectorIndex::load(&self.path).map_err(to_napi))
    }

    fn resolve(&mut self, env: Env, output: (VectorIndex, u64)) -> Result<NativeVectorIndex> {
        let (index, last_operation_id) = output;
        let native = NativeVectorIndex::wrap(Arc::new(index), last_operation_id);
        native.report_memory(&env);
        Ok(native)
    }
}
