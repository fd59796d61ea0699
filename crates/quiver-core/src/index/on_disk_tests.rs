//! Rules of `on_disk` vectors (mapped.rs, docs/architecture.md §15): the same answers as the
//! heap arena, honest memory figures, and a checkpoint that refills the mapped files.

use crate::distance::Metric;
use crate::index::{IndexParams, QuantizationSearch, SearchParams, VectorIndex, VectorStorage};
use crate::quantization::QuantizationConfig;
use crate::test_support::{bits, clustered, slots, typed_data};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("quiver-on-disk-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    directory
}

fn params(dimension: usize) -> IndexParams {
    IndexParams { indexing_threads: 2, full_scan_threshold: 0, ..IndexParams::new(dimension, Metric::Cosine) }
}

fn filled(storage: VectorStorage, data: &[f32], dimension: usize) -> VectorIndex {
    let index = VectorIndex::with_storage(params(dimension), storage).unwrap();
    index.upsert(&slots(data.len() / dimension), data).unwrap();
    index.wait_indexed();
    index
}

/// Gives `disk` int8 codes and checks that its walk over them, rescored on its originals, finds
/// 90% of `ram`'s exact top 10 for every 97th stored point.
fn assert_int8_codes_rescore_with_recall(disk: &VectorIndex, ram: &VectorIndex, data: &[f32], dimension: usize) {
    disk.set_quantization(Some(QuantizationConfig::ScalarInt8 { quantile: None })).unwrap();
    disk.wait_quantized();
    let search = SearchParams {
        ef: Some(64),
        quantization: QuantizationSearch { oversampling: 4.0, ..Default::default() },
        ..SearchParams::default()
    };
    let (mut hits, mut asked) = (0, 0);
    for query in data.chunks_exact(dimension).step_by(97) {
        let truth = ram.search_exact(query, 10, None).unwrap();
        let found = disk.search(query, 10, &search).unwrap();
        hits += truth.iter().filter(|expected| found.iter().any(|hit| hit.slot == expected.slot)).count();
        asked += truth.len();
    }
    assert!(hits as f64 / asked as f64 >= 0.9, "recall {hits}/{asked}");
}

