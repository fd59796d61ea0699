//! Heavy calls run on the kernel pool (pool.rs) and settle a promise: the work runs on a
//! kernel thread, the JS value is built on the JS thread (where native memory is also
//! reported to V8). Typed arrays handed in are held, not copied, until the promise settles:
//! the caller must not mutate them meanwhile (the engine never does).

use crate::errors::{guarded, to_napi};
use crate::index::{MemoryReport, NativeBatchResult, NativeSearchResult};
use crate::pool::pool;
use napi::bindgen_prelude::*;
use quiver_core::{AllowedSlots, Hit, SearchParams, VectorIndex};
use std::sync::Arc;

/// Runs `work` on a kernel thread; `finish` turns its result into the promise's value on the
/// JS thread. Panics in `work` become INTERNAL errors.
pub fn run_async<'env, T, D>(
    env: &'env Env,
    work: impl FnOnce() -> Result<T> + Send + 'static,
    finish: impl FnOnce(Env, T) -> Result<D> + Send + 'static,
) -> Result<Object<'env>>
where
    T: Send + 'static,
    D: ToNapiValue + 'static,
{
    let (deferred, promise) = env.create_deferred()?;
    pool(env).submit(Box::new(move || match guarded(work) {
        Ok(value) => deferred.resolve(move |env| finish(env, value)),
        Err(error) => deferred.reject(error),
    }));
    Ok(promise)
}

/// Like `run_async` but on a thread of its own: for calls that mostly wait (waitIndexed)
/// and must not hold a pool thread while searches queue behind them.
pub fn run_waiting<'env>(env: &'env Env, work: impl FnOnce() + Send + 'static) -> Result<Object<'env>> {
    let (deferred, promise) = env.create_deferred()?;
    let spawned = std::thread::Builder::new().name("quiver-wait".to_string()).spawn(move || {
        match guarded(|| {
            work();
            Ok(())
        }) {
            Ok(()) => deferred.resolve(|_env| Ok(())),
            Err(error) => deferred.reject(error),
        }
    });
    spawned.map_err(|error| Error::new(Status::GenericFailure, format!("INTERNAL: cannot start a thread: {error}")))?;
    Ok(promise)
}

pub fn upsert<'env>(env: &'env Env, index: Arc<VectorIndex>, memory: MemoryReport, slots: Uint32Array, vectors: Float32Array) -> Result<Object<'env>> {
    let reporting = Arc::clone(&index);
    run_async(
        env,
        move || {
            index.upsert(&slots, &vectors).map_err(to_napi)?;
            Ok((slots, vectors))
        },
        move |env, (slots, vectors)| {
            // The arrays are released here, on the JS thread that owns them.
            drop((slots, vectors));
            memory.report(&env, &reporting);
            Ok(())
        },
    )
}

pub fn delete<'env>(env: &'env Env, index: Arc<VectorIndex>, slots: Uint32Array) -> Result<Object<'env>> {
    run_async(
        env,
        move || {
            index.delete(&slots);
            Ok(slots)
        },
        |_env, slots| {
            drop(slots);
            Ok(())
        },
    )
}

pub struct SearchRequest {
    pub index: Arc<VectorIndex>,
    pub queries: Float32Array,
    pub k: usize,
    pub ef: Option<usize>,
    pub exact: bool,
    pub allowed: Option<Uint8Array>,
}

impl SearchRequest {
    fn run(&self, query: &[f32]) -> Result<Vec<Hit>> {
        let params = SearchParams { ef: self.ef, exact: self.exact, allowed: self.allowed.as_ref().map(|bytes| AllowedSlots::new(bytes)) };
        self.index.search(query, self.k, &params).map_err(to_napi)
    }
}

/// One search on the calling thread.
pub fn search_now(request: &SearchRequest) -> Result<NativeSearchResult> {
    let hits = request.run(&request.queries)?;
    let slots: Vec<u32> = hits.iter().map(|hit| hit.slot).collect();
    let scores: Vec<f32> = hits.iter().map(|hit| hit.score).collect();
    Ok(NativeSearchResult { slots: Uint32Array::new(slots), scores: Float32Array::new(scores) })
}

pub fn search<'env>(env: &'env Env, request: SearchRequest) -> Result<Object<'env>> {
    run_async(
        env,
        move || {
            let hits = request.run(&request.queries)?;
            Ok((hits, request))
        },
        |_env, (hits, request)| {
            drop(request);
            let slots: Vec<u32> = hits.iter().map(|hit| hit.slot).collect();
            let scores: Vec<f32> = hits.iter().map(|hit| hit.score).collect();
            Ok(NativeSearchResult { slots: Uint32Array::new(slots), scores: Float32Array::new(scores) })
        },
    )
}

pub fn search_batch<'env>(env: &'env Env, request: SearchRequest) -> Result<Object<'env>> {
    run_async(
        env,
        move || {
            let dimension = request.index.dimension();
            if !request.queries.len().is_multiple_of(dimension) {
                return Err(to_napi(quiver_core::KernelError::dimension(dimension, request.queries.len() % dimension)));
            }
            let mut results = Vec::with_capacity(request.queries.len() / dimension);
            for query in request.queries.chunks_exact(dimension) {
                results.push(request.run(query)?);
            }
            Ok((results, request))
        },
        |_env, (lists, request)| {
            drop(request);
            let total: usize = lists.iter().map(Vec::len).sum();
            let mut slots = Vec::with_capacity(total);
            let mut scores = Vec::with_capacity(total);
            let mut counts = Vec::with_capacity(lists.len());
            for hits in &lists {
                counts.push(hits.len() as u32);
                slots.extend(hits.iter().map(|hit| hit.slot));
                scores.extend(hits.iter().map(|hit| hit.score));
            }
            Ok(NativeBatchResult { slots: Uint32Array::new(slots), scores: Float32Array::new(scores), counts: Uint32Array::new(counts) })
        },
    )
}
