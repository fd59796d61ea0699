//! The pruned search against its exact twin, and the twin against a naive scorer written
//! from the definition, on seeded random data shaped like learned sparse vectors.

use super::*;
use crate::error::ErrorCode;
use crate::test_support::Random;

/// Draws dimensions with probability ∝ 1 / rank^1.1 over `vocabulary` terms.
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(vocabulary: usize) -> Zipf {
        let mut total = 0.0;
        let cumulative = (1..=vocabulary)
            .map(|rank| {
                total += 1.0 / (rank as f64).powf(1.1);
                total
            })
            .collect();
        Zipf { cumulative }
    }

    fn draw(&self, random: &mut Random) -> u32 {
        let target = random.uniform() as f64 * self.cumulative.last().unwrap();
        self.cumulative.partition_point(|value| *value < target).min(self.cumulative.len() - 1) as u32
    }

    /// 1..=`most` draws (distinct dimensions kept) with weights; `negative` is the share of
    /// negative ones.
    fn vector(&self, random: &mut Random, most: usize, negative: f32) -> (Vec<u32>, Vec<f32>) {
        let count = 1 + (random.next_u64() % most as u64) as usize;
        let mut indices: Vec<u32> = (0..count).map(|_| self.draw(random)).collect();
        indices.sort_unstable();
        indices.dedup();
        let values = indices
            .iter()
            .map(|_| {
                // Coarse values make exact ties common, so tie-breaking is exercised too.
                let magnitude = (random.uniform() * 8.0).ceil() / 4.0;
                if random.uniform() < negative {
                    -magnitude
                } else {
                    magnitude
                }
            })
            .collect();
        (indices, values)
    }
}

fn random_filter(random: &mut Random, bound: usize, share: f32) -> Vec<u8> {
    let mut bytes = vec![0u8; bound.div_ceil(8)];
    for slot in 0..bound {
        if random.uniform() < share {
            bytes[slot >> 3] |= 1 << (slot & 7);
        }
    }
    bytes
}

/// Scores straight from the definition: every stored vector, dot product (in f64) over the
/// dimensions it shares with the query; ordered by score descending, then slot.
fn naive(index: &SparseIndex, bound: u32, indices: &[u32], values: &[f32], allowed: Option<&[u8]>) -> Vec<(u32, f64)> {
    let mut scored = Vec::new();
    for slot in 0..bound {
        let Some(stored) = index.vector(slot) else { continue };
        if allowed.is_some_and(|bytes| !AllowedSlots::new(bytes).contains(slot)) {
            continue;
        }
        let mut shared = false;
        let mut score = 0.0f64;
        for (dimension, weight) in indices.iter().zip(values) {
            if let Ok(position) = stored.indices.binary_search(dimension) {
                shared = true;
                score += f64::from(*weight) * f64::from(stored.values[position]);
            }
        }
        if shared {
            scored.push((slot, score));
        }
    }
    scored.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
    scored
}

/// `count` vectors on slots 0, stride, 2·stride, ... (a stride spreads them over several of
/// the pruned scorer's windows).
fn build_spread(random: &mut Random, zipf: &Zipf, count: u32, stride: u32, negative: f32) -> SparseIndex {
    let index = SparseIndex::new();
    for slot in (0..count).map(|number| number * stride) {
        let (indices, values) = zipf.vector(random, 40, negative);
        index.upsert(slot, &indices, &values).unwrap();
    }
    // Churn: replacements (new dimensions, some slots below the lists' ends) and deletions,
    // so dead postings, revived entries and compactions are all in play.
    for _ in 0..count / 3 {
        let slot = (random.next_u64() % count as u64) as u32 * stride;
        if random.uniform() < 0.5 {
            index.delete(&[slot]);
        } else {
            let (indices, values) = zipf.vector(random, 40, negative);
            index.upsert(slot, &indices, &values).unwrap();
        }
    }
    index
}

fn build(random: &mut Random, zipf: &Zipf, count: u32, negative: f32) -> SparseIndex {
    build_spread(random, zipf, count, 1, negative)
}

