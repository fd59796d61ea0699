//! The vector store: slot -> row table over an append-only arena of rows.
//!
//! A row is written once, then published by storing its number in the slot table (Release);
//! a reader that sees the number (Acquire) sees the whole vector. Re-upserting a slot writes a
//! new row and republishes, so no reader ever sees a half-written vector and no lock is needed
//! to read. Replaced rows are garbage until compaction rebuilds the store.
//! Deleted slots keep their row (the graph still walks through them) with a tombstone bit.
//!
//! A store loaded from a version 5 checkpoint reads its loaded rows where they are, in the
//! checkpoint file's row block (`AdoptedRows`), instead of copying them before it answers: rows
//! `adopted_first..adopted_end` are the file's. An `on_disk` store keeps them there for good,
//! and its arena (its own mapped files) numbers later rows from 0. A heap store numbers its
//! arena like its rows and copies the file's rows into the arena's first rows in the background
//! (`copy_next_adopted_rows`, index/heap_copy.rs), a step at a time, moving `adopted_first` past
//! each step: from then on those rows are read from the arena.

use crate::distance::row::f16_from_f32;
use crate::distance::{Datatype, Row, Space};
use crate::rows::Rows;
use std::borrow::Cow;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

const DELETED: u32 = 1 << 31;
const ROW_MASK: u32 = DELETED - 1;
/// Rows are stored +1 so that zero (fresh memory) means "no vector".
const MAX_ROWS: u32 = ROW_MASK - 1;
/// How much of a row `prefetch` asks for: all of a 128-d float32 row (8 lines, 15-20% faster
/// walks than the first line alone); longer rows get their first 1 KiB, since hinting all 48
/// lines of a 768-d row was slower (bench/README.md, "The search loop, on a quiet machine").
const PREFETCH_BYTES: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotState {
    Empty,
    Live,
    Deleted,
}

/// The rows of one element type (`datatype`, docs/architecture.md §18): a float16 or uint8
/// store really holds 2 or 1 bytes per component, on the heap or in the mapped files alike.
enum Arena {
    Float32(Rows<f32>),
    Float16(Rows<u16>),
    Uint8(Rows<u8>),
}

/// Runs `$body` with `$rows` bound to the arena's rows, whatever their element type.
macro_rules! with_rows {
    ($arena:expr, $rows:ident => $body:expr) => {
        match $arena {
            Arena::Float32($rows) => $body,
            Arena::Float16($rows) => $body,
            Arena::Uint8($rows) => $body,
        }
    };
}

impl Arena {
    fn new(datatype: Datatype, dimension: usize, directory: Option<std::path::PathBuf>) -> Arena {
        fn rows<T: crate::rows::Zeroable>(dimension: usize, directory: Option<std::path::PathBuf>) -> Rows<T> {
            match directory {
                Some(directory) => Rows::mapped(dimension, directory),
                None => Rows::new(dimension),
            }
        }
        match datatype {
            Datatype::Float32 => Arena::Float32(rows(dimension, directory)),
            Datatype::Float16 => Arena::Float16(rows(dimension, directory)),
            Datatype::Uint8 => Arena::Uint8(rows(dimension, directory)),
        }
    }

    #[inline(always)]
    fn row(&self, row: usize) -> Row<'_> {
        match self {
            Arena::Float32(rows) => Row::F32(rows.row(row)),
            Arena::Float16(rows) => Row::F16(rows.row(row)),
            Arena::Uint8(rows) => Row::U8(rows.row(row)),
        }
    }

    /// Writes a fresh row (see `VectorStore::put` for why this is sound).
    fn write(&self, row: usize, vector: &[f32]) {
        // SAFETY (all arms): row `row` is fresh: no slot points to it yet, so nobody reads it.
        match self {
            Arena::Float32(rows) => unsafe { rows.row_mut(row) }.copy_from_slice(vector),
            Arena::Float16(rows) => {
                for (target, value) in unsafe { rows.row_mut(row) }.iter_mut().zip(vector) {
                    *target = f16_from_f32(*value);
                }
            }
            Arena::Uint8(rows) => {
                // Values were checked to be integers 0..=255 (Datatype::refusal); the cast
                // saturates anyway, so a missed check cannot write garbage.
                for (target, value) in unsafe { rows.row_mut(row) }.iter_mut().zip(vector) {
                    *target = *value as u8;
                }
            }
        }
    }
}

