//! Checkpoint save and load for `VectorIndex`: which parts of the index go into the file, in
//! which order (the layout is in checkpoint.rs, which owns the container: checksum, magic,
//! version and the atomic write; the graph section is hnsw/persist.rs).

use super::{lock_mutex, IndexParams, VectorIndex, VectorStorage};
use crate::checkpoint::{self, Decoder, Encoder, FORMAT_VERSION, MAGIC, ROW_BLOCK_ALIGNMENT, ROW_BLOCK_FROM_VERSION};
use crate::distance::{Datatype, Metric, Row};
use crate::error::{KernelError, KernelResult};
use crate::mapped::FileBytes;
use crate::store::{AdoptedRows, SlotState};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The kind byte before the graph section: no graph follows, or an HNSW graph does.
const GRAPH_NONE: u8 = 0;
const GRAPH_HNSW: u8 = 1;

impl VectorIndex {
    /// Writes the index to `path` atomically, tagged with the last operation id it covers.
    /// Writers and graph builders pause while it runs so the file is one consistent state;
    /// searches go on.
    pub fn save(&self, path: &Path, last_operation_id: u64) -> KernelResult<()> {
        self.save_bound(path, last_operation_id, "")
    }

    /// `save` with a binding in the header (checkpoint.rs): who the checkpoint belongs to.
    pub fn save_bound(&self, path: &Path, last_operation_id: u64, binding: &str) -> KernelResult<()> {
        self.save_as(path, last_operation_id, binding, FORMAT_VERSION)
    }

    /// `save_bound` in format `version`: 5 (the row block) or 4 (rows interleaved with their
    /// states), which tests write to make files of the older layouts.
    pub(crate) fn save_as(&self, path: &Path, last_operation_id: u64, binding: &str, version: u32) -> KernelResult<()> {
        if !(4..=FORMAT_VERSION).contains(&version) {
            return Err(KernelError::invalid(format!("checkpoints are written in format 4 or {FORMAT_VERSION}, not {version}")));
        }
        checkpoint::check_binding(binding)?;
        let shared = &*self.shared;
        let _writer = lock_mutex(&shared.write_gate);
        let _indexing = shared.indexing.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        let params = &shared.params;
        let mut tail = Vec::new();
        shared.pending.snapshot(&mut tail);
        tail.sort_unstable();
        tail.dedup();
        checkpoint::write_atomically_with(path, checkpoint::Checksum::of_dense_version(version), |encoder| {
            encoder.bytes(MAGIC)?;
            encoder.u32(version)?;
            checkpoint::write_binding(encoder, binding)?;
            encoder.u32(params.dimension as u32)?;
            encoder.u8(params.metric.code())?;
            encoder.u8(params.datatype.code())?;
            encoder.u32(params.m as u32)?;
            encoder.u32(params.ef_construct as u32)?;
            encoder.u32(params.full_scan_threshold.min(u32::MAX as usize) as u32)?;
            encoder.u32(params.indexing_threads as u32)?;
            encoder.u64(last_operation_id)?;
            let bound = shared.store.slot_bound();
            encoder.u32(bound)?;
            if version >= ROW_BLOCK_FROM_VERSION {
                self.write_row_block(encoder, bound)?;
            } else {
                for slot in 0..bound {
                    self.write_slot(encoder, slot)?;
                }
            }
            encoder.u8(GRAPH_HNSW)?;
            shared.graph.write_to(encoder)?;
            encoder.u32(tail.len() as u32)?;
            for slot in &tail {
                encoder.u32(*slot)?;
            }
            Ok(())
        })
    }

