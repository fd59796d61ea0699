//! Segmented storage of fixed-length rows that grows without ever moving a row.
//!
//! Segment `k` holds `BASE_ROWS << k` rows and is allocated once, zeroed, 64-byte aligned, the
//! first time a row in it is needed; 32 segments cover every u32 index. Readers find a row with
//! two loads (segment pointer, then the row) and never wait for growth: a growing writer only
//! publishes a new segment pointer, nothing is copied. This is how the arena and the link
//! lists grow while searches run.
//!
//! Doubling segments leave up to half of the newest one unused (100k rows fill 77% of the
//! 130k allocated). Heap segments of `LAZY_SEGMENT_BYTES` (256 KiB) or more are therefore anonymous
//! mappings (mapped.rs), whose pages the operating system provides when first written, and the
//! memory reported for them stops at the highest row ever ensured: RAM in use, not address space
//! (docs/architecture.md §24). Smaller segments come from the allocator, counted whole.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::Mutex;

const BASE_ROWS: usize = 1024;
const SEGMENTS: usize = 32;
const ALIGN: usize = 64;
/// Heap segments at least this large are mapped lazily (see the module comment).
const LAZY_SEGMENT_BYTES: usize = 256 << 10;
/// The unit in which the operating system hands out a mapping's memory.
const PAGE_BYTES: usize = 4096;
/// Lazy segments at least this large ask for transparent huge pages (mapped.rs), which their
/// memory then grows by: 2 MiB at most unused at the end of the newest segment, against 4 MiB or
/// more of rows in the segments before it.
const HUGE_SEGMENT_BYTES: usize = 4 << 20;

/// Types for which all-zero bytes are a valid value, so segments can come from `alloc_zeroed`.
///
/// # Safety
/// Implement only for types where the all-zero bit pattern is a valid, meaningful value.
pub unsafe trait Zeroable {}
unsafe impl Zeroable for f32 {}
unsafe impl Zeroable for u8 {}
unsafe impl Zeroable for u16 {}
unsafe impl Zeroable for u32 {}
unsafe impl Zeroable for std::sync::atomic::AtomicU32 {}
unsafe impl Zeroable for std::sync::atomic::AtomicU64 {}
unsafe impl Zeroable for std::sync::atomic::AtomicU8 {}
unsafe impl<T> Zeroable for std::sync::atomic::AtomicPtr<T> {}

pub struct Rows<T: Zeroable> {
    row_length: usize,
    segments: [AtomicPtr<T>; SEGMENTS],
    growth: Mutex<()>,
    /// One past the highest row ever ensured: where the written part of the rows ends.
    touched_rows: AtomicUsize,
    /// Where segments are file-backed (`on_disk` vectors: mapped.rs); None = heap memory.
    mapped_directory: Option<PathBuf>,
    /// Whether large lazy segments ask for huge pages (`mapped::huge_pages` when created).
    huge_pages: bool,
    _owns: PhantomData<T>,
}

// SAFETY: rows are handed out as shared references; T's own Sync/Send decide what callers may
// do with them (atomics for concurrently written rows, write-once discipline for f32 rows).
unsafe impl<T: Zeroable + Send + Sync> Send for Rows<T> {}
unsafe impl<T: Zeroable + Send + Sync> Sync for Rows<T> {}

/// Which segment a row lives in, and its index inside it.
#[inline(always)]
fn locate(row: usize) -> (usize, usize) {
    let block = row / BASE_ROWS + 1;
    let segment = (usize::BITS - 1 - block.leading_zeros()) as usize;
    let first = BASE_ROWS * ((1usize << segment) - 1);
    (segment, row - first)
}

impl<T: Zeroable> Rows<T> {
    pub fn new(row_length: usize) -> Rows<T> {
        assert!(row_length > 0, "rows need at least one element");
        Rows {
            row_length,
            segments: std::array::from_fn(|_| AtomicPtr::new(std::ptr::null_mut())),
            growth: Mutex::new(()),
            touched_rows: AtomicUsize::new(0),
            mapped_directory: None,
            huge_pages: crate::mapped::huge_pages(),
            _owns: PhantomData,
        }
    }

