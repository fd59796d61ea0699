//! A fixed workload for `perf`: builds a clustered index, then times single-thread searches.
//! `cargo run --release --example profile_search -- [count] [dimension] [ef] [threads]`

use quiver_core::{IndexParams, Metric, SearchParams, VectorIndex};
use std::time::Instant;

fn main() {
    let arguments: Vec<usize> = std::env::args().skip(1).map(|value| value.parse().expect("numbers")).collect();
    let count = arguments.first().copied().unwrap_or(50_000);
    let dimension = arguments.get(1).copied().unwrap_or(128);
    let ef = arguments.get(2).copied().unwrap_or(32);
    let threads = arguments.get(3).copied().unwrap_or(2);
    let mut state = 0x2545_F491_4F6C_DD1Du64;
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
    let clusters = 500;
    let centres: Vec<f32> = (0..clusters * dimension).map(|_| gaussian() * 4.0).collect();
    let mut data = Vec::with_capacity((count + 2000) * dimension);
    for row in 0..count + 2000 {
        let centre = (row * 7919) % clusters;
        for column in 0..dimension {
            data.push(centres[centre * dimension + column] + gaussian());
        }
    }
    let params = IndexParams {
        m: 16,
        ef_construct: 128,
        full_scan_threshold: 1000,
        indexing_threads: threads,
        ..IndexParams::new(dimension, Metric::Euclid)
    };
    let index = VectorIndex::new(params).unwrap();
    let slots: Vec<u32> = (0..count as u32).collect();
    let start = Instant::now();
    index.upsert(&slots, &data[..count * dimension]).unwrap();
    index.wait_indexed();
    println!("build: {:.2} s with {threads} threads", start.elapsed().as_secs_f64());
    let queries = &data[count * dimension..];
    let search = SearchParams { ef: Some(ef), ..Default::default() };
    let start = Instant::now();
    let mut total = 0usize;
    for _round in 0..10 {
        for query in queries.chunks_exact(dimension) {
            total += index.search(query, 10, &search).unwrap().len();
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!("search: {:.1} us per query at ef {ef} ({total} hits)", elapsed * 1e6 / 20_000.0);
}
