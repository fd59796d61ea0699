//! Rules of the codes' placement (index/quantized.rs, docs/api.md §15): codes of an `on_disk`
//! index asked for `CodePlacement::Mapped` live in mapped working files, are the same bytes as
//! heap codes, grow across segments like the arena while searches run, and answer the same.

use crate::distance::{Metric, Space};
use crate::index::{CodePlacement, IndexParams, QuantizationSearch, SearchParams, VectorIndex, VectorStorage};
use crate::quantization::{BinaryEncoding, QuantizationConfig, Quantized, QueryEncoding};
use crate::test_support::{clustered, slots, Random};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("quiver-code-placement-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    directory
}

fn configs() -> [QuantizationConfig; 3] {
    [
        QuantizationConfig::ScalarInt8 { quantile: Some(0.99) },
        QuantizationConfig::BINARY_ONE_BIT,
        QuantizationConfig::Binary { encoding: BinaryEncoding::TwoBits, query_encoding: QueryEncoding::Scalar8Bits },
    ]
}

fn on_disk_index(directory: &std::path::Path, data: &[f32], dimension: usize) -> VectorIndex {
    let params = IndexParams { indexing_threads: 2, full_scan_threshold: 0, ..IndexParams::new(dimension, Metric::Cosine) };
    let index = VectorIndex::with_storage(params, VectorStorage::OnDisk(directory.to_path_buf())).unwrap();
    index.upsert(&slots(data.len() / dimension), data).unwrap();
    index.wait_indexed();
    index
}

#[test]
fn mapped_codes_equal_heap_codes_bit_for_bit_across_segment_boundaries() {
    // 8,000 rows cross the first three segment boundaries (rows 1024, 3072 and 7168: rows.rs).
    let (dimension, count) = (24, 8000);
    let mut random = Random::new(17);
    let mut data: Vec<f32> = (0..count * dimension).map(|_| random.gaussian()).collect();
    let space = Space::new(Metric::Cosine);
    data.chunks_exact_mut(dimension).for_each(|row| space.prepare(row));
    let directory = scratch("bytes");
    for config in configs() {
        let heap = Quantized::train(config, Metric::Cosine, dimension, &data, count);
        let mapped = Quantized::train(config, Metric::Cosine, dimension, &data, count).mapped_in(directory.clone());
        assert!(mapped.is_mapped() && !heap.is_mapped());
        mapped.reserve(0, count).unwrap();
        for (row, vector) in data.chunks_exact(dimension).enumerate() {
            heap.encode_row(row as u32, vector);
            mapped.encode_row(row as u32, vector);
        }
        for row in 0..count as u32 {
            assert_eq!(mapped.code_row(row), heap.code_row(row), "{config:?} row {row}");
        }
        let query = mapped.prepare_query(&data[..dimension]);
        let heap_query = heap.prepare_query(&data[..dimension]);
        for row in (0..count as u32).step_by(7) {
            assert_eq!(mapped.distance(&query, row).to_bits(), heap.distance(&heap_query, row).to_bits(), "{config:?} row {row}");
        }
        assert_eq!(mapped.memory_bytes(), 0, "mapped codes are not heap memory");
        assert_eq!(mapped.mapped_bytes(), heap.memory_bytes(), "the same segments, in another place");
        assert!(mapped.mapped_resident_bytes() > 0 && mapped.mapped_resident_bytes() <= mapped.mapped_bytes());
        assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 0, "code files are unlinked once mapped");
    }
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn an_on_disk_index_answers_the_same_with_mapped_codes_as_with_heap_codes() {
    // One index, one graph: only the codes' placement changes between the two rounds, so the
    // answers must be identical, scores to the bit, with and without rescoring.
    let dimension = 32;
    let data = clustered(3000, dimension, 12, 21);
    let directory = scratch("answers");
    let index = on_disk_index(&directory, &data, dimension);
    for config in configs() {
        let answers = |placement: CodePlacement| {
            index.set_quantization_placed(Some(config), placement).unwrap();
            index.wait_quantized();
            let status = index.quantization_status();
            assert!(status.active, "{config:?} {placement:?}");
            let mut answers = Vec::new();
            for rescore in [true, false] {
                let params = SearchParams {
                    ef: Some(64),
                    quantization: QuantizationSearch { rescore, oversampling: 3.0, ..Default::default() },
                    ..SearchParams::default()
                };
                for query in data.chunks_exact(dimension).step_by(101) {
                    let hits = index.search(query, 10, &params).unwrap();
                    answers.push(hits.iter().map(|hit| (hit.slot, hit.score.to_bits())).collect::<Vec<_>>());
                }
            }
            (answers, status)
        };
        let (heap_answers, heap_status) = answers(CodePlacement::Ram);
        let heap_mapped = index.stats().mapped_bytes;
        let (mapped_answers, mapped_status) = answers(CodePlacement::Mapped);
        assert_eq!(mapped_answers, heap_answers, "{config:?}");
        assert!(heap_status.memory_bytes > 0 && heap_status.mapped_bytes == 0, "{heap_status:?}");
        assert!(mapped_status.memory_bytes == 0 && mapped_status.mapped_bytes > 0, "{mapped_status:?}");
        assert_eq!(index.stats().mapped_bytes, heap_mapped + mapped_status.mapped_bytes, "codes are reported as mapped");
        assert!(index.mapped_resident_bytes() <= index.stats().mapped_bytes);
        // And back: switching placement alone rebuilds the codes on the heap.
        let (back, back_status) = answers(CodePlacement::Ram);
        assert_eq!(back, heap_answers, "{config:?}");
        assert_eq!(back_status.mapped_bytes, 0);
    }
    assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 0);
    drop(index);
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn an_index_with_its_vectors_on_the_heap_keeps_its_codes_on_the_heap() {
    let dimension = 16;
    let data = clustered(500, dimension, 4, 22);
    let index = VectorIndex::new(IndexParams::new(dimension, Metric::Dot)).unwrap();
    index.upsert(&slots(500), &data).unwrap();
    index.set_quantization_placed(Some(QuantizationConfig::ScalarInt8 { quantile: None }), CodePlacement::Mapped).unwrap();
    index.wait_quantized();
    let status = index.quantization_status();
    assert!(status.active && status.memory_bytes > 0 && status.mapped_bytes == 0, "{status:?}");
    assert_eq!(index.stats().mapped_bytes, 0);
}

