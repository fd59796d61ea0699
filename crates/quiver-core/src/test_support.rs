//! Seeded data for tests: clustered Gaussian vectors (like real embeddings, unlike uniform
//! noise) and recall against the exact oracle.

use crate::index::{Hit, VectorIndex};
use crate::AllowedSlots;

pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Random {
        Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn uniform(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 + 0.5) / (1u64 << 24) as f32
    }

    /// A float32 for round `round` of a printing test, in turn: a uniform bit pattern (every
    /// exponent; some not finite), the unit range embeddings hold, a wide Gaussian value.
    pub fn printing_sample(&mut self, round: usize) -> f32 {
        match round % 3 {
            0 => f32::from_bits(self.next_u64() as u32),
            1 => self.uniform() * 2.0 - 1.0,
            _ => self.gaussian() * 1000.0,
        }
    }

    pub fn gaussian(&mut self) -> f32 {
        let (a, b) = (self.uniform(), self.uniform());
        (-2.0 * a.ln()).sqrt() * (std::f32::consts::TAU * b).cos()
    }
}

/// `count` vectors around `clusters` centres, row by row.
pub fn clustered(count: usize, dimension: usize, clusters: usize, seed: u64) -> Vec<f32> {
    let mut random = Random::new(seed);
    let centres: Vec<f32> = (0..clusters * dimension).map(|_| random.gaussian() * 3.0).collect();
    let mut data = Vec::with_capacity(count * dimension);
    for _ in 0..count {
        let centre = (random.next_u64() % clusters as u64) as usize;
        for value in &centres[centre * dimension..(centre + 1) * dimension] {
            data.push(value + random.gaussian());
        }
    }
    data
}

pub fn slots(count: usize) -> Vec<u32> {
    (0..count as u32).collect()
}

/// `count` rows of `dimension` values `datatype` holds exactly (uint8: integers 0..=255).
pub fn typed_data(datatype: crate::distance::Datatype, count: usize, dimension: usize, seed: u64) -> Vec<f32> {
    let data = clustered(count, dimension, 6, seed);
    match datatype {
        crate::distance::Datatype::Uint8 => data.iter().map(|value| (value * 20.0 + 128.0).round().clamp(0.0, 255.0)).collect(),
        _ => data.iter().map(|value| (value * 64.0).round() / 64.0).collect(),
    }
}

/// The values' bit patterns, so a comparison tells -0.0 from 0.0 and fails on a changed NaN.
pub fn bits(values: Vec<f32>) -> Vec<u32> {
    values.iter().map(|value| value.to_bits()).collect()
}

/// Waits (bounded) until a heap index loaded from a checkpoint reads no row from the file any
/// more (index/heap_copy.rs): until then its memory figures still grow.
pub fn wait_rows_copied(index: &VectorIndex) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while index.rows_read_from_checkpoint() > 0 {
        assert!(std::time::Instant::now() < deadline, "the rows were not copied within a minute");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Loads `path` as a system that cannot map files does: the verified bytes copied to the heap,
/// so a format 5 file's rows are copied row by row (index/persist.rs, `load_row_block`).
pub fn load_unmapped(path: &std::path::Path, storage: crate::index::VectorStorage) -> crate::KernelResult<VectorIndex> {
    let (body, version) = crate::checkpoint::read_verified_mapped(path)?;
    VectorIndex::load_verified(std::sync::Arc::new(body.copied()), version, storage).map(|(index, ..)| index)
}

/// Mean recall@k of `found` against `truth`.
pub fn recall(found: &[Vec<Hit>], truth: &[Vec<Hit>]) -> f64 {
    let mut hits = 0usize;
    let mut total = 0usize;
    for (found, truth) in found.iter().zip(truth) {
        total += truth.len();
        hits += truth.iter().filter(|expected| found.iter().any(|hit| hit.slot == expected.slot)).count();
    }
    if total == 0 {
        1.0
    } else {
        hits as f64 / total as f64
    }
}

/// Recall@k of graph searches (ef) against the exact oracle over `queries`.
pub fn measured_recall(index: &VectorIndex, queries: &[f32], k: usize, ef: usize, allowed: Option<AllowedSlots<'_>>) -> f64 {
    let dimension = index.dimension();
    let mut found = Vec::new();
    let mut truth = Vec::new();
    for query in queries.chunks_exact(dimension) {
        let params = crate::SearchParams { ef: Some(ef), exact: false, allowed, ..Default::default() };
        found.push(index.search(query, k, &params).unwrap());
        truth.push(index.search_exact(query, k, allowed).unwrap());
    }
    recall(&found, &truth)
}

/// The slow twin of every table- or instruction-driven CRC here: a reflected CRC-32 computed a
/// bit at a time straight from `polynomial` (0xEDB8_8320 for CRC-32, 0x82F6_3B78 for CRC-32C).
pub fn bitwise_crc(bytes: &[u8], polynomial: u32) -> u32 {
    let mut crc = !0u32;
    for byte in bytes {
        crc ^= *byte as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ polynomial } else { crc >> 1 };
        }
    }
    !crc
}
