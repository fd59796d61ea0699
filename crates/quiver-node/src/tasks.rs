//! Heavy calls run on the kernel pool (pool.rs) and settle a promise: the work runs on a
//! kernel thread, the JS value is built on the JS thread (where native memory is also
//! reported to V8). Typed arrays handed in are held, not copied, until the promise settles:
//! the caller must not mutate them meanwhile (the engine never does). Internal to the crate:
//! no TypeScript twin.

use crate::completions::{Channel, Completion};
use crate::errors::{from_kernel, from_node, guarded, internal, into_rejection, Result};
use crate::external_memory::MemoryReport;
use crate::pool::{pool, Pool};
use crate::result_bytes::ResultBytes;
use napi::bindgen_prelude::*;
use quiver_core::{AllowedSlots, FilterStrategy, Hit, QuantizationSearch, SearchParams, VectorIndex};
use std::sync::Arc;

/// Runs `work` on a kernel thread; `finish` turns its result into the promise's value on the
/// JS thread. Panics in `work` become INTERNAL errors; failures reject with their code.
pub fn run_async<'env, T, D>(
    env: &'env Env,
    work: impl FnOnce() -> Result<T> + Send + 'static,
    finish: impl FnOnce(Env, T) -> Result<D> + Send + 'static,
) -> Result<Object<'env>>
where
    T: Send + 'static,
    D: ToNapiValue + 'static,
{
    run_on(env, pool(env), work, finish)
}

/// `run_async` on `target` (the file thread for checkpoint saves, the load threads for
/// checkpoint loads: pool.rs).
pub fn run_on<'env, T, D>(
    env: &'env Env,
    target: &'static Pool,
    work: impl FnOnce() -> Result<T> + Send + 'static,
    finish: impl FnOnce(Env, T) -> Result<D> + Send + 'static,
) -> Result<Object<'env>>
where
    T: Send + 'static,
    D: ToNapiValue + 'static,
{
    let (deferred, promise) = env.create_deferred().map_err(from_node)?;
    target.submit(Box::new(move || {
        let outcome = guarded(work);
        // One resolver for both outcomes: a rejection is built on the JS thread too (see
        // errors::into_rejection), and a deferred takes a single resolver type.
        deferred.resolve(move |env| match outcome {
            Ok(value) => finish(env, value).map_err(|failure| into_rejection(env, failure)),
            Err(failure) => Err(into_rejection(env, failure)),
        })
    }));
    Ok(promise)
}

/// Like `run_async` but on a thread of its own: for calls that mostly wait (waitIndexed)
/// and must not hold a pool thread while searches queue behind them.
pub fn run_waiting<'env>(env: &'env Env, work: impl FnOnce() + Send + 'static) -> Result<Object<'env>> {
    let (deferred, promise) = env.create_deferred().map_err(from_node)?;
    let spawned = std::thread::Builder::new().name("quiver-wait".to_string()).spawn(move || {
        let outcome = guarded(|| {
            work();
            Ok(())
        });
        deferred.resolve(move |env| outcome.map_err(|failure| into_rejection(env, failure)))
    });
    spawned.map_err(|failure| internal(format!("cannot start a thread: {failure}")))?;
    Ok(promise)
}

pub fn upsert<'env>(
    env: &'env Env,
    index: Arc<VectorIndex>,
    memory: MemoryReport,
    slots: Uint32Array,
    vectors: Float32Array,
) -> Result<Object<'env>> {
    let reporting = Arc::clone(&index);
    run_async(
        env,
        move || {
            index.upsert(&slots, &vectors).map_err(from_kernel)?;
            Ok((slots, vectors))
        },
        move |env, (slots, vectors)| {
            // The arrays are released here, on the JS thread that owns them.
            drop((slots, vectors));
            memory.set(&env, reporting.stats().memory_bytes);
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

/// Where a search's query comes from: copied on the JS thread (one query: a few KB at most,
/// cheaper than holding a reference to the caller's array) or held (a batch: could be MBs).
pub enum Queries {
    Copied(Vec<f32>),
    Held(Float32Array),
}

impl std::ops::Deref for Queries {
    type Target = [f32];

    fn deref(&self) -> &[f32] {
        match self {
            Queries::Copied(values) => values,
            Queries::Held(array) => array,
        }
    }
}

pub struct SearchRequest {
    pub index: Arc<VectorIndex>,
    pub queries: Queries,
    pub k: usize,
    pub ef: Option<usize>,
    pub exact: bool,
    pub allowed: Option<Uint8Array>,
    pub quantization: QuantizationSearch,
}

impl SearchRequest {
    fn run(&self, query: &[f32]) -> Result<Vec<Hit>> {
        let params = SearchParams {
            ef: self.ef,
            exact: self.exact,
            allowed: self.allowed.as_ref().map(|bytes| AllowedSlots::new(bytes)),
            quantization: self.quantization,
            strategy: FilterStrategy::Auto,
        };
        self.index.search(query, self.k, &params).map_err(from_kernel)
    }
}

/// One search on the calling thread.
pub fn search_now(request: &SearchRequest) -> Result<ResultBytes> {
    Ok(ResultBytes::single(&request.run(&request.queries)?))
}

/// Runs the search on a kernel thread and posts the result to the completion channel under
/// `ticket` (the TS side holds the promise).
pub fn search(env: &Env, channel: Arc<Channel>, ticket: f64, request: SearchRequest) {
    pool(env).submit(Box::new(move || {
        let outcome = guarded(|| request.run(&request.queries)).map(|hits| ResultBytes::single(&hits));
        drop(request);
        channel.send(Completion { ticket, outcome });
    }));
}

pub fn search_batch(env: &Env, channel: Arc<Channel>, ticket: f64, request: SearchRequest) {
    pool(env).submit(Box::new(move || {
        let outcome = guarded(|| {
            let dimension = request.index.dimension();
            if !request.queries.len().is_multiple_of(dimension) {
                return Err(from_kernel(quiver_core::KernelError::dimension(dimension, request.queries.len() % dimension)));
            }
            let mut results = Vec::with_capacity(request.queries.len() / dimension);
            for query in request.queries.chunks_exact(dimension) {
                results.push(request.run(query)?);
            }
            Ok(ResultBytes::batch(&results))
        });
        drop(request);
        channel.send(Completion { ticket, outcome });
    }));
}

/// Where a slot-scoring call's work is posted: scoring given slots, or an MMR pick over them.
pub enum SlotWork {
    Score,
    Mmr { lambda: f32, limit: usize },
}

/// Scores `slots` against `query` (or picks among them by MMR) on a kernel thread and posts the
/// result to the completion channel under `ticket`: scores f32 × slots, or positions u32 × picked.
pub fn score_slots(
    env: &Env,
    channel: Arc<Channel>,
    ticket: f64,
    index: Arc<VectorIndex>,
    query: Vec<f32>,
    slots: Uint32Array,
    work: SlotWork,
) {
    pool(env).submit(Box::new(move || {
        let outcome = guarded(|| match work {
            SlotWork::Score => index.score_slots(&query, &slots).map(|scores| ResultBytes::scores(&scores)).map_err(from_kernel),
            SlotWork::Mmr { lambda, limit } => {
                index.mmr_select(&query, &slots, lambda, limit).map(|positions| ResultBytes::positions(&positions)).map_err(from_kernel)
            }
        });
        drop(slots);
        channel.send(Completion { ticket, outcome });
    }));
}
