//! QuiverDB's vector kernel. Pure Rust with no Node dependency, so it is tested with `cargo test`
//! and bound to JavaScript only through the thin `quiver-node` crate.

pub mod distance;
