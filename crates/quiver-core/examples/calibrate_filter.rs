//! Calibration of the filtered-search planner (index/plan.rs): builds a clustered index, then
//! for a range of selectivities times each strategy forced (exact scan, plain walk, two-hop
//! walk) and prints microseconds per query, recall@10 against the scan, the model's estimates,
//! and the planner's own pick with its time and recall (it may run the two-hop walk at a larger
//! `ef` than asked: index/plan.rs, `two_hop_ef`). `cargo run --release -p quiver-core --example calibrate_filter -- [count] [dimension] [ef] [clusters]`
//! `ef` may be a list (`10,16,24,32`): the walks differ in recall at the same `ef`, so strategies
//! are compared at equal recall, over one build. `clusters` defaults to √count / 4 (bench:ann's
//! 128-d set has 1,000 for 100k).

use quiver_core::index::plan::{plain_walk_cost, scan_cost, walk_cost, PlanInput};
use quiver_core::{AllowedSlots, FilterStrategy, Hit, IndexParams, Metric, SearchParams, VectorIndex};
use std::time::Instant;

fn main() {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let number = |position: usize, default: usize| words.get(position).map_or(default, |value| value.parse().expect("a number"));
    let count = number(0, 100_000);
    let dimension = number(1, 128);
    let efs: Vec<usize> = words.get(2).map_or(vec![64], |list| list.split(',').map(|value| value.parse().expect("ef numbers")).collect());
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut gaussian = {
        let mut uniform_state = 0x9E37_79B9_7F4A_7C15u64;
        move || {
            let mut uniform = || {
                uniform_state ^= uniform_state << 13;
                uniform_state ^= uniform_state >> 7;
                uniform_state ^= uniform_state << 17;
                ((uniform_state >> 40) as f32 + 0.5) / (1u64 << 24) as f32
            };
            let (a, b) = (uniform(), uniform());
            (-2.0 * a.ln()).sqrt() * (std::f32::consts::TAU * b).cos()
        }
    };
    let clusters = number(3, (count as f64).sqrt() as usize / 4 + 1);
    let queries = 200;
    let centres: Vec<f32> = (0..clusters * dimension).map(|_| gaussian() * 4.0).collect();
    let mut data = Vec::with_capacity((count + queries) * dimension);
    for _ in 0..count + queries {
        let centre = (next() % clusters as u64) as usize;
        for column in 0..dimension {
            data.push(centres[centre * dimension + column] + gaussian());
        }
    }
    let params = IndexParams {
        m: 16,
        ef_construct: 128,
        full_scan_threshold: 0,
        indexing_threads: 2,
        ..IndexParams::new(dimension, Metric::Euclid)
    };
    let index = VectorIndex::new(params).unwrap();
    let slots: Vec<u32> = (0..count as u32).collect();
    index.upsert(&slots, &data[..count * dimension]).unwrap();
    index.wait_indexed();
    let queries = &data[count * dimension..];
    println!("{count} x {dimension}, {clusters} clusters, {} queries", queries.len() / dimension);
    println!("selectivity | ef | scan us | plain us / recall | two-hop us / recall | model scan / plain / two-hop (us) | planner's pick: us / recall");
    for per_mille in [10u64, 20, 50, 100, 200, 500, 1000] {
        let mut bits = vec![0u8; count.div_ceil(8)];
        for slot in 0..count {
            if next() % 1000 < per_mille {
                bits[slot / 8] |= 1 << (slot % 8);
            }
        }
        let allowed = AllowedSlots::new(&bits);
        for &ef in &efs {
            let run = |strategy: FilterStrategy| -> (f64, Vec<Vec<Hit>>) {
                let params = SearchParams { ef: Some(ef), allowed: Some(allowed), strategy, ..SearchParams::default() };
                let mut best = f64::INFINITY;
                let mut found = Vec::new();
                for _pass in 0..2 {
                    found.clear();
                    let start = Instant::now();
                    for query in queries.chunks_exact(dimension) {
                        found.push(index.search(query, 10, &params).unwrap());
                    }
                    best = best.min(start.elapsed().as_secs_f64() * 1e6 / (queries.len() / dimension) as f64);
                }
                (best, found)
            };
            let (scan, truth) = run(FilterStrategy::Scan);
            let (plain, plain_found) = run(FilterStrategy::PlainWalk);
            let (two_hop, two_hop_found) = run(FilterStrategy::TwoHopWalk);
            let (auto, auto_found) = run(FilterStrategy::Auto);
            if per_mille == 1000 {
                let params = SearchParams { ef: Some(ef), ..SearchParams::default() };
                let mut best = f64::INFINITY;
                for _pass in 0..2 {
                    let start = Instant::now();
                    for query in queries.chunks_exact(dimension) {
                        std::hint::black_box(index.search(query, 10, &params).unwrap());
                    }
                    best = best.min(start.elapsed().as_secs_f64() * 1e6 / (queries.len() / dimension) as f64);
                }
                println!("    unfiltered search (no allowed set): {best:.1} us");
            }
            let recall = |found: &[Vec<Hit>]| {
                let total: usize = truth.iter().map(Vec::len).sum();
                let hits: usize = found
                    .iter()
                    .zip(&truth)
                    .map(|(found, truth)| truth.iter().filter(|hit| found.iter().any(|other| other.slot == hit.slot)).count())
                    .sum();
                hits as f64 / total.max(1) as f64
            };
            let mut counts = (0usize, 0usize);
            for query in queries.chunks_exact(dimension) {
                let walked = index.two_hop_walk_counts(query, 10, ef, allowed);
                counts.0 += walked.scored;
                counts.1 += walked.links_read;
            }
            let per_query = (queries.len() / dimension) as f64;
            println!(
                "    two-hop walk per query: {:.0} scored, {:.0} links read",
                counts.0 as f64 / per_query,
                counts.1 as f64 / per_query
            );
            let input = PlanInput { allowed: allowed.count(), graph_nodes: count, dimension, m0: 32, ef };
            println!(
                "{:>6.1}% | {ef:>3} | {scan:>8.1} | {plain:>8.1} / {:.3} | {two_hop:>8.1} / {:.3} | {:.1} / {:.1} / {:.1} | {:?}: {auto:.1} / {:.3}",
                per_mille as f64 / 10.0,
                recall(&plain_found),
                recall(&two_hop_found),
                scan_cost(&input) / 1000.0,
                plain_walk_cost(&input) / 1000.0,
                walk_cost(&input) / 1000.0,
                quiver_core::index::plan::cheapest(&input),
                recall(&auto_found)
            );
        }
    }
}