    /// Version 5's rows: every slot's state, then from an aligned offset every slot's row in the
    /// store's element type (checkpoint.rs), so a load can read them in place.
    fn write_row_block<W: Write>(&self, encoder: &mut Encoder<W>, bound: u32) -> std::io::Result<()> {
        let store = &self.shared.store;
        for slot in 0..bound {
            encoder.u8(match store.state(slot) {
                SlotState::Empty => 0,
                SlotState::Live => 1,
                SlotState::Deleted => 2,
            })?;
        }
        encoder.pad_to(ROW_BLOCK_ALIGNMENT)?;
        let row_bytes = self.shared.params.dimension * store.datatype().bytes_per_component();
        let empty = vec![0u8; row_bytes];
        let mut buffer = Vec::with_capacity(row_bytes);
        for slot in 0..bound {
            match store.vector(slot) {
                Some(row) => {
                    buffer.clear();
                    match row {
                        Row::F32(values) => values.iter().for_each(|value| buffer.extend_from_slice(&value.to_le_bytes())),
                        Row::F16(bits) => bits.iter().for_each(|value| buffer.extend_from_slice(&value.to_le_bytes())),
                        Row::U8(values) => buffer.extend_from_slice(values),
                    }
                    encoder.bytes(&buffer)?;
                }
                None => encoder.bytes(&empty)?,
            }
        }
        Ok(())
    }

    fn write_slot<W: Write>(&self, encoder: &mut Encoder<W>, slot: u32) -> std::io::Result<()> {
        let store = &self.shared.store;
        // Rows are written as their float32 values whatever the datatype: every float16 and
        // uint8 value is exactly a float32, so loading re-encodes them bit for bit.
        let (tag, vector) = match (store.state(slot), store.vector(slot)) {
            (SlotState::Live, Some(vector)) => (1, vector),
            (SlotState::Deleted, Some(vector)) => (2, vector),
            _ => return encoder.u8(0),
        };
        encoder.u8(tag)?;
        match vector {
            // float32 rows are written as they lie; the others decoded first.
            crate::distance::Row::F32(values) => encoder.f32s(values),
            other => encoder.f32s(&store.space().decode(other)),
        }
    }

    /// Loads a checkpoint; returns the index and the last operation id it covers. Slots that
    /// were not linked when it was saved are queued for the graph builders again.
    pub fn load(path: &Path) -> KernelResult<(VectorIndex, u64)> {
        Self::load_bound(path).map(|(index, last_operation_id, _)| (index, last_operation_id))
    }

    /// `load` that also returns the checkpoint's binding (empty for a version 1 file).
    pub fn load_bound(path: &Path) -> KernelResult<(VectorIndex, u64, String)> {
        Self::load_with_storage(path, super::VectorStorage::Ram)
    }

    /// `load_bound` into an index keeping its vectors in `storage`: an `on_disk` index reads a
    /// format 5 checkpoint's rows in place and refills its mapped working files from an older
    /// one; a heap index copies them into its arena, a format 5 file's in the background
    /// (docs/architecture.md §15, §21).
    pub fn load_with_storage(path: &Path, storage: super::VectorStorage) -> KernelResult<(VectorIndex, u64, String)> {
        let (body, version) = checkpoint::read_verified_mapped(path)?;
        // Shared: a store adopting the row block keeps the mapping (store.rs).
        Self::load_verified(Arc::new(body), version, storage)
    }

