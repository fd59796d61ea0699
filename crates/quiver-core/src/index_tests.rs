//! Behaviour of the whole index: recall against the exact oracle, the unindexed tail,
//! filters, tombstones and cleanup, re-upserts, concurrency, checkpoints.

use crate::test_support::{clustered, measured_recall, slots, Random};
use crate::{AllowedSlots, ErrorCode, IndexParams, Metric, SearchParams, VectorIndex};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn graph_params(dimension: usize, metric: Metric, threads: usize) -> IndexParams {
    IndexParams { full_scan_threshold: 0, indexing_threads: threads, ..IndexParams::new(dimension, metric) }
}

fn built(count: usize, dimension: usize, metric: Metric, threads: usize, seed: u64) -> (VectorIndex, Vec<f32>) {
    let index = VectorIndex::new(graph_params(dimension, metric, threads)).unwrap();
    let data = clustered(count, dimension, 40, seed);
    index.upsert(&slots(count), &data).unwrap();
    index.wait_indexed();
    (index, data)
}

fn assert_sound(index: &VectorIndex) {
    let report = index.check_integrity();
    assert!(report.is_ok(), "integrity problems: {:?}", &report.problems[..report.problems.len().min(5)]);
    // The heuristic may prune every link into a node (hnswlib's graphs have such orphans
    // too, more after in-place updates); a handful is normal, a real share means broken linking.
    assert!(report.unreachable * 200 <= report.nodes.max(1), "{} of {} nodes unreachable", report.unreachable, report.nodes);
}

#[test]
fn hnsw_recall_at_10_is_high_for_every_metric() {
    for metric in [Metric::Euclid, Metric::Cosine, Metric::Dot, Metric::Manhattan] {
        let (index, _) = built(4000, 24, metric, 2, 1);
        assert_eq!(index.stats().indexed_count, 4000);
        if metric == Metric::Dot {
            // Inner product is no metric: a short vector is nobody's near neighbour, so the
            // heuristic legitimately leaves some without in-links. They are also never a top
            // result, which the recall check below confirms.
            assert!(index.check_integrity().is_ok());
        } else {
            assert_sound(&index);
        }
        let queries = clustered(100, 24, 40, 99);
        // Dot needs a wider search for the same recall (see Space::link_space).
        let ef = if metric == Metric::Dot { 128 } else { 64 };
        let recall = measured_recall(&index, &queries, 10, ef, None);
        assert!(recall >= 0.95, "{metric:?}: recall@10 {recall} at ef {ef}");
    }
}

#[test]
fn a_search_that_names_no_ef_walks_with_the_index_ef_construct() {
    // Qdrant's default `hnsw_ef` is its collection's `ef_construct` (docs/api.md §3.5).
    let queries = clustered(50, 24, 40, 77);
    for ef_construct in [40usize, 200] {
        let index = VectorIndex::new(IndexParams { ef_construct, ..graph_params(24, Metric::Euclid, 1) }).unwrap();
        index.upsert(&slots(4000), &clustered(4000, 24, 40, 5)).unwrap();
        index.wait_indexed();
        let found = |ef: Option<usize>| -> Vec<Vec<u32>> {
            let search = SearchParams { ef, ..Default::default() };
            queries.chunks_exact(24).map(|query| index.search(query, 10, &search).unwrap().iter().map(|hit| hit.slot).collect()).collect()
        };
        let unnamed = found(None);
        assert_eq!(unnamed, found(Some(ef_construct)), "ef_construct {ef_construct}");
        // Not a default that any ef would match: a narrow walk answers some query differently.
        assert_ne!(unnamed, found(Some(10)), "ef_construct {ef_construct}");
    }
}

#[test]
fn a_write_is_searchable_as_soon_as_upsert_returns() {
    let index = VectorIndex::new(graph_params(16, Metric::Euclid, 1)).unwrap();
    let data = clustered(3000, 16, 20, 2);
    index.upsert(&slots(3000), &data).unwrap();
    // No wait: most of these are still in the exact tail while the builder runs.
    for slot in (0..3000).step_by(97) {
        let query = &data[slot * 16..(slot + 1) * 16];
        let hits = index.search(query, 1, &SearchParams::default()).unwrap();
        assert_eq!(hits[0].slot, slot as u32);
    }
    index.wait_indexed();
    assert_eq!(index.stats().indexed_count, 3000);
}

