//! Filtered search against the exact answer at every selectivity, with the planner's choice
//! and with each strategy forced (docs/architecture.md §19): the scan is the slow twin, the
//! filtered walk must keep recall@10 >= 0.95 from 0.1% to 100% of the points allowed.

use crate::index::plan::TWO_HOP_MIN_SELECTIVITY;
use crate::test_support::{clustered, recall, slots, Random};
use crate::{AllowedSlots, FilterStrategy, IndexParams, Metric, SearchParams, VectorIndex};

const COUNT: usize = 10_000;
const DIMENSION: usize = 128;
/// Gaussian clusters in 128 dimensions are hard for any graph (a cluster's points are nearly
/// equidistant from each other): the unfiltered search needs this ef for recall@10 >= 0.95.
const EF: usize = 128;

/// The `ef` the two-hop rule was calibrated at (the default search `ef` until the default became
/// the index's `ef_construct`, 100 here): the smaller the `ef`, the harder the rule.
const CALIBRATED_EF: usize = 64;

fn index_of_clustered_points() -> VectorIndex {
    let params = IndexParams {
        m: 16,
        ef_construct: 100,
        full_scan_threshold: 0,
        // One thread: the same graph on every run, so each recall asserted here is one number,
        // not a draw from concurrent builds.
        indexing_threads: 1,
        ..IndexParams::new(DIMENSION, Metric::Euclid)
    };
    let index = VectorIndex::new(params).unwrap();
    index.upsert(&slots(COUNT), &clustered(COUNT, DIMENSION, 100, 21)).unwrap();
    index.wait_indexed();
    index
}

/// Each slot allowed with probability `per_million` / 1,000,000.
fn random_filter(per_million: u64, seed: u64) -> Vec<u8> {
    let mut random = Random::new(seed);
    let mut bits = vec![0u8; COUNT.div_ceil(8)];
    for slot in 0..COUNT {
        if random.next_u64() % 1_000_000 < per_million {
            bits[slot / 8] |= 1 << (slot % 8);
        }
    }
    bits
}

fn recall_with(index: &VectorIndex, queries: &[f32], allowed: AllowedSlots<'_>, strategy: FilterStrategy, ef: usize) -> f64 {
    let mut found = Vec::new();
    let mut truth = Vec::new();
    for query in queries.chunks_exact(DIMENSION) {
        let params = SearchParams { ef: Some(ef), allowed: Some(allowed), strategy, ..SearchParams::default() };
        let hits = index.search(query, 10, &params).unwrap();
        assert!(hits.iter().all(|hit| allowed.contains(hit.slot)), "a result outside the filter");
        found.push(hits);
        truth.push(index.search_exact(query, 10, Some(allowed)).unwrap());
    }
    recall(&found, &truth)
}

#[test]
fn filtered_search_keeps_recall_at_every_selectivity_for_the_planner_and_both_forced_strategies() {
    let index = index_of_clustered_points();
    let queries = clustered(40, DIMENSION, 100, 22);
    for per_million in [1_000u64, 10_000, 50_000, 70_000, 100_000, 500_000, 1_000_000] {
        let bits = random_filter(per_million, per_million);
        let allowed = AllowedSlots::new(&bits);
        let mut strategies = vec![FilterStrategy::Auto, FilterStrategy::Scan, FilterStrategy::PlainWalk];
        // The planner never picks the two-hop walk below its minimum selectivity (plan.rs).
        if per_million as f64 / 1e6 >= TWO_HOP_MIN_SELECTIVITY {
            strategies.push(FilterStrategy::TwoHopWalk);
        }
        for strategy in strategies {
            let measured = recall_with(&index, &queries, allowed, strategy, EF);
            let percent = per_million as f64 / 10_000.0;
            assert!(measured >= 0.95, "{percent}% allowed, {strategy:?}: recall@10 {measured}");
            if strategy == FilterStrategy::Scan {
                assert_eq!(measured, 1.0, "{percent}% allowed: the forced scan is exact");
            }
        }
    }
}

#[test]
fn two_hop_walk_keeps_recall_at_ef_64_wherever_the_planner_may_pick_it() {
    // Clusters of ~100 points hold few allowed points each at low selectivity, and the walk,
    // which only steps onto allowed nodes, strands between them. At ef 64 it read
    // 0.95 at 5%, 0.9525 at 7% and 0.955 at 8% here (0.877 at 5% on bench:ann's 100k x 128
    // shape), against 0.98 at 9%, 0.99 at 10% and 20% and 0.975 at 50%: hence
    // TWO_HOP_MIN_SELECTIVITY, which this rule guards (lowered to 8% or below, it fails here).
    let index = index_of_clustered_points();
    let queries = clustered(40, DIMENSION, 100, 22);
    for per_million in [50_000u64, 70_000, 80_000, 90_000, 100_000, 200_000, 500_000] {
        if (per_million as f64 / 1e6) < TWO_HOP_MIN_SELECTIVITY {
            continue;
        }
        let bits = random_filter(per_million, per_million);
        let measured = recall_with(&index, &queries, AllowedSlots::new(&bits), FilterStrategy::TwoHopWalk, CALIBRATED_EF);
        assert!(measured >= 0.97, "{}% allowed, two-hop walk at ef {CALIBRATED_EF}: recall@10 {measured}", per_million as f64 / 10_000.0);
    }
}

