//! The machine's core count, asked once per process.
//!
//! `std::thread::available_parallelism` is not a cheap query on Linux: each call reads the
//! process's cgroup files (/proc/self/cgroup, cpu.max) to honour a CPU quota, several file
//! system calls in all. Asked on every search hand-off it cost the JS thread ~90 µs per
//! request (docs/architecture.md §23), so every caller goes through this cache instead. A quota
//! changed while the process runs is not seen; pools are sized once anyway.

use std::sync::OnceLock;

/// The number of cores this process may use, at least 1.
pub fn available() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |cores| cores.get()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_core_count_is_at_least_one_and_does_not_change_between_calls() {
        let first = super::available();
        assert!(first >= 1);
        assert_eq!(super::available(), first);
    }
}