/// A checkpoint's row block read in place: `rows` rows of the store's element type, one per
/// slot, starting `offset` bytes into `bytes` (a read-only mapping of the whole file, kept alive
/// here). Never written: new rows go to the arena.
pub struct AdoptedRows {
    pub bytes: std::sync::Arc<crate::mapped::FileBytes>,
    pub offset: usize,
    pub rows: usize,
}

pub struct VectorStore {
    dimension: usize,
    datatype: Datatype,
    space: Space,
    link_space: Space,
    arena: Arena,
    slots: Rows<AtomicU32>,
    /// Rows handed out; written only by the single writer (the caller holds the write gate).
    next_row: AtomicU32,
    /// One past the highest slot ever written.
    slot_bound: AtomicU32,
    live: AtomicUsize,
    deleted: AtomicUsize,
    /// Rows read from a checkpoint in place (module comment); None for a store that copied.
    adopted: Option<AdoptedRows>,
    /// One past the last row still read from `adopted`: the rows it holds, and 0 without (or
    /// once a heap store has copied them all, so that its lookups skip the `adopted_first`
    /// check). This, `arena_base` and `adopted_start` are kept beside the Option so that every
    /// row lookup reads plain fields instead of going through the Option and the Arc.
    adopted_end: AtomicUsize,
    /// The first adopted row still read from the file: 0, or as far as a heap store has copied.
    adopted_first: AtomicUsize,
    /// The row the arena's row 0 holds: the adopted row count for an `on_disk` store (its
    /// files hold only later rows), 0 otherwise.
    arena_base: usize,
    /// Address of adopted row 0 (0 without): rows are `row_bytes` apart from it.
    adopted_start: usize,
    row_bytes: usize,
}

impl VectorStore {
    pub fn new(dimension: usize, space: Space) -> VectorStore {
        VectorStore::with_arena(dimension, space, Arena::new(Datatype::Float32, dimension, None), Datatype::Float32)
    }

    /// A store whose vectors live in memory-mapped files in `directory` (`on_disk`: mapped.rs);
    /// the slot table stays on the heap.
    pub fn on_disk(dimension: usize, space: Space, directory: std::path::PathBuf) -> VectorStore {
        VectorStore::typed(dimension, space, Datatype::Float32, Some(directory))
    }

    /// A store of `datatype` rows, mapped in `directory` when given (`on_disk`).
    pub fn typed(dimension: usize, space: Space, datatype: Datatype, directory: Option<std::path::PathBuf>) -> VectorStore {
        VectorStore::with_arena(dimension, space, Arena::new(datatype, dimension, directory), datatype)
    }

    fn with_arena(dimension: usize, space: Space, arena: Arena, datatype: Datatype) -> VectorStore {
        VectorStore {
            dimension,
            datatype,
            space,
            link_space: space.link_space(),
            arena,
            slots: Rows::new(1),
            next_row: AtomicU32::new(0),
            slot_bound: AtomicU32::new(0),
            live: AtomicUsize::new(0),
            deleted: AtomicUsize::new(0),
            adopted: None,
            adopted_end: AtomicUsize::new(0),
            adopted_first: AtomicUsize::new(0),
            arena_base: 0,
            adopted_start: 0,
            row_bytes: dimension * datatype.bytes_per_component(),
        }
    }

