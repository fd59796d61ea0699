//! Quantized copies of the stored vectors: the HNSW search walks the graph scoring these small
//! codes (kernels.rs), then rescores its candidates with the original float vectors
//! (index/quantized_search.rs). The originals stay in the store; codes are derived data, kept
//! on the heap, or for an `on_disk` index with `always_ram: false` in unlinked file-backed
//! working memory (mapped.rs), never persisted: they are rebuilt from the originals when a
//! collection loads (docs/architecture.md §12).
//!
//! Codes are kept per arena row of the store (store.rs): a row is written once, so its code is
//! written once too, before the row is published, and a reader that sees the row sees its code.
//!
//! - Scalar int8: one global range [low, high] from the `quantile` of the trained values; a value
//!   x is stored as c = round((x − low) / alpha) in 0..=255 with alpha = (high − low) / 255, so
//!   x ≈ low + alpha·c. Each code keeps one f32 correction term so that dot products and L2
//!   distances come out of one integer dot product (see `Quantized::distance`).
//! - Binary (binary.rs): one bit per value (`one_bit`), set when it lies above that
//!   dimension's mean over the trained vectors (centring first: sign bits of data far from the
//!   origin all agree and say nothing), four levels (`two_bits`), or three levels with an
//!   explicit zero for half of the dimensions (`one_and_half_bits`); scored by the Hamming (for
//!   four levels: level) distance to the query's own code, or (asymmetric `query_encoding`) by an
//!   8- or 4-bit query against the codes' reconstruction.

pub mod binary;
pub mod kernels;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::distance::Metric;
use crate::rows::Rows;
pub use binary::{BinaryEncoding, QueryEncoding};
use binary::{BinaryQuery, Codebook};
use kernels::CodeKernels;

/// Values sampled for training are capped, so training time stays bounded at any size.
pub const MAX_TRAINING_VALUES: usize = 1 << 20;
/// How much of a code row a walk asks the CPU to load ahead (`Quantized::prefetch`).
const CODE_PREFETCH_BYTES: usize = 512;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QuantizationConfig {
    /// `quantile` in [0.5, 1]; None keeps the full range of the trained values.
    ScalarInt8 {
        quantile: Option<f32>,
    },
    Binary {
        encoding: BinaryEncoding,
        query_encoding: QueryEncoding,
    },
}

impl QuantizationConfig {
    /// Binary one_bit with the query encoded like the codes (the defaults of Qdrant's shape).
    pub const BINARY_ONE_BIT: QuantizationConfig =
        QuantizationConfig::Binary { encoding: BinaryEncoding::OneBit, query_encoding: QueryEncoding::SameAsStorage };

    pub fn validate(&self) -> Result<(), String> {
        if let QuantizationConfig::ScalarInt8 { quantile: Some(quantile) } = self {
            if !(0.5..=1.0).contains(quantile) {
                return Err(format!("quantile must be between 0.5 and 1, got {quantile}"));
            }
        }
        Ok(())
    }
}

/// A query encoded for one quantizer.
pub struct QueryCode {
    code: Vec<u8>,
    correction: f32,
    binary: Option<BinaryQuery>,
}

pub struct Quantized {
    pub config: QuantizationConfig,
    metric: Metric,
    dimension: usize,
    kernels: CodeKernels,
    low: f32,
    alpha: f32,
    code_length: usize,
    /// What binary codes were trained on (binary only).
    binary: Option<Codebook>,
    /// Per arena row: code_length bytes of code, then (int8) its f32 correction, little-endian,
    /// or (binary, asymmetric query) its `CodeExtra`, so scoring a point reads one row.
    codes: Rows<u8>,
    /// How many vectors the range was trained on (the index retrains as the collection grows).
    pub trained_on: usize,
}

impl Quantized {
    /// A quantizer trained on `samples` (rows of `dimension` values, already prepared for the
    /// metric); `trained_on` is how many vectors they stand for.
    pub fn train(config: QuantizationConfig, metric: Metric, dimension: usize, samples: &[f32], trained_on: usize) -> Quantized {
        Quantized::with_kernels(config, metric, dimension, samples, trained_on, CodeKernels::detect())
    }

