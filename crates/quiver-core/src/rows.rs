//! Segmented storage of fixed-length rows that grows without ever moving a row.
//!
//! Segment `k` holds `BASE_ROWS << k` rows and is allocated once, zeroed, 64-byte aligned, the
//! first time a row in it is needed; 32 segments cover every u32 index. Readers find a row with
//! two loads (segment pointer, then the row) and never wait for growth: a growing writer only
//! publishes a new segment pointer, nothing is copied. This is how the arena and the link
//! lists grow while searches run.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

const BASE_ROWS: usize = 1024;
const SEGMENTS: usize = 32;
const ALIGN: usize = 64;

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
    /// Where segments are file-backed (`on_disk` vectors: mapped.rs); None = heap memory.
    mapped_directory: Option<PathBuf>,
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
            mapped_directory: None,
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
                // SAFETY: non-zero size layout; zeroed memory is a valid T by the Zeroable contract.
                let pointer = unsafe { alloc_zeroed(layout) } as *mut T;
                if pointer.is_null() {
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

    /// Bytes currently allocated on the heap (0 for mapped rows: see `mapped_bytes`).
    pub fn allocated_bytes(&self) -> usize {
        if self.is_mapped() {
            return 0;
        }
        self.segment_bytes()
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
            if self.mapped_directory.is_some() {
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
