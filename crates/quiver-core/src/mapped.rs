//! File-backed memory for `on_disk` vectors (docs/architecture.md §15): one anonymous-looking
//! region per arena segment whose pages belong to a file, so the operating system may write them
//! back and drop them from RAM under pressure instead of the process holding them.
//!
//! The file is a working copy, never read at start-up: it is created with a unique name,
//! reserved on disk (`posix_fallocate`, so a full disk is an error here rather than a SIGBUS on
//! a later page write), mapped shared, then unlinked at once. The mapping keeps the inode alive;
//! when the process ends, cleanly or killed, the kernel frees it, so no half-written vector file
//! can ever be found by the next run. The durable copies of the vectors are the store's vector
//! records and the checksummed checkpoint (docs/architecture.md §5), from which a loaded index
//! refills its mapped arena.
//!
//! `map_anonymous` is the same system call without a file: large heap segments of `Rows` whose
//! pages are only given memory when written (docs/architecture.md §24). Asked for huge pages, it
//! maps on a 2 MiB boundary and marks the region for transparent huge pages (`MADV_HUGEPAGE`).

use crate::error::{ErrorCode, KernelError, KernelResult};
use std::path::Path;

#[cfg(target_os = "linux")]
mod imp {
    use super::*;
    use std::fs::OpenOptions;
    use std::os::unix::io::AsRawFd;
    use std::sync::atomic::{AtomicU64, Ordering};

    static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