    /// This empty store with `adopted`'s rows as rows `0..adopted.rows`, and slot `s` holding
    /// row `s` where `states[s]` is 1 (live) or 2 (deleted); 0 is an empty slot, whose row is
    /// never read. The next row written is row `adopted.rows`: the first of an `on_disk`
    /// store's files, the row after the ones a heap store will copy (module comment).
    pub fn adopting(mut self, adopted: AdoptedRows, states: &[u8]) -> crate::error::KernelResult<VectorStore> {
        let length = adopted.rows.checked_mul(self.row_bytes).and_then(|length| length.checked_add(adopted.offset));
        if length.is_none_or(|end| end > adopted.bytes.len()) || states.len() != adopted.rows || adopted.rows > MAX_ROWS as usize {
            return Err(crate::error::KernelError::corrupt(format!("a row block of {} rows does not fit its file", adopted.rows)));
        }
        let start = adopted.bytes.as_ptr() as usize + adopted.offset;
        if !start.is_multiple_of(std::mem::align_of::<f32>()) || self.next_row.load(Ordering::Acquire) != 0 {
            return Err(crate::error::KernelError::invalid("rows can be adopted only aligned, into an empty store".to_string()));
        }
        let adopted_rows = adopted.rows;
        self.adopted_end = AtomicUsize::new(adopted_rows);
        self.arena_base = if self.is_on_disk() { adopted.rows } else { 0 };
        self.adopted_start = start;
        self.adopted = Some(adopted);
        let (mut live, mut deleted) = (0, 0);
        for (slot, state) in states.iter().enumerate() {
            let tombstone = match state {
                0 => continue,
                1 => 0,
                2 => DELETED,
                other => return Err(crate::error::KernelError::corrupt(format!("slot {slot} has unknown state {other}"))),
            };
            self.slots.ensure(slot);
            self.slots.row(slot)[0].store((slot as u32 + 1) | tombstone, Ordering::Relaxed);
            if tombstone == 0 {
                live += 1;
            } else {
                deleted += 1;
            }
            self.slot_bound.store(slot as u32 + 1, Ordering::Relaxed);
        }
        self.live.store(live, Ordering::Release);
        self.deleted.store(deleted, Ordering::Release);
        self.next_row.store(adopted_rows as u32, Ordering::Release);
        Ok(self)
    }

    /// Rows still read from the checkpoint file: until a heap store has copied them, and for
    /// good in an `on_disk` one.
    pub fn adopted_rows(&self) -> usize {
        self.adopted_end.load(Ordering::Acquire).saturating_sub(self.adopted_first.load(Ordering::Acquire))
    }

    /// Whether this store's adopted rows are to be copied into its arena (a heap store that
    /// adopted rows and has not copied them all yet).
    pub fn copies_adopted_rows(&self) -> bool {
        self.arena_base == 0 && self.adopted_rows() > 0
    }

    /// Copies the next `count` adopted rows still read from the file into the same rows of the
    /// arena, element for element; then lookups of them go to the arena, and the file's pages
    /// for them are given back. Returns how many rows are left. Call from one thread at a time
    /// (heap_copy.rs); searches and writers go on meanwhile: lookups of a row go to the file until
    /// it is copied, and writers take rows from `next_row`, which starts above the file's rows,
    /// so nobody else reads or writes an arena row while it is copied.
    pub fn copy_next_adopted_rows(&self, count: usize) -> usize {
        let Some(adopted) = self.adopted.as_ref().filter(|_| self.copies_adopted_rows()) else { return 0 };
        let first = self.adopted_first.load(Ordering::Acquire);
        let end = (first + count).min(adopted.rows);
        for row in first..end {
            with_rows!(&self.arena, arena => arena.ensure(row));
            // SAFETY: row >= adopted_first, so no lookup reads the arena's row yet and no writer
            // is handed it (see above); the file's row is in bounds (checked by `adopting`).
            unsafe {
                let from = (self.adopted_start + row * self.row_bytes) as *const u8;
                match &self.arena {
                    Arena::Float32(arena) => arena.row_mut(row).copy_from_slice(std::slice::from_raw_parts(from.cast(), self.dimension)),
                    Arena::Float16(arena) => arena.row_mut(row).copy_from_slice(std::slice::from_raw_parts(from.cast(), self.dimension)),
                    Arena::Uint8(arena) => arena.row_mut(row).copy_from_slice(std::slice::from_raw_parts(from, self.dimension)),
                }
            }
        }
        // Release: a lookup that sees the new first row (Acquire) sees the rows copied before it.
        self.adopted_first.store(end, Ordering::Release);
        // A search that looked a row up just before still reads the file's bytes (the same ones,
        // faulted in again from the page cache): the mapping stays as long as the store.
        let released_end = if end == adopted.rows { adopted.bytes.len() } else { adopted.offset + end * self.row_bytes };
        adopted.bytes.release(adopted.offset + first * self.row_bytes..released_end);
        if end == adopted.rows {
            // Every row is the arena's: lookups stop at the first comparison again. A lookup
            // that read the old end goes on to `adopted_first` and reads the arena's row, or the
            // file's same bytes (the mapping stays as long as the store).
            self.adopted_end.store(0, Ordering::Release);
        }
        adopted.rows - end
    }