#[test]
fn mapped_codes_grow_across_segments_while_searches_run() {
    // Writes push the codes through several new segments while two threads search; a search
    // must never read a moved or missing code row, and every vector is found by itself after.
    let dimension = 16;
    let data = clustered(9000, dimension, 10, 23);
    let directory = scratch("growth");
    let first = 200 * dimension;
    let index = std::sync::Arc::new(on_disk_index(&directory, &data[..first], dimension));
    index.set_quantization_placed(Some(QuantizationConfig::ScalarInt8 { quantile: None }), CodePlacement::Mapped).unwrap();
    index.wait_quantized();
    assert!(index.quantization_status().active);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let searchers: Vec<_> = (0..2)
        .map(|number| {
            let (index, done, data) = (std::sync::Arc::clone(&index), std::sync::Arc::clone(&done), data.clone());
            std::thread::spawn(move || {
                let params = SearchParams { ef: Some(32), ..SearchParams::default() };
                let mut searched = 0usize;
                while !done.load(std::sync::atomic::Ordering::Acquire) || searched < 50 {
                    let query = &data[(searched * 31 + number) % 200 * dimension..][..dimension];
                    assert_eq!(index.search(query, 5, &params).unwrap().len(), 5);
                    searched += 1;
                }
                searched
            })
        })
        .collect();
    for start in (200..9000).step_by(400) {
        let end = (start + 400).min(9000);
        let batch: Vec<u32> = (start as u32..end as u32).collect();
        index.upsert(&batch, &data[start * dimension..end * dimension]).unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Release);
    for searcher in searchers {
        assert!(searcher.join().expect("a search panicked") >= 50);
    }
    index.wait_indexed();
    index.wait_quantized();
    let status = index.quantization_status();
    assert!(status.active && status.memory_bytes == 0 && status.mapped_bytes >= 9000 * (dimension + 4), "{status:?}");
    let params = SearchParams {
        ef: Some(64),
        quantization: QuantizationSearch { oversampling: 2.0, ..Default::default() },
        ..SearchParams::default()
    };
    let mut found = 0;
    for slot in (0..9000).step_by(37) {
        let query = &data[slot * dimension..][..dimension];
        found += usize::from(index.search(query, 1, &params).unwrap()[0].slot == slot as u32);
    }
    // A stored vector is its own nearest neighbour; the walk on codes with rescoring finds it.
    assert!(found as f64 >= 0.95 * (9000f64 / 37.0).ceil(), "found {found}");
    drop(index);
    let _ = std::fs::remove_dir_all(&directory);
}