    /// The index in a checkpoint's verified `body` (everything before the checksum) of format
    /// `version`.
    pub(crate) fn load_verified(body: Arc<FileBytes>, version: u32, storage: VectorStorage) -> KernelResult<(VectorIndex, u64, String)> {
        let mut decoder = Decoder::new(&body);
        decoder.take(MAGIC.len() + 4)?;
        let binding = checkpoint::read_binding(&mut decoder, version)?;
        let dimension = decoder.u32()? as usize;
        let metric_code = decoder.u8()?;
        let metric = Metric::from_code(metric_code).ok_or_else(|| KernelError::corrupt(format!("unknown metric code {metric_code}")))?;
        // Version 3 added the datatype; older checkpoints are float32.
        let datatype = if version >= 3 {
            let code = decoder.u8()?;
            Datatype::from_code(code).ok_or_else(|| KernelError::corrupt(format!("unknown datatype code {code}")))?
        } else {
            Datatype::Float32
        };
        let params = IndexParams {
            dimension,
            metric,
            m: decoder.u32()? as usize,
            ef_construct: decoder.u32()? as usize,
            full_scan_threshold: decoder.u32()? as usize,
            indexing_threads: decoder.u32()? as usize,
            datatype,
        };
        params.validate().map_err(|error| KernelError::corrupt(format!("stored parameters are invalid: {}", error.message)))?;
        let last_operation_id = decoder.u64()?;
        let bound = decoder.u32()?;
        let index = if version >= ROW_BLOCK_FROM_VERSION {
            load_row_block(&body, &mut decoder, params, storage, bound)?
        } else {
            load_interleaved_rows(&body, &mut decoder, params, storage, bound)?
        };
        let shared = &*index.shared;
        let mut unlinked: Vec<u32> = Vec::new();
        match decoder.u8()? {
            GRAPH_NONE => {}
            GRAPH_HNSW => {
                shared.graph.read_from(&mut decoder, bound)?;
                let count = decoder.u32()? as usize;
                if count > bound as usize {
                    return Err(KernelError::corrupt(format!("{count} pending slots for {bound} slots")));
                }
                for _ in 0..count {
                    unlinked.push(decoder.u32()?);
                }
            }
            other => return Err(KernelError::corrupt(format!("unknown graph section kind {other}"))),
        }
        if decoder.remaining() != 0 {
            return Err(KernelError::corrupt(format!("{} unexpected bytes after the graph", decoder.remaining())));
        }
        let tombstones = (0..bound).filter(|slot| shared.graph.contains(*slot) && !shared.store.is_live(*slot)).count();
        shared.graph_tombstones.store(tombstones, Ordering::Release);
        // Anything live the graph does not hold (or that was mid-link) goes back to the tail.
        unlinked.extend((0..bound).filter(|slot| shared.store.is_live(*slot) && !shared.graph.contains(*slot)));
        if !unlinked.is_empty() {
            index.queue_for_linking(unlinked);
        }
        // Last, once the whole file has been read: a heap index's adopted rows.
        index.copy_adopted_rows_in_background();
        Ok((index, last_operation_id, binding))
    }
}

/// Versions 1 to 4: each slot's state byte and float32 row, decoded into the arena one by one.
fn load_interleaved_rows(
    body: &FileBytes,
    decoder: &mut Decoder,
    params: IndexParams,
    storage: VectorStorage,
    bound: u32,
) -> KernelResult<VectorIndex> {
    let dimension = params.dimension;
    let index = VectorIndex::with_storage(params, storage)?;
    let store = &index.shared.store;
    store.reserve(bound as usize)?;
    let mut scratch = vec![0f32; dimension];
    let mut unreleased = 0;
    for slot in 0..bound {
        // The rows read so far are in the arena now: their pages of the file can go
        // (mapped.rs `FileBytes::release`), every 4,096 slots to keep the calls few.
        if slot % 4096 == 0 {
            unreleased = body.release(unreleased..decoder.position());
        }
        let state = decoder.u8()?;
        if state != 0 {
            copy_loaded_row(store, slot, state, &mut scratch, |row| decoder.f32s(row))?;
        }
    }
    Ok(index)
}