    /// Row `row` of the store: adopted, or the arena's.
    #[inline(always)]
    fn arena_row(&self, row: usize) -> Row<'_> {
        // `adopted_end` first: 0 for a store that adopted nothing or has copied it all.
        if row < self.adopted_end.load(Ordering::Relaxed) && row >= self.adopted_first.load(Ordering::Acquire) {
            let start = self.adopted_start + row * self.row_bytes;
            // SAFETY: `adopting` checked that `adopted.rows` (>= `adopted_end`) rows of
            // `row_bytes` from `adopted_start` lie inside the mapping `adopted` keeps alive as
            // long as the store, aligned for the element type; nothing writes them.
            unsafe {
                match self.datatype {
                    Datatype::Float32 => Row::F32(std::slice::from_raw_parts(start as *const f32, self.dimension)),
                    Datatype::Float16 => Row::F16(std::slice::from_raw_parts(start as *const u16, self.dimension)),
                    Datatype::Uint8 => Row::U8(std::slice::from_raw_parts(start as *const u8, self.dimension)),
                }
            }
        } else {
            self.arena.row(row - self.arena_base)
        }
    }

    pub fn datatype(&self) -> Datatype {
        self.datatype
    }

    pub fn dimension(&self) -> usize {
        self.dimension
    }

    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The space the graph is linked in (see `Space::link_space`).
    pub fn link_space(&self) -> &Space {
        &self.link_space
    }

    /// Asks the CPU to start loading `slot`'s vector (its first `PREFETCH_BYTES`). Issued for a
    /// node's unvisited neighbours before scoring them, so their loads overlap instead of
    /// stalling one after another.
    /// Returns the vector and whether the slot is live, from one slot-table read.
    #[inline(always)]
    pub fn prefetch(&self, slot: u32) -> Option<(Row<'_>, bool)> {
        let entry = self.entry(slot);
        if entry == 0 {
            return None;
        }
        let vector = self.arena_row(((entry & ROW_MASK) - 1) as usize);
        let (start, length) = vector.bytes();
        crate::prefetch::lines(start, length.min(PREFETCH_BYTES));
        Some((vector, entry & DELETED == 0))
    }

    /// Asks the CPU to start loading `slot`'s table entry (a hint), which every lookup of the
    /// slot reads first.
    #[inline(always)]
    pub fn prefetch_entry(&self, slot: u32) {
        if let Some(cell) = self.slots.get(slot as usize) {
            crate::prefetch::lines(cell.as_ptr().cast(), 1);
        }
    }

    /// Distance in `space` from `query` to `slot`'s vector; infinite if it holds none.
    #[inline(always)]
    pub fn distance_in(&self, space: &Space, query: &[f32], slot: u32) -> f32 {
        match self.vector(slot) {
            Some(vector) => space.distance(query, vector),
            None => f32::INFINITY,
        }
    }

    #[inline(always)]
    fn entry(&self, slot: u32) -> u32 {
        match self.slots.get(slot as usize) {
            Some(cell) => cell[0].load(Ordering::Acquire),
            None => 0,
        }
    }

    #[inline(always)]
    pub fn state(&self, slot: u32) -> SlotState {
        let entry = self.entry(slot);
        if entry == 0 {
            SlotState::Empty
        } else if entry & DELETED != 0 {
            SlotState::Deleted
        } else {
            SlotState::Live
        }
    }

    #[inline(always)]
    pub fn is_live(&self, slot: u32) -> bool {
        let entry = self.entry(slot);
        entry != 0 && entry & DELETED == 0
    }

    /// The vector of a live slot (None for empty and deleted ones), from one slot-table read.
    #[inline(always)]
    pub fn live_vector(&self, slot: u32) -> Option<Row<'_>> {
        let entry = self.entry(slot);
        if entry == 0 || entry & DELETED != 0 {
            return None;
        }
        Some(self.arena_row(((entry & ROW_MASK) - 1) as usize))
    }

    /// The vector of a live or deleted slot (deleted ones are still walked through).
    #[inline(always)]
    pub fn vector(&self, slot: u32) -> Option<Row<'_>> {
        let entry = self.entry(slot);
        if entry == 0 {
            return None;
        }
        Some(self.arena_row(((entry & ROW_MASK) - 1) as usize))
    }

    /// The arena row of `slot` and whether it is live, from one slot-table read (quantized
    /// codes are kept per row: quantization/mod.rs).
    #[inline(always)]
    pub fn row_of(&self, slot: u32) -> Option<(u32, bool)> {
        let entry = self.entry(slot);
        if entry == 0 {
            return None;
        }
        Some(((entry & ROW_MASK) - 1, entry & DELETED == 0))
    }

    /// The row the next `put` will write (the caller holds the write gate, so it is stable).
    pub fn next_row(&self) -> u32 {
        self.next_row.load(Ordering::Acquire)
    }

    /// The vector in arena row `row` (< `next_row()`), published or replaced.
    pub fn row_vector(&self, row: u32) -> Row<'_> {
        self.arena_row(row as usize)
    }

    /// A stored row as a float32 vector that compares with other rows the way a prepared query
    /// does: the row itself for float32 (no copy), decoded for float16, decoded and scaled to
    /// unit length for uint8 under Cosine (uint8 rows are stored unscaled). Used where a row
    /// plays the query: graph construction, MMR, quantizer training.
    pub fn comparable<'a>(&self, row: Row<'a>) -> Cow<'a, [f32]> {
        match row {
            Row::F32(values) => Cow::Borrowed(values),
            other => {
                let mut decoded = self.space.decode(other);
                if matches!(other, Row::U8(_)) {
                    self.space.prepare(&mut decoded);
                }
                Cow::Owned(decoded)
            }
        }
    }

    /// `comparable` of the row `put(slot, prepared)` would write, before writing it: the
    /// values rounded to the element type (quantization codes are built from these).
    pub fn comparable_of_prepared<'a>(&self, prepared: &'a [f32]) -> Cow<'a, [f32]> {
        match self.datatype {
            Datatype::Float32 => Cow::Borrowed(prepared),
            Datatype::Float16 => {
                Cow::Owned(prepared.iter().map(|value| crate::distance::row::f32_from_f16(f16_from_f32(*value))).collect())
            }
            Datatype::Uint8 => {
                let mut scaled = prepared.to_vec();
                self.space.prepare(&mut scaled);
                Cow::Owned(scaled)
            }
        }
    }

    /// `comparable` of a live or deleted slot's vector.
    #[inline(always)]
    pub fn comparable_vector(&self, slot: u32) -> Option<Cow<'_, [f32]>> {
        self.vector(slot).map(|row| self.comparable(row))
    }

    /// `comparable` of arena row `row`.
    pub fn comparable_row(&self, row: u32) -> Cow<'_, [f32]> {
        self.comparable(self.row_vector(row))
    }

    /// Distance from `query` to `slot`'s vector; the slot must hold one.
    #[inline(always)]
    pub fn distance_to(&self, query: &[f32], slot: u32) -> f32 {
        match self.vector(slot) {
            Some(vector) => self.space.distance(query, vector),
            None => f32::INFINITY,
        }
    }

    pub fn slot_bound(&self) -> u32 {
        self.slot_bound.load(Ordering::Acquire)
    }

    pub fn live_count(&self) -> usize {
        self.live.load(Ordering::Acquire)
    }

    pub fn deleted_count(&self) -> usize {
        self.deleted.load(Ordering::Acquire)
    }

    /// Rows written that no slot points to any more (replaced vectors).
    pub fn garbage_rows(&self) -> usize {
        (self.next_row.load(Ordering::Acquire) as usize).saturating_sub(self.live_count() + self.deleted_count())
    }

    /// Heap bytes: the arena (unless mapped) and the slot table.
    pub fn memory_bytes(&self) -> usize {
        with_rows!(&self.arena, rows => rows.allocated_bytes()) + self.slots.allocated_bytes()
    }

    /// Bytes of the memory-mapped arena (`on_disk`) and of the adopted rows still read from
    /// their file, 0 when the vectors are on the heap.
    pub fn mapped_bytes(&self) -> usize {
        with_rows!(&self.arena, rows => rows.mapped_bytes()) + self.adopted_rows() * self.row_bytes
    }

    /// The part of the mapped arena and of the adopted rows still read from their file in RAM
    /// now (O(pages): monitoring only).
    pub fn mapped_resident_bytes(&self) -> usize {
        let adopted = self.adopted.as_ref().map_or(0, |adopted| {
            let first = self.adopted_first.load(Ordering::Acquire).min(adopted.rows);
            let rows = self.adopted_rows();
            adopted.bytes.resident_bytes(adopted.offset + first * self.row_bytes..adopted.offset + (first + rows) * self.row_bytes)
        });
        with_rows!(&self.arena, rows => rows.mapped_resident_bytes()) + adopted
    }

    pub fn is_on_disk(&self) -> bool {
        with_rows!(&self.arena, rows => rows.is_mapped())
    }

    /// The directory of the mapped arena's working files, None when the vectors are on the heap.
    pub fn mapped_directory(&self) -> Option<&std::path::Path> {
        with_rows!(&self.arena, rows => rows.mapped_directory())
    }

    /// Makes room for `rows` more rows before a batch writes any, so a failure to map a
    /// file-backed segment (disk full) refuses the whole batch instead of stopping halfway.
    pub fn reserve(&self, rows: usize) -> crate::error::KernelResult<()> {
        let next = self.next_row.load(Ordering::Acquire) as usize;
        if rows == 0 {
            return Ok(());
        }
        let last = next + rows - 1;
        if last >= MAX_ROWS as usize {
            return Err(crate::error::KernelError::invalid("the vector arena is full".to_string()));
        }
        // One step per segment from the next row's to the last row's (at most 32), in the
        // arena's own numbering (an `on_disk` store's adopted rows are not its).
        let (mut row, last) = (next - self.arena_base, last - self.arena_base);
        while row <= last {
            with_rows!(&self.arena, rows => rows.try_ensure(row))?;
            row = with_rows!(&self.arena, rows => rows.segment_end(row));
        }
        Ok(())
    }

    /// Writes `vector` (already prepared for the metric) as the slot's vector.
    /// Only one writer at a time: the index serialises calls through its write gate.
    pub fn put(&self, slot: u32, vector: &[f32]) -> SlotState {
        debug_assert_eq!(vector.len(), self.dimension);
        let row = self.fresh_row();
        self.arena.write(row as usize - self.arena_base, vector);
        self.publish(slot, row)
    }

    /// `put` of a vector that `fill` writes straight into its float32 row, which becomes the
    /// slot's only when `fill` succeeds (a checkpoint load decodes each row in place instead of
    /// through a second copy: index/persist.rs). Other datatypes fill a scratch vector first.
    pub fn put_filled<E>(&self, slot: u32, scratch: &mut [f32], fill: impl FnOnce(&mut [f32]) -> Result<(), E>) -> Result<SlotState, E> {
        let row = self.fresh_row();
        match &self.arena {
            // SAFETY: row `row` is fresh: no slot points to it until `publish`, so nobody reads it.
            Arena::Float32(rows) => fill(unsafe { rows.row_mut(row as usize - self.arena_base) })?,
            _ => {
                fill(scratch)?;
                self.arena.write(row as usize - self.arena_base, scratch);
            }
        }
        Ok(self.publish(slot, row))
    }

    /// The next arena row, made to exist; not handed out until `publish`.
    fn fresh_row(&self) -> u32 {
        let row = self.next_row.load(Ordering::Relaxed);
        assert!(row < MAX_ROWS, "vector arena is full");
        with_rows!(&self.arena, rows => rows.ensure(row as usize - self.arena_base));
        row
    }

    /// Points `slot` at the freshly written `row`.
    fn publish(&self, slot: u32, row: u32) -> SlotState {
        self.next_row.store(row + 1, Ordering::Release);
        self.slots.ensure(slot as usize);
        let previous = self.slots.row(slot as usize)[0].swap(row + 1, Ordering::AcqRel);
        let previous_state = if previous == 0 {
            SlotState::Empty
        } else if previous & DELETED != 0 {
            SlotState::Deleted
        } else {
            SlotState::Live
        };
        match previous_state {
            SlotState::Empty => {
                self.live.fetch_add(1, Ordering::AcqRel);
            }
            SlotState::Deleted => {
                self.deleted.fetch_sub(1, Ordering::AcqRel);
                self.live.fetch_add(1, Ordering::AcqRel);
            }
            SlotState::Live => {}
        }
        self.slot_bound.fetch_max(slot + 1, Ordering::AcqRel);
        previous_state
    }

    /// Tombstones a live slot; returns whether it was live.
    pub fn delete(&self, slot: u32) -> bool {
        let Some(cell) = self.slots.get(slot as usize) else { return false };
        let entry = cell[0].load(Ordering::Acquire);
        if entry == 0 || entry & DELETED != 0 {
            return false;
        }
        cell[0].store(entry | DELETED, Ordering::Release);
        self.live.fetch_sub(1, Ordering::AcqRel);
        self.deleted.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// Prepares a caller's query for this metric (Cosine: unit length).
    pub fn prepare(&self, vector: &mut [f32]) {
        self.space.prepare(vector);
    }

    /// Prepares a caller's vector for storage: as a query, except that uint8 rows keep their
    /// integers (their Cosine kernel divides by the row's norm instead).
    pub fn prepare_row(&self, vector: &mut [f32]) {
        if self.datatype != Datatype::Uint8 {
            self.space.prepare(vector);
        }
    }

    /// Why `value` cannot be stored in this store, if it cannot (`Datatype::refusal`).
    pub fn refusal(&self, value: f32) -> Option<&'static str> {
        self.datatype.refusal(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::Metric;

    #[test]
    fn store_replaces_deletes_and_revives_slots() {
        let store = VectorStore::new(2, Space::new(Metric::Dot));
        assert_eq!(store.put(5, &[1.0, 2.0]), SlotState::Empty);
        assert_eq!(store.put(5, &[3.0, 4.0]), SlotState::Live);
        assert_eq!(store.vector(5).map(|row| row.to_vec()), Some(vec![3.0f32, 4.0]));
        assert_eq!((store.live_count(), store.garbage_rows(), store.slot_bound()), (1, 1, 6));
        assert!(store.delete(5));
        assert!(!store.delete(5));
        assert_eq!(store.state(5), SlotState::Deleted);
        assert_eq!(store.vector(5).map(|row| row.to_vec()), Some(vec![3.0f32, 4.0]));
        assert_eq!(store.put(5, &[5.0, 6.0]), SlotState::Deleted);
        assert_eq!((store.live_count(), store.deleted_count()), (1, 0));
        assert_eq!(store.state(4), SlotState::Empty);
        assert_eq!(store.state(1 << 30), SlotState::Empty);
    }

    #[test]
    fn a_heap_store_copying_adopted_rows_keeps_what_writers_did_meanwhile_and_reads_each_copied_row_from_its_arena() {
        // A row block of 8 rows of 2 values (row r holds [r, -r]) at offset 4096 of a file.
        let path = std::env::temp_dir().join(format!("quiver-store-adopt-{}", std::process::id()));
        let mut bytes = vec![0u8; 4096];
        for row in 0..8 {
            for value in [row as f32, -(row as f32)] {
                bytes.extend_from_slice(&value.to_le_bytes());
            }
        }
        std::fs::write(&path, &bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let mapped = std::sync::Arc::new(crate::mapped::FileBytes::open(&file, bytes.len()).unwrap());
        let states = [1, 1, 2, 1, 0, 1, 1, 1];
        let adopted = AdoptedRows { bytes: mapped, offset: 4096, rows: 8 };
        let store = VectorStore::new(2, Space::new(Metric::Dot)).adopting(adopted, &states).unwrap();
        assert!(store.copies_adopted_rows());
        assert_eq!((store.live_count(), store.deleted_count(), store.next_row()), (6, 1, 8));

        assert_eq!(store.copy_next_adopted_rows(3), 5);
        assert_eq!((store.adopted_rows(), store.mapped_bytes()), (5, 5 * 8));
        // Writers meanwhile: slot 1 (copied) and slot 6 (not yet) replaced, slot 7 deleted, slot 9 new.
        store.put(1, &[10.0, 10.0]);
        store.put(6, &[60.0, 60.0]);
        assert!(store.delete(7));
        store.put(9, &[90.0, 90.0]);
        assert_eq!(store.vector(2).map(|row| row.to_vec()), Some(vec![2.0, -2.0]), "copied: read from the arena");
        assert_eq!(store.vector(5).map(|row| row.to_vec()), Some(vec![5.0, -5.0]), "not yet: read from the file");
        assert_eq!(store.copy_next_adopted_rows(4), 1);
        assert_eq!(store.copy_next_adopted_rows(4), 0);
        assert_eq!(store.copy_next_adopted_rows(4), 0, "nothing left to copy");
        assert_eq!((store.adopted_rows(), store.mapped_bytes()), (0, 0));
        assert!(!store.copies_adopted_rows());

        let vector = |slot: u32| store.vector(slot).map(|row| row.to_vec());
        assert_eq!(vector(0), Some(vec![0.0, 0.0]));
        assert_eq!(vector(1), Some(vec![10.0, 10.0]));
        assert_eq!((vector(2), store.state(2)), (Some(vec![2.0, -2.0]), SlotState::Deleted));
        assert_eq!((vector(4), store.state(4)), (None, SlotState::Empty));
        assert_eq!(vector(5), Some(vec![5.0, -5.0]));
        assert_eq!(vector(6), Some(vec![60.0, 60.0]));
        assert_eq!((vector(7), store.state(7)), (Some(vec![7.0, -7.0]), SlotState::Deleted));
        assert_eq!(vector(9), Some(vec![90.0, 90.0]));
        // Rows 1 and 6 of the file were replaced: garbage, as any replaced row is, and so is
        // row 4, which no slot holds.
        assert_eq!((store.live_count(), store.deleted_count(), store.garbage_rows()), (6, 2, 3));
        let _ = std::fs::remove_file(&path);
    }
}