    /// Rows whose segments are memory-mapped files in `directory` (mapped.rs) instead of heap
    /// memory: the operating system pages them in and out.
    pub fn mapped(row_length: usize, directory: PathBuf) -> Rows<T> {
        let mut rows = Rows::new(row_length);
        rows.mapped_directory = Some(directory);
        rows
    }

    pub fn is_mapped(&self) -> bool {
        self.mapped_directory.is_some()
    }

    /// Where file-backed segments are mapped (None for heap rows): quantized codes of an
    /// `on_disk` index map theirs beside the arena's (docs/architecture.md §15).
    pub fn mapped_directory(&self) -> Option<&std::path::Path> {
        self.mapped_directory.as_deref()
    }

    pub fn row_length(&self) -> usize {
        self.row_length
    }

    /// Whether heap segment `segment` is an anonymous mapping rather than an allocation.
    fn is_lazy(&self, segment: usize) -> bool {
        cfg!(target_os = "linux") && self.mapped_directory.is_none() && self.layout(segment).size() >= LAZY_SEGMENT_BYTES
    }

    /// Whether lazy segment `segment` is mapped for huge pages.
    fn is_huge(&self, segment: usize) -> bool {
        self.huge_pages && self.is_lazy(segment) && self.layout(segment).size() >= HUGE_SEGMENT_BYTES
    }

    fn layout(&self, segment: usize) -> Layout {
        let elements = (BASE_ROWS << segment) * self.row_length;
        Layout::from_size_align(elements * std::mem::size_of::<T>().max(1), ALIGN).expect("segment layout")
    }

    /// Makes sure row `row` exists (allocating its segment if needed).
    pub fn ensure(&self, row: usize) {
        if let Err(error) = self.try_ensure(row) {
            panic!("{}", error.message);
        }
    }

    /// `ensure` that reports a failure to map a file-backed segment (disk full, no directory)
    /// instead of panicking; heap segments still abort on allocation failure as `alloc` does.
    pub fn try_ensure(&self, row: usize) -> crate::error::KernelResult<()> {
        // A plain load first: most calls are for rows below the mark, and a read-modify-write
        // on every ensure would bounce the line between builder threads for nothing.
        if row >= self.touched_rows.load(Ordering::Relaxed) {
            self.touched_rows.fetch_max(row + 1, Ordering::Relaxed);
        }
        let (segment, _) = locate(row);
        if !self.segments[segment].load(Ordering::Acquire).is_null() {
            return Ok(());
        }
        let _guard = self.growth.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !self.segments[segment].load(Ordering::Acquire).is_null() {
            return Ok(());
        }
        let layout = self.layout(segment);
        let pointer = match &self.mapped_directory {
            // A fresh file reads as zeroes, a valid T by the Zeroable contract; mmap aligns to pages.
            Some(directory) => crate::mapped::map_zeroed(directory, layout.size())? as *mut T,
            None => {
                let pointer = if self.is_lazy(segment) {
                    // Page aligned, so ALIGN holds; zero pages are a valid T by the Zeroable contract.
                    crate::mapped::map_anonymous(layout.size(), self.is_huge(segment)).unwrap_or(std::ptr::null_mut()) as *mut T
                } else {
                    // SAFETY: non-zero size layout; zeroed memory is a valid T by the Zeroable contract.
                    unsafe { alloc_zeroed(layout) as *mut T }
                };
                if pointer.is_null() {
                    // As the allocator does when memory runs out.
                    std::alloc::handle_alloc_error(layout);
                }
                pointer
            }
        };
        self.segments[segment].store(pointer, Ordering::Release);
        Ok(())
    }

    /// The first row after the segment holding `row`.
    pub fn segment_end(&self, row: usize) -> usize {
        let (segment, offset) = locate(row);
        row - offset + (BASE_ROWS << segment)
    }

    /// Whether row `row` has storage (was ensured).
    #[inline(always)]
    pub fn exists(&self, row: usize) -> bool {
        !self.segments[locate(row).0].load(Ordering::Acquire).is_null()
    }

