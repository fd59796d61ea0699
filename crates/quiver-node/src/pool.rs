//! The kernel's own worker threads for searches, upserts, save and load. Internal to the
//! crate: no TypeScript twin.
//!
//! Not the libuv pool: classic-level queues every read and write there, and a burst of
//! searches would stall the database behind them. One thread per core (searches are CPU
//! bound; more would only contend), created on first use. Jobs settle a deferred promise,
//! whose value is built on the JS thread. At environment teardown the threads are told to stop
//! after their current job; they are not joined, so a long job cannot hang process exit.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, OnceLock};

pub type Job = Box<dyn FnOnce() + Send + 'static>;

struct PoolState {
    jobs: VecDeque<Job>,
    shutdown: bool,
}

pub struct Pool {
    state: Mutex<PoolState>,
    ready: Condvar,
}

static POOL: OnceLock<&'static Pool> = OnceLock::new();
static FILE_POOL: OnceLock<&'static Pool> = OnceLock::new();

fn thread_count() -> usize {
    std::thread::available_parallelism().map_or(2, |cores| cores.get()).clamp(1, 64)
}

impl Pool {
    fn start(name: &str, threads: usize) -> &'static Pool {
        // Leaked on purpose: threads that outlive a job may still touch it during exit.
        let pool: &'static Pool =
            Box::leak(Box::new(Pool { state: Mutex::new(PoolState { jobs: VecDeque::new(), shutdown: false }), ready: Condvar::new() }));
        for number in 0..threads {
            let _ = std::thread::Builder::new().name(format!("{name}-{number}")).spawn(move || pool.run());
        }
        pool
    }

    fn run(&self) {
        loop {
            let job = {
                let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                loop {
                    if let Some(job) = state.jobs.pop_front() {
                        break job;
                    }
                    if state.shutdown {
                        return;
                    }
                    state = self.ready.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
                }
            };
            // Jobs catch their own panics (errors::guarded); this keeps the thread alive even
            // if settling the promise itself panicked.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        }
    }

    /// Queues `job`; after shutdown it runs at once on the caller's thread instead, so a
    /// promise is never left unsettled.
    pub fn submit(&self, job: Job) {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if state.shutdown {
            drop(state);
            job();
            return;
        }
        state.jobs.push_back(job);
        drop(state);
        self.ready.notify_one();
    }

    pub fn shutdown(&self) {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).shutdown = true;
        self.ready.notify_all();
    }
}

fn shared(cell: &'static OnceLock<&'static Pool>, env: &napi::Env, name: &str, threads: usize) -> &'static Pool {
    let mut created = false;
    let pool = *cell.get_or_init(|| {
        created = true;
        Pool::start(name, threads)
    });
    if created {
        let _ = env.add_env_cleanup_hook(pool, |pool| pool.shutdown());
    }
    pool
}

/// The process-wide pool for searches and upserts (one thread per core); the first caller
/// registers its teardown with `env`.
pub fn pool(env: &napi::Env) -> &'static Pool {
    shared(&POOL, env, "quiver-kernel", thread_count())
}

/// One thread for checkpoint save and load: a multi-second write of a large index must not
/// take a search thread, and checkpoints of many collections run one after another rather
/// than all at once against the disk.
pub fn file_pool(env: &napi::Env) -> &'static Pool {
    shared(&FILE_POOL, env, "quiver-files", 1)
}