    /// Maps `bytes` zeroed bytes backed by a fresh, already unlinked file in `directory`.
    pub fn map_zeroed(directory: &Path, bytes: usize) -> KernelResult<*mut u8> {
        std::fs::create_dir_all(directory).map_err(|error| {
            KernelError::new(ErrorCode::Io, format!("cannot create the on-disk vector directory {}: {error}", directory.display()))
        })?;
        let number = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        // The checkpoint temporaries' pattern (`.<name>.tmp-<pid>`): if the process dies in the
        // instant between create and unlink, start-up removes it (src/storage/leftover-files.ts).
        let path = directory.join(format!(".vector-arena-{number}.tmp-{}", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|error| KernelError::new(ErrorCode::Io, format!("cannot create {}: {error}", path.display())))?;
        // Unlink first: whatever happens next, the file disappears with its last user.
        let _ = std::fs::remove_file(&path);
        // SAFETY: plain syscalls on a file descriptor we own; the results are checked.
        unsafe {
            let reserved = libc::posix_fallocate(file.as_raw_fd(), 0, bytes as libc::off_t);
            if reserved != 0 {
                return Err(KernelError::new(
                    ErrorCode::Io,
                    format!(
                        "cannot reserve {bytes} bytes for on-disk vectors in {}: {}",
                        directory.display(),
                        std::io::Error::from_raw_os_error(reserved)
                    ),
                ));
            }
            let pointer =
                libc::mmap(std::ptr::null_mut(), bytes, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0);
            if pointer == libc::MAP_FAILED {
                return Err(KernelError::new(ErrorCode::Io, format!("cannot map on-disk vectors: {}", std::io::Error::last_os_error())));
            }
            // Rows are read one at a time in no order (rescoring, the graph walk): once evicted,
            // a row's fault should read its own pages, not the default read-around of ~128 KiB.
            libc::madvise(pointer, bytes, libc::MADV_RANDOM);
            Ok(pointer as *mut u8)
        }
    }

    /// `bytes` of anonymous zeroed memory (None if the system refuses): the kernel hands out a
    /// page only when it is first written, so an untouched tail costs address space, not RAM.
    /// With `huge_pages` the region starts on a `HUGE_PAGE_BYTES` boundary and is marked for
    /// transparent huge pages: a graph walk reads rows scattered over the whole region, and with
    /// 4 KiB pages nearly every read also missed the TLB (bench/README.md, "Huge pages").
    /// Where huge pages are off (`/sys/kernel/mm/transparent_hugepage/enabled` = never) the
    /// mark does nothing and the region behaves as without it.
    pub fn map_anonymous(bytes: usize, huge_pages: bool) -> Option<*mut u8> {
        let map = |length: usize| {
            // SAFETY: an anonymous private mapping with no file; the result is checked.
            let pointer = unsafe {
                libc::mmap(std::ptr::null_mut(), length, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
            };
            (pointer != libc::MAP_FAILED).then_some(pointer as *mut u8)
        };
        if !huge_pages {
            return map(bytes);
        }
        // One huge page more than asked, then the parts before the boundary and after the
        // region are given back: what is left is exactly what `unmap(pointer, bytes)` frees.
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as usize;
        let padded = map(bytes + HUGE_PAGE_BYTES)?;
        let start = (padded as usize).next_multiple_of(HUGE_PAGE_BYTES);
        let end = (start + bytes).next_multiple_of(page);
        let padded_end = padded as usize + (bytes + HUGE_PAGE_BYTES).next_multiple_of(page);
        // SAFETY: both ranges lie inside the mapping just made, on page boundaries (mmap returns
        // a page-aligned address and HUGE_PAGE_BYTES is a multiple of the page size).
        unsafe {
            if start > padded as usize {
                libc::munmap(padded as *mut libc::c_void, start - padded as usize);
            }
            if padded_end > end {
                libc::munmap(end as *mut libc::c_void, padded_end - end);
            }
            libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
        }
        Some(start as *mut u8)
    }

    /// # Safety
    /// `pointer` and `bytes` come from one `map_zeroed`, `map_anonymous` or `map_read_only`
    /// call and nothing uses the region after.
    pub unsafe fn unmap(pointer: *mut u8, bytes: usize) {
        libc::munmap(pointer as *mut libc::c_void, bytes);
    }

    /// Maps the first `bytes` (> 0) of `file` read-only and private, read ahead sequentially:
    /// a checkpoint is parsed from the page cache instead of a heap copy of the whole file.
    pub fn map_read_only(file: &std::fs::File, bytes: usize) -> KernelResult<*mut u8> {
        // SAFETY: plain syscalls on a file descriptor the caller keeps open; results checked.
        unsafe {
            let pointer = libc::mmap(std::ptr::null_mut(), bytes, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0);
            if pointer == libc::MAP_FAILED {
                return Err(KernelError::new(ErrorCode::Io, format!("cannot map a checkpoint: {}", std::io::Error::last_os_error())));
            }
            libc::madvise(pointer, bytes, libc::MADV_SEQUENTIAL);
            Ok(pointer as *mut u8)
        }
    }

    /// Takes the pages of `bytes` at `pointer` (page aligned) out of this process's memory map
    /// without changing what they read: for a private mapping nobody wrote, the next read faults
    /// the same file bytes back in from the page cache.
    ///
    /// # Safety
    /// The range lies inside one `map_read_only` region that nothing has written.
    pub unsafe fn release_read_only(pointer: *mut u8, bytes: usize) {
        libc::madvise(pointer as *mut libc::c_void, bytes, libc::MADV_DONTNEED);
    }

    /// Tells the system that `bytes` at `pointer` (page aligned) will be read at random.
    ///
    /// # Safety
    /// The range lies inside one mapping of this module's.
    pub unsafe fn advise_random(pointer: *mut u8, bytes: usize) {
        libc::madvise(pointer as *mut libc::c_void, bytes, libc::MADV_RANDOM);
    }

    /// How many bytes of the region are in RAM now (`mincore`), for the honest RSS figure.
    pub fn resident_bytes(pointer: *mut u8, bytes: usize) -> usize {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as usize;
        let pages = bytes.div_ceil(page);
        let mut flags = vec![0u8; pages];
        // SAFETY: the region is mapped (page aligned) and `flags` holds one byte per page.
        let status = unsafe { libc::mincore(pointer as *mut libc::c_void, bytes, flags.as_mut_ptr()) };
        if status != 0 {
            return 0;
        }
        flags.iter().filter(|flag| **flag & 1 != 0).count() * page
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::*;

    pub fn map_zeroed(_directory: &Path, _bytes: usize) -> KernelResult<*mut u8> {
        Err(KernelError::invalid("on_disk vectors need Linux (memory-mapped files); this build keeps vectors in RAM only".to_string()))
    }

    /// None here: heap rows then come from the allocator (rows.rs).
    pub fn map_anonymous(_bytes: usize, _huge_pages: bool) -> Option<*mut u8> {
        None
    }

    /// # Safety
    /// Never called: `map_zeroed` and `map_anonymous` never succeed here.
    pub unsafe fn unmap(_pointer: *mut u8, _bytes: usize) {}

    /// # Safety
    /// As on Linux; nothing is mapped here, so there is nothing to release.
    pub unsafe fn release_read_only(_pointer: *mut u8, _bytes: usize) {}

    /// # Safety
    /// As on Linux; nothing is mapped here, so there is nothing to advise.
    pub unsafe fn advise_random(_pointer: *mut u8, _bytes: usize) {}

    pub fn map_read_only(_file: &std::fs::File, _bytes: usize) -> KernelResult<*mut u8> {
        Err(KernelError::invalid("read-only mapping needs Linux".to_string()))
    }

    pub fn resident_bytes(_pointer: *mut u8, _bytes: usize) -> usize {
        0
    }
}

pub use imp::{advise_random, map_anonymous, map_read_only, map_zeroed, release_read_only, resident_bytes, unmap};

/// The size of a transparent huge page on x86-64 and (with 4 KiB base pages) ARM64.
pub const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Whether large row segments ask for huge pages (`storage.huge_pages`, docs/architecture.md
/// §24): set once at start, before any index exists; each `Rows` reads it when created.
static HUGE_PAGES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

pub fn set_huge_pages(enabled: bool) {
    HUGE_PAGES.store(enabled, std::sync::atomic::Ordering::Relaxed);
}

pub fn huge_pages() -> bool {
    HUGE_PAGES.load(std::sync::atomic::Ordering::Relaxed)
}

/// A whole file's bytes, mapped read-only where the system allows it, else read into the heap;
/// unmapped when dropped. The dense checkpoint loader reads through it (checkpoint.rs), so a
/// large checkpoint does not double the process's anonymous memory while it loads, and gives
/// back the pages it has read (`release`), so the file's pages do not stay in the
/// process's resident set beside the rows copied out of them (docs/architecture.md §15).
pub struct FileBytes {
    pointer: *mut u8,
    /// Bytes visible through `Deref` (shortened by `truncate`).
    length: usize,
    /// Bytes mapped, unmapped whole on drop.
    mapped_length: usize,
    owned: Vec<u8>,
}

// SAFETY: the mapping is read-only and private to this value; nothing writes through it, and
// `release` only asks the system to drop pages, which read the same bytes again afterwards.
unsafe impl Send for FileBytes {}
unsafe impl Sync for FileBytes {}

impl FileBytes {
    pub fn open(file: &std::fs::File, length: usize) -> std::io::Result<FileBytes> {
        if length > 0 {
            if let Ok(pointer) = map_read_only(file, length) {
                return Ok(FileBytes { pointer, length, mapped_length: length, owned: Vec::new() });
            }
        }
        let mut owned = Vec::with_capacity(length);
        std::io::Read::read_to_end(&mut &*file, &mut owned)?;
        Ok(FileBytes::owned(owned))
    }

    /// Bytes held on the heap instead of mapped (no pages to give back).
    fn owned(owned: Vec<u8>) -> FileBytes {
        FileBytes { pointer: std::ptr::null_mut(), length: owned.len(), mapped_length: 0, owned }
    }

    /// A heap copy of these bytes, as `open` makes where a file cannot be mapped: tests load
    /// through it the paths such systems take (index/persist.rs, the row-by-row copy).
    #[cfg(test)]
    pub fn copied(&self) -> FileBytes {
        FileBytes::owned(self.to_vec())
    }

    /// Gives back the mapped pages of `range` once the caller has read everything before its
    /// end: they stay readable (a later read faults them in again from the page cache) but
    /// leave the process's resident set. Without it a restart held the whole checkpoint
    /// resident next to the arena it was filling (bench/README.md, "Load peak"). Both ends of
    /// the range are rounded down to whole release pages (everything before the end was read);
    /// returns where the next range should start. A heap copy (no mapping) has nothing to give
    /// back.
    pub fn release(&self, range: std::ops::Range<usize>) -> usize {
        let start = range.start / RELEASE_PAGE_BYTES * RELEASE_PAGE_BYTES;
        let end = range.end.min(self.mapped_length) / RELEASE_PAGE_BYTES * RELEASE_PAGE_BYTES;
        if self.pointer.is_null() || end <= start {
            return start.max(end);
        }
        // SAFETY: [start, end) is page aligned (the mapping starts on a page) and inside the
        // read-only private mapping made in `open`, which nothing writes.
        unsafe { release_read_only(self.pointer.add(start), end - start) };
        end
    }

    /// Whether the bytes are a mapping of the file (not a heap copy).
    pub fn is_mapped(&self) -> bool {
        !self.pointer.is_null()
    }

    /// Asks for `range` to be read a page at a time from now on (`MADV_RANDOM`), as the arena's
    /// own files are: rows adopted by an `on_disk` store are read where searches land, not in
    /// file order (the whole file was mapped for one sequential pass).
    pub fn expect_random_reads(&self, range: std::ops::Range<usize>) {
        let start = range.start / RELEASE_PAGE_BYTES * RELEASE_PAGE_BYTES;
        let end = range.end.min(self.mapped_length);
        if self.pointer.is_null() || end <= start {
            return;
        }
        // SAFETY: [start, end) lies inside the mapping made in `open` and starts on a page.
        unsafe { advise_random(self.pointer.add(start), end - start) };
    }

    /// How much of `range` is in RAM now (`mincore`, from the page holding its start); all of it
    /// for a heap copy.
    pub fn resident_bytes(&self, range: std::ops::Range<usize>) -> usize {
        let end = range.end.min(self.length);
        if range.start >= end {
            return 0;
        }
        if self.pointer.is_null() {
            return end - range.start;
        }
        let start = range.start / RELEASE_PAGE_BYTES * RELEASE_PAGE_BYTES;
        // SAFETY: inside the mapping; `resident_bytes` only asks the system about it.
        resident_bytes(unsafe { self.pointer.add(start) }, end - start)
    }

    /// Keeps only the first `length` bytes visible (drops the stored checksum).
    pub fn truncate(&mut self, length: usize) {
        self.length = self.length.min(length);
        self.owned.truncate(length);
    }
}

/// A multiple of every page size `release` may meet (4 KiB and 64 KiB pages).
const RELEASE_PAGE_BYTES: usize = 64 << 10;

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        if self.pointer.is_null() {
            &self.owned[..self.length.min(self.owned.len())]
        } else {
            // SAFETY: the mapping holds at least `length` readable bytes while self lives.
            unsafe { std::slice::from_raw_parts(self.pointer, self.length) }
        }
    }
}

impl Drop for FileBytes {
    fn drop(&mut self) {
        if !self.pointer.is_null() {
            // SAFETY: mapped in `open` with exactly `mapped_length` bytes; no slice outlives self.
            unsafe { unmap(self.pointer, self.mapped_length) };
        }
    }
}

/// Whether this build can map vector files (Linux); elsewhere `on_disk` indexes are refused.
pub const AVAILABLE: bool = cfg!(target_os = "linux");

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_region_is_zeroed_writable_and_leaves_no_file_behind() {
        let directory = std::env::temp_dir().join(format!("quiver-mapped-test-{}", std::process::id()));
        let bytes = 1 << 20;
        let pointer = map_zeroed(&directory, bytes).unwrap();
        // SAFETY: the region is `bytes` long and ours alone.
        let region = unsafe { std::slice::from_raw_parts_mut(pointer, bytes) };
        assert!(region.iter().all(|byte| *byte == 0));
        region[bytes - 1] = 7;
        assert_eq!(region[bytes - 1], 7);
        assert!(resident_bytes(pointer, bytes) >= 4096);
        assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 0, "the file is unlinked once mapped");
        // SAFETY: from map_zeroed above; `region` is not used after.
        unsafe { unmap(pointer, bytes) };
        std::fs::remove_dir_all(&directory).unwrap();
    }

