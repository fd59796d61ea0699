//! Rules of `on_disk` vectors (mapped.rs, docs/architecture.md §15): the same answers as the
//! heap arena, honest memory figures, and a checkpoint that refills the mapped files.

use crate::distance::Metric;
use crate::index::{IndexParams, QuantizationSearch, SearchParams, VectorIndex, VectorStorage};
use crate::quantization::QuantizationConfig;
use crate::test_support::{clustered, slots};
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
    disk.set_quantization(Some(QuantizationConfig::ScalarInt8 { quantile: None })).unwrap();
    disk.wait_quantized();
    let search = SearchParams {
        ef: Some(64),
        quantization: QuantizationSearch { oversampling: 4.0, ..Default::default() },
        ..SearchParams::default()
    };
    let mut hits = 0;
    for query in data.chunks_exact(dimension).step_by(97) {
        let truth = ram.search_exact(query, 10, None).unwrap();
        let found = disk.search(query, 10, &search).unwrap();
        hits += truth.iter().filter(|expected| found.iter().any(|hit| hit.slot == expected.slot)).count();
    }
    assert!(hits as f64 / (31.0 * 10.0) >= 0.9, "recall {hits}/310");
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
