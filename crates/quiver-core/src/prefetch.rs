//! Prefetch hints: ask the CPU to start loading memory a scoring loop is about to read, so the
//! round trips of scattered rows (graph neighbours, scan lookahead, codes) overlap instead of
//! queueing one miss after another.

/// A hint for every 64-byte line of the `length` bytes from `start`. Never faults: a hint for
/// an address that is not mapped is dropped by the CPU.
#[inline(always)]
pub fn lines(start: *const u8, length: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        const LINE_BYTES: usize = 64;
        let end = start as usize + length;
        let mut line = start as usize & !(LINE_BYTES - 1);
        while line < end {
            // SAFETY: prefetch is a hint and never faults.
            unsafe { std::arch::x86_64::_mm_prefetch(line as *const i8, std::arch::x86_64::_MM_HINT_T0) };
            line += LINE_BYTES;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, length);
}