#[test]
fn filtered_search_keeps_recall_at_1_and_10_percent_selectivity() {
    let count = 8000;
    let (index, _) = built(count, 16, Metric::Euclid, 2, 3);
    let queries = clustered(60, 16, 40, 77);
    let mut random = Random::new(5);
    for percent in [1u64, 10] {
        let mut bits = vec![0u8; count.div_ceil(8)];
        for slot in 0..count {
            if random.next_u64() % 100 < percent {
                bits[slot / 8] |= 1 << (slot % 8);
            }
        }
        let allowed = AllowedSlots::new(&bits);
        let recall = measured_recall(&index, &queries, 10, 64, Some(allowed));
        assert!(recall >= 0.9, "{percent}% filter: recall@10 {recall}");
        for query in queries.chunks_exact(16).take(5) {
            let params = SearchParams { ef: Some(64), exact: false, allowed: Some(allowed), ..SearchParams::default() };
            for hit in index.search(query, 10, &params).unwrap() {
                assert!(allowed.contains(hit.slot), "slot {} is not allowed", hit.slot);
            }
        }
    }
}

#[test]
fn a_small_filter_is_answered_by_an_exact_scan() {
    let mut params = graph_params(8, Metric::Dot, 1);
    params.full_scan_threshold = 100;
    let index = VectorIndex::new(params).unwrap();
    let data = clustered(500, 8, 5, 4);
    index.upsert(&slots(500), &data).unwrap();
    let bits = [0b0000_0010u8];
    let hits = index
        .search(
            &data[..8],
            10,
            &SearchParams { ef: Some(1), exact: false, allowed: Some(AllowedSlots::new(&bits)), ..SearchParams::default() },
        )
        .unwrap();
    assert_eq!(hits.iter().map(|hit| hit.slot).collect::<Vec<_>>(), vec![1]);
}

#[test]
fn deleted_points_are_never_returned_and_are_cleaned_out_past_the_threshold() {
    let (index, data) = built(3000, 16, Metric::Euclid, 2, 6);
    let deleted: Vec<u32> = (0..3000).filter(|slot| slot % 3 == 0).collect();
    index.delete(&deleted);
    for slot in deleted.iter().step_by(50) {
        let query = &data[*slot as usize * 16..(*slot as usize + 1) * 16];
        let hits = index.search(query, 10, &SearchParams { ef: Some(64), ..Default::default() }).unwrap();
        assert!(hits.iter().all(|hit| hit.slot % 3 != 0), "a deleted slot came back");
    }
    // A third of the graph is tombstones: the next idle moment of the builder cleans up;
    // compact() does it now, deterministically.
    index.compact();
    assert_sound(&index);
    let report = index.check_integrity();
    assert_eq!(report.nodes, 2000);
    let queries = clustered(60, 16, 40, 8);
    let recall = measured_recall(&index, &queries, 10, 64, None);
    assert!(recall >= 0.95, "recall after cleanup {recall}");
    // A deleted slot can come back.
    index.upsert(&[0], &data[..16]).unwrap();
    index.wait_indexed();
    assert_eq!(index.search(&data[..16], 1, &SearchParams::default()).unwrap()[0].slot, 0);
    assert_sound(&index);
}

#[test]
fn a_re_upserted_point_is_found_at_its_new_place() {
    let (index, _) = built(2000, 16, Metric::Euclid, 2, 9);
    // Move the first 200 points to fresh places drawn from the same clusters. (Not onto
    // copies of other points: exact near-duplicates make the heuristic prune in-links of the
    // originals, a known HNSW weakness this test is not about.)
    let moved = clustered(200, 16, 40, 99);
    index.upsert(&slots(200), &moved).unwrap();
    index.wait_indexed();
    assert_sound(&index);
    for offset in (0..200).step_by(10) {
        let query = &moved[offset * 16..(offset + 1) * 16];
        let hits = index.search(query, 2, &SearchParams { ef: Some(64), ..Default::default() }).unwrap();
        assert!(hits.iter().any(|hit| hit.slot == offset as u32), "moved slot {offset} not found");
    }
}