    pub fn with_kernels(
        config: QuantizationConfig,
        metric: Metric,
        dimension: usize,
        samples: &[f32],
        trained_on: usize,
        kernels: CodeKernels,
    ) -> Quantized {
        let (low, high) = match config {
            QuantizationConfig::ScalarInt8 { quantile } => range_of(samples, quantile.unwrap_or(1.0)),
            QuantizationConfig::Binary { .. } => (0.0, 0.0),
        };
        let binary = match config {
            QuantizationConfig::Binary { encoding, query_encoding } => Some(Codebook::train(encoding, query_encoding, samples, dimension)),
            QuantizationConfig::ScalarInt8 { .. } => None,
        };
        let alpha = if high > low { (high - low) / 255.0 } else { 1.0 };
        let (code_length, row_length) = match &binary {
            Some(codebook) => (codebook.code_length(), codebook.code_length() + codebook.extra_length()),
            None => (dimension, dimension + 4),
        };
        Quantized { config, metric, dimension, kernels, low, alpha, code_length, binary, codes: Rows::new(row_length), trained_on }
    }

    pub fn kernels_name(&self) -> &'static str {
        self.kernels.name
    }

    pub fn code_length(&self) -> usize {
        self.code_length
    }

    /// Heap bytes of the codes (0 when they are mapped: see `mapped_bytes`).
    pub fn memory_bytes(&self) -> usize {
        self.codes.allocated_bytes()
    }

    /// The same quantizer with its codes in file-backed memory in `directory` (mapped.rs)
    /// instead of the heap: for an `on_disk` index whose `always_ram` is false (docs/api.md
    /// §15). Called before any code is written; segments then grow as the arena's do.
    pub fn mapped_in(mut self, directory: std::path::PathBuf) -> Quantized {
        self.codes = Rows::mapped(self.codes.row_length(), directory);
        self
    }

    pub fn is_mapped(&self) -> bool {
        self.codes.is_mapped()
    }

    /// Bytes of mapped code segments (0 for heap codes); not all of it is in RAM.
    pub fn mapped_bytes(&self) -> usize {
        self.codes.mapped_bytes()
    }

    /// The part of the mapped codes in RAM now (`mincore`: monitoring only).
    pub fn mapped_resident_bytes(&self) -> usize {
        self.codes.mapped_resident_bytes()
    }

    /// Gives rows `first .. first + count` their storage before any is written, so a failure
    /// to map a file-backed segment (disk full) is an error here, before a write starts,
    /// rather than a panic in `encode_row`. One step per segment (at most 32).
    pub fn reserve(&self, first: usize, count: usize) -> crate::error::KernelResult<()> {
        if count == 0 {
            return Ok(());
        }
        let last = first + count - 1;
        let mut row = first;
        while row <= last {
            self.codes.try_ensure(row)?;
            row = self.codes.segment_end(row);
        }
        Ok(())
    }

    /// The code of `vector` and its correction term.
    pub fn encode(&self, vector: &[f32], code: &mut [u8]) -> f32 {
        debug_assert_eq!(vector.len(), self.dimension);
        match self.config {
            QuantizationConfig::ScalarInt8 { .. } => {
                let inverse = 1.0 / self.alpha;
                let mut sum = 0u64;
                let mut squares = 0u64;
                for (cell, value) in code.iter_mut().zip(vector) {
                    // + 0.5 and a saturating cast: round half up without a libm call per value
                    // (the query is encoded on every search).
                    let level = ((value - self.low) * inverse + 0.5).clamp(0.0, 255.0) as u8;
                    *cell = level;
                    sum += level as u64;
                    squares += level as u64 * level as u64;
                }
                match self.metric {
                    // x·y ≈ Σ(low + αc)(low + αd) = α²Σcd + (α·low·Σc + D·low²/2) + (same for y)
                    Metric::Cosine | Metric::Dot => self.alpha * self.low * sum as f32 + self.dimension as f32 * self.low * self.low / 2.0,
                    // |x − y|² ≈ α²(Σc² + Σd² − 2Σcd)
                    Metric::Euclid => self.alpha * self.alpha * squares as f32,
                    Metric::Manhattan => 0.0,
                }
            }
            // The binary extra (bit count, |x̂|²) is written by encode_row.
            QuantizationConfig::Binary { .. } => {
                if let Some(codebook) = &self.binary {
                    codebook.encode(vector, code);
                }
                0.0
            }
        }
    }

    /// Encodes the vector of arena row `row`. Each row is encoded once, before the store
    /// publishes it (or before this quantizer is published), so no reader sees it half-written.
    pub fn encode_row(&self, row: u32, vector: &[f32]) {
        let row = row as usize;
        self.codes.ensure(row);
        // SAFETY: write-once rows (see above): nobody reads this row until it is published.
        let stored = unsafe { self.codes.row_mut(row) };
        let (code, tail) = stored.split_at_mut(self.code_length);
        if let Some(codebook) = &self.binary {
            let extra = codebook.encode(vector, code);
            if tail.len() == Codebook::EXTRA_LENGTH {
                extra.write(tail);
            }
            return;
        }
        let correction = self.encode(vector, code);
        if tail.len() == 4 {
            tail.copy_from_slice(&correction.to_le_bytes());
        }
    }

    pub fn prepare_query(&self, query: &[f32]) -> QueryCode {
        let mut code = self.prepare_walk_query(query);
        self.complete_query(query, &mut code);
        code
    }

    /// What `walk_distance` needs of the query: for a binary codebook with an asymmetric query
    /// its own code only, whose weight planes cost a 768-d search ~4 µs and matter only when
    /// the walk's list is ranked (`complete_query`); `prepare_query`'s whole for the others.
    pub fn prepare_walk_query(&self, query: &[f32]) -> QueryCode {
        if let Some(codebook) = &self.binary {
            return QueryCode { code: Vec::new(), correction: 0.0, binary: Some(codebook.prepare_own_code(query)) };
        }
        let mut code = vec![0u8; self.code_length];
        let correction = self.encode(query, &mut code);
        QueryCode { code, correction, binary: None }
    }

    /// Completes a `prepare_walk_query` for `distance` (nothing to add but for an asymmetric
    /// binary query's weight planes).
    pub fn complete_query(&self, query: &[f32], code: &mut QueryCode) {
        if let (Some(codebook), Some(binary)) = (&self.binary, &mut code.binary) {
            codebook.add_weight_planes(query, binary);
        }
    }

    /// The stored row (code and its extra) of arena row `row`, if allocated (tests).
    #[cfg(test)]
    pub fn code_row(&self, row: u32) -> Option<&[u8]> {
        self.codes.get(row as usize)
    }

    /// Asks the CPU to start loading the code of arena row `row` (a hint; see store.rs): its
    /// first `CODE_PREFETCH_BYTES`, not only the first line. A 768-d int8 code spans 13 lines;
    /// loading only the first left the rest to be fetched one miss after another while scoring
    /// (measured: out of cache an int8 distance cost half a float32 one instead of a quarter).
    /// Asking for all 13 lines of each of a node's new neighbours asks for more than the core
    /// keeps in flight, as for float rows (docs/architecture.md §22): with the first 8, the
    /// hardware prefetcher follows the rest and the int8 walk took 7–12% less time.
    #[inline(always)]
    pub fn prefetch(&self, row: u32) {
        if let Some(stored) = self.codes.get(row as usize) {
            crate::prefetch::lines(stored.as_ptr(), stored.len().min(CODE_PREFETCH_BYTES));
        }
    }

    /// Whether the graph walk scores with a cheaper estimate than `distance` (`walk_distance`),
    /// and what it found is ranked again by `distance`: binary codes with an asymmetric query
    /// walk by the Hamming distance to the query's own code.
    pub fn walks_by_hamming(&self) -> bool {
        self.binary.as_ref().is_some_and(|codebook| codebook.extra_length() > 0)
    }

    /// The walk's estimate: the Hamming distance for binary codes (for a symmetric codebook
    /// that is `distance` itself), `distance` for the others.
    #[inline(always)]
    pub fn walk_distance(&self, query: &QueryCode, row: u32) -> f32 {
        match (&self.binary, &query.binary) {
            (Some(codebook), Some(binary)) => {
                let stored = self.codes.row(row as usize);
                codebook.hamming_distance(&self.kernels, self.metric, binary, &stored[..self.code_length])
            }
            _ => self.distance(query, row),
        }
    }

    /// Estimated internal distance (smaller is better, as distance/mod.rs) from the query to
    /// the code of arena row `row`.
    #[inline(always)]
    pub fn distance(&self, query: &QueryCode, row: u32) -> f32 {
        let stored = self.codes.row(row as usize);
        let code = &stored[..self.code_length];
        let correction = || match stored[self.code_length..] {
            [a, b, c, d] => f32::from_le_bytes([a, b, c, d]),
            _ => 0.0,
        };
        match self.config {
            QuantizationConfig::ScalarInt8 { .. } => match self.metric {
                Metric::Cosine | Metric::Dot => {
                    let dot = (self.kernels.dot_u8)(&query.code, code) as f32;
                    -(self.alpha * self.alpha * dot + query.correction + correction())
                }
                Metric::Euclid => {
                    let dot = (self.kernels.dot_u8)(&query.code, code) as f32;
                    (query.correction + correction() - 2.0 * self.alpha * self.alpha * dot).max(0.0)
                }
                Metric::Manhattan => self.alpha * (self.kernels.l1_u8)(&query.code, code) as f32,
            },
            QuantizationConfig::Binary { .. } => match (&self.binary, &query.binary) {
                (Some(codebook), Some(binary)) => codebook.distance(&self.kernels, self.metric, binary, code, &stored[self.code_length..]),
                _ => 0.0,
            },
        }
    }
}

