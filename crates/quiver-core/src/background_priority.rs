//! Three tiers of scheduling priority (nice values on Linux), so that when the cores are busy
//! the scheduler runs the work others wait on first; on an idle machine every tier still gets
//! every free core.
//!
//! - The JS thread (the process's own priority): it parses and answers every request, one at a
//!   time, so each moment it waits for a core stalls all requests at once.
//! - Search threads (the addon's kernel pool), `SEARCH_NICE_INCREMENT` nicer: they run in
//!   parallel and feed the JS thread. Measured at 64 connections on 2 cores (bench/README.md,
//!   "The request path"), letting the JS thread go first served ~20% more requests per second.
//! - Graph builders and code encoders, `BUILDER_NICE_INCREMENT` nicer: nothing waits on them (the
//!   unlinked tail is scanned exactly meanwhile), so they take the cores searches leave.

/// How much nicer than the process the search (kernel pool) threads run.
pub const SEARCH_NICE_INCREMENT: i32 = 5;

/// How much nicer than the process the builder threads run: 10 steps below searches, as far
/// below them (a ~9x smaller share of a contended core) as builders were below searches when
/// searches ran at the process's priority.
pub const BUILDER_NICE_INCREMENT: i32 = 15;

/// Lowers the calling thread's priority by `increment` nice steps (capped at 19). Best effort:
/// where the platform has no per-thread priority, or the call is refused, the thread keeps its
/// priority.
pub fn lower_current_thread(increment: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid takes no arguments; getpriority/setpriority with PRIO_PROCESS and a thread
    // id only read or change that thread's nice value (Linux keeps nice per thread).
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        *libc::__errno_location() = 0;
        let current = libc::getpriority(libc::PRIO_PROCESS, thread);
        if *libc::__errno_location() == 0 {
            let _ = libc::setpriority(libc::PRIO_PROCESS, thread, (current + increment).min(19));
        }
    }
}

/// The calling thread's nice value, where the platform reports one per thread (for tests).
pub fn current_thread_nice() -> Option<i32> {
    #[cfg(target_os = "linux")]
    // SAFETY: as above, read only.
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        *libc::__errno_location() = 0;
        let value = libc::getpriority(libc::PRIO_PROCESS, thread);
        return if *libc::__errno_location() == 0 { Some(value) } else { None };
    }
    #[allow(unreachable_code)]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lowered_thread_is_nicer_and_others_are_untouched() {
        let before = current_thread_nice();
        let lowered = std::thread::spawn(|| {
            let start = current_thread_nice();
            lower_current_thread(BUILDER_NICE_INCREMENT);
            (start, current_thread_nice())
        })
        .join()
        .unwrap();
        if let (Some(start), Some(after)) = lowered {
            assert_eq!(after, (start + BUILDER_NICE_INCREMENT).min(19));
        }
        assert_eq!(current_thread_nice(), before, "only the calling thread changes");
    }
}