#[test]
fn pruned_search_returns_exactly_the_exact_twins_hits_on_random_data() {
    let mut random = Random::new(7);
    let zipf = Zipf::new(400);
    for (round, (negative, stride)) in [(0.0f32, 1u32), (0.0, 11), (0.2, 5), (0.5, 1), (0.1, 23)].into_iter().enumerate() {
        let count = 1500;
        let index = build_spread(&mut random, &zipf, count, stride, negative);
        let bound = (count * stride) as usize;
        for query_number in 0..60 {
            let query_negative = if query_number % 3 == 0 { 0.3 } else { negative };
            let (indices, values) = zipf.vector(&mut random, 25, query_negative);
            let filter = match query_number % 4 {
                0 => None,
                1 => Some(random_filter(&mut random, bound, 0.1)),
                2 => Some(random_filter(&mut random, bound, 0.6)),
                _ => Some(random_filter(&mut random, bound / 2, 0.9)),
            };
            for k in [1usize, 3, 10, 57, 5000] {
                let allowed = filter.as_deref().map(AllowedSlots::new);
                let fast = index.search(&indices, &values, k, &SparseSearchParams { exact: false, allowed }).unwrap();
                let exact = index.search(&indices, &values, k, &SparseSearchParams { exact: true, allowed }).unwrap();
                let bits = |hits: &[Hit]| hits.iter().map(|hit| (hit.slot, hit.score.to_bits())).collect::<Vec<_>>();
                assert_eq!(bits(&fast), bits(&exact), "round {round} query {query_number} k {k}");
            }
        }
    }
}

#[test]
fn exact_twin_agrees_with_the_definition() {
    let mut random = Random::new(11);
    let zipf = Zipf::new(120);
    let count = 400;
    let index = build(&mut random, &zipf, count, 0.3);
    for query_number in 0..40 {
        let (indices, values) = zipf.vector(&mut random, 12, 0.3);
        let filter = (query_number % 2 == 1).then(|| random_filter(&mut random, count as usize, 0.5));
        let k = 1 + (random.next_u64() % 30) as usize;
        let params = SparseSearchParams { exact: true, allowed: filter.as_deref().map(AllowedSlots::new) };
        let hits = index.search(&indices, &values, k, &params).unwrap();
        let expected = naive(&index, count, &indices, &values, filter.as_deref());
        assert_eq!(hits.len(), expected.len().min(k), "query {query_number}");
        for (position, hit) in hits.iter().enumerate() {
            // Scores agree to rounding; the slot must have the naive score at that rank.
            let (_, naive_score) = expected.iter().find(|(slot, _)| *slot == hit.slot).expect("a hit the definition scores");
            assert!((f64::from(hit.score) - naive_score).abs() < 1e-3, "query {query_number} slot {}", hit.slot);
            assert!((expected[position].1 - naive_score).abs() < 1e-3, "query {query_number} rank {position}");
        }
    }
}

#[test]
fn sparse_search_returns_points_sharing_an_index_even_at_score_zero_and_never_the_others() {
    let index = SparseIndex::new();
    index.upsert(0, &[1, 2], &[1.0, 1.0]).unwrap();
    index.upsert(1, &[3], &[5.0]).unwrap();
    index.upsert(2, &[2], &[0.0]).unwrap();
    index.upsert(3, &[1, 2], &[1.0, -1.0]).unwrap();
    for exact in [false, true] {
        let hits = index.search(&[2, 1], &[1.0, 1.0], 10, &SparseSearchParams { exact, allowed: None }).unwrap();
        let pairs: Vec<(u32, f32)> = hits.iter().map(|hit| (hit.slot, hit.score)).collect();
        // Slot 3 scores 1 - 1 = 0 and ties slot 2: the smaller slot first; slot 1 shares nothing.
        assert_eq!(pairs, vec![(0, 2.0), (2, 0.0), (3, 0.0)], "exact {exact}");
        assert!(hits.iter().all(|hit| hit.score.to_bits() != (-0.0f32).to_bits()));
    }
}

#[test]
fn a_deleted_or_replaced_vector_never_scores_with_its_old_values() {
    let index = SparseIndex::new();
    index.upsert(4, &[1], &[9.0]).unwrap();
    index.upsert(5, &[1, 2], &[1.0, 1.0]).unwrap();
    index.upsert(4, &[2], &[0.5]).unwrap();
    assert_eq!(index.delete(&[5, 5, 77]), 1);
    for exact in [false, true] {
        let hits = index.search(&[1, 2], &[1.0, 1.0], 10, &SparseSearchParams { exact, allowed: None }).unwrap();
        assert_eq!(hits, vec![Hit { slot: 4, score: 0.5 }]);
    }
}