    /// The `Rss` of the mapping that starts at `address`, from /proc/self/smaps.
    fn mapping_resident_kilobytes(address: usize) -> usize {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut lines = smaps.lines().skip_while(|line| !line.starts_with(&format!("{address:x}-")));
        assert!(lines.next().is_some(), "no mapping starts at {address:x}");
        let rss = lines.find(|line| line.starts_with("Rss:")).unwrap();
        rss.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[test]
    fn released_file_pages_leave_the_resident_set_and_still_read_the_same_bytes() {
        let path = std::env::temp_dir().join(format!("quiver-file-bytes-test-{}", std::process::id()));
        let length = (8 << 20) + 12_345;
        let contents: Vec<u8> = (0..length).map(|index| (index * 31 % 251) as u8).collect();
        std::fs::write(&path, &contents).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let bytes = FileBytes::open(&file, length).unwrap();
        let address = bytes.as_ptr() as usize;
        assert_eq!(&bytes[..], &contents[..]);
        assert!(mapping_resident_kilobytes(address) >= 8 << 10, "every page was read");
        // The first half, then the rest: only whole release pages go.
        let next = bytes.release(0..(4 << 20) + 100);
        assert_eq!(next, 4 << 20);
        let half = mapping_resident_kilobytes(address);
        assert!(half <= (4 << 10) + 64, "{half} KiB resident after releasing the first 4 MiB");
        bytes.release(next..usize::MAX);
        assert!(mapping_resident_kilobytes(address) <= 64, "the last partial page may stay");
        assert_eq!(&bytes[..], &contents[..], "released pages read the file again");
        // Read again, they can be released again.
        assert!(mapping_resident_kilobytes(address) >= 8 << 10);
        bytes.release(0..length);
        assert!(mapping_resident_kilobytes(address) <= 64);
        drop(bytes);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_region_asked_for_huge_pages_starts_on_a_huge_page_boundary_and_is_all_usable() {
        // An odd length: the region's end is not on a page boundary.
        for bytes in [HUGE_PAGE_BYTES, 3 * HUGE_PAGE_BYTES + 12_345] {
            let pointer = map_anonymous(bytes, true).unwrap();
            assert_eq!(pointer as usize % HUGE_PAGE_BYTES, 0);
            // SAFETY: the region is `bytes` long and ours alone.
            let region = unsafe { std::slice::from_raw_parts_mut(pointer, bytes) };
            assert!(region.iter().step_by(4096).all(|byte| *byte == 0));
            region[0] = 1;
            region[bytes - 1] = 7;
            assert_eq!((region[0], region[bytes - 1]), (1, 7));
            // SAFETY: from map_anonymous above with these bytes; `region` is not used after.
            unsafe { unmap(pointer, bytes) };
        }
    }
}
