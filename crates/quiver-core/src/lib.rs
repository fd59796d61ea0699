//! QuiverDB's vector kernel. Pure Rust with no Node dependency, so it is tested with `cargo test`
//! and bound to JavaScript only through the thin `quiver-node` crate.

pub mod background_priority;
pub mod bitset;
pub mod brute_force;
pub mod checkpoint;
pub mod cores;
pub mod crc32;
pub mod decimal_to_double;
pub mod distance;
pub mod error;
pub mod hnsw;
pub mod index;
pub mod json_number_text;
pub mod json_numbers;
pub mod mapped;
pub mod mmr;
pub mod pending;
pub mod prefetch;
pub mod quantization;
pub mod rows;
pub mod shortest_decimal;
pub mod sparse;
pub mod store;
pub mod store_tables;
pub mod top_k;

pub use bitset::AllowedSlots;
pub use distance::Metric;
pub use error::{ErrorCode, KernelError, KernelResult};
pub use index::{
    CodePlacement, FilterStrategy, Hit, IndexParams, IndexStats, QuantizationSearch, QuantizationStatus, SearchParams, VectorIndex,
    VectorStorage,
};
pub use sparse::{SparseIndex, SparseSearchParams, SparseStats};

#[cfg(test)]
mod filtered_tests;
#[cfg(test)]
mod index_tests;
#[cfg(test)]
mod test_support;