    #[inline(always)]
    fn pointer(&self, row: usize) -> *mut T {
        let (segment, offset) = locate(row);
        let base = self.segments[segment].load(Ordering::Acquire);
        assert!(!base.is_null(), "row {row} was never allocated");
        // SAFETY: offset < BASE_ROWS << segment, so the row lies inside the segment.
        unsafe { base.add(offset * self.row_length) }
    }

    /// The row, or None if its segment was never allocated.
    #[inline(always)]
    pub fn get(&self, row: usize) -> Option<&[T]> {
        let (segment, offset) = locate(row);
        let base = self.segments[segment].load(Ordering::Acquire);
        if base.is_null() {
            return None;
        }
        // SAFETY: as in `pointer`.
        Some(unsafe { std::slice::from_raw_parts(base.add(offset * self.row_length), self.row_length) })
    }

    /// The row; panics if it was never ensured (a kernel bug).
    #[inline(always)]
    pub fn row(&self, row: usize) -> &[T] {
        // SAFETY: the pointer addresses row_length valid Ts inside an allocated segment.
        unsafe { std::slice::from_raw_parts(self.pointer(row), self.row_length) }
    }

    /// Mutable access to a row while others may hold shared references to other rows.
    ///
    /// # Safety
    /// The caller guarantees no one else reads or writes this row for the borrow's lifetime
    /// (the arena writes a row once, before publishing its index).
    // The lint is right in general; here the arena's write-once protocol (see Safety) is what
    // makes handing out `&mut` from `&self` sound, and the function is `unsafe` to say so.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn row_mut(&self, row: usize) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.pointer(row), self.row_length)
    }

    /// Bytes of heap memory in use (0 for mapped rows: see `mapped_bytes`): whole allocated
    /// segments, and of a lazily mapped one the pages (huge pages where asked) up to the highest
    /// row ensured.
    pub fn allocated_bytes(&self) -> usize {
        if self.is_mapped() {
            return 0;
        }
        let touched = self.touched_rows.load(Ordering::Relaxed);
        let row_bytes = self.row_length * std::mem::size_of::<T>().max(1);
        (0..SEGMENTS)
            .filter(|segment| !self.segments[*segment].load(Ordering::Acquire).is_null())
            .map(|segment| {
                let size = self.layout(segment).size();
                if !self.is_lazy(segment) {
                    return size;
                }
                let first = BASE_ROWS * ((1usize << segment) - 1);
                let page = if self.is_huge(segment) { crate::mapped::HUGE_PAGE_BYTES } else { PAGE_BYTES };
                (touched.saturating_sub(first) * row_bytes).next_multiple_of(page).min(size)
            })
            .sum()
    }

    /// Bytes of file-backed segments mapped (0 for heap rows); not all of it is in RAM.
    pub fn mapped_bytes(&self) -> usize {
        if self.is_mapped() {
            self.segment_bytes()
        } else {
            0
        }
    }

    /// How much of the mapped segments is in RAM now (one `mincore` per segment: O(pages),
    /// so asked for by monitoring and `GET C`, not by searches).
    pub fn mapped_resident_bytes(&self) -> usize {
        if !self.is_mapped() {
            return 0;
        }
        (0..SEGMENTS)
            .filter_map(|segment| {
                let pointer = self.segments[segment].load(Ordering::Acquire);
                (!pointer.is_null()).then(|| crate::mapped::resident_bytes(pointer as *mut u8, self.layout(segment).size()))
            })
            .sum()
    }

    fn segment_bytes(&self) -> usize {
        (0..SEGMENTS)
            .filter(|segment| !self.segments[*segment].load(Ordering::Acquire).is_null())
            .map(|segment| self.layout(segment).size())
            .sum()
    }
}