/// The central `quantile` of the values: [low, high] holding that share of them.
fn range_of(values: &[f32], quantile: f32) -> (f32, f32) {
    if values.is_empty() {
        return (-1.0, 1.0);
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f32::total_cmp);
    let last = sorted.len() - 1;
    let cut = ((1.0 - quantile as f64) / 2.0 * last as f64).floor() as usize;
    (sorted[cut.min(last)], sorted[(last - cut).max(cut.min(last))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::Space;
    use crate::test_support::clustered;

    fn prepared(metric: Metric, data: &[f32], dimension: usize) -> Vec<f32> {
        let space = Space::new(metric);
        let mut rows = data.to_vec();
        for row in rows.chunks_exact_mut(dimension) {
            space.prepare(row);
        }
        rows
    }

    #[test]
    fn int8_estimates_stay_close_to_the_float_distances_for_every_metric() {
        let dimension = 64;
        for metric in [Metric::Cosine, Metric::Dot, Metric::Euclid, Metric::Manhattan] {
            let data = prepared(metric, &clustered(200, dimension, 4, 5), dimension);
            let quantized = Quantized::train(QuantizationConfig::ScalarInt8 { quantile: None }, metric, dimension, &data, 200);
            for (row, vector) in data.chunks_exact(dimension).enumerate() {
                quantized.encode_row(row as u32, vector);
            }
            let space = Space::new(metric);
            let query = &data[0..dimension];
            let code = quantized.prepare_query(query);
            let mut worst = 0f32;
            let mut scale = 0f32;
            for (row, vector) in data.chunks_exact(dimension).enumerate() {
                let exact = space.distance(query, vector);
                worst = worst.max((exact - quantized.distance(&code, row as u32)).abs());
                scale = scale.max(exact.abs());
            }
            assert!(worst <= 0.02 * scale + 1e-3, "{metric:?}: error {worst} against distances up to {scale}");
        }
    }

    #[test]
    fn the_quantile_clips_outliers_out_of_the_range() {
        let mut values: Vec<f32> = (0..1000).map(|i| i as f32 / 1000.0).collect();
        values.push(1000.0);
        let (low, high) = range_of(&values, 0.99);
        assert!(low >= 0.0 && high < 1.0, "{low} {high}");
        assert_eq!(range_of(&values, 1.0), (0.0, 1000.0));
    }

    #[test]
    fn one_bit_codes_keep_the_signs_and_estimate_cosine_from_them() {
        let quantized = Quantized::train(QuantizationConfig::BINARY_ONE_BIT, Metric::Cosine, 10, &[], 0);
        let vector = [1.0, -1.0, 0.5, -0.5, 0.0, 2.0, -2.0, 1.0, 1.0, -1.0];
        let mut code = vec![0u8; 2];
        quantized.encode(&vector, &mut code);
        assert_eq!(code, vec![0b1010_0101, 0b01]);
        quantized.encode_row(0, &vector);
        assert_eq!(quantized.distance(&quantized.prepare_query(&vector), 0), -1.0);
        let opposite: Vec<f32> = vector.iter().map(|value| if *value > 0.0 { -1.0 } else { 1.0 }).collect();
        assert_eq!(quantized.distance(&quantized.prepare_query(&opposite), 0), 1.0);
    }

    #[test]
    fn a_quantile_outside_one_half_to_one_is_refused() {
        assert!(QuantizationConfig::ScalarInt8 { quantile: Some(0.3) }.validate().is_err());
        assert!(QuantizationConfig::ScalarInt8 { quantile: Some(0.99) }.validate().is_ok());
    }
}