#[test]
fn searches_run_while_several_threads_insert() {
    let index = Arc::new(VectorIndex::new(graph_params(16, Metric::Cosine, 2)).unwrap());
    let data = Arc::new(clustered(6000, 16, 30, 10));
    let stop = Arc::new(AtomicBool::new(false));
    let searcher = {
        let (index, data, stop) = (Arc::clone(&index), Arc::clone(&data), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut searches = 0;
            while !stop.load(Ordering::Acquire) || searches < 50 {
                let query = &data[(searches % 6000) * 16..(searches % 6000 + 1) * 16];
                let hits = index.search(query, 5, &SearchParams::default()).unwrap();
                assert!(hits.windows(2).all(|pair| pair[0].score >= pair[1].score));
                searches += 1;
            }
            searches
        })
    };
    let writers: Vec<_> = (0..2)
        .map(|part| {
            let (index, data) = (Arc::clone(&index), Arc::clone(&data));
            std::thread::spawn(move || {
                for batch in (part * 3000..(part + 1) * 3000).step_by(100) {
                    let batch_slots: Vec<u32> = (batch as u32..batch as u32 + 100).collect();
                    index.upsert(&batch_slots, &data[batch * 16..(batch + 100) * 16]).unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    index.wait_indexed();
    stop.store(true, Ordering::Release);
    assert!(searcher.join().unwrap() >= 50);
    assert_eq!(index.stats().count, 6000);
    assert_sound(&index);
}

#[test]
fn a_checkpoint_restores_the_same_graph_and_answers() {
    let directory = std::env::temp_dir().join(format!("quiver-core-checkpoint-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("index.qvx");
    let (index, data) = built(2000, 12, Metric::Manhattan, 2, 11);
    index.delete(&[3, 4, 5]);
    index.save(&path, 42).unwrap();
    let (loaded, operation) = VectorIndex::load(&path).unwrap();
    assert_eq!(operation, 42);
    loaded.wait_indexed();
    assert_sound(&loaded);
    assert_eq!(loaded.stats().count, index.stats().count);
    assert_eq!(loaded.check_integrity().links, index.check_integrity().links, "graph was rebuilt, not loaded");
    for query in data.chunks_exact(12).step_by(100) {
        let params = SearchParams { ef: Some(32), ..Default::default() };
        assert_eq!(index.search(query, 10, &params).unwrap(), loaded.search(query, 10, &params).unwrap());
    }
    // The loaded index reads its rows in this very file until it has copied them (store.rs,
    // `AdoptedRows`): it goes before the file is rewritten in place below, which the server
    // never does (docs/durability.md, "Recovery steps").
    drop(loaded);

    let bytes = std::fs::read(&path).unwrap();
    for position in [20, bytes.len() / 3, bytes.len() - 10, bytes.len() - 1] {
        let mut flipped = bytes.clone();
        flipped[position] ^= 0x01;
        std::fs::write(&path, &flipped).unwrap();
        assert_eq!(VectorIndex::load(&path).err().unwrap().code, ErrorCode::CheckpointCorrupt, "flip at {position}");
    }
    for length in [0, 7, 12, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..length]).unwrap();
        assert_eq!(VectorIndex::load(&path).err().unwrap().code, ErrorCode::CheckpointCorrupt, "truncated to {length}");
    }
    let mut future = bytes.clone();
    future[8..12].copy_from_slice(&(crate::checkpoint::FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&path, &future).unwrap();
    assert_eq!(VectorIndex::load(&path).err().unwrap().code, ErrorCode::CheckpointVersion);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_checkpoint_returns_the_binding_it_was_saved_with_and_a_version_1_file_is_unbound() {
    let directory = std::env::temp_dir().join(format!("quiver-core-binding-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("index.qvx");
    let (index, _) = built(300, 8, Metric::Euclid, 1, 5);
    index.save_bound(&path, 9, "database-a/incarnation-b").unwrap();
    let (loaded, operation, binding) = VectorIndex::load_bound(&path).unwrap();
    assert_eq!((operation, binding.as_str()), (9, "database-a/incarnation-b"));
    assert_eq!(loaded.stats().count, 300);
    // A version 1 file: version 4's bytes (rows interleaved, as version 1 had them) without the
    // binding section and the datatype byte, re-checksummed with a CRC-32.
    index.save_as(&path, 9, "database-a/incarnation-b", 4).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let length = u16::from_le_bytes(bytes[12..14].try_into().unwrap()) as usize;
    let mut old = [&bytes[..8], &1u32.to_le_bytes(), &bytes[14 + length..19 + length], &bytes[20 + length..bytes.len() - 4]].concat();
    let checksum = crate::crc32::Crc32::of(&old);
    old.extend_from_slice(&checksum.to_le_bytes());
    std::fs::write(&path, &old).unwrap();
    let (loaded, operation, binding) = VectorIndex::load_bound(&path).unwrap();
    assert_eq!((operation, binding.as_str(), loaded.stats().count), (9, "", 300));
    assert_eq!(index.save_bound(&path, 1, &"x".repeat(257)).err().unwrap().code, ErrorCode::InvalidArgument);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_missing_checkpoint_is_its_own_code_not_an_io_error() {
    let directory = std::env::temp_dir().join(format!("quiver-core-missing-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let error = VectorIndex::load(&directory.join("absent.qvx")).err().unwrap();
    assert_eq!(error.code, ErrorCode::CheckpointMissing);
    // A path that exists but cannot be read as a file is a real read failure.
    assert_eq!(VectorIndex::load(&directory).err().unwrap().code, ErrorCode::Io);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_checkpoint_taken_mid_build_requeues_the_unlinked_tail() {
    let directory = std::env::temp_dir().join(format!("quiver-core-midbuild-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("index.qvx");
    let index = VectorIndex::new(graph_params(16, Metric::Euclid, 1)).unwrap();
    let data = clustered(3000, 16, 20, 12);
    index.upsert(&slots(3000), &data).unwrap();
    index.save(&path, 7).unwrap();
    let (loaded, _) = VectorIndex::load(&path).unwrap();
    loaded.wait_indexed();
    assert_eq!(loaded.stats().indexed_count, 3000);
    assert_sound(&loaded);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn idle_builder_threads_exit_and_new_writes_bring_them_back() {
    let index = VectorIndex::new(graph_params(8, Metric::Euclid, 2)).unwrap();
    let data = clustered(600, 8, 10, 13);
    index.upsert(&slots(300), &data[..300 * 8]).unwrap();
    index.wait_indexed();
    // Wait for the condition, never for a fixed time: the builders leave once idle.
    let mut polls = 0;
    while index.builder_threads() > 0 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        polls += 1;
        assert!(polls < 1000, "builder threads never exited");
    }
    let later: Vec<u32> = (300..600).collect();
    index.upsert(&later, &data[300 * 8..]).unwrap();
    index.wait_indexed();
    assert_eq!(index.stats().indexed_count, 600);
    assert_sound(&index);
}

#[test]
fn concurrent_builders_orphan_no_node() {
    // Two builders once raced: a node writing its own first link list could overwrite a link
    // a concurrent inserter had just added to it, orphaning that inserter. One builder never
    // orphans a node on this data; two must not either.
    for seed in 0..4 {
        let (index, _) = built(2000, 12, Metric::Manhattan, 2, 11 + seed);
        let report = index.check_integrity();
        assert!(report.is_ok());
        assert_eq!(report.unreachable, 0, "seed {seed}");
    }
}

#[test]
fn points_linked_after_every_earlier_point_was_deleted_stay_reachable_through_cleanup_and_revival() {
    // Linking runs behind the writes, so a delete can tombstone the points linked first before
    // the rest are linked (found under a multivector re-upsert, whose freed rows are the
    // first ones). Built here deterministically: every node the later inserts can reach is a
    // tombstone.
    let dimension = 8;
    let index = VectorIndex::new(graph_params(dimension, Metric::Euclid, 1)).unwrap();
    let data = clustered(600, dimension, 20, 31);
    let first: Vec<u32> = (0..15).collect();
    index.upsert(&first, &data[..15 * dimension]).unwrap();
    index.wait_indexed();
    index.delete(&first);
    let later: Vec<u32> = (15..600).collect();
    index.upsert(&later, &data[15 * dimension..]).unwrap();
    index.wait_indexed();
    assert_sound(&index);
    let queries = clustered(40, dimension, 20, 32);
    let recall = measured_recall(&index, &queries, 10, 64, None);
    assert!(recall >= 0.95, "recall with the first points deleted: {recall}");
    // Cleanup removes the tombstones those points were linked through.
    index.compact();
    assert_sound(&index);
    assert_eq!(index.check_integrity().nodes, 585);
    let recall = measured_recall(&index, &queries, 10, 64, None);
    assert!(recall >= 0.95, "recall after cleanup: {recall}");
    // Deleted again before cleanup, then revived with new vectors.
    index.delete(&(15..30).collect::<Vec<u32>>());
    index.upsert(&(15..30).collect::<Vec<u32>>(), &data[..15 * dimension]).unwrap();
    index.wait_indexed();
    assert_sound(&index);
    for slot in 15..30usize {
        let query = &data[(slot - 15) * dimension..(slot - 14) * dimension];
        assert_eq!(index.search(query, 1, &SearchParams::default()).unwrap()[0].slot, slot as u32);
    }
}

/// Random 8-d points in [-1, 1), `count` of them.
fn random_rows(random: &mut Random, count: usize) -> Vec<f32> {
    (0..count * 8).map(|_| random.uniform() * 2.0 - 1.0).collect()
}

/// A 420-point 8-d index on one or two builder threads (by `seed`), prepared by `configure`,
/// holding random points that are still being linked when this returns.
fn building(seed: u64, configure: impl FnOnce(&VectorIndex)) -> (VectorIndex, Random) {
    let index = VectorIndex::new(graph_params(8, Metric::Euclid, 1 + (seed % 2) as usize)).unwrap();
    configure(&index);
    let mut random = Random::new(seed);
    index.upsert(&slots(420), &random_rows(&mut random, 420)).unwrap();
    (index, random)
}

/// How many of `exact`'s slots `found` lacks.
fn missed(exact: &[crate::Hit], found: &[crate::Hit]) -> usize {
    let found: std::collections::HashSet<u32> = found.iter().map(|hit| hit.slot).collect();
    exact.iter().filter(|hit| !found.contains(&hit.slot)).count()
}

/// Calls `search` with random queries until the build is done (at least once, at most 100
/// times: a slow machine builds slower, not with more searches).
fn search_while_building(index: &VectorIndex, random: &mut Random, mut search: impl FnMut(&[f32])) {
    let mut searches = 0;
    while (index.stats().indexed_count < index.stats().count || searches == 0) && searches < 100 {
        search(&random_rows(random, 1));
        searches += 1;
    }
}

#[test]
fn deletes_racing_the_builder_leave_no_share_of_the_graph_unreachable() {
    // The same hazard left to timing, as the multivector write path meets it: delete the first
    // rows and the rows of replaced points while the builder is still linking, then re-upsert
    // into the freed slots.
    for seed in 0..60u64 {
        let (index, mut random) = building(seed, |_| {});
        std::thread::sleep(std::time::Duration::from_micros((seed % 10) * 40));
        index.delete(&(0..15).collect::<Vec<u32>>());
        index.delete(&(31..66).collect::<Vec<u32>>());
        let reused: Vec<u32> = (0..15).rev().chain(420..440).collect();
        index.upsert(&reused, &random_rows(&mut random, reused.len())).unwrap();
        index.wait_indexed();
        assert_sound(&index);
    }
}

#[test]
fn a_search_while_the_graph_is_built_finds_what_the_exact_scan_finds() {
    // Graph walk plus exact scan of the unlinked tail, at an ef covering the whole index: the
    // answer must be the exact one at every moment of the build. Two ways it was not: a walk
    // that met a node mid-insert on an upper level found no level-0 links there yet and
    // returned that node alone; and a slot linked during the walk was in neither list.
    for seed in 0..60u64 {
        let (index, mut random) = building(seed, |_| {});
        if seed % 3 == 0 {
            // Deletes and re-upserts into freed slots while linking runs.
            index.delete(&(0..15).collect::<Vec<u32>>());
            index.upsert(&(0..15).collect::<Vec<u32>>(), &random_rows(&mut random, 15)).unwrap();
        }
        search_while_building(&index, &mut random, |query| {
            let found = index.search(query, 200, &SearchParams { ef: Some(420), ..Default::default() }).unwrap();
            let missed = missed(&index.search_exact(query, 200, None).unwrap(), &found);
            // A handful may differ: a node mid-insert can sit behind a link being rewritten.
            assert!(missed <= 4, "seed {seed}: {missed} of 200 exact neighbours missed at {} of 420 linked", index.stats().indexed_count);
        });
    }
}

#[test]
fn filtered_and_quantized_searches_while_the_graph_is_built_find_what_the_exact_scan_finds() {
    // The rule above for the other walks over the same graph: both filtered walks (forced, so
    // each is exercised whatever the planner would pick) and the walk on int8 codes with
    // rescoring, each merged with the unlinked tail.
    let bits: Vec<u8> = vec![0b0101_0101; 420usize.div_ceil(8)];
    let allowed = AllowedSlots::new(&bits);
    for seed in 0..30u64 {
        let (index, mut random) = building(seed, |index| {
            if seed % 3 == 2 {
                index.set_quantization(Some(crate::quantization::QuantizationConfig::ScalarInt8 { quantile: None })).unwrap();
            }
        });
        search_while_building(&index, &mut random, |query| {
            let exact = index.search_exact(query, 100, Some(allowed)).unwrap();
            for strategy in [crate::FilterStrategy::PlainWalk, crate::FilterStrategy::TwoHopWalk] {
                let params = SearchParams { ef: Some(420), allowed: Some(allowed), strategy, ..Default::default() };
                let missed = missed(&exact, &index.search(query, 100, &params).unwrap());
                assert!(
                    missed <= 2,
                    "seed {seed}, {strategy:?}: {missed} of 100 exact neighbours missed at {} of 420 linked",
                    index.stats().indexed_count
                );
            }
            let quantization = crate::QuantizationSearch { oversampling: 4.0, ..Default::default() };
            let params = SearchParams { ef: Some(420), quantization, ..Default::default() };
            let missed = missed(&index.search_exact(query, 50, None).unwrap(), &index.search(query, 50, &params).unwrap());
            assert!(
                missed <= 2,
                "seed {seed}, quantized: {missed} of 50 exact neighbours missed at {} of 420 linked",
                index.stats().indexed_count
            );
        });
    }
}

#[test]
fn an_index_with_m_zero_links_nothing_and_answers_every_search_exactly_also_after_a_checkpoint() {
    // m 0 is Qdrant's switch for "no HNSW graph" (docs/api.md §4.1).
    let params = IndexParams { m: 0, ..graph_params(16, Metric::Euclid, 2) };
    params.validate().unwrap();
    assert!(IndexParams { m: 1, ..params.clone() }.validate().is_err());
    let index = VectorIndex::new(params).unwrap();
    let count = 3000;
    index.upsert(&slots(count), &clustered(count, 16, 30, 8)).unwrap();
    index.wait_indexed();
    assert_eq!(index.check_integrity().nodes, 0, "nothing is linked");
    assert_eq!(index.builder_threads(), 0, "no builder thread was started");
    let mut bits = vec![0u8; count.div_ceil(8)];
    for slot in (0..count).step_by(7) {
        bits[slot / 8] |= 1 << (slot % 8);
    }
    let queries = clustered(20, 16, 30, 9);
    let answers = |index: &VectorIndex| {
        for query in queries.chunks_exact(16) {
            // The smallest ef the walk could take: only the scan can give the exact answer.
            let plain = index.search(query, 10, &SearchParams { ef: Some(1), ..SearchParams::default() }).unwrap();
            assert_eq!(plain, index.search_exact(query, 10, None).unwrap());
            let allowed = Some(AllowedSlots::new(&bits));
            let filtered = index.search(query, 10, &SearchParams { ef: Some(1), allowed, ..SearchParams::default() }).unwrap();
            assert_eq!(filtered, index.search_exact(query, 10, allowed).unwrap());
            assert_eq!(plain.len(), 10);
        }
    };
    answers(&index);
    let directory = std::env::temp_dir().join(format!("quiver-core-m-zero-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("index.qvi");
    index.save(&path, 7).unwrap();
    let (loaded, operation) = VectorIndex::load(&path).unwrap();
    std::fs::remove_dir_all(&directory).unwrap();
    assert_eq!((operation, loaded.params().m), (7, 0));
    loaded.wait_indexed();
    assert_eq!(loaded.check_integrity().nodes, 0);
    answers(&loaded);
}