#[test]
fn filtered_walk_returns_every_allowed_point_when_fewer_than_k_are_allowed() {
    let index = index_of_clustered_points();
    let bits = random_filter(500, 3);
    let allowed = AllowedSlots::new(&bits);
    let expected = allowed.count();
    let query = clustered(1, DIMENSION, 100, 4);
    for strategy in [FilterStrategy::PlainWalk, FilterStrategy::TwoHopWalk] {
        let params = SearchParams { ef: Some(16), allowed: Some(allowed), strategy, ..SearchParams::default() };
        let hits = index.search(&query, 10, &params).unwrap();
        assert_eq!(hits.len(), expected.min(10), "{strategy:?}");
    }
}

#[test]
fn filtered_walk_never_returns_a_deleted_point() {
    let index = index_of_clustered_points();
    let deleted: Vec<u32> = (0..COUNT as u32).filter(|slot| slot % 4 == 0).collect();
    index.delete(&deleted);
    let bits = random_filter(200_000, 5);
    let allowed = AllowedSlots::new(&bits);
    for query in clustered(10, DIMENSION, 100, 6).chunks_exact(DIMENSION) {
        let params = SearchParams { ef: Some(64), allowed: Some(allowed), strategy: FilterStrategy::TwoHopWalk, ..SearchParams::default() };
        for hit in index.search(query, 10, &params).unwrap() {
            assert!(hit.slot % 4 != 0, "deleted slot {} returned", hit.slot);
            assert!(allowed.contains(hit.slot));
        }
    }
}

#[test]
fn planner_at_a_small_ef_keeps_recall_level_with_the_plain_walk() {
    // The plain walk queues failing nodes too, so at ef 10 it already bridges between
    // clusters; the two-hop walk at ef 10 does not (recall 0.83 against 0.989 at 10% allowed
    // on bench:ann's 128-d shape). Whichever walk the planner picks must not trade that away:
    // the two-hop walk runs at no less than its floor (plan::two_hop_ef).
    let index = index_of_clustered_points();
    let queries = clustered(40, DIMENSION, 100, 22);
    for per_million in [100_000u64, 200_000, 500_000] {
        let bits = random_filter(per_million, per_million);
        let allowed = AllowedSlots::new(&bits);
        let plain = recall_with(&index, &queries, allowed, FilterStrategy::PlainWalk, 10);
        let planned = recall_with(&index, &queries, allowed, FilterStrategy::Auto, 10);
        let percent = per_million as f64 / 10_000.0;
        println!("{percent}% allowed, ef 10: plain walk {plain}, planner {planned}");
        assert!(planned >= plain - 0.02, "{percent}% allowed, ef 10: the planner's pick read {planned}, the plain walk {plain}");
    }
}

#[test]
fn quantized_filtered_search_keeps_recall_at_every_selectivity_and_returns_every_allowed_point_when_few_are() {
    // The quantized walk (index/quantized.rs) scores codes and rescores with the originals; a
    // filter must cost it no more recall than it costs the float walk.
    use crate::index::QuantizationSearch;
    use crate::quantization::QuantizationConfig;
    let index = index_of_clustered_points();
    index.set_quantization(Some(QuantizationConfig::ScalarInt8 { quantile: None })).unwrap();
    index.wait_quantized();
    let queries = clustered(40, DIMENSION, 100, 22);
    // Up to half the points: with all of them allowed this is the unfiltered quantized walk, not
    // a filter's cost (0.948 here at ef 128, where the float walk only just reaches 0.95).
    for (per_million, strategy) in [500u64, 1_000, 10_000, 100_000, 500_000].into_iter().flat_map(|per_million| {
        [FilterStrategy::Auto, FilterStrategy::PlainWalk, FilterStrategy::TwoHopWalk].map(|strategy| (per_million, strategy))
    }) {
        let bits = random_filter(per_million, per_million);
        let allowed = AllowedSlots::new(&bits);
        let (mut found, mut truth) = (Vec::new(), Vec::new());
        for query in queries.chunks_exact(DIMENSION) {
            let quantization = QuantizationSearch { oversampling: 4.0, ..QuantizationSearch::default() };
            let params = SearchParams { ef: Some(EF), allowed: Some(allowed), quantization, strategy, ..SearchParams::default() };
            let hits = index.search(query, 10, &params).unwrap();
            assert!(hits.iter().all(|hit| allowed.contains(hit.slot)), "a result outside the filter");
            let exact = index.search_exact(query, 10, Some(allowed)).unwrap();
            assert_eq!(hits.len(), exact.len(), "{per_million} per million allowed, {strategy:?}: fewer hits than allowed points");
            found.push(hits);
            truth.push(exact);
        }
        let measured = recall(&found, &truth);
        eprintln!("int8, {}% allowed, {strategy:?}: recall@10 {measured:.3}", per_million as f64 / 10_000.0);
        assert!(measured >= 0.95, "int8, {}% allowed, {strategy:?}: recall@10 {measured}", per_million as f64 / 10_000.0);
    }
}