/// Version 5: the slots' states, then their rows as one aligned block, adopted where it lies
/// in the file (store.rs `AdoptedRows`): the load costs the checksum pass and the graph, not a
/// copy of every vector. An `on_disk` index keeps reading them there (no second copy in working
/// files); a heap index copies them into its arena (huge pages: §22 of docs/architecture.md) in
/// the background (heap_copy.rs). Adopted rows are not checked value by value: the CRC-32C says
/// they are the bytes this kernel wrote, and it writes only rows an upsert checked. A file that
/// could not be mapped is copied row by row here, each value checked as it goes.
fn load_row_block(
    body: &Arc<FileBytes>,
    decoder: &mut Decoder,
    params: IndexParams,
    storage: VectorStorage,
    bound: u32,
) -> KernelResult<VectorIndex> {
    let states = decoder.take(bound as usize)?;
    decoder.skip_padding_to(ROW_BLOCK_ALIGNMENT)?;
    let offset = decoder.position();
    let dimension = params.dimension;
    let datatype = params.datatype;
    let row_bytes = dimension * datatype.bytes_per_component();
    let block_length = (bound as usize)
        .checked_mul(row_bytes)
        .ok_or_else(|| KernelError::corrupt(format!("{bound} rows of {row_bytes} bytes overflow")))?;
    let block = decoder.take(block_length)?;
    if body.is_mapped() && cfg!(target_endian = "little") {
        if matches!(storage, VectorStorage::OnDisk(_)) {
            body.expect_random_reads(offset..offset + block_length);
        }
        let store = VectorIndex::store_for(&params, storage)?
            .adopting(AdoptedRows { bytes: Arc::clone(body), offset, rows: bound as usize }, states)?;
        return Ok(VectorIndex::with_store(params, store));
    }
    let index = VectorIndex::with_storage(params, storage)?;
    let store = &index.shared.store;
    store.reserve(bound as usize)?;
    let mut scratch = vec![0f32; dimension];
    let mut unreleased = 0;
    for (slot, state) in states.iter().enumerate() {
        if slot % 4096 == 0 {
            unreleased = body.release(unreleased..offset + slot * row_bytes);
        }
        if *state != 0 {
            let bytes = &block[slot * row_bytes..(slot + 1) * row_bytes];
            copy_loaded_row(store, slot as u32, *state, &mut scratch, |row| {
                decode_elements(bytes, datatype, row);
                Ok(())
            })?;
        }
    }
    Ok(index)
}

/// Copies a loaded slot's row into the arena: `fill` decodes it straight into the row, which is
/// published only once whole and only if every value is finite; `state` 2 then tombstones it.
fn copy_loaded_row(
    store: &crate::store::VectorStore,
    slot: u32,
    state: u8,
    scratch: &mut [f32],
    fill: impl FnOnce(&mut [f32]) -> KernelResult<()>,
) -> KernelResult<()> {
    if state > 2 {
        return Err(KernelError::corrupt(format!("slot {slot} has unknown state {state}")));
    }
    store.put_filled(slot, scratch, |row| {
        fill(row)?;
        if !all_finite(row) {
            return Err(KernelError::corrupt(format!("slot {slot} holds a non-finite value")));
        }
        Ok(())
    })?;
    if state == 2 {
        store.delete(slot);
    }
    Ok(())
}

/// A row block's little-endian elements of `datatype` as float32 values (every float16 and
/// uint8 value is exactly one, so the arena re-encodes them bit for bit).
fn decode_elements(bytes: &[u8], datatype: Datatype, output: &mut [f32]) {
    match datatype {
        Datatype::Float32 => {
            for (value, chunk) in output.iter_mut().zip(bytes.chunks_exact(4)) {
                *value = f32::from_le_bytes(chunk.try_into().unwrap());
            }
        }
        Datatype::Float16 => {
            for (value, chunk) in output.iter_mut().zip(bytes.chunks_exact(2)) {
                *value = crate::distance::row::f32_from_f16(u16::from_le_bytes(chunk.try_into().unwrap()));
            }
        }
        Datatype::Uint8 => {
            for (value, byte) in output.iter_mut().zip(bytes) {
                *value = *byte as f32;
            }
        }
    }
}

/// Whether no value is NaN or infinite: an all-ones exponent, tested on every value without an
/// early exit so the loop compiles to vector instructions (it runs over every loaded row).
fn all_finite(values: &[f32]) -> bool {
    const EXPONENT: u32 = 0x7f80_0000;
    values.iter().fold(0u32, |largest, value| largest.max(value.to_bits() & EXPONENT)) != EXPONENT
}