#[test]
fn sparse_vectors_read_back_sorted_with_document_frequencies_and_stats() {
    let index = SparseIndex::new();
    index.upsert(2, &[30, 10, 20], &[3.0, 1.0, 2.0]).unwrap();
    index.upsert(0, &[10], &[-1.0]).unwrap();
    index.upsert(1, &[], &[]).unwrap();
    let stored = index.vector(2).unwrap();
    assert_eq!((stored.indices, stored.values), (vec![10, 20, 30], vec![1.0, 2.0, 3.0]));
    assert_eq!(index.vector(1), Some(SparseVector::default()));
    assert_eq!(index.vector(3), None);
    assert_eq!(index.document_frequencies(&[10, 20, 99]), vec![2, 1, 0]);
    let stats = index.stats();
    assert_eq!((stats.count, stats.non_zeros, stats.dimensions), (3, 4, 3));
    assert!(stats.memory_bytes >= 4 * 12);
}

#[test]
fn sparse_upserts_are_validated_whole_before_any_change() {
    let index = SparseIndex::new();
    let invalid = [
        index.upsert_batch(&[0, 1], &[0, 1, 2], &[1, 2], &[1.0, f32::NAN]),
        index.upsert_batch(&[0, 1], &[0, 2, 2], &[4, 4], &[1.0, 1.0]),
        index.upsert_batch(&[0], &[0, 2], &[1], &[1.0]),
        index.upsert_batch(&[0], &[0], &[], &[]),
        index.upsert_batch(&[0, 1], &[0, 2, 1], &[1, 2], &[1.0, 1.0]),
        index.upsert_batch(&[u32::MAX], &[0, 1], &[1], &[1.0]),
        index.upsert(0, &[1, 2], &[1.0]),
    ];
    for (position, result) in invalid.into_iter().enumerate() {
        assert_eq!(result.unwrap_err().code, ErrorCode::InvalidArgument, "case {position}");
    }
    assert_eq!(index.stats().count, 0);
    let refused = index.search(&[1, 1], &[1.0, 1.0], 3, &SparseSearchParams::default()).unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidArgument);
    index.upsert_batch(&[3, 3], &[0, 1, 2], &[1, 2], &[1.0, 2.0]).unwrap();
    assert_eq!(index.vector(3).unwrap().indices, vec![2]);
}

fn temporary_path(name: &str) -> std::path::PathBuf {
    let directory = std::env::temp_dir().join(format!("quiver-sparse-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    directory.join("sparse.qsp")
}

#[test]
fn sparse_checkpoint_round_trips_and_answers_identically() {
    let mut random = Random::new(3);
    let zipf = Zipf::new(200);
    let index = build(&mut random, &zipf, 500, 0.2);
    index.upsert(600, &[], &[]).unwrap();
    let path = temporary_path("round-trip");
    index.save(&path, 42).unwrap();
    let (loaded, last_operation_id) = SparseIndex::load(&path).unwrap();
    assert_eq!(last_operation_id, 42);
    let (before, after) = (index.stats(), loaded.stats());
    assert_eq!((before.count, before.non_zeros, before.dimensions), (after.count, after.non_zeros, after.dimensions));
    for slot in 0..700 {
        assert_eq!(index.vector(slot), loaded.vector(slot), "slot {slot}");
    }
    for _ in 0..20 {
        let (indices, values) = zipf.vector(&mut random, 10, 0.2);
        let params = SparseSearchParams::default();
        assert_eq!(index.search(&indices, &values, 10, &params).unwrap(), loaded.search(&indices, &values, 10, &params).unwrap());
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_sparse_checkpoint_returns_its_binding() {
    let index = SparseIndex::new();
    index.upsert(1, &[5, 6], &[1.0, 2.0]).unwrap();
    let path = temporary_path("binding");
    index.save_bound(&path, 3, "database/incarnation").unwrap();
    let (loaded, operation, binding) = SparseIndex::load_bound(&path).unwrap();
    assert_eq!((operation, binding.as_str(), loaded.stats().count), (3, "database/incarnation", 1));
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_damaged_truncated_or_foreign_sparse_checkpoint_is_refused() {
    let index = SparseIndex::new();
    index.upsert(1, &[5, 6], &[1.0, 2.0]).unwrap();
    let path = temporary_path("damaged");
    index.save(&path, 7).unwrap();
    let good = std::fs::read(&path).unwrap();
    let mut flipped = good.clone();
    flipped[20] ^= 0x40;
    let mut version = good.clone();
    version[8] = 9;
    let cases = [
        (flipped, ErrorCode::CheckpointCorrupt),
        (good[..good.len() - 3].to_vec(), ErrorCode::CheckpointCorrupt),
        ([b"QUIVERIX".as_slice(), &good[8..]].concat(), ErrorCode::CheckpointCorrupt),
        (version, ErrorCode::CheckpointVersion),
    ];
    for (position, (bytes, code)) in cases.into_iter().enumerate() {
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(SparseIndex::load(&path).err().map(|error| error.code), Some(code), "case {position}");
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}