#[test]
fn on_disk_vectors_answer_exactly_as_the_heap_arena_does() {
    let dimension = 32;
    let data = clustered(3000, dimension, 12, 5);
    let directory = scratch("same-answers");
    let ram = filled(VectorStorage::Ram, &data, dimension);
    let disk = filled(VectorStorage::OnDisk(directory.clone()), &data, dimension);
    assert!(disk.is_on_disk() && !ram.is_on_disk());
    for query in data.chunks_exact(dimension).step_by(97) {
        assert_eq!(disk.search_exact(query, 10, None).unwrap(), ram.search_exact(query, 10, None).unwrap());
    }
    let probe: Vec<u32> = vec![0, 1, 2999, 1500];
    assert_eq!(disk.vectors(&probe), ram.vectors(&probe));
    // The walk over int8 codes with rescoring reads the originals from the mapped files.
    assert_int8_codes_rescore_with_recall(&disk, &ram, &data, dimension);
    assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 0, "working files are unlinked once mapped");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn on_disk_vectors_are_counted_as_mapped_not_as_heap_memory() {
    let dimension = 64;
    let data = clustered(5000, dimension, 8, 6);
    let directory = scratch("memory");
    let ram = filled(VectorStorage::Ram, &data, dimension).stats();
    let disk_index = filled(VectorStorage::OnDisk(directory.clone()), &data, dimension);
    let disk = disk_index.stats();
    assert_eq!(ram.mapped_bytes, 0);
    assert!(disk.mapped_bytes >= 5000 * dimension * 4, "mapped {}", disk.mapped_bytes);
    assert!(ram.memory_bytes >= disk.memory_bytes + 5000 * dimension * 4, "heap {} vs {}", ram.memory_bytes, disk.memory_bytes);
    let resident = disk_index.mapped_resident_bytes();
    assert!(resident > 0 && resident <= disk.mapped_bytes, "resident {resident} of {}", disk.mapped_bytes);
    drop(disk_index);
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn an_on_disk_checkpoint_loads_back_into_mapped_files_with_the_same_answers() {
    let dimension = 16;
    let data = clustered(2000, dimension, 6, 7);
    let directory = scratch("checkpoint");
    let index = filled(VectorStorage::OnDisk(directory.join("arena")), &data, dimension);
    index.delete(&[3, 4, 5]);
    let file = directory.join("vector.qvi");
    index.save(&file, 42).unwrap();
    let (loaded, operation, _) = VectorIndex::load_with_storage(&file, VectorStorage::OnDisk(directory.join("arena2"))).unwrap();
    assert_eq!(operation, 42);
    assert!(loaded.is_on_disk());
    assert_eq!(loaded.stats().count, 1997);
    for query in data.chunks_exact(dimension).step_by(101) {
        assert_eq!(loaded.search_exact(query, 10, None).unwrap(), index.search_exact(query, 10, None).unwrap());
    }
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn the_mapped_checkpoint_reader_refuses_a_flipped_byte_a_truncated_file_and_an_empty_one() {
    use crate::error::ErrorCode;
    let dimension = 8;
    let data = clustered(300, dimension, 3, 8);
    let directory = scratch("refused");
    std::fs::create_dir_all(&directory).unwrap();
    let file = directory.join("vector.qvi");
    filled(VectorStorage::Ram, &data, dimension).save(&file, 1).unwrap();
    let good = std::fs::read(&file).unwrap();
    let load = |bytes: &[u8]| {
        std::fs::write(&file, bytes).unwrap();
        VectorIndex::load_with_storage(&file, VectorStorage::OnDisk(directory.join("arena"))).map(|_| ()).map_err(|error| error.code)
    };
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x40;
    assert_eq!(load(&flipped), Err(ErrorCode::CheckpointCorrupt));
    assert_eq!(load(&good[..good.len() - 9]), Err(ErrorCode::CheckpointCorrupt));
    assert_eq!(load(&[]), Err(ErrorCode::CheckpointCorrupt));
    assert_eq!(load(&good), Ok(()));
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn an_on_disk_index_reads_a_version_5_checkpoints_rows_in_place_and_writes_new_rows_to_its_own_files() {
    use crate::distance::Datatype;
    let dimension = 16;
    for datatype in [Datatype::Float32, Datatype::Float16, Datatype::Uint8] {
        let directory = scratch(&format!("adopted-{datatype:?}"));
        let params = IndexParams { datatype, ..params(dimension) };
        let data = typed_data(datatype, 1500, dimension, 9);
        let index = VectorIndex::with_storage(params, VectorStorage::OnDisk(directory.join("arena"))).unwrap();
        index.upsert(&slots(1500), &data).unwrap();
        index.wait_indexed();
        index.delete(&[3, 4]);
        let file = directory.join("vector.qvi");
        index.save(&file, 7).unwrap();

        let (loaded, operation, _) = VectorIndex::load_with_storage(&file, VectorStorage::OnDisk(directory.join("arena2"))).unwrap();
        assert_eq!(operation, 7);
        let row_bytes = dimension * datatype.bytes_per_component();
        // Every row is the file's: no working file was made for them.
        assert_eq!(loaded.stats().mapped_bytes, 1500 * row_bytes, "{datatype:?}");
        assert_eq!(std::fs::read_dir(directory.join("arena2")).map(|entries| entries.count()).unwrap_or(0), 0);
        let all = slots(1600);
        assert_eq!(bits(loaded.vectors(&all)), bits(index.vectors(&all)), "{datatype:?}");
        assert_eq!((loaded.stats().count, loaded.stats().deleted_count), (1498, 2));
        assert_eq!(loaded.check_integrity().links, index.check_integrity().links);
        for query in data.chunks_exact(dimension).step_by(101) {
            assert_eq!(loaded.search_exact(query, 10, None).unwrap(), index.search_exact(query, 10, None).unwrap(), "{datatype:?}");
            let search = SearchParams { ef: Some(32), ..SearchParams::default() };
            assert_eq!(loaded.search(query, 10, &search).unwrap(), index.search(query, 10, &search).unwrap(), "{datatype:?}");
        }

        // New rows, a replaced row and a revived one go to the index's own mapped files.
        let more = typed_data(datatype, 103, dimension, 10);
        let changed: Vec<u32> = (1500..1600).chain([10, 3, 700]).collect();
        for target in [&loaded, &index] {
            target.upsert(&changed, &more).unwrap();
            target.wait_indexed();
        }
        assert!(loaded.stats().mapped_bytes > 1500 * row_bytes);
        assert_eq!(bits(loaded.vectors(&all)), bits(index.vectors(&all)), "{datatype:?}");
        assert_eq!(loaded.stats().count, 1599, "1,498 + 100 new + slot 3 revived");

        // Saving over the file whose rows it reads: the mapping keeps the old file's bytes, and
        // the new file loads back to the same vectors, on disk and on the heap.
        loaded.save(&file, 8).unwrap();
        assert_eq!(bits(loaded.vectors(&all)), bits(index.vectors(&all)), "{datatype:?}");
        for storage in [VectorStorage::OnDisk(directory.join("arena3")), VectorStorage::Ram] {
            let (again, operation, _) = VectorIndex::load_with_storage(&file, storage.clone()).unwrap();
            assert_eq!(operation, 8);
            assert_eq!(bits(again.vectors(&all)), bits(index.vectors(&all)), "{datatype:?} {storage:?}");
            for query in more.chunks_exact(dimension).step_by(17) {
                assert_eq!(
                    again.search_exact(query, 10, None).unwrap(),
                    index.search_exact(query, 10, None).unwrap(),
                    "{datatype:?} {storage:?}"
                );
            }
        }
        drop(loaded);
        let _ = std::fs::remove_dir_all(&directory);
    }
}

#[test]
fn codes_of_an_index_that_adopted_its_rows_are_built_from_them_and_rescore_on_them() {
    let dimension = 32;
    let data = clustered(3000, dimension, 12, 11);
    let directory = scratch("adopted-codes");
    let file = directory.join("vector.qvi");
    std::fs::create_dir_all(&directory).unwrap();
    let ram = filled(VectorStorage::Ram, &data, dimension);
    ram.save(&file, 1).unwrap();
    let (disk, _, _) = VectorIndex::load_with_storage(&file, VectorStorage::OnDisk(directory.join("arena"))).unwrap();
    assert_int8_codes_rescore_with_recall(&disk, &ram, &data, dimension);
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn a_version_4_checkpoint_and_its_version_5_twin_load_the_same_index_on_the_heap_and_on_disk() {
    use crate::distance::Datatype;
    let dimension = 12;
    for datatype in [Datatype::Float32, Datatype::Float16, Datatype::Uint8] {
        let directory = scratch(&format!("twins-{datatype:?}"));
        std::fs::create_dir_all(&directory).unwrap();
        let data = typed_data(datatype, 900, dimension, 12);
        let index = VectorIndex::with_storage(IndexParams { datatype, ..params(dimension) }, VectorStorage::Ram).unwrap();
        index.upsert(&slots(900), &data).unwrap();
        index.wait_indexed();
        index.delete(&[0, 450]);
        let (old, new) = (directory.join("v4.qvi"), directory.join("v5.qvi"));
        index.save_as(&old, 3, "b", 4).unwrap();
        index.save_as(&new, 3, "b", 5).unwrap();
        let all = slots(900);
        for (name, storage) in [("heap", VectorStorage::Ram), ("disk", VectorStorage::OnDisk(directory.join("arena")))] {
            let (from_old, ..) = VectorIndex::load_with_storage(&old, storage.clone()).unwrap();
            let (from_new, ..) = VectorIndex::load_with_storage(&new, storage).unwrap();
            assert_eq!(bits(from_new.vectors(&all)), bits(from_old.vectors(&all)), "{datatype:?} {name}");
            assert_eq!(from_new.check_integrity().links, from_old.check_integrity().links, "{datatype:?} {name}");
            assert_eq!((from_new.stats().count, from_new.stats().deleted_count), (898, 2));
            for query in data.chunks_exact(dimension).step_by(53) {
                let search = SearchParams { ef: Some(24), ..SearchParams::default() };
                assert_eq!(from_new.search(query, 7, &search).unwrap(), from_old.search(query, 7, &search).unwrap(), "{datatype:?} {name}");
            }
        }
        let _ = std::fs::remove_dir_all(&directory);
    }
}
