//! The graph section of a checkpoint:
//!   u32 entry slot (u32::MAX = none) | u8 entry level | u32 slot bound |
//!   per slot: u8 level + 1 (0 = not a node), then per level 0..=level: u16 count, count u32.
//! Loaded links are checked (range, capacity) so a consistent-checksum but wrong file still
//! cannot plant an out-of-range id.

use super::Graph;
use crate::checkpoint::{Decoder, Encoder};
use crate::error::{KernelError, KernelResult};
use std::io::Write;
use std::sync::atomic::Ordering;

impl Graph {
    /// Writes the graph; the caller keeps inserts out so the image is one consistent state.
    pub fn write_to<W: Write>(&self, encoder: &mut Encoder<W>) -> std::io::Result<()> {
        let (entry, entry_level) = self.entry().map_or((u32::MAX, 0), |(slot, level)| (slot, level));
        encoder.u32(entry)?;
        encoder.u8(entry_level as u8)?;
        let bound = self.slot_bound();
        encoder.u32(bound)?;
        let mut links = Vec::new();
        for slot in 0..bound {
            match self.level(slot) {
                None => encoder.u8(0)?,
                Some(top) => {
                    encoder.u8(top as u8 + 1)?;
                    for level in 0..=top {
                        self.read_links(slot, level, &mut links);
                        encoder.u16(links.len() as u16)?;
                        for link in &links {
                            encoder.u32(*link)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads a graph written by `write_to` into this (empty) graph. `vector_bound` is one
    /// past the highest slot holding a vector: links beyond it are corruption.
    pub fn read_from(&self, decoder: &mut Decoder<'_>, vector_bound: u32) -> KernelResult<()> {
        let entry = decoder.u32()?;
        let entry_level = decoder.u8()? as usize;
        let bound = decoder.u32()?;
        if bound > vector_bound {
            return Err(KernelError::corrupt(format!("graph covers {bound} slots but only {vector_bound} hold vectors")));
        }
        let mut links = Vec::new();
        for slot in 0..bound {
            let stored = decoder.u8()? as usize;
            if stored == 0 {
                continue;
            }
            let top = stored - 1;
            if top > super::MAX_LEVEL {
                return Err(KernelError::corrupt(format!("node {slot} has level {top}")));
            }
            if self.add_node(slot, top).1 {
                return Err(KernelError::corrupt(format!("node {slot} appears twice")));
            }
            let guard = self.lock(slot);
            for level in 0..=top {
                let count = decoder.u16()? as usize;
                if count > self.params.capacity(level) {
                    return Err(KernelError::corrupt(format!("node {slot} level {level} has {count} links")));
                }
                links.clear();
                for _ in 0..count {
                    let link = decoder.u32()?;
                    if link >= bound {
                        return Err(KernelError::corrupt(format!("node {slot} links slot {link} outside the graph")));
                    }
                    links.push(link);
                }
                self.write_links(&guard, slot, level, &links);
            }
        }
        if entry == u32::MAX {
            if self.node_count() > 0 {
                return Err(KernelError::corrupt("graph has nodes but no entry point"));
            }
        } else if self.level(entry) != Some(entry_level) {
            return Err(KernelError::corrupt(format!("entry point {entry} is not a node of level {entry_level}")));
        } else {
            self.set_entry(Some((entry, entry_level)));
        }
        // The random stream continues from a different point than a fresh graph's.
        self.random_state.fetch_add(bound as u64, Ordering::Relaxed);
        Ok(())
    }
}
