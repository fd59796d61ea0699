//! Sparse index checkpoints, in the dense checkpoint's container (checkpoint.rs: checksum,
//! temporary file, fsync, rename, directory fsync; a corrupt file is refused whole).
//!
//! Layout (little endian), format version 2 (version 1, without the binding, is still read):
//!   magic "QUIVERSP" | u32 version | binding (u16 length + UTF-8, checkpoint.rs) | u64 last_operation_id |
//!   u32 live count | live slots (u32, ascending) |
//!   u32 list count | per dimension, ascending: u32 dimension | u32 length |
//!     slots (u32 × length, ascending) | weights (f32 × length) |
//!   u32 CRC-32 of every byte before it.
//! Only live entries are written, so a loaded index starts with no dead postings. The slot
//! list is needed for vectors with no entries, which appear in no posting list.

use super::inverted::InvertedIndex;
use super::postings::PostingList;
use crate::checkpoint::{self, Decoder, Encoder};
use crate::error::{KernelError, KernelResult};
use std::io::Write;
use std::path::Path;

pub const SPARSE_MAGIC: &[u8; 8] = b"QUIVERSP";
pub const SPARSE_FORMAT_VERSION: u32 = 2;

fn write_u32s<W: Write>(encoder: &mut Encoder<W>, values: impl Iterator<Item = u32>) -> std::io::Result<()> {
    // Bounded stack buffer, as Encoder::f32s does.
    let mut buffer = [0u8; 4096];
    let mut filled = 0;
    for value in values {
        buffer[filled..filled + 4].copy_from_slice(&value.to_le_bytes());
        filled += 4;
        if filled == buffer.len() {
            encoder.bytes(&buffer)?;
            filled = 0;
        }
    }
    encoder.bytes(&buffer[..filled])
}

fn read_u32s(decoder: &mut Decoder, count: usize) -> KernelResult<Vec<u32>> {
    let length = count.checked_mul(4).ok_or_else(|| KernelError::corrupt(format!("a count of {count} entries cannot be real")))?;
    Ok(decoder.take(length)?.chunks_exact(4).map(|chunk| u32::from_le_bytes(chunk.try_into().unwrap())).collect())
}

pub fn save(state: &InvertedIndex, path: &Path, last_operation_id: u64, binding: &str) -> KernelResult<()> {
    checkpoint::check_binding(binding)?;
    let lists = state.sorted_postings();
    checkpoint::write_atomically(path, |encoder| {
        encoder.bytes(SPARSE_MAGIC)?;
        encoder.u32(SPARSE_FORMAT_VERSION)?;
        checkpoint::write_binding(encoder, binding)?;
        encoder.u64(last_operation_id)?;
        encoder.u32(state.live() as u32)?;
        write_u32s(encoder, state.live_slots())?;
        encoder.u32(lists.len() as u32)?;
        for (dimension, list) in &lists {
            let live = list.slots().iter().zip(list.weights()).filter(|(_, weight)| !weight.is_nan());
            encoder.u32(*dimension)?;
            encoder.u32(list.live() as u32)?;
            write_u32s(encoder, live.clone().map(|(slot, _)| *slot))?;
            let weights: Vec<f32> = live.map(|(_, weight)| *weight).collect();
            encoder.f32s(&weights)?;
        }
        Ok(())
    })
}

fn strictly_ascending(values: &[u32]) -> bool {
    values.windows(2).all(|pair| pair[0] < pair[1])
}

pub fn load(path: &Path) -> KernelResult<(InvertedIndex, u64, String)> {
    let (body, version) = checkpoint::read_verified_as(path, SPARSE_MAGIC, 1..=SPARSE_FORMAT_VERSION)?;
    let mut decoder = Decoder::new(&body);
    decoder.take(SPARSE_MAGIC.len() + 4)?;
    let binding = checkpoint::read_binding(&mut decoder, version)?;
    let last_operation_id = decoder.u64()?;
    let live_count = decoder.u32()? as usize;
    let live_slots = read_u32s(&mut decoder, live_count)?;
    if !strictly_ascending(&live_slots) || live_slots.last() == Some(&u32::MAX) {
        return Err(KernelError::corrupt(format!("{}: live slots are not strictly ascending", path.display())));
    }
    let mut is_live = vec![false; live_slots.last().map_or(0, |slot| *slot as usize + 1)];
    for slot in &live_slots {
        is_live[*slot as usize] = true;
    }
    let list_count = decoder.u32()? as usize;
    let mut lists = Vec::with_capacity(list_count.min(decoder.remaining() / 8));
    let mut previous_dimension: Option<u32> = None;
    for _ in 0..list_count {
        let dimension = decoder.u32()?;
        if previous_dimension.is_some_and(|previous| previous >= dimension) {
            return Err(KernelError::corrupt(format!("{}: dimension {dimension} is out of order", path.display())));
        }
        previous_dimension = Some(dimension);
        let length = decoder.u32()? as usize;
        let slots = read_u32s(&mut decoder, length)?;
        let mut weights = vec![0.0f32; length.min(decoder.remaining() / 4)];
        if weights.len() != length {
            return Err(KernelError::corrupt(format!("{}: dimension {dimension} runs past the end of the file", path.display())));
        }
        decoder.f32s(&mut weights)?;
        let known = slots.iter().all(|slot| is_live.get(*slot as usize) == Some(&true));
        if length == 0 || !strictly_ascending(&slots) || !known || weights.iter().any(|weight| !weight.is_finite()) {
            return Err(KernelError::corrupt(format!("{}: the posting list of dimension {dimension} is malformed", path.display())));
        }
        lists.push((dimension, PostingList::from_sorted(slots, weights)));
    }
    if decoder.remaining() != 0 {
        return Err(KernelError::corrupt(format!(
            "{}: {} unexpected bytes after the last posting list",
            path.display(),
            decoder.remaining()
        )));
    }
    Ok((InvertedIndex::from_parts(&live_slots, lists), last_operation_id, binding))
}