impl<T: Zeroable> Drop for Rows<T> {
    fn drop(&mut self) {
        for segment in 0..SEGMENTS {
            let pointer = *self.segments[segment].get_mut();
            if pointer.is_null() {
                continue;
            }
            if self.mapped_directory.is_some() || self.is_lazy(segment) {
                // SAFETY: mapped in `try_ensure` with exactly this size; nobody holds a row now.
                unsafe { crate::mapped::unmap(pointer as *mut u8, self.layout(segment).size()) };
            } else {
                // SAFETY: allocated in `ensure` with exactly this layout. Zeroable types used
                // here have no destructors that need running.
                unsafe { dealloc(pointer as *mut u8, self.layout(segment)) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn locate_covers_rows_without_gaps_or_overlaps() {
        let mut expected = (0usize, 0usize);
        for row in 0..BASE_ROWS * 20 {
            assert_eq!(locate(row), expected, "row {row}");
            expected.1 += 1;
            if expected.1 == BASE_ROWS << expected.0 {
                expected = (expected.0 + 1, 0);
            }
        }
        assert!(locate(u32::MAX as usize).0 < SEGMENTS);
    }

    #[test]
    fn memory_of_a_large_segment_is_counted_up_to_the_highest_row_ensured() {
        // 512-byte rows: every segment is 512 KiB or more, so each is mapped lazily.
        let rows: Rows<f32> = Rows::new(128);
        let row_bytes: usize = 128 * 4;
        rows.ensure(10);
        assert_eq!(rows.allocated_bytes(), (11 * row_bytes).next_multiple_of(PAGE_BYTES));
        rows.ensure(BASE_ROWS + 100);
        assert_eq!(rows.allocated_bytes(), BASE_ROWS * row_bytes + (101 * row_bytes).next_multiple_of(PAGE_BYTES));
        // Written rows read back; the untouched rest of a segment reads as zeroes.
        unsafe { rows.row_mut(BASE_ROWS + 100)[5] = 2.5 };
        assert_eq!(rows.row(BASE_ROWS + 100)[5], 2.5);
        assert!(rows.row(BASE_ROWS + 2000).iter().all(|value| *value == 0.0));
        // Never more than the segments' whole size.
        rows.ensure(3 * BASE_ROWS - 1);
        assert_eq!(rows.allocated_bytes(), rows.segment_bytes());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_segment_of_huge_pages_starts_on_their_boundary_and_counts_its_memory_by_them() {
        // 4 KiB rows: segment 0 is 4 MiB, large enough to ask for huge pages.
        let rows: Rows<f32> = Rows::new(1024);
        let row_bytes: usize = 1024 * 4;
        rows.ensure(10);
        assert_eq!(rows.row(0).as_ptr() as usize % crate::mapped::HUGE_PAGE_BYTES, 0);
        assert_eq!(rows.allocated_bytes(), crate::mapped::HUGE_PAGE_BYTES);
        rows.ensure(600);
        assert_eq!(rows.allocated_bytes(), (601 * row_bytes).next_multiple_of(crate::mapped::HUGE_PAGE_BYTES));
        unsafe { rows.row_mut(BASE_ROWS - 1)[1023] = 4.5 };
        assert_eq!(rows.row(BASE_ROWS - 1)[1023], 4.5);
        assert!(rows.row(700).iter().all(|value| *value == 0.0));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn rows_made_with_huge_pages_off_count_small_pages() {
        let mut rows: Rows<f32> = Rows::new(1024);
        rows.huge_pages = false;
        rows.ensure(10);
        assert_eq!(rows.allocated_bytes(), (11 * 1024 * 4usize).next_multiple_of(PAGE_BYTES));
    }

    #[test]
    fn small_segments_come_from_the_allocator_and_count_whole() {
        // 4-byte rows: segment 0 is 4 KiB, below the lazy size.
        let rows: Rows<u32> = Rows::new(1);
        rows.ensure(0);
        assert_eq!(rows.allocated_bytes(), BASE_ROWS * 4);
    }

    #[test]
    fn rows_keep_their_address_while_the_store_grows() {
        let rows: Rows<AtomicU32> = Rows::new(3);
        rows.ensure(0);
        let first = rows.row(0).as_ptr();
        rows.row(0)[2].store(7, Ordering::Relaxed);
        for row in [1023, 1024, 5000, 100_000] {
            rows.ensure(row);
            rows.row(row)[0].store(row as u32, Ordering::Relaxed);
        }
        assert_eq!(rows.row(0).as_ptr(), first);
        assert_eq!(rows.row(0)[2].load(Ordering::Relaxed), 7);
        assert_eq!(rows.row(100_000)[0].load(Ordering::Relaxed), 100_000);
        assert!(rows.get(1 << 30).is_none());
    }
}
