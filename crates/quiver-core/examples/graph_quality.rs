//! Graph quality at equal `ef`: builds a clustered L2 index (the shape of bench:ann's 128-d set)
//! and prints recall@10 and the time per query for an `ef` sweep, so a construction change is
//! judged by recall at the same `ef` (and the same data as hnswlib, below).
//! `cargo run --release -p quiver-core --example graph_quality -- [count] [dimension] [threads] [output directory]`
//! With an output directory it also writes base.f32, queries.f32 and truth.i32 (10 ids per
//! query), the files bench/ann/native/hnswlib_bench.cpp reads, so hnswlib can be scored on the
//! very same data. Also the fixed, seeded workload to run under `perf` or valgrind when the
//! search loop changes.

use quiver_core::{IndexParams, Metric, SearchParams, VectorIndex};
use std::time::Instant;

const QUERIES: usize = 1_000;
const K: usize = 10;

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let number = |position: usize, default: usize| arguments.get(position).map_or(default, |value| value.parse().expect("a number"));
    let count = number(0, 100_000);
    let dimension = number(1, 128);
    let threads = number(2, 1);
    let output = arguments.get(3).cloned();

    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 40) as f32 + 0.5) / (1u64 << 24) as f32
    };
    let mut gaussian = move || {
        let (a, b) = (uniform(), uniform());
        (-2.0 * a.ln()).sqrt() * (std::f32::consts::TAU * b).cos()
    };
    let clusters = 1_000;
    let centres: Vec<f32> = (0..clusters * dimension).map(|_| gaussian() * 4.0).collect();
    let rows = count + QUERIES;
    let mut data = Vec::with_capacity(rows * dimension);
    let mut pick = 0x2545_F491_4F6C_DD1Du64;
    for _row in 0..rows {
        pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let centre = (pick >> 33) as usize % clusters;
        for column in 0..dimension {
            data.push(centres[centre * dimension + column] + gaussian());
        }
    }
    let (base, queries) = data.split_at(count * dimension);

    let truth: Vec<Vec<u32>> = queries
        .chunks_exact(dimension)
        .map(|query| {
            let mut scored: Vec<(f32, u32)> = base
                .chunks_exact(dimension)
                .enumerate()
                .map(|(row, vector)| (vector.iter().zip(query).map(|(a, b)| (a - b) * (a - b)).sum::<f32>(), row as u32))
                .collect();
            scored.select_nth_unstable_by(K, |a, b| a.0.total_cmp(&b.0));
            scored.truncate(K);
            scored.sort_by(|a, b| a.0.total_cmp(&b.0));
            scored.into_iter().map(|(_, row)| row).collect()
        })
        .collect();

    if let Some(directory) = &output {
        std::fs::create_dir_all(directory).expect("output directory");
        let bytes = |values: &[f32]| values.iter().flat_map(|value| value.to_le_bytes()).collect::<Vec<u8>>();
        std::fs::write(format!("{directory}/base.f32"), bytes(base)).expect("base.f32");
        std::fs::write(format!("{directory}/queries.f32"), bytes(queries)).expect("queries.f32");
        let ids: Vec<u8> = truth.iter().flatten().flat_map(|id| (*id as i32).to_le_bytes()).collect();
        std::fs::write(format!("{directory}/truth.i32"), ids).expect("truth.i32");
    }

    let params = IndexParams {
        m: 16,
        ef_construct: 128,
        full_scan_threshold: 1_000,
        indexing_threads: threads,
        ..IndexParams::new(dimension, Metric::Euclid)
    };
    let index = VectorIndex::new(params).expect("index");
    let slots: Vec<u32> = (0..count as u32).collect();
    let start = Instant::now();
    index.upsert(&slots, base).expect("upsert");
    index.wait_indexed();
    println!("build: {:.2} s with {threads} thread(s), {count} x {dimension}", start.elapsed().as_secs_f64());

    println!("ef\trecall@10\tus/query (best of 7 passes)");
    for ef in [10usize, 16, 24, 32, 48, 64, 96, 128] {
        let search = SearchParams { ef: Some(ef), ..Default::default() };
        // Best of seven passes: the machine is shared, the recall is the same every pass.
        let mut micros = f64::INFINITY;
        let mut found = 0usize;
        for _pass in 0..7 {
            let start = Instant::now();
            found = 0;
            for (query, expected) in queries.chunks_exact(dimension).zip(&truth) {
                let hits = index.search(query, K, &search).expect("search");
                found += hits.iter().filter(|hit| expected.contains(&hit.slot)).count();
            }
            micros = micros.min(start.elapsed().as_secs_f64() * 1e6 / QUERIES as f64);
        }
        println!("{ef}\t{:.4}\t{micros:.1}", found as f64 / (QUERIES * K) as f64);
    }
}