#[cfg(test)]
mod tests {
    use super::super::{IndexParams, SearchParams, VectorIndex, VectorStorage};
    use crate::checkpoint::{Checksum, FORMAT_VERSION};
    use crate::crc32::Crc32;
    use crate::distance::Metric;
    use crate::error::ErrorCode;
    use crate::test_support::{clustered, load_unmapped, slots};

    fn saved(directory_name: &str) -> (std::path::PathBuf, VectorIndex, Vec<f32>) {
        let directory = std::env::temp_dir().join(format!("quiver-core-{directory_name}-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let params = IndexParams { full_scan_threshold: 0, indexing_threads: 1, ..IndexParams::new(16, Metric::Cosine) };
        let index = VectorIndex::new(params).unwrap();
        let data = clustered(600, 16, 8, 3);
        index.upsert(&slots(600), &data).unwrap();
        index.wait_indexed();
        index.delete(&[7, 8]);
        (directory, index, data)
    }

    /// The same checkpoint bytes relabelled as `version` with `checksum` over the body.
    fn relabelled(bytes: &[u8], version: u32, checksum: Checksum) -> Vec<u8> {
        let mut body = bytes[..bytes.len() - 4].to_vec();
        body[8..12].copy_from_slice(&version.to_le_bytes());
        let crc = checksum.of(&body);
        body.extend_from_slice(&crc.to_le_bytes());
        body
    }

    #[test]
    fn a_version_4_checkpoint_ends_in_a_crc32c_and_loads_the_same_index_as_its_version_3_twin() {
        let (directory, index, data) = saved("crc32c");
        let path = directory.join("index.qvx");
        index.save_as(&path, 17, "db/incarnation", 4).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 4);
        let stored = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
        assert_eq!(stored, Checksum::Castagnoli.of(&bytes[..bytes.len() - 4]));
        assert_ne!(stored, Crc32::of(&bytes[..bytes.len() - 4]));
        let (current, operation, binding) = VectorIndex::load_bound(&path).unwrap();
        assert_eq!((operation, binding.as_str()), (17, "db/incarnation"));

        // Version 3 has the same layout with a CRC-32 trailer: it is still read, identically.
        std::fs::write(&path, relabelled(&bytes, 3, Checksum::Ieee)).unwrap();
        let (previous, operation, binding) = VectorIndex::load_bound(&path).unwrap();
        assert_eq!((operation, binding.as_str()), (17, "db/incarnation"));
        // Slots 7 and 8 are deleted (their rows read as NaN), so compare the bit patterns.
        let bits = |index: &VectorIndex| index.vectors(&slots(600)).iter().map(|value| value.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(&previous), bits(&current));
        assert_eq!(previous.check_integrity().links, current.check_integrity().links);
        let params = SearchParams { ef: Some(32), ..Default::default() };
        for query in data.chunks_exact(16).step_by(60) {
            assert_eq!(previous.search(query, 5, &params).unwrap(), current.search(query, 5, &params).unwrap());
        }

        // Each version's checksum is the only one accepted for it.
        for (version, wrong) in [(4, Checksum::Ieee), (3, Checksum::Castagnoli)] {
            std::fs::write(&path, relabelled(&bytes, version, wrong)).unwrap();
            assert_eq!(VectorIndex::load(&path).err().unwrap().code, ErrorCode::CheckpointCorrupt, "version {version}");
        }
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn the_vectorised_finite_check_agrees_with_the_value_by_value_one() {
        let awkward = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN, f32::MIN_POSITIVE, 1e-45, -0.0, 0.0, 1.5];
        for length in [0usize, 1, 7, 8, 9, 31, 33, 768] {
            for position in [0, length / 2, length.saturating_sub(1)] {
                for value in awkward {
                    let mut values = vec![0.25f32; length];
                    if length > 0 {
                        values[position] = value;
                    }
                    assert_eq!(
                        super::all_finite(&values),
                        values.iter().all(|value| value.is_finite()),
                        "{value} at {position} of {length}"
                    );
                }
            }
        }
    }

    #[test]
    // A mapped format 5 file's rows are read where they lie (heap_copy.rs) on the strength of the
    // checksum, as an `on_disk` index always read them; a file copied row by row (format 4, or
    // format 5 where it cannot be mapped) is checked value by value.
    fn a_checkpoint_copied_row_by_row_whose_checksum_holds_but_whose_row_is_not_finite_is_refused_for_every_datatype_and_layout() {
        use crate::distance::row::f16_from_f32;
        use crate::distance::Datatype;
        let directory = std::env::temp_dir().join(format!("quiver-core-non-finite-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let path = directory.join("index.qvx");
        for version in [4, FORMAT_VERSION] {
            for datatype in [Datatype::Float32, Datatype::Float16] {
                let params = IndexParams { full_scan_threshold: 0, indexing_threads: 1, datatype, ..IndexParams::new(16, Metric::Euclid) };
                let index = VectorIndex::new(params).unwrap();
                // Values a float16 holds exactly, so the saved row is these very values.
                let data: Vec<f32> = (0..40 * 16).map(|value| (value % 97) as f32 * 0.5).collect();
                index.upsert(&slots(40), &data).unwrap();
                index.wait_indexed();
                index.save_as(&path, 9, "", version).unwrap();
                let bytes = std::fs::read(&path).unwrap();
                // Slot 5's row, found by its bytes (float32 values, or from version 5 the
                // element type's); its fourth value becomes a NaN, the checksum redone.
                let values = &data[5 * 16..6 * 16];
                let (row, nan): (Vec<u8>, Vec<u8>) = if version == 4 || datatype == Datatype::Float32 {
                    (values.iter().flat_map(|value| value.to_le_bytes()).collect(), f32::NAN.to_le_bytes().to_vec())
                } else {
                    (values.iter().flat_map(|value| f16_from_f32(*value).to_le_bytes()).collect(), 0x7e00u16.to_le_bytes().to_vec())
                };
                let at = bytes.windows(row.len()).position(|window| window == row.as_slice()).expect("the row is in the file");
                let mut damaged = bytes.clone();
                damaged[at + 3 * nan.len()..at + 4 * nan.len()].copy_from_slice(&nan);
                std::fs::write(&path, relabelled(&damaged, version, Checksum::Castagnoli)).unwrap();
                let error = load_unmapped(&path, VectorStorage::Ram).err().unwrap();
                assert_eq!(error.code, ErrorCode::CheckpointCorrupt, "{datatype:?} v{version}");
                assert!(error.message.contains("slot 5 holds a non-finite value"), "{datatype:?} v{version}: {}", error.message);
                // The undamaged file loads the same rows back.
                std::fs::write(&path, &bytes).unwrap();
                let loaded = load_unmapped(&path, VectorStorage::Ram).unwrap();
                assert_eq!(loaded.vectors(&slots(40)), index.vectors(&slots(40)), "{datatype:?} v{version}");
            }
        }
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn a_checkpoint_with_one_flipped_byte_anywhere_is_refused_whole() {
        let (directory, index, _) = saved("crc32c-flips");
        let path = directory.join("index.qvx");
        index.save(&path, 3).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        for position in (12..bytes.len()).step_by(bytes.len() / 97 + 1).chain([bytes.len() - 5, bytes.len() - 1]) {
            for bit in [0x01u8, 0x80] {
                let mut flipped = bytes.clone();
                flipped[position] ^= bit;
                std::fs::write(&path, &flipped).unwrap();
                assert_eq!(VectorIndex::load(&path).err().unwrap().code, ErrorCode::CheckpointCorrupt, "flip {bit:#x} at {position}");
            }
        }
        // The same on an on-disk index, whose load maps the checkpoint too.
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 0x10;
        std::fs::write(&path, &flipped).unwrap();
        let error = VectorIndex::load_with_storage(&path, VectorStorage::OnDisk(directory.join("mapped"))).err().unwrap();
        assert_eq!(error.code, ErrorCode::CheckpointCorrupt);
        std::fs::remove_dir_all(&directory).unwrap();
    }
}
