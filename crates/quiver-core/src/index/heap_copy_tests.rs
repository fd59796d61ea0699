//! Rules of a heap index loaded from a version 5 checkpoint (heap_copy.rs): it answers from the
//! file's rows at once, copies them into its own memory behind the searches, and answers the
//! same before, during and after, writes made meanwhile included.

use crate::distance::{Datatype, Metric};
use crate::index::{IndexParams, SearchParams, VectorIndex, VectorStorage};
use crate::test_support::{bits, load_unmapped, slots, typed_data, wait_rows_copied};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("quiver-heap-copy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

fn saved(datatype: Datatype, count: usize, dimension: usize, file: &Path) -> (VectorIndex, Vec<f32>) {
    let params = IndexParams { datatype, indexing_threads: 2, full_scan_threshold: 0, ..IndexParams::new(dimension, Metric::Cosine) };
    let index = VectorIndex::new(params).unwrap();
    let data = typed_data(datatype, count, dimension, 21);
    index.upsert(&slots(count), &data).unwrap();
    index.wait_indexed();
    index.delete(&[5, 6]);
    index.save(file, 9).unwrap();
    (index, data)
}

/// The same vectors and exact answers; and, while both still hold the graph the file was saved
/// with (`same_graph`), the same graph searches. Slots linked later can link differently (two
/// builder threads), so their graph searches may rightly differ.
fn assert_same_answers(loaded: &VectorIndex, original: &VectorIndex, queries: &[f32], dimension: usize, same_graph: bool, context: &str) {
    let all = slots(original.stats().count + original.stats().deleted_count + 10);
    assert_eq!(bits(loaded.vectors(&all)), bits(original.vectors(&all)), "{context}");
    for query in queries.chunks_exact(dimension).step_by(97) {
        assert_eq!(loaded.search_exact(query, 10, None).unwrap(), original.search_exact(query, 10, None).unwrap(), "{context}");
        if same_graph {
            let search = SearchParams { ef: Some(32), ..SearchParams::default() };
            assert_eq!(loaded.search(query, 10, &search).unwrap(), original.search(query, 10, &search).unwrap(), "{context}");
        }
    }
}

#[test]
fn a_heap_index_loaded_from_format_5_answers_from_the_file_at_once_then_from_its_own_memory_with_the_same_answers() {
    let dimension = 16;
    for datatype in [Datatype::Float32, Datatype::Float16, Datatype::Uint8] {
        let directory = scratch(&format!("answers-{datatype:?}"));
        let file = directory.join("vector.qvi");
        let (original, data) = saved(datatype, 3000, dimension, &file);
        let (loaded, operation, _) = VectorIndex::load_with_storage(&file, VectorStorage::Ram).unwrap();
        assert_eq!(operation, 9);
        assert_eq!((loaded.stats().count, loaded.stats().deleted_count), (2998, 2));
        assert_same_answers(&loaded, &original, &data, dimension, true, &format!("{datatype:?}, copy under way or done"));
        wait_rows_copied(&loaded);
        // All rows are the heap's now, and the file's pages are given back.
        assert_eq!(loaded.stats().mapped_bytes, 0, "{datatype:?}");
        assert_eq!(loaded.mapped_resident_bytes(), 0, "{datatype:?}");
        assert!(loaded.stats().memory_bytes >= 3000 * dimension * datatype.bytes_per_component(), "{datatype:?}");
        assert_same_answers(&loaded, &original, &data, dimension, true, &format!("{datatype:?}, copied"));
        assert_eq!(loaded.check_integrity().links, original.check_integrity().links);
        // New rows, a replaced one and a revived one land after the copied ones.
        let more = typed_data(datatype, 103, dimension, 22);
        let changed: Vec<u32> = (3000..3100).chain([10, 5, 2999]).collect();
        for target in [&loaded, &original] {
            target.upsert(&changed, &more).unwrap();
            target.wait_indexed();
        }
        assert_same_answers(&loaded, &original, &more, dimension, false, &format!("{datatype:?}, written after"));
        assert_eq!(loaded.stats().count, 3099, "2,998 + 100 new + slot 5 revived");
        drop(loaded);
        let _ = std::fs::remove_dir_all(&directory);
    }
}

#[test]
fn writes_and_deletes_made_while_the_rows_are_copied_are_kept_and_the_copy_does_not_undo_them() {
    let dimension = 64;
    let count = 40_000;
    let directory = scratch("writes");
    let file = directory.join("vector.qvi");
    let (original, _) = saved(Datatype::Float32, count, dimension, &file);
    let more = typed_data(Datatype::Float32, 2000, dimension, 23);
    // Replaced slots spread over the whole range, so some are written before the copy reaches
    // them and some after; and new slots beyond it.
    let replaced: Vec<u32> = (0..1000).map(|step| step * 40 + 7).chain(count as u32..count as u32 + 1000).collect();
    let deleted: Vec<u32> = (0..500).map(|step| step * 80 + 3).collect();
    for round in 0..3 {
        let (loaded, ..) = VectorIndex::load_with_storage(&file, VectorStorage::Ram).unwrap();
        let copying_when_written = loaded.rows_read_from_checkpoint() > 0;
        loaded.upsert(&replaced, &more).unwrap();
        loaded.delete(&deleted);
        wait_rows_copied(&loaded);
        if round == 0 {
            original.upsert(&replaced, &more).unwrap();
            original.delete(&deleted);
            original.wait_indexed();
        }
        loaded.wait_indexed();
        assert_same_answers(
            &loaded,
            &original,
            &more,
            dimension,
            false,
            &format!("round {round}, written during the copy: {copying_when_written}"),
        );
        assert_eq!((loaded.stats().count, loaded.stats().deleted_count), (original.stats().count, original.stats().deleted_count));
    }
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn an_index_dropped_while_it_copies_its_rows_leaves_the_file_loadable_and_stops_copying() {
    let dimension = 64;
    let directory = scratch("dropped");
    let file = directory.join("vector.qvi");
    let (original, data) = saved(Datatype::Float32, 30_000, dimension, &file);
    for _ in 0..3 {
        let (loaded, ..) = VectorIndex::load_with_storage(&file, VectorStorage::Ram).unwrap();
        drop(loaded);
    }
    let (loaded, ..) = VectorIndex::load_with_storage(&file, VectorStorage::Ram).unwrap();
    wait_rows_copied(&loaded);
    assert_same_answers(&loaded, &original, &data, dimension, true, "loaded after three dropped loads");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn a_format_5_file_copied_row_by_row_where_it_cannot_be_mapped_loads_the_same_index_as_one_read_in_place() {
    let dimension = 16;
    for datatype in [Datatype::Float32, Datatype::Float16, Datatype::Uint8] {
        let directory = scratch(&format!("twin-{datatype:?}"));
        let file = directory.join("vector.qvi");
        let (original, data) = saved(datatype, 2000, dimension, &file);
        for storage in [VectorStorage::Ram, VectorStorage::OnDisk(directory.join("arena"))] {
            let (in_place, ..) = VectorIndex::load_with_storage(&file, storage.clone()).unwrap();
            let copied = load_unmapped(&file, storage.clone()).unwrap();
            // The twin copied every row before it returned: none is read from the file.
            assert_eq!(copied.rows_read_from_checkpoint(), 0, "{datatype:?} {storage:?}");
            // An `on_disk` index reads its rows from the file for good.
            if storage == VectorStorage::Ram {
                wait_rows_copied(&in_place);
            }
            assert_same_answers(&copied, &in_place, &data, dimension, true, &format!("{datatype:?} {storage:?}"));
            assert_same_answers(&copied, &original, &data, dimension, true, &format!("{datatype:?} {storage:?}, against the saved index"));
        }
        let _ = std::fs::remove_dir_all(&directory);
    }
}
