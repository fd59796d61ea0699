//! The kernel's own worker threads for searches, upserts, save and load. Internal to the
//! crate: no TypeScript twin.
//!
//! Not the libuv pool: classic-level queues every read and write there, and a burst of
//! searches would stall the database behind them. One thread per core (searches are CPU
//! bound; more would only contend), created on first use. Jobs settle a deferred promise,
//! whose value is built on the JS thread. At environment teardown the threads are told to stop
//! after their current job; they are not joined, so a long job cannot hang process exit.

use quiver_core::background_priority::SEARCH_NICE_INCREMENT;
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, OnceLock};

pub type Job = Box<dyn FnOnce() + Send + 'static>;

struct PoolState {
    jobs: VecDeque<Job>,
    /// Threads waiting for a job. `submit` wakes one only if some wait: std's condition variable
    /// makes a futex system call on every notify, waiters or not, and under load (more searches
    /// in flight than threads) none waits (bench/README.md, "The hand-off's wake-ups").
    idle: usize,
    /// Notifies sent that no woken thread has taken yet. A woken thread counts as idle until it
    /// gets the lock back, and the JS thread submits a turn's searches in a burst: without this,
    /// each of them notified again while the first wake-up was still on its way (bench/README.md,
    /// "Wake-ups already on their way"). A spurious wake-up may take one early; the cost is one
    /// notify more, never a job left waiting, since a woken thread takes jobs until none is left.
    waking: usize,
    shutdown: bool,
}

pub struct Pool {
    state: Mutex<PoolState>,
    ready: Condvar,
}

static POOL: OnceLock<&'static Pool> = OnceLock::new();
static FILE_POOL: OnceLock<&'static Pool> = OnceLock::new();
static LOAD_POOL: OnceLock<&'static Pool> = OnceLock::new();

fn thread_count() -> usize {
    quiver_core::cores::available().clamp(1, 64)
}

impl Pool {
    /// `nice`: how many steps below the JS thread its threads run (background_priority.rs).
    fn start(name: &str, threads: usize, nice: i32) -> &'static Pool {
        // Leaked on purpose: threads that outlive a job may still touch it during exit.
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            state: Mutex::new(PoolState { jobs: VecDeque::new(), idle: 0, waking: 0, shutdown: false }),
            ready: Condvar::new(),
        }));
        for number in 0..threads {
            let _ = std::thread::Builder::new().name(format!("{name}-{number}")).spawn(move || {
                quiver_core::background_priority::lower_current_thread(nice);
                pool.run()
            });
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
                    state.idle += 1;
                    state = self.ready.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
                    state.idle -= 1;
                    state.waking = state.waking.saturating_sub(1);
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
        let wake = state.idle > state.waking;
        if wake {
            state.waking += 1;
        }
        drop(state);
        if wake {
            self.ready.notify_one();
        }
    }

    pub fn shutdown(&self) {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).shutdown = true;
        self.ready.notify_all();
    }
}

// `threads` is asked only when the pool is created: this runs on every search hand-off.
fn shared(cell: &'static OnceLock<&'static Pool>, env: &napi::Env, name: &str, threads: fn() -> usize, nice: i32) -> &'static Pool {
    let mut created = false;
    let pool = *cell.get_or_init(|| {
        created = true;
        Pool::start(name, threads(), nice)
    });
    if created {
        let _ = env.add_env_cleanup_hook(pool, |pool| pool.shutdown());
    }
    pool
}

/// The process-wide pool for searches and upserts (one thread per core, a little below the JS
/// thread's priority: background_priority.rs); the first caller
/// registers its teardown with `env`.
pub fn pool(env: &napi::Env) -> &'static Pool {
    shared(&POOL, env, "quiver-kernel", thread_count, SEARCH_NICE_INCREMENT)
}

/// One thread for checkpoint save and load: a multi-second write of a large index must not
/// take a search thread, and checkpoints of many collections run one after another rather
/// than all at once against the disk.
pub fn file_pool(env: &napi::Env) -> &'static Pool {
    shared(&FILE_POOL, env, "quiver-files", || 1, 0)
}

/// Threads for checkpoint loads (one per core): a start loads every collection's checkpoints
/// before it serves, so they run side by side rather than one after another on the file thread
/// (two collections of bench:start's restart set: ~270 ms in a row). Not the search pool: a load
/// during service (a collection recovered later) must not hold a search thread for seconds.
pub fn load_pool(env: &napi::Env) -> &'static Pool {
    shared(&LOAD_POOL, env, "quiver-loads", thread_count, 0)
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    #[test]
    fn every_job_submitted_in_bursts_to_sleeping_threads_runs() {
        let pool = Pool::start("pool-test", 2, 0);
        let done = Arc::new(AtomicUsize::new(0));
        let (finished, wait) = mpsc::channel();
        let bursts = 200;
        let burst = 25;
        for _ in 0..bursts {
            // The threads fall asleep between bursts, so each burst starts with notifies whose
            // wake-ups are still on their way while the rest of the burst is queued.
            std::thread::sleep(Duration::from_micros(200));
            for _ in 0..burst {
                let done = Arc::clone(&done);
                let finished = finished.clone();
                pool.submit(Box::new(move || {
                    if done.fetch_add(1, Ordering::SeqCst) + 1 == bursts * burst {
                        let _ = finished.send(());
                    }
                }));
            }
        }
        assert!(wait.recv_timeout(Duration::from_secs(30)).is_ok(), "{} of {} jobs ran", done.load(Ordering::SeqCst), bursts * burst);
        let state = pool.state.lock().unwrap();
        assert!(state.waking <= state.idle, "waking {} > idle {}", state.waking, state.idle);
        drop(state);
        pool.shutdown();
    }
}
