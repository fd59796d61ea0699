//! Background graph building gives way to searches: builder threads run at a lower scheduling
//! priority (nice 10 on Linux), so when both cores are busy the scheduler runs search threads
//! and the JS thread first, and builders take the cores that are left. Nothing waits on a
//! builder, so a lower priority delays indexing (the unlinked tail is scanned exactly meanwhile)
//! but never blocks a request; on an idle machine builders still get every free core.

/// How much nicer than the process the builder threads run.
pub const BUILDER_NICE_INCREMENT: i32 = 10;

/// Lowers the calling thread's priority by `BUILDER_NICE_INCREMENT`. Best effort: where the
/// platform has no per-thread priority, or the call is refused, the thread keeps its priority.
pub fn lower_current_thread() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid takes no arguments; getpriority/setpriority with PRIO_PROCESS and a thread
    // id only read or change that thread's nice value (Linux keeps nice per thread).
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        *libc::__errno_location() = 0;
        let current = libc::getpriority(libc::PRIO_PROCESS, thread);
        if *libc::__errno_location() == 0 {
            let _ = libc::setpriority(libc::PRIO_PROCESS, thread, (current + BUILDER_NICE_INCREMENT).min(19));
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
            lower_current_thread();
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
